package io.nicbridge.bridge.queue;

import static io.nicbridge.bridge.queue.UnetLayout.*;

import java.lang.foreign.MemorySegment;

/**
 * Field access shared by the send- and receive-descriptor views. {@code d} is the descriptor's byte offset in
 * {@code s}; callers got it from their queue, which checked the whole queue region at setup, so the accesses
 * here are in bounds and 4-byte aligned. Reads are plain: each caller has already performed the acquire that
 * makes the descriptor's body visible.
 */
final class UnetDescriptors {
    private UnetDescriptors() {
    }

    static int word(MemorySegment s, boolean be, long d, int word) {
        checkWordIndex(word);
        return IntWords.get(s, d + 4L * word, be);
    }

    static void putBodyWord(MemorySegment s, boolean be, long d, int word, int value) {
        if (word < 1 || word >= DESC_WORDS) {
            throw new IndexOutOfBoundsException("body word must be 1.." + (DESC_WORDS - 1)
                    + " (w0 carries VALID and is written only by commit/publish), was " + word);
        }
        IntWords.set(s, d + 4L * word, be, value);
    }

    static int bufferOffset(MemorySegment s, boolean be, long d, int i) {
        checkBufferIndex(i);
        return IntWords.get(s, d + DESC_BUFFERS + 8L * i, be);
    }

    static int bufferLength(MemorySegment s, boolean be, long d, int i) {
        checkBufferIndex(i);
        return IntWords.get(s, d + DESC_BUFFERS + 8L * i + 4, be);
    }

    static void putBuffer(MemorySegment s, boolean be, long d, int i, int offset, int length) {
        checkBufferIndex(i);
        IntWords.set(s, d + DESC_BUFFERS + 8L * i, be, offset);
        IntWords.set(s, d + DESC_BUFFERS + 8L * i + 4, be, length);
    }

    static void putInline(MemorySegment s, long d, MemorySegment src, long srcOffset, int length) {
        checkInlineLength(length);
        MemorySegment.copy(src, srcOffset, s, d + DESC_INLINE, length);
    }

    static void copyInline(MemorySegment s, long d, MemorySegment dst, long dstOffset, int length) {
        checkInlineLength(length);
        MemorySegment.copy(s, d + DESC_INLINE, dst, dstOffset, length);
    }

    private static void checkInlineLength(int length) {
        if (length < 0 || length > MAX_INLINE_BYTES) {
            throw new IllegalArgumentException("inline length must be 0.." + MAX_INLINE_BYTES + ", was " + length);
        }
    }

    static int length(int w0) {
        return w0 & W0_LENGTH_MASK;
    }

    static int channel(int w0) {
        return (w0 >>> W0_CHANNEL_SHIFT) & W0_CHANNEL_MASK;
    }

    static int nbufs(int w0) {
        return (w0 >>> W0_NBUFS_SHIFT) & W0_NBUFS_MASK;
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
