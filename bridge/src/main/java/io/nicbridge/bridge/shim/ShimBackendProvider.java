package io.nicbridge.bridge.shim;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.platform.LinuxCapabilities;
import io.nicbridge.bridge.platform.NetworkNamespace;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.bridge.spi.BackendProvider;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.contract.NicShim;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The native driver shim as a backend: {@code shim:afpacket?if=IFACE&card=dec21140|sba200[&...]}, or the same card
 * contracts over AF_XDP: {@code shim:afxdp?if=IFACE&card=...[&queue=N][&bind=copy|zerocopy|auto]
 * [&attach=native|generic|auto][&busy-poll=MICROS]} (nicshim.h "AF_XDP": the UMEM is a segment this card allocates).
 * <ul>
 *   <li>{@code if} (required): the Linux interface, e.g. {@code eth1} or one end of a veth pair;</li>
 *   <li>{@code card} (required): {@code dec21140} (the 21140 descriptor rings) or {@code sba200} (U-Net endpoints,
 *       one PDU per tagged Ethernet frame, nicshim.h "U-Net over Ethernet");</li>
 *   <li>{@code mode}: {@code threaded} (default; a card thread) or {@code inline} (card work on the driver's
 *       threads: lowest latency, needs a driver that waits on the interrupt line), see {@link ShimCard};</li>
 *   <li>{@code netns}: a named network namespace ({@code ip netns}) the interface lives in; the shim's sockets
 *       are created there;</li>
 *   <li>{@code rx-ring}, {@code tx-ring} (PACKET_MMAP frames, powers of two, default 256), {@code frame-size}
 *       (default 2048), {@code budget} (frames per direction per poll, default 64);</li>
 *   <li>{@code promisc}, {@code qdisc-bypass}: {@code true|false} (default false);</li>
 *   <li>{@code tx}: {@code ring} (default; frames leave through a PACKET_MMAP TX ring, one sendto per batch) or
 *       {@code send} (no ring: the frames of one card round leave with one send() or sendmmsg() from linear buffers;
 *       on a veth, whose peer keeps the frame, this saves the kernel's second copy of the ring's zero-copy pages;
 *       nicshim.h NICSHIM_OPT_TX_SEND);</li>
 *   <li>{@code ethertype} (sba200; default 0x88b5) and {@code peer} (sba200: the destination MAC, written
 *       {@code 02-00-00-00-00-02}; default broadcast).</li>
 *   <li>afxdp only: {@code queue} (the queue id to bind, default 0), {@code bind} ({@code auto}: zero-copy where the
 *       driver has it, else copy; {@code copy}; {@code zerocopy}: fails where the driver has none), {@code attach}
 *       ({@code auto}: native XDP, else generic; {@code native}; {@code generic}), {@code busy-poll} (SO_BUSY_POLL
 *       microseconds, default 0 = off). {@code rx-ring}/{@code tx-ring} size the XSK rings, {@code frame-size} is the
 *       UMEM chunk (2048 or 4096); {@code tx} and {@code qdisc-bypass} do not apply. ({@code mode} keeps its meaning,
 *       threaded or inline, on both targets.)</li>
 *   <li>fault injection in the shim ({@link ShimFaults}, both targets): {@code drop}, {@code dup}, {@code reorder},
 *       {@code corrupt} (probabilities per frame, e.g. {@code 0.01}; default 0, their sum at most 1), {@code seed}
 *       (default 1) and {@code faults} ({@code both} (default), {@code rx} or {@code tx}: the directions).</li>
 * </ul>
 * Needs CAP_NET_RAW (AF_PACKET) and the library built by the native-headers module ({@link ShimLibrary}).
 */
public final class ShimBackendProvider implements BackendProvider {
    public static final String SCHEME = "shim";
    public static final String TARGET = "afpacket";
    /** The AF_XDP target. */
    public static final String TARGET_AF_XDP = "afxdp";
    private static final Set<String> PARAMS = Set.of("if", "card", "mode", "netns", "rx-ring", "tx-ring",
        "frame-size", "budget", "promisc", "qdisc-bypass", "tx", "ethertype", "peer", "drop", "dup", "reorder",
        "corrupt", "seed", "faults");
    private static final Set<String> XDP_PARAMS = Set.of("if", "card", "mode", "netns", "rx-ring", "tx-ring",
        "frame-size", "budget", "promisc", "ethertype", "peer", "queue", "bind", "attach", "busy-poll", "drop", "dup",
        "reorder", "corrupt", "seed", "faults");

    /** For {@link java.util.ServiceLoader}. */
    public ShimBackendProvider() {
    }

    @Override
    public String scheme() {
        return SCHEME;
    }

    @Override
    public List<String> cards() {
        return List.of(ShimCardKind.DEC21140.cardName(), ShimCardKind.SBA200.cardName());
    }

    @Override
    public Availability availability() {
        Availability library = ShimLibrary.availability();
        if (!library.available()) {
            return library;
        }
        if (!LinuxCapabilities.has(LinuxCapabilities.CAP_NET_RAW)) {
            return Availability.unavailable("AF_PACKET sockets need CAP_NET_RAW: run as root, or grant it with"
                + " 'sudo setcap cap_net_raw+ep' on the java binary");
        }
        return Availability.ok();
    }

    /**
     * Whether {@code shim:afxdp} can run here: the shim's own needs, plus what the XSKMAP and the XDP program need
     * (CAP_SYS_ADMIN, or CAP_BPF with CAP_NET_ADMIN: shared/reference/afxdp-facts.md §6).
     */
    public static Availability xdpAvailability() {
        Availability shim = new ShimBackendProvider().availability();
        if (!shim.available()) {
            return shim;
        }
        boolean bpf = LinuxCapabilities.has(LinuxCapabilities.CAP_SYS_ADMIN)
            || (LinuxCapabilities.has(CAP_BPF) && LinuxCapabilities.has(LinuxCapabilities.CAP_NET_ADMIN));
        if (!bpf) {
            return Availability.unavailable("AF_XDP needs an XSKMAP and an XDP program: CAP_SYS_ADMIN, or CAP_BPF"
                + " with CAP_NET_ADMIN (run as root)");
        }
        return Availability.ok();
    }

    /** {@code CAP_BPF} (Linux 5.8). */
    private static final int CAP_BPF = 39;

    @Override
    public List<String> exampleSpecs() {
        return List.of("shim:afpacket?if=<iface>&card=dec21140",
            "shim:afpacket?if=<iface>&card=dec21140&mode=inline&netns=<ns>",
            "shim:afpacket?if=<iface>&card=sba200&peer=02-00-00-00-00-02",
            "shim:afxdp?if=<iface>&card=dec21140&queue=0&bind=auto&attach=auto");
    }

    @Override
    public Card open(DeviceSpec spec) {
        boolean xdp = TARGET_AF_XDP.equals(spec.target());
        if (!TARGET.equals(spec.target()) && !xdp) {
            throw new IllegalArgumentException("device spec '" + spec + "': the shim's targets are '" + TARGET
                + "' and '" + TARGET_AF_XDP + "', e.g. " + exampleSpecs().getFirst());
        }
        Set<String> allowed = xdp ? XDP_PARAMS : PARAMS;
        for (String key : spec.params().keySet()) {
            if (!allowed.contains(key)) {
                throw new IllegalArgumentException("device spec '" + spec + "': unknown parameter '" + key
                    + "'; shim:" + spec.target() + " takes " + allowed.stream().sorted().toList());
            }
        }
        String ifname = spec.param("if").orElseThrow(() -> new IllegalArgumentException("device spec '" + spec
            + "': the interface is missing, e.g. " + exampleSpecs().getFirst()));
        if (ifname.length() > 15) {
            throw new IllegalArgumentException("device spec '" + spec + "': interface names have at most 15"
                + " characters, '" + ifname + "' has " + ifname.length());
        }
        ShimCardKind kind = ShimCardKind.forName(spec.card());
        ShimCard.Mode mode = switch (spec.param("mode", "threaded").toLowerCase(Locale.ROOT)) {
            case "threaded" -> ShimCard.Mode.THREADED;
            case "inline" -> ShimCard.Mode.INLINE;
            default -> throw new IllegalArgumentException("device spec '" + spec + "': mode must be threaded or"
                + " inline, was '" + spec.param("mode", "") + "'");
        };
        ShimOptions options = xdp ? xdpOptions(spec, options(spec, kind)) : options(spec, kind);
        ShimFaults faults = faults(spec);
        ShimLibrary.require();
        String netns = spec.param("netns").orElse(null);
        if (netns == null) {
            return new ShimCard(spec, kind, mode, ifname, options, faults, ShimCard.NamespaceRunner.CURRENT);
        }
        NetworkNamespace ns;
        try {
            ns = NetworkNamespace.open(netns);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("device spec '" + spec + "': cannot enter network namespace '" + netns
                + "': " + e.getMessage(), e);
        }
        try {
            // The namespace's thread is needed only while the card opens (and restarts) its sockets.
            return new ShimCard(spec, kind, mode, ifname, options, faults, new InNamespace(ns));
        } catch (RuntimeException | Error e) {
            ns.close();
            throw e;
        }
    }

    /** What {@link #openUnetEndpoint} takes: the AF_XDP socket's parameters and U-Net over Ethernet's. */
    private static final Set<String> DIRECT_PARAMS = Set.of("if", "card", "netns", "rx-ring", "tx-ring",
        "frame-size", "ethertype", "peer", "queue", "bind", "attach", "busy-poll");
    /** The card name of a direct-access U-Net endpoint: none is modelled, the endpoint's queues are the XSK rings. */
    public static final String CARD_UNET_DIRECT = "unet-direct";

    /**
     * A direct-access U-Net endpoint ({@link XskUnetEndpoint}) on {@code shim:afxdp?if=IFACE&card=unet-direct[&netns=NS]
     * [&peer=MAC][&ethertype=T][&queue=N][&bind=..][&attach=..][&busy-poll=US][&rx-ring=N][&tx-ring=N][&frame-size=C]}:
     * the same parameters as the afxdp card backend, with no card model.
     *
     * @param segmentBytes the process's part of the communication segment (see {@link XskUnetEndpoint#open})
     * @throws IllegalArgumentException for another target or card, an unknown parameter or a bad value
     */
    public static XskUnetEndpoint openUnetEndpoint(String deviceSpec, long segmentBytes) {
        DeviceSpec spec = DeviceSpec.parse(deviceSpec);
        if (!SCHEME.equals(spec.scheme()) || !TARGET_AF_XDP.equals(spec.target())
            || !CARD_UNET_DIRECT.equals(spec.card())) {
            throw new IllegalArgumentException("device spec '" + spec + "': a direct-access U-Net endpoint is shim:"
                + TARGET_AF_XDP + "?if=<iface>&card=" + CARD_UNET_DIRECT);
        }
        for (String key : spec.params().keySet()) {
            if (!DIRECT_PARAMS.contains(key)) {
                throw new IllegalArgumentException("device spec '" + spec + "': unknown parameter '" + key
                    + "'; a direct-access U-Net endpoint takes " + DIRECT_PARAMS.stream().sorted().toList());
            }
        }
        String ifname = spec.param("if").orElseThrow(() -> new IllegalArgumentException("device spec '" + spec
            + "': the interface is missing, e.g. shim:afxdp?if=veth0&card=" + CARD_UNET_DIRECT));
        ShimOptions options = xdpOptions(spec, options(spec, ShimCardKind.SBA200));
        ShimLibrary.require();
        String netns = spec.param("netns").orElse(null);
        if (netns == null) {
            return XskUnetEndpoint.open(ifname, options, segmentBytes, ShimCard.NamespaceRunner.CURRENT);
        }
        NetworkNamespace ns;
        try {
            ns = NetworkNamespace.open(netns);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("device spec '" + spec + "': cannot enter network namespace '" + netns
                + "': " + e.getMessage(), e);
        }
        // The namespace's thread is needed only while the socket opens.
        try (InNamespace in = new InNamespace(ns)) {
            return XskUnetEndpoint.open(ifname, options, segmentBytes, in);
        }
    }

    private static ShimOptions options(DeviceSpec spec, ShimCardKind kind) {
        int flags = 0;
        if (bool(spec, "promisc")) {
            flags |= NicShim.OPT_PROMISC;
        }
        if (bool(spec, "qdisc-bypass")) {
            flags |= NicShim.OPT_QDISC_BYPASS;
        }
        switch (spec.param("tx", "ring")) {
            case "ring" -> { }
            case "send" -> flags |= NicShim.OPT_TX_SEND;
            default -> throw new IllegalArgumentException("device spec '" + spec + "': tx must be ring or send, was '"
                + spec.param("tx", "") + "'");
        }
        if (kind != ShimCardKind.SBA200 && (spec.param("ethertype").isPresent() || spec.param("peer").isPresent())) {
            throw new IllegalArgumentException("device spec '" + spec + "': ethertype and peer are for card=sba200");
        }
        byte[] peer = spec.param("peer").map(p -> MacAddress.parse(p).toBytes()).orElse(new byte[6]);
        int ethertype = spec.param("ethertype").map(t -> number(spec, "ethertype", t)).orElse(0);
        return new ShimOptions(flags, number(spec, "rx-ring"), number(spec, "tx-ring"), number(spec, "frame-size"),
            number(spec, "budget"), ethertype, peer);
    }

    /**
     * The shim's fault injection from a spec's {@code drop}, {@code dup}, {@code reorder}, {@code corrupt}, {@code seed}
     * and {@code faults} parameters.
     *
     * @throws IllegalArgumentException naming the spec and the bad parameter
     */
    public static ShimFaults faults(DeviceSpec spec) {
        int directions = switch (spec.param("faults", "both")) {
            case "both" -> ShimFaults.BOTH;
            case "rx" -> NicShim.FAULT_RX;
            case "tx" -> NicShim.FAULT_TX;
            default -> throw new IllegalArgumentException("device spec '" + spec + "': faults must be both, rx or tx,"
                + " was '" + spec.param("faults", "") + "'");
        };
        long seed;
        try {
            seed = Long.parseLong(spec.param("seed", "1"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("device spec '" + spec + "': seed must be an integer, was '"
                + spec.param("seed", "") + "'", e);
        }
        try {
            return new ShimFaults(directions, seed, probability(spec, "drop"), probability(spec, "dup"),
                probability(spec, "reorder"), probability(spec, "corrupt"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("device spec '" + spec + "': " + e.getMessage(), e);
        }
    }

    private static double probability(DeviceSpec spec, String key) {
        String v = spec.param(key, "0");
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("device spec '" + spec + "': " + key + " must be a probability such as"
                + " 0.01, was '" + v + "'", e);
        }
    }

    /** The AF_XDP fields on top of the common ones. */
    private static ShimOptions xdpOptions(DeviceSpec spec, ShimOptions common) {
        int bind = switch (spec.param("bind", "auto")) {
            case "auto" -> NicShim.XDP_BIND_AUTO;
            case "copy" -> NicShim.XDP_BIND_COPY;
            case "zerocopy" -> NicShim.XDP_BIND_ZEROCOPY;
            default -> throw new IllegalArgumentException("device spec '" + spec + "': bind must be auto, copy or"
                + " zerocopy, was '" + spec.param("bind", "") + "'");
        };
        int attach = switch (spec.param("attach", "auto")) {
            case "auto" -> NicShim.XDP_ATTACH_AUTO;
            case "native" -> NicShim.XDP_ATTACH_NATIVE;
            case "generic" -> NicShim.XDP_ATTACH_GENERIC;
            default -> throw new IllegalArgumentException("device spec '" + spec + "': attach must be auto, native or"
                + " generic, was '" + spec.param("attach", "") + "'");
        };
        int frameSize = common.frameSize();
        if (frameSize != 0 && frameSize != 2048 && frameSize != 4096) {
            throw new IllegalArgumentException("device spec '" + spec + "': frame-size is the UMEM chunk on afxdp and"
                + " must be 2048 or 4096, was " + frameSize);
        }
        return new ShimOptions(common.flags(), common.rxRingFrames(), common.txRingFrames(), frameSize,
            common.pollBudget(), common.unetEthertype(), common.unetPeerMac(), NicShim.BACKEND_AF_XDP,
            number(spec, "queue"), bind | attach, number(spec, "busy-poll"));
    }

    private static boolean bool(DeviceSpec spec, String key) {
        String v = spec.param(key, "false");
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException("device spec '" + spec + "': " + key + " must be true or false, was '"
                + v + "'");
        }
        return v.equals("true");
    }

    private static int number(DeviceSpec spec, String key) {
        return spec.param(key).map(v -> number(spec, key, v)).orElse(0);
    }

    private static int number(DeviceSpec spec, String key, String v) {
        try {
            int n = v.startsWith("0x") ? Integer.parseInt(v.substring(2), 16) : Integer.parseInt(v);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("device spec '" + spec + "': " + key + " must be a non-negative number,"
                + " was '" + v + "'");
        }
    }

    /** Runs the shim's setup calls on the namespace's own thread. */
    private record InNamespace(NetworkNamespace ns) implements ShimCard.NamespaceRunner {
        @Override
        public <T> T run(java.util.concurrent.Callable<T> task) {
            try {
                return ns.call(task);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("in network namespace " + ns.name() + ": " + e.getMessage(), e);
            }
        }

        @Override
        public void close() {
            ns.close();
        }
    }
}
