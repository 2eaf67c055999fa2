package io.nicbridge.bench.pingpong;

import static io.nicbridge.contract.Dec21140.ETH_FCS_LEN;
import static io.nicbridge.contract.Dec21140.ETH_MIN_FRAME_NOFCS;
import static io.nicbridge.contract.Dec21140.ETH_PREAMBLE_SFD_LEN;
import static io.nicbridge.contract.Dec21140.ETH_WIRE_OVERHEAD;

import io.nicbridge.bench.capture.CaptureFile;
import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.dec21140.Dec21140Card;
import io.nicbridge.sim.dec21140.Dec21140Timing;
import io.nicbridge.sim.emu.EmuBackendProvider;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.Engines;
import io.nicbridge.sim.ethernet.EthernetSegment;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Two emulated 21140s on one simulated Ethernet segment, each under the Tulip driver, exchange frames of one size;
 * node A measures the round trip. In the same run the same exchange (size, count, warmup) goes over Java TCP on
 * loopback with TCP_NODELAY, the baseline, and the ratio is printed as a comparison. In virtual time the round trip
 * is simulated time and is checked against the wire's serialization and propagation arithmetic plus the card's
 * modelled delays (a model self-check).
 */
public final class EmulatedTulipPingPong {
    /** The backend both nodes come from; the emu backend puts cards with the same wire name on one segment. */
    static final String BACKEND = "emu:dec21140";

    private final EngineMode mode;
    private final InterruptMode interruptMode;
    private final String idle;
    private final int size;
    private final int count;
    private final int warmup;
    private final long seed;
    private final CaptureFile capture;
    private final Dec21140Timing modelTiming;

    /**
     * @param mode        inline, threaded or virtual ({@link Engines#parseMode})
     * @param idle        threaded mode: the card threads' idle strategy
     * @param driver      interrupt, polling or auto (inline: polling; threaded and virtual: interrupt)
     * @param size        frame bytes handed to the driver, without the FCS the card appends
     * @param modelTiming the card timing the virtual-time model assumes; null: the card's own (a test gives a wrong
     *                    one to see the self-check fail)
     * @throws IllegalArgumentException naming the first bad argument
     */
    public EmulatedTulipPingPong(String mode, String idle, String driver, int size, int count, int warmup, long seed,
                                 CaptureFile capture, Dec21140Timing modelTiming) {
        this.mode = Engines.parseMode(mode);
        if (size < ETH_MIN_FRAME_NOFCS || size > TulipDriver.MAX_FRAME) {
            throw new IllegalArgumentException("--size must be " + ETH_MIN_FRAME_NOFCS + ".." + TulipDriver.MAX_FRAME
                + " bytes (a frame without the FCS the card appends), was " + size);
        }
        if (count < 1) {
            throw new IllegalArgumentException("--count must be at least 1, was " + count);
        }
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup must be 0 or more, was " + warmup);
        }
        this.interruptMode = interruptMode(driver, this.mode);
        this.idle = idle;
        this.size = size;
        this.count = count;
        this.warmup = warmup;
        this.seed = seed;
        this.capture = capture;
        this.modelTiming = modelTiming;
    }

    private static InterruptMode interruptMode(String driverMode, EngineMode m) {
        String d = driverMode.trim().toLowerCase(Locale.ROOT);
        InterruptMode irq = switch (d) {
            case "auto" -> m == EngineMode.INLINE ? InterruptMode.POLLING : InterruptMode.INTERRUPT;
            case "interrupt" -> InterruptMode.INTERRUPT;
            case "polling" -> InterruptMode.POLLING;
            default -> throw new IllegalArgumentException("unknown --driver '" + driverMode
                + "'; expected interrupt, polling or auto");
        };
        if (m == EngineMode.VIRTUAL && irq != InterruptMode.INTERRUPT) {
            throw new IllegalArgumentException("virtual mode runs the nodes as interrupt handlers inside the"
                + " simulation; --driver polling is not possible there");
        }
        return irq;
    }

    /** @return the exit code of the checks ({@link io.nicbridge.bench.verdict.ExitCodes}) */
    public int run(PrintStream out) throws Exception {
        TulipConfig config = TulipConfig.builder().interruptMode(interruptMode).build();
        int onWire = Math.max(size, ETH_MIN_FRAME_NOFCS) + ETH_FCS_LEN;
        out.printf(Locale.ROOT, "pingpong: card %s, backend %s, mode %s, driver %s, size %d B (%d B on the wire with"
            + " FCS), count %d, warmup %d, seed %d%n", "dec21140", BACKEND, Engines.modeName(mode),
            interruptMode.name().toLowerCase(Locale.ROOT), size, onWire, count, warmup, seed);

        Histogram rtt = RttSummary.newHistogram();
        Progress progress = new Progress("pingpong " + Engines.modeName(mode), (long) warmup + count, System.err);
        RttSummary emulated;
        PcapWriter pcap = null;
        CheckLog checks = new CheckLog(out::println);
        // Both nodes come from the backend: the emu backend puts cards opened with the same mode, seed, idle
        // strategy and wire name on one simulated Ethernet segment.
        String spec = BACKEND + "?mode=" + Engines.modeName(mode) + "&seed=" + seed
            + (mode == EngineMode.THREADED ? "&idle=" + idle : "") + "&wire=pingpong";
        try (Card cardA = Backends.open(spec + "&name=pingpong-a&mac=02-00-00-00-00-01");
             Card cardB = Backends.open(spec + "&name=pingpong-b&mac=02-00-00-00-00-02");
             TulipDriver a = TulipDriver.open(cardA, config);
             TulipDriver b = TulipDriver.open(cardB, config)) {
            EmulatedTestbed world = EmuBackendProvider.testbed(cardA).orElseThrow(() -> new IllegalStateException(
                "backend '" + BACKEND + "' did not give an emulated testbed"));
            EthernetSegment wire = world.wire("pingpong").orElseThrow();
            // Stamped by the world's clock: simulated time in virtual mode, the wall clock otherwise.
            pcap = capture.open(PcapWriter.LINKTYPE_ETHERNET, world.timeBase());
            wire.capture(pcap);
            out.printf("stations: A %s (%s) <-> B %s (%s) on segment '%s'%n", a.stationAddress(), cardA.name(),
                b.stationAddress(), cardB.name(), wire.name());
            long macA = a.stationAddress().value();
            long macB = b.stationAddress().value();
            switch (mode) {
                case INLINE -> {
                    awaitFilters(a, b);
                    PingPongLoops.inline(a, macA, b, macB, size, warmup, count, rtt, progress);
                }
                case THREADED -> {
                    awaitFilters(a, b);
                    PingPongLoops.threaded(a, macA, b, macB, size, warmup, count, rtt, progress);
                }
                case VIRTUAL -> {
                    VirtualPingPong vp = new VirtualPingPong(a, b, world.virtualEngine().timeBase(), size, warmup,
                        count, rtt, progress);
                    long simulated = vp.run();
                    long modelRtt = printModel(out, wire, modelTiming != null ? modelTiming
                        : ((Dec21140Card) cardA).timing(), onWire);
                    out.printf(Locale.ROOT, "simulated: %d round trips in %.3f ms of virtual time; every measured RTT"
                        + " in [%d, %d] ns%n", warmup + count, simulated / 1e6, vp.minRtt(), vp.maxRtt());
                    checks.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "every simulated RTT equals"
                        + " the model (model %d ns, measured min %d ns, max %d ns)", modelRtt, vp.minRtt(),
                        vp.maxRtt()), vp.minRtt() == modelRtt && vp.maxRtt() == modelRtt);
                    // Only the measured round trips: setup and the JIT warmup are one-time costs, not per trip.
                    out.printf(Locale.ROOT, "simulation cost: %.3f us of wall clock per simulated round trip%n",
                        vp.measuredWallNanos() / 1e3 / count);
                }
            }
            out.println("counters A: " + a.counters());
            out.println("counters B: " + b.counters());
        } finally {
            CaptureFile.finish(pcap, out);
        }
        emulated = RttSummary.of(mode == EngineMode.VIRTUAL ? "emulated 21140 RTT (simulated time)"
            : "emulated 21140 RTT (wall clock, " + Engines.modeName(mode) + ")", rtt);

        Histogram tcpRtt = RttSummary.newHistogram();
        try (TcpLoopbackPingPong tcp = new TcpLoopbackPingPong(size)) {
            Progress tcpProgress = new Progress("pingpong tcp baseline", (long) warmup + count, System.err);
            for (int i = 0; i < warmup + count; i++) {
                long t = tcp.roundTrip();
                if (i >= warmup) {
                    tcpRtt.recordValue(t);
                }
                tcpProgress.tick(i + 1);
            }
        }
        RttSummary tcp = RttSummary.of("TCP loopback RTT (TCP_NODELAY, wall clock)", tcpRtt);
        out.println(emulated.line());
        out.println(tcp.line());
        out.printf(Locale.ROOT, "ratio TCP / emulated: p50 %.1fx, p99 %.1fx%s%n", (double) tcp.p50() / emulated.p50(),
            (double) tcp.p99() / emulated.p99(), mode == EngineMode.VIRTUAL
                ? " (simulated 100 Mb/s wire time vs host TCP wall time: different clocks; a comparison, not a check)"
                : " (a comparison, not a check)");
        return checks.finish(false);
    }

    /** Prints the virtual-time model of one round trip and returns it in nanoseconds. */
    static long printModel(PrintStream out, EthernetSegment wire, Dec21140Timing t, int frameBytes) {
        int dmaRead = frameBytes - ETH_FCS_LEN;
        long txStart = t.transmitStartNanos(1, dmaRead);
        long serialize = wire.wireNanos(frameBytes + ETH_PREAMBLE_SFD_LEN);
        long occupy = wire.wireNanos(frameBytes + ETH_WIRE_OVERHEAD);
        long prop = wire.propagationNanos();
        long rx = t.receiveNanos(frameBytes);
        long ready = txStart + serialize + prop + rx + txStart; // reply ready to start, after the request started
        long defer = Math.max(0, occupy - ready + txStart);    // reply waits for the medium (IFG) if needed
        long oneWay = txStart + serialize + prop + rx;
        long rtt = 2 * (oneWay + defer);
        out.println("model: " + t.describe());
        out.printf(Locale.ROOT, "model: wire %d b/s, propagation %d ns; frame %d B with FCS%n", wire.bitRate(), prop,
            frameBytes);
        out.printf(Locale.ROOT, "model: one way = TX fetch+DMA %d ns (%d B) + serialization (%d+%d B) x 8 bits = %d ns"
            + " + propagation %d ns + RX fetch+DMA+status %d ns = %d ns%n", txStart, dmaRead, frameBytes,
            ETH_PREAMBLE_SFD_LEN, serialize, prop, rx, oneWay);
        out.printf(Locale.ROOT, "model: medium busy per frame (%d+%d B) = %d ns; reply deferral %d ns%n", frameBytes,
            ETH_WIRE_OVERHEAD, occupy, defer);
        out.printf(Locale.ROOT, "model: RTT = 2 x (%d + %d) = %d ns%n", oneWay, defer, rtt);
        return rtt;
    }

    /** Real time: waits (bounded) until both chips have taken their setup frames, so no early frame is filtered. */
    private static void awaitFilters(TulipDriver a, TulipDriver b) {
        long timeout = TimeUnit.SECONDS.toNanos(5);
        if (!a.awaitFilterLoaded(timeout, null) || !b.awaitFilterLoaded(timeout, null)) {
            throw new IllegalStateException("the setup frames were not processed within 5 s");
        }
    }
}
