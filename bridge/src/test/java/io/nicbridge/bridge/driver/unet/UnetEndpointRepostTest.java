package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/**
 * {@link UnetEndpoint#release} when the free queue has no room for the buffers it gives back (more buffers circulate
 * than the queue holds): they are kept and re-posted at a later release, never dropped from circulation.
 */
class UnetEndpointRepostTest {
    private static final int SIZE = 256;

    @Test
    void aReleaseIntoAFullFreeQueueKeepsTheBufferForLaterInsteadOfDroppingIt() {
        try (UnetFixture f = new UnetFixture()) {
            UnetEndpoint a = f.endpoint(0, 64 * 1024);
            UnetEndpoint b = f.endpoint(1, 256 * 1024);
            f.connect(a, 0, b, 0, 100, 101);
            assertEquals(FQ_LEN, b.postReceiveBuffers(0, FQ_LEN, SIZE));
            int circulating = FQ_LEN;
            for (int round = 0; round < 3 * FQ_LEN; round++) {
                assertTrue(a.send(0, 0, 100)); // one buffer of b's: the card takes it from the free queue
                a.reapSends();
                if (round == 0) {
                    // The application posts one more into the slot the card just freed: 129 buffers circulate now.
                    assertEquals(1, b.postReceiveBuffers((long) FQ_LEN * SIZE, 1, SIZE));
                    circulating++;
                }
                long d = b.poll();
                assertTrue(d >= 0, "round " + round);
                assertFalse(b.isError(d), "round " + round + ": error " + b.errorCode(d));
                b.release(d);
                assertEquals(circulating, b.freeBuffersPosted() + b.pendingReposts(),
                        "round " + round + ": every buffer is in the free queue or kept for re-posting");
            }
            assertEquals(FQ_LEN, b.freeBuffersPosted());
            assertEquals(1, b.pendingReposts());
            assertEquals(3L * FQ_LEN, b.freeQueueFull(), "each release met a full queue and kept one buffer");
            assertEquals(0, b.receiveErrors(RX_ERR_NO_BUFFERS));
        }
    }
}
