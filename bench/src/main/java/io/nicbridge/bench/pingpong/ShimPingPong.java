package io.nicbridge.bench.pingpong;

import static io.nicbridge.contract.Dec21140.ETH_HEADER_LEN;
import static io.nicbridge.contract.Dec21140.ETH_MIN_FRAME_NOFCS;

import io.nicbridge.bench.capture.CaptureFile;
import io.nicbridge.bench.capture.InterfaceCapture;
import io.nicbridge.bench.verdict.BootstrapInterval;
import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.Outcome;
import io.nicbridge.bench.verdict.TrialRatios;
import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.platform.NetworkNamespace;
import io.nicbridge.bridge.platform.UdpBaseline;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.shim.ShimCard;
import io.nicbridge.bridge.shim.ShimStatistics;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.sim.capture.PcapWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * {@code nic shim pingpong|echo|client}: the Tulip driver on two native-shim 21140s over a real Linux link, beside
 * kernel UDP over the same link, measured in the same run.
 * <pre>
 *   role both (one host):    netns A                                  netns B
 *                            TulipDriver A - shim 21140 - vethA ====== vethB - shim 21140 - TulipDriver B (echo)
 *                            then, cards closed:  UDP client ======================= UDP echo / counter
 *   role echo  (host B):     shim 21140 on if= ; every ping-pong frame goes back to its source address
 *   role client (host A):    shim 21140 on if= ; RTT to --peer MAC per size (no UDP: no UDP server on the peer)
 * </pre>
 * Per frame size, role both measures (a) the shim's RTT over {@code count} round trips after {@code warmup},
 * (b) kernel UDP's RTT with the payload that gives the same Ethernet frame (frame - 14 - 20 - 8), and (c) the
 * one-way frame rate of each for {@code duration}, every shim frame's sequence number checked. The UDP phase runs
 * while the shim cards are closed, so no packet socket takes copies of the UDP frames while it is measured.
 * <p>Each size is measured in K trials ({@code --trials}), the shim and UDP alternating in ABBA order, each trial
 * with its share of the round trips and of the flood. Every trial gives two ratios (UDP p50 RTT / shim p50 RTT, shim
 * frames/s / UDP frames/s); the two targets (ratio >= 1: the shim no worse than kernel UDP) are judged per size on
 * the median ratio and its seeded percentile-bootstrap 95% interval ({@link BootstrapInterval}): MET when the
 * interval's lower bound clears the target, NOT MET when its upper bound is below it, INCONCLUSIVE otherwise.
 *
 * <p>{@code --pcap}: while the shim cards are open, {@link InterfaceCapture} taps record the frames on the link
 * (role both: what arrives at each end of the pair, so every frame once; echo and client: what the card's interface
 * sends and receives), stamped by the wall clock. The UDP phases are not captured.
 */
public final class ShimPingPong {
    public static final int[] DEFAULT_SIZES = {64, 128, 256, 512, 1024, 1514};
    /** Ethernet header + IPv4 header + UDP header: a UDP payload of p bytes is a frame of p + 42 bytes. */
    static final int UDP_FRAME_OVERHEAD = ETH_HEADER_LEN + UdpBaseline.IPV4_UDP_HEADERS;
    /** The library's defaults (nicshim.h), printed when the spec does not set them. */
    private static final Map<String, String> SHIM_DEFAULTS = Map.of("rx-ring", "256", "tx-ring", "256",
        "frame-size", "2048", "budget", "64", "qdisc-bypass", "false", "promisc", "false", "tx", "ring");
    /** The pingpong's RX ring (PACKET_MMAP frames) unless the backend names one; see the constructor. */
    static final int PINGPONG_RX_RING = 4096;
    /** Round trips that re-warm a later round (fresh cards and sockets), not measured. */
    static final int REWARM_ROUND_TRIPS = 2000;
    private static final long PROBE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** Both targets (from the project's issue): the shim no worse than kernel UDP, a ratio where > 1 favours the shim. */
    public static final double TARGET_RATIO = 1.0;
    /** The shortest flood a trial may have: shorter ones measure the scheduler, not the stacks. */
    static final long MIN_TRIAL_FLOOD_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    /** both: a veth pair (or --veth) and both nodes on this host; echo: node B alone; client: node A alone. */
    enum Role { BOTH, ECHO, CLIENT }

    private final PrintWriter out;
    private final Role role;
    /** The shim target: afpacket or afxdp. */
    private final String target;
    private final Map<String, String> params;
    private final int[] sizes;
    private final int count;
    private final int warmup;
    private final long echoLimit;
    private final long durationNanos;
    private final int rounds;
    private final String[] veth;
    private final MacAddress peer;
    private final TulipConfig driverConfig;
    private final long spinNanos;
    private final boolean rxRingDefaulted;
    private final boolean txDefaulted;
    private final boolean acceptInconclusive;
    private final double targetRatio;
    private final CaptureFile capture;
    /** With --pcap: the file, open for the whole run, and the taps of the link (set by the role). */
    private PcapWriter pcap;
    private List<InterfaceCapture.Tap> taps = List.of();
    /** Role both with --compare: the second backend, measured in every trial (null: none). */
    private ShimPingPong compared;
    private long tapDrops;
    /** Flood: commits per transmit poll demand of the sending driver ({@link #floodTransmitBatch}). */
    private int floodTransmitBatch = 1;

    /**
     * How each shim node runs, whatever its role.
     *
     * @param backend  the shim spec, {@code shim:afpacket[?params]}
     * @param mode     inline or threaded (as {@code mode=} in the backend), or null: the backend's, else inline
     * @param driver   the Tulip driver's mode: interrupt, polling or auto (= interrupt)
     * @param waitMode how a node waits for a frame: block, or spin[:MICROS] before it blocks
     * @param capture  where the frames on the link go ({@link CaptureFile#NONE}: nowhere)
     */
    public record Node(String backend, String mode, String driver, String waitMode, CaptureFile capture) {
    }

    /**
     * Role both: both nodes on this host, on a fresh veth pair (or {@code veth}), beside kernel UDP, both targets
     * judged per size.
     *
     * @param veth        an existing link {@code NS_A/IF_A,NS_B/IF_B}, or null for a fresh veth pair
     * @param trials      per size, trials of the shim and UDP alternating, the targets judged on their ratios
     * @param targetRatio the ratio both targets must clear ({@link #TARGET_RATIO})
     * @throws IllegalArgumentException naming the first thing that is wrong, before any socket is opened
     */
    public static ShimPingPong pingpong(PrintWriter out, Node node, int[] sizes, int count, int warmup,
                                        String duration, String veth, int trials, boolean acceptInconclusive,
                                        double targetRatio) {
        return pingpong(out, node, sizes, count, warmup, duration, veth, trials, acceptInconclusive, targetRatio,
            null);
    }

    /**
     * Role both with a second shim backend measured in the same trials: per trial the first backend, the compared
     * one and kernel UDP run in a rotating order (ABC, BCA, CAB, ...) on the same link, each with its share; the
     * targets stay those of the first backend against UDP, the compared backend is reported beside it with its
     * per-trial ratios (median and bootstrap interval, as comparisons, not targets).
     *
     * @param compare the compared backend's spec, e.g. {@code shim:afpacket} (null: none)
     */
    public static ShimPingPong pingpong(PrintWriter out, Node node, int[] sizes, int count, int warmup,
                                        String duration, String veth, int trials, boolean acceptInconclusive,
                                        double targetRatio, String compare) {
        ShimPingPong p = new ShimPingPong(out, Role.BOTH, node, sizes, count, warmup, 0, duration, veth, null, trials,
            acceptInconclusive, targetRatio);
        if (compare != null) {
            p.compared = new ShimPingPong(out, Role.BOTH, new Node(compare, node.mode(), node.driver(),
                node.waitMode(), CaptureFile.NONE), sizes, count, warmup, 0, duration, veth, null, trials,
                acceptInconclusive, targetRatio);
            if (p.compared.specFor(null, null).equals(p.specFor(null, null))) {
                throw new IllegalArgumentException("--compare " + compare + " is the backend under test itself");
            }
        }
        return p;
    }

    /**
     * Role echo: node B alone, on the backend's {@code if=}, echoing every ping-pong frame addressed to it.
     *
     * @param limit frames to echo before it stops (0: until interrupted)
     */
    public static ShimPingPong echo(PrintWriter out, Node node, long limit) {
        return new ShimPingPong(out, Role.ECHO, node, DEFAULT_SIZES, 1, 0, limit, "1s", null, null, 1, false,
            TARGET_RATIO);
    }

    /**
     * Role client: node A alone, on the backend's {@code if=}, measuring the RTT per size to the echo node.
     *
     * @param peer the echo node's station address, 02:00:00:00:00:02 or 02-00-00-00-00-02
     */
    public static ShimPingPong client(PrintWriter out, Node node, String peer, int[] sizes, int count, int warmup) {
        return new ShimPingPong(out, Role.CLIENT, node, sizes, count, warmup, 0, "1s", null, peer, 1, false,
            TARGET_RATIO);
    }

    /**
     * Checks everything that can be checked before a socket is opened.
     *
     * @param echoLimit frames the echo role echoes before it stops (0: until interrupted)
     * @throws IllegalArgumentException naming the first thing that is wrong
     */
    private ShimPingPong(PrintWriter out, Role role, Node node, int[] sizes, int count, int warmup, long echoLimit,
                         String duration, String vethText, String peerText, int rounds, boolean acceptInconclusive,
                         double targetRatio) {
        String backend = node.backend();
        String mode = node.mode();
        String driver = node.driver();
        String waitText = node.waitMode();
        this.out = out;
        this.capture = node.capture();
        if (!(targetRatio > 0 && Double.isFinite(targetRatio))) {
            throw new IllegalArgumentException("the target ratio must be positive and finite, was " + targetRatio);
        }
        this.targetRatio = targetRatio;
        if (rounds < 1) {
            throw new IllegalArgumentException("--trials must be at least 1, was " + rounds);
        }
        this.rounds = rounds;
        this.acceptInconclusive = acceptInconclusive;
        this.role = role;
        DeviceSpec spec = DeviceSpec.parse(backend);
        if (!ShimBackendProvider.TARGET.equals(spec.target())
            && !ShimBackendProvider.TARGET_AF_XDP.equals(spec.target())) {
            throw new IllegalArgumentException("backend '" + backend + "': the shim's targets are '"
                + ShimBackendProvider.TARGET + "' and '" + ShimBackendProvider.TARGET_AF_XDP
                + "', e.g. shim:afpacket, shim:afxdp or shim:afpacket?if=eth1");
        }
        this.target = spec.target();
        this.params = new LinkedHashMap<>(spec.params());
        String specCard = params.putIfAbsent("card", "dec21140");
        if (specCard != null && !specCard.equals("dec21140")) {
            throw new IllegalArgumentException("backend '" + backend + "' asks for card=" + specCard
                + ", but the pingpong drives a 21140 (card=dec21140 or leave it out)");
        }
        String specMode = params.get("mode");
        if (mode != null && !mode.equals("inline") && !mode.equals("threaded")) {
            throw new IllegalArgumentException("--mode " + mode + ": the shim runs inline or threaded");
        }
        if (specMode != null && mode != null && !specMode.equals(mode)) {
            throw new IllegalArgumentException("--mode " + mode + " contradicts mode=" + specMode + " in the backend");
        }
        params.putIfAbsent("mode", mode != null ? mode : "inline");
        // Like for like with the UDP receiver, whose socket buffer here holds thousands of small datagrams
        // (SO_RCVBUF 4 MiB asked): a 256-frame ring overflows whenever the receiving thread loses its CPU for a
        // millisecond on a busy machine. Only when the user did not choose.
        // Role both measures as UdpBaseline does: the round trips on the library's ring (UDP's RTT sockets keep their
        // default buffers), the flood on PINGPONG_RX_RING (UDP's flood receiver asks for 4 MiB). A small ring stays
        // in the caches: a 4096-frame ring costs each frame a cold slot (and the kernel's look-ahead a second one).
        rxRingDefaulted = role == Role.BOTH ? !params.containsKey("rx-ring")
            : params.putIfAbsent("rx-ring", Integer.toString(PINGPONG_RX_RING)) == null;
        // Role both always runs on a veth pair, where one send() per frame beats the PACKET_MMAP TX ring (whose
        // zero-copy pages the veth copies again for the peer's packet socket); the library keeps the ring as its
        // default for real NICs and batches (echo and client run there), and tx=ring in the backend still asks for it.
        // AF_XDP has no send() path: its frames always leave through the XSK TX ring.
        txDefaulted = role == Role.BOTH && !afXdp() && params.putIfAbsent("tx", "send") == null;
        InterruptMode irq = switch (driver.trim().toLowerCase(Locale.ROOT)) {
            case "auto", "interrupt" -> InterruptMode.INTERRUPT;
            case "polling" -> InterruptMode.POLLING;
            default -> throw new IllegalArgumentException("unknown --driver '" + driver
                + "'; expected interrupt, polling or auto");
        };
        if (irq == InterruptMode.POLLING && params.get("mode").equals("inline")) {
            throw new IllegalArgumentException("--driver polling cannot run a shim card in inline mode: the card"
                + " works on the threads that wait on its interrupt line; use --driver interrupt or mode=threaded");
        }
        this.driverConfig = TulipConfig.builder().interruptMode(irq).build();
        this.sizes = sizes.clone();
        for (int s : sizes) {
            if (s < ETH_MIN_FRAME_NOFCS || s > TulipDriver.MAX_FRAME) {
                throw new IllegalArgumentException("frame sizes must be " + ETH_MIN_FRAME_NOFCS + ".."
                    + TulipDriver.MAX_FRAME + " bytes (without the FCS the card appends), was " + s);
            }
        }
        if (count < 1 || warmup < 0) {
            throw new IllegalArgumentException("--count must be at least 1 and --warmup 0 or more");
        }
        this.count = count;
        this.warmup = warmup;
        if (echoLimit < 0) {
            throw new IllegalArgumentException("--count must be 0 (echo until interrupted) or more, was " + echoLimit);
        }
        this.echoLimit = echoLimit;
        this.durationNanos = parseDuration(duration);
        if (role == Role.BOTH && (durationNanos / rounds < MIN_TRIAL_FLOOD_NANOS || count < rounds)) {
            throw new IllegalArgumentException("--trials " + rounds + " splits --count " + count + " and --duration "
                + duration + " too thin: each trial needs at least one round trip and "
                + MIN_TRIAL_FLOOD_NANOS / 1_000_000 + " ms of flood");
        }
        this.spinNanos = FrameWait.parseSpinNanos(waitText);
        boolean hasInterface = params.containsKey("if") || params.containsKey("netns");
        if (role == Role.BOTH && hasInterface) {
            throw new IllegalArgumentException("the pingpong on one host builds its own link and fills in if= and"
                + " netns= per side; drop them from the backend, name an existing pair with --veth"
                + " NS_A/IF_A,NS_B/IF_B, or"
                + " run nic shim echo and nic shim client on two hosts");
        }
        if (role != Role.BOTH && !params.containsKey("if")) {
            throw new IllegalArgumentException("the " + role.name().toLowerCase(Locale.ROOT) + " node needs the"
                + " interface in the backend, e.g. shim:afpacket?if=eth1 (and &netns=NS for one in a network"
                + " namespace)");
        }
        if (vethText != null && role != Role.BOTH) {
            throw new IllegalArgumentException("--veth is for the pingpong on one host; the echo and client nodes take"
                + " if= (and netns=) in the backend");
        }
        this.veth = vethText == null ? null : parseVeth(vethText);
        if (role == Role.CLIENT && peerText == null) {
            throw new IllegalArgumentException("the client needs --peer MAC, the station address the echo node"
                + " printed (02:00:00:00:00:02 or 02-00-00-00-00-02)");
        }
        if (peerText != null && role != Role.CLIENT) {
            throw new IllegalArgumentException("--peer is for the client");
        }
        this.peer = peerText == null ? null : MacAddress.parse(peerText);
        if (peer != null && (!peer.isValidStation())) {
            throw new IllegalArgumentException("--peer " + peerText + " is not a station address (multicast or zero)");
        }
    }

    static long parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        double scale = 1e9;
        if (t.endsWith("ms")) {
            scale = 1e6;
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            t = t.substring(0, t.length() - 1);
        }
        double v;
        try {
            v = Double.parseDouble(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--duration '" + text + "' is not a time: give seconds (1, 0.5s) or"
                + " milliseconds (200ms)");
        }
        long nanos = Math.round(v * scale);
        if (!(nanos >= 1_000_000L && nanos <= 60_000_000_000L)) {
            throw new IllegalArgumentException("--duration must be 1 ms..60 s, was '" + text + "'");
        }
        return nanos;
    }

    private static String[] parseVeth(String text) {
        String[] ends = text.split(",", -1);
        if (ends.length != 2) {
            throw new IllegalArgumentException("--veth '" + text + "' must name two ends: NS_A/IF_A,NS_B/IF_B");
        }
        String[] r = new String[4];
        for (int i = 0; i < 2; i++) {
            String[] p = ends[i].trim().split("/", -1);
            if (p.length != 2 || p[0].isEmpty() || p[1].isEmpty() || p[1].length() > VethPair.MAX_INTERFACE_NAME) {
                throw new IllegalArgumentException("--veth end '" + ends[i] + "' must be NETNS/IFNAME (interface names"
                    + " at most " + VethPair.MAX_INTERFACE_NAME + " characters)");
            }
            r[2 * i] = p[0];
            r[2 * i + 1] = p[1];
        }
        return r;
    }

    /**
     * @return the process exit code ({@link io.nicbridge.bench.verdict.ExitCodes}): role both 0 when the flood was
     *         whole and every target MET, 1 when frames went missing unexplained or a target was NOT MET, 3 when a
     *         target was INCONCLUSIVE (0 with --accept-inconclusive); roles echo and client judge nothing and return 0
     */
    /**
     * Has the flood's sending driver ring its transmit poll demand (CSR1) once per {@code commits} frames
     * ({@link TulipDriver#transmitDemandBatch}) instead of per frame, here and in the compared backend: the card then
     * takes the batch in one pass, and on {@code shim:afxdp} sends it with one kernel kick. The round trips are not
     * affected (one frame at a time). Returns this.
     *
     * @param commits 1 (every frame, as Linux's tulip driver rings it) up to the driver's TX ring
     * @throws IllegalArgumentException outside that range
     */
    public ShimPingPong floodTransmitBatch(int commits) {
        if (commits < 1 || commits > driverConfig.txRingSize()) {
            throw new IllegalArgumentException("--tx-batch must be 1.." + driverConfig.txRingSize()
                + " (the driver's TX ring), was " + commits);
        }
        floodTransmitBatch = commits;
        if (compared != null) {
            compared.floodTransmitBatch(commits);
        }
        return this;
    }

    public int run() throws Exception {
        Availability shim = new ShimBackendProvider().availability();
        if (!shim.available()) {
            throw new IllegalArgumentException("the shim backend is not available here: " + shim.reason());
        }
        // Checks --pcap-max-frames and creates the file before any link is built.
        pcap = capture.openWallClock(PcapWriter.LINKTYPE_ETHERNET);
        try {
            return switch (role) {
                case BOTH -> both();
                case ECHO -> echo();
                case CLIENT -> client();
            };
        } finally {
            String line = CaptureFile.close(pcap);
            if (line != null) {
                out.println(line + (tapDrops == 0 ? "" : "; " + tapDrops + " dropped by the kernel before the"
                    + " capture took them (tap socket buffer full)"));
                out.flush();
            }
        }
    }

    /**
     * Starts recording the link's frames into the --pcap file (null without --pcap). Close it before the cards: it
     * then takes the frames already queued at its sockets.
     */
    private InterfaceCapture startCapture() throws IOException {
        if (pcap == null) {
            return null;
        }
        return InterfaceCapture.start(pcap, taps);
    }

    /** Stops a capture started by {@link #startCapture()} and adds its kernel drops to the run's. */
    private void stopCapture(InterfaceCapture c) {
        if (c != null) {
            c.close();
            tapDrops += c.kernelDrops();
        }
    }

    // ------------------------------------------------------------------ header

    private String specFor(String ifname, String netns) {
        return specFor(ifname, netns, null);
    }

    /** @param rxRing the RX ring to ask for when the backend names none (null: the library's default) */
    private String specFor(String ifname, String netns, String rxRing) {
        Map<String, String> p = new LinkedHashMap<>();
        if (rxRing != null && !params.containsKey("rx-ring")) {
            p.put("rx-ring", rxRing);
        }
        if (ifname != null) {
            p.put("if", ifname);
        }
        if (netns != null) {
            p.put("netns", netns);
        }
        params.forEach(p::putIfAbsent);
        StringBuilder sb = new StringBuilder(ShimBackendProvider.SCHEME + ":" + target);
        char sep = '?';
        for (Map.Entry<String, String> e : p.entrySet()) {
            sb.append(sep).append(e.getKey()).append('=').append(e.getValue());
            sep = '&';
        }
        return sb.toString();
    }

    private boolean afXdp() {
        return ShimBackendProvider.TARGET_AF_XDP.equals(target);
    }

    private String param(String key) {
        String v = params.get(key);
        return v != null ? v : SHIM_DEFAULTS.get(key) + " (default)";
    }

    private void header() {
        out.printf(Locale.ROOT, "pingpong: card dec21140 on the native shim, role %s%n",
            role.name().toLowerCase(Locale.ROOT));
        out.printf(Locale.ROOT, "machine: %s %s (%s), %d CPUs%s, JDK %s, load average %.2f at the start%n",
            System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"),
            Runtime.getRuntime().availableProcessors(), cpuModel(), Runtime.version(), loadAverage());
        out.printf(Locale.ROOT, "shim: mode %s, %s rx-ring %s, tx-ring %s frames of %s B,"
                + " budget %s frames/poll, qdisc-bypass %s, promisc %s, tx %s%n", params.get("mode"), afXdp()
                ? "AF_XDP (shim:afxdp, queue " + params.getOrDefault("queue", "0") + ", bind "
                    + params.getOrDefault("bind", "auto") + ", attach " + params.getOrDefault("attach", "auto")
                    + ", busy-poll " + params.getOrDefault("busy-poll", "0") + " us; modes obtained: see stations)"
                    + " XSK rings and UMEM chunks:"
                : "AF_PACKET PACKET_MMAP rings", !rxRingDefaulted
                ? params.get("rx-ring") : role == Role.BOTH ? "256 (the library's) for the round trips and "
                    + PINGPONG_RX_RING + " for the flood (pingpong default, like UDP: default socket buffers for its"
                    + " round trips, 4 MiB for its flood)"
                : PINGPONG_RX_RING + " (pingpong default, about what UDP's 4 MiB socket buffer holds; the library's is"
                    + " 256)",
            param("tx-ring"), param("frame-size"), param("budget"), afXdp() ? "always (AF_XDP)" : param("qdisc-bypass"),
            param("promisc"), afXdp() ? "the XSK TX ring (AF_XDP)"
                : txDefaulted ? "send (pingpong default on its veth pair; the library's is ring)" : param("tx"));
        out.printf(Locale.ROOT, "driver: TulipDriver (unchanged), %s, RX ring %d / TX ring %d descriptors, RX"
                + " buffers %d B%n", driverConfig.interruptMode().name().toLowerCase(Locale.ROOT),
            driverConfig.rxRingSize(), driverConfig.txRingSize(), driverConfig.rxBufferSize());
        out.printf(Locale.ROOT, "wait: %s%n", spinNanos == 0
            ? "block (the driver sleeps on its interrupt line, in the shim's epoll wait; kernel UDP sleeps in read: like for"
                + " like)"
            : new FrameWait(spinNanos, null) + " (busy polling before the driver sleeps; kernel UDP sleeps in read at"
                + " once: NOT like for like)");
        StringBuilder s = new StringBuilder();
        for (int size : sizes) {
            s.append(s.isEmpty() ? "" : ",").append(size);
        }
        if (role == Role.BOTH) {
            out.printf(Locale.ROOT, "run: frame sizes %s B (without FCS); RTT: %d round trips after %d warm-up;"
                + " one-way flood %.3f s per size; per size %d trials, the shim and UDP alternating (ABBA), each"
                + " with its share (later trials re-warm with %d round trips)%n", s, count, warmup, durationNanos / 1e9,
                rounds, Math.min(warmup, REWARM_ROUND_TRIPS));
            out.printf(Locale.ROOT, "udp: payload = frame - %d (Ethernet 14 + IPv4 20 + UDP 8), so both paths put"
                + " the same frame on the veth; every size is >= %d B, so no frame is padded to the Ethernet"
                + " minimum%n", UDP_FRAME_OVERHEAD, ETH_MIN_FRAME_NOFCS);
        } else if (role == Role.CLIENT) {
            out.printf(Locale.ROOT, "run: frame sizes %s B (without FCS); RTT: %d round trips after %d warm-up%n", s,
                count, warmup);
        }
        out.flush();
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return " (" + line.substring(line.indexOf(':') + 1).trim() + ")";
                }
            }
        } catch (IOException | RuntimeException e) {
            return "";
        }
        return "";
    }

    // ------------------------------------------------------------------ role both

    /**
     * One size's figures: the trials' histograms and floods added up, and per trial the two ratios (UDP p50 RTT /
     * shim p50 RTT; shim frames/s / UDP frames/s) that the targets are judged on.
     */
    private record Row(int size, RttSummary shim, OneWayFlood.Result flood, long kernelDrops, long missed,
                       Histogram udpRtt, UdpBaseline.FrameRate udpRate, double[] rttRatios, double[] rateRatios) {
        long unexplained() {
            return Math.max(0, flood.lost() - kernelDrops - missed);
        }

        /** Two rounds' floods and counters added (the RTTs are merged in their histograms). */
        Row plus(Row o) {
            OneWayFlood.Result a = flood;
            OneWayFlood.Result b = o.flood;
            OneWayFlood.Result f = new OneWayFlood.Result(a.frameBytes(), a.sent() + b.sent(),
                a.received() + b.received(), a.distinct() + b.distinct(), a.duplicates() + b.duplicates(),
                a.reordered() + b.reordered(), a.foreign() + b.foreign(), a.backPressure() + b.backPressure(),
                a.sendNanos() + b.sendNanos(), a.windowNanos() + b.windowNanos());
            return new Row(size, shim, f, kernelDrops + o.kernelDrops, missed + o.missed, udpRtt, udpRate, rttRatios,
                rateRatios);
        }
    }

    private static UdpBaseline.FrameRate plus(UdpBaseline.FrameRate a, UdpBaseline.FrameRate b) {
        if (a == null) {
            return b;
        }
        return new UdpBaseline.FrameRate(a.payloadBytes(), a.sent() + b.sent(), a.received() + b.received(),
            a.sendNanos() + b.sendNanos(), a.receiveWindowNanos() + b.receiveWindowNanos());
    }

    private int both() throws Exception {
        header();
        if (compared != null) {
            out.printf(Locale.ROOT, "compare: %s in the same trials (tested %s, compared, kernel UDP rotating: ABC,"
                + " BCA, CAB)%n", compared.specFor(null, null), specFor(null, null));
        }
        VethPair pair;
        if (veth == null) {
            Availability a = VethPair.availability();
            if (!a.available()) {
                throw new IllegalArgumentException("cannot build a veth pair here: " + a.reason()
                    + " (or name an existing pair with --veth NS_A/IF_A,NS_B/IF_B)");
            }
            pair = VethPair.create();
            out.println("link: " + pair + " (created for this run, removed at the end)");
        } else {
            try {
                pair = VethPair.attach(veth[0], veth[1], veth[2], veth[3]);
            } catch (IOException e) {
                throw new IllegalArgumentException("--veth " + veth[0] + "/" + veth[1] + "," + veth[2] + "/" + veth[3]
                    + ": " + e.getMessage(), e);
            }
            out.println("link: " + pair + " (given with --veth; left as it is)");
        }
        try {
            String[] ends = {pair.namespaceA().name(), pair.interfaceA(), pair.namespaceB().name(),
                pair.interfaceB()};
            taps = List.of(InterfaceCapture.Tap.incoming(pair.namespaceA(), pair.interfaceA()),
                InterfaceCapture.Tap.incoming(pair.namespaceB(), pair.interfaceB()));
            boolean udp = pair.hasIpv4();
            if (!udp) {
                out.printf("udp: baseline skipped: the ends have no IPv4 addresses (ip -n %s -4 addr show dev %s shows"
                    + " none); give them one each in one subnet, e.g. ip -n %s addr add 10.9.9.1/30 dev %s and"
                    + " ip -n %s addr add 10.9.9.2/30 dev %s%n", ends[0], ends[1], ends[0], ends[1], ends[2], ends[3]);
            }
            if (pair.mtu() + ETH_HEADER_LEN < java.util.Arrays.stream(sizes).max().orElse(0)) {
                throw new IllegalArgumentException(pair + ": MTU " + pair.mtu() + " carries frames of at most "
                    + (pair.mtu() + ETH_HEADER_LEN) + " B, but --sizes asks for more");
            }
            // Per size, ROUNDS alternations of the shim (cards open) and kernel UDP (cards closed, so no packet
            // socket takes copies of the UDP frames), each with a share of the round trips and of the flood: load from
            // elsewhere comes and goes within seconds, and the scheduler flips between placing both threads on one
            // CPU or on two, so alternating often makes both stacks see the same machine.
            OneWayFlood.SeenMap seen = new OneWayFlood.SeenMap(durationNanos);
            List<Row> rows = new ArrayList<>();
            for (int size : sizes) {
                Histogram shimRtt = RttSummary.newHistogram();
                Histogram udpRtt = udp ? RttSummary.newHistogram() : null;
                Histogram trialRtt = RttSummary.newHistogram();
                double[] rttRatios = new double[udp ? rounds : 0];
                double[] rateRatios = new double[udp ? rounds : 0];
                Histogram cmpRtt = compared == null ? null : RttSummary.newHistogram();
                Histogram cmpTrialRtt = compared == null ? null : RttSummary.newHistogram();
                double[] cmpRttRatios = new double[compared == null ? 0 : rounds];
                double[] cmpRateRatios = new double[compared == null ? 0 : rounds];
                double[] cmpUdpRttRatios = new double[compared == null || !udp ? 0 : rounds];
                double[] cmpUdpRateRatios = new double[compared == null || !udp ? 0 : rounds];
                Row cmpSum = null;
                Row sum = null;
                UdpBaseline.FrameRate rate = null;
                int payload = size - UDP_FRAME_OVERHEAD;
                for (int round = 0; round < rounds; round++) {
                    int share = count / rounds + (round < count % rounds ? 1 : 0);
                    int warm = round == 0 ? warmup : Math.min(warmup, REWARM_ROUND_TRIPS);
                    long floodNanos = durationNanos / rounds;
                    // ABBA: every other trial runs UDP first, so neither stack always has the fresher machine. With
                    // --compare, the three rotate (shim, compared, UDP; compared, UDP, shim; UDP, shim, compared).
                    boolean udpFirst = udp && (compared == null ? round % 2 == 1 : round % 3 == 2);
                    Histogram udpTrial = null;
                    UdpBaseline.FrameRate udpTrialRate = null;
                    Row cmp = null;
                    if (udpFirst) {
                        udpTrial = UdpBaseline.roundTrip(pair, payload, warm, share);
                        udpTrialRate = UdpBaseline.frameRate(pair, payload, Duration.ofNanos(floodNanos));
                    }
                    if (compared != null && round % 3 == 1) {
                        cmpTrialRtt.reset();
                        cmp = compared.shimSize(ends, size, seen, rows.isEmpty() && round == 1, warm, share,
                            floodNanos, cmpTrialRtt);
                    }
                    trialRtt.reset();
                    Row r = shimSize(ends, size, seen, rows.isEmpty() && round == 0, warm, share, floodNanos,
                        trialRtt);
                    shimRtt.add(trialRtt);
                    sum = sum == null ? r : sum.plus(r);
                    if (compared != null && round % 3 != 1) {
                        cmpTrialRtt.reset();
                        cmp = compared.shimSize(ends, size, seen, rows.isEmpty() && round == 0, warm, share,
                            floodNanos, cmpTrialRtt);
                    }
                    if (udp && !udpFirst) {
                        udpTrial = UdpBaseline.roundTrip(pair, payload, warm, share);
                        udpTrialRate = UdpBaseline.frameRate(pair, payload, Duration.ofNanos(floodNanos));
                    }
                    if (cmp != null) {
                        cmpRtt.add(cmpTrialRtt);
                        cmpSum = cmpSum == null ? cmp : cmpSum.plus(cmp);
                        cmpRttRatios[round] = (double) cmpTrialRtt.getValueAtPercentile(50)
                            / trialRtt.getValueAtPercentile(50);
                        cmpRateRatios[round] = r.flood.framesPerSecond() / cmp.flood.framesPerSecond();
                        if (udp) {
                            cmpUdpRttRatios[round] = (double) udpTrial.getValueAtPercentile(50)
                                / cmpTrialRtt.getValueAtPercentile(50);
                            cmpUdpRateRatios[round] = cmp.flood.framesPerSecond() / udpTrialRate.receivedPerSecond();
                        }
                    }
                    if (udp) {
                        boolean shimNone = !(r.flood.framesPerSecond() > 0);
                        if (shimNone || !(udpTrialRate.receivedPerSecond() > 0)) {
                            throw new IllegalStateException(size + " B, trial " + (round + 1) + ": the "
                                + (shimNone ? "shim" : "UDP") + " flood gave no frame rate in " + floodNanos / 1_000_000
                                + " ms (fewer than two frames received), so the trial has no ratio; give a longer"
                                + " --duration");
                        }
                        udpRtt.add(udpTrial);
                        rate = plus(rate, udpTrialRate);
                        rttRatios[round] = (double) udpTrial.getValueAtPercentile(50)
                            / trialRtt.getValueAtPercentile(50);
                        rateRatios[round] = r.flood.framesPerSecond() / udpTrialRate.receivedPerSecond();
                    }
                }
                rows.add(new Row(size, RttSummary.of("shim " + size + " B", shimRtt), sum.flood, sum.kernelDrops,
                    sum.missed, udpRtt, rate, rttRatios, rateRatios));
                if (compared != null) {
                    comparedRows.add(new Compared(size, RttSummary.of("compared " + size + " B", cmpRtt), cmpSum,
                        cmpRttRatios, cmpRateRatios, cmpUdpRttRatios, cmpUdpRateRatios));
                }
            }
            return report(rows);
        } finally {
            pair.close();
        }
    }

    /**
     * Measures one size's RTT and then its one-way flood, each on both cards and drivers opened for it (the round
     * trips on the library's RX ring, the flood on {@link #PINGPONG_RX_RING}, unless the backend names one: as
     * UdpBaseline's round trips use default socket buffers and its flood a 4 MiB one); prints the counters, closes.
     */
    private Row shimSize(String[] ends, int size, OneWayFlood.SeenMap seen, boolean first, int warmup, int count,
                         long durationNanos, Histogram h) throws Exception {
        try (ShimCard cardA = (ShimCard) Backends.open(specFor(ends[1], ends[0]));
             ShimCard cardB = (ShimCard) Backends.open(specFor(ends[3], ends[2]));
             TulipDriver a = open(cardA);
             TulipDriver b = open(cardB)) {
            if (first) {
                out.printf("stations: A %s (%s, spec %s) <-> B %s (%s); transport %s%n", a.stationAddress(),
                    cardA.name(), cardA.spec(), b.stationAddress(), cardB.name(), cardA.transportText());
            }
            Progress progress = new Progress("pingpong shim " + size + " B", (long) warmup + count, System.err);
            InterfaceCapture tap = startCapture();
            try {
                PingPongLoops.threaded(a, waitFor(cardA), a.stationAddress().value(), b, waitFor(cardB),
                    b.stationAddress().value(), size, warmup, count, h, progress);
            } finally {
                stopCapture(tap);
            }
            out.printf("%d B: round trips: counters A: %s; B: %s%n", size, a.counters(), b.counters());
        }
        String floodRing = Integer.toString(PINGPONG_RX_RING);
        try (ShimCard cardA = (ShimCard) Backends.open(specFor(ends[1], ends[0], floodRing));
             ShimCard cardB = (ShimCard) Backends.open(specFor(ends[3], ends[2], floodRing));
             TulipDriver a = open(cardA);
             TulipDriver b = open(cardB)) {
            a.transmitDemandBatch(floodTransmitBatch);
            if (first) {
                out.printf("flood stations: spec %s%n", cardA.spec());
            }
            Runnable txProgressA = cardA.mode() == ShimCard.Mode.INLINE ? cardA.progress() : null;
            ShimStatistics before = new ShimStatistics();
            ShimStatistics after = new ShimStatistics();
            cardB.shim().statistics(before);
            InterfaceCapture tap = startCapture();
            OneWayFlood.Result flood;
            try {
                flood = OneWayFlood.run(a, b.stationAddress().value(), a.stationAddress().value(), txProgressA, b,
                    waitFor(cardB), size, durationNanos, seen);
            } finally {
                stopCapture(tap);
            }
            cardB.shim().statistics(after);
            long kernel = after.rxDropKernel() - before.rxDropKernel();
            long missed = after.rxMissed() - before.rxMissed();
            out.printf("%d B: counters A: %s; transmit poll demands %d (%.1f frames each, --tx-batch %d)%n", size,
                a.counters(), a.transmitDemands(), a.transmitDemands() == 0 ? 0.0
                    : (double) flood.sent() / a.transmitDemands(), floodTransmitBatch);
            out.printf("%d B: counters B: %s%n", size, b.counters());
            out.printf("%d B: shim A: %s%n", size, cardA.statistics());
            out.printf("%d B: shim B: %s%n", size, cardB.statistics());
            out.flush();
            return new Row(size, null, flood, kernel, missed, null, null, null, null);
        }
    }

    /** The Tulip driver on a freshly opened card, its filter loaded and the MTU checked. */
    /**
     * --compare: one size's figures of the compared backend, and per trial its ratios to the backend under test
     * (compared p50 RTT / tested p50 RTT; tested frames/s / compared frames/s: above 1 favours the tested one) and to
     * UDP (UDP p50 / compared p50; compared frames/s / UDP frames/s).
     */
    private record Compared(int size, RttSummary rtt, Row flood, double[] rttRatios, double[] rateRatios,
                            double[] udpRttRatios, double[] udpRateRatios) {
    }

    private final List<Compared> comparedRows = new ArrayList<>();

    /** --compare: the compared backend's table and its ratios, printed as comparisons (the targets are the tested one's). */
    private void reportCompared(CheckLog checks) {
        String name = compared.specFor(null, null);
        String tested = specFor(null, null);
        out.println();
        out.printf(Locale.ROOT, "compared in the same trials: %s (tested: %s)%n", name, tested);
        out.println(" frame | compared RTT (us)   | compared one-way at B  | compared flood: sent, lost (kernel drops,"
            + " missed, unexplained), dup, reordered");
        for (Compared c : comparedRows) {
            OneWayFlood.Result f = c.flood.flood;
            out.printf(Locale.ROOT, " %5d | %9.3f %9.3f | %10.0f %10.1f | %d, %d (%d, %d, %d), %d, %d%n", c.size,
                c.rtt.p50() / 1e3, c.rtt.p99() / 1e3, f.framesPerSecond(), f.megabitsPerSecond(), f.sent(), f.lost(),
                c.flood.kernelDrops, c.flood.missed, c.flood.unexplained(), f.duplicates(), f.reordered());
        }
        for (Compared c : comparedRows) {
            out.println(c.rtt.line());
            out.printf(Locale.ROOT, "trials %d B: RTT compared/tested %s; rate tested/compared %s%n", c.size,
                TrialRatios.format(c.rttRatios), TrialRatios.format(c.rateRatios));
            comparison(checks, "RTT at " + c.size + " B, tested vs compared (compared p50 / tested p50)", c.rttRatios);
            comparison(checks, "frame rate at " + c.size + " B, tested vs compared (tested frames/s / compared"
                + " frames/s)", c.rateRatios);
            if (c.udpRttRatios.length > 0) {
                comparison(checks, "RTT at " + c.size + " B, compared vs kernel UDP (UDP p50 / compared p50)",
                    c.udpRttRatios);
                comparison(checks, "frame rate at " + c.size + " B, compared vs kernel UDP (compared frames/s / UDP"
                    + " frames/s)", c.udpRateRatios);
            }
        }
    }

    private void comparison(CheckLog checks, String what, double[] trials) {
        TrialRatios.compare(checks, what, trials);
    }

    private TulipDriver open(ShimCard card) {
        TulipDriver d = TulipDriver.open(card, driverConfig);
        try {
            awaitFilter(d, card);
            checkMtu(card);
            return d;
        } catch (RuntimeException e) {
            d.close();
            throw e;
        }
    }

    private int report(List<Row> rows) {
        boolean udp = rows.getFirst().udpRtt != null;
        out.println();
        out.println(" frame |     shim RTT (us)   |  kernel UDP RTT (us) | RTT UDP/shim  |   shim one-way at B    |"
            + "    UDP one-way at B    | rate   | shim flood: sent, lost (kernel"
            + " drops, missed, unexplained), dup, reordered");
        out.println(" bytes |      p50       p99  |      p50       p99   |   p50    p99  |   frames/s     Mbit/s  |"
            + "   frames/s     Mbit/s  | shim/UDP|");
        boolean clean = true;
        for (Row r : rows) {
            OneWayFlood.Result f = r.flood;
            String udpRtt = udp ? String.format(Locale.ROOT, "%9.3f %9.3f", r.udpRtt.getValueAtPercentile(50) / 1e3,
                r.udpRtt.getValueAtPercentile(99) / 1e3) : String.format("%19s", "-");
            String ratio = udp ? String.format(Locale.ROOT, "%5.2fx %5.2fx",
                (double) r.udpRtt.getValueAtPercentile(50) / r.shim.p50(),
                (double) r.udpRtt.getValueAtPercentile(99) / r.shim.p99()) : String.format("%13s", "-");
            String udpRate = udp ? String.format(Locale.ROOT, "%10.0f %10.1f", r.udpRate.receivedPerSecond(),
                r.udpRate.receivedPerSecond() * r.size * 8 / 1e6) : String.format("%21s", "-");
            String rateRatio = udp ? String.format(Locale.ROOT, "%6.2fx", f.framesPerSecond()
                / r.udpRate.receivedPerSecond()) : String.format("%7s", "-");
            out.printf(Locale.ROOT, " %5d | %9.3f %9.3f  | %s  | %s | %10.0f %10.1f  | %s  | %s | %d, %d (%d, %d, %d), %d,"
                    + " %d%n", r.size, r.shim.p50() / 1e3, r.shim.p99() / 1e3, udpRtt, ratio, f.framesPerSecond(),
                f.megabitsPerSecond(), udpRate, rateRatio, f.sent(), f.lost(), r.kernelDrops, r.missed,
                r.unexplained(), f.duplicates(), f.reordered());
            clean &= r.unexplained() == 0 && f.duplicates() == 0 && f.reordered() == 0;
        }
        out.println();
        for (Row r : rows) {
            out.println(r.shim.line());
        }
        if (udp) {
            StringBuilder rtt = new StringBuilder("ratio RTT UDP/shim, all trials pooled (p50, p99):");
            StringBuilder rate = new StringBuilder("ratio frame rate shim/UDP, all trials pooled:");
            for (Row r : rows) {
                rtt.append(String.format(Locale.ROOT, " %d B %.2fx %.2fx;", r.size,
                    (double) r.udpRtt.getValueAtPercentile(50) / r.shim.p50(),
                    (double) r.udpRtt.getValueAtPercentile(99) / r.shim.p99()));
                rate.append(String.format(Locale.ROOT, " %d B %.2fx (%.0f vs %.0f fr/s; UDP sent %d, received %d);",
                    r.size, r.flood.framesPerSecond() / r.udpRate.receivedPerSecond(), r.flood.framesPerSecond(),
                    r.udpRate.receivedPerSecond(), r.udpRate.sent(), r.udpRate.received()));
            }
            out.println(rtt.substring(0, rtt.length() - 1));
            out.println(rate.substring(0, rate.length() - 1));
        }
        long foreign = rows.stream().mapToLong(r -> r.flood.foreign()).sum();
        CheckLog checks = new CheckLog(out::println);
        checks.check(CheckKind.INTEGRITY_CHECK, "flood: " + (clean
                ? "every shim frame arrived once and in order, or was dropped by the kernel's ring and counted"
                : "FRAMES LOST, DUPLICATED OR REORDERED beyond what the kernel counted (see the table)")
            + (foreign == 0 ? "" : "; " + foreign + " foreign frames ignored"), clean);
        if (compared != null) {
            boolean cmpClean = true;
            for (Compared c : comparedRows) {
                cmpClean &= c.flood.unexplained() == 0 && c.flood.flood.duplicates() == 0
                    && c.flood.flood.reordered() == 0;
            }
            checks.check(CheckKind.INTEGRITY_CHECK, "compared flood: " + (cmpClean
                ? "every frame arrived once and in order, or was dropped by the kernel and counted"
                : "FRAMES LOST, DUPLICATED OR REORDERED beyond what the kernel counted"), cmpClean);
            reportCompared(checks);
        }
        if (udp) {
            judgeTargets(rows, checks);
        } else {
            out.println("targets: not judged: no kernel UDP baseline in this run");
        }
        out.printf(Locale.ROOT, "machine load: load average %.2f at the end of the run on %d CPUs (other work on the"
            + " machine widens the intervals)%n", loadAverage(), Runtime.getRuntime().availableProcessors());
        int code = checks.finish(acceptInconclusive);
        out.flush();
        return code;
    }

    /**
     * Judges, for every size, both targets on the trials' ratios: the median ratio with a seeded percentile-bootstrap
     * 95% interval; MET when the interval's lower bound is at least the target, NOT MET when its upper bound is
     * below it, INCONCLUSIVE otherwise.
     */
    private void judgeTargets(List<Row> rows, CheckLog checks) {
        out.printf(Locale.ROOT, "targets (anchor: kernel UDP over the same veth pair, measured in this run): per size,"
                + " %d interleaved trials (ABBA order); per trial RTT ratio = UDP p50 / shim p50 and rate ratio = shim"
                + " frames/s / UDP frames/s; the median ratio with a %.0f%% percentile-bootstrap interval (%d resamples,"
                + " seed %d); target ratio >= %.3g; MET when the interval's lower bound clears it, NOT MET when its"
                + " upper bound is below it, else INCONCLUSIVE%s%n", rounds, TrialRatios.CONFIDENCE * 100,
            BootstrapInterval.DEFAULT_RESAMPLES, TrialRatios.BOOTSTRAP_SEED, targetRatio,
            notJudged() == null ? "" : "; NOT JUDGED in this run: " + notJudged()
                + ", so the intervals are printed as comparisons");
        for (Row r : rows) {
            out.printf(Locale.ROOT, "trials %d B: RTT UDP/shim %s; rate shim/UDP %s%n", r.size, TrialRatios.format(r.rttRatios),
                TrialRatios.format(r.rateRatios));
        }
        List<String> notMet = new ArrayList<>();
        List<String> undecided = new ArrayList<>();
        for (Row r : rows) {
            judge(checks, "RTT", r.size, "UDP p50 RTT / shim p50 RTT", r.rttRatios, notMet, undecided);
            judge(checks, "frame rate", r.size, "shim frames/s / UDP frames/s", r.rateRatios, notMet, undecided);
        }
        int targets = 2 * rows.size();
        if (notJudged() != null) {
            out.println("verdict: not judged (" + notJudged() + ")");
            return;
        }
        out.printf(Locale.ROOT, "verdict: %s%n", notMet.isEmpty() && undecided.isEmpty()
            ? "MET (all " + targets + " targets: RTT and frame rate at every size)"
            : TrialRatios.verdict(notMet, undecided, targets));
    }

    private void judge(CheckLog checks, String target, int size, String ratio, double[] trials, List<String> notMet,
                       List<String> undecided) {
        String what = String.format(Locale.ROOT, "%s at %d B, shim no worse than kernel UDP (%s >= %.3g)",
            target, size, ratio, targetRatio);
        if (notJudged() != null) {
            checks.comparison(what + ": " + TrialRatios.interval(trials).describe("x") + " (" + notJudged() + ")");
            return;
        }
        Outcome o = TrialRatios.judge(checks, what, trials, targetRatio);
        String name = target + " at " + size + " B";
        if (o == Outcome.FAIL) {
            notMet.add(name);
        } else if (o == Outcome.INCONCLUSIVE) {
            undecided.add(name);
        }
    }

    /**
     * Why this run's intervals cannot judge the targets, or null when they can: spinning is not like for like with
     * UDP's blocking read; a capture copies every shim frame to two tap sockets and no UDP frame; with fewer than
     * {@link TrialRatios#MIN_JUDGED_TRIALS} trials the interval of a median covers it with 75% or less (1 trial: 0%).
     */
    private String notJudged() {
        if (spinNanos != 0) {
            return "--wait spin: the shim spun before sleeping, kernel UDP blocked in read at once: not like for like";
        }
        if (pcap != null) {
            return "--pcap: every shim frame is also copied to the capture, no UDP frame is: not like for like";
        }
        return TrialRatios.tooFewTrials(rounds);
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    // ------------------------------------------------------------------ roles echo and client

    private int echo() throws Exception {
        header();
        Thread main = Thread.currentThread();
        CountDownLatch finished = new CountDownLatch(1);
        // Ctrl-C: stop the loop (it checks for interrupts at least every 100 ms), let it print and close the card.
        Thread hook = Thread.ofPlatform().name("pingpong-echo-stop").unstarted(() -> {
            main.interrupt();
            try {
                finished.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                // The JVM is going down either way.
            }
        });
        Runtime.getRuntime().addShutdownHook(hook);
        try (NetworkNamespace ns = tapNamespace();
             ShimCard card = (ShimCard) Backends.open(specFor(null, null));
             TulipDriver port = TulipDriver.open(card, driverConfig)) {
            awaitFilter(port, card);
            taps = List.of(InterfaceCapture.Tap.bothDirections(ns, params.get("if")));
            long mac = port.stationAddress().value();
            FrameEcho echo = new FrameEcho(port, mac, card.mode() == ShimCard.Mode.INLINE ? card.progress() : null,
                waitFor(card));
            // Capturing before "ready": a client may send its first frame as soon as it reads that line.
            InterfaceCapture tap = startCapture();
            boolean reached;
            try {
                out.printf("echo: station %s on %s (spec %s): every ping-pong frame (EtherType 0x88b5) to this"
                    + " station goes back to its source; %s%n", port.stationAddress(), card.name(), card.spec(),
                    echoLimit == 0 ? "Ctrl-C to stop" : "stops after " + echoLimit + " frames");
                out.printf("echo: ready; on the other host: nic shim client --backend 'shim:afpacket?if=IFACE'"
                    + " --peer %s%n", port.stationAddress());
                out.flush();
                reached = echo.run(echoLimit);
            } finally {
                stopCapture(tap);
            }
            out.printf("echo: %s: %d frames echoed, %d ignored (not ping-pong frames for this station), TX"
                + " back-pressure %d%n", reached ? "done" : "stopped", echo.echoed(), echo.ignored(),
                echo.backPressure());
            out.println("counters: " + port.counters());
            out.println("shim: " + card.statistics());
            out.flush();
            return 0;
        } finally {
            if (pcap != null) {
                // Ctrl-C: the JVM exits once this latch opens, perhaps before run() closes the file; write it out now.
                pcap.flush();
            }
            finished.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook is running and waits for the countDown above.
            }
        }
    }

    private int client() throws Exception {
        header();
        out.println("udp: no kernel UDP baseline in the client role (it would need a UDP echo server on the peer"
            + " host); run nic shim pingpong on one host for the side-by-side");
        try (NetworkNamespace ns = tapNamespace();
             ShimCard card = (ShimCard) Backends.open(specFor(null, null));
             TulipDriver a = TulipDriver.open(card, driverConfig)) {
            awaitFilter(a, card);
            checkMtu(card);
            taps = List.of(InterfaceCapture.Tap.bothDirections(ns, params.get("if")));
            InterfaceCapture tap = startCapture();
            try {
                clientRun(a, card);
            } finally {
                stopCapture(tap);
            }
            out.println("counters: " + a.counters());
            out.println("shim: " + card.statistics());
            out.flush();
        }
        return 0;
    }

    /** The client's probe and round trips, per size. */
    private void clientRun(TulipDriver a, ShimCard card) throws InterruptedException {
        long mac = a.stationAddress().value();
        out.printf("client: station %s on %s (spec %s) -> echo %s%n", a.stationAddress(), card.name(),
            card.spec(), peer);
        out.flush();
        if (!PingPongLoops.probe(a, mac, peer.value(), PROBE_TIMEOUT_NANOS)) {
            throw new IllegalStateException("no echo from " + peer + " within "
                + TimeUnit.NANOSECONDS.toSeconds(PROBE_TIMEOUT_NANOS) + " s: is `nic shim echo` running"
                + " there, on the same link? (" + a.counters() + ")");
        }
        FrameWait wait = waitFor(card);
        for (int size : sizes) {
            Histogram h = RttSummary.newHistogram();
            PingPongLoops.client(a, wait, mac, peer.value(), size, warmup, count, h,
                new Progress("pingpong client " + size + " B", (long) warmup + count, System.err));
            out.println(RttSummary.of("shim RTT " + size + " B to " + peer, h).line());
            out.flush();
        }
    }

    /** With --pcap and netns= in the backend: the namespace the tap is opened in (else null: this thread's). */
    private NetworkNamespace tapNamespace() throws IOException {
        String name = params.get("netns");
        return pcap == null || name == null ? null : NetworkNamespace.open(name);
    }

    /** The wait of a node on {@code card}: spinning gives an inline card its thread on every iteration. */
    private FrameWait waitFor(ShimCard card) {
        return spinNanos == 0 ? FrameWait.BLOCK
            : new FrameWait(spinNanos, card.mode() == ShimCard.Mode.INLINE ? card.progress() : null);
    }

    private void checkMtu(ShimCard card) {
        int mtu = card.shim().info().mtu();
        for (int s : sizes) {
            if (s > mtu + ETH_HEADER_LEN) {
                throw new IllegalArgumentException(card.name() + ": MTU " + mtu + " carries frames of at most "
                    + (mtu + ETH_HEADER_LEN) + " B, but --sizes asks for " + s);
            }
        }
    }

    /** Waits (bounded) until the chip has taken the setup frame, so no early frame is filtered. */
    private static void awaitFilter(TulipDriver d, ShimCard card) {
        if (!d.awaitFilterLoaded(TimeUnit.SECONDS.toNanos(5), card.progress())) {
            throw new IllegalStateException(d.name() + ": the setup frame was not processed within 5 s");
        }
    }
}
