package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An endpoint destroyed while its upcall runs (by the handler itself or by another thread) ends the upcall quietly,
 * and a failing upcall does not cost the other endpoints flagged in the same pass their wake-up.
 */
class UnetUpcallTeardownTest {
    private static final int SEG = 64 * 1024;
    private final UnetFixture f = new UnetFixture();
    private final MemorySegment src = MemorySegment.ofArray(new byte[40]);
    private UnetEndpoint a;
    private UnetEndpoint b;
    private UnetEndpoint c;

    @BeforeEach
    void open() {
        a = f.endpoint(0, SEG);
        b = f.endpoint(1, SEG);
        c = f.endpoint(2, SEG);
        f.connect(a, 0, b, 0, 100, 101);
        f.connect(a, 1, c, 0, 102, 103);
    }

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void anUpcallThatDestroysItsOwnEndpointEndsQuietlyOnTheInterruptPath() {
        List<Integer> got = new ArrayList<>();
        b.upcall((ep, d) -> {
            got.add(ep.length(d));
            f.kernel.destroyEndpoint(ep);
        }, UPCALL_NONEMPTY);
        // The inline card delivers and raises the line on this thread: before the fix release() threw out of send.
        assertTrue(a.sendInline(0, src, 0, 7));
        assertEquals(List.of(7), got);
        assertFalse(b.isLive());
        assertEquals(1, b.upcallMessages(), "the message the handler consumed");
        assertNull(f.kernel.endpoint(1));
        assertTrue(a.sendInline(1, src, 0, 3), "the sender and the card carry on");
    }

    @Test
    void anUpcallThatDestroysItsOwnEndpointStopsDrainingTheQueue() {
        List<Integer> got = new ArrayList<>();
        b.upcall((ep, d) -> {
            got.add(ep.length(d));
            f.kernel.destroyEndpoint(ep);
        }, UPCALL_NONEMPTY);
        b.disableUpcalls();
        for (int i = 1; i <= 3; i++) {
            assertTrue(a.sendInline(0, src, 0, i));
        }
        b.enableUpcalls(); // runs the deferred upcall here: before the fix it threw IllegalStateException
        assertEquals(List.of(1), got, "destroyed after the first message: nothing more is delivered");
        assertFalse(b.isLive());
    }

    @Test
    void anEndpointDestroyedByAnotherThreadDuringItsUpcallEndsTheUpcallQuietly() throws Exception {
        AtomicReference<Throwable> destroyerFailed = new AtomicReference<>();
        List<Integer> got = new ArrayList<>();
        b.upcall((ep, d) -> {
            got.add(ep.length(d));
            Thread destroyer = new Thread(() -> {
                try {
                    f.kernel.destroyEndpoint(ep);
                } catch (Throwable t) {
                    destroyerFailed.set(t);
                }
            }, "destroyer");
            destroyer.start();
            try {
                destroyer.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            assertFalse(destroyer.isAlive(), "the destroy does not wait for a running upcall's handler");
        }, UPCALL_NONEMPTY);
        b.disableUpcalls();
        assertTrue(a.sendInline(0, src, 0, 5));
        assertTrue(a.sendInline(0, src, 0, 6));
        b.enableUpcalls();
        assertNull(destroyerFailed.get());
        assertEquals(List.of(5), got);
        assertFalse(b.isLive());
    }

    @Test
    void aThrowingUpcallDoesNotCostAnotherEndpointItsWakeUp() {
        RuntimeException bug = new RuntimeException("handler bug");
        b.upcall((ep, d) -> {
            throw bug;
        }, UPCALL_NONEMPTY);
        List<Integer> atC = new ArrayList<>();
        c.upcall((ep, d) -> atC.add(ep.length(d)), UPCALL_NONEMPTY);
        f.kernel.interrupts(false); // both pending bits set, serviced in one pass below
        assertTrue(a.sendInline(0, src, 0, 4)); // to b (endpoint 1, serviced first)
        assertTrue(a.sendInline(1, src, 0, 9)); // to c (endpoint 2)
        RuntimeException thrown = assertThrows(RuntimeException.class, f.kernel::serviceEvents);
        assertSame(bug, thrown, "the handler's own exception is rethrown after the pass");
        assertEquals(List.of(9), atC, "c was signalled although b's upcall threw before it");
        assertEquals(0, f.kernel.serviceEvents(), "the mask was cleared once, nothing left over");
        assertTrue(b.isLive());
    }

    @Test
    void everyFailureOfAPassIsReportedTheFirstRethrownTheRestSuppressed() {
        RuntimeException first = new IllegalArgumentException("b");
        RuntimeException second = new IllegalArgumentException("c");
        b.upcall((ep, d) -> {
            throw first;
        }, UPCALL_NONEMPTY);
        c.upcall((ep, d) -> {
            throw second;
        }, UPCALL_NONEMPTY);
        f.kernel.interrupts(false);
        a.sendInline(0, src, 0, 1);
        a.sendInline(1, src, 0, 1);
        RuntimeException thrown = assertThrows(RuntimeException.class, f.kernel::serviceEvents);
        assertSame(first, thrown);
        assertArrayEquals(new Throwable[] {second}, thrown.getSuppressed());
    }
}
