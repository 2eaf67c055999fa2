package io.nicbridge.protocols.pupa;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * One primary buffer (paper section 2.1.1): a 4 KiB circular FIFO of fixed-size entries in shared memory, 32 bytes of
 * state then 4064 bytes of entries.
 *
 * <pre>
 *   0 low   4 high   8 next   12 sent   16 full   20..31 reserved       (u32 each, entry positions 0 .. 62)
 *  32 entry 0 .. entry 62, 64 bytes each (4032 of the 4064 bytes; 32 unused):
 *     0 the 28-byte message header (PupaWire) | 28 the body when shorter than 32 bytes, else where it lives
 * </pre>
 *
 * The library and the "interrupt handler" share the FIFO without a lock: of a send FIFO the library writes
 * {@code high} and the handler {@code low} (and the handler alone {@code next} and {@code sent}); of a receive FIFO
 * the handler writes {@code high} and the library {@code low}. The full flag tells a full FIFO from an empty one
 * when {@code low == high}: the producer sets it when its insert catches up with {@code low}, the consumer clears it
 * when it frees an entry of a full FIFO. Publication is release/acquire, as in bridge's descriptor queues: a side
 * writes the entry, then releases the pointer; the other side acquires the pointer before reading the entry.
 */
final class PrimaryFifo {
    static final int BYTES = 4096;
    static final int STATE = 32;
    static final int ENTRY = 64;
    static final int ENTRIES = (BYTES - STATE) / ENTRY; // 63
    /** Where a body or its reference starts in an entry. */
    static final int BODY = PupaWire.MESSAGE_HEADER;

    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final long LOW = 0;
    private static final long HIGH = 4;
    private static final long NEXT = 8;
    private static final long SENT = 12;
    private static final long FULL = 16;

    private final MemorySegment segment;

    /** @param segment 4096 bytes, 4-byte aligned, zeroed (an empty FIFO) */
    PrimaryFifo(MemorySegment segment) {
        if (segment.byteSize() != BYTES || segment.address() % 4 != 0) {
            throw new IllegalArgumentException("a primary FIFO is 4096 aligned bytes, was " + segment);
        }
        this.segment = segment;
    }

    MemorySegment segment() {
        return segment;
    }

    /** @return the offset of entry {@code position} in {@link #segment()} */
    static long entry(int position) {
        return STATE + (long) position * ENTRY;
    }

    /** @return the position of the entry at offset {@code entry} ({@link #entry}'s inverse) */
    static int position(long entry) {
        return (int) ((entry - STATE) / ENTRY);
    }

    static int advance(int position, int by) {
        int p = position + by;
        return p >= ENTRIES ? p - ENTRIES : p;
    }

    int low() {
        return (int) INT.getAcquire(segment, LOW);
    }

    int high() {
        return (int) INT.getAcquire(segment, HIGH);
    }

    boolean full() {
        return (int) INT.getAcquire(segment, FULL) != 0;
    }

    /** @return entries in use, as either side sees them */
    int size() {
        int h = high();
        int l = low();
        if (h == l) {
            return full() ? ENTRIES : 0;
        }
        return h > l ? h - l : h - l + ENTRIES;
    }

    int free() {
        return ENTRIES - size();
    }

    /**
     * Producer: entries up to (not including) {@code newHigh} are written; publish them.
     *
     * @return the free entries now, from the low pointer this call read anyway (so that a producer that wants them
     *     does not read both pointers again; the consumer may only have freed more since)
     */
    int publishHigh(int newHigh) {
        int low = low();
        if (newHigh == low) {
            INT.setRelease(segment, FULL, 1);
        }
        INT.setRelease(segment, HIGH, newHigh);
        return newHigh == low ? 0 : newHigh < low ? low - newHigh : low - newHigh + ENTRIES;
    }

    /** Consumer: the {@code freed} entries before {@code newLow} are done with; give them back. */
    void publishLow(int newLow, int freed) {
        if (freed > 0 && full()) {
            INT.setRelease(segment, FULL, 0);
        }
        INT.setRelease(segment, LOW, newLow);
    }

    int next() {
        return (int) INT.get(segment, NEXT);
    }

    void next(int position) {
        INT.set(segment, NEXT, position);
    }

    int sent() {
        return (int) INT.get(segment, SENT);
    }

    void sent(int position) {
        INT.set(segment, SENT, position);
    }
}
