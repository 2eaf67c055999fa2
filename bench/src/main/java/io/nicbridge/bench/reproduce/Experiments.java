package io.nicbridge.bench.reproduce;

import io.nicbridge.bench.careful.AppendixARows;
import io.nicbridge.bench.careful.CarefulExperiments;
import io.nicbridge.bench.cli.NicCommand;
import io.nicbridge.bench.fabric.IdempotentAddTable;
import io.nicbridge.bench.medusa.MedusaRingExperiments;
import io.nicbridge.bench.pupa.PupaOperationsTable;
import io.nicbridge.bench.unet.AmOperationsTable;
import io.nicbridge.bench.unet.Table3Report;
import io.nicbridge.bench.unet.TcpWindowReport;
import io.nicbridge.bench.unet.UdpReport;
import io.nicbridge.bench.unet.UnetReport;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.sim.sba200.Sba200Timing;
import io.nicbridge.bridge.cost.CostTable;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Every experiment {@code nic reproduce} runs, in report order: a few lines each, calling the experiment's own API
 * (or, for the experiments that exist only as a command, its {@code nic} command line, in this JVM).
 *
 * <p>To add one (e.g. Pupa's latency or U-Net's Active Messages): append an {@link Experiment} to {@link #all()} with
 * its paper, the sizes of its quick and full runs, a rough quick estimate, its needs, the figures it fills (with the
 * paper's axes and how a row is judged) and a body that calls it with {@link Run#seed()}, {@link Run#quick()},
 * {@link Run#costs()} and, for its points, {@link Run#points()} ({@link io.nicbridge.bench.verdict.PaperPoints}: one
 * call where it prints a row). An experiment that exists only as a command is {@link #command}. When the paper gives no
 * figure to set beside the experiment's, {@link Experiment#withoutPaperFigure} says why (the report prints it).
 */
public final class Experiments {
    /** Why our virtual-time values are not like for like with the papers' (zero cost table): one reason, one place. */
    static final String HOST_NOT_MODELLED = "the paper's figures include its hosts' software and buses, which a run on"
            + " the zero cost table does not charge";

    private Experiments() {
    }

    /** @return every experiment, in report order (paper by paper) */
    public static List<Experiment> all() {
        List<Experiment> all = new ArrayList<>();
        // ------------------------------------------------------------------------------------------------ U-Net
        int[] unetQuick = {4, 16, 40, 44, 48, 64, 96, 128, 256, 512, 800, 1024, 1500, 4096};
        all.add(new Experiment("unet-rtt", Paper.UNET, "Figure 3: round-trip time vs message size, raw U-Net",
                "nic unet pingpong", "14 sizes 4..4096 B, 2+10 virtual round trips each, 500+2000 real-time",
                "the paper's 20 sizes 4..5120 B, 2+10 virtual, 50000+50000 real-time", 12, List.of(),
                List.of(Figure.shape("fig3", "U-Net Figure 3: round-trip time", "message size (bytes)",
                        "round-trip time (us)", "us", true, HOST_NOT_MODELLED + " (the paper's are the text's 65 us"
                                + " single-cell RTT plus 6 us per further cell, sec. 4.2.3)")),
                run -> UnetReport.pingpong(run.out(), run.quick() ? unetQuick : UnetReport.DEFAULT_SIZES, 2, 10,
                        run.quick() ? 500 : 50_000, run.quick() ? 2000 : 50_000, run.seed(), Sba200Timing.I960_25MHZ,
                        null, run.points())));
        all.add(new Experiment("unet-throughput", Paper.UNET, "Figure 4 / Table 3: throughput vs message size",
                "nic unet throughput", "14 sizes 4..4096 B, 200 messages each", "20 sizes 4..5120 B, 400 messages each",
                5, List.of(),
                List.of(Figure.shape("fig4", "U-Net Figure 4: throughput", "message size (bytes)",
                        "throughput (Mbit/s)", "Mbit/s", true, "Fig. 4's upper curve is the AAL5 limit of the 140"
                                + " Mbit/s fibre (a formula, whose sawtooth ours should follow), and Table 3's 120"
                                + " Mbit/s at 4 KB includes the hosts' software, which the zero cost table does"
                                + " not charge")),
                run -> UnetReport.throughput(run.out(), run.quick() ? unetQuick : UnetReport.DEFAULT_SIZES,
                        run.quick() ? 200 : 400, run.seed(), Sba200Timing.I960_25MHZ, null, run.points())));
        all.add(command("unet-am-latency", Paper.UNET, "Figure 3 / Table 3: Active Messages round trip beside raw"
                        + " U-Net, block-store RTT fit", "10 round trips per point", "10 round trips per point", 5,
                List.of(), new String[] {"unet", "am-latency"}, new String[] {"unet", "am-latency"}));
        all.add(command("unet-am-bandwidth", Paper.UNET, "Figure 4 / Table 3: Active Messages block store and get"
                        + " bandwidth, the 4164-byte dip", "the command's default sizes", "the command's default sizes",
                10, List.of(), new String[] {"unet", "am-bandwidth"}, new String[] {"unet", "am-bandwidth"}));
        all.add(udpLatency());
        all.add(udpBandwidth());
        all.add(table3());
        all.add(tcpWindow());
        all.add(new Experiment("unet-am-operations", Paper.UNET, "sec. 5.2: Active Messages per operation (JMH),"
                + " the layer's work per round trip beside the paper's 6 us", "nic bench ActiveMessagesBench",
                "JMH in this JVM, zero cost table, 2 warm-ups of 1 s + 3 iterations of 500 ms per operation",
                "zero and measured cost tables, one fork per benchmark, 3 warm-ups + 5 iterations of 1 s", 15,
                List.of(Need.JVM_FORK, Need.JMH_LOCK),
                List.of(Figure.shape("uam-overhead", "U-Net sec. 5.2: UAM overhead per single-cell round trip",
                        "request data (bytes)", "time per round trip (us)", "us", false, "the paper's 6 us is a 60 MHz"
                                + " SPARCstation 20's software in 1995 (71 us UAM less 65 us raw U-Net); ours is this"
                                + " CPU's, the in-memory world's dispatch included, so one point is shown with its"
                                + " ratio and not judged")),
                run -> AmOperationsTable.run(run.out(), run.quick(), run.points())));
        all.add(command("shim-afxdp-pingpong", Paper.UNET, "U-Net thirty years on: the 21140 contract on AF_XDP"
                        + " (shim:afxdp) beside the AF_PACKET shim and kernel UDP, interleaved on one veth pair",
                "64-byte frames only, 3 trials of 100 ms floods, 2000+200 round trips", "9 trials of 1 s", 40,
                List.of(Need.NET, Need.SHIM, Need.AFXDP),
                new String[] {"shim", "pingpong", "--backend", "shim:afxdp", "--compare", "shim:afpacket",
                        "--sizes", "64", "--duration", "100ms", "--trials", "3", "--count", "2000",
                        "--warmup", "200"},
                new String[] {"shim", "pingpong", "--backend", "shim:afxdp", "--compare", "shim:afpacket"})
                .withoutPaperFigure("AF_XDP did not exist in 1995; the U-Net paper's claim it tests - a user-level"
                        + " path ahead of the kernel's - is issue 18's targets, printed by the command"));
        all.add(command("unet-real-latency", Paper.UNET, "Figure 9 / Table 3 (UDP, TCP rows) in real time: U-Net"
                        + " UDP and TCP on U-Net over Ethernet (the shim card and the direct AF_XDP endpoint) beside"
                        + " kernel UDP and TCP_NODELAY on one veth pair and over loopback, interleaved", "sizes 4, 256,"
                        + " 1472 B; 200+50 round trips, 3 trials, busy polling, unpinned and pinned", "5 sizes, 2000+300"
                        + " round trips, 5 trials, busy polling and blocking, unpinned and pinned", 60,
                List.of(Need.NET, Need.SHIM, Need.AFXDP),
                new String[] {"unet", "real-latency", "--quick", "--count", "200", "--warmup", "50", "--trials", "3",
                        "--waits", "spin"},
                new String[] {"unet", "real-latency"})
                .withoutPaperFigure(UNET_REAL_WHY + "; the claim it tests - U-Net UDP and TCP round trips under the"
                        + " kernel's with the same wait mode - is issue 17's target, judged by the command"));
        all.add(command("unet-real-bandwidth", Paper.UNET, "Figure 7 / Table 3 (bandwidth column) in real time:"
                        + " U-Net UDP and TCP streams (the shim card and the direct AF_XDP endpoint) beside the kernel's"
                        + " on one veth pair and over loopback", "sizes 256, 1472, 4096 B; 2000 messages, 3 trials,"
                        + " busy polling", "6 sizes 64..8192 B, 20000 messages, 5 trials, busy polling and blocking",
                60, List.of(Need.NET, Need.SHIM, Need.AFXDP),
                new String[] {"unet", "real-bandwidth", "--quick", "--waits", "spin"},
                new String[] {"unet", "real-bandwidth"})
                .withoutPaperFigure(UNET_REAL_WHY + "; printed as figures beside the kernel's, not judged"));
        all.add(command("unet-real-window", Paper.UNET, "Figure 8 in real time: U-Net TCP bandwidth per window beside"
                        + " kernel TCP with SO_SNDBUF/SO_RCVBUF the same window, one veth pair and loopback",
                "windows 4, 8, 64 KB; 1000 writes of 4 KB, 3 trials, busy polling", "windows 2..64 KB, 10000"
                        + " writes, 5 trials, busy polling and blocking",
                60, List.of(Need.NET, Need.SHIM, Need.AFXDP),
                new String[] {"unet", "real-window", "--quick", "--waits", "spin"},
                new String[] {"unet", "real-window"})
                .withoutPaperFigure(UNET_REAL_WHY + "; Figure 8's claim (8 KB of window enough on U-Net) is printed"
                        + " per window beside the kernel's, not judged"));
        all.add(command("unet-table3-ethernet", Paper.UNET, "Table 3 on U-Net over Ethernet in real time: raw U-Net,"
                        + " Active Messages, UDP, TCP and the Split-C store, round trip and 4 KB bandwidth, two shim"
                        + " SBA-200s across a veth pair (9 KB MTU), interleaved trials", "200+20 round trips and 16"
                        + " packets of 4 KB per row, 3 trials", "1000+100 round trips and 16 packets per row, 5 trials",
                30, List.of(Need.NET, Need.SHIM),
                new String[] {"unet", "table3", "--ethernet", "--count", "200", "--warmup", "20", "--packets", "16",
                        "--trials", "3"},
                new String[] {"unet", "table3", "--ethernet"})
                .withoutPaperFigure(UNET_REAL_WHY + "; the five rows are printed beside the paper's ATM figures and"
                        + " the layers' order as per-trial ratios, compared, not judged (exit code 5 when a row could"
                        + " not run)"));
        // ------------------------------------------------------------------------------------------------- Pupa
        all.add(command("tulip-pingpong", Paper.PUPA, "the 21140 card model: round trip on one segment beside TCP"
                        + " loopback", "2000+200 round trips of 64-byte frames", "50000+50000", 10, List.of(),
                new String[] {"tulip", "pingpong", "--mode", "virtual", "--count", "2000", "--warmup", "200"},
                new String[] {"tulip", "pingpong", "--mode", "virtual"})
                .withoutPaperFigure("the Pupa paper times no bare 21140 round trip without Pupa; its nearest figure,"
                        + " Table 1's transmission and DMA, includes Pupa's frames, the interrupt and the context switch,"
                        + " and is set beside the same card model in pupa-latency"));
        all.add(command("shim-pingpong", Paper.PUPA, "the 21140 contract on a real veth pair (native shim) beside"
                        + " kernel UDP", "3 trials of 100 ms floods per size", "9 trials of 1 s", 40,
                List.of(Need.NET, Need.SHIM),
                new String[] {"shim", "pingpong", "--duration", "100ms", "--trials", "3"},
                new String[] {"shim", "pingpong"})
                .withoutPaperFigure("the Pupa paper measures no kernel UDP; its kernel comparison (TCP with"
                        + " TCP_NODELAY, Table 1 and Figure 4) is run on the shim by pupa-real-latency and"
                        + " pupa-real-bandwidth"));
        all.add(command("pupa-latency", Paper.PUPA, "Tables 1-2 / Figure 3: one-way latency and its breakdown,"
                        + " two emulated 21140s", "the command's --quick sizes", "4 .. 1436 B", 10, List.of(),
                new String[] {"pupa", "latency", "--quick", "--seed", "@seed"},
                new String[] {"pupa", "latency", "--seed", "@seed"}));
        all.add(command("pupa-bandwidth", Paper.PUPA, "Figure 4: one-way bandwidth, per-message vs sender-controlled"
                        + " ACKs", "the command's --quick sizes", "2000 messages per size", 20, List.of(),
                new String[] {"pupa", "bandwidth", "--quick", "--seed", "@seed"},
                new String[] {"pupa", "bandwidth", "--seed", "@seed"}));
        all.add(command("pupa-apps", Paper.PUPA, "Table 3: LES, GEL, LRS, SRS on 10 nodes on a CSMA/CD hub, 64 KB"
                        + " and 48 KB send pools", "scale 0.1 problems", "the command's full problems", 20, List.of(),
                new String[] {"pupa", "apps", "--quick", "--seed", "@seed"},
                new String[] {"pupa", "apps", "--seed", "@seed"}));
        all.add(new Experiment("pupa-operations", Paper.PUPA, "Table 2: host operations and per-message paths (JMH)",
                "nic calibrate --operations-only --suite pupa", "JMH in this JVM (not forked), 1 warm-up + 3"
                        + " iterations of 200 ms per benchmark", "one fork per benchmark, 3 warm-ups + 5 iterations of"
                        + " 1 s", 30,
                List.of(Need.JVM_FORK, Need.JMH_LOCK),
                List.of(Figure.shape("table2-software", "Pupa Table 2: protocol processing + data copy + buffer and"
                        + " header management, per message", "message size (bytes)", "time per message (us)", "us",
                        false, "the paper's rows are a 90 MHz Pentium's software in 1996 (read between Table 2's sizes"
                                + " at our paths' 16, 100 and 1000 bytes); ours is this CPU's, the same work by the"
                                + " same rules")),
                run -> PupaOperationsTable.run(run.out(), run.quick(), run.points())));
        all.add(command("pupa-real-latency", Paper.PUPA, "Table 1 / Figure 3 in real time: Pupa on native-shim 21140s"
                        + " beside kernel TCP on one veth pair", "sizes 4, 256, 1436 B; 200+50 round trips, 3 trials,"
                        + " spinning, unpinned", "8 sizes, 2000+300 round trips, 5 trials, blocking and spinning, unpinned"
                        + " and pinned", 30, List.of(Need.NET, Need.SHIM),
                new String[] {"pupa", "real-latency", "--quick", "--count", "200", "--warmup", "50", "--trials", "3",
                    "--waits", "spin", "--pinning", "unpinned"},
                new String[] {"pupa", "real-latency"}));
        all.add(command("pupa-real-bandwidth", Paper.PUPA, "Figure 4 in real time: Pupa's two ACK modes beside kernel"
                        + " TCP on one veth pair", "sizes 64, 1024, 4096 B; 2000 messages, 3 trials per setting",
                "8 sizes, 100000 messages (the paper's), 3 trials", 40, List.of(Need.NET, Need.SHIM, Need.ETHTOOL),
                new String[] {"pupa", "real-bandwidth", "--quick", "--count", "2000"},
                new String[] {"pupa", "real-bandwidth"}));
        // -------------------------------------------------------------------------------------- careful protocols
        int[] rings = CarefulExperiments.NODES;
        all.add(new Experiment("careful-latency", Paper.CAREFUL, "Table 1 / Figure 1: latency around the ring, both"
                + " C* protocols", "nic careful latency", "P = 2, 4, 8; 1 / 1000 / 2000 words; 1+3 rounds",
                "the same with 2+10 rounds", 4, List.of(),
                List.of(Figure.shape("table1", "TR 94-14 Table 1: latency per hop, no processing", "payload (words)",
                                "time per hop (us)", "us", false, HOST_NOT_MODELLED),
                        Figure.shape("table1-processing", "TR 94-14 Table 1: latency per hop, with processing",
                                "payload (words)", "time per hop (us)", "us", false, HOST_NOT_MODELLED)),
                run -> CarefulExperiments.latency(run.out(), new CarefulExperiments.Settings(run.costs(), rings,
                        run.seed(), run.quick()), run.points())));
        all.add(new Experiment("careful-throughput", Paper.CAREFUL, "Table 2 / Figure 2: throughput through the ring",
                "nic careful throughput", "P = 2, 4, 8; 1 / 200 / 1000 / 2000 words; 40 messages",
                "the same with 400 messages", 6, List.of(),
                List.of(Figure.shape("table2", "TR 94-14 Table 2: ring throughput, no processing", "payload (words)",
                                "throughput (Mb/s)", "Mb/s", false, HOST_NOT_MODELLED),
                        Figure.shape("table2-processing", "TR 94-14 Table 2: ring throughput, with processing",
                                "payload (words)", "throughput (Mb/s)", "Mb/s", false, HOST_NOT_MODELLED)),
                run -> CarefulExperiments.throughput(run.out(), new CarefulExperiments.Settings(run.costs(), rings,
                        run.seed(), run.quick()), run.points())));
        int[] floodQuick = {2, 4}; // P = 8 alone takes a minute here; P = 4 already shows the livelock
        String floodBasis = "the paper's per-event times include its hosts' software, which the zero cost table"
                + " does not charge; a livelocked run has no time";
        all.add(new Experiment("careful-flooding", Paper.CAREFUL, "Table 3: flooding, livelock vs completion",
                "nic careful flooding", "P = 2, 4; 20 events per node", "P = 2, 4, 8; 40 events per node", 30,
                List.of(), List.of(Figure.shape("table3", "TR 94-14 Table 3: flooding, time per event, no processing",
                                "payload (words)", "time per event (ms)", "ms", false, floodBasis),
                        Figure.shape("table3-processing", "TR 94-14 Table 3: flooding, time per event, with"
                                + " processing", "payload (words)", "time per event (ms)", "ms", false, floodBasis)),
                run -> CarefulExperiments.flooding(run.out(), new CarefulExperiments.Settings(run.costs(),
                        run.quick() ? floodQuick : rings, run.seed(), run.quick()), run.points())));
        all.add(new Experiment("careful-jacobi", Paper.CAREFUL, "Table 4: 2-D Jacobi iteration", "nic careful jacobi",
                "grids 8..64, P = 1, 2, 4, 8; 5 iterations", "20 iterations", 4, List.of(),
                List.of(Figure.shape("table4", "TR 94-14 Table 4: Jacobi iteration time", "grid side (points)",
                        "time (s)", "s", true, HOST_NOT_MODELLED + " (the grid's arithmetic included), and the paper"
                                + " does not say how many iterations it ran").withLogY()),
                run -> CarefulExperiments.jacobi(run.out(), new CarefulExperiments.Settings(run.costs(), rings,
                        run.seed(), run.quick()), run.points())));
        all.add(new Experiment("medusa-latency", Paper.CAREFUL, "the Medusa card model: ring latency vs payload",
                "nic medusa latency", "P = 2, 4, 8; 7 payloads 1..2000 words; 1+3 rounds", "2+10 rounds", 3,
                List.of(), List.of(Figure.shape("table1", "TR 94-14 Table 1 beside the bare card: latency per hop",
                        "payload (words)", "time per hop (us)", "us", false, "the paper's careful protocol without"
                                + " processing includes its hosts' software; this run passes raw frames on with no"
                                + " host time")),
                run -> MedusaRingExperiments.latency(run.out(), MedusaRingExperiments.NODES,
                        MedusaRingExperiments.LATENCY_WORDS, run.quick() ? 1 : 2, run.quick() ? 3 : 10, run.seed(), 0,
                        null, run.points())));
        all.add(new Experiment("medusa-throughput", Paper.CAREFUL, "the Medusa card model: ring throughput",
                "nic medusa throughput", "P = 2, 4, 8; 4 payloads; 100 messages", "400 messages", 4, List.of(),
                List.of(Figure.shape("table2", "TR 94-14 Table 2 beside the bare card: ring throughput",
                        "payload (words)", "throughput (Mb/s)", "Mb/s", false, "the paper's careful protocol without"
                                + " processing includes its hosts' software; this run passes raw frames on with no"
                                + " host time")),
                run -> MedusaRingExperiments.throughput(run.out(), MedusaRingExperiments.NODES,
                        MedusaRingExperiments.THROUGHPUT_WORDS, run.quick() ? 100 : 400, run.seed(), null,
                        run.points())));
        Experiment appendixA = command("careful-appendix-a", Paper.CAREFUL, "Appendix A: per-operation costs of"
                        + " both protocols (JMH)", "JMH, forked JVM, 1 warm-up + 3 iterations of 200 ms per operation",
                "3 warm-up + 5 iterations of 1 s", 30, List.of(Need.JVM_FORK, Need.JMH_LOCK),
                new String[] {"calibrate", "--operations-only", "--suite", "appendix-a", "--quick", "--out",
                    "@dir/" + CostTable.MEASURED_RESOURCE},
                new String[] {"calibrate", "--operations-only", "--suite", "appendix-a", "--out",
                    "@dir/" + CostTable.MEASURED_RESOURCE});
        // --operations-only adds the operations to a table: a copy of the built-in one, never the committed file
        String appendixABasis = "the paper's cycles are a 50 MHz PA-RISC's in 1994 (20 ns each), ours this CPU's, so"
                + " only their order is compared";
        all.add(new Experiment(appendixA.id(), appendixA.paper(), appendixA.title(), appendixA.command(),
                appendixA.quickSizes(), appendixA.fullSizes(), appendixA.estimateSeconds(), appendixA.needs(),
                List.of(Figure.shape("appendix-a", "TR 94-14 Appendix A: each extra operation, in the paper's order",
                                "operation (place in the paper's list)", "time per call (ns)", "ns", false,
                                appendixABasis + ": between neighbouring operations of the list, ours must rise and"
                                        + " fall as the paper's").withLogY(),
                        Figure.shape("appendix-a-totals", "TR 94-14 Appendix A: extra work per protocol (1:"
                                        + " traditional, 2: careful)", "protocol", "time per round (ns)", "ns", false,
                                appendixABasis + ": the careful protocol's extra work must be the smaller")
                                .withLogY()),
                run -> {
                    try (InputStream in = CostTable.class.getResourceAsStream(CostTable.MEASURED_RESOURCE)) {
                        if (in == null) {
                            throw new IllegalStateException("no built-in " + CostTable.MEASURED_RESOURCE);
                        }
                        Files.copy(in, run.dir().resolve(CostTable.MEASURED_RESOURCE),
                                StandardCopyOption.REPLACE_EXISTING);
                    }
                    int code = appendixA.body().run(run);
                    AppendixARows.print(run.out(), CostTable.load(run.dir().resolve(CostTable.MEASURED_RESOURCE)),
                            run.points());
                    return code;
                }));
        // ------------------------------------------------------------------------------------------------- NIFDY
        all.add(command("nifdy-heavy", Paper.NIFDY, "heavy phased traffic on an 8x8 mesh", "20000 cycles",
                "200000 cycles", 4, List.of(),
                new String[] {"fabric", "run", "-c", "configs/fabric/mesh8x8.cfg", "workload=nifdy_heavy",
                    "cycles=20000", "@seed"},
                new String[] {"fabric", "run", "-c", "configs/fabric/mesh8x8.cfg", "workload=nifdy_heavy",
                    "cycles=200000", "@seed"})
                .withoutPaperFigure("Figure 2 (packets delivered in 10^6 cycles, heavy traffic) is a bar chart whose"
                        + " values the text does not give, and it compares no NIFDY, buffering only and NIFDY; the"
                        + " NIFDY unit is not built yet, so this runs the first bar's network only"));
        all.add(command("nifdy-light", Paper.NIFDY, "light phased traffic (33 % senders, long messages)",
                "20000 cycles", "200000 cycles", 4, List.of(),
                new String[] {"fabric", "run", "-c", "configs/fabric/mesh8x8.cfg", "workload=nifdy_light",
                    "cycles=20000", "@seed"},
                new String[] {"fabric", "run", "-c", "configs/fabric/mesh8x8.cfg", "workload=nifdy_light",
                    "cycles=200000", "@seed"})
                .withoutPaperFigure("Figure 3 (light traffic) is, like Figure 2, a bar chart without values in the"
                        + " text, comparing with and without the NIFDY unit, which is not built yet"));
        all.add(command("fabric-sweep", Paper.NIFDY, "latency vs offered load, 8x8 mesh with BookSim's router",
                "3 loads 0.1 / 0.3 / 0.5, no saturation search", "0.05..1.0 by 0.05 and the saturation search", 15,
                List.of(),
                new String[] {"fabric", "sweep", "-c", "configs/fabric/mesh8x8-booksim.cfg", "sweep_loads={0.1,0.3,0.5}",
                    "--no-saturation", "--plot", "@dir/mesh8x8-booksim", "@seed"},
                new String[] {"fabric", "sweep", "-c", "configs/fabric/mesh8x8-booksim.cfg", "--plot",
                    "@dir/mesh8x8-booksim", "@seed"})
                .withoutPaperFigure("the NIFDY paper has no latency-vs-load curve, and its Table 3 leaves the 8x8"
                        + " mesh's latency formula blank; the sweep follows BookSim's measurement method"
                        + " (docs/interconnect-facts.md) as the fabric's own calibration"));
        // --------------------------------------------------------------------------------- idempotent messaging
        all.add(new Experiment("idempotent-add", Paper.IDEMPOTENT, "Table 2a, buffered column: the 'add'"
                + " micro-benchmark on 4096 nodes, three topologies", "nic fabric run topology=mesh k=64 n=2"
                + " workload=trace trace_program=add (and k=16 n=3; topology=fattree k=4 n=6)",
                "the paper's size: 4096 elements on each of the 2-D grid, 3-D grid and fat tree", "the same", 12,
                List.of(), List.of(Figure.shape("table2a-buffered", "Idempotent messaging Table 2a: 'add' with"
                        + " buffered wormhole routing (1: 2-D grid, 2: 3-D grid, 3: fat tree)", "topology",
                        "execution time (cycles)", "cycles", false, "the trace is our own coding of the paper's"
                                + " program (section 3's library) and our router's buffers and pipeline are not"
                                + " the paper's simulator's, so only the order across topologies is compared")),
                run -> IdempotentAddTable.run(run.out(), run.seed(), run.points())));
        // ------------------------------------------------------------------------------------ the project's own
        for (String protocol : new String[] {"gbn", "pupa", "traditional", "careful", "am", "tcp"}) {
            all.add(command("simtest-" + protocol, Paper.PROJECT, "deterministic simulation testing of the " + protocol
                    + " core", "100 seeded fault schedules", "1000 schedules", 4, List.of(),
                    new String[] {"simtest", "--protocol", protocol, "--seeds", "100", "--first-seed", "@seed"},
                    new String[] {"simtest", "--protocol", protocol, "--seeds", "1000", "--first-seed", "@seed"}));
        }
        return all;
    }

    /**
     * An experiment that exists only as a {@code nic} command line, run in this JVM through the same command line
     * parser as {@code ./nic}. In its arguments {@code @seed} becomes {@code seed=N} (fabric) or N (after
     * {@code --first-seed}), and a leading {@code @dir} the run's own directory.
     */
    /** Why the real-time U-Net experiments set no row beside the paper's. */
    static final String UNET_REAL_WHY = "the paper's Figures 7-9 give no values in its text, and Table 3's are"
            + " SPARCstation 20s on 140 Mb/s ATM, not a veth pair between two namespaces of one host";

    static Experiment command(String id, Paper paper, String title, String quickSizes, String fullSizes,
                              double estimateSeconds, List<Need> needs, String[] quick, String[] full) {
        String shown = "nic " + String.join(" ", full).replace("@dir/", "").replace(" --first-seed @seed", "")
                .replace(" --seed @seed", "").replace(" @seed", "");
        return new Experiment(id, paper, title, shown, quickSizes, fullSizes, estimateSeconds, needs, List.of(), run -> {
            String[] args = (run.quick() ? quick : full).clone();
            for (int i = 0; i < args.length; i++) {
                if (args[i].equals("@seed")) {
                    boolean option = i > 0 && (args[i - 1].equals("--first-seed") || args[i - 1].equals("--seed"));
                    args[i] = option ? Long.toString(Math.max(1, run.seed()))
                            : "seed=" + run.seed();
                } else if (args[i].startsWith("@dir/")) {
                    args[i] = run.dir().resolve(args[i].substring("@dir/".length())).toString();
                }
            }
            var cl = NicCommand.commandLine();
            cl.setOut(new PrintWriter(run.out(), true));
            cl.setErr(new PrintWriter(run.out(), true));
            run.out().println("$ nic " + String.join(" ", args));
            int code = cl.execute(args);
            // INCOMPLETE: part of it could not run (the command printed why) - an experiment that did not run whole
            if (code == ExitCodes.USAGE || code == ExitCodes.RUN_ERROR || code == ExitCodes.INCOMPLETE) {
                throw new IllegalStateException("nic " + String.join(" ", args) + " exited with " + code
                        + " (see its log)");
            }
            return code;
        });
    }

    /**
     * The host cost table of the UDP experiments: the run's, or the measured one when the run's is the zero table
     * (as {@code nic unet udp-*} and the UAM commands default to): UDP over U-Net differs from raw U-Net only by host
     * work, which the zero table does not charge. The report prints the table used.
     */
    static CostTable hostModel(Run run) {
        return run.costs().name().equals("zero") ? CostTable.named("measured") : run.costs();
    }

    /** U-Net section 7.6: UDP over a U-Net channel, Table 3's UDP round trip and the round trip vs size. */
    private static Experiment udpLatency() {
        int[] quick = {4, 64, 1024, 4096};
        return new Experiment("unet-udp-latency", Paper.UNET, "Table 3 (UDP row) / Figure 9: UDP over U-Net round"
                + " trip beside raw U-Net", "nic unet udp-latency", "4 sizes 4..4096 B, 2+10 virtual round trips, measured host costs unless --costs names a table",
                "8 sizes 4..8192 B, 2+10 virtual round trips", 10, List.of(),
                List.of(Figure.shape("table3-udp-rtt", "U-Net Table 3: round-trip latency, UDP and raw AAL5",
                                "message size (bytes)", "round-trip latency (us)", "us", false,
                                UdpReport.WHY_NOT_LIKE_FOR_LIKE),
                        Figure.shape("fig9-udp", "U-Net Figure 9: UDP round trip vs message size (U-Net UDP)",
                                "message size (bytes)", "round-trip time (us)", "us", true, "the paper's curve is a"
                                        + " plot without figures in the text; ours is shown alone")),
                run -> UdpReport.latency(run.out(), run.quick() ? quick : UdpReport.RTT_SIZES, 2, 10,
                        Sba200Timing.I960_25MHZ, hostModel(run), run.points()));
    }

    /** U-Net section 7.6: UDP bandwidth vs datagram size (Figure 7) and Table 3's 4 KB bandwidth. */
    private static Experiment udpBandwidth() {
        int[] quick = {128, 512, 1024, 2048, 4096, 8192};
        return new Experiment("unet-udp-bandwidth", Paper.UNET, "Figure 7 / Table 3 (UDP row): UDP over U-Net"
                + " bandwidth vs datagram size", "nic unet udp-bandwidth", "6 sizes 128..8192 B, 64 KB each, measured host costs unless --costs names a table",
                "13 sizes 64..9188 B, 256 KB each", 10, List.of(),
                List.of(Figure.shape("fig7", "U-Net Figure 7: UDP bandwidth vs message size", "message size (bytes)",
                                "bandwidth (Mbit/s)", "Mbit/s", true, "the paper's Figure 7 gives no figures in the"
                                        + " text; ours is set against the AAL5 limit of each datagram's PDU, whose"
                                        + " sawtooth it should follow"),
                        Figure.anchor("table3-udp-bw", "U-Net Table 3: UDP bandwidth with 4 KB packets",
                                "message size (bytes)", "bandwidth (Mbit/s)", "Mbit/s", false, 0.15,
                                "Table 3: UDP 120 Mbit/s with 4 KB packets; the 140 Mbit/s fibre is the limit at 4 KB")),
                run -> UdpReport.bandwidth(run.out(), run.quick() ? quick : UdpReport.BANDWIDTH_SIZES,
                        run.quick() ? 65_536 : 262_144, Sba200Timing.I960_25MHZ, hostModel(run), run.points()));
    }

    /** U-Net Table 3 complete: every row from its layer's own run (raw, UAM, UDP, TCP, Split-C). */
    private static Experiment table3() {
        return new Experiment("unet-table3", Paper.UNET, "Table 3 complete: raw AAL5, Active Messages, UDP, TCP and"
                + " Split-C store, round trip and 4 KB bandwidth", "nic unet table3",
                "2+10 virtual round trips and 32 packets of 4 KB per row, measured host costs unless --costs names a"
                        + " table; then the same in real time on one thread (16 packets)", "2+10 virtual round trips"
                        + " and 64 packets of 4 KB per row; then the same in real time on one thread (16 packets)", 30,
                List.of(),
                List.of(Figure.shape("table3-rtt", "U-Net Table 3: round-trip latency per protocol",
                                "message size (bytes)", "round-trip latency (us)", "us", false,
                                Table3Report.WHY_RTT_NOT_LIKE_FOR_LIKE),
                        Figure.anchor("table3-bw", "U-Net Table 3: bandwidth with 4 KB packets per protocol",
                                "message size (bytes)", "bandwidth (Mbit/s)", "Mbit/s", false, 0.15,
                                "Table 3: 120 / 118 / 120 / 115 / 118 Mbit/s with 4 KB packets; the 140 Mbit/s fibre"
                                        + " is the limit at 4 KB")),
                run -> Table3Report.table3(run.out(), 2, 10, run.quick() ? 32 : 64, Sba200Timing.I960_25MHZ,
                        hostModel(run), run.points()));
    }

    /** U-Net section 7.7 / Figure 8: TCP bandwidth vs window and write size; an 8 KB window is enough. */
    private static Experiment tcpWindow() {
        int[] quickWindows = {2048, 4096, 8192, 16384, 65536};
        int[] quickWrites = {1024, 2048, 4096, 8192};
        return new Experiment("unet-tcp-window", Paper.UNET, "Figure 8: TCP over U-Net bandwidth vs window and"
                + " application write size", "nic unet tcp-window", "5 windows 2..64 KB x 4 write sizes 1..8 KB, 256"
                        + " KB each, measured host costs unless --costs names a table",
                "6 windows 2..64 KB x 5 write sizes 512 B..8 KB, 512 KB each", 5, List.of(),
                List.of(Figure.anchor("fig8", "U-Net Figure 8: TCP bandwidth vs application write size, per window",
                        "write size (bytes)", "bandwidth (MB/s)", "MB/s", true, 0.15, "sec. 7.7: U-Net TCP achieves"
                                + " 14-15 MB/s with an 8 KB window in most cases (the 8 KB curve's points; the"
                                + " others have no figure in the text)")),
                run -> TcpWindowReport.window(run.out(), run.quick() ? quickWindows : TcpWindowReport.WINDOWS,
                        run.quick() ? quickWrites : TcpWindowReport.WRITE_SIZES, run.quick() ? 262_144 : 524_288,
                        Sba200Timing.I960_25MHZ, hostModel(run), run.points()));
    }
}
