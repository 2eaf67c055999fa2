package io.nicbridge.sim.fddi;

import io.nicbridge.contract.Medusa;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.SimTimer;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.fault.FaultInjector;
import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.fault.FaultPlan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An FDDI token ring of exactly the stations that joined it (others are bypassed, as in the careful-protocols
 * paper, section 6: "a ring exactly as big as there were nodes in the test"), running the timed-token MAC.
 *
 * <h2>Ring order and latency</h2>
 * Stations sit in the ring in the order they were attached; only joined ones count. A frame or token leaving a
 * station reaches the next joined one after a hop latency {@code H = linkPropagation + stationLatency}
 * (defaults {@value #DEFAULT_LINK_PROPAGATION_NANOS} ns = 20 m of fibre at 5 ns/m, and
 * {@value #DEFAULT_STATION_LATENCY_NANOS} ns for the downstream station's PHY/MAC repeat path: H = 700 ns).
 *
 * <h2>Virtual time: the timed-token protocol</h2>
 * <pre>
 *   claim    every change of membership: each member bids T_Req; TTRT = the lowest bid (ties: the highest
 *            address wins), raised to the floor D + F_max below and capped at T_Max 165 ms; the claim lasts
 *            one round of claim frames, n x (frameNanos(17) + H) = n x 3260 ns; the winner then issues the token.
 *   token    occupies the fibre 880 ns; from release at station i to arrival at the next: 880 + H ns.
 *   arrival  at station i at time t, with TRT last reset at r:
 *              early (t - r &lt; TTRT): THT = TTRT - (t - r); TRT reset (r = t); asynchronous frames may START
 *                                   while THT has not expired (the last one may overrun, as in the standard)
 *              late:  no asynchronous frames; TRT is not reset at t but was reset when it expired (Late_Ct);
 *                     expiring a second time would start ring recovery in the standard - here it is counted
 *                     ({@link #trtOverruns()}) and TRT restarts at t
 *   frame    a station sends frames back to back: frameNanos(LEN) = (LEN + 15) x 80 ns each, then releases
 *            the token. The frame's last bit reaches the k-th station downstream at start + frameNanos + k x H,
 *            where that station's MAC sees it ({@link FddiMac#frameArrived}: sets A, C, E); after n hops it is
 *            back at the sender, which strips it ({@link FddiMac#frameReturned} with the indicators). A frame whose
 *            sender left the ring meanwhile finishes its lap and is purged (the claim that follows the leave
 *            purges the ring): it goes home with the indicators set on the way and passes no station twice.
 *   floor    D + F_max, D = n x (880 + H) the idle token rotation, F_max = frameNanosWithFcs(maxFrameBytes).
 *            With TTRT at least that, every rotation takes at most 2 x TTRT (Johnson's bound with the
 *            asynchronous overrun inside the budget); {@link #maxRotationNanos()} and
 *            {@link #rotationOverruns()} let tests check it.
 * </pre>
 * A token that nobody wants is not simulated hop by hop: the ring <i>parks</i> it and, when a station asks,
 * computes where the idle token is (idle rotation n x (880 + H)), brings every station's TRT and token count
 * up to date, and resumes hop-by-hop simulation. So an idle virtual world has no pending events.
 *
 * <h2>Real time</h2>
 * No token: {@link FddiRingPort#requestToken()} sends the station's queued frames at once on the calling thread
 * and delivers each to every other joined station in ring order, then returns it to the sender. Claims complete
 * at once.
 *
 * <h2>Faults and capture</h2>
 * Each frame sent draws one {@link FaultKind} from the ring's {@link FaultPlan}. FDDI neither duplicates nor
 * reorders (paper, section 5.2), so only two kinds apply: DROP (the frame is garbled beyond recognition: no
 * station sees it, it still returns to its sender with no indicator set, so A = 0 tells the sender) and CORRUPT
 * (one bit after the MAC header is inverted after the FCS was computed: receivers detect the FCS error and set
 * E). DUPLICATE, REORDER and DELAY draws are counted by the injector but not applied. Capture writes one
 * LINKTYPE 10 record per frame sent (not for lost ones), stamped when the frame starts on the fibre: FC, DA, SA,
 * INFO without FCS, with DA and SA bit-reversed per byte (docs/hardware-facts.md D.4:
 * Wireshark bit-swaps linktype 10 addresses, so it then shows them canonically). Inside the emulator addresses
 * are canonical, the order the MACADDR registers use.
 *
 * <p>Thread-safe: one lock; MAC callbacks run under it (ring lock, then card lock). Sending and delivering
 * allocate nothing: in-flight frames use slots preallocated at attach, each with its own timer.
 */
public final class FddiRing implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FddiRing.class);

    public static final int STATE_ISOLATED = Medusa.RING_STATE_ISOLATED;
    public static final int STATE_CLAIM = Medusa.RING_STATE_CLAIM;
    public static final int STATE_BEACON = Medusa.RING_STATE_BEACON;
    public static final int STATE_OPERATIONAL = Medusa.RING_STATE_OPERATIONAL;

    public static final long DEFAULT_STATION_LATENCY_NANOS = 600;
    public static final long DEFAULT_LINK_PROPAGATION_NANOS = 100;
    /** Longest frame carried, FC .. FCS: the Medusa's 8 KiB buffer ({@code MEDUSA_MAX_FRAME_LONG}). */
    public static final int DEFAULT_MAX_FRAME_BYTES = Medusa.MAX_FRAME_LONG;
    public static final long T_MAX_NANOS = Medusa.T_MAX_DEFAULT_US * 1000L;
    /** Bytes at the start of a frame a seeded corruption leaves alone (FC, DA, SA): receivers still recognise it. */
    public static final int MAC_HEADER_BYTES = Medusa.FDDI_MAC_HEADER_LEN;

    private static final long NONE = Long.MIN_VALUE;
    private static final int TOKEN_IDLE = 0;     // no token (isolated, claiming)
    private static final int TOKEN_ARRIVING = 1; // timer = arrival at holder
    private static final int TOKEN_SENDING = 2;  // timer = end of the holder's current frame
    private static final int TOKEN_PARKED = 3;   // nobody wants it; position is a function of time

    private final Object lock = new Object();
    private final String name;
    private final TimeBase timeBase;
    private final boolean virtual;
    private final long stationLatencyNanos;
    private final long linkPropagationNanos;
    private final long hopNanos;
    private final int maxFrameBytes;
    private final FaultInjector faults;
    private final PcapWriter capture;
    private final boolean ownsCapture;
    private final MemorySegment captureBuffer;
    private final MemorySegment realTimeFrame;
    private final SimTimer tokenTimer;
    private final SimTimer claimTimer;

    private Station[] stations = new Station[0];
    private int[] members = new int[0];
    private int memberCount;
    private Flight[] flights = new Flight[0];
    private Flight[] freeFlights = new Flight[0];
    private int freeCount;

    private int state = STATE_ISOLATED;
    private long ttrtNanos;
    private int tokenPhase = TOKEN_IDLE;
    private int holder;
    private int parkedAt;
    private long parkReleaseNanos;
    private long idleCountedUntil;
    private int pendingCount;
    /**
     * Bumped by every membership change. A station may call its port from inside a MAC callback (the Medusa on an
     * inline engine joins, leaves and asks for the token from {@code ringStateChanged}), which restarts the claim
     * under the feet of the ring operation that made the call: after each callout that operation compares the epoch
     * and, when it moved, leaves the token to the new claim instead of going on with a stale member list.
     */
    private long membershipEpoch;
    private boolean sending;
    private boolean closed;

    private long claims;
    private long tokenPasses;
    private long rotations;
    private long maxRotationNanos;
    private long rotationOverruns;
    private long lateTokens;
    private long trtOverruns;
    private long frames;
    private long bytes;
    private long frameNanos;
    private long lostFrames;
    private long corruptedFrames;
    private long slotStalls;

    private FddiRing(Builder b) {
        this.name = b.name;
        this.timeBase = b.timeBase;
        this.virtual = timeBase.isVirtual();
        this.stationLatencyNanos = b.stationLatencyNanos;
        this.linkPropagationNanos = b.linkPropagationNanos;
        this.hopNanos = b.stationLatencyNanos + b.linkPropagationNanos;
        this.maxFrameBytes = b.maxFrameBytes;
        this.faults = b.faults.isNone() ? null : b.faults.newInjector();
        this.capture = b.captureWriter;
        this.ownsCapture = b.ownsCapture;
        this.captureBuffer = capture == null ? null : MemorySegment.ofArray(new byte[maxFrameBytes]);
        this.realTimeFrame = virtual ? null : MemorySegment.ofArray(new long[(maxFrameBytes + 7) / 8]);
        this.tokenTimer = virtual ? timeBase.newTimer(name + ".token", this::tokenFired) : null;
        this.claimTimer = virtual ? timeBase.newTimer(name + ".claim", this::claimFinished) : null;
        LOG.debug("ring {}: {} time, H = {} + {} ns, max frame {} B, faults: {}, capture: {}", name,
            virtual ? "virtual" : "real", linkPropagationNanos, stationLatencyNanos, maxFrameBytes, b.faults,
            capture == null ? "off" : capture.path());
    }

    public static Builder builder(TimeBase timeBase) {
        return new Builder(timeBase);
    }

    public String name() {
        return name;
    }

    public TimeBase timeBase() {
        return timeBase;
    }

    /**
     * Attaches a station (setup time): it is placed after the stations attached before it and starts bypassed
     * (not joined).
     */
    public FddiRingPort attach(FddiMac mac) {
        Objects.requireNonNull(mac, "mac");
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("ring " + name + " is closed; cannot attach " + mac.name());
            }
            Station st = new Station(stations.length, mac);
            stations = Arrays.copyOf(stations, stations.length + 1);
            stations[st.index] = st;
            members = new int[stations.length];
            rebuildMembers();
            if (virtual) {
                growFlights();
            }
            LOG.debug("ring {}: station {} attached as #{}", name, mac.name(), st.index);
            return st;
        }
    }

    // ================================================================== statistics and model figures

    /** @return the ring state ({@link #STATE_ISOLATED}, {@link #STATE_CLAIM}, {@link #STATE_OPERATIONAL}) */
    public int state() {
        synchronized (lock) {
            return state;
        }
    }

    /** @return the negotiated TTRT in ns, 0 while no claim has completed */
    public long ttrtNanos() {
        synchronized (lock) {
            return ttrtNanos;
        }
    }

    public int memberCount() {
        synchronized (lock) {
            return memberCount;
        }
    }

    public long hopNanos() {
        return hopNanos;
    }

    public long stationLatencyNanos() {
        return stationLatencyNanos;
    }

    public long linkPropagationNanos() {
        return linkPropagationNanos;
    }

    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    /** @return the time an idle token takes round the current members, n x (880 + H) ns */
    public long idleRotationNanos() {
        synchronized (lock) {
            return memberCount * (FddiTiming.TOKEN_NANOS + hopNanos);
        }
    }

    /** @return the lowest TTRT the ring accepts with {@code members} stations: D + F_max (see class comment) */
    public long ttrtFloorNanos(int members) {
        return members * (FddiTiming.TOKEN_NANOS + hopNanos) + FddiTiming.frameNanosWithFcs(maxFrameBytes);
    }

    /** @return the time the claim process takes with {@code members} stations */
    public long claimNanos(int members) {
        return members * (FddiTiming.frameNanos(FddiTiming.CLAIM_FRAME_LEN) + hopNanos);
    }

    /** @return completed claim processes (one per membership change) */
    public long claims() {
        synchronized (lock) {
            return claims;
        }
    }

    /** @return token arrivals at stations, including those of a parked (idle) token */
    public long tokenPasses() {
        synchronized (lock) {
            return tokenPasses;
        }
    }

    /** @return token rotations measured (two successive arrivals at one station) */
    public long rotations() {
        synchronized (lock) {
            return rotations;
        }
    }

    /** @return the longest token rotation measured at any station, ns */
    public long maxRotationNanos() {
        synchronized (lock) {
            return maxRotationNanos;
        }
    }

    /** @return rotations longer than 2 x TTRT (the timed-token guarantee says: none) */
    public long rotationOverruns() {
        synchronized (lock) {
            return rotationOverruns;
        }
    }

    /** @return token arrivals that were late (no asynchronous frames allowed) */
    public long lateTokens() {
        synchronized (lock) {
            return lateTokens;
        }
    }

    /** @return TRT expiries while already late (would start ring recovery in the standard) */
    public long trtOverruns() {
        synchronized (lock) {
            return trtOverruns;
        }
    }

    /** @return frames sent onto the ring */
    public long frames() {
        synchronized (lock) {
            return frames;
        }
    }

    /** @return bytes (FC .. FCS) of the frames sent */
    public long bytes() {
        synchronized (lock) {
            return bytes;
        }
    }

    /**
     * @return the fibre time of the frames sent, sum of (LEN + 15) x 80 ns: divided by elapsed virtual time, the
     *     share of the ring's 100 Mb/s the frames used (preamble, delimiters and FCS included)
     */
    public long frameNanos() {
        synchronized (lock) {
            return frameNanos;
        }
    }

    /** @return frames the fault layer garbled beyond recognition (DROP) */
    public long lostFrames() {
        synchronized (lock) {
            return lostFrames;
        }
    }

    /** @return frames with one bit inverted by the fault layer (CORRUPT) */
    public long corruptedFrames() {
        synchronized (lock) {
            return corruptedFrames;
        }
    }

    /** @return token visits cut short because every in-flight slot was busy (0 with the default sizing) */
    public long slotStalls() {
        synchronized (lock) {
            return slotStalls;
        }
    }

    /** Restarts the rotation statistics (after a warm-up). */
    public void resetRotationStats() {
        synchronized (lock) {
            rotations = 0;
            maxRotationNanos = 0;
            rotationOverruns = 0;
            lateTokens = 0;
            trtOverruns = 0;
        }
    }

    /** @return the model's figures, for tools that print them beside their results */
    public String describe() {
        return "FDDI ring " + name + ": 100 Mb/s (80 ns/byte), frame = (LEN + 15) x 80 ns (preamble 8 B, SD 1 B,"
            + " FCS 4 B, ED+FS 2 B), token 880 ns, hop H = " + linkPropagationNanos + " ns fibre + "
            + stationLatencyNanos + " ns station = " + hopNanos + " ns, " + (virtual ? "timed-token MAC in virtual time"
            : "real time: immediate delivery") + ", TTRT " + ttrtNanos() + " ns";
    }

    /** @return the fault injector (counts per kind), or null when the ring injects no faults */
    public FaultInjector faultInjector() {
        return faults;
    }

    // ================================================================== membership and claim

    private void rebuildMembers() {
        int n = 0;
        for (Station st : stations) {
            if (st.joined) {
                st.memberPos = n;
                members[n++] = st.index;
            } else {
                st.memberPos = -1;
            }
        }
        memberCount = n;
    }

    private void membershipChanged() {
        membershipEpoch++;
        rebuildMembers();
        if (virtual) {
            tokenTimer.cancel();
            claimTimer.cancel();
        }
        tokenPhase = TOKEN_IDLE;
        if (memberCount == 0) {
            state = STATE_ISOLATED;
            ttrtNanos = 0;
            return;
        }
        state = STATE_CLAIM;
        for (int i = 0; i < memberCount; i++) {
            stations[members[i]].mac.ringStateChanged(STATE_CLAIM, 0);
        }
        if (virtual) {
            claimTimer.armAfter(claimNanos(memberCount));
        } else {
            finishClaim();
        }
    }

    private void claimFinished() {
        synchronized (lock) {
            if (!closed && state == STATE_CLAIM) {
                finishClaim();
            }
        }
    }

    private void finishClaim() {
        claims++;
        Station winner = null;
        for (int i = 0; i < memberCount; i++) {
            Station st = stations[members[i]];
            long bid = st.mac.requestedTtrtNanos();
            if (winner == null || bid < winner.bid || (bid == winner.bid && st.mac.address() > winner.mac.address())) {
                winner = st;
            }
            st.bid = bid;
        }
        ttrtNanos = Math.min(Math.max(winner.bid, ttrtFloorNanos(memberCount)), T_MAX_NANOS);
        state = STATE_OPERATIONAL;
        long now = timeBase.nanoTime();
        long epoch = membershipEpoch;
        for (int i = 0; i < memberCount; i++) {
            Station st = stations[members[i]];
            st.trtStart = now;
            st.lastArrival = NONE;
        }
        for (int i = 0; i < memberCount && membershipEpoch == epoch; i++) {
            stations[members[i]].mac.ringStateChanged(STATE_OPERATIONAL, ttrtNanos);
        }
        if (membershipEpoch != epoch) {
            return; // a station joined or left from its callback: the claim that started then issues the token
        }
        LOG.debug("ring {}: operational with {} stations, TTRT {} ns (lowest bid {} by {})", name, memberCount,
            ttrtNanos, winner.bid, winner.mac.name());
        if (virtual) {
            releaseToken(winner, now);
        } else if (pendingCount > 0) {
            sendRealTime();
        }
    }

    // ================================================================== the token (virtual time)

    private void releaseToken(Station from, long now) {
        if (pendingCount == 0) {
            tokenPhase = TOKEN_PARKED;
            parkedAt = from.memberPos;
            parkReleaseNanos = now;
            idleCountedUntil = now + 1; // arrivals after the release only
            return;
        }
        holder = nextMember(from).index;
        tokenPhase = TOKEN_ARRIVING;
        tokenTimer.armAfter(FddiTiming.TOKEN_NANOS + hopNanos);
    }

    private void unpark(long now) {
        long p = FddiTiming.TOKEN_NANOS + hopNanos;
        long from = Math.max(now, idleCountedUntil);
        long k = Math.max(1, ceilDiv(from - parkReleaseNanos, p));
        long resumeAt = parkReleaseNanos + k * p;
        long epoch = membershipEpoch;
        catchUpParked(resumeAt);
        if (membershipEpoch != epoch) {
            return; // a station joined or left from tokensSeen: the claim that started then issues the token
        }
        holder = members[(int) ((parkedAt + k) % memberCount)];
        tokenPhase = TOKEN_ARRIVING;
        tokenTimer.armAfter(resumeAt - now);
    }

    /**
     * Accounts for the arrivals of the parked token at every member in [idleCountedUntil, limit): token counts,
     * TRT state and rotation statistics, as if the token had been simulated hop by hop.
     */
    private void catchUpParked(long limit) {
        int n = memberCount;
        long p = FddiTiming.TOKEN_NANOS + hopNanos;
        long rotation = n * p;
        long epoch = membershipEpoch;
        for (int q = 0; q < n && membershipEpoch == epoch; q++) {
            int d = Math.floorMod(q - parkedAt, n);
            long first = parkReleaseNanos + (d == 0 ? n : d) * p; // this member's first arrival after the park
            long mStart = ceilDiv(idleCountedUntil - first, rotation);
            long mEnd = ceilDiv(limit - first, rotation);
            if (mEnd > mStart) {
                catchUp(stations[members[q]], first + mStart * rotation, mEnd - mStart, rotation);
            }
        }
        idleCountedUntil = Math.max(idleCountedUntil, limit);
    }

    /** Brings the token counts of a parked (idle) token up to now; tools and counter reads call it. */
    public void updateIdleTokens() {
        synchronized (lock) {
            if (tokenPhase == TOKEN_PARKED && state == STATE_OPERATIONAL && !closed) {
                catchUpParked(timeBase.nanoTime() + 1);
            }
        }
    }

    private void catchUp(Station st, long first, long count, long rotation) {
        tokenPasses += count;
        st.mac.tokensSeen(count);
        arrivalTiming(st, first);
        if (count >= 2) {
            long last = first + (count - 1) * rotation;
            if (count > 2) {
                // idle rotations are shorter than TTRT (it is at least the floor), so each of the arrivals in
                // between was early and reset TRT: the state before the last one is "reset one rotation ago"
                st.trtStart = last - rotation;
                st.lastArrival = last - rotation;
            }
            arrivalTiming(st, last);
        }
    }

    private void tokenFired() {
        synchronized (lock) {
            if (closed || state != STATE_OPERATIONAL) {
                return;
            }
            long now = timeBase.nanoTime();
            Station st = stations[holder];
            if (tokenPhase == TOKEN_ARRIVING) {
                tokenPasses++;
                long epoch = membershipEpoch;
                st.mac.tokensSeen(1);
                if (membershipEpoch != epoch) {
                    return; // a station joined or left from tokensSeen: the claim that started then issues the token
                }
                arrivalTiming(st, now);
            }
            if (st.joined && st.wantsToken && now < st.asyncDeadline) {
                Flight f = freeCount > 0 ? freeFlights[--freeCount] : null;
                if (f == null) {
                    slotStalls++;
                } else {
                    long pulled = st.mac.pullFrame(f.frame, maxFrameBytes);
                    if (pulled == FddiMac.NO_FRAME) {
                        freeFlights[freeCount++] = f;
                        st.wantsToken = false;
                        pendingCount--;
                    } else {
                        int length = launch(st, f.frame, pulled, now);
                        f.tag = (int) (pulled >>> 32);
                        f.length = length;
                        f.source = st.index;
                        f.at = st.index;
                        f.hops = 0;
                        f.fs = 0;
                        f.lost = lastLaunchLost;
                        f.timer.armAfter(FddiTiming.frameNanosWithFcs(length) + hopNanos);
                        tokenPhase = TOKEN_SENDING;
                        tokenTimer.armAfter(FddiTiming.frameNanosWithFcs(length));
                        return;
                    }
                }
            }
            releaseToken(st, now);
        }
    }

    /** The timed-token rules at a token arrival: rotation statistics, TRT, THT (as the async deadline). */
    private void arrivalTiming(Station st, long t) {
        if (st.lastArrival != NONE) {
            long rotation = t - st.lastArrival;
            rotations++;
            if (rotation > maxRotationNanos) {
                maxRotationNanos = rotation;
            }
            if (rotation > 2 * ttrtNanos) {
                rotationOverruns++;
            }
        }
        st.lastArrival = t;
        long expiry = st.trtStart + ttrtNanos;
        if (t < expiry) {
            st.asyncDeadline = expiry; // THT = TTRT - TRT, counted from now
            st.trtStart = t;
        } else {
            lateTokens++;
            st.asyncDeadline = t;      // late: no asynchronous frames
            st.trtStart = expiry;      // TRT was reset when it expired (Late_Ct = 1), Late_Ct cleared now
            if (t >= expiry + ttrtNanos) {
                trtOverruns++;
                st.trtStart = t;
            }
        }
    }

    private void flightFired(Flight f) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            Station next = memberCount == 0 ? null : nextMember(stations[f.at]);
            f.hops++;
            if (next == null || lapDone(f.source, f.at, next.index) || f.hops > stations.length) {
                stations[f.source].mac.frameReturned(f.tag, f.fs);
                freeFlights[freeCount++] = f;
                return;
            }
            if (!f.lost) {
                f.fs |= next.mac.frameArrived(f.frame, f.length, f.fs);
            }
            f.at = next.index;
            f.timer.armAfter(hopNanos);
        }
    }

    /**
     * Whether a frame from the station at {@code source}, now at {@code at}, has finished its lap when it would go on
     * to {@code next}: it travels in station order, so it is home when the next station is the sender or one it
     * passed already. The latter happens only when the sender left the ring meanwhile (nobody strips the frame in
     * FDDI then; the claim that the leave started purges it): without this rule it would pass the others again.
     */
    private boolean lapDone(int source, int at, int next) {
        int n = stations.length;
        return Math.floorMod(next - source, n) <= Math.floorMod(at - source, n);
    }

    private Station nextMember(Station from) {
        if (from.joined) {
            return stations[members[(from.memberPos + 1) % memberCount]];
        }
        for (int i = 1; i <= stations.length; i++) {
            Station st = stations[(from.index + i) % stations.length];
            if (st.joined) {
                return st;
            }
        }
        return null;
    }

    private void growFlights() {
        int minFrame = FddiTiming.CLAIM_FRAME_LEN;
        long inFlightBound = 2 + ceilDiv(stations.length * hopNanos, FddiTiming.frameNanos(minFrame));
        int wanted = (int) Math.min(4096, inFlightBound + 2);
        if (wanted <= flights.length) {
            return;
        }
        Flight[] grown = Arrays.copyOf(flights, wanted);
        Flight[] free = Arrays.copyOf(freeFlights, wanted);
        for (int i = flights.length; i < wanted; i++) {
            grown[i] = new Flight(i);
            free[freeCount++] = grown[i];
        }
        flights = grown;
        freeFlights = free;
    }

    // ================================================================== sending (both modes)

    private boolean lastLaunchLost;

    /** Counts, injects the frame's fault and captures it. @return its length FC .. FCS */
    private int launch(Station st, MemorySegment frame, long pulled, long now) {
        int length = (int) pulled;
        if (length < MAC_HEADER_BYTES + FddiFcs.LENGTH || length > maxFrameBytes) {
            throw new IllegalStateException("ring " + name + ": station " + st.mac.name() + " gave a frame of "
                + length + " bytes; FC .. FCS must be in [" + (MAC_HEADER_BYTES + FddiFcs.LENGTH) + ", "
                + maxFrameBytes + "]");
        }
        frames++;
        bytes += length;
        frameNanos += FddiTiming.frameNanosWithFcs(length);
        lastLaunchLost = false;
        if (faults != null) {
            FaultKind kind = faults.next(length, MAC_HEADER_BYTES);
            if (kind == FaultKind.DROP) {
                lostFrames++;
                lastLaunchLost = true;
            } else if (kind == FaultKind.CORRUPT) {
                corruptedFrames++;
                FaultInjector.flipBit(frame, 0, faults.corruptBit());
            }
        }
        if (capture != null && !lastLaunchLost) {
            record(frame, length, now);
        }
        return length;
    }

    private void record(MemorySegment frame, int lengthWithFcs, long now) {
        int n = lengthWithFcs - FddiFcs.LENGTH;
        MemorySegment.copy(frame, 0, captureBuffer, 0, n);
        for (int i = Medusa.FRAME_DA_OFS; i < MAC_HEADER_BYTES; i++) {
            byte b = captureBuffer.get(ValueLayout.JAVA_BYTE, i);
            captureBuffer.set(ValueLayout.JAVA_BYTE, i, (byte) (Integer.reverse(b & 0xFF) >>> 24));
        }
        capture.record(now, captureBuffer, 0, n, n);
    }

    /** Real time: every station that asked sends all it has; reentrant calls (from MAC callbacks) only mark. */
    private void sendRealTime() {
        if (sending || state != STATE_OPERATIONAL) {
            return;
        }
        sending = true;
        try {
            while (pendingCount > 0) {
                for (Station st : stations) {
                    if (!st.wantsToken) {
                        continue;
                    }
                    long pulled;
                    while (st.joined && (pulled = st.mac.pullFrame(realTimeFrame, maxFrameBytes)) != FddiMac.NO_FRAME) {
                        int length = launch(st, realTimeFrame, pulled, timeBase.nanoTime());
                        int fs = 0;
                        if (!lastLaunchLost) {
                            // one lap at most, even if a callback changes the membership meanwhile (lapDone)
                            Station next = nextMember(st);
                            int at = st.index;
                            for (int hop = 0; next != null && !lapDone(st.index, at, next.index)
                                 && hop < stations.length; hop++) {
                                fs |= next.mac.frameArrived(realTimeFrame, length, fs);
                                at = next.index;
                                next = nextMember(next);
                            }
                        }
                        st.mac.frameReturned((int) (pulled >>> 32), fs);
                    }
                    st.wantsToken = false;
                    pendingCount--;
                }
            }
        } finally {
            sending = false;
        }
    }

    /** Stops the ring: timers cancelled, later requests ignored; closes the capture file if the ring opened it. */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            if (virtual) {
                tokenTimer.cancel();
                claimTimer.cancel();
                for (Flight f : flights) {
                    f.timer.cancel();
                }
            }
        }
        if (capture != null) {
            try {
                if (ownsCapture) {
                    capture.close();
                } else {
                    capture.flush();
                }
            } catch (UncheckedIOException e) {
                LOG.warn("ring {}: capture file {} failed: {}", name, capture.path(), e.toString());
            }
        }
        LOG.debug("ring {} closed: {} frames, {} bytes, {} claims, max rotation {} ns (TTRT {} ns)", name, frames,
            bytes, claims, maxRotationNanos, ttrtNanos);
    }

    private static long ceilDiv(long a, long b) {
        return a <= 0 ? 0 : (a + b - 1) / b;
    }

    @Override
    public String toString() {
        return "FddiRing[" + name + ", " + memberCount() + " of " + stations.length + " stations joined]";
    }

    // ================================================================== stations and frames in flight

    private final class Station implements FddiRingPort {
        final int index;
        final FddiMac mac;
        boolean joined;
        int memberPos = -1;
        boolean wantsToken;
        long bid;
        long trtStart;
        long lastArrival = NONE;
        long asyncDeadline;

        Station(int index, FddiMac mac) {
            this.index = index;
            this.mac = mac;
        }

        @Override
        public String name() {
            return mac.name();
        }

        @Override
        public void join() {
            synchronized (lock) {
                if (joined || closed) {
                    return;
                }
                joined = true;
                membershipChanged();
            }
        }

        @Override
        public void leave() {
            synchronized (lock) {
                if (!joined || closed) {
                    return;
                }
                joined = false;
                if (wantsToken) {
                    wantsToken = false;
                    pendingCount--;
                }
                mac.ringStateChanged(STATE_ISOLATED, 0);
                membershipChanged();
            }
        }

        @Override
        public boolean isJoined() {
            synchronized (lock) {
                return joined;
            }
        }

        @Override
        public void updateIdleTokens() {
            FddiRing.this.updateIdleTokens();
        }

        @Override
        public void requestToken() {
            synchronized (lock) {
                if (!joined || closed) {
                    return;
                }
                if (!wantsToken) {
                    wantsToken = true;
                    pendingCount++;
                }
                if (!virtual) {
                    sendRealTime();
                } else if (tokenPhase == TOKEN_PARKED && state == STATE_OPERATIONAL) {
                    unpark(timeBase.nanoTime());
                }
            }
        }

        @Override
        public String toString() {
            return "station " + mac.name() + " of ring " + name;
        }
    }

    private final class Flight {
        final MemorySegment frame = MemorySegment.ofArray(new long[(maxFrameBytes + 7) / 8]);
        final SimTimer timer;
        int length;
        int tag;
        int source;
        int at;
        int hops;
        int fs;
        boolean lost;

        Flight(int number) {
            this.timer = timeBase.newTimer(name + ".frame" + number, () -> flightFired(this));
        }
    }

    /** Builds a ring. Every setting has a default except the time base. */
    public static final class Builder {
        private final TimeBase timeBase;
        private String name = "fddi0";
        private long stationLatencyNanos = DEFAULT_STATION_LATENCY_NANOS;
        private long linkPropagationNanos = DEFAULT_LINK_PROPAGATION_NANOS;
        private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
        private FaultPlan faults = FaultPlan.NONE;
        private PcapWriter captureWriter;
        private Path capturePath;
        private boolean ownsCapture;

        private Builder(TimeBase timeBase) {
            this.timeBase = Objects.requireNonNull(timeBase, "timeBase");
        }

        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Repeat latency of a station (PHY + MAC) in ns, >= 0. */
        public Builder stationLatencyNanos(long nanos) {
            if (nanos < 0) {
                throw new IllegalArgumentException("stationLatencyNanos must be >= 0, was " + nanos);
            }
            this.stationLatencyNanos = nanos;
            return this;
        }

        /** Propagation delay of the fibre between neighbouring stations in ns, >= 0 (5 ns per metre). */
        public Builder linkPropagationNanos(long nanos) {
            if (nanos < 0) {
                throw new IllegalArgumentException("linkPropagationNanos must be >= 0, was " + nanos);
            }
            this.linkPropagationNanos = nanos;
            return this;
        }

        /** Longest frame the ring carries, FC .. FCS, in [17, 65535]; sets F_max in the TTRT floor. */
        public Builder maxFrameBytes(int bytes) {
            int min = MAC_HEADER_BYTES + FddiFcs.LENGTH;
            if (bytes < min || bytes > 65535) {
                throw new IllegalArgumentException("maxFrameBytes must be in [" + min + ", 65535], was " + bytes);
            }
            this.maxFrameBytes = bytes;
            return this;
        }

        /** Faults to inject (default {@link FaultPlan#NONE}); only DROP and CORRUPT apply to a ring. */
        public Builder faults(FaultPlan plan) {
            this.faults = Objects.requireNonNull(plan, "plan");
            return this;
        }

        /** Captures into a writer the caller opened with linktype 10; the ring flushes it on close. */
        public Builder capture(PcapWriter writer) {
            Objects.requireNonNull(writer, "writer");
            if (writer.linkType() != PcapWriter.LINKTYPE_FDDI) {
                throw new IllegalArgumentException("an FDDI ring captures with linktype " + PcapWriter.LINKTYPE_FDDI
                    + ", but " + writer.path() + " has linktype 0x" + Integer.toHexString(writer.linkType()));
            }
            this.captureWriter = writer;
            this.capturePath = null;
            return this;
        }

        /** Captures into a new file at {@code path} (linktype 10, ns timestamps) that the ring closes on close. */
        public Builder capture(Path path) {
            this.capturePath = Objects.requireNonNull(path, "path");
            this.captureWriter = null;
            return this;
        }

        /** @throws UncheckedIOException if the capture file cannot be created */
        public FddiRing build() {
            if (capturePath != null) {
                try {
                    captureWriter = PcapWriter.builder(capturePath, timeBase).linkType(PcapWriter.LINKTYPE_FDDI).open();
                } catch (IOException e) {
                    throw new UncheckedIOException("ring " + name + ": cannot create capture file " + capturePath, e);
                }
                ownsCapture = true;
            } else {
                ownsCapture = false;
            }
            return new FddiRing(this);
        }
    }
}
