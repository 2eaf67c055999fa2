package io.nicbridge.protocols.ip.kernel;

import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.shim.ShimCard;
import io.nicbridge.bridge.shim.ShimStatistics;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.protocols.ip.Ipv4Address;
import io.nicbridge.protocols.ip.Ipv4Stack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/**
 * Our user-level IPv4 stack with the Linux kernel as its peer: a veth pair between two network namespaces, our
 * {@link Ipv4Stack} on the native shim's 21140 (Tulip driver) at end A, whose kernel gets no IPv4 address so only our
 * stack answers for A's address, and the kernel at end B (10.X.Y.2/30) with its transmit offloads off, so that what
 * it sends is finished and at most one MTU long (docs tcpip-gam-facts D1, D2, F: a veth leaves checksums
 * CHECKSUM_PARTIAL and TSO/GSO super-frames for a NIC that is not there). The shim's backend is a device spec
 * ({@code shim:afpacket} or {@code shim:afxdp}, with any further parameters such as the shim's fault injection,
 * {@code shim:afpacket?drop=0.01&dup=0.01&seed=7}); the link fills in the interface, its namespace and the card.
 *
 * <p>One fixture for every kernel-interop use: the IP/ICMP/UDP tests, the TCP tests and {@code nic tcp interop}.
 * Not thread-safe: one thread opens it, polls it and closes it.
 */
public final class KernelLink implements AutoCloseable {
    /** Backends this link accepts: the shim's two targets. */
    public static final String DEFAULT_BACKEND = "shim:afpacket";

    private final VethPair veth;
    private final Card card;
    private final TulipDriver driver;
    private final Ipv4Stack stack;
    private final int kernelAddress;

    private KernelLink(VethPair veth, Card card, TulipDriver driver, Ipv4Stack stack) {
        this.veth = veth;
        this.card = card;
        this.driver = driver;
        this.stack = stack;
        this.kernelAddress = Ipv4Address.of(veth.addressB());
    }

    /**
     * Why the link cannot be built here (namespaces, veth pairs, the shim, or one of {@code tools} missing from the
     * PATH), or null when it can.
     */
    public static String missingPrerequisite(String... tools) {
        Availability veth = VethPair.availability();
        if (!veth.available()) {
            return "network namespaces and veth pairs: " + veth.reason() + " (run as root)";
        }
        Availability shim = new ShimBackendProvider().availability();
        if (!shim.available()) {
            return "the native shim: " + shim.reason();
        }
        for (String tool : tools) {
            if (!onPath(tool)) {
                return tool + " is not on the PATH";
            }
        }
        return null;
    }

    /**
     * Creates the pair and opens our end.
     *
     * @param backend {@code shim:afpacket} or {@code shim:afxdp}, optionally with parameters ({@code ?drop=0.01&...});
     *                not {@code if}, {@code netns} or {@code card}, which the link sets
     * @throws IllegalArgumentException for another backend or a parameter the link sets itself
     */
    public static KernelLink open(String backend) throws IOException, InterruptedException {
        checkBackend(backend); // before any namespace exists
        String spec;
        VethPair veth = VethPair.builder().mtu(VethPair.DEFAULT_MTU).ipv4(true).create();
        Card card = null;
        TulipDriver driver = null;
        try {
            // A's kernel must not answer ARP or pings for the address our stack owns.
            run("ip", "-n", veth.namespaceA().name(), "addr", "flush", "dev", veth.interfaceA());
            run("ip", "netns", "exec", veth.namespaceB().name(), "ethtool", "-K", veth.interfaceB(), "tx", "off", "tso",
                "off", "gso", "off");
            spec = cardSpec(backend, veth.interfaceA(), veth.namespaceA().name());
            card = Backends.open(spec);
            driver = TulipDriver.open(card, TulipConfig.defaults());
            if (!driver.awaitFilterLoaded(TimeUnit.SECONDS.toNanos(10), null)) {
                throw new IOException(spec + ": the 21140's setup frame was not taken within 10 s");
            }
            Ipv4Stack stack = new Ipv4Stack(driver, driver.stationAddress().value(), Ipv4Address.of(veth.addressA()),
                VethPair.PREFIX_LENGTH, Ipv4Stack.ETHERNET_MTU);
            return new KernelLink(veth, card, driver, stack);
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            if (driver != null) {
                driver.close();
            }
            if (card != null) {
                card.close();
            }
            veth.close();
            throw e;
        }
    }

    /**
     * Checks a backend for {@link #open} without opening anything: the scheme, no parameter the link sets itself, and
     * the shim's fault parameters.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static void checkBackend(String backend) {
        ShimBackendProvider.faults(DeviceSpec.parse(cardSpec(backend, "IFACE", "NS")));
    }

    /** The card's device spec: the backend's target and parameters, with the interface, namespace and card set. */
    static String cardSpec(String backend, String ifname, String namespace) {
        DeviceSpec given = DeviceSpec.parse(backend);
        if (!ShimBackendProvider.SCHEME.equals(given.scheme())) {
            throw new IllegalArgumentException("backend '" + backend + "': the kernel link runs on the native shim,"
                + " shim:afpacket or shim:afxdp");
        }
        for (String own : new String[] {"if", "netns", "card"}) {
            if (given.params().containsKey(own)) {
                throw new IllegalArgumentException("backend '" + backend + "': " + own + "= is set by the kernel link");
            }
        }
        StringBuilder spec = new StringBuilder("shim:").append(given.target()).append("?if=").append(ifname)
            .append("&card=dec21140&netns=").append(namespace);
        if (!given.params().containsKey("mode")) {
            spec.append("&mode=threaded");
        }
        given.params().forEach((k, v) -> spec.append('&').append(k).append('=').append(v));
        return spec.toString();
    }

    public Ipv4Stack stack() {
        return stack;
    }

    /** The kernel's address at end B. */
    public int kernelAddress() {
        return kernelAddress;
    }

    /** The namespace of end B, where the kernel-side programs run. */
    public String kernelNamespace() {
        return veth.namespaceB().name();
    }

    /** End B's interface (where a capture sees both directions as the kernel does). */
    public String kernelInterface() {
        return veth.interfaceB();
    }

    /** The card's device spec, as opened. */
    public String cardSpec() {
        return card.spec().toString();
    }

    /** The shim's counters, the injected faults among them. */
    public ShimStatistics shimStatistics() {
        return ((ShimCard) card).statistics();
    }

    /** A program in the kernel's namespace. */
    public KernelPeer exec(String... command) throws IOException {
        return new KernelPeer(kernelNamespace(), command);
    }

    /** A python3 program (its text) in the kernel's namespace. */
    public KernelPeer python(String program, String... args) throws IOException {
        return KernelPeer.python(kernelNamespace(), program, args);
    }

    /** Frames taken per round of {@link #pollUntil} before the transport's timers run. */
    static final int FRAMES_PER_ROUND = 64;

    /**
     * Polls the stack, then {@code alsoPoll} (a transport's timers, given the time; may be null), until the condition
     * holds; backs off when idle.
     *
     * <p>Each frame is handled with the clock read just before it, and the timers with the clock read after the
     * frames waiting: this thread can be descheduled for hundreds of milliseconds on a loaded machine, and a time
     * read before such a stall, given to the frames handled after it, arms the retransmission timer as if their
     * segments had left that long ago - the next round's timers then resent segments the kernel had acknowledged
     * within microseconds (spurious timeouts in 4 of 56 clean 4 MB runs of {@code nic tcp interop} at load 13).
     *
     * @throws IllegalStateException after {@code timeoutNanos}, naming {@code what} and the stack's counters
     */
    public void pollUntil(BooleanSupplier condition, String what, long timeoutNanos, LongConsumer alsoPoll) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("timed out after " + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos)
                    + " s waiting for " + what + "; " + stack.counters());
            }
            int frames = 0;
            while (frames < FRAMES_PER_ROUND && stack.poll(1, System.nanoTime()) > 0) {
                frames++;
            }
            if (alsoPoll != null) {
                alsoPoll.accept(System.nanoTime());
            }
            if (frames == 0) {
                LockSupport.parkNanos(20_000);
            }
        }
    }

    @Override
    public void close() {
        try {
            driver.close();
        } finally {
            try {
                card.close();
            } finally {
                veth.close();
            }
        }
    }

    static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
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
}
