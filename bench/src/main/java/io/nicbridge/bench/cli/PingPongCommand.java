package io.nicbridge.bench.cli;

import static io.nicbridge.contract.Dec21140.ETH_FCS_LEN;
import static io.nicbridge.contract.Dec21140.ETH_MIN_FRAME_NOFCS;
import static io.nicbridge.contract.Dec21140.ETH_PREAMBLE_SFD_LEN;
import static io.nicbridge.contract.Dec21140.ETH_WIRE_OVERHEAD;

import io.nicbridge.bench.medusa.MedusaRingCli;
import io.nicbridge.bench.pingpong.PingPongLoops;
import io.nicbridge.bench.pingpong.Progress;
import io.nicbridge.bench.pingpong.RttSummary;
import io.nicbridge.bench.pingpong.TcpLoopbackPingPong;
import io.nicbridge.bench.pingpong.VirtualPingPong;
import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.dec21140.Dec21140Card;
import io.nicbridge.sim.dec21140.Dec21140Timing;
import io.nicbridge.sim.emu.EmuBackendProvider;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.Engines;
import io.nicbridge.sim.ethernet.EthernetSegment;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nic pingpong}: two nodes on one Ethernet segment exchange frames of one size; node A measures the round
 * trip. In the same run the same exchange (size, count, warmup) goes over Java TCP on loopback with TCP_NODELAY,
 * the baseline, and the ratio is printed. In virtual mode the round trip is simulated time and is checked against
 * the wire's serialization and propagation arithmetic plus the card's modelled delays.
 */
@Command(name = "pingpong", mixinStandardHelpOptions = true,
        description = "Two emulated cards on one wire exchange frames; prints RTT percentiles next to a TCP"
            + " loopback baseline measured in the same run. --backend shim:afpacket[?params]: the Tulip driver on"
            + " native-shim 21140s over a veth pair (or, with --role echo/client, a real NIC on two hosts), RTT and"
            + " one-way frame rate per frame size beside kernel UDP over the same link. --card medusa: the careful-protocols paper's ring latency"
            + " test (a message around a ring of --nodes P FDDI stations, virtual time) beside its Table 1.")
final class PingPongCommand implements Callable<Integer> {
    static final List<String> CARDS = List.of("dec21140", "sba200", "medusa");

    @Option(names = "--card", required = true, description = "Card model: ${COMPLETION-CANDIDATES}.",
            completionCandidates = CardNames.class)
    String card;

    @Option(names = "--backend", defaultValue = "emu:dec21140",
            description = "Device spec of both nodes (default: ${DEFAULT-VALUE}): emu:<card> (two emulated cards"
                + " on a simulated wire) or shim:afpacket[?mode=inline|threaded&rx-ring=..&tx-ring=..&budget=.."
                + "&qdisc-bypass=true..] (role both fills in if= and netns= per side; echo and client take"
                + " if=IFACE[&netns=NS]).")
    String backend;

    @Option(names = "--mode", defaultValue = "inline",
            description = "How the cards run: inline, threaded or virtual (default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(names = "--size", defaultValue = "64",
            description = "Frame bytes handed to the driver, destination address to payload, without the 4-byte"
                + " FCS the card appends: " + ETH_MIN_FRAME_NOFCS + ".." + TulipDriver.MAX_FRAME
                + " (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--count", defaultValue = "50000", description = "Measured round trips (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--warmup", defaultValue = "50000",
            description = "Round trips before measuring, so the JIT has compiled driver, card and wire"
                + " (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the virtual world (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--idle", defaultValue = "backoff",
            description = "Threaded mode: the card threads' idle strategy: spin, yield, park, park:<nanos>, backoff"
                + " (default: ${DEFAULT-VALUE}).")
    String idle;

    @Option(names = "--driver", defaultValue = "auto",
            description = "Driver mode: interrupt, polling or auto (inline: polling; threaded and virtual:"
                + " interrupt).")
    String driverMode;

    @Option(names = "--sizes", description = "sba200: message sizes in bytes, comma-separated (default: 4 .. 5120,"
            + " the points of the U-Net paper's Figures 3 and 4). shim: frame sizes without FCS, 60..1514"
            + " (default: 64,128,256,512,1024,1514).")
    String sizes;

    // ---- shim: the Tulip driver on native-shim 21140s over a real link (ShimPingPong)

    @Option(names = "--role", defaultValue = "both", description = "shim: both (default; builds a veth pair, runs"
        + " both nodes and the kernel UDP baseline), echo (node B only: echoes ping-pong frames on if= until Ctrl-C"
        + " or --count frames) or client (node A only: RTT to --peer).")
    String role;

    @Option(names = "--peer", description = "shim --role client: the echo node's MAC, 02:00:00:00:00:02 or"
        + " 02-00-00-00-00-02.")
    String peer;

    @Option(names = "--veth", description = "shim --role both: an existing link NS_A/IF_A,NS_B/IF_B (ends up,"
        + " in named network namespaces) instead of a fresh veth pair; the UDP baseline runs when both ends have an"
        + " IPv4 address.")
    String veth;

    @Option(names = {"--trials", "--interleave"}, defaultValue = "9", description = "shim --role both: per frame"
        + " size, this many trials, the shim and kernel UDP alternating, each with its share of --count and"
        + " --duration, so both see the same machine; the targets are judged on the trials' ratios (median with a"
        + " bootstrap 95% interval; with 9 trials it is the 2nd..8th smallest, whose exact coverage is 96.1%; with 7"
        + " only 87.5%) (default: ${DEFAULT-VALUE}).")
    int interleave;

    @Option(names = "--accept-inconclusive", description = "shim --role both: exit 0 instead of 3 when a target is"
        + " INCONCLUSIVE (its interval straddles the target) and none is NOT MET.")
    boolean acceptInconclusive;

    @Option(names = "--duration", defaultValue = "1s", description = "shim: one-way flood per frame size, e.g. 1s,"
        + " 0.5, 200ms (default: ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--wait", defaultValue = "block", description = "shim: how a node waits for a frame: block (default;"
        + " sleeps on the interrupt line, like kernel UDP's read) or spin[:MICROS] (polls the ring for MICROS, default"
        + " 50, before it sleeps).")
    String waitMode;

    // ---- medusa: the careful-protocols paper's ring latency test (io.nicbridge.bench.medusa)

    @Option(names = "--nodes", description = "medusa: ring sizes P, comma-separated (default: "
        + MedusaRingCli.DEFAULT_NODES + ").")
    String nodes;

    @Option(names = "--words", description = "medusa: payload sizes in 4-byte words, comma-separated, 1..2000"
        + " (default: 1,100,250,500,1000,1500,2000).")
    String words;

    @Option(names = "--rounds", defaultValue = "10", description = "medusa: measured trips around the ring per point"
        + " (default: ${DEFAULT-VALUE}; warm-up rounds: --warmup, 2 unless given).")
    int rounds;

    @Option(names = "--host-ns", defaultValue = "0", description = "medusa: each node's host reaction time in virtual"
        + " ns, receive interrupt to passing the message on (default: ${DEFAULT-VALUE} = host software not modelled).")
    long hostNanos;

    @Option(names = "--throughput", description = "medusa: run the throughput test instead (as `nic throughput`).")
    boolean throughput;

    @Option(names = "--messages", defaultValue = "400", description = "medusa --throughput: messages per point"
        + " (default: ${DEFAULT-VALUE}).")
    int messages;

    @Mixin
    CaptureOptions capture = new CaptureOptions();

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec commandSpec;

    /**
     * The card timing the virtual-mode model assumes; null: the card's own. A test sets a deliberately wrong one to
     * see the model self-check fail and the exit code say so.
     */
    Dec21140Timing modelTiming;

    /**
     * shim: the ratio both targets must clear ({@link ShimPingPong#TARGET_RATIO}, the shim no worse than kernel UDP);
     * a test sets a trivial or an impossible one to see both exit codes from a real run.
     */
    double shimTargetRatio = ShimPingPong.TARGET_RATIO;

    private boolean given(String option) {
        return commandSpec != null && commandSpec.commandLine().getParseResult().hasMatchedOption(option);
    }

    private Integer callMedusa() {
        if (given("--mode") && !Engines.parseMode(mode).equals(EngineMode.VIRTUAL)) {
            throw new IllegalArgumentException("--card medusa runs the paper's ring experiments in virtual time only;"
                + " drop --mode or use --mode virtual");
        }
        for (String o : List.of("--size", "--count", "--backend", "--driver", "--idle")) {
            if (given(o)) {
                throw new IllegalArgumentException(o + " does not apply to --card medusa (use --nodes, --words,"
                    + " --rounds, --warmup, --host-ns, --throughput, --messages, --seed)");
            }
        }
        String n = nodes == null ? MedusaRingCli.DEFAULT_NODES : nodes;
        if (throughput && given("--host-ns")) {
            throw new IllegalArgumentException("--host-ns applies to the latency test, not --throughput");
        }
        PcapWriter pcap = capture.openVirtual(PcapWriter.LINKTYPE_FDDI);
        try {
            if (throughput) {
                return MedusaRingCli.throughput(System.out, n, words, messages, seed, pcap);
            }
            return MedusaRingCli.latency(System.out, n, words, given("--warmup") ? warmup : 2, rounds, seed, hostNanos,
                pcap);
        } finally {
            CaptureOptions.finish(pcap, System.out);
        }
    }

    static final class CardNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return CARDS.iterator();
        }
    }

    @Override
    public Integer call() throws Exception {
        if ("medusa".equals(card)) {
            return callMedusa();
        }
        for (String o : List.of("--nodes", "--words", "--rounds", "--throughput", "--messages", "--host-ns")) {
            if (given(o)) {
                throw new IllegalArgumentException(o + " applies to --card medusa only");
            }
        }
        if (DeviceSpec.parse(backend).scheme().equals(ShimBackendProvider.SCHEME)) {
            return callShim();
        }
        for (String o : List.of("--role", "--peer", "--veth", "--duration", "--wait", "--trials",
                "--accept-inconclusive")) {
            if (given(o)) {
                throw new IllegalArgumentException(o + " applies to the shim backend only (--backend shim:afpacket)");
            }
        }
        PrintStream out = System.out;
        if ("sba200".equals(card)) {
            // U-Net over ATM: a size sweep in virtual time beside the paper's Figure 3, then the real-time cost.
            int[] sweep = sizes == null ? io.nicbridge.bench.unet.UnetReport.DEFAULT_SIZES
                : io.nicbridge.bench.unet.UnetReport.parseSizes(sizes);
            if (count < 1 || warmup < 0) {
                throw new IllegalArgumentException("--count must be >= 1 and --warmup >= 0");
            }
            PcapWriter pcap = capture.openVirtual(PcapWriter.LINKTYPE_SUNATM);
            try {
                return io.nicbridge.bench.unet.UnetReport.pingpong(out, sweep, 2, 10, warmup, count, seed,
                    io.nicbridge.sim.sba200.Sba200Timing.I960_25MHZ, pcap);
            } finally {
                CaptureOptions.finish(pcap, System.out);
            }
        }
        EngineMode engineMode = validate();
        InterruptMode irq = interruptMode(engineMode);
        TulipConfig config = TulipConfig.builder().interruptMode(irq).build();
        int onWire = Math.max(size, ETH_MIN_FRAME_NOFCS) + ETH_FCS_LEN;
        out.printf(Locale.ROOT, "pingpong: card %s, backend %s, mode %s, driver %s, size %d B (%d B on the wire with"
            + " FCS), count %d, warmup %d, seed %d%n", card, backend, Engines.modeName(engineMode),
            irq.name().toLowerCase(Locale.ROOT), size, onWire, count, warmup, seed);

        Histogram rtt = RttSummary.newHistogram();
        Progress progress = new Progress("pingpong " + Engines.modeName(engineMode), (long) warmup + count,
            System.err);
        RttSummary emulated;
        PcapWriter pcap = null;
        CheckLog checks = new CheckLog(out::println);
        // Both nodes come from the backend: the emu backend puts cards opened with the same mode, seed, idle
        // strategy and wire name on one simulated Ethernet segment.
        String spec = backend + "?mode=" + Engines.modeName(engineMode) + "&seed=" + seed
            + (engineMode == EngineMode.THREADED ? "&idle=" + idle : "") + "&wire=pingpong";
        try (Card cardA = Backends.open(spec + "&name=pingpong-a&mac=02-00-00-00-00-01");
             Card cardB = Backends.open(spec + "&name=pingpong-b&mac=02-00-00-00-00-02");
             TulipDriver a = TulipDriver.open(cardA, config);
             TulipDriver b = TulipDriver.open(cardB, config)) {
            EmulatedTestbed world = EmuBackendProvider.testbed(cardA).orElseThrow(() -> new IllegalStateException(
                "backend '" + backend + "' did not give an emulated testbed"));
            EthernetSegment wire = world.wire("pingpong").orElseThrow();
            // Stamped by the world's clock: simulated time in virtual mode, the wall clock otherwise.
            pcap = capture.open(PcapWriter.LINKTYPE_ETHERNET, world.timeBase());
            wire.capture(pcap);
            out.printf("stations: A %s (%s) <-> B %s (%s) on segment '%s'%n", a.stationAddress(), cardA.name(),
                b.stationAddress(), cardB.name(), wire.name());
            long macA = a.stationAddress().value();
            long macB = b.stationAddress().value();
            switch (engineMode) {
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
            CaptureOptions.finish(pcap, System.out);
        }
        emulated = RttSummary.of(engineMode == EngineMode.VIRTUAL ? "emulated 21140 RTT (simulated time)"
            : "emulated 21140 RTT (wall clock, " + Engines.modeName(engineMode) + ")", rtt);

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
            (double) tcp.p99() / emulated.p99(), engineMode == EngineMode.VIRTUAL
                ? " (simulated 100 Mb/s wire time vs host TCP wall time: different clocks; a comparison, not a check)"
                : " (a comparison, not a check)");
        return checks.finish(false);
    }

    private Integer callShim() throws Exception {
        for (String o : List.of("--seed", "--idle")) {
            if (given(o)) {
                throw new IllegalArgumentException(o + " does not apply to the shim backend (a real link, real time)");
            }
        }
        if (given("--size") && given("--sizes")) {
            throw new IllegalArgumentException("give --size or --sizes, not both");
        }
        int[] sweep = given("--size") ? new int[] {size}
            : sizes == null ? ShimPingPong.DEFAULT_SIZES : parseSizes(sizes);
        ShimPingPong run = new ShimPingPong(commandSpec.commandLine().getOut(), card, backend, role,
            given("--mode") ? mode : null, driverMode, sweep, count, warmup, given("--count") ? count : 0, duration,
            veth, peer, waitMode, interleave, acceptInconclusive, shimTargetRatio, capture);
        return run.run();
    }

    static int[] parseSizes(String text) {
        String[] parts = text.split(",", -1);
        int[] r = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                r[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--sizes '" + text + "': '" + parts[i] + "' is not a number");
            }
        }
        return r;
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

    private EngineMode validate() {
        if (!CARDS.contains(card)) {
            throw new IllegalArgumentException("unknown card '" + card + "'; pingpong supports: "
                + String.join(", ", CARDS));
        }
        DeviceSpec spec = DeviceSpec.parse(backend);
        if (!spec.scheme().equals("emu")) {
            throw new IllegalArgumentException("backend '" + backend + "' cannot run pingpong: it needs two emulated"
                + " cards on one simulated wire; use emu:" + card);
        }
        if (!spec.card().equals(card)) {
            throw new IllegalArgumentException("backend '" + backend + "' builds card '" + spec.card()
                + "' but --card is '" + card + "'; use emu:" + card);
        }
        if (!spec.params().isEmpty()) {
            throw new IllegalArgumentException("backend '" + backend + "': pingpong takes no backend parameters, got "
                + spec.params().keySet());
        }
        EngineMode m = Engines.parseMode(mode);
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
        return m;
    }

    private InterruptMode interruptMode(EngineMode m) {
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
}
