package io.nicbridge.bridge.queue;

import static io.nicbridge.contract.Sba200Unet.INLINE_MAX;
import static io.nicbridge.contract.Sba200Unet.MAX_BUFS;
import static io.nicbridge.contract.Sba200Unet.MAX_CHANNELS;
import static io.nicbridge.contract.Sba200Unet.MAX_PDU;
import static io.nicbridge.contract.Sba200Unet.SEND_DESC_SIZE;

import io.nicbridge.contract.Sba200UnetBuf;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Field access shared by the U-Net send- and receive-descriptor views. The layout is the device contract's
 * ({@code sba200_unet.h}, docs/hardware-facts.md B.4 [P]), generated as {@link io.nicbridge.contract.Sba200Unet},
 * {@link io.nicbridge.contract.Sba200UnetEpPage}, {@link io.nicbridge.contract.Sba200UnetEpcb},
 * {@link io.nicbridge.contract.Sba200UnetSendDesc}, {@link io.nicbridge.contract.Sba200UnetRecvDesc} and
 * {@link io.nicbridge.contract.Sba200UnetFqEntry}; every word is big-endian in the contract.
 *
 * <pre>
 * Endpoint page (4 KiB, board RAM at EP_PAGE_BASE + ep * EP_PAGE_SIZE, mapped into the owning process only)
 *   0x000 +-----------------------------------------------+
 *         | EPCB (64 B): sq_prod sq_cons fq_prod fq_cons  |
 *         |   rq_cons rq_prod_shadow ep_status upcall_mode|
 *         |   4 drop counters, rq_len, seg_len            |
 *   0x040 +-----------------------------------------------+
 *         | reserved (960 B)                              |
 *   0x400 +-----------------------------------------------+
 *         | send queue: SQ_LEN = 32 x 64-byte descriptors |
 *   0xC00 +-----------------------------------------------+
 *         | free queue: FQ_LEN = 128 x 8-byte entries     |
 *  0x1000 +-----------------------------------------------+
 *
 * Send descriptor (64 B, board RAM)               Receive descriptor (64 B, host memory, written by NI DMA)
 *  w0  31 VALID | 29 INLINE | 27:24 nbufs |        w0  31 VALID | 30 INLINE | 29 ERROR | 27:24 nbufs |
 *      21:16 channel | 15:0 length                     21:16 channel | 15:0 length
 *  w1  NI status (TX_STATUS_*)                     w1  23:16 error code | 15:8 AAL5 UU | 7:0 CPI
 *  w2..w13  bufs[6] {offset, length}               w2..w13  bufs[6] {offset, length} from the free queue,
 *           or (INLINE) 40 bytes in w2..w11                 or (INLINE) 40 bytes in w2..w11
 *  w14..w15 reserved                               w14..w15 uint64 timestamp_us (in the queue's byte order:
 *                                                           big-endian in the contract, w14 high)
 * Free-queue entry (8 B): offset (64-byte aligned, in the segment) | length
 * </pre>
 *
 * <p>{@code d} is a descriptor's byte offset in {@code s}; callers got it from their queue, which checked the whole
 * queue region at setup, so the accesses here are in bounds and 4-byte aligned. Buffer and inline helpers take the
 * offset of the {@code bufs} array / inline overlay (the caller adds its own descriptor's generated offset). Reads
 * are plain: each caller has already performed the acquire that makes the descriptor's body visible.
 */
final class UnetDescriptors {
    /** Words per descriptor: both are 64 bytes (SEND_DESC_SIZE == RECV_DESC_SIZE, checked in DescriptorContractTest). */
    static final int DESC_WORDS = SEND_DESC_SIZE / Integer.BYTES;
    /** Channels are 0..MAX_CHANNELS - 1 (6-bit field). */
    static final int MAX_CHANNEL = MAX_CHANNELS - 1;

    // The receive timestamp is body data ordered by the w0 handoff, so it needs no atomic access; the unaligned
    // layout keeps it legal for a queue the view only requires to be 4-byte aligned (EP_CREATE's RQ_ALIGN = 64
    // makes it 8-byte aligned in practice).
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private UnetDescriptors() {
    }

    /** {@code (word & mask) >>> shift} for the contract's in-place masks. */
    static int field(int word, int mask, int shift) {
        return (word & mask) >>> shift;
    }

    static int word(MemorySegment s, boolean be, long d, int word) {
        checkWordIndex(word);
        return IntWords.get(s, d + (long) Integer.BYTES * word, be);
    }

    static void putBodyWord(MemorySegment s, boolean be, long d, int word, int value) {
        if (word < 1 || word >= DESC_WORDS) {
            throw new IndexOutOfBoundsException("body word must be 1.." + (DESC_WORDS - 1)
                    + " (w0 carries VALID and is written only by commit/publish), was " + word);
        }
        IntWords.set(s, d + (long) Integer.BYTES * word, be, value);
    }

    static int bufferOffset(MemorySegment s, boolean be, long bufs, int i) {
        return IntWords.get(s, pair(bufs, i) + Sba200UnetBuf.OFFSET_OFFSET, be);
    }

    static int bufferLength(MemorySegment s, boolean be, long bufs, int i) {
        return IntWords.get(s, pair(bufs, i) + Sba200UnetBuf.OFFSET_LENGTH, be);
    }

    static void putBuffer(MemorySegment s, boolean be, long bufs, int i, int offset, int length) {
        long p = pair(bufs, i);
        IntWords.set(s, p + Sba200UnetBuf.OFFSET_OFFSET, be, offset);
        IntWords.set(s, p + Sba200UnetBuf.OFFSET_LENGTH, be, length);
    }

    private static long pair(long bufs, int i) {
        checkBufferIndex(i);
        return bufs + Sba200UnetBuf.BYTE_SIZE * i;
    }

    static void putInline(MemorySegment s, long inline, MemorySegment src, long srcOffset, int length) {
        checkInlineLength(length);
        MemorySegment.copy(src, srcOffset, s, inline, length);
    }

    static void copyInline(MemorySegment s, long inline, MemorySegment dst, long dstOffset, int length) {
        checkInlineLength(length);
        MemorySegment.copy(s, inline, dst, dstOffset, length);
    }

    static long getLong(MemorySegment s, long offset, boolean be) {
        return s.get(be ? LONG_BE : LONG_LE, offset);
    }

    static void setLong(MemorySegment s, long offset, boolean be, long value) {
        s.set(be ? LONG_BE : LONG_LE, offset, value);
    }

    private static void checkInlineLength(int length) {
        if (length < 0 || length > INLINE_MAX) {
            throw new IllegalArgumentException("inline length must be 0.." + INLINE_MAX + ", was " + length);
        }
    }

    /** Checks the w0 fields of a message before anything is written. */
    static void checkMessage(int length, int channel, int nbufs, boolean inline) {
        if (length < 0 || length > MAX_PDU) {
            throw new IllegalArgumentException("length must be 0.." + MAX_PDU + ", was " + length);
        }
        if (channel < 0 || channel > MAX_CHANNEL) {
            throw new IllegalArgumentException("channel must be 0.." + MAX_CHANNEL + ", was " + channel);
        }
        if (inline) {
            if (length > INLINE_MAX) {
                throw new IllegalArgumentException("inline length must be at most " + INLINE_MAX + ", was " + length);
            }
            if (nbufs != 0) {
                throw new IllegalArgumentException("an inline message uses no buffers, nbufs was " + nbufs);
            }
        } else if (nbufs < 1 || nbufs > MAX_BUFS) {
            throw new IllegalArgumentException("nbufs must be 1.." + MAX_BUFS + ", was " + nbufs);
        }
    }

    static void checkBufferIndex(int i) {
        if (i < 0 || i >= MAX_BUFS) {
            throw new IndexOutOfBoundsException("buffer index must be 0.." + (MAX_BUFS - 1) + ", was " + i);
        }
    }

    static void checkWordIndex(int word) {
        if (word < 0 || word >= DESC_WORDS) {
            throw new IndexOutOfBoundsException("descriptor word must be 0.." + (DESC_WORDS - 1) + ", was " + word);
        }
    }

    static void checkOffset(long d, long expected, String what) {
        if (expected < 0) {
            throw new IllegalStateException(what + ": no descriptor is held (claim/poll first)");
        }
        if (d != expected) {
            throw new IllegalArgumentException(what + ": descriptor offset " + d + " is not the held descriptor " + expected);
        }
    }
}
