package io.nicbridge.bridge.queue;

/**
 * Layout of the emulated "U-Net on SBA-200" endpoint page and of its queue descriptors (hardware-facts B.4, a
 * project PROPOSAL [P], not a historical Fore layout). Every word is a 32-bit <b>big-endian</b> word.
 *
 * <p>// must equal unet_sba200.h (the native-headers contract); the lead switches these to the generated constants.
 *
 * <pre>
 * Endpoint page (4 KiB, board RAM at 0x20000 + ep * 0x1000, mapped into the owning process only)
 *   0x000 +-----------------------------------------------+
 *         | EPCB (64 B)                                   |
 *         |  +0x00 sq_prod        (user writes)           |
 *         |  +0x04 sq_cons        (NI writes)             |
 *         |  +0x08 fq_prod        (user writes)           |
 *         |  +0x0C fq_cons        (NI writes)             |
 *         |  +0x10 rq_cons        (user writes)           |
 *         |  +0x14 rq_prod_shadow (NI writes)             |
 *         |  +0x18 ep_status  bit0 ACTIVE 1 SEGFAULT 2 RQ_OVERRUN 3 NO_FREE_BUF |
 *         |  +0x1C upcall_mode (0 none, 1 non-empty, 2 almost full)            |
 *         |  +0x20..+0x2C four drop counters                                   |
 *   0x040 +-----------------------------------------------+
 *         | reserved (960 B)                              |
 *   0x400 +-----------------------------------------------+
 *         | send queue: SQ_LEN = 32 x 64-byte descriptors |
 *   0xC00 +-----------------------------------------------+
 *         | free queue: FQ_LEN = 128 x 8-byte entries     |
 *  0x1000 +-----------------------------------------------+
 *
 * Send descriptor (64 B)                         Receive descriptor (64 B, host memory, written by NI DMA)
 *  w0  31 VALID | 29 INLINE | 27:24 nbufs |       w0  31 VALID | 30 INLINE | 29 ERROR | 27:24 nbufs |
 *      21:16 channel | 15:0 length                    21:16 channel | 15:0 length
 *  w1  NI status 0 pending 1 sent 2 bad channel   w1  23:16 error code | 15:8 AAL5 UU | 7:0 CPI
 *      3 segment bounds 4 too long
 *  w2..w13  6 x {offset, length} into the segment w2..w13  6 x {offset, length} from the free queue,
 *           or (INLINE) 40 bytes in w2..w11                or (INLINE) 40 bytes in w2..w11
 *  w14..w15 reserved                              w14..w15 timestamp in microseconds (w14 high word)
 *
 * Free-queue entry (8 B): w0 offset (64-byte aligned, in the segment) | w1 length
 * </pre>
 * Queue indices are free-running 32-bit counters; slot = index mod length (lengths are powers of two);
 * empty when prod == cons, full when prod - cons == length.
 */
public final class UnetLayout {
    private UnetLayout() {
    }

    public static final int ENDPOINT_PAGE_BYTES = 0x1000;

    // EPCB word offsets within the endpoint page
    public static final int EPCB_SQ_PROD = 0x00;
    public static final int EPCB_SQ_CONS = 0x04;
    public static final int EPCB_FQ_PROD = 0x08;
    public static final int EPCB_FQ_CONS = 0x0C;
    public static final int EPCB_RQ_CONS = 0x10;
    public static final int EPCB_RQ_PROD_SHADOW = 0x14;
    public static final int EPCB_EP_STATUS = 0x18;
    public static final int EPCB_UPCALL_MODE = 0x1C;
    public static final int EPCB_DROP_COUNTERS = 0x20;
    public static final int EPCB_BYTES = 0x40;

    public static final int EP_STATUS_ACTIVE = 1;
    public static final int EP_STATUS_SEGFAULT = 1 << 1;
    public static final int EP_STATUS_RQ_OVERRUN = 1 << 2;
    public static final int EP_STATUS_NO_FREE_BUF = 1 << 3;

    // Send queue
    public static final int SQ_OFFSET = 0x400;
    public static final int SQ_LEN = 32;
    public static final int SQ_DESCRIPTOR_BYTES = 64;

    // Free queue
    public static final int FQ_OFFSET = 0xC00;
    public static final int FQ_LEN = 128;
    public static final int FQ_ENTRY_BYTES = 8;
    public static final int FQ_ENTRY_OFFSET = 0;
    public static final int FQ_ENTRY_LENGTH = 4;
    public static final int FQ_BUFFER_ALIGNMENT = 64;

    // Receive queue (host memory)
    public static final int RQ_DESCRIPTOR_BYTES = 64;
    public static final int RQ_LEN_DEFAULT = 64;

    // Descriptor word byte offsets (send and receive)
    public static final int DESC_W0 = 0;
    public static final int DESC_W1 = 4;
    /** First {offset, length} pair (w2, w3); pair i is at DESC_BUFFERS + 8 * i. */
    public static final int DESC_BUFFERS = 8;
    /** Inline payload bytes start at w2. */
    public static final int DESC_INLINE = 8;
    public static final int DESC_TIMESTAMP_HIGH = 56;
    public static final int DESC_TIMESTAMP_LOW = 60;
    public static final int DESC_WORDS = 16;

    // w0 fields (send and receive)
    public static final int W0_LENGTH_MASK = 0xFFFF;
    public static final int W0_CHANNEL_SHIFT = 16;
    public static final int W0_CHANNEL_MASK = 0x3F;
    public static final int W0_NBUFS_SHIFT = 24;
    public static final int W0_NBUFS_MASK = 0xF;
    public static final int W0_VALID = 1 << 31;
    /** Send descriptor: payload is inline in w2..w11. */
    public static final int SQ_W0_INLINE = 1 << 29;
    /** Receive descriptor: the message failed (error code in w1 bits 23:16). */
    public static final int RQ_W0_ERROR = 1 << 29;
    /** Receive descriptor: payload is inline in w2..w11. */
    public static final int RQ_W0_INLINE = 1 << 30;

    public static final int MAX_LENGTH = 0xFFFF;
    public static final int MAX_CHANNEL = 63;
    public static final int MAX_BUFFERS = 6;
    public static final int MAX_INLINE_BYTES = 40;

    // Send w1 status values
    public static final int SQ_STATUS_PENDING = 0;
    public static final int SQ_STATUS_SENT = 1;
    public static final int SQ_STATUS_BAD_CHANNEL = 2;
    public static final int SQ_STATUS_SEGMENT_BOUNDS = 3;
    public static final int SQ_STATUS_TOO_LONG = 4;

    // Receive w1 fields and error codes
    public static final int RQ_W1_CPI_MASK = 0xFF;
    public static final int RQ_W1_UU_SHIFT = 8;
    public static final int RQ_W1_ERROR_SHIFT = 16;
    public static final int RQ_ERROR_CRC = 1;
    public static final int RQ_ERROR_LENGTH = 2;
    public static final int RQ_ERROR_BUFFERS_EXHAUSTED = 3;
    public static final int RQ_ERROR_TOO_MANY_BUFFERS = 4;

    /** Packs a descriptor w0 without its VALID bit. Arguments must already be validated. */
    static int word0(int length, int channel, int nbufs, int flags) {
        return flags | (nbufs << W0_NBUFS_SHIFT) | (channel << W0_CHANNEL_SHIFT) | length;
    }

    static void checkMessage(int length, int channel, int nbufs, boolean inline) {
        if (length < 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("length must be 0.." + MAX_LENGTH + ", was " + length);
        }
        if (channel < 0 || channel > MAX_CHANNEL) {
            throw new IllegalArgumentException("channel must be 0.." + MAX_CHANNEL + ", was " + channel);
        }
        if (inline) {
            if (length > MAX_INLINE_BYTES) {
                throw new IllegalArgumentException("inline length must be at most " + MAX_INLINE_BYTES + ", was " + length);
            }
            if (nbufs != 0) {
                throw new IllegalArgumentException("an inline message uses no buffers, nbufs was " + nbufs);
            }
        } else if (nbufs < 1 || nbufs > MAX_BUFFERS) {
            throw new IllegalArgumentException("nbufs must be 1.." + MAX_BUFFERS + ", was " + nbufs);
        }
    }

    static void checkBufferIndex(int i) {
        if (i < 0 || i >= MAX_BUFFERS) {
            throw new IndexOutOfBoundsException("buffer index must be 0.." + (MAX_BUFFERS - 1) + ", was " + i);
        }
    }

    static void checkWordIndex(int word) {
        if (word < 0 || word >= DESC_WORDS) {
            throw new IndexOutOfBoundsException("descriptor word must be 0.." + (DESC_WORDS - 1) + ", was " + word);
        }
    }
}
