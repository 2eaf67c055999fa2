package io.nicbridge.bench.calibrate;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code nic calibrate}: measures every host cost item on this machine with JMH ({@link HostCostCalibrationBench})
 * and writes the {@code measured} cost table, stamped with the command, the machine (CPU model, CPU count, OS, JDK)
 * and the date. Each item is derived by a fixed rule, written beside it in the table; nothing is adjusted by hand.
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true,
        description = "Measures the host cost items (handler dispatch, timer arm/cancel, table lookup, descriptor"
            + " post/reclaim, copy, checksum, PIO word, interrupt) with JMH on this machine and writes the measured"
            + " host cost table that virtual-time runs charge their nodes from.")
public final class CalibrateCommand implements Callable<Integer> {
    /** Where the committed table lives, relative to the repository root (where ./nic runs). */
    static final String DEFAULT_OUT = "bridge/src/main/resources/io/nicbridge/bridge/cost/" + CostTable.MEASURED_RESOURCE;

    @Option(names = "--out", defaultValue = DEFAULT_OUT, description = "The table file to write (default:"
            + " ${DEFAULT-VALUE}, the committed measured table).")
    Path out;

    @Option(names = "--quick", description = "Shorter JMH runs (1 warmup and 3 measurement iterations of 200 ms"
            + " instead of 3 and 5 of 1 s): a rougher table in about a minute.")
    boolean quick;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws RunnerException {
        PrintStream o = System.out;
        String command = "./nic calibrate" + (quick ? " --quick" : "")
                + (out.toString().equals(DEFAULT_OUT) ? "" : " --out " + out);
        String machine = machine();
        o.println("calibrate: measuring host cost items with JMH on " + machine);
        Options options = new OptionsBuilder()
                .include(HostCostCalibrationBench.class.getName() + "\\.")
                .forks(1)
                .warmupIterations(quick ? 1 : 3)
                .warmupTime(quick ? TimeValue.milliseconds(200) : TimeValue.seconds(1))
                .measurementIterations(quick ? 3 : 5)
                .measurementTime(quick ? TimeValue.milliseconds(200) : TimeValue.seconds(1))
                .verbosity(VerboseMode.SILENT)
                .build();
        Map<String, Double> ns = new HashMap<>();
        for (RunResult r : new Runner(options).run()) {
            String full = r.getParams().getBenchmark();
            ns.put(full.substring(full.lastIndexOf('.') + 1), r.getPrimaryResult().getScore());
        }
        for (String name : List.of("dispatch", "timerArm", "timerArmCancel", "tableLookup", "descriptorPost",
                "descriptorReclaim", "copySmall", "copyLarge", "checksumSmall", "checksumLarge", "pioSmall", "pioLarge",
                "interruptRoundTrip")) {
            if (!ns.containsKey(name)) {
                throw new IllegalStateException("JMH returned no result for " + name + "; got " + ns.keySet());
            }
            o.printf(Locale.ROOT, "  %-20s %12.2f ns/op%n", name, ns.get(name));
        }
        Map<CostItem, Long> ps = new EnumMap<>(CostItem.class);
        Map<CostItem, String> rules = new EnumMap<>(CostItem.class);
        perCall(ps, rules, CostItem.HANDLER_DISPATCH, ns.get("dispatch"), "HostCostCalibrationBench.dispatch: one"
                + " EventLoop pass (clock read, timer heap check, one handler called through its interface)");
        perCall(ps, rules, CostItem.TIMER_ARM, ns.get("timerArm"), "HostCostCalibrationBench.timerArm: re-arm one"
                + " EventLoop timer among 17");
        perCall(ps, rules, CostItem.TIMER_CANCEL, ns.get("timerArmCancel") - ns.get("timerArm"),
                "HostCostCalibrationBench.timerArmCancel - timerArm (arm then cancel, less an arm; at least 0)");
        perCall(ps, rules, CostItem.TABLE_LOOKUP, ns.get("tableLookup"), "HostCostCalibrationBench.tableLookup:"
                + " binary search of a 64-entry sorted address table");
        perCall(ps, rules, CostItem.DESCRIPTOR_POST, ns.get("descriptorPost"), "HostCostCalibrationBench"
                + ".descriptorPost: two words, then the ownership word with release, in a native 16-byte-descriptor"
                + " ring");
        perCall(ps, rules, CostItem.DESCRIPTOR_RECLAIM, ns.get("descriptorReclaim"), "HostCostCalibrationBench"
                + ".descriptorReclaim: the ownership word with acquire, then status, in the same ring");
        slope(ps, rules, CostItem.COPY, ns.get("copySmall"), ns.get("copyLarge"),
                HostCostCalibrationBench.LARGE - HostCostCalibrationBench.SMALL, "MemorySegment.copy native to native",
                "copyLarge - copySmall", "bytes");
        slope(ps, rules, CostItem.CHECKSUM, ns.get("checksumSmall"), ns.get("checksumLarge"),
                HostCostCalibrationBench.LARGE - HostCostCalibrationBench.SMALL, "CRC32C over a byte[]",
                "checksumLarge - checksumSmall", "bytes");
        slope(ps, rules, CostItem.PIO_WORD, ns.get("pioSmall"), ns.get("pioLarge"),
                HostCostCalibrationBench.WORDS_LARGE - HostCostCalibrationBench.WORDS_SMALL,
                "big-endian int stores one by one into a native card window (the emulated card's window is RAM, so"
                + " this is not the real Medusa bus)", "pioLarge - pioSmall", "words");
        perCall(ps, rules, CostItem.INTERRUPT, ns.get("interruptRoundTrip") / 2, "HostCostCalibrationBench"
                + ".interruptRoundTrip / 2: a thread wake-up (unpark of a parked thread, spin-then-park wait)");
        String date = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        CostTable table = CostTable.of("measured", command, machine, date, ps, rules);
        String text = table.format("nicbridge host cost table: picoseconds per unit of host work, charged to each"
                + " simulated node's CPU in virtual time.\nGenerated by '" + command + "' (JMH,"
                + " io.nicbridge.bench.calibrate.HostCostCalibrationBench); regenerate with the same command."
                + "\nEvery item is measured on the machine below and derived by the rule beside it; never edit by"
                + " hand or tune to a paper.");
        try {
            Path parent = out.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(out, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            spec.commandLine().getErr().println("nic calibrate: cannot write " + out + ": " + e.getMessage());
            return ExitCodes.USAGE;
        }
        o.println(CostTable.load(out).describe());
        o.println("written to " + out);
        return ExitCodes.OK;
    }

    private static void perCall(Map<CostItem, Long> ps, Map<CostItem, String> rules, CostItem item, double nanos,
                                String rule) {
        ps.put(item, Math.max(0L, Math.round(nanos * 1_000)));
        rules.put(item, rule);
    }

    private static void slope(Map<CostItem, Long> ps, Map<CostItem, String> rules, CostItem item, double small,
                              double large, int units, String what, String formula, String unitName) {
        ps.put(item, Math.max(0L, Math.round((large - small) * 1_000 / units)));
        rules.put(item, what + ": (" + formula + ") / " + units + " " + unitName + ", at least 0");
    }

    /** @return the CPU model and count (from /proc/cpuinfo), the OS and the JDK */
    static String machine() {
        String model = "unknown CPU";
        int cpus = Runtime.getRuntime().availableProcessors();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    model = line.substring(line.indexOf(':') + 1).trim().replaceAll("\\s+", " ");
                    break;
                }
            }
        } catch (IOException e) {
            model = "unknown CPU (/proc/cpuinfo unreadable)";
        }
        return model + " (" + cpus + " CPUs available), " + System.getProperty("os.name") + " "
                + System.getProperty("os.version") + ", " + System.getProperty("java.vm.name") + " "
                + Runtime.version();
    }
}
