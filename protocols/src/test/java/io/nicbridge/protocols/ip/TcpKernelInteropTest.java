package io.nicbridge.protocols.ip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.shim.ShimStatistics;
import io.nicbridge.protocols.ip.kernel.KernelLink;
import io.nicbridge.protocols.ip.kernel.TcpKernelInterop;
import io.nicbridge.protocols.ip.tcp.TcpCounters.Counter;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Our TCP with the Linux kernel as the peer across a veth pair ({@link KernelLink}, {@link TcpKernelInterop}): curl
 * downloads from our HTTP server and our client fetches from {@code python3 -m http.server}, both checked by SHA-256,
 * under a tshark capture - once on a clean link (no TCP analysis flag but flow control, no retransmission) and once
 * with the native shim dropping, duplicating, reordering and corrupting frames in both directions (every flag
 * explained by the faults, which the shim counted). {@code nic tcp interop} runs the same at 100 MB each way.
 *
 * <p>Size: {@code -Dnicbridge.tcp.interop.bytes=N} (default 4 MB). Skipped with the reason where the shim,
 * namespaces, python3, curl, ethtool or tshark are missing. A failed run keeps its working directory (the capture,
 * {@code capture.pcap}) and prints where it is; {@code -Dnicbridge.tcp.interop.keep=true} keeps it after a pass too.
 */
class TcpKernelInteropTest {
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(120);

    private Path dir;
    /** Set by a test's last line: only then is its capture deleted. */
    private boolean passed;

    @BeforeEach
    void setUp() throws Exception {
        io.nicbridge.sim.backends.ShimTulipPair.assumeAvailable();
        for (String tool : new String[] {"python3", "curl", "ethtool"}) { // the kernel-side peer and its offloads
            Requirements.assume(Capability.NET, onPath(tool), () -> tool + " is not on PATH (the kernel-side peer)");
        }
        Requirements.assume(Capability.TSHARK, onPath("tshark") && onPath("editcap"),
            () -> "tshark or editcap is not on PATH (the capture's check)");
        dir = Files.createTempDirectory("nicbridge-tcp-");
    }

    @AfterEach
    void tearDown() throws Exception {
        if (dir != null && (!passed || Boolean.getBoolean("nicbridge.tcp.interop.keep"))) {
            System.out.println("TCP interop: capture and files kept in " + dir + (passed ? "" : " (the test failed)"));
        } else if (dir != null) {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static long size() {
        return Long.getLong("nicbridge.tcp.interop.bytes", 4_000_000);
    }

    private TcpKernelInterop.Result exchange(String backend) throws Exception {
        try (KernelLink link = KernelLink.open(backend)) {
            TcpKernelInterop.Result r = new TcpKernelInterop(link, new PrintWriter(System.out, true), TIMEOUT_NANOS)
                .run(size(), dir);
            System.out.println("TCP interop " + size() + " B each way on " + link.cardSpec() + ": " + r.tcp()
                + "; tshark flagged " + r.flagged() + "; " + r.options() + "; " + r.shimFaults());
            return r;
        }
    }

    @Test
    void curlAndHttpServerBothWaysIntactWithACleanCapture() throws Exception {
        TcpKernelInterop.Result r = exchange("shim:afpacket");
        assertTrue(r.passed(), String.join("\n", r.failures()));
        assertTrue(r.download().intact() && r.fetch().intact());
        assertEquals(0, r.shimFaults().faultsInjected());
        int shift = TcpKernelInterop.config(TcpKernelInterop.DEFAULT_BUFFER).windowShift();
        assertTrue(r.options().startsWith("our SYNs: window scale " + shift + ", SACK-permitted; the kernel's: window"
                + " scale "),
            "both SYNs offer window scaling and SACK, as tshark decodes them: " + r.options());
        assertTrue(r.options().contains(", SACK-permitted; our segments"), r.options());
        assertEquals(0, r.tcp().get(Counter.TIMEOUT_RETRANSMISSIONS) + r.tcp().get(Counter.FAST_RETRANSMISSIONS),
            r.tcp().toString());
        passed = true;
    }

    @Test
    void bothWaysIntactWithTheShimDroppingDuplicatingReorderingAndCorrupting() throws Exception {
        TcpKernelInterop.Result r = exchange("shim:afpacket?drop=0.01&dup=0.01&reorder=0.005&corrupt=0.002&seed=17");
        assertTrue(r.passed(), String.join("\n", r.failures()));
        ShimStatistics s = r.shimFaults();
        assertTrue(s.faultDrops() > 0 && s.faultDuplicates() > 0 && s.faultReorders() > 0 && s.faultCorrupts() > 0,
            s.toString());
        assertTrue(r.tcp().get(Counter.FAST_RETRANSMISSIONS) + r.tcp().get(Counter.TIMEOUT_RETRANSMISSIONS) > 0,
            r.tcp().toString());
        assertTrue(r.flagged().containsKey("retransmission") || r.flagged().containsKey("fast_retransmission"),
            "the faults show in the capture: " + r.flagged());
        assertTrue(r.tcp().get(Counter.OUT_OF_ORDER_SEGMENTS) > 0 && !r.options().endsWith("SACK blocks: 0"),
            "out-of-order data held, and reported in SACK blocks tshark decodes: " + r.options());
        passed = true;
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }
}
