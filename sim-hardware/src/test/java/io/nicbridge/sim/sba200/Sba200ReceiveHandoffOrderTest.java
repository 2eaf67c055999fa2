package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.sba200.RecordingHostDma.Access;
import io.nicbridge.sim.sba200.RecordingHostDma.Mode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The receive handoff's order, from the firmware's own host-memory accesses (a {@link RecordingHostDma}): a
 * message's payload (in the free buffers, or inline in the entry) and the entry's body (status word, buffer list,
 * timestamp) are all written before the entry's w0 is stored with VALID - with release, once - and nothing of
 * either is written after it. A process that sees VALID with acquire then sees the whole message.
 */
class Sba200ReceiveHandoffOrderTest {
    private static final int RX_VCI = 200;

    /** One endpoint with channel 0 receiving on VCI 200, on a card whose host accesses are recorded. */
    private static final class Rx implements AutoCloseable {
        final RecordingHostDma dma = new RecordingHostDma();
        final CardRig rig = new CardRig(EngineMode.INLINE, Sba200Timing.WIRE_ONLY, dma);
        final UnetEndpoint ep = rig.endpoint(64 * 1024, 8);
        final Pair.Side side = new Pair.Side(ep, rig.kernel.openChannel(ep, 0, 100, RX_VCI));

        /** Delivers {@code payload}, polls it, checks its bytes; returns the received descriptor. */
        long receive(byte[] payload) {
            rig.injectAll(rig.cellsOf(0, RX_VCI, payload));
            long d = ep.poll();
            assertTrue(d >= 0, "the message was delivered");
            assertArrayEquals(payload, side.payload(d));
            return d;
        }

        long entryAddress(long d) {
            return ep.receiveQueueSegment().address() + d;
        }

        @Override
        public void close() {
            rig.close();
        }
    }

    @Test
    void aBufferMessagesPayloadAndEntryAreWrittenBeforeItsValidWordIsReleased() {
        try (Rx x = new Rx()) {
            x.side.postBuffers(0, 16, 64);
            x.dma.clear();
            long d = x.receive(Pair.bytes(300, 3)); // 7 cells, 5 buffers of 64 bytes
            List<Access> log = x.dma.log();
            Access publish = theValidRelease(log, x.entryAddress(d));

            assertEquals(5, x.ep.bufferCount(d));
            long segment = x.ep.segment().address();
            for (int b = 0; b < x.ep.bufferCount(d); b++) {
                long from = segment + x.ep.bufferOffset(d, b);
                long to = from + x.ep.bufferLength(d, b);
                List<Access> writes = writesTo(log, from, to);
                assertEquals(x.ep.bufferLength(d, b), writes.stream().mapToLong(Access::length).sum(),
                    "buffer " + b + " is written exactly once, byte for byte: " + writes);
                assertAllBefore(writes, publish, "buffer " + b + "'s payload");
            }
            assertBodyWrittenBefore(log, x.entryAddress(d), publish);
        }
    }

    @Test
    void anInlineMessagesBytesAndEntryAreWrittenBeforeItsValidWordIsReleased() {
        try (Rx x = new Rx()) {
            x.dma.clear();
            long d = x.receive(Pair.bytes(33, 9)); // one cell: inline in the entry
            assertTrue(x.ep.isInline(d));
            List<Access> log = x.dma.log();
            Access publish = theValidRelease(log, x.entryAddress(d));
            long inline = x.entryAddress(d) + RECV_DESC_INLINE_OFS;
            List<Access> payload = writesTo(log, inline, inline + 33);
            assertEquals(List.of(Mode.WRITE), payload.stream().map(Access::mode).toList(), "one copy of the bytes");
            assertAllBefore(payload, publish, "the inline bytes");
            assertBodyWrittenBefore(log, x.entryAddress(d), publish);
        }
    }

    @Test
    void everyEntryOfAStreamIsPublishedLastAndInOrder() {
        try (Rx x = new Rx()) {
            x.side.postBuffers(0, 64, 256);
            x.dma.clear();
            for (int i = 0; i < 6; i++) {
                long d = x.receive(Pair.bytes(i % 2 == 0 ? 20 : 500, i));
                List<Access> log = x.dma.log();
                Access publish = theValidRelease(log, x.entryAddress(d));
                assertBodyWrittenBefore(log, x.entryAddress(d), publish);
                assertEquals(publish, log.getLast(), "the release of VALID is the firmware's last host access");
                x.ep.release(d);
                x.dma.clear();
            }
        }
    }

    /** The one write of the entry's w0 in the log: with release, VALID set. */
    private static Access theValidRelease(List<Access> log, long entry) {
        List<Access> w0 = writesTo(log, entry, entry + 4);
        assertEquals(1, w0.size(), "w0 is written once per message: " + w0);
        Access publish = w0.getFirst();
        assertEquals(Mode.PUT_RELEASE, publish.mode(), "w0 is stored with release");
        assertNotEquals(0, publish.value() & RX_VALID, "and carries VALID");
        return publish;
    }

    /** The entry's body - every word after w0 the firmware wrote - before the release, and none of it after. */
    private static void assertBodyWrittenBefore(List<Access> log, long entry, Access publish) {
        List<Access> body = writesTo(log, entry + 4, entry + RECV_DESC_SIZE);
        assertTrue(body.stream().anyMatch(a -> a.overlaps(entry + RECV_DESC_W1_OFS, entry + RECV_DESC_W1_OFS + 4)),
            "the status word w1 is written: " + body);
        assertTrue(body.stream().anyMatch(a -> a.overlaps(entry + RECV_DESC_TIMESTAMP_OFS,
            entry + RECV_DESC_TIMESTAMP_OFS + 8)), "the timestamp is written: " + body);
        assertAllBefore(body, publish, "the entry's body");
    }

    private static List<Access> writesTo(List<Access> log, long from, long to) {
        return log.stream().filter(a -> a.isWrite() && a.overlaps(from, to)).toList();
    }

    private static void assertAllBefore(List<Access> writes, Access publish, String what) {
        assertFalse(writes.isEmpty(), what + " is written");
        for (Access a : writes) {
            assertTrue(a.seq() < publish.seq(), what + ": " + a + " comes after the release of VALID " + publish);
        }
    }
}
