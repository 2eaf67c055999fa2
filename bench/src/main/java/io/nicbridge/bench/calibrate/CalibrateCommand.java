package io.nicbridge.bench.calibrate;

import io.nicbridge.bench.jmh.AppendixABench;
import io.nicbridge.bench.jmh.JmhLock;
import io.nicbridge.bench.jmh.JmhRuns;
import io.nicbridge.bench.jmh.PupaBench;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.protocols.careful.CarefulAppendixA;
import io.nicbridge.protocols.pupa.PupaOperations;
import io.nicbridge.protocols.traditional.TraditionalAppendixA;
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
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.RunnerException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code nic calibrate}: measures every host cost item on this machine with JMH ({@link HostCostCalibrationBench})
 * and the protocol cores' Appendix A operations ({@link AppendixABench}), and writes the {@code measured} cost
 * table, stamped with the command, the machine (CPU model, CPU count, OS, JDK) and the date. Each item and operation
 * is derived by a fixed rule, written beside it in the table; nothing is adjusted by hand.
 *
 * <p>{@code --operations-only} measures only the operations and adds them to the table already at {@code --out},
 * whose items, machine and date stay as they were: for when the machine is too busy to re-measure the items (their
 * values would get worse) but the operations must be priced. The operations' own machine, date and load average
 * are then written into each operation's rule.
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

    @Option(names = "--operations-only", description = "Measure only the protocol operations (AppendixABench, PupaBench) and"
            + " add them to the table at --out, keeping its items, machine and date (for a busy machine).")
    boolean operationsOnly;

    @Option(names = "--suite", defaultValue = "all", paramLabel = "all|appendix-a|pupa", description = "With"
            + " --operations-only: which cores' operations to measure (default: ${DEFAULT-VALUE}); the others keep"
            + " their prices from the table at --out.")
    String suite;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws RunnerException {
        PrintStream o = System.out;
        if (!suite.equals("all") && !suite.equals("appendix-a") && !suite.equals("pupa")) {
            spec.commandLine().getErr().println("nic calibrate: --suite must be all, appendix-a or pupa, was '" + suite
                    + "'");
            return ExitCodes.USAGE;
        }
        if (!suite.equals("all") && !operationsOnly) {
            spec.commandLine().getErr().println("nic calibrate: --suite " + suite + " needs --operations-only (the"
                    + " items are measured with every operation)");
            return ExitCodes.USAGE;
        }
        boolean appendixA = !suite.equals("pupa");
        boolean pupaOps = !suite.equals("appendix-a");
        String command = "./nic calibrate" + (quick ? " --quick" : "") + (operationsOnly ? " --operations-only" : "")
                + (suite.equals("all") ? "" : " --suite " + suite)
                + (out.toString().equals(DEFAULT_OUT) ? "" : " --out " + out);
        String machine = machine();
        String load = loadAverage();
        String date = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        CostTable base = null;
        if (operationsOnly) {
            try {
                base = CostTable.load(out);
            } catch (IllegalArgumentException e) {
                spec.commandLine().getErr().println("nic calibrate --operations-only: " + e.getMessage());
                return ExitCodes.USAGE;
            }
        }
        o.println("calibrate: measuring " + (operationsOnly ? "the protocol operations" : "host cost items and"
                + " protocol operations") + " with JMH on " + machine + "; load average " + load);
        String include = (appendixA ? AppendixABench.class.getName() + "\\." : "")
                + (appendixA && pupaOps ? "|" : "") + (pupaOps ? PupaBench.class.getName() + "\\." : "")
                + (operationsOnly ? "" : "|" + HostCostCalibrationBench.class.getName() + "\\.");
        Map<String, Double> ns = new HashMap<>();
        Map<String, Double> pupa = new HashMap<>();
        Iterable<RunResult> results;
        try {
            results = JmhRuns.run(include, quick ? JmhRuns.QUICK : JmhRuns.REGULAR);
        } catch (JmhLock.Held e) {
            spec.commandLine().getErr().println("nic calibrate: " + e.getMessage() + "; nothing measured (run it again"
                    + " when that run has finished)");
            return ExitCodes.USAGE;
        }
        for (RunResult r : results) {
            String full = r.getParams().getBenchmark();
            String bench = full.substring(full.lastIndexOf('.') + 1);
            (full.startsWith(PupaBench.class.getName() + ".") ? pupa : ns).put(bench, r.getPrimaryResult().getScore());
        }
        Map<String, Long> opPicos = new TreeMap<>();
        Map<String, String> opRules = new TreeMap<>();
        String where = operationsOnly ? " (measured by '" + command + "' on " + machine + ", " + date
                + ", load average " + load + ")" : "";
        if (appendixA) {
            operations(ns, opPicos, opRules, where);
        }
        if (pupaOps) {
            pupaOperations(pupa, opPicos, opRules, where);
        }
        opPicos.forEach((op, ps) -> o.printf(Locale.ROOT, "  %-42s %10.2f ns/call%n", op, ps / 1e3));
        if (pupaOps) {
            o.println("  Pupa paths, per message (JMH PupaBench.path_*, less its baseline; not priced: the"
                    + " operations above are):");
            new TreeMap<>(pupa).forEach((bench, score) -> {
                if (bench.startsWith("path_")) {
                    o.printf(Locale.ROOT, "  %-42s %10.2f ns/message%n", bench, score - pupa.get("baseline"));
                }
            });
        }
        if (operationsOnly) {
            return write(base.withOperations(opPicos, opRules), command, o);
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
        CostTable table = CostTable.of("measured", command, machine, date, ps, rules)
                .withOperations(opPicos, opRules);
        return write(table, command, o);
    }

    private Integer write(CostTable table, String command, PrintStream o) {
        String made = operationsOnly
                ? "The items by '" + table.command() + "' (JMH, io.nicbridge.bench.calibrate.HostCostCalibrationBench)"
                        + " on the machine and date below; the op.* operations added by '" + command + "' (JMH,"
                        + " io.nicbridge.bench.jmh.AppendixABench and PupaBench), their machine, date and load in each"
                        + " rule."
                : "Generated by '" + command + "' (JMH, io.nicbridge.bench.calibrate.HostCostCalibrationBench and,"
                        + " for the op.* operations, io.nicbridge.bench.jmh.AppendixABench and PupaBench); regenerate"
                        + " with the same"
                        + " command.";
        String text = table.format("nicbridge host cost table: picoseconds per unit of host work, charged to each"
                + " simulated node's CPU in virtual time.\n" + made
                + "\nEvery item is measured and derived by the rule beside it; never edit by hand or tune to a"
                + " paper.");
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

    /**
     * Prices each Appendix A operation: its benchmark less {@code baseline} (the harness's own cost per call), at
     * least 0; {@code traditional.maintain-buffer-counter}, which the core charges without code of its own, at 0.
     */
    public static void operations(Map<String, Double> ns, Map<String, Long> ps, Map<String, String> rules, String where) {
        Double baseline = ns.get("baseline");
        if (baseline == null) {
            throw new IllegalStateException("JMH returned no AppendixABench.baseline; got " + ns.keySet());
        }
        for (Map.Entry<String, Double> e : ns.entrySet()) {
            String bench = e.getKey();
            if (!bench.startsWith("traditional_") && !bench.startsWith("careful_")) {
                continue;
            }
            String op = AppendixABench.operation(bench);
            ps.put(op, Math.max(0L, Math.round((e.getValue() - baseline) * 1_000)));
            rules.put(op, "AppendixABench." + bench + " - AppendixABench.baseline, at least 0: the core's own code"
                    + " for it, two-node latency test state, 4-byte fragment" + where);
        }
        ps.put("traditional.maintain-buffer-counter", 0L);
        rules.put("traditional.maintain-buffer-counter", "0: TraditionalCore has no code of its own for it (the"
                + " count of fragments held on board is EventInbox's, kept for both protocols)" + where);
        int expected = TraditionalAppendixA.MEASURED.length + 1
                + CarefulAppendixA.OPERATIONS.length;
        if (ps.size() != expected) {
            throw new IllegalStateException("JMH returned " + ps.size() + " operations, wanted " + expected + ": "
                    + ps.keySet());
        }
    }

    /**
     * Prices each Pupa operation: its {@link PupaBench} benchmark less {@code PupaBench.baseline}, at least 0; the ACK
     * and NACK benchmarks run the whole acknowledgement call, whose credit part the core charges as
     * {@code pupa.credit-process}, so theirs are less {@code op_credit_process} (less the baseline).
     */
    public static void pupaOperations(Map<String, Double> ns, Map<String, Long> ps, Map<String, String> rules,
                               String where) {
        Double baseline = ns.get("baseline");
        Double credit = ns.get("op_credit_process");
        if (baseline == null || credit == null) {
            throw new IllegalStateException("JMH returned no PupaBench.baseline or op_credit_process; got "
                    + ns.keySet());
        }
        int priced = 0;
        for (Map.Entry<String, Double> e : ns.entrySet()) {
            String op = PupaBench.operation(e.getKey());
            if (op == null) {
                continue;
            }
            boolean lessCredit = op.equals(PupaOperations.ACK_PROCESS) || op.equals(PupaOperations.NACK_PROCESS);
            double floor = lessCredit ? credit : baseline;
            ps.put(op, Math.max(0L, Math.round((e.getValue() - floor) * 1_000)));
            rules.put(op, "PupaBench." + e.getKey() + " - PupaBench." + (lessCredit ? "op_credit_process (the"
                    + " acknowledgement call's credit part, charged as pupa.credit-process)" : "baseline")
                    + ", at least 0: the core's own code for it, 4-byte messages between two cores on a loopback"
                    + " link" + where);
            priced++;
        }
        if (priced != PupaOperations.ALL.size() || !ps.keySet().containsAll(PupaOperations.ALL)) {
            throw new IllegalStateException("JMH priced " + priced + " Pupa operations, wanted "
                    + PupaOperations.ALL + ": " + ps.keySet());
        }
    }

    /** @return the 1, 5 and 15 minute load averages (from /proc/loadavg) */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
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
