package io.nicbridge.protocols.ip.tcp;

import java.lang.foreign.MemorySegment;

/**
 * A power-of-two byte ring over one off-heap segment, addressed by a 64-bit stream position (byte k of a stream lives
 * at {@code k & (capacity - 1)}): the send and receive buffers of a {@link TcpConnection}, carved once from the
 * {@link Tcp}'s arena like a comm segment. The ring keeps no indices of its own: the connection knows which positions
 * hold live bytes (send: acknowledged..written; receive: read..received, plus out-of-order ranges ahead of a gap),
 * so out-of-order data can be written straight to where it belongs.
 *
 * <pre>
 *   position p                         p + n            (stream positions, never wrapping: 2^63 bytes)
 *      |--------------- n bytes ---------|
 *   memory: [ ... tail part | ............................ | head part ... ]   index = p &amp; mask
 * </pre>
 */
final class ByteRing {
    private final MemorySegment memory;
    private final int mask;

    ByteRing(MemorySegment memory) {
        long size = memory.byteSize();
        if (size < 1 || size > (1 << 30) || Long.bitCount(size) != 1) {
            throw new IllegalArgumentException("ring size must be a power of two up to 2^30, was " + size);
        }
        this.memory = memory;
        this.mask = (int) size - 1;
    }

    int capacity() {
        return mask + 1;
    }

    /** Copies {@code length} bytes from {@code src} into the ring at stream position {@code position}. */
    void write(long position, MemorySegment src, long srcOffset, int length) {
        int at = (int) position & mask;
        int first = Math.min(length, mask + 1 - at);
        MemorySegment.copy(src, srcOffset, memory, at, first);
        if (first < length) {
            MemorySegment.copy(src, srcOffset + first, memory, 0, length - first);
        }
    }

    /** Copies {@code length} bytes at stream position {@code position} out of the ring into {@code dst}. */
    void read(long position, MemorySegment dst, long dstOffset, int length) {
        int at = (int) position & mask;
        int first = Math.min(length, mask + 1 - at);
        MemorySegment.copy(memory, at, dst, dstOffset, first);
        if (first < length) {
            MemorySegment.copy(memory, 0, dst, dstOffset + first, length - first);
        }
    }
}
