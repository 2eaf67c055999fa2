package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.testing.RecordingDmaView;
import io.nicbridge.sim.testing.RecordingDmaView.Access;
import io.nicbridge.sim.testing.RecordingDmaView.Mode;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The receive handoff's order, from the firmware's own host-memory accesses at its DMA port (a
 * {@link RecordingDmaView}, the recorder the 21140's descriptor-handoff test uses too): a message's payload (in the
 * free buffers, or inline in the entry) and the entry's body (status word, buffer list, timestamp) are all written
 * before the entry's w0 is stored with VALID - with release, once - and nothing of either is written after it. A
 * process that sees VALID with acquire then sees the whole message. Addresses in the log are bus addresses.
 */
class Sba200ReceiveHandoffOrderTest {
    private static final int RX_VCI = 200;

    /** One endpoint with channel 0 receiving on VCI 200, on a card whose host accesses are recorded. */
    private static final class Rx implements AutoCloseable {
        /** The firmware's DMA port, wrapped when the rig builds the card. */
        RecordingDmaView dma;
        final CardRig rig = new CardRig(EngineMode.INLINE, Sba200Timing.WIRE_ONLY,
            port -> dma = new RecordingDmaView(port));
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

        /** The bus address of receive-queue entry {@code d}. */
        long entryAddress(long d) {
            return rig.model.dma().busAddress(ep.receiveQueueSegment()) + d;
        }

        long segmentAddress() {
            return rig.model.dma().busAddress(ep.segment());
        }

        /** The accesses since the last {@link RecordingDmaView#clear()}, oldest first. */
        List<Access> log() {
            return List.copyOf(dma.log());
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
            List<Access> log = x.log();
            int publish = theValidRelease(log, x.entryAddress(d));

            assertEquals(5, x.ep.bufferCount(d));
            long segment = x.segmentAddress();
            for (int b = 0; b < x.ep.bufferCount(d); b++) {
                long from = segment + x.ep.bufferOffset(d, b);
                List<Integer> writes = writesTo(log, from, x.ep.bufferLength(d, b));
                assertEquals(x.ep.bufferLength(d, b), writes.stream().mapToLong(i -> log.get(i).length()).sum(),
                    "buffer " + b + " is written exactly once, byte for byte: " + writes + " in " + log);
                assertAllBefore(log, writes, publish, "buffer " + b + "'s payload");
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
            List<Access> log = x.log();
            int publish = theValidRelease(log, x.entryAddress(d));
            long inline = x.entryAddress(d) + RECV_DESC_INLINE_OFS;
            List<Integer> payload = writesTo(log, inline, 33);
            assertEquals(1, payload.size(), "one copy of the bytes: " + log);
            Access copy = log.get(payload.getFirst());
            assertEquals(new Access(inline, 33, true, Mode.PLAIN), copy, "all 33 bytes, plain");
            assertAllBefore(log, payload, publish, "the inline bytes");
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
                List<Access> log = x.log();
                int publish = theValidRelease(log, x.entryAddress(d));
                assertBodyWrittenBefore(log, x.entryAddress(d), publish);
                assertEquals(log.size() - 1, publish, "the release of VALID is the firmware's last host access: "
                    + log);
                x.ep.release(d);
                x.dma.clear();
            }
        }
    }

    /** The position in the log of the one write of the entry's w0: with release, VALID set. */
    private static int theValidRelease(List<Access> log, long entry) {
        List<Integer> w0 = writesTo(log, entry, 4);
        assertEquals(1, w0.size(), "w0 is written once per message: " + w0 + " in " + log);
        Access publish = log.get(w0.getFirst());
        assertEquals(entry, publish.bus(), "w0 is written as one word: " + publish);
        assertEquals(Mode.RELEASE, publish.mode(), "w0 is stored with release: " + publish);
        assertNotEquals(0, publish.value() & RX_VALID, "and carries VALID: " + publish);
        return w0.getFirst();
    }

    /** The entry's body - every word after w0 the firmware wrote - before the release, and none of it after. */
    private static void assertBodyWrittenBefore(List<Access> log, long entry, int publish) {
        List<Integer> body = writesTo(log, entry + 4, RECV_DESC_SIZE - 4);
        assertTrue(body.stream().anyMatch(i -> log.get(i).overlaps(entry + RECV_DESC_W1_OFS, 4)),
            "the status word w1 is written: " + log);
        assertTrue(body.stream().anyMatch(i -> log.get(i).overlaps(entry + RECV_DESC_TIMESTAMP_OFS, 8)),
            "the timestamp is written: " + log);
        assertAllBefore(log, body, publish, "the entry's body");
    }

    /** The positions in the log of the writes that touch {@code [from, from + len)}. */
    private static List<Integer> writesTo(List<Access> log, long from, long len) {
        return IntStream.range(0, log.size()).filter(i -> log.get(i).write() && log.get(i).overlaps(from, len))
            .boxed().toList();
    }

    private static void assertAllBefore(List<Access> log, List<Integer> writes, int publish, String what) {
        assertFalse(writes.isEmpty(), what + " is written: " + log);
        for (int i : writes) {
            assertTrue(i < publish, what + ": " + log.get(i) + " (#" + i + ") comes after the release of VALID "
                + log.get(publish) + " (#" + publish + ")");
        }
    }
}
