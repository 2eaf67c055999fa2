package io.nicbridge.bench.reproduce;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The state of one {@code nic reproduce} run at a moment: what it ran with, the experiments done so far and those
 * still to come. The report files are written from it after every experiment and at Ctrl-C, so a stopped run leaves
 * a valid partial report.
 *
 * @param meta     what the run ran with
 * @param results  the experiments done, in order
 * @param pending  the experiments not yet done (the one running included)
 * @param finished whether the run completed
 */
public record Report(Meta meta, List<Result> results, List<Experiment> pending, boolean finished) {
    public Report {
        results = List.copyOf(results);
        pending = List.copyOf(pending);
    }

    /**
     * @param command   the command line
     * @param mode      {@code quick} or {@code full}
     * @param seed      the seed every experiment got
     * @param commit    the git commit (with {@code -dirty} when the work tree had changes)
     * @param jdk       the JDK's vendor and version
     * @param machine   CPU, cores, OS, load average at the start
     * @param costTable the host cost table's own description
     * @param started   when the run started
     */
    public record Meta(String command, String mode, long seed, String commit, String jdk, String machine,
                       String costTable, Instant started) {
    }

    /** @return a number as the report prints it: up to 4 significant digits, no exponent for everyday values */
    static String number(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e9) {
            return Long.toString((long) v);
        }
        double a = Math.abs(v);
        String f = a >= 100 ? "%.1f" : a >= 10 ? "%.2f" : a >= 0.01 ? "%.3f" : "%.3g";
        return String.format(Locale.ROOT, f, v);
    }

    /** @return the git commit of {@code repo}, with {@code -dirty} for uncommitted changes, or {@code unknown} */
    static String gitCommit(Path repo) {
        String head = git(repo, "rev-parse", "HEAD");
        if (head == null) {
            return "unknown (not a git checkout)";
        }
        String status = git(repo, "status", "--porcelain", "--untracked-files=no");
        return head + (status != null && !status.isBlank() ? "-dirty" : "");
    }

    private static String git(Path repo, String... args) {
        try {
            String[] cmd = new String[args.length + 3];
            cmd[0] = "git";
            cmd[1] = "-C";
            cmd[2] = repo.toString();
            System.arraycopy(args, 0, cmd, 3, args.length);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** @return the JDK's vendor, version and VM */
    static String jdk() {
        return System.getProperty("java.vendor") + " " + Runtime.version() + " (" + System.getProperty("java.vm.name")
                + ")";
    }

    /** @return the CPU model, cores, OS and the load average now */
    static String machine() {
        String cpu = "unknown CPU";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).strip();
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the model stays unknown
        }
        return String.format(Locale.ROOT, "%s, %d cores, %s %s %s, load average %.1f at the start", cpu,
                Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"),
                System.getProperty("os.version"), System.getProperty("os.arch"),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
}
