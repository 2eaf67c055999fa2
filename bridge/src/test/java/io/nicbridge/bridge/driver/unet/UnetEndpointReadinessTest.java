package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/** The endpoint's readiness signal: told of each delivery, consumes nothing, excludes upcalls. */
class UnetEndpointReadinessTest {
    @Test
    void theListenerIsToldWhenTheQueueBecomesNonEmptyAndTheMessagesStayForThePoll() {
        try (UnetFixture f = new UnetFixture()) {
            UnetEndpoint a = f.endpoint(0, 64 * 1024);
            UnetEndpoint b = f.endpoint(1, 64 * 1024);
            f.connect(a, 0, b, 0, 100, 101);
            int[] told = new int[1];
            Thread[] on = new Thread[1];
            b.readinessListener(() -> {
                told[0]++;
                on[0] = Thread.currentThread();
            });
            assertEquals(UPCALL_NONEMPTY, b.upcallMode(), "the listener asked the kernel for non-empty signals");
            for (int i = 0; i < 3; i++) {
                assertTrue(a.sendInline(0, a.segment(), 0, 8));
            }
            assertEquals(1, told[0], "edge-triggered: the queue became non-empty once for the three");
            assertSame(Thread.currentThread(), on[0], "the contract card signals on the doorbell's thread");
            for (int i = 0; i < 3; i++) {
                long d = b.poll();
                assertTrue(d >= 0, "message " + i + " is still in the receive queue");
                b.release(d);
            }
            assertEquals(0, b.upcallMessages());

            IllegalStateException both = assertThrows(IllegalStateException.class,
                    () -> b.upcall((e, d) -> { }, UPCALL_NONEMPTY));
            assertTrue(both.getMessage().contains("readiness listener"), both.getMessage());
            b.readinessListener(null);
            assertTrue(a.sendInline(0, a.segment(), 0, 8));
            assertEquals(1, told[0], "removed");
            b.upcall((e, d) -> { }, UPCALL_NONEMPTY);
            assertThrows(IllegalStateException.class, () -> b.readinessListener(() -> { }));

            f.kernel.destroyEndpoint(a);
            assertThrows(IllegalStateException.class, () -> a.readinessListener(() -> { }));
        }
    }
}
