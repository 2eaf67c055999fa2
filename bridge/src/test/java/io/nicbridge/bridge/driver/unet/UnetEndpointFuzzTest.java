package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.bridge.queue.QueueCode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A U-Net endpoint's receive and completion paths against a hostile card: beside the messages a contract-level
 * firmware ({@link ContractFirmware}) delivers from a peer endpoint, the card writes receive descriptors of any
 * words into any slot of the endpoint's receive queue the process does not hold (any VALID, length, channel, buffer
 * count, inline and error bits, buffer offsets and lengths) and any consumer index into the endpoint page
 * ({@code sq_cons}, {@code fq_cons}), while the process sends, polls, reads, copies out, releases (re-posting the
 * buffers or keeping them), posts free buffers with any arguments and collects completions:
 * <ul>
 *   <li>no exception but the documented ones ({@link IllegalArgumentException} for the process's own bad post
 *       arguments, {@link IllegalStateException} for a post the card's impossible {@code fq_cons} refuses,
 *       {@link IndexOutOfBoundsException} from copying an error message whose buffers lie outside the segment);</li>
 *   <li>nothing malformed is handed up as a good message: a message without the error flag has a length an inline
 *       descriptor holds, or 1 to 6 buffers inside the segment that hold exactly its length, every buffer index
 *       below {@code bufferCount} reads, and it copies out whole;</li>
 *   <li>send completions are documented statuses or codes, and the endpoint's counters never go back.</li>
 * </ul>
 * Corpus: {@code src/test/resources/io/nicbridge/bridge/driver/unet/UnetEndpointFuzzTestInputs/hostileCard/}.
 */
class UnetEndpointFuzzTest {
    private static final int SEGMENT = 16 * 1024;
    private static final ValueLayout.OfInt WORD = ValueLayout.JAVA_INT_UNALIGNED.withOrder(BYTE_ORDER);

    @FuzzTest(maxDuration = "30s")
    void hostileCard(FuzzedDataProvider script) {
        try (UnetFixture f = new UnetFixture(); Arena arena = Arena.ofConfined()) {
            UnetEndpoint peer = f.endpoint(0, SEGMENT);
            UnetEndpoint ep = f.endpoint(1, SEGMENT);
            f.connect(peer, 0, ep, 0, 40, 41);
            ep.postReceiveBuffers(0, 8, 256);
            MemorySegment copy = arena.allocate(AAL5_MAX_PDU + 64);
            long[] last = counters(ep);
            for (int step = 0; step < 48 && script.remainingBytes() > 0; step++) {
                switch (script.consumeInt(0, 8)) {
                    case 0 -> hostileDescriptor(ep, script);
                    case 1 -> ep.page().set(WORD, script.consumeBoolean() ? EPCB_FQ_CONS_OFS : EPCB_SQ_CONS_OFS,
                        script.consumeInt());
                    case 2 -> {
                        int length = script.consumeInt(0, 2000);
                        peer.send(0, 4096, length);
                    }
                    case 3 -> peer.sendInline(0, copy, 0, script.consumeInt(0, INLINE_MAX));
                    case 4 -> receive(ep, copy, script.consumeInt(0, 2));
                    case 5 -> {
                        long held = ep.heldDescriptor();
                        if (held >= 0) {
                            ep.release(held);
                        }
                    }
                    case 6 -> post(ep, script.consumeLong(-64, SEGMENT + 64), script.consumeInt(-1, 8),
                        script.consumeInt(-1, 2048));
                    case 7 -> completions(peer);
                    default -> completions(ep);
                }
                long[] now = counters(ep);
                for (int i = 0; i < now.length; i++) {
                    assertTrue(now[i] >= last[i], "endpoint counter " + i + " went from " + last[i] + " to " + now[i]);
                }
                last = now;
            }
        }
    }

    /** The card writes a whole descriptor into a slot the process does not hold, w0 (with VALID) last. */
    private static void hostileDescriptor(UnetEndpoint ep, FuzzedDataProvider script) {
        MemorySegment rq = ep.receiveQueueSegment();
        long slot = (long) script.consumeInt(0, ep.receiveQueueLength() - 1) * RECV_DESC_SIZE;
        if (slot == ep.heldDescriptor()) {
            return;
        }
        for (int w = 1; w < RECV_DESC_SIZE / 4; w++) {
            rq.set(WORD, slot + 4L * w, script.consumeInt());
        }
        rq.set(WORD, slot, script.consumeInt() | (script.consumeBoolean() ? RX_VALID : 0));
    }

    private static void receive(UnetEndpoint ep, MemorySegment copy, int then) {
        long d = ep.poll();
        if (d < 0) {
            assertEquals(QueueCode.EMPTY, d);
            return;
        }
        int length = ep.length(d);
        int channel = ep.channel(d);
        assertTrue(length >= 0 && length <= AAL5_MAX_PDU, "length " + length);
        assertTrue(channel >= 0 && channel < MAX_CHANNELS, "channel " + channel);
        ep.timestampMicros(d);
        int count = ep.bufferCount(d);
        long sum = 0;
        boolean inside = true;
        for (int i = 0; i < count; i++) {
            long off = Integer.toUnsignedLong(ep.bufferOffset(d, i));
            long len = Integer.toUnsignedLong(ep.bufferLength(d, i));
            inside &= off + len <= SEGMENT;
            sum += len;
        }
        assertThrows(IndexOutOfBoundsException.class, () -> ep.bufferOffset(d, count), "buffer index " + count);
        if (ep.isError(d)) {
            ep.errorCode(d);
            try {
                int got = ep.copyTo(d, copy, 0);
                assertTrue(got >= 0 && got <= length, "copied " + got + " of an error message of " + length);
            } catch (IndexOutOfBoundsException outside) {
                assertTrue(!inside, "copy refused though every buffer is inside the segment: " + outside);
            }
        } else {
            assertEquals(0, ep.errorCode(d), "error code of a good message");
            if (ep.isInline(d)) {
                assertEquals(0, count, "buffers of an inline message");
                assertTrue(length <= INLINE_MAX, "inline message of " + length + " bytes");
            } else {
                assertTrue(count >= 1 && count <= MAX_BUFS, "good message in " + count + " buffers");
                assertTrue(inside, "good message with a buffer outside the segment");
                assertEquals(length, sum, "buffers of a good message against its length");
            }
            assertEquals(length, ep.copyTo(d, copy, 0), "bytes a good message copies out");
        }
        switch (then) {
            case 0 -> ep.release(d);
            case 1 -> ep.releaseKeepBuffers(d);
            default -> { } // held: polled again later, released by a later step
        }
    }

    private static void post(UnetEndpoint ep, long offset, int count, int size) {
        try {
            ep.postReceiveBuffers(offset, count, size);
        } catch (IllegalArgumentException bad) {
            assertTrue(bad.getMessage() != null && bad.getMessage().contains("endpoint"), "unexplained refusal: " + bad);
        } catch (IllegalStateException impossibleConsumer) {
            assertTrue(impossibleConsumer.getMessage().contains("fq_cons"), impossibleConsumer.getMessage());
        }
    }

    private static void completions(UnetEndpoint ep) {
        for (int n = 0; n < 64; n++) {
            int status = ep.pollSendCompletion();
            if (status == QueueCode.EMPTY || status == QueueCode.PEER_CORRUPT) {
                break;
            }
            assertTrue(status >= 0, "send completion " + status);
        }
        assertTrue(ep.sendsInFlight() >= 0, "sends in flight " + ep.sendsInFlight());
    }

    private static long[] counters(UnetEndpoint ep) {
        return new long[] {ep.received(), ep.receivedBytes(), ep.freeQueueFull(), ep.peerProtocolErrors(),
            ep.unrecyclableBuffers(), ep.receiveErrors(RX_ERR_CRC), ep.receiveErrors(RX_ERR_LENGTH),
            ep.receiveErrors(RX_ERR_NO_BUFFERS), ep.receiveErrors(RX_ERR_TOO_MANY_BUFS), ep.receiveErrors(RX_ERR_DMA)};
    }
}
