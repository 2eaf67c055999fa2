package io.nicbridge.bench.cli;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.protocols.ip.kernel.KernelLink;
import io.nicbridge.protocols.ip.kernel.TcpKernelInterop;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code nic tcp}: our user-level TCP against the Linux kernel's. */
@Command(name = "tcp", mixinStandardHelpOptions = true,
        description = "Our user-level TCP (IPv4 on the native shim's 21140) with the Linux kernel as the peer.",
        subcommands = {TcpCommands.Interop.class})
final class TcpCommands extends GroupCommand {

    /** {@code nic tcp interop}: {@link TcpKernelInterop} on a {@link KernelLink}, with the shim's faults. */
    @Command(name = "interop", mixinStandardHelpOptions = true,
            description = "curl downloads --size bytes from an HTTP server on our TCP, and our TCP client fetches"
                + " --size bytes from the kernel's python3 -m http.server, across a veth pair with the native shim"
                + " injecting faults (--drop, --dup, --reorder, --corrupt) in both directions; both bodies are"
                + " checked by SHA-256 and a tshark capture of the kernel's end must show no malformed packet, no"
                + " bad checksum from us beyond the corrupted frames, and no TCP analysis flag but flow control and"
                + " what the injected faults (counted by the shim) explain. Prints times and throughput. Needs root,"
                + " curl, python3, ethtool and tshark.",
            exitCodeListHeading = "%nExit codes:%n", exitCodeList = {
                "0:every check passed", "1:a check failed (a body differs, an unexplained flag, a bad checksum)",
                "2:bad input or a missing prerequisite; nothing was measured",
                "4:the run broke (a transfer timed out, a tool failed)"})
    static final class Interop implements Callable<Integer> {
        @Option(names = "--size", defaultValue = "10M", paramLabel = "BYTES",
                description = "Bytes each way: a number with an optional K, M or G (powers of ten)"
                    + " (default: ${DEFAULT-VALUE}).")
        String size;

        @Option(names = "--drop", defaultValue = "0", description = "Probability the shim drops a frame"
            + " (default: ${DEFAULT-VALUE}).")
        double drop;

        @Option(names = "--dup", defaultValue = "0", description = "Probability the shim duplicates a frame"
            + " (default: ${DEFAULT-VALUE}).")
        double dup;

        @Option(names = "--reorder", defaultValue = "0", description = "Probability the shim holds a frame back"
            + " behind the next (default: ${DEFAULT-VALUE}).")
        double reorder;

        @Option(names = "--corrupt", defaultValue = "0", description = "Probability the shim inverts one payload"
            + " byte of a frame (default: ${DEFAULT-VALUE}).")
        double corrupt;

        @Option(names = "--seed", defaultValue = "7", description = "The shim's fault seed (default: ${DEFAULT-VALUE}).")
        long seed;

        @Option(names = "--faults", defaultValue = "both", description = "Which directions the faults hit: both, rx"
            + " or tx (default: ${DEFAULT-VALUE}).")
        String directions;

        @Option(names = "--backend", defaultValue = KernelLink.DEFAULT_BACKEND, paramLabel = "SPEC",
                description = "The shim backend, shim:afpacket or shim:afxdp, with further parameters if wanted"
                    + " (not if, netns or card) (default: ${DEFAULT-VALUE}).")
        String backend;

        @Option(names = "--timeout", defaultValue = "600", description = "Seconds each transfer may take"
            + " (default: ${DEFAULT-VALUE}).")
        long timeoutSeconds;

        @Option(names = "--pcap", paramLabel = "FILE", description = "Keep the capture of the kernel's end there.")
        Path pcap;

        @Option(names = "--buffer", defaultValue = "131072", paramLabel = "BYTES", description = "Our TCP's send and"
            + " receive rings, a power of two from 1024 (the receive ring is the window; window scaling lets it pass"
            + " 64 KiB) (default: ${DEFAULT-VALUE}).")
        int buffer;

        @Option(names = "--window-scaling", negatable = true, defaultValue = "true", fallbackValue = "true",
                description = "Offer window scaling (RFC 7323) in our SYNs (default: on; --no-window-scaling).")
        boolean windowScaling;

        @Option(names = "--sack", negatable = true, defaultValue = "true", fallbackValue = "true",
                description = "Offer SACK (RFC 2018) in our SYNs (default: on; --no-sack).")
        boolean sack;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            long bytes;
            String backendSpec;
            io.nicbridge.protocols.ip.tcp.TcpConfig tcpConfig;
            try {
                bytes = parseSize(size);
                backendSpec = backend + (backend.contains("?") ? "&" : "?") + String.format(Locale.ROOT,
                    "drop=%s&dup=%s&reorder=%s&corrupt=%s&seed=%d&faults=%s", drop, dup, reorder, corrupt, seed,
                    directions);
                KernelLink.checkBackend(backendSpec);
                tcpConfig = TcpKernelInterop.config(buffer).withWindowScaling(windowScaling).withSack(sack);
                if (timeoutSeconds < 1) {
                    throw new IllegalArgumentException("--timeout must be at least 1 s, was " + timeoutSeconds);
                }
            } catch (IllegalArgumentException e) {
                out.println("nic tcp interop: " + e.getMessage());
                out.flush();
                return ExitCodes.USAGE;
            }
            String missing = KernelLink.missingPrerequisite(TcpKernelInterop.TOOLS);
            if (missing != null) {
                out.println("nic tcp interop: cannot run here: " + missing);
                out.flush();
                return ExitCodes.USAGE;
            }
            Path dir = Files.createTempDirectory("nic-tcp-interop-");
            try (KernelLink link = KernelLink.open(backendSpec)) {
                out.printf("nic tcp interop: %d B each way, our TCP on %s%n", bytes, link.cardSpec());
                out.flush();
                TcpKernelInterop.Result r = new TcpKernelInterop(link, out, TimeUnit.SECONDS.toNanos(timeoutSeconds),
                    tcpConfig).run(bytes, dir);
                print(out, r);
                if (pcap != null) {
                    Files.copy(dir.resolve("capture.pcap"), pcap, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    out.println("capture: " + pcap);
                }
                return r.passed() ? ExitCodes.OK : ExitCodes.CHECK_FAILED;
            } catch (IllegalArgumentException e) {
                out.println("nic tcp interop: " + e.getMessage());
                out.flush();
                return ExitCodes.USAGE;
            } finally {
                try (var files = Files.walk(dir)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }

        private static void print(PrintWriter out, TcpKernelInterop.Result r) {
            var s = r.shimFaults();
            out.printf("%nshim faults injected (both directions): %d dropped, %d duplicated, %d reordered, %d corrupted"
                + " (%d of %d frames moved)%n", s.faultDrops(), s.faultDuplicates(), s.faultReorders(),
                s.faultCorrupts(), s.faultsInjected(), s.txFrames() + s.rxFrames());
            out.println("our TCP: " + r.tcp());
            out.println("tshark, " + r.captureFrames() + " frames captured at the kernel's end; TCP analysis flags: "
                + (r.flagged().isEmpty() ? "none" : r.flagged()));
            out.println("TCP options tshark decoded: " + r.options());
            out.println();
            out.printf("%-36s %12s %9s %9s  %s%n", "transfer", "bytes", "seconds", "MB/s", "SHA-256");
            for (TcpKernelInterop.Transfer t : new TcpKernelInterop.Transfer[] {r.download(), r.fetch()}) {
                out.printf(Locale.ROOT, "%-36s %12d %9.2f %9.1f  %s%n", t.what(), t.bytes(), t.seconds(),
                    t.megabytesPerSecond(), t.intact() ? "matches" : "DIFFERS");
            }
            out.println();
            if (r.passed()) {
                out.println("verdict: PASS - both bodies intact, the capture clean but for what "
                    + s.faultsInjected() + " injected faults explain");
            } else {
                for (String f : r.failures()) {
                    out.println("FAILED: " + f);
                }
                out.println("verdict: FAIL (" + r.failures().size() + " check(s))");
            }
            out.flush();
        }

        /** {@code 100M} = 10^8 bytes; K, M and G are powers of ten, a plain number is bytes. */
        static long parseSize(String text) {
            String t = text.strip().toUpperCase(Locale.ROOT);
            long unit = 1;
            if (t.endsWith("K") || t.endsWith("M") || t.endsWith("G")) {
                unit = switch (t.charAt(t.length() - 1)) {
                    case 'K' -> 1_000L;
                    case 'M' -> 1_000_000L;
                    default -> 1_000_000_000L;
                };
                t = t.substring(0, t.length() - 1);
            }
            long n;
            try {
                n = Long.parseLong(t);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--size must be a number of bytes with an optional K, M or G, was '"
                    + text + "'");
            }
            if (n < 1 || n > Long.MAX_VALUE / unit || n * unit > 4_000_000_000L) {
                throw new IllegalArgumentException("--size must lie in 1 .. 4G, was '" + text + "'");
            }
            return n * unit;
        }
    }
}
