package io.nicbridge.bench.pupa.real;

import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimStatistics;
import io.nicbridge.bridge.shim.ShimTulipLinks;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.pupa.PupaConfig;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-hop cost of {@code nic pupa real-latency}'s busy-polling path, without the waiting: the two Pupa nodes of a
 * {@link PupaShimPair} (inline native-shim 21140s on a veth pair, {@link PupaShimPair.Wait#SPIN}) driven by ONE
 * thread, which sends a message from A, steps B until it is delivered, echoes it, and steps A until the echo is
 * delivered. Every step of the loop has work or is the one look that finds the frame, so the time per round trip is
 * the CPU of two hops: the sender's core, link, driver and card transmit pass, the kernel's {@code send()} (which on a
 * veth runs the receiving side's softirq and fills its packet ring on this CPU), and the receiver's card, driver and
 * core - what a spinning node does between a frame landing in its ring and its answer's {@code send()}. Set beside
 * the one-way latency ({@code real-latency}) and the bare C floor ({@code tools/veth-latency-floor.sh}), it says how
 * much of a hop is ours; a profile of this benchmark ({@code -prof perfnorm} where counters exist, or {@code perf
 * record -e cpu-clock}) says where. Allocation-free per round trip ({@code -prof gc}). Needs root (namespaces,
 * AF_PACKET); {@code transport=afxdp} runs the cards on {@code shim:afxdp}.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PupaShimHopBench {
    @Param({"64"})
    public int size;

    @Param({"afpacket"})
    public String transport;

    private VethPair veth;
    private PupaShimPair pair;
    private PupaShimPair.Node a;
    private PupaShimPair.Node b;
    private MemorySegment message;
    private MemorySegment echo;
    private final int[] got = {-1};
    private final MessageHandler keep = (peer, data, off, len) -> {
        MemorySegment.copy(data, off, echo, 0, len);
        got[0] = len;
    };
    private int tag;
    private long roundTrips;
    private ShimStatistics startA;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Availability links = VethPair.availability();
        if (!links.available()) {
            throw new IllegalStateException("veth pairs unavailable: " + links.reason());
        }
        veth = VethPair.create();
        pair = new PupaShimPair(veth, PupaShimPair.Wait.SPIN, PupaShimPair.realTime(PupaConfig.defaults()),
            RealLatencyCommand.transport(transport));
        a = pair.node(0);
        b = pair.node(1);
        message = MemorySegment.ofArray(new byte[size]);
        echo = MemorySegment.ofArray(new byte[size]);
        startA = a.card().statistics();
    }

    /**
     * Prints node A's card work per round trip of {@link #roundTrip} (A sends one frame and receives one per round
     * trip): shim polls (each one downcall and one acquisition of the shim's mutex), doorbell kicks (one downcall
     * each) and interrupt edges (each acknowledged by a CSR5 write: one downcall and one mutex acquisition).
     */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (roundTrips > 0) {
            ShimStatistics end = a.card().statistics();
            System.out.printf(Locale.ROOT, "%n[node A per round trip, %d round trips: %.2f polls, %.2f kicks, %.2f"
                + " interrupts, %.2f frames sent, %.2f received]%n", roundTrips,
                (end.polls() - startA.polls()) / (double) roundTrips, (end.kicks() - startA.kicks()) / (double) roundTrips,
                (end.interrupts() - startA.interrupts()) / (double) roundTrips,
                (end.txFrames() - startA.txFrames()) / (double) roundTrips,
                (end.rxFrames() - startA.rxFrames()) / (double) roundTrips);
        }
        pair.close();
        veth.close();
    }

    @Benchmark
    public int roundTrip() {
        hop(a, b, 1, message);
        hop(b, a, 0, echo);
        roundTrips++;
        return got[0];
    }

    /**
     * A spinning node's look that finds nothing: the card's poll (ring, doorbells, timers), the line, the descriptor
     * ring and the core's timer and FIFOs. A frame that lands during one waits for the rest of it, so half of this is
     * the average delay between a frame's arrival and the node noticing it.
     */
    @Benchmark
    public int idleStep() {
        return a.step(keep);
    }

    /** {@code from} sends {@code data} to peer {@code to}; {@code into} is stepped until the message is delivered. */
    private void hop(PupaShimPair.Node from, PupaShimPair.Node into, int to, MemorySegment data) {
        got[0] = -1;
        long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (from.core().send(to, data, 0, size, tag++, true) != MessageChannel.OK) {
            from.step(keep);
            if (System.nanoTime() - limit > 0) {
                throw new IllegalStateException("send refused for 5 s: " + from);
            }
        }
        while (got[0] < 0) {
            if (into.step(keep) == 0 && System.nanoTime() - limit > 0) {
                throw new IllegalStateException("no delivery within 5 s: " + into + "; " + pair.cardStatistics());
            }
        }
    }
}
