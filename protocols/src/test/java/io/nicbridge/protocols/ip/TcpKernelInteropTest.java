package io.nicbridge.protocols.ip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.protocols.ip.tcp.Ipv4SegmentSink;
import io.nicbridge.protocols.ip.tcp.SegmentSink;
import io.nicbridge.protocols.ip.tcp.Tcp;
import io.nicbridge.protocols.ip.tcp.TcpCloseReason;
import io.nicbridge.protocols.ip.tcp.TcpConfig;
import io.nicbridge.protocols.ip.tcp.TcpConnection;
import io.nicbridge.protocols.ip.tcp.TcpCounters.Counter;
import io.nicbridge.protocols.ip.tcp.TcpHandler;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Our TCP ({@link Tcp} on {@link Ipv4Stack} on the native shim's 21140, namespace A) with the Linux kernel as the
 * peer across a veth pair (namespace B): {@code curl} downloads a large body from a small HTTP/1.0 server written on
 * our TCP, and our TCP client fetches a large file from the kernel-side {@code python3 -m http.server}; both bodies
 * are checked by SHA-256. The same again with faults injected at our end (frames we send dropped or duplicated,
 * segments we receive dropped or processed twice, seeded). tshark captures B's end: no malformed packet, no bad
 * checksum from us, and, without faults, no TCP analysis flag but the window ones (flow control); with faults, the
 * flags are only the retransmissions, duplicates and gaps the faults explain.
 *
 * <p>Sizes: {@code -Dnicbridge.tcp.interop.bytes=N} (default 10 MB); {@link #hundredMegabytesEachWay} (run with
 * {@code -Dnicbridge.tcp.interop.slow=true}) moves 100 MB each way with faults. Skipped with the reason where the
 * shim, namespaces, python3, curl, ethtool or tshark are missing.
 */
class TcpKernelInteropTest {
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(300);
    private static final int HTTP_PORT = 8080;
    private static final int KERNEL_HTTP_PORT = 8000;

    private VethPair veth;
    private Card card;
    private TulipDriver driver;
    private Ipv4Stack stack;
    private Arena arena;
    private Tcp tcp;
    private FaultySink faults;
    private int kernelAddress;
    private String kernelNamespace;
    private Path dir;

    @BeforeEach
    void setUp() throws Exception {
        io.nicbridge.sim.backends.ShimTulipPair.assumeAvailable();
        for (String tool : new String[] {"python3", "curl", "ethtool"}) { // the kernel-side peer and its offloads
            Requirements.assume(Capability.NET, onPath(tool), () -> tool + " is not on PATH (the kernel-side peer)");
        }
        Requirements.assume(Capability.TSHARK, onPath("tshark"), () -> "tshark is not on PATH (the capture's check)");
        veth = VethPair.builder().mtu(1500).ipv4(true).create();
        kernelAddress = Ipv4Address.of(veth.addressB());
        kernelNamespace = veth.namespaceB().name();
        run("ip", "-n", veth.namespaceA().name(), "addr", "flush", "dev", veth.interfaceA());
        // B's kernel must finish its checksums (no CHECKSUM_PARTIAL) and send frames of at most the MTU (no TSO or
        // GSO super-frames): docs tcpip-gam-facts D1, D2, F. A's side keeps GRO off (the veth default).
        run("ip", "netns", "exec", kernelNamespace, "ethtool", "-K", veth.interfaceB(), "tx", "off", "tso", "off",
            "gso", "off");
        card = Backends.open("shim:afpacket?if=" + veth.interfaceA() + "&card=dec21140&netns="
            + veth.namespaceA().name() + "&mode=threaded");
        driver = TulipDriver.open(card, TulipConfig.defaults());
        assertTrue(driver.awaitFilterLoaded(TimeUnit.SECONDS.toNanos(10), null));
        stack = new Ipv4Stack(driver, driver.stationAddress().value(), Ipv4Address.of(veth.addressA()),
            VethPair.PREFIX_LENGTH, Ipv4Stack.ETHERNET_MTU);
        arena = Arena.ofShared();
        dir = Files.createTempDirectory("nicbridge-tcp-");
    }

    private void startTcp(double drop, double duplicate, long seed) {
        faults = new FaultySink(new Ipv4SegmentSink(stack), stack, drop, duplicate, seed);
        tcp = new Tcp(faults, stack.address(), TcpConfig.defaults().withTimeWait(TimeUnit.SECONDS.toNanos(1)), arena);
        stack.register(Ipv4Stack.PROTOCOL_TCP, faults.receiver(tcp));
    }

    @AfterEach
    void tearDown() throws IOException {
        if (driver != null) {
            driver.close();
        }
        if (card != null) {
            card.close();
        }
        if (veth != null) {
            veth.close();
        }
        if (arena != null) {
            arena.close();
        }
        if (dir != null) {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void curlAndHttpServerBothWaysIntactWithACleanCapture() throws Exception {
        startTcp(0, 0, 0);
        exchange(size(), false);
    }

    @Test
    void bothWaysIntactWithFramesDroppedAndDuplicated() throws Exception {
        startTcp(0.01, 0.01, 17);
        exchange(size(), true);
        assertTrue(faults.dropped > 0 && faults.duplicated > 0, faults.toString());
        assertTrue(tcp.counters().get(Counter.FAST_RETRANSMISSIONS) + tcp.counters().get(Counter.TIMEOUT_RETRANSMISSIONS)
            > 0, tcp.counters().toString());
    }

    @Test
    @EnabledIfSystemProperty(named = "nicbridge.tcp.interop.slow", matches = "true",
        disabledReason = "100 MB each way takes about a minute: run with -Dnicbridge.tcp.interop.slow=true")
    void hundredMegabytesEachWay() throws Exception {
        startTcp(0.005, 0.005, 100);
        exchange(100_000_000, true);
    }

    private static int size() {
        return Integer.getInteger("nicbridge.tcp.interop.bytes", 10_000_000);
    }

    private void exchange(int bytes, boolean faulty) throws Exception {
        Path pcap = dir.resolve("capture.pcap");
        KernelPeer capture = new KernelPeer(kernelNamespace, "tshark", "-q", "-B", "64", "-i", veth.interfaceB(),
            "-w", pcap.toString());
        try {
            pollUntil(() -> Files.exists(pcap) || !capture.alive(), "tshark to start capturing: " + capture.output());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            curlDownloadsFromOurServer(bytes);
            ourClientFetchesFromTheKernel(bytes);
            assertEquals(0, tcp.counters().malformed(), tcp.counters().toString());
            assertEquals(0, stack.counters().malformed(), stack.counters().toString());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
            capture.stop();
        } finally {
            capture.close();
        }
        // A loaded machine can make the capture itself drop frames (tshark says "N packets dropped"); tshark then
        // sees ACKs of segments it never saw, which is the capture's gap, not the connection's.
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+) packets? dropped")
            .matcher(capture.output());
        boolean captureDropped = m.find() && Long.parseLong(m.group(1)) > 0;
        checkCapture(pcap, faulty, captureDropped);
        System.out.println("TCP interop " + bytes + " B each way" + (faulty ? " with " + faults : "") + ": "
            + tcp.counters());
    }

    // ------------------------------------------------------------------------------------------- our HTTP server

    /** The body byte at {@code i}: a pattern that is not periodic in any small power of two. */
    private static byte body(long i) {
        return (byte) (i * 31 + (i >>> 8) * 7 + (i >>> 16));
    }

    /** An HTTP/1.0 server: reads the request head, answers {@code GET /N} with N pattern bytes, then closes. */
    private final class HttpServer implements TcpHandler {
        private final MemorySegment buffer = arena.allocate(16384);
        private final StringBuilder request = new StringBuilder();
        private final byte[] chunk = new byte[16384];
        private long length = -1;
        private long sent;
        private byte[] head;
        private int headSent;
        private boolean done;
        TcpCloseReason closed;

        @Override
        public void onReadable(TcpConnection c, long now) {
            int n;
            while ((n = c.read(buffer, 0, (int) buffer.byteSize(), now)) > 0) {
                request.append(new String(buffer.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE),
                    StandardCharsets.ISO_8859_1));
            }
            if (head == null && request.indexOf("\r\n\r\n") >= 0) {
                String path = request.substring(request.indexOf(" ") + 2, request.indexOf(" HTTP/"));
                length = Long.parseLong(path);
                head = ("HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: " + length
                    + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
                onWritable(c, now);
            }
        }

        @Override
        public void onWritable(TcpConnection c, long now) {
            if (head == null || done) {
                return;
            }
            while (headSent < head.length) {
                MemorySegment.copy(MemorySegment.ofArray(head), headSent, buffer, 0, head.length - headSent);
                int n = c.write(buffer, 0, head.length - headSent, now);
                if (n <= 0) {
                    return;
                }
                headSent += n;
            }
            while (sent < length) {
                int want = (int) Math.min(chunk.length, Math.min(length - sent, c.writable()));
                if (want <= 0) {
                    return;
                }
                for (int i = 0; i < want; i++) {
                    chunk[i] = body(sent + i);
                }
                MemorySegment.copy(MemorySegment.ofArray(chunk), 0, buffer, 0, want);
                int n = c.write(buffer, 0, want, now);
                sent += n;
                if (n < want) {
                    return;
                }
            }
            done = true;
            c.close(now); // the FIN follows the body
        }

        @Override
        public void onClosed(TcpConnection c, TcpCloseReason reason, long now) {
            closed = reason;
            c.release(now);
        }
    }

    private void curlDownloadsFromOurServer(int bytes) throws Exception {
        HttpServer server = new HttpServer();
        tcp.listen(HTTP_PORT, server);
        MessageDigest expected = MessageDigest.getInstance("SHA-256");
        byte[] block = new byte[65536];
        for (long i = 0; i < bytes; i += block.length) {
            int n = (int) Math.min(block.length, bytes - i);
            for (int j = 0; j < n; j++) {
                block[j] = body(i + j);
            }
            expected.update(block, 0, n);
        }
        String url = "http://" + Ipv4Address.toString(stack.address()) + ":" + HTTP_PORT + "/" + bytes;
        long start = System.nanoTime();
        try (KernelPeer curl = new KernelPeer(kernelNamespace, "sh", "-c",
                "curl -sS --fail --max-time 280 -o - " + url + " | sha256sum")) {
            pollUntil(() -> !curl.alive(), "curl " + url + ": " + curl.output());
            assertEquals(0, curl.exitCode(), curl.output());
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("curl downloaded %d B from our TCP in %.2f s (%.1f MB/s)%n", bytes, seconds,
                bytes / seconds / 1e6);
            assertEquals(HexFormat.of().formatHex(expected.digest()), curl.output().strip().split("\\s+")[0],
                "SHA-256 of what curl received");
        }
        pollUntil(() -> server.closed != null, "our server's connection to close");
        assertEquals(TcpCloseReason.ORDERLY, server.closed);
        tcp.unlisten(HTTP_PORT);
    }

    // ------------------------------------------------------------------------------------------- our HTTP client

    /** Reads a whole response into a digest of its body. */
    private final class HttpClient implements TcpHandler {
        private final MemorySegment buffer = arena.allocate(65536);
        private final byte[] bytes = new byte[65536];
        private final MessageDigest digest;
        private final StringBuilder head = new StringBuilder();
        private boolean inBody;
        long bodyBytes;
        boolean ended;
        TcpCloseReason closed;

        HttpClient() throws Exception {
            digest = MessageDigest.getInstance("SHA-256");
        }

        @Override
        public void onEstablished(TcpConnection c, long now) {
            byte[] get = "GET /file HTTP/1.0\r\nHost: kernel\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
            MemorySegment.copy(MemorySegment.ofArray(get), 0, buffer, 0, get.length);
            assertEquals(get.length, c.write(buffer, 0, get.length, now));
        }

        @Override
        public void onReadable(TcpConnection c, long now) {
            int n;
            while ((n = c.read(buffer, 0, (int) buffer.byteSize(), now)) > 0) {
                MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 0, bytes, 0, n);
                int from = 0;
                if (!inBody) {
                    head.append(new String(bytes, 0, n, StandardCharsets.ISO_8859_1));
                    int end = head.indexOf("\r\n\r\n");
                    if (end < 0) {
                        continue;
                    }
                    inBody = true;
                    from = n - (head.length() - end - 4);
                }
                digest.update(bytes, from, n - from);
                bodyBytes += n - from;
            }
            if (n < 0 && !ended) {
                ended = true;
                c.close(now);
            }
        }

        @Override
        public void onClosed(TcpConnection c, TcpCloseReason reason, long now) {
            closed = reason;
        }
    }

    private void ourClientFetchesFromTheKernel(int bytes) throws Exception {
        byte[] file = new byte[bytes];
        new SplittableRandom(bytes).nextBytes(file);
        Files.write(dir.resolve("file"), file);
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(file));
        file = null;
        try (KernelPeer server = new KernelPeer(kernelNamespace, "python3", "-u", "-m", "http.server",
                Integer.toString(KERNEL_HTTP_PORT), "--bind", Ipv4Address.toString(kernelAddress), "--directory",
                dir.toString())) {
            pollUntil(() -> server.output().contains("Serving HTTP") || !server.alive(),
                "python3 -m http.server to start: " + server.output());
            HttpClient client = new HttpClient();
            long start = System.nanoTime();
            TcpConnection c = tcp.connect(kernelAddress, KERNEL_HTTP_PORT, client, System.nanoTime());
            assertNotNull(c);
            pollUntil(() -> client.closed != null, "the response from the kernel's http.server: " + server.output());
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("our TCP fetched %d B from the kernel in %.2f s (%.1f MB/s)%n", client.bodyBytes, seconds,
                client.bodyBytes / seconds / 1e6);
            assertTrue(client.head.toString().startsWith("HTTP/1.0 200"), client.head.toString());
            assertEquals(TcpCloseReason.ORDERLY, client.closed);
            assertEquals(bytes, client.bodyBytes);
            assertEquals(expected, HexFormat.of().formatHex(client.digest.digest()), "SHA-256 of what we received");
            c.release(System.nanoTime());
        }
    }

    // ------------------------------------------------------------------------------------------- the capture

    private void checkCapture(Path pcap, boolean faulty, boolean captureDropped) throws Exception {
        String ours = "ip.src==" + Ipv4Address.toString(stack.address());
        // A retransmission that overlaps data the capture already holds is an expert "error" of tshark's stream
        // reassembly, an injected fault's consequence: those packets are judged by the analysis flags below.
        String retransmitted = "tcp.analysis.retransmission || tcp.analysis.fast_retransmission"
            + " || tcp.analysis.spurious_retransmission";
        assertEquals("", tshark(pcap, "(_ws.malformed || _ws.expert.severity == error)"
            + (faulty ? " && !(" + retransmitted + ")" : "")), "malformed or error packets");
        assertEquals("", tshark(pcap, ours + " && (ip.checksum.status == 0 || tcp.checksum.status == 0)"),
            "bad checksums on what our stack sent");
        assertTrue(tshark(pcap, ours + " && tcp.checksum.status == 1").lines().count() > 1000,
            "TCP checksums from our stack that tshark verified good");
        // Window-full/update and zero-window notes are flow control at work, not errors.
        String flow = "tcp.analysis.window_full || tcp.analysis.window_update || tcp.analysis.zero_window"
            + " || tcp.analysis.zero_window_probe || tcp.analysis.zero_window_probe_ack";
        if (captureDropped) {
            flow += " || tcp.analysis.ack_lost_segment || tcp.analysis.lost_segment";
        }
        String flagged = tshark(pcap, "tcp.analysis.flags && !(" + flow + ")");
        assertTrue(faulty || tshark(pcap, retransmitted).isEmpty(), "no retransmission without faults");
        if (!faulty) {
            assertEquals("", flagged.lines().limit(30).collect(java.util.stream.Collectors.joining("\n")),
                "TCP analysis flags in a run without faults");
        } else {
            // With frames dropped and duplicated at our end, tshark sees their consequences and nothing else.
            String explained = "tcp.analysis.retransmission || tcp.analysis.fast_retransmission"
                + " || tcp.analysis.spurious_retransmission || tcp.analysis.duplicate_ack"
                + " || tcp.analysis.lost_segment || tcp.analysis.ack_lost_segment || tcp.analysis.out_of_order";
            assertEquals("", tshark(pcap, "tcp.analysis.flags && !(" + flow + ") && !(" + explained + ")").lines()
                .limit(30).collect(java.util.stream.Collectors.joining("\n")),
                "TCP analysis flags the injected faults do not explain");
            System.out.println("tshark flagged " + flagged.lines().count() + " packets, all explained by the faults");
            assertTrue(!flagged.isEmpty(), "the faults show in the capture");
        }
    }

    private static String tshark(Path pcap, String filter) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("tshark", "-r", pcap.toString(), "-o", "ip.check_checksum:TRUE",
            "-o", "tcp.check_checksum:TRUE", "-Y", filter)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertEquals(0, p.waitFor(), "tshark -Y '" + filter + "': " + out);
        return out;
    }

    // ------------------------------------------------------------------------------------------- plumbing

    private void pollUntil(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + what + "; " + stack.counters() + " "
                    + (tcp == null ? "" : tcp.counters()));
            }
            long now = System.nanoTime();
            int frames = stack.poll(64, now);
            if (tcp != null) {
                tcp.poll(now);
            }
            if (frames == 0) {
                LockSupport.parkNanos(20_000);
            }
        }
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

    private static void run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
    }

    /**
     * Fault injection at our end, seeded: a segment we send is dropped (the claimed frame aborted) or goes out twice
     * (a second frame with the same bytes); a segment we receive is dropped or processed twice.
     */
    private static final class FaultySink implements SegmentSink {
        private final SegmentSink inner;
        private final Ipv4Stack ip;
        private final double drop;
        private final double duplicate;
        private final SplittableRandom random;
        long dropped;
        long duplicated;

        FaultySink(SegmentSink inner, Ipv4Stack ip, double drop, double duplicate, long seed) {
            this.inner = inner;
            this.ip = ip;
            this.drop = drop;
            this.duplicate = duplicate;
            this.random = new SplittableRandom(seed);
        }

        @Override
        public int claim(int destination, long nowNanos) {
            return inner.claim(destination, nowNanos);
        }

        @Override
        public MemorySegment buffer(int handle) {
            return inner.buffer(handle);
        }

        @Override
        public int offset() {
            return inner.offset();
        }

        @Override
        public int maxSegment() {
            return inner.maxSegment();
        }

        @Override
        public void send(int handle, int destination, int length) {
            double r = random.nextDouble();
            if (r < drop) {
                dropped++;
                ip.abort(handle);
                return;
            }
            if (r < drop + duplicate) {
                int second = ip.claim(destination, 0);
                if (second >= 0) {
                    MemorySegment.copy(inner.buffer(handle), offset(), inner.buffer(second), offset(), length);
                    inner.send(second, destination, length);
                    duplicated++;
                }
            }
            inner.send(handle, destination, length);
        }

        IpProtocol receiver(Tcp tcp) {
            return (frame, offset, length, source, destination, now) -> {
                double r = random.nextDouble();
                if (r < drop) {
                    dropped++;
                    return;
                }
                tcp.onSegment(frame, offset, length, source, destination, now);
                if (r < drop + duplicate) {
                    duplicated++;
                    tcp.onSegment(frame, offset, length, source, destination, now);
                }
            };
        }

        @Override
        public String toString() {
            return "faults{dropped=" + dropped + " duplicated=" + duplicated + "}";
        }
    }
}
