package io.nicbridge.protocols.ip.kernel;

import io.nicbridge.bridge.shim.ShimStatistics;
import io.nicbridge.protocols.ip.Ipv4Address;
import io.nicbridge.protocols.ip.Ipv4Stack;
import io.nicbridge.protocols.ip.tcp.Ipv4SegmentSink;
import io.nicbridge.protocols.ip.tcp.Tcp;
import io.nicbridge.protocols.ip.tcp.TcpCloseReason;
import io.nicbridge.protocols.ip.tcp.TcpConfig;
import io.nicbridge.protocols.ip.tcp.TcpConnection;
import io.nicbridge.protocols.ip.tcp.TcpCounters;
import io.nicbridge.protocols.ip.tcp.TcpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Our TCP ({@link Tcp} on the {@link KernelLink}'s stack) with the Linux kernel as the peer, both ways: {@code curl}
 * downloads {@code bytes} from a small HTTP/1.0 server written on our TCP, and our TCP client fetches a file of
 * {@code bytes} from the kernel-side {@code python3 -m http.server}; both bodies are checked by SHA-256. Faults, if
 * any, are the shim's own (the link's backend spec: {@code drop=}, {@code dup=}, ...), injected between our card and
 * the wire in both directions and counted by the shim. tshark captures the kernel's end throughout and the capture is
 * checked: no malformed packet, no bad checksum from our stack (beyond the frames the shim corrupted), and no TCP
 * analysis flag but flow control, our tail loss probes (at most as many as our TCP sent, each answered by at most one
 * duplicate ACK) and - with faults - the retransmissions, duplicate ACKs, gaps and reordering the faults explain.
 *
 * <p>{@link #run} returns the {@link Result} (times, throughput, what tshark flagged, the injected faults) with every
 * failed check in {@link Result#failures()}; it throws only when the run itself breaks (a tool missing, a timeout).
 */
public final class TcpKernelInterop {
    /** Our HTTP server's port. */
    public static final int HTTP_PORT = 8080;
    /** The kernel's http.server port. */
    public static final int KERNEL_HTTP_PORT = 8000;
    /** Our TCP's rings by default: 128 KiB each way (see {@link #config}). */
    public static final int DEFAULT_BUFFER = 1 << 17;
    /** What the link's prerequisites include for this experiment. */
    public static final String[] TOOLS = {"ethtool", "python3", "curl", "tshark", "editcap"};

    private final KernelLink link;
    private final Ipv4Stack stack;
    private final PrintWriter log;
    private final long timeoutNanos;
    private final TcpConfig config;

    /**
     * Our TCP's settings for rings of {@code buffer} bytes each way: 4 connections, a 1 s TIME-WAIT, window scaling
     * and SACK offered. The receive ring is the window: with window scaling it may exceed 64 KiB, but what the kernel
     * then sends in one burst must fit the card's receive ring (128 descriptors of 1540 bytes) while our thread is
     * away, or the frames are lost below TCP; 128 KiB (90 segments) does.
     */
    public static TcpConfig config(int buffer) {
        return TcpConfig.defaults().withBuffers(buffer, buffer).withConnections(4)
            .withTimeWait(TimeUnit.SECONDS.toNanos(1));
    }

    /** As {@link #TcpKernelInterop(KernelLink, PrintWriter, long, TcpConfig)} with {@link #DEFAULT_BUFFER} rings. */
    public TcpKernelInterop(KernelLink link, PrintWriter log, long timeoutNanos) {
        this(link, log, timeoutNanos, config(DEFAULT_BUFFER));
    }

    /**
     * @param link         the kernel link (its backend's faults, if any, are the faults of the run)
     * @param log          progress lines (what runs, each transfer's time)
     * @param timeoutNanos the longest each transfer may take
     * @param config       our TCP's settings
     */
    public TcpKernelInterop(KernelLink link, PrintWriter log, long timeoutNanos, TcpConfig config) {
        this.config = java.util.Objects.requireNonNull(config, "config");
        this.link = link;
        this.stack = link.stack();
        this.log = log;
        this.timeoutNanos = timeoutNanos;
    }

    /** One transfer: its size, time and whether the body arrived intact (SHA-256). */
    public record Transfer(String what, long bytes, double seconds, boolean intact) {
        public double megabytesPerSecond() {
            return bytes / seconds / 1e6;
        }

        @Override
        public String toString() {
            return String.format("%s: %d B in %.2f s (%.1f MB/s), SHA-256 %s", what, bytes, seconds,
                megabytesPerSecond(), intact ? "matches" : "DIFFERS");
        }
    }

    /**
     * What the run found.
     *
     * @param download      curl downloading from our server
     * @param fetch         our client fetching from the kernel's server
     * @param tcp           our TCP's counters
     * @param shimFaults    the shim's counters after the run (its fault_* counters: what was injected)
     * @param flagged       TCP analysis flags in the capture, by kind (expert info), flow control included
     * @param options       the TCP options tshark decoded: both sides' SYNs (window scale, SACK-permitted) and how
     *                      many of our segments carried SACK blocks
     * @param captureFrames frames in the capture
     * @param failures      every failed check, empty when the run passed
     */
    public record Result(Transfer download, Transfer fetch, TcpCounters tcp, ShimStatistics shimFaults,
                         Map<String, Long> flagged, String options, long captureFrames, List<String> failures) {
        public boolean passed() {
            return failures.isEmpty();
        }
    }

    /**
     * Runs both transfers of {@code bytes} under one capture and checks them.
     *
     * @param workDir where the capture and the kernel's file go (left there)
     */
    public Result run(long bytes, Path workDir) throws IOException, InterruptedException {
        if (bytes < 1) {
            throw new IllegalArgumentException("bytes must be at least 1, was " + bytes);
        }
        ShimStatistics before = link.shimStatistics();
        try (Arena arena = Arena.ofShared()) {
            Tcp tcp = new Tcp(new Ipv4SegmentSink(stack), stack.address(), config, arena);
            stack.register(Ipv4Stack.PROTOCOL_TCP, tcp::onSegment);
            Path pcap = workDir.resolve("capture.pcap");
            Files.deleteIfExists(pcap);
            Transfer download;
            Transfer fetch;
            KernelPeer capture = link.exec("tshark", "-q", "-B", "64", "-i", link.kernelInterface(), "-w",
                pcap.toString());
            try {
                link.pollUntil(() -> Files.exists(pcap) || !capture.alive(), "tshark to start capturing", timeoutNanos,
                    null);
                if (!capture.alive()) {
                    throw new IOException("tshark did not start: " + capture.output());
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
                download = curlDownloadsFromOurServer(tcp, arena, bytes);
                fetch = ourClientFetchesFromTheKernel(tcp, arena, bytes, workDir);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
                capture.stop();
            } finally {
                capture.close();
            }
            ShimStatistics after = link.shimStatistics();
            long injectedCorrupts = after.faultCorrupts() - before.faultCorrupts();
            boolean faulty = after.faultsInjected() - before.faultsInjected() > 0;
            List<String> failures = new ArrayList<>();
            if (!download.intact()) {
                failures.add("curl's body differs from what our server sent (SHA-256)");
            }
            if (!fetch.intact()) {
                failures.add("our client's body differs from the kernel's file (SHA-256)");
            }
            long malformed = tcp.counters().malformed() + stack.counters().malformed();
            if (malformed > injectedCorrupts) {
                failures.add("our stack counted " + malformed + " malformed segments but the shim corrupted only "
                    + injectedCorrupts + ": " + tcp.counters() + " " + stack.counters());
            }
            // A loaded machine can make the capture itself drop frames (tshark says "N packets dropped"); tshark then
            // sees ACKs of segments it never saw: the capture's gap, not the connection's.
            Matcher m = Pattern.compile("(\\d+) packets? dropped").matcher(capture.output());
            boolean captureDropped = m.find() && Long.parseLong(m.group(1)) > 0;
            Map<String, Long> flagged = new LinkedHashMap<>();
            long probes = tcp.counters().get(TcpCounters.Counter.TAIL_LOSS_PROBES);
            StringBuilder options = new StringBuilder();
            long frames = checkCapture(pcap, tcp, bytes, faulty, injectedCorrupts, probes, captureDropped, flagged,
                options, failures);
            return new Result(download, fetch, tcp.counters(), after, flagged, options.toString(), frames,
                List.copyOf(failures));
        }
    }

    // ------------------------------------------------------------------------------------------- our HTTP server

    /** The body byte at {@code i}: a pattern that is not periodic in any small power of two. */
    static byte body(long i) {
        return (byte) (i * 31 + (i >>> 8) * 7 + (i >>> 16));
    }

    /** An HTTP/1.0 server: reads the request head, answers {@code GET /N} with N pattern bytes, then closes. */
    private static final class HttpServer implements TcpHandler {
        private final MemorySegment buffer;
        private final StringBuilder request = new StringBuilder();
        private final byte[] chunk = new byte[16384];
        private long length = -1;
        private long sent;
        private byte[] head;
        private int headSent;
        private boolean done;
        TcpCloseReason closed;

        HttpServer(Arena arena) {
            buffer = arena.allocate(16384);
        }

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

    private Transfer curlDownloadsFromOurServer(Tcp tcp, Arena arena, long bytes) throws IOException,
            InterruptedException {
        HttpServer server = new HttpServer(arena);
        tcp.listen(HTTP_PORT, server);
        MessageDigest expected = sha256();
        byte[] block = new byte[65536];
        for (long i = 0; i < bytes; i += block.length) {
            int n = (int) Math.min(block.length, bytes - i);
            for (int j = 0; j < n; j++) {
                block[j] = body(i + j);
            }
            expected.update(block, 0, n);
        }
        String url = "http://" + Ipv4Address.toString(stack.address()) + ":" + HTTP_PORT + "/" + bytes;
        log.println("  curl " + url + " (in the kernel's namespace) ...");
        log.flush();
        long start = System.nanoTime();
        Transfer t;
        try (KernelPeer curl = link.exec("sh", "-c", "curl -sS --fail --max-time "
                + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos) + " -o - " + url + " | sha256sum")) {
            link.pollUntil(() -> !curl.alive(), "curl " + url, timeoutNanos, tcp::poll);
            double seconds = (System.nanoTime() - start) / 1e9;
            if (curl.exitCode() != 0) {
                throw new IOException("curl " + url + " failed: " + curl.output());
            }
            String got = curl.output().strip().split("\\s+")[0];
            t = new Transfer("curl downloaded from our TCP", bytes, seconds,
                HexFormat.of().formatHex(expected.digest()).equals(got));
        }
        log.println("  " + t);
        link.pollUntil(() -> server.closed != null, "our server's connection to close", timeoutNanos, tcp::poll);
        tcp.unlisten(HTTP_PORT);
        if (server.closed != TcpCloseReason.ORDERLY) {
            throw new IOException("our server's connection closed " + server.closed + ", not orderly");
        }
        return t;
    }

    // ------------------------------------------------------------------------------------------- our HTTP client

    /** Reads a whole response into a digest of its body. */
    private static final class HttpClient implements TcpHandler {
        private final MemorySegment buffer;
        private final byte[] bytes = new byte[65536];
        private final MessageDigest digest = sha256();
        private final StringBuilder head = new StringBuilder();
        private boolean inBody;
        private boolean requested;
        long bodyBytes;
        boolean ended;
        TcpCloseReason closed;

        HttpClient(Arena arena) {
            buffer = arena.allocate(65536);
        }

        @Override
        public void onEstablished(TcpConnection c, long now) {
            byte[] get = "GET /file HTTP/1.0\r\nHost: kernel\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
            MemorySegment.copy(MemorySegment.ofArray(get), 0, buffer, 0, get.length);
            requested = c.write(buffer, 0, get.length, now) == get.length;
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

    private Transfer ourClientFetchesFromTheKernel(Tcp tcp, Arena arena, long bytes, Path dir) throws IOException,
            InterruptedException {
        MessageDigest expected = sha256();
        Path file = dir.resolve("file");
        SplittableRandom random = new SplittableRandom(bytes);
        byte[] block = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long i = 0; i < bytes; i += block.length) {
                int n = (int) Math.min(block.length, bytes - i);
                random.nextBytes(block);
                expected.update(block, 0, n);
                out.write(block, 0, n);
            }
        }
        String want = HexFormat.of().formatHex(expected.digest());
        try (KernelPeer server = link.exec("python3", "-u", "-m", "http.server", Integer.toString(KERNEL_HTTP_PORT),
                "--bind", Ipv4Address.toString(link.kernelAddress()), "--directory", dir.toString())) {
            link.pollUntil(() -> server.output().contains("Serving HTTP") || !server.alive(),
                "python3 -m http.server to start", timeoutNanos, tcp::poll);
            if (!server.alive()) {
                throw new IOException("python3 -m http.server did not start: " + server.output());
            }
            log.println("  our TCP client: GET /file from the kernel's python3 -m http.server ...");
            log.flush();
            HttpClient client = new HttpClient(arena);
            long start = System.nanoTime();
            TcpConnection c = tcp.connect(link.kernelAddress(), KERNEL_HTTP_PORT, client, System.nanoTime());
            if (c == null) {
                throw new IOException("our TCP could not open a connection to the kernel");
            }
            link.pollUntil(() -> client.closed != null, "the response from the kernel's http.server", timeoutNanos,
                tcp::poll);
            double seconds = (System.nanoTime() - start) / 1e9;
            c.release(System.nanoTime());
            if (!client.requested || !client.head.toString().startsWith("HTTP/1.0 200")
                || client.closed != TcpCloseReason.ORDERLY) {
                throw new IOException("our client's fetch went wrong: request sent " + client.requested + ", head '"
                    + client.head.toString().strip() + "', closed " + client.closed);
            }
            Transfer t = new Transfer("our TCP fetched from the kernel", client.bodyBytes, seconds,
                client.bodyBytes == bytes && want.equals(HexFormat.of().formatHex(client.digest.digest())));
            log.println("  " + t);
            return t;
        } finally {
            Files.deleteIfExists(file);
        }
    }

    // ------------------------------------------------------------------------------------------- the capture

    /** TCP analysis flags that are flow control at work, not errors. */
    private static final List<String> FLOW = List.of("window_full", "window_update", "zero_window",
        "zero_window_probe", "zero_window_probe_ack");
    /** The flags dropped, duplicated, reordered or corrupted frames explain. */
    private static final List<String> EXPLAINED = List.of("retransmission", "fast_retransmission",
        "spurious_retransmission", "duplicate_ack", "lost_segment", "ack_lost_segment", "out_of_order");
    /** The rest tshark's TCP analysis can set: none may appear. */
    private static final List<String> OTHER = List.of("keep_alive", "keep_alive_ack", "reused_ports");
    /** How tshark sees a tail loss probe: a (spurious) retransmission. */
    private static final List<String> PROBE_FLAGS = List.of("retransmission", "spurious_retransmission");
    /** The fields before the analysis flags in each line of {@link #checkCapture}'s tshark output. */
    private static final int FIELDS = 16;
    /** tshark's PI_ERROR expert severity. */
    private static final String SEVERITY_ERROR = "8388608";

    /**
     * One tshark pass over the capture, one line of fields per frame: the source, malformed and expert severity,
     * both checksum statuses (0 bad, 1 good, 2 not checked) and each TCP analysis flag ("1" when set). Returns the
     * frame count, fills {@code flagged} with the count of each flag and {@code failures} with what the checks found.
     */
    private long checkCapture(Path pcap, Tcp tcp, long bytes, boolean faulty, long corrupts, long probes,
                              boolean captureDropped, Map<String, Long> flagged, StringBuilder options,
                              List<String> failures)
            throws IOException, InterruptedException {
        String ours = Ipv4Address.toString(stack.address());
        long corruptedOurs = 0;
        if (corrupts > 0) {
            // tshark's TCP analysis takes a corrupted frame at its word: a SYN bit flipped on restarts its view of the
            // stream, and every later frame of it is flagged. The frames with a bad checksum - dropped by their
            // receiver, so never part of the connection - are counted here, against the shim's count below, and
            // deleted from the copy the analysis reads.
            List<String> bad = new ArrayList<>();
            Process find = new ProcessBuilder("tshark", "-r", pcap.toString(), "-o", "ip.check_checksum:TRUE", "-o",
                "tcp.check_checksum:TRUE", "-Y", "ip.checksum.status == 0 || tcp.checksum.status == 0", "-T",
                "fields", "-e", "frame.number", "-e", "ip.src").redirectError(ProcessBuilder.Redirect.DISCARD).start();
            for (String line : new String(find.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String[] f = line.split("\t", -1);
                if (f.length == 2 && !f[0].isEmpty()) {
                    bad.add(f[0]);
                    corruptedOurs += f[1].equals(ours) ? 1 : 0;
                }
            }
            if (find.waitFor() != 0) {
                throw new IOException("tshark -r " + pcap + " failed (exit " + find.exitValue() + ")");
            }
            if (!bad.isEmpty()) {
                Path kept = pcap.resolveSibling("capture-checksums-good.pcap");
                List<String> edit = new ArrayList<>(List.of("editcap", pcap.toString(), kept.toString()));
                edit.addAll(bad);
                Process e = new ProcessBuilder(edit).redirectErrorStream(true).start();
                String out = new String(e.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (e.waitFor() != 0) {
                    throw new IOException("editcap failed (exit " + e.exitValue() + "): " + out);
                }
                pcap = kept;
            }
        }
        List<String> kinds = new ArrayList<>(EXPLAINED);
        kinds.addAll(FLOW);
        kinds.addAll(OTHER);
        List<String> cmd = new ArrayList<>(List.of("tshark", "-r", pcap.toString(), "-o", "ip.check_checksum:TRUE",
            "-o", "tcp.check_checksum:TRUE", "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,",
            "-e", "frame.number", "-e", "ip.src", "-e", "_ws.malformed", "-e", "_ws.expert.severity",
            "-e", "ip.checksum.status", "-e", "tcp.checksum.status", "-e", "tcp.analysis.flags",
            "-e", "ip.id", "-e", "tcp.seq", "-e", "tcp.ack", "-e", "tcp.len", "-e", "tcp.window_size_value",
            "-e", "tcp.flags.str", "-e", "tcp.options.wscale.shift", "-e", "tcp.options.sack_perm",
            "-e", "tcp.options.sack.count"));
        for (String kind : kinds) {
            cmd.add("-e");
            cmd.add("tcp.analysis." + kind);
        }
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String> flow = new ArrayList<>(FLOW);
        if (captureDropped) { // the capture's own gaps: ACKs of segments it never saw
            flow.add("ack_lost_segment");
            flow.add("lost_segment");
        }
        long frames = 0;
        long badOurs = corruptedOurs;
        long goodOurs = 0;
        long probeCopies = 0;
        long probeAnswers = 0;
        String[] lastFromUs = null;
        String[] lastFromKernel = null;
        String ourSyns = "";
        String kernelSyns = "";
        long sackFromUs = 0;
        List<String> bad = new ArrayList<>();
        List<String> unexplained = new ArrayList<>();
        try (var reader = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                String[] f = line.split("\t", -1);
                if (f.length < FIELDS + kinds.size()) {
                    continue;
                }
                frames++;
                boolean fromUs = f[1].equals(ours);
                String[] previous = fromUs ? lastFromUs : lastFromKernel;
                if (f[12].contains("S")) { // a SYN: the options tshark decoded in it
                    String opts = (f[13].isEmpty() ? "no window scale" : "window scale " + f[13])
                        + (f[14].isEmpty() ? ", no SACK-permitted" : ", SACK-permitted");
                    if (fromUs) {
                        ourSyns = ourSyns.isEmpty() || ourSyns.equals(opts) ? opts : ourSyns + " / " + opts;
                    } else {
                        kernelSyns = kernelSyns.isEmpty() || kernelSyns.equals(opts) ? opts : kernelSyns + " / " + opts;
                    }
                }
                if (fromUs && !f[15].isEmpty() && !f[15].equals("0")) {
                    sackFromUs++;
                }
                if (fromUs) {
                    lastFromUs = f;
                } else {
                    lastFromKernel = f;
                }
                boolean badChecksum = hasValue(f[4], "0") || hasValue(f[5], "0");
                if (fromUs && badChecksum) {
                    badOurs++;
                } else if (fromUs && hasValue(f[5], "1")) {
                    goodOurs++;
                }
                List<String> set = new ArrayList<>();
                for (int k = 0; k < kinds.size(); k++) {
                    if (!f[FIELDS + k].isEmpty()) {
                        set.add(kinds.get(k));
                        flagged.merge(kinds.get(k), 1L, Long::sum);
                    }
                }
                boolean excused = corrupts > 0 && badChecksum; // a corrupted frame is judged by the counts only
                // With faults, a retransmitted or out-of-order segment may overlap data tshark's stream reassembly
                // already holds, which it reports as an error or a malformed upper layer: the fault's consequence,
                // judged by the analysis flags below.
                boolean consequence = faulty && set.stream().anyMatch(EXPLAINED::contains);
                if ((!f[2].isEmpty() || hasValue(f[3], SEVERITY_ERROR)) && !consequence && !excused) {
                    bad.add(frameText(f, set, previous));
                }
                boolean flaggedAtAll = !f[6].isEmpty() || !set.isEmpty();
                boolean isFlow = set.stream().anyMatch(flow::contains);
                boolean isExplained = faulty && set.stream().anyMatch(EXPLAINED::contains);
                // Without faults, our tail loss probes are the one retransmission allowed: a copy of our last segment
                // when an ACK was late (tshark: a spurious retransmission), answered by one duplicate ACK. They are
                // counted against our TCP's own probe count below.
                if (!faulty && flaggedAtAll && !isFlow && !set.isEmpty()) {
                    if (fromUs && PROBE_FLAGS.containsAll(set)) {
                        probeCopies++;
                        isExplained = true;
                    } else if (!fromUs && set.equals(List.of("duplicate_ack"))) {
                        probeAnswers++;
                        isExplained = true;
                    }
                }
                if (flaggedAtAll && !isFlow && !isExplained && !excused) {
                    unexplained.add(frameText(f, set, previous));
                }
            }
        }
        if (p.waitFor() != 0) {
            throw new IOException("tshark -r " + pcap + " failed (exit " + p.exitValue() + ")");
        }
        options.append("our SYNs: ").append(ourSyns).append("; the kernel's: ").append(kernelSyns)
            .append("; our segments with SACK blocks: ").append(sackFromUs);
        TcpConfig config = tcp.config();
        String wantSyn = (config.windowScaling() ? "window scale " + config.windowShift() : "no window scale")
            + (config.sack() ? ", SACK-permitted" : ", no SACK-permitted");
        if (!ourSyns.equals(wantSyn)) {
            failures.add("tshark decoded our SYNs as '" + ourSyns + "', the config offers '" + wantSyn + "'");
        }
        long outOfOrder = tcp.counters().get(TcpCounters.Counter.OUT_OF_ORDER_SEGMENTS);
        if (config.sack() && kernelSyns.contains("SACK-permitted") && outOfOrder > 0 && sackFromUs == 0) {
            failures.add("our TCP held " + outOfOrder + " out-of-order segments but tshark saw no SACK block from it");
        }
        if (!bad.isEmpty()) {
            failures.add(bad.size() + " malformed or error packets in the capture: " + firstLines(bad));
        }
        if (badOurs > corrupts) {
            failures.add(badOurs + " packets from our stack with a bad checksum, " + corrupts + " corrupted by the shim");
        }
        if (goodOurs < bytes / 1460 / 2) {
            failures.add("only " + goodOurs + " TCP checksums from our stack verified good by tshark, expected at least "
                + bytes / 1460 / 2);
        }
        if (probeCopies > probes || probeAnswers > probes) {
            failures.add(probeCopies + " retransmissions from us and " + probeAnswers + " duplicate ACKs from the"
                + " kernel in a run without faults, but our TCP sent only " + probes + " tail loss probes");
        }
        if (!unexplained.isEmpty()) {
            failures.add(unexplained.size() + (faulty ? " TCP analysis flags the injected faults do not explain: "
                : " TCP analysis flags in a run without faults: ") + firstLines(unexplained));
        }
        return frames;
    }

    private static boolean hasValue(String field, String value) {
        for (String v : field.split(",")) {
            if (v.equals(value)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A flagged frame for the failure message, with its TCP fields and IP identification and those of the previous
     * frame from the same sender: a duplicate ACK whose IP id equals the previous one's is one frame sent twice (below
     * our TCP), a new id is a second segment our TCP built.
     */
    private static String frameText(String[] f, List<String> flags, String[] previous) {
        return "frame " + f[0] + " from " + f[1] + (f[2].isEmpty() ? "" : " malformed") + " checksums ip " + f[4]
            + " tcp " + f[5] + " flags " + flags + " " + segmentText(f)
            + (previous == null ? "" : " (previous from it: frame " + previous[0] + " " + segmentText(previous) + ")");
    }

    private static String segmentText(String[] f) {
        return "[" + f[12].replace("\u00b7", "") + " id " + f[7] + " seq " + f[8] + " ack " + f[9] + " len " + f[10]
            + " win " + f[11] + "]";
    }

    private static String firstLines(List<String> lines) {
        return String.join("; ", lines.subList(0, Math.min(20, lines.size())));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
