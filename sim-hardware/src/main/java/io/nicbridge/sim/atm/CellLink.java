package io.nicbridge.sim.atm;

import io.nicbridge.contract.Sba200Unet;
import io.nicbridge.sim.engine.SimTimer;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.fault.FaultInjector;
import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.fault.FaultPlan;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * One direction of a TAXI fiber: cells from one transmitter to one {@link CellSink}.
 *
 * <h2>Virtual time</h2>
 * The link serializes cells at its bit rate (140 Mb/s: one 53-byte cell per 3.028571 us, kept in picoseconds so
 * that N back-to-back cells take exactly N cell times) and delivers each one a propagation delay after its last
 * bit left:
 * <pre>
 *   start(i)     = max(now, notBefore, departure(i-1))
 *   departure(i) = start(i) + cellTime, rounded up to ns (returned by lastDepartureNanos())
 *   arrival(i)   = departure(i) + propagation          (the sink runs then, in transmit order)
 * </pre>
 * Cells in flight wait in a ring of {@code capacity} preallocated 53-byte slots (the transmitter's output FIFO
 * plus the fiber); one {@link SimTimer} fires at the head's arrival. A cell that finds the ring full is dropped
 * and counted ({@link #overflows()}); {@link #transmit} returns false (back-pressure the transmitter may use).
 *
 * <h2>Real time</h2>
 * No serialization: {@link #transmit} delivers synchronously to the sink on the calling thread, from the caller's
 * memory (the sink copies). Only a DELAY fault goes through the ring, delivered by the timer when the engine owning
 * the real-time base polls its timers.
 *
 * <h2>Faults</h2>
 * A {@link FaultPlan} is applied per cell (cells numbered from 1 in transmit order): DROP (lost), CORRUPT (one bit
 * of the 53 bytes inverted: in the header the receiver's HEC check fails, in the payload the AAL5 CRC does),
 * DUPLICATE (delivered twice), REORDER (held and delivered right after the next cell), DELAY (arrives
 * {@link FaultInjector#delayNanos()} later; in virtual time the cells behind it wait, since a fiber keeps cell
 * order). Counted by kind in {@link #faultCount}.
 *
 * <p>Threading: one transmitting thread at a time (the card's or switch's service); ring accesses are locked
 * because the real-time timer may fire on another thread. Allocation-free after construction.
 */
public final class CellLink {
    public static final long TAXI_BITS_PER_SECOND = Sba200Unet.LINK_BPS;
    /** 100 m of multimode fiber at 5 ns/m. */
    public static final long DEFAULT_PROPAGATION_NANOS = 500;
    public static final int DEFAULT_CAPACITY = 2048;

    private static final int CELL = AtmCells.CELL_SIZE;

    private final String name;
    private final TimeBase timeBase;
    private final boolean virtual;
    private final CellSink sink;
    private final long cellPicos;
    private final long propagationNanos;
    private final int mask;
    private final MemorySegment ring;
    private final long[] arrival;
    private final MemorySegment scratch;
    private final MemorySegment deliver;
    private final MemorySegment held;
    private final FaultInjector faults;
    private final SimTimer timer;
    private final Object lock = new Object();
    private long head;
    private long tail;
    private long lastArrival;
    private long freeAtPicos;
    private long lastDepartureNanos;
    private boolean holding;
    private long transmitted;
    private long delivered;
    private long overflows;

    private CellLink(Builder b) {
        this.name = b.name;
        this.timeBase = b.timeBase;
        this.virtual = b.timeBase.isVirtual();
        this.sink = Objects.requireNonNull(b.sink, "sink");
        this.cellPicos = AtmCells.cellTimePicos(b.bitsPerSecond);
        this.propagationNanos = b.propagationNanos;
        this.mask = b.capacity - 1;
        Arena arena = Arena.ofAuto();
        this.ring = arena.allocate((long) b.capacity * CELL, 64);
        this.arrival = new long[b.capacity];
        this.scratch = arena.allocate(CELL, 8);
        this.deliver = arena.allocate(CELL, 8);
        this.held = arena.allocate(CELL, 8);
        this.faults = b.faults.isNone() ? null : b.faults.newInjector();
        this.timer = timeBase.newTimer(name + ".arrival", this::deliverDue);
    }

    public static Builder builder(TimeBase timeBase, CellSink sink) {
        return new Builder(timeBase, sink);
    }

    public String name() {
        return name;
    }

    /** Transmits as soon as the fiber is free. */
    public boolean transmit(MemorySegment cell, long offset) {
        return transmit(cell, offset, 0);
    }

    /**
     * Puts one cell on the fiber.
     *
     * @param notBeforeNanos virtual time before which the cell cannot start (the transmitter's DMA); ignored in
     *     real time
     * @return false when the cell was dropped because the ring is full (in virtual time); a fault-dropped cell
     *     returns true, as a transmitter cannot tell
     */
    public boolean transmit(MemorySegment cell, long offset, long notBeforeNanos) {
        transmitted++;
        long depart = 0;
        if (virtual) {
            long start = Math.max(Math.max(timeBase.nanoTime(), notBeforeNanos) * 1000, freeAtPicos);
            freeAtPicos = start + cellPicos;
            // The last bit leaves within this nanosecond: round up, so a cell is never seen before it is complete.
            depart = (freeAtPicos + 999) / 1000;
            lastDepartureNanos = depart;
        }
        FaultKind kind = faults == null ? FaultKind.NONE : faults.next(CELL);
        switch (kind) {
            case NONE:
                return put(cell, offset, depart, false);
            case DROP:
                return true;
            case CORRUPT: {
                MemorySegment.copy(cell, offset, scratch, 0, CELL);
                FaultInjector.flipBit(scratch, 0, faults.corruptBit());
                return put(scratch, 0, depart, false);
            }
            case DUPLICATE:
                return put(cell, offset, depart, false) & put(cell, offset, depart, false);
            case REORDER: {
                if (holding) {
                    boolean ok = put(held, 0, depart, false);
                    MemorySegment.copy(cell, offset, held, 0, CELL);
                    return ok;
                }
                MemorySegment.copy(cell, offset, held, 0, CELL);
                holding = true;
                return true;
            }
            case DELAY:
                return put(cell, offset, depart + faults.delayNanos(), true);
            default:
                throw new IllegalStateException("unknown fault kind " + kind);
        }
    }

    /** Queues (virtual, or a delayed cell) or delivers (real time) one cell; then a held REORDER cell after it. */
    private boolean put(MemorySegment cell, long offset, long departNanos, boolean delayed) {
        boolean ok;
        if (virtual || delayed) {
            long when = virtual ? departNanos + propagationNanos : timeBase.nanoTime() + (departNanos);
            ok = enqueue(cell, offset, when);
        } else {
            delivered++;
            sink.cellArrived(cell, offset);
            ok = true;
        }
        if (holding && cell != held) {
            holding = false;
            ok &= put(held, 0, departNanos, delayed);
        }
        return ok;
    }

    private boolean enqueue(MemorySegment cell, long offset, long when) {
        synchronized (lock) {
            if (tail - head > mask) {
                overflows++;
                return false;
            }
            // A fiber keeps cell order: a cell never arrives before the one in front of it.
            long at = Math.max(when, lastArrival);
            lastArrival = at;
            int slot = (int) (tail & mask);
            MemorySegment.copy(cell, offset, ring, (long) slot * CELL, CELL);
            arrival[slot] = at;
            tail++;
            if (tail - head == 1) {
                timer.armAfter(Math.max(0, at - timeBase.nanoTime()));
            }
        }
        return true;
    }

    /** Timer action: hands every cell whose arrival time has come to the sink, in order. */
    private void deliverDue() {
        while (true) {
            synchronized (lock) {
                if (head == tail) {
                    return;
                }
                int slot = (int) (head & mask);
                long now = timeBase.nanoTime();
                if (arrival[slot] > now) {
                    timer.armAfter(arrival[slot] - now);
                    return;
                }
                MemorySegment.copy(ring, (long) slot * CELL, deliver, 0, CELL);
                head++;
            }
            delivered++;
            sink.cellArrived(deliver, 0);
        }
    }

    /** Virtual time at which the last transmitted cell's last bit left (0 in real time). */
    public long lastDepartureNanos() {
        return lastDepartureNanos;
    }

    /** Virtual time at which the fiber is free for the next cell. */
    public long freeAtNanos() {
        return (freeAtPicos + 999) / 1000;
    }

    public long cellTimePicos() {
        return cellPicos;
    }

    public long propagationNanos() {
        return propagationNanos;
    }

    /** Cells given to {@link #transmit}. */
    public long transmitted() {
        return transmitted;
    }

    /** Cells handed to the sink (duplicates count twice). */
    public long delivered() {
        return delivered;
    }

    /** Cells dropped because the ring was full. */
    public long overflows() {
        synchronized (lock) {
            return overflows;
        }
    }

    /** Cells in flight. */
    public int inFlight() {
        synchronized (lock) {
            return (int) (tail - head);
        }
    }

    /** Cells that got this fault (0 without a fault plan). */
    public long faultCount(FaultKind kind) {
        return faults == null ? 0 : faults.count(kind);
    }

    @Override
    public String toString() {
        return "CellLink[" + name + ", " + cellPicos + " ps/cell, propagation " + propagationNanos + " ns]";
    }

    /** Setup of a link. */
    public static final class Builder {
        private final TimeBase timeBase;
        private final CellSink sink;
        private String name = "taxi";
        private long bitsPerSecond = TAXI_BITS_PER_SECOND;
        private long propagationNanos = DEFAULT_PROPAGATION_NANOS;
        private int capacity = DEFAULT_CAPACITY;
        private FaultPlan faults = FaultPlan.NONE;

        private Builder(TimeBase timeBase, CellSink sink) {
            this.timeBase = Objects.requireNonNull(timeBase, "timeBase");
            this.sink = Objects.requireNonNull(sink, "sink");
        }

        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        public Builder bitsPerSecond(long bps) {
            if (bps <= 0) {
                throw new IllegalArgumentException("bit rate must be > 0, was " + bps);
            }
            this.bitsPerSecond = bps;
            return this;
        }

        public Builder propagationNanos(long nanos) {
            if (nanos < 0) {
                throw new IllegalArgumentException("propagation must be >= 0 ns, was " + nanos);
            }
            this.propagationNanos = nanos;
            return this;
        }

        /** Cells that can be in flight (a power of two, at least 2). */
        public Builder capacity(int cells) {
            if (cells < 2 || Integer.bitCount(cells) != 1) {
                throw new IllegalArgumentException("link capacity must be a power of two >= 2, was " + cells);
            }
            this.capacity = cells;
            return this;
        }

        public Builder faults(FaultPlan plan) {
            this.faults = Objects.requireNonNull(plan, "plan");
            return this;
        }

        public CellLink build() {
            return new CellLink(this);
        }
    }
}
