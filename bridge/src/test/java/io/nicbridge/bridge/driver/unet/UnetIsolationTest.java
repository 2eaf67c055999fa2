package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.bridge.driver.unet.UnetFixture.bytes;
import static io.nicbridge.bridge.driver.unet.UnetFixture.fill;
import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.queue.QueueCode;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Endpoint isolation: one endpoint can never observe or alter another's data - not through its page, not through
 * send offsets, not through free-queue offsets, not through channels.
 */
class UnetIsolationTest {
    private static final int SEG = 16 * 1024;
    private final UnetFixture f = new UnetFixture();

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void theProcessHoldsOnlyItsOwnPage() {
        UnetEndpoint a = f.endpoint(4, SEG);
        UnetEndpoint b = f.endpoint(5, SEG);
        assertEquals(EP_PAGE_SIZE, a.page().byteSize());
        assertThrows(IndexOutOfBoundsException.class, () -> a.page().get(java.lang.foreign.ValueLayout.JAVA_INT, EP_PAGE_SIZE));
        assertThrows(IndexOutOfBoundsException.class, () -> a.page().asSlice(-EP_PAGE_SIZE, 4));
        assertNotEquals(a.page().address(), b.page().address());
        assertThrows(IllegalArgumentException.class, () -> a.epcbWord(EPCB_SIZE), "EPCB accessor is bounded too");
    }

    @Test
    void sendOffsetsBeyondTheOwnSegmentAreRejectedAndNothingLeaks() {
        UnetEndpoint a = f.endpoint(0, SEG);
        UnetEndpoint victim = f.endpoint(1, SEG);
        UnetEndpoint spy = f.endpoint(2, SEG);
        f.connect(a, 0, spy, 0, 100, 101);
        spy.postReceiveBuffers(0, 8, 1024);
        fill(victim.segment(), 0, SEG, 77);
        byte[] before = bytes(victim.segment(), 0, SEG);
        Random r = new Random(4);
        for (int i = 0; i < 500; i++) {
            int off = SEG - 64 + r.nextInt(1 << 20);
            int len = 65 + r.nextInt(4000);
            a.send(0, off, len);
            assertEquals(TX_STATUS_SEG_BOUNDS, a.pollSendCompletion(), "offset " + off + " length " + len);
        }
        assertEquals(QueueCode.EMPTY, spy.poll(), "nothing was transmitted");
        assertArrayEquals(before, bytes(victim.segment(), 0, SEG));
    }

    @Test
    void freeBuffersOutsideTheOwnSegmentNeverReceiveData() {
        UnetEndpoint sender = f.endpoint(0, SEG);
        UnetEndpoint evil = f.endpoint(1, SEG);
        UnetEndpoint victim = f.endpoint(2, SEG);
        f.connect(sender, 0, evil, 0, 100, 101);
        fill(victim.segment(), 0, SEG, 5);
        byte[] before = bytes(victim.segment(), 0, SEG);
        // Every free buffer "evil" posts lies beyond its own segment (where other memory may be).
        for (int i = 0; i < 20; i++) {
            assertTrue(evil.offerFreeBufferUnchecked(SEG + i * 4096, 4096));
        }
        fill(sender.segment(), 0, 1000, 1);
        for (int i = 0; i < 10; i++) {
            sender.send(0, 0, 1000);
            long d = evil.poll();
            assertTrue(evil.isError(d));
            assertEquals(RX_ERR_DMA, evil.errorCode(d));
            evil.releaseKeepBuffers(d);
        }
        assertArrayEquals(before, bytes(victim.segment(), 0, SEG));
    }

    @Test
    void messagesReachOnlyTheEndpointOwningTheReceiveVci() {
        UnetEndpoint a = f.endpoint(0, SEG);
        UnetEndpoint b = f.endpoint(1, SEG);
        UnetEndpoint c = f.endpoint(2, SEG);
        f.connect(a, 0, b, 0, 100, 101);
        f.connect(a, 1, c, 0, 102, 103);
        MemorySegment src = MemorySegment.ofArray(new byte[] {1, 2, 3, 4});
        a.sendInline(0, src, 0, 4);
        assertTrue(b.poll() >= 0);
        assertEquals(QueueCode.EMPTY, c.poll(), "c never sees b's message");
        b.release(b.poll());
        f.kernel.destroyEndpoint(b);
        a.sendInline(0, src, 0, 4);
        assertEquals(QueueCode.EMPTY, c.poll());
        assertEquals(1, f.kernel.readStatistics().dropUnknownVci(), "b's VCI left the demux table with b");
    }

    @Test
    void aDestroyedEndpointsSegmentIsNoLongerReachableByTheCard() {
        UnetEndpoint a = f.endpoint(0, SEG);
        long bus = a.segmentBusAddress();
        assertTrue(f.card.dma.translate(bus, SEG) >= 0);
        f.kernel.destroyEndpoint(a);
        assertTrue(f.card.dma.translate(bus, 1) < 0);
    }
}
