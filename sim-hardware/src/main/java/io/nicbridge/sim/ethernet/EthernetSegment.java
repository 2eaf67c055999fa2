package io.nicbridge.sim.ethernet;

import io.nicbridge.contract.Dec21140;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.SimTimer;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.fault.FaultInjector;
import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.fault.FaultPlan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.SplittableRandom;
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
 * delay for the whole segment), and every station sees the medium busy until {@code mediumFreeAt}
 * (carrier sense is not delayed by propagation in this model).
 *
 * <p>Consequence for request/response: a station that answers the instant a 64-byte frame arrives
 * (6260 ns after it started) finds the medium busy with that frame's IFG until 6720 ns and defers,
 * so a zero-delay ping-pong of 64-byte frames takes 6720 + 6260 = 12 980 ns; an answer given
 * 460 ns or more after arrival does not defer, and each leg then costs (N + 8) x 80 + 500 ns.
 *
 * <p>A frame in flight (between {@code transmit} and its arrival) is copied into one of
 * {@code maxInFlight} slots preallocated at construction, each with its own timer created at
 * construction, so transmitting allocates nothing. When every slot is busy the frame is dropped and
 * counted ({@link DropReason#POOL_FULL}); the sender is not told, as on a real wire.
 *
 * <h2>Modes</h2>
 * The above is {@link EthernetMode#IDEAL}, the default. Two more are chosen with {@link Builder#mode}, both in
 * virtual time only:
 *
 * <h3>{@link EthernetMode#HUB}: half-duplex CSMA/CD on a shared 100BASE-TX repeater hub</h3>
 * The access method of IEEE 802.3 clause 4 (4.2.3.2, "transmit media access management"; parameter values from
 * 4.4.2, checked against docs/hardware-facts.md D.1: slotTime 512 bit times, interFrameGap 96 bit times, jamSize
 * 32 bits, attemptLimit 16, backoffLimit 10). {@code p} is the one-way propagation delay from any station through
 * the hub to any other (cable both ways plus the repeater; {@value #DEFAULT_PROPAGATION_NANOS} ns by default, 50
 * bit times at 100 Mb/s), the same for every pair of stations. A station's MAC:
 * <pre>
 *   carrier sense:  station x hears station y's signal from y's start + p to y's end + p (its own at once)
 *   deference:      x may start at t only when it has heard no carrier for interFrameGap: t &gt;= carrierFree(x)
 *                   (4.2.3.2.1/4.2.3.2.2); otherwise it waits until carrierFree(x), 1-persistent
 *   collision:      stations that start before the first starter's carrier reaches them (start &lt; first + p)
 *                   collide; every one of them detects it when the earliest other's signal arrives
 *                   (detect = other's start + p), completes its preamble if still in it, then jams 32 bits
 *                   (4.2.3.2.4): its signal ends at max(detect, start + 64 bt) + 32 bt
 *   late collision: detect - start &gt; slotTime (possible only when 2p &gt; slotTime, a segment out of spec): the
 *                   frame is abandoned, as the 21140 does (TDES0 LC)
 *   backoff:        after its n-th collision a station waits r x slotTime from the end of its jam, r uniform in
 *                   [0, 2^k - 1], k = min(n, 10), from its own seeded RNG (4.2.3.2.5), then defers as above
 *   excessive:      the 16th collision of one frame abandons it (TDES0 EC)
 *   success:        the frame's last bit leaves at start + (N + 8) x 8 bt, arrives at end + p (through the fault
 *                   layer and capture as in the ideal mode); the station is told at end + interFrameGap
 * </pre>
 * {@link WirePort#transmit} returns {@link WirePort#PENDING} and the station's {@link TransmitListener} hears the
 * result. A collided attempt delivers nothing (the receivers' MACs discard the fragment) and is not captured, so
 * collisions show in the capture as frames stamped later by their backoff. A station that transmits again before
 * its listener was told (a card reset) abandons the earlier frame unreported; if that frame is on the wire it
 * finishes its signal first. Counted per station: {@link #collisions}, {@link #lateCollisions},
 * {@link #excessiveCollisions}, {@link #deferrals}.
 *
 * <h3>{@link EthernetMode#SWITCHED}: a store-and-forward learning switch</h3>
 * Each station has its own full-duplex link to the switch (no carrier sense, no collisions: IEEE 802.3 4.2.3.2.6
 * full-duplex transmission). A frame crosses the station's link as in the ideal mode (its link busy for
 * (N + 20) x 8 bt; transmit returns that wait), is stored whole in the switch at start + (N + 8) x 8 bt + p, and
 * is queued on the output port of the station whose source address the switch last learned for its destination
 * (unknown and group destinations are flooded to every port but the one it came in on). An output port holds at
 * most {@link Builder#portBufferFrames} frames, counting every frame whose last bit has not left yet; a frame that
 * finds its port's buffer full is tail-dropped and counted for that port ({@link #tailDrops},
 * {@link DropReason#OUTPUT_BUFFER_FULL}). Queued frames leave back to back with the interframe gap and arrive p
 * after their last bit. Each delivery is captured as its receiver gets it. The fault layer acts on the ideal and
 * hub media only.
 *
 * <h2>Faults</h2>
 * A {@link FaultPlan} given to the builder is applied <b>per transmitted frame</b>: one decision for
 * each frame put on the medium (frames numbered from 1 in transmit order), and every receiver sees
 * the same outcome, as if the fault hit the shared cable. Faults act on delivery, after the frame
 * has occupied the medium, so the sender's timing never changes (a real sender cannot tell either):
 * <ul>
 *   <li>DROP: no station receives it ({@link DropReason#FAULT});
 *   <li>DUPLICATE: each receiver gets it twice, back to back at its arrival time;
 *   <li>REORDER: it is held and delivered immediately after the next transmitted frame (at that
 *       frame's arrival; if that frame is dropped or itself held, at the time it would have arrived);
 *   <li>DELAY: it arrives {@link FaultInjector#delayNanos()} later (in real time through its slot's
 *       timer, which fires when the engine owning the real-time base polls its timers);
 *   <li>CORRUPT: one bit at or after byte 12 is inverted (addresses stay intact, so the frame still
 *       passes the receiver's address filter) and its FCS no longer matches: the 21140 sets RDES0 CE.
 * </ul>
 * Every fault is counted by kind ({@link #faultCount}).
 *
 * <h2>Capture</h2>
 * A {@link PcapWriter} (LINKTYPE 1) records every frame <b>as the receivers get it</b>, after the
 * fault layer: dropped frames are absent, duplicates appear twice, corrupted frames carry the
 * inverted bit, each stamped with its arrival time. The FCS is stripped unless the writer's linktype
 * carries the FCS-length flag for 4 bytes (0x24000001), in which case it is kept.
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

    /** IEEE 802.3 4.4.2 slotTime: 512 bit times. */
    public static final int SLOT_TIME_BITS = 512;
    /** IEEE 802.3 4.4.2 interFrameGap: 96 bit times. */
    public static final int IFG_BITS = 96;
    /** IEEE 802.3 4.4.2 jamSize: 32 bits. */
    public static final int JAM_BITS = 32;
    /** IEEE 802.3 4.4.2 attemptLimit: a frame is abandoned when its 16th attempt collides. */
    public static final int ATTEMPT_LIMIT = 16;
    /** IEEE 802.3 4.4.2 backoffLimit: the backoff exponent stops growing at 10. */
    public static final int BACKOFF_LIMIT = 10;
    /** Preamble and SFD: 64 bit times, always sent whole before a jam (IEEE 802.3 4.2.3.2.4). */
    public static final int PREAMBLE_BITS = Dec21140.ETH_PREAMBLE_SFD_LEN * 8;
    /** Frames a switch output port holds by default. */
    public static final int DEFAULT_PORT_BUFFER_FRAMES = 64;

    /** Why a transmitted frame reached no station. */
    public enum DropReason {
        /**
         * Every in-flight slot was busy: in virtual time for any frame, in real time for a frame that
         * a fault (reorder, delay, corrupt) needed to copy.
         */
        POOL_FULL,
        /** The frame was longer than the segment's maximum frame length. */
        TOO_LONG,
        /** The fault layer dropped it. */
        FAULT,
        /** Hub: abandoned after its 16th collision. */
        EXCESSIVE_COLLISIONS,
        /** Hub: abandoned after a late collision. */
        LATE_COLLISION,
        /** Switch: its output port's buffer was full (tail drop). */
        OUTPUT_BUFFER_FULL,
        /** The sender was unplugged, or the segment was down ({@link #plug}, {@link #link}). */
        NO_CARRIER
    }

    /** Seeded corruption spares DA and SA, so a corrupted frame still reaches its card's FCS check. */
    private static final int FIRST_CORRUPTIBLE_BYTE = 2 * Dec21140.ETH_ADDR_LEN;

    private final String name;
    private final TimeBase timeBase;
    private final boolean virtual;
    private final long propagationNanos;
    private final long bitRate;
    private final int maxFrameBytes;
    private final EthernetMode mode;
    private final long seed;
    private final int portBufferFrames;
    private final Backoff backoff;
        private final Object lock = new Object();
    // Capture: set at build or by capture(PcapWriter); guarded by lock (deliver records under it).
    private PcapWriter capture;
    private boolean ownsCapture;
    private boolean captureKeepsFcs;

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
    /** False while the whole segment is down ({@link #link}). */
    private volatile boolean up = true;
    private final FaultInjector faults;
    private Slot held;
    private boolean closed;
    // hub: the stations that started before the first one's carrier reached them (one contention), by index
    private int[] burst = new int[0];
    private int burstSize;
    private long burstFirst;
    private long burstSecond;
    private SimTimer burstTimer;
    private long abandoned;

    private EthernetSegment(Builder b) {
        this.name = b.name;
        this.timeBase = b.timeBase;
        this.virtual = b.timeBase.isVirtual();
        this.propagationNanos = b.propagationNanos;
        this.bitRate = b.bitRate;
        this.maxFrameBytes = b.maxFrameBytes;
        this.mode = b.mode;
        this.seed = b.seed;
        this.portBufferFrames = b.portBufferFrames;
        this.backoff = b.backoff;
        if (mode != EthernetMode.IDEAL && !virtual) {
            throw new IllegalArgumentException("segment " + name + ": mode " + mode.label()
                    + " needs a virtual time base (collisions and queues are timed events)");
        }
        if (mode == EthernetMode.SWITCHED && b.faults != FaultPlan.NONE) {
            throw new IllegalArgumentException("segment " + name + ": the fault layer acts on the ideal and hub media;"
                    + " a switched segment takes no fault plan");
        }
        if (mode == EthernetMode.HUB) {
            this.burstTimer = timeBase.newTimer(name + "-contention", this::contentionClosed);
        }
        this.freeSlots = new Slot[b.maxInFlight];
        for (int i = 0; i < b.maxInFlight; i++) {
            freeSlots[i] = new Slot(i, b.maxFrameBytes);
        }
        this.freeCount = b.maxInFlight;
        this.faults = b.faults.newInjector();
        this.capture = b.captureWriter;
        this.ownsCapture = b.ownsCapture;
        this.captureKeepsFcs = keepsFcs(capture);
        LOG.debug("segment {}: mode {}, {} time, {} b/s, propagation {} ns, {} in-flight slots of {} bytes, faults: {},"
                + " capture: {}", name, mode.label(), virtual ? "virtual" : "real", bitRate, propagationNanos, b.maxInFlight,
                maxFrameBytes, b.faults, capture == null ? "none" : capture.path());
    }

    public static Builder builder(TimeBase timeBase) {
        return new Builder(timeBase);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException on a {@link EthernetMode#HUB} segment, whose stations must hear how their frames
     *     fared: attach them with a {@link TransmitListener}
     */
    @Override
    public WirePort attach(String stationName, FrameSink sink) {
        if (mode == EthernetMode.HUB) {
            throw new IllegalStateException("segment " + name + " is a half-duplex hub: station " + stationName
                    + " must attach with a TransmitListener");
        }
        return attach(stationName, sink, TransmitListener.NONE);
    }

    @Override
    public WirePort attach(String stationName, FrameSink sink, TransmitListener listener) {
        Objects.requireNonNull(stationName, "stationName");
        Objects.requireNonNull(sink, "sink");
        Objects.requireNonNull(listener, "listener");
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
            Station station = new Station(old.length, stationName, sink, listener);
            Station[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = station;
            stations = grown;
            burst = Arrays.copyOf(burst, grown.length);
            LOG.debug("segment {}: station {} attached as #{}", name, stationName, station.index);
            return station;
        }
    }

    /**
     * Unplugs station {@code stationName}'s cable ({@code plugged} false) or plugs it back. An unplugged station hears
     * nothing, and what it sends reaches nobody (counted as {@link DropReason#NO_CARRIER}); its card is told that the
     * carrier went or came back ({@link FrameSink#carrier}). Frames already on their way still arrive.
     *
     * @throws IllegalArgumentException when no station has that name
     */
    public void plug(String stationName, boolean plugged) {
        Station station = null;
        for (Station s : stations) {
            if (s.name.equals(stationName)) {
                station = s;
            }
        }
        if (station == null) {
            throw new IllegalArgumentException("segment " + name + " has no station named " + stationName);
        }
        station.plugged = plugged;
        if (up) {
            station.sink.carrier(plugged);
        }
        LOG.debug("segment {}: station {} {}", name, stationName, plugged ? "plugged in" : "unplugged");
    }

    /**
     * The whole segment goes down ({@code up} false: the hub or switch loses power) or comes back: while down no
     * frame goes anywhere ({@link DropReason#NO_CARRIER}), and every plugged station's card loses its carrier.
     */
    public void link(boolean up) {
        this.up = up;
        for (Station s : stations) {
            if (s.plugged) {
                s.sink.carrier(up);
            }
        }
        LOG.debug("segment {}: {}", name, up ? "up" : "down");
    }

    /** @return nanoseconds that {@code byteCount} bytes take on the wire at this segment's bit rate */
    public long wireNanos(int byteCount) {
        return Math.ceilDiv(byteCount * 8L * 1_000_000_000L, bitRate);
    }

    /**
     * @return virtual time from the start of a {@code frameBytes}-byte frame (DA..FCS) on an idle
     *     medium to its arrival at the receivers: (N + 8) x 8 bit times + propagation (6260 ns for
     *     64 bytes at the defaults)
     */
    public long arrivalNanos(int frameBytes) {
        return wireNanos(frameBytes + Dec21140.ETH_PREAMBLE_SFD_LEN) + propagationNanos;
    }

    /**
     * @return virtual time a {@code frameBytes}-byte frame keeps the medium busy, preamble to end of
     *     IFG: (N + 20) x 8 bit times (6720 ns for 64 bytes at 100 Mb/s); what transmit returns on an
     *     idle medium
     */
    public long occupancyNanos(int frameBytes) {
        return wireNanos(frameBytes + Dec21140.ETH_WIRE_OVERHEAD);
    }

    /** @return the timing model in one line, for tools that print what they simulate */
    public String modelDescription() {
        if (!virtual) {
            return "segment " + name + ": real time, frames delivered synchronously to every other station";
        }
        if (mode == EthernetMode.HUB) {
            return "segment " + name + ": half-duplex CSMA/CD hub at " + bitRate + " b/s, propagation " + propagationNanos
                    + " ns station to station; slot " + SLOT_TIME_BITS + " bit times, IFG " + IFG_BITS + ", jam "
                    + JAM_BITS + ", truncated binary exponential backoff (exponent <= " + BACKOFF_LIMIT + "), abort after "
                    + ATTEMPT_LIMIT + " attempts; backoff seed " + seed;
        }
        if (mode == EthernetMode.SWITCHED) {
            return "segment " + name + ": store-and-forward learning switch at " + bitRate + " b/s per full-duplex link,"
                    + " propagation " + propagationNanos + " ns per link, output buffers of " + portBufferFrames
                    + " frames (tail drop)";
        }
        return "segment " + name + ": collision-free shared medium at " + bitRate + " b/s; a frame of N bytes"
                + " (DA..FCS) occupies (N+" + Dec21140.ETH_WIRE_OVERHEAD + ") byte times (preamble+SFD "
                + Dec21140.ETH_PREAMBLE_SFD_LEN + ", IFG " + Dec21140.ETH_IFG_BYTES + ") and arrives (N+"
                + Dec21140.ETH_PREAMBLE_SFD_LEN + ") byte times + " + propagationNanos + " ns propagation after it"
                + " starts; busy medium: defer (64 B: occupies " + occupancyNanos(Dec21140.ETH_MIN_FRAME)
                + " ns, arrives after " + arrivalNanos(Dec21140.ETH_MIN_FRAME) + " ns)";
    }

    private long transmit(Station sender, MemorySegment frame, long offset, int length) {
        if (length <= 0) {
            throw new IllegalArgumentException("station " + sender.name + ": frame length must be > 0, was " + length);
        }
        if (offset < 0 || offset > frame.byteSize() - length) {
            throw new IllegalArgumentException("station " + sender.name + ": frame [" + offset + ", " + offset + "+"
                    + length + ") lies outside its segment of " + frame.byteSize() + " bytes");
        }
        if (!sender.plugged || !up) { // the MAC sends into a cable that leads nowhere: the frame takes its time, lost
            synchronized (lock) {
                frames++;
                bytes += length;
                drops[DropReason.NO_CARRIER.ordinal()]++;
            }
            return virtual ? wireNanos(length) : 0;
        }
        return switch (mode) {
            case IDEAL -> virtual ? transmitVirtual(sender, frame, offset, length)
                    : transmitReal(sender, frame, offset, length);
            case HUB -> transmitHub(sender, frame, offset, length);
            case SWITCHED -> transmitSwitched(sender, frame, offset, length);
        };
    }

    private long transmitReal(Station sender, MemorySegment frame, long offset, int length) {
        Slot released;
        Slot corrupted = null;
        int directCopies = 0;
        synchronized (lock) {
            frames++;
            bytes += length;
            // Take the held frame out first: a sink called below may transmit on this segment again.
            released = held;
            held = null;
            if (length > maxFrameBytes) {
                drops[DropReason.TOO_LONG.ordinal()]++;
            } else {
                FaultKind kind = faults.next(length, FIRST_CORRUPTIBLE_BYTE);
                switch (kind) {
                    case NONE -> directCopies = 1;
                    case DUPLICATE -> directCopies = 2;
                    case DROP -> drops[DropReason.FAULT.ordinal()]++;
                    case REORDER, DELAY, CORRUPT -> {
                        // These need the frame beyond this call (or altered): copy it into a slot.
                        Slot slot = acquire(sender, frame, offset, length);
                        if (slot != null) {
                            if (kind == FaultKind.CORRUPT) {
                                FaultInjector.flipBit(slot.data, 0, faults.corruptBit());
                                corrupted = slot;
                            } else if (kind == FaultKind.REORDER) {
                                held = slot;
                            } else {
                                slot.trailer = released;
                                released = null;
                                slot.timer.armAfter(faults.delayNanos());
                            }
                        }
                    }
                }
            }
        }
        if (directCopies > 0) {
            // Clean path: straight from the sender's memory, no copy here (the sinks copy).
            deliver(sender.index, frame, offset, length, directCopies);
        }
        if (corrupted != null) {
            arrive(corrupted);
        }
        if (released != null) {
            arrive(released);
        }
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
            mediumFreeAt = start + occupancyNanos(length);
            frames++;
            bytes += length;
            dispatch(sender, frame, offset, length, start + arrivalNanos(length) - now);
            return mediumFreeAt - now;
        }
    }

    /**
     * Virtual time: puts a frame that left its sender whole through the fault layer and arms its arrival
     * {@code arriveAfter} ns from now. Under the lock.
     */
    private void dispatch(Station sender, MemorySegment frame, long offset, int length, long arriveAfter) {
        {
            Slot released = held;
            held = null;
            if (length > maxFrameBytes) {
                drops[DropReason.TOO_LONG.ordinal()]++;
            } else {
                FaultKind kind = faults.next(length, FIRST_CORRUPTIBLE_BYTE);
                if (kind == FaultKind.DROP) {
                    drops[DropReason.FAULT.ordinal()]++;
                } else {
                    Slot slot = acquire(sender, frame, offset, length);
                    if (slot != null) {
                        if (kind == FaultKind.REORDER) {
                            held = slot;
                        } else {
                            if (kind == FaultKind.DUPLICATE) {
                                slot.copies = 2;
                            } else if (kind == FaultKind.CORRUPT) {
                                FaultInjector.flipBit(slot.data, 0, faults.corruptBit());
                            }
                            // A held frame rides behind this one: delivered right after it, same instant.
                            slot.trailer = released;
                            released = null;
                            slot.timer.armAfter(kind == FaultKind.DELAY ? arriveAfter + faults.delayNanos() : arriveAfter);
                        }
                    }
                }
            }
            if (released != null) {
                // The frame it waited for is not delivered (dropped, held, no slot): release it at the
                // time that frame would have arrived.
                released.timer.armAfter(arriveAfter);
            }
        }
    }

    /** Takes a free slot and copies the frame in; null (counted) when none is free. Under the lock. */
    private Slot acquire(Station sender, MemorySegment frame, long offset, int length) {
        if (freeCount == 0) {
            drops[DropReason.POOL_FULL.ordinal()]++;
            return null;
        }
        Slot slot = freeSlots[--freeCount];
        MemorySegment.copy(frame, offset, slot.data, 0, length);
        slot.length = length;
        slot.sender = sender.index;
        slot.copies = 1;
        slot.trailer = null;
        slot.target = -1;
        slot.atSwitch = false;
        return slot;
    }

    /**
     * Hands a frame {@code copies} times to every station but the sender, capturing each copy first.
     * The sinks run without the lock.
     */
    private void deliver(int sender, MemorySegment frame, long offset, int length, int copies) {
        deliver(sender, -1, frame, offset, length, copies);
    }

    /** As above, to station {@code target} only when it is not -1 (a switch's output port). */
    private void deliver(int sender, int target, MemorySegment frame, long offset, int length, int copies) {
        Station[] all = stations;
        synchronized (lock) {
            if (capture != null) {
                int recorded = captureKeepsFcs ? length : Math.max(0, length - Dec21140.ETH_FCS_LEN);
                long now = timeBase.nanoTime();
                for (int c = 0; c < copies; c++) {
                    capture.record(now, frame, offset, recorded, recorded);
                }
            }
            deliveries += (long) copies * (target >= 0 ? 1 : all.length - 1);
        }
        for (int c = 0; c < copies; c++) {
            for (Station s : all) {
                if ((target >= 0 ? s.index == target : s.index != sender) && s.plugged && up) {
                    s.sink.frameArrived(frame, offset, length);
                }
            }
        }
    }

    /** A slot's frame arrives (timer expiry, or at once in real time), then any frame held behind it. */
    private void arrive(Slot first) {
        Slot slot = first;
        while (slot != null) {
            deliver(slot.sender, slot.target, slot.data, 0, slot.length, slot.copies);
            Slot next;
            synchronized (lock) {
                next = slot.trailer;
                slot.trailer = null;
                freeSlots[freeCount++] = slot;
            }
            slot = next;
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

    public EthernetMode mode() {
        return mode;
    }

    /** @return collisions station {@code station} met (hub), one per collided attempt, late ones included */
    public long collisions(String station) {
        synchronized (lock) {
            return station(station).collisionCount;
        }
    }

    /** @return late collisions of station {@code station} (hub) */
    public long lateCollisions(String station) {
        synchronized (lock) {
            return station(station).lateCount;
        }
    }

    /** @return frames station {@code station} abandoned after 16 attempts (hub) */
    public long excessiveCollisions(String station) {
        synchronized (lock) {
            return station(station).excessiveCount;
        }
    }

    /** @return attempts of station {@code station} that found carrier and deferred (hub) */
    public long deferrals(String station) {
        synchronized (lock) {
            return station(station).deferCount;
        }
    }

    /** @return frames tail-dropped at station {@code station}'s output port (switch) */
    public long tailDrops(String station) {
        synchronized (lock) {
            return station(station).tailDropCount;
        }
    }

    /** @return collisions of every station (hub) */
    public long collisions() {
        synchronized (lock) {
            long sum = 0;
            for (Station s : stations) {
                sum += s.collisionCount;
            }
            return sum;
        }
    }

    /** @return frames a station abandoned unreported because it was told to send another (hub, card resets) */
    public long abandoned() {
        synchronized (lock) {
            return abandoned;
        }
    }

    private Station station(String stationName) {
        for (Station s : stations) {
            if (s.name.equals(stationName)) {
                return s;
            }
        }
        throw new IllegalArgumentException("segment " + name + " has no station named " + stationName);
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

    /** @return frames the fault layer treated as {@code kind} ({@link FaultKind#NONE}: untouched) */
    public long faultCount(FaultKind kind) {
        synchronized (lock) {
            return faults.count(kind);
        }
    }

    /** @return faults injected so far, all kinds */
    public long faultsInjected() {
        synchronized (lock) {
            return faults.injected();
        }
    }

    /** @return true while a frame is held back for reordering */
    public boolean holdsFrame() {
        synchronized (lock) {
            return held != null;
        }
    }

    /** @return the capture writer, or null when the segment is not captured */
    public PcapWriter capture() {
        synchronized (lock) {
            return capture;
        }
    }

    /**
     * Starts capturing into {@code writer} (linktype 1, or 0x24000001 to keep the FCS) from the next frame
     * delivered on, e.g. on a segment a backend built; null stops capturing. The caller keeps the writer: the
     * segment flushes it on close but never closes it. Replaces a capture set at build, which it closes if the
     * segment had opened it.
     *
     * @throws IllegalArgumentException when the writer's linktype is not Ethernet
     */
    public void capture(PcapWriter writer) {
        checkEthernet(writer);
        PcapWriter previous;
        boolean ownedPrevious;
        synchronized (lock) {
            previous = capture;
            ownedPrevious = ownsCapture;
            capture = writer;
            ownsCapture = false;
            captureKeepsFcs = keepsFcs(writer);
        }
        if (previous != null && previous != writer && ownedPrevious) {
            previous.close();
        }
    }

    private static boolean keepsFcs(PcapWriter writer) {
        return writer != null && PcapWriter.fcsBytes(writer.linkType()) == Dec21140.ETH_FCS_LEN;
    }

    private static void checkEthernet(PcapWriter writer) {
        if (writer != null && (writer.linkType() & 0xFFFF) != PcapWriter.LINKTYPE_ETHERNET) {
            throw new IllegalArgumentException("an Ethernet segment captures with linktype "
                    + PcapWriter.LINKTYPE_ETHERNET + ", but " + writer.path() + " has linktype 0x"
                    + Integer.toHexString(writer.linkType()));
        }
    }

    /** @return frames transmitted but not yet arrived, including one held for reordering */
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

    /**
     * Closes the capture file if the segment opened it, or flushes a writer the caller passed in.
     * Stations may still transmit afterwards; nothing more is captured (the writer counts those
     * records as lost).
     */
    @Override
    public void close() {
        PcapWriter capture;
        boolean ownsCapture;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            capture = this.capture;
            ownsCapture = this.ownsCapture;
        }
        if (capture != null) {
            if (ownsCapture) {
                capture.close();
            } else {
                capture.flush();
            }
        }
        LOG.debug("segment {} closed: {} frames, {} bytes, {} deferrals, {} deliveries", name, frames(), bytes(),
                deferrals(), deliveries());
    }

    @Override
    public String toString() {
        return "EthernetSegment[" + name + ", " + (virtual ? "virtual" : "real") + " time, " + stations.length
                + " stations]";
    }

    private static final int IDLE = 0;
    /** Hub: deferring or backing off; the station's timer brings the next attempt. */
    private static final int WAITING = 1;
    /** Hub: on the wire, in the open contention. */
    private static final int CONTENDING = 2;
    /** Hub: the outcome is known; the station's timer tells the listener when its transmission ends. */
    private static final int ENDING = 3;

    private final class Station implements WirePort, Runnable {
        final int index;
        final String name;
        final FrameSink sink;
        final TransmitListener listener;
        /** False while the station's cable is unplugged ({@link #plug}). */
        volatile boolean plugged = true;
        // ---- hub, guarded by lock
        final SimTimer timer;
        final SplittableRandom random;
        final MemorySegment frame;
        final MemorySegment spare;
        int length;
        int spareLength;
        /** A frame came while this one was on the wire: the old one ends unreported, then the spare starts. */
        boolean replaced;
        int phase = IDLE;
        int attempts;
        long start;
        long carrierFree = Long.MIN_VALUE;
        TransmitListener.Result result;
        long collisionCount;
        long lateCount;
        long excessiveCount;
        long deferCount;
        // ---- switch, guarded by lock
        long linkFreeAt = Long.MIN_VALUE;
        long outFreeAt = Long.MIN_VALUE;
        final long[] outEnds;
        int outHead;
        int outCount;
        long learned = -1;
        long tailDropCount;

        Station(int index, String name, FrameSink sink, TransmitListener listener) {
            this.index = index;
            this.name = name;
            this.sink = sink;
            this.listener = listener;
            boolean hub = mode == EthernetMode.HUB;
            this.timer = hub ? timeBase.newTimer(EthernetSegment.this.name + "-" + name + "-mac", this) : null;
            this.random = hub ? stationRandom(seed, index) : null;
            this.frame = hub ? MemorySegment.ofArray(new byte[maxFrameBytes]) : null;
            this.spare = hub ? MemorySegment.ofArray(new byte[maxFrameBytes]) : null;
            this.outEnds = mode == EthernetMode.SWITCHED ? new long[portBufferFrames] : null;
        }

        @Override
        public long transmit(MemorySegment frame, long offset, int length) {
            return EthernetSegment.this.transmit(this, frame, offset, length);
        }

        @Override
        public String name() {
            return name;
        }

        /** The hub MAC's timer: the next attempt, or the end of the transmission. */
        @Override
        public void run() {
            macTimer(this);
        }

        @Override
        public String toString() {
            return EthernetSegment.this.name + "/" + name;
        }
    }

    /** How many slot times a hub station backs off after its n-th collision of a frame. */
    @FunctionalInterface
    interface Backoff {
        /**
         * IEEE 802.3 4.2.3.2.5 truncated binary exponential backoff: r uniform in [0, 2^k - 1], k = min(n, 10),
         * drawn from the station's own RNG.
         */
        Backoff TRUNCATED_BINARY_EXPONENTIAL = (random, n) -> random.nextInt(1 << Math.min(n, BACKOFF_LIMIT));

        int slots(SplittableRandom random, int collisions);
    }

    /** The backoff RNG of station {@code index} on a segment seeded with {@code seed}: its own, so runs repeat. */
    static SplittableRandom stationRandom(long seed, int index) {
        return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
    }

    // =============================================================== half-duplex hub (CSMA/CD)

    private long bits(long bitTimes) {
        return Math.ceilDiv(bitTimes * 1_000_000_000L, bitRate);
    }

    private long transmitHub(Station s, MemorySegment frame, long offset, int length) {
        synchronized (lock) {
            frames++;
            bytes += length;
            if (length > maxFrameBytes) {
                // Never reaches the wire (a card cuts it off before): the station hears at once that it went out.
                drops[DropReason.TOO_LONG.ordinal()]++;
                return occupancyNanos(length);
            }
            long now = timeBase.nanoTime();
            if (s.phase == CONTENDING || s.phase == ENDING) {
                // The MAC was told to send again (a reset) while its frame is on the wire: that signal runs out first.
                MemorySegment.copy(frame, offset, s.spare, 0, length);
                s.spareLength = length;
                if (!s.replaced) {
                    abandoned++;
                }
                s.replaced = true;
                return WirePort.PENDING;
            }
            if (s.phase == WAITING) {
                s.timer.cancel();
                abandoned++;
            }
            MemorySegment.copy(frame, offset, s.frame, 0, length);
            s.length = length;
            s.attempts = 0;
            attempt(s, now);
            return WirePort.PENDING;
        }
    }

    /** Station s wants to start its frame at {@code now}: defer, start alone, or join a contention. Under the lock. */
    private void attempt(Station s, long now) {
        if (burstSize > 0 && now >= burstFirst + propagationNanos && now != burstFirst) {
            resolveContention(now); // the first starter's carrier is everywhere now: nobody else can join
        }
        if (s.carrierFree > now) {
            s.phase = WAITING;
            s.deferCount++;
            deferrals++;
            s.timer.armAfter(s.carrierFree - now);
            return;
        }
        if (burstSize == 0) {
            burstFirst = now;
            burstSecond = Long.MAX_VALUE;
            burstTimer.armAfter(propagationNanos);
        } else if (burstSize == 1) {
            burstSecond = now;
        }
        s.phase = CONTENDING;
        s.start = now;
        burst[burstSize++] = s.index;
    }

    /** The contention timer: the first starter's carrier has reached every station. */
    private void contentionClosed() {
        synchronized (lock) {
            if (burstSize > 0) {
                resolveContention(timeBase.nanoTime());
            }
        }
    }

    /** Decides the open contention: one station sends; several collide, jam and back off. Under the lock. */
    private void resolveContention(long now) {
        burstTimer.cancel();
        Station[] all = stations;
        int n = burstSize;
        burstSize = 0;
        if (n == 1) {
            Station s = all[burst[0]];
            long end = s.start + wireNanos(s.length + Dec21140.ETH_PREAMBLE_SFD_LEN);
            carrierUntil(all, s.index, end);
            mediumFreeAt = Math.max(mediumFreeAt, end + propagationNanos + bits(IFG_BITS));
            dispatch(s, s.frame, 0, s.length, end + propagationNanos - now);
            endTransmission(s, TransmitListener.Result.SENT, end + bits(IFG_BITS), now);
            return;
        }
        long latest = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            Station s = all[burst[i]];
            // Each hears the collision when the earliest other starter's signal reaches it.
            long other = i == 0 ? burstSecond : burstFirst; // burst[0] started first
            long detect = other + propagationNanos;
            long signalEnd = Math.max(detect, s.start + bits(PREAMBLE_BITS)) + bits(JAM_BITS);
            carrierUntil(all, s.index, signalEnd);
            latest = Math.max(latest, signalEnd);
            s.attempts++;
            s.collisionCount++;
            if (s.replaced) {
                endTransmission(s, TransmitListener.Result.SENT, signalEnd, now); // unreported; the spare starts
            } else if (detect - s.start > bits(SLOT_TIME_BITS)) {
                s.lateCount++;
                drops[DropReason.LATE_COLLISION.ordinal()]++;
                endTransmission(s, TransmitListener.Result.LATE_COLLISION, signalEnd, now);
            } else if (s.attempts == ATTEMPT_LIMIT) {
                s.excessiveCount++;
                drops[DropReason.EXCESSIVE_COLLISIONS.ordinal()]++;
                endTransmission(s, TransmitListener.Result.EXCESSIVE_COLLISIONS, signalEnd, now);
            } else {
                long r = backoff.slots(s.random, s.attempts);
                s.phase = WAITING;
                s.timer.armAfter(signalEnd + r * bits(SLOT_TIME_BITS) - now);
            }
        }
        mediumFreeAt = Math.max(mediumFreeAt, latest + propagationNanos + bits(IFG_BITS));
    }

    /** Station {@code sender}'s signal lasts until {@code end}: every station defers until it has heard it end + IFG. */
    private void carrierUntil(Station[] all, int sender, long end) {
        long ifg = bits(IFG_BITS);
        for (Station x : all) {
            long free = (x.index == sender ? end : end + propagationNanos) + ifg;
            if (free > x.carrierFree) {
                x.carrierFree = free;
            }
        }
    }

    private void endTransmission(Station s, TransmitListener.Result result, long at, long now) {
        s.phase = ENDING;
        s.result = result;
        s.timer.armAfter(at - now);
    }

    /** A hub station's timer. The listener runs without the lock. */
    private void macTimer(Station s) {
        TransmitListener.Result result;
        int collisions;
        synchronized (lock) {
            long now = timeBase.nanoTime();
            if (s.phase == WAITING) {
                attempt(s, now);
                return;
            }
            if (s.phase != ENDING) {
                return;
            }
            s.phase = IDLE;
            if (s.replaced) {
                s.replaced = false;
                MemorySegment.copy(s.spare, 0, s.frame, 0, s.spareLength);
                s.length = s.spareLength;
                s.attempts = 0;
                attempt(s, now);
                return;
            }
            result = s.result;
            collisions = s.attempts;
        }
        s.listener.transmitDone(result, collisions);
    }

    // =============================================================== switch

    private long transmitSwitched(Station s, MemorySegment frame, long offset, int length) {
        synchronized (lock) {
            long now = timeBase.nanoTime();
            long start = Math.max(now, s.linkFreeAt);
            if (start > now) {
                deferrals++;
            }
            s.linkFreeAt = start + occupancyNanos(length);
            frames++;
            bytes += length;
            if (length > maxFrameBytes) {
                drops[DropReason.TOO_LONG.ordinal()]++;
            } else {
                Slot slot = acquire(s, frame, offset, length);
                if (slot != null) {
                    slot.atSwitch = true;
                    slot.timer.armAfter(start + arrivalNanos(length) - now);
                }
            }
            return s.linkFreeAt - now;
        }
    }

    /** A frame is stored whole in the switch: learn its source, queue it on its output port(s). */
    private void switchArrive(Slot slot) {
        synchronized (lock) {
            long now = timeBase.nanoTime();
            Station[] all = stations;
            slot.atSwitch = false;
            all[slot.sender].learned = macAt(slot.data, Dec21140.ETH_ADDR_LEN);
            long destination = macAt(slot.data, 0);
            int port = -1;
            if ((slot.data.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0) & 1) == 0) { // individual address
                for (Station x : all) {
                    if (x.learned == destination && x.index != slot.sender) {
                        port = x.index;
                        break;
                    }
                }
            }
            if (port >= 0) {
                enqueue(all[port], slot, now);
                return;
            }
            // Flood: a copy per port but the ingress one; this slot serves the last of them.
            int last = -1;
            for (Station x : all) {
                if (x.index != slot.sender) {
                    last = x.index;
                }
            }
            for (Station x : all) {
                if (x.index == slot.sender || x.index == last) {
                    continue;
                }
                if (freeCount == 0) {
                    drops[DropReason.POOL_FULL.ordinal()]++;
                    continue;
                }
                Slot copy = freeSlots[--freeCount];
                MemorySegment.copy(slot.data, 0, copy.data, 0, slot.length);
                copy.length = slot.length;
                copy.sender = slot.sender;
                copy.copies = 1;
                copy.trailer = null;
                copy.atSwitch = false;
                enqueue(x, copy, now);
            }
            if (last >= 0) {
                enqueue(all[last], slot, now);
            } else {
                freeSlots[freeCount++] = slot;
            }
        }
    }

    /** Queues a slot on station {@code out}'s output port, or tail-drops it. Under the lock. */
    private void enqueue(Station out, Slot slot, long now) {
        while (out.outCount > 0 && out.outEnds[out.outHead] <= now) { // these have left the buffer
            out.outHead = (out.outHead + 1) % out.outEnds.length;
            out.outCount--;
        }
        if (out.outCount == out.outEnds.length) {
            out.tailDropCount++;
            drops[DropReason.OUTPUT_BUFFER_FULL.ordinal()]++;
            freeSlots[freeCount++] = slot;
            return;
        }
        long start = Math.max(now, out.outFreeAt);
        long lastBit = start + wireNanos(slot.length + Dec21140.ETH_PREAMBLE_SFD_LEN);
        out.outFreeAt = start + occupancyNanos(slot.length);
        out.outEnds[(out.outHead + out.outCount) % out.outEnds.length] = lastBit;
        out.outCount++;
        slot.target = out.index;
        slot.timer.armAfter(lastBit + propagationNanos - now);
    }

    private static long macAt(MemorySegment frame, long offset) {
        long mac = 0;
        for (int i = 0; i < Dec21140.ETH_ADDR_LEN; i++) {
            mac = (mac << 8) | (frame.get(java.lang.foreign.ValueLayout.JAVA_BYTE, offset + i) & 0xFF);
        }
        return mac;
    }

    /** One frame in flight: its bytes, who sent it and the timer that delivers it. */
    private final class Slot implements Runnable {
        final MemorySegment data;
        final SimTimer timer;
        int length;
        int sender;
        int copies;
        Slot trailer;
        /** Switch: the output port it is delivered to (-1: every station but the sender). */
        int target;
        /** Switch: the timer brings it into the switch (true) or out of its output port (false). */
        boolean atSwitch;

        Slot(int index, int capacity) {
            this.data = MemorySegment.ofArray(new byte[capacity]);
            this.timer = timeBase.newTimer(name + "-inflight-" + index, this);
        }

        @Override
        public void run() {
            if (atSwitch) {
                switchArrive(this);
            } else {
                arrive(this);
            }
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
        private FaultPlan faults = FaultPlan.NONE;
        private EthernetMode mode = EthernetMode.IDEAL;
        private long seed = 1;
        private int portBufferFrames = DEFAULT_PORT_BUFFER_FRAMES;
        private Backoff backoff = Backoff.TRUNCATED_BINARY_EXPONENTIAL;
        private PcapWriter captureWriter;
        private Path capturePath;
        private boolean captureFcs;
        private boolean ownsCapture;

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

        /** How the medium is shared (default {@link EthernetMode#IDEAL}); hub and switched need virtual time. */
        public Builder mode(EthernetMode m) {
            this.mode = Objects.requireNonNull(m, "mode");
            return this;
        }

        /** Seeds the hub stations' backoff RNGs (station i draws from its own stream of this seed). */
        public Builder seed(long s) {
            this.seed = s;
            return this;
        }

        /** Frames each switch output port holds (>= 1, default {@value #DEFAULT_PORT_BUFFER_FRAMES}). */
        public Builder portBufferFrames(int frames) {
            if (frames < 1) {
                throw new IllegalArgumentException("portBufferFrames must be >= 1, was " + frames);
            }
            this.portBufferFrames = frames;
            return this;
        }

        /** Tests: a backoff other than 802.3's (e.g. always 0 slots, so two stations collide until they give up). */
        Builder backoff(Backoff b) {
            this.backoff = Objects.requireNonNull(b, "backoff");
            return this;
        }

        /** Faults to inject on this segment (default {@link FaultPlan#NONE}). */
        public Builder faults(FaultPlan plan) {
            this.faults = Objects.requireNonNull(plan, "plan");
            return this;
        }

        /**
         * Captures into a writer the caller opened (linktype 1, or 0x24000001 to keep the FCS). The
         * segment flushes it on close but does not close it: it may serve other links too.
         */
        public Builder capture(PcapWriter writer) {
            checkEthernet(Objects.requireNonNull(writer, "writer"));
            this.captureWriter = writer;
            this.capturePath = null;
            return this;
        }

        /** Captures into a new file at {@code path} (ns timestamps) that the segment closes on close. */
        public Builder capture(Path path) {
            this.capturePath = Objects.requireNonNull(path, "path");
            this.captureWriter = null;
            return this;
        }

        /** With {@link #capture(Path)}: keep each frame's FCS in the file (linktype 0x24000001). */
        public Builder captureFcs(boolean keep) {
            this.captureFcs = keep;
            return this;
        }

        /** @throws UncheckedIOException if the capture file cannot be created */
        public EthernetSegment build() {
            if (capturePath != null) {
                try {
                    captureWriter = PcapWriter.builder(capturePath, timeBase)
                            .linkType(captureFcs
                                    ? PcapWriter.linkTypeWithFcs(PcapWriter.LINKTYPE_ETHERNET, Dec21140.ETH_FCS_LEN)
                                    : PcapWriter.LINKTYPE_ETHERNET)
                            .open();
                } catch (IOException e) {
                    throw new UncheckedIOException("segment " + name + ": cannot create capture file " + capturePath, e);
                }
                ownsCapture = true;
            } else {
                ownsCapture = false;
            }
            return new EthernetSegment(this);
        }
    }
}
