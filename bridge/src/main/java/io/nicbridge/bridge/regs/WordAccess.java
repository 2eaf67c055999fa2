package io.nicbridge.bridge.regs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * A reusable flyweight for 32-bit word access to plain memory windows (board RAM, queues, descriptor
 * rings) in a fixed byte order, with explicit access modes. SBA-200 board RAM and Medusa buffer RAM are
 * big-endian; the 21140's descriptors are host-endian.
 *
 * <p>Wrap once at setup, then use from the hot path: nothing allocates. Bounds and 4-byte alignment are
 * checked by the memory segment itself ({@link IndexOutOfBoundsException}, {@link IllegalArgumentException}
 * "misaligned"), so bad offsets never touch memory outside the window.
 *
 * <p>Ownership handoff: the writer fills a slot's payload with plain stores and then writes the ownership
 * word with {@link #putIntRelease}; the reader checks the ownership word with {@link #getIntAcquire} before
 * reading the payload.
 */
public final class WordAccess {
    private static final VarHandle INT_LE = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();
    private static final VarHandle INT_BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).varHandle();

    private MemorySegment segment = MemorySegment.NULL;
    private boolean bigEndian;

    public WordAccess() {
    }

    public WordAccess(MemorySegment segment, ByteOrder order) {
        wrap(segment, order);
    }

    /** Points this flyweight at {@code segment} in byte order {@code order}; returns {@code this}. */
    public WordAccess wrap(MemorySegment segment, ByteOrder order) {
        this.segment = Objects.requireNonNull(segment, "segment");
        this.bigEndian = Objects.requireNonNull(order, "order") == ByteOrder.BIG_ENDIAN;
        return this;
    }

    public MemorySegment segment() {
        return segment;
    }

    public ByteOrder order() {
        return bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    }

    public int getInt(long offset) {
        return bigEndian ? (int) INT_BE.get(segment, offset) : (int) INT_LE.get(segment, offset);
    }

    public int getIntOpaque(long offset) {
        return bigEndian ? (int) INT_BE.getOpaque(segment, offset) : (int) INT_LE.getOpaque(segment, offset);
    }

    public int getIntAcquire(long offset) {
        return bigEndian ? (int) INT_BE.getAcquire(segment, offset) : (int) INT_LE.getAcquire(segment, offset);
    }

    public int getIntVolatile(long offset) {
        return bigEndian ? (int) INT_BE.getVolatile(segment, offset) : (int) INT_LE.getVolatile(segment, offset);
    }

    public void putInt(long offset, int value) {
        if (bigEndian) {
            INT_BE.set(segment, offset, value);
        } else {
            INT_LE.set(segment, offset, value);
        }
    }

    public void putIntOpaque(long offset, int value) {
        if (bigEndian) {
            INT_BE.setOpaque(segment, offset, value);
        } else {
            INT_LE.setOpaque(segment, offset, value);
        }
    }

    public void putIntRelease(long offset, int value) {
        if (bigEndian) {
            INT_BE.setRelease(segment, offset, value);
        } else {
            INT_LE.setRelease(segment, offset, value);
        }
    }

    public void putIntVolatile(long offset, int value) {
        if (bigEndian) {
            INT_BE.setVolatile(segment, offset, value);
        } else {
            INT_LE.setVolatile(segment, offset, value);
        }
    }

    public boolean compareAndSetInt(long offset, int expected, int value) {
        return bigEndian ? INT_BE.compareAndSet(segment, offset, expected, value)
            : INT_LE.compareAndSet(segment, offset, expected, value);
    }

    public int getAndAddInt(long offset, int delta) {
        return bigEndian ? (int) INT_BE.getAndAdd(segment, offset, delta) : (int) INT_LE.getAndAdd(segment, offset, delta);
    }
}
