package io.nicbridge.sim.ethernet;

import io.nicbridge.contract.Dec21140;
import io.nicbridge.sim.engine.SimTimer;
import io.nicbridge.sim.engine.TimeBase;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Ethernet segment (a repeater hub) joining N stations: every frame one station transmits
 * reaches every other station; the cards' own address filters decide what they keep.
 *
 * <h2>Real time</h2>
 * {@link WirePort#transmit} delivers the frame synchronously, on the calling thread, to every other
 * station's {@link FrameSink} and returns 0. The frame is handed to the sinks straight from the
 * sender's memory (the sinks copy what they keep), so the clean path copies nothing here.
 *
 * <h2>Virtual time</h2>
 * The segment models a 100 Mb/s (configurable) <b>collision-free shared medium</b>: a deliberate
 * simplification of half-duplex CSMA/CD in which a station that finds the medium busy defers until
 * it is free (counted in {@link #deferrals()}) instead of colliding and backing off. Frames are
 * serialized in the order {@code transmit} is called, which is deterministic in virtual time.
 * <pre>
 *   bit time  b = 10^9 / bitRate ns          (10 ns at 100 Mb/s, so 80 ns per byte)
 *   N         = frame length, DA..FCS, in bytes
 *
 *   now ---- wait while busy ---- start
 *   start     = max(now, mediumFreeAt)                 (start &gt; now counts one deferral)
 *   |&lt;- preamble+SFD 8 B -&gt;|&lt;------ DA .. FCS, N bytes ------&gt;|&lt;-- IFG 12 B --&gt;|
 *   start                                     last bit leaves   mediumFreeAt
 *   lastBit   = start + (N + 8) x 8 b
 *   arrival   = lastBit + propagation                  (each receiver's FrameSink runs then)
 *   mediumFreeAt = start + (N + 20) x 8 b
 *   transmit returns mediumFreeAt - now
 * </pre>
 * At 100 Mb/s a 64-byte frame occupies the medium for (64 + 20) x 80 = 6720 ns and arrives
 * (64 + 8) x 80 + propagation ns after it started; a 1518-byte frame occupies 123 040 ns. The
 * default propagation delay is {@value #DEFAULT_PROPAGATION_NANOS} ns: 100 m of cable at 5 ns/m,
 * the longest 100BASE-TX link. All receivers get the frame at the same instant (one propagation
 * delay for the whole segment).
 *
 * <p>A frame in flight (between {@code transmit} and its arrival) is copied into one of
 * {@code maxInFlight} slots preallocated at construction, each with its own timer created at
 * construction, so transmitting allocates nothing. When every slot is busy the frame is dropped and
 * counted ({@link DropReason#POOL_FULL}); the sender is not told, as on a real wire.
 *
 * <h2>Threads</h2>
 * Stations may transmit from any thread. The bookkeeping (medium state, slots, counters) is guarded
 * by one lock that is never held while a sink runs, so a sink that makes its card answer at once
 * (an inline engine) may transmit on this segment again from inside {@code frameArrived}.
 */
public final class EthernetSegment implements EthernetWire {
    private static final Logger LOG = LoggerFactory.getLogger(EthernetSegment.class);

    /** 100 Mb/s: Fast Ethernet, the 21140's speed. */
    public static final long DEFAULT_BIT_RATE = 100_000_000L;
    /** 100 m of cable at 5 ns/m (about 0.67 c): the longest 100BASE-TX segment. */
    public static final long DEFAULT_PROPAGATION_NANOS = 500L;
    /** Frames in flight at once; a hub with a handful of stations rarely has more than two. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 64;
    /**
     * Longest frame the segment carries. Larger than {@link Dec21140#ETH_MAX_FRAME} on purpose: a card
     * may transmit an over-long frame (the 21140 can, with two 2047-byte buffers), and the receiving
     * card must see it to report TL or RW.
     */
    public static final int DEFAULT_MAX_FRAME_BYTES = 4096;

    /** Why a transmitted frame reached no station. */
    public enum DropReason {
        /** Every in-flight slot was busy (virtual time). */
        POOL_FULL,
        /** The frame was longer than the segment's maximum frame length. */
        TOO_LONG
    }

    private final String name;
    private final TimeBase timeBase;
    private final boolean virtual;
    private final long propagationNanos;
    private final long bitRate;
    private final int maxFrameBytes;
    private final Object lock = new Object();

    // Stations: copy-on-attach array, read without the lock by delivery.
    private volatile Station[] stations = new Station[0];

    // ---- guarded by lock
    private final Slot[] freeSlots;
    private int freeCount;
    private long mediumFreeAt = Long.MIN_VALUE;
    private long frames;
    private long bytes;
    private long deferrals;
    private long deliveries;
    private final long[] drops = new long[DropReason.values().length];
    private boolean closed;

    private EthernetSegment(Builder b) {
        this.name = b.name;
        this.timeBase = b.timeBase;
        this.virtual = b.timeBase.isVirtual();
        this.propagationNanos = b.propagationNanos;
        this.bitRate = b.bitRate;
        this.maxFrameBytes = b.maxFrameBytes;
        this.freeSlots = new Slot[b.maxInFlight];
        for (int i = 0; i < b.maxInFlight; i++) {
            freeSlots[i] = new Slot(i, b.maxFrameBytes);
        }
        this.freeCount = b.maxInFlight;
        LOG.debug("segment {}: {} time, {} b/s, propagation {} ns, {} in-flight slots of {} bytes",
                name, virtual ? "virtual" : "real", bitRate, propagationNanos, b.maxInFlight, maxFrameBytes);
    }

    public static Builder builder(TimeBase timeBase) {
        return new Builder(timeBase);
    }

    @Override
    public WirePort attach(String stationName, FrameSink sink) {
        Objects.requireNonNull(stationName, "stationName");
        Objects.requireNonNull(sink, "sink");
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("segment " + name + " is closed; cannot attach " + stationName);
            }
            Station[] old = stations;
            for (Station s : old) {
                if (s.name.equals(stationName)) {
                    throw new IllegalArgumentException(
                            "segment " + name + " already has a station named " + stationName);
                }
            }
            Station station = new Station(old.length, stationName, sink);
            Station[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = station;
            stations = grown;
            LOG.debug("segment {}: station {} attached as #{}", name, stationName, station.index);
            return station;
        }
    }

    /** @return nanoseconds that {@code byteCount} bytes take on the wire at this segment's bit rate */
    public long wireNanos(int byteCount) {
        return Math.ceilDiv(byteCount * 8L * 1_000_000_000L, bitRate);
    }

    private long transmit(Station sender, MemorySegment frame, long offset, int length) {
        if (length <= 0) {
            throw new IllegalArgumentException("station " + sender.name + ": frame length must be > 0, was " + length);
        }
        if (offset < 0 || offset > frame.byteSize() - length) {
            throw new IllegalArgumentException("station " + sender.name + ": frame [" + offset + ", " + offset + "+"
                    + length + ") lies outside its segment of " + frame.byteSize() + " bytes");
        }
        return virtual ? transmitVirtual(sender, frame, offset, length) : transmitReal(sender, frame, offset, length);
    }

    private long transmitReal(Station sender, MemorySegment frame, long offset, int length) {
        synchronized (lock) {
            frames++;
            bytes += length;
            if (length > maxFrameBytes) {
                drops[DropReason.TOO_LONG.ordinal()]++;
                return 0;
            }
        }
        deliver(sender.index, frame, offset, length);
        return 0;
    }

    private long transmitVirtual(Station sender, MemorySegment frame, long offset, int length) {
        synchronized (lock) {
            long now = timeBase.nanoTime();
            long start = now;
            if (mediumFreeAt > now) {
                start = mediumFreeAt;
                deferrals++;
            }
            mediumFreeAt = start + wireNanos(length + Dec21140.ETH_WIRE_OVERHEAD);
            frames++;
            bytes += length;
            long arrival = start + wireNanos(length + Dec21140.ETH_PREAMBLE_SFD_LEN) + propagationNanos;
            if (length > maxFrameBytes) {
                drops[DropReason.TOO_LONG.ordinal()]++;
            } else if (freeCount == 0) {
                drops[DropReason.POOL_FULL.ordinal()]++;
            } else {
                Slot slot = freeSlots[--freeCount];
                MemorySegment.copy(frame, offset, slot.data, 0, length);
                slot.length = length;
                slot.sender = sender.index;
                slot.timer.armAfter(arrival - now);
            }
            return mediumFreeAt - now;
        }
    }

    /** Hands a frame to every station but the sender. Runs without the lock. */
    private void deliver(int sender, MemorySegment frame, long offset, int length) {
        Station[] all = stations;
        int delivered = 0;
        for (Station s : all) {
            if (s.index != sender) {
                s.sink.frameArrived(frame, offset, length);
                delivered++;
            }
        }
        synchronized (lock) {
            deliveries += delivered;
        }
    }

    private void arrive(Slot slot) {
        deliver(slot.sender, slot.data, 0, slot.length);
        synchronized (lock) {
            freeSlots[freeCount++] = slot;
        }
    }

    // ---- counters (any thread)

    public String name() {
        return name;
    }

    public boolean isVirtual() {
        return virtual;
    }

    public long propagationNanos() {
        return propagationNanos;
    }

    public long bitRate() {
        return bitRate;
    }

    /** @return frames stations transmitted (including those then dropped) */
    public long frames() {
        synchronized (lock) {
            return frames;
        }
    }

    /** @return bytes (DA..FCS) stations transmitted */
    public long bytes() {
        synchronized (lock) {
            return bytes;
        }
    }

    /** @return transmits that found the medium busy and waited (virtual time) */
    public long deferrals() {
        synchronized (lock) {
            return deferrals;
        }
    }

    /** @return frames handed to receiving stations' sinks (one per frame per receiver) */
    public long deliveries() {
        synchronized (lock) {
            return deliveries;
        }
    }

    public long drops(DropReason reason) {
        synchronized (lock) {
            return drops[reason.ordinal()];
        }
    }

    /** @return frames transmitted but not yet arrived (virtual time) */
    public int inFlight() {
        synchronized (lock) {
            return freeSlots.length - freeCount;
        }
    }

    /** @return the virtual time at which the medium is next free; meaningless in real time */
    public long mediumFreeAt() {
        synchronized (lock) {
            return mediumFreeAt;
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        LOG.debug("segment {} closed: {} frames, {} bytes, {} deferrals, {} deliveries", name, frames(), bytes(),
                deferrals(), deliveries());
    }

    @Override
    public String toString() {
        return "EthernetSegment[" + name + ", " + (virtual ? "virtual" : "real") + " time, " + stations.length
                + " stations]";
    }

    private final class Station implements WirePort {
        final int index;
        final String name;
        final FrameSink sink;

        Station(int index, String name, FrameSink sink) {
            this.index = index;
            this.name = name;
            this.sink = sink;
        }

        @Override
        public long transmit(MemorySegment frame, long offset, int length) {
            return EthernetSegment.this.transmit(this, frame, offset, length);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String toString() {
            return EthernetSegment.this.name + "/" + name;
        }
    }

    /** One frame in flight: its bytes, who sent it and the timer that delivers it. */
    private final class Slot implements Runnable {
        final MemorySegment data;
        final SimTimer timer;
        int length;
        int sender;

        Slot(int index, int capacity) {
            this.data = MemorySegment.ofArray(new byte[capacity]);
            this.timer = timeBase.newTimer(name + "-inflight-" + index, this);
        }

        @Override
        public void run() {
            arrive(this);
        }
    }

    /** Builds a segment. Every setting has a default except the time base. */
    public static final class Builder {
        private final TimeBase timeBase;
        private String name = "ether0";
        private long propagationNanos = DEFAULT_PROPAGATION_NANOS;
        private long bitRate = DEFAULT_BIT_RATE;
        private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
        private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;

        private Builder(TimeBase timeBase) {
            this.timeBase = Objects.requireNonNull(timeBase, "timeBase");
        }

        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** One-way delay from the sender's last bit to the receivers' last bit, in ns (>= 0). */
        public Builder propagationNanos(long nanos) {
            if (nanos < 0) {
                throw new IllegalArgumentException("propagationNanos must be >= 0, was " + nanos);
            }
            this.propagationNanos = nanos;
            return this;
        }

        /** Bits per second (> 0); 100 000 000 for Fast Ethernet, 10 000 000 for classic. */
        public Builder bitRate(long bitsPerSecond) {
            if (bitsPerSecond <= 0) {
                throw new IllegalArgumentException("bitRate must be > 0, was " + bitsPerSecond);
            }
            this.bitRate = bitsPerSecond;
            return this;
        }

        /** Number of preallocated in-flight frame slots (>= 1). */
        public Builder maxInFlight(int slots) {
            if (slots < 1) {
                throw new IllegalArgumentException("maxInFlight must be >= 1, was " + slots);
            }
            this.maxInFlight = slots;
            return this;
        }

        /** Longest frame (DA..FCS) carried, in bytes; longer frames are dropped and counted. */
        public Builder maxFrameBytes(int bytes) {
            if (bytes < Dec21140.ETH_MIN_FRAME || bytes > 65535) {
                throw new IllegalArgumentException(
                        "maxFrameBytes must be in [" + Dec21140.ETH_MIN_FRAME + ", 65535], was " + bytes);
            }
            this.maxFrameBytes = bytes;
            return this;
        }

        public EthernetSegment build() {
            return new EthernetSegment(this);
        }
    }
}
