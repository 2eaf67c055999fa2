package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.INLINE_MAX;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Direct-access U-Net (paper section 3.6) on a base-level card: the sender names the offset in the receiver's
 * communication segment where the data is to land.
 *
 * <p>The SBA-200 has no MMU and its firmware implements the base level only (paper 3.3: "the hardware available
 * does not support the memory mapping required for the direct-access architecture"), so the placement is done by
 * the receiving library, not by the NI: the card deposits the message in free buffers as usual and
 * {@link Window#place} copies the payload to the named offset. The API has the direct-access shape (the sender
 * decides where the bytes go); the cost is the base level's one receive-side copy.
 *
 * <h2>Header convention</h2>
 * Every direct-access message starts with an 8-byte header, big-endian like every other U-Net word:
 * <pre>
 *   byte  0        1        2               3   4                               7
 *        +--------+--------+-----------------+  +-------------------------------+
 *        | 0xDA   | 0x55   |  0     |  0     |  | destination offset (uint32)   |
 *        +--------+--------+-----------------+  +-------------------------------+
 *         magic (w0 = 0xDA550000)                  in the receiver's window
 *   byte 8.. payload (message length - 8 bytes)
 * </pre>
 * A message of up to 32 payload bytes (40 with the header) still travels as a single inline cell.
 *
 * <h2>Bounds</h2>
 * The receiver exposes only a {@link Window}: a range of its segment it has set aside for remote writes. A header
 * whose {@code [offset, offset + payload)} does not lie inside the window is rejected ({@link #OUT_OF_BOUNDS}) and
 * nothing is written; so is a message without the magic ({@link #NOT_DIRECT}), a message shorter than the header
 * ({@link #MALFORMED}) and a message the card delivered with an error ({@link #RECEIVE_ERROR}).
 */
public final class DirectAccess {
    /** Header size in bytes. */
    public static final int HEADER_SIZE = 8;
    /** w0 of the header. */
    public static final int MAGIC = 0xDA55_0000;
    /** Largest payload that still goes as one inline cell. */
    public static final int INLINE_PAYLOAD_MAX = INLINE_MAX - HEADER_SIZE;

    /** {@link Window#place} results. */
    public static final int PLACED = 0;
    public static final int NOT_DIRECT = 1;
    public static final int MALFORMED = 2;
    public static final int OUT_OF_BOUNDS = 3;
    public static final int RECEIVE_ERROR = 4;

    private static final ValueLayout.OfInt INT_BE =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private DirectAccess() {
    }

    /** Writes the header at {@code at} of {@code buffer}. */
    public static void writeHeader(MemorySegment buffer, long at, int destinationOffset) {
        buffer.set(INT_BE, at, MAGIC);
        buffer.set(INT_BE, at + 4, destinationOffset);
    }

    /**
     * Sends a message whose payload the application composed at {@code stagingOffset + HEADER_SIZE} of the sender's
     * segment; the header is written in front of it and the whole is sent from the segment (inline when it fits one
     * cell, so a small remote write costs no DMA).
     *
     * @return false when the send queue is full
     */
    public static boolean send(UnetEndpoint sender, int channel, int stagingOffset, int destinationOffset,
                               int payloadLength) {
        if (payloadLength < 0) {
            throw new IllegalArgumentException("payload length must be >= 0, was " + payloadLength);
        }
        MemorySegment seg = sender.segment();
        writeHeader(seg, stagingOffset, destinationOffset);
        int total = HEADER_SIZE + payloadLength;
        return total <= INLINE_MAX
                ? sender.sendInline(channel, seg, stagingOffset, total)
                : sender.send(channel, stagingOffset, total);
    }

    /** A range of the receiver's segment that senders may write by offset. */
    public static final class Window {
        private final UnetEndpoint endpoint;
        private final long base;
        private final long length;
        private final MemorySegment header = MemorySegment.ofArray(new long[1]);
        private long placed;
        private long placedBytes;
        private long rejected;

        /**
         * @param base   start of the window in the endpoint's segment
         * @param length its size; the window must lie inside the segment
         */
        public Window(UnetEndpoint endpoint, long base, long length) {
            this.endpoint = endpoint;
            long seg = endpoint.segment().byteSize();
            if (base < 0 || length <= 0 || base > seg - length) {
                throw new IllegalArgumentException("direct-access window [" + base + ", +" + length
                        + ") does not lie inside the " + seg + "-byte segment of endpoint " + endpoint.id());
            }
            this.base = base;
            this.length = length;
        }

        /**
         * Places a received direct-access message: validates the header and the bounds, then copies the payload to
         * {@code window + offset}. The descriptor is not released (the caller does that).
         *
         * @return {@link #PLACED}, {@link #NOT_DIRECT}, {@link #MALFORMED}, {@link #OUT_OF_BOUNDS} or {@link #RECEIVE_ERROR}
         */
        public int place(long descriptor) {
            if (endpoint.isError(descriptor)) {
                rejected++;
                return RECEIVE_ERROR;
            }
            int total = endpoint.length(descriptor);
            if (total < HEADER_SIZE) {
                rejected++;
                return MALFORMED;
            }
            endpoint.copyRange(descriptor, 0, header, 0, HEADER_SIZE);
            if (header.get(INT_BE, 0) != MAGIC) {
                rejected++;
                return NOT_DIRECT;
            }
            long offset = Integer.toUnsignedLong(header.get(INT_BE, 4));
            int payload = total - HEADER_SIZE;
            if (offset > length - payload) {
                rejected++;
                return OUT_OF_BOUNDS;
            }
            endpoint.copyRange(descriptor, HEADER_SIZE, endpoint.segment(), base + offset, payload);
            placed++;
            placedBytes += payload;
            return PLACED;
        }

        /** The window's bytes (a slice of the segment). */
        public MemorySegment memory() {
            return endpoint.segment().asSlice(base, length);
        }

        public long placed() {
            return placed;
        }

        public long placedBytes() {
            return placedBytes;
        }

        public long rejected() {
            return rejected;
        }
    }
}
