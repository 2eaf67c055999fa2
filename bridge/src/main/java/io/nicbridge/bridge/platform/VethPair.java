package io.nicbridge.bridge.platform;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.spi.Availability;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Ethernet link for tests: a veth pair whose two ends sit in two fresh network namespaces, so frames sent on
 * one end arrive on the other and nowhere else (the host's own interfaces never see them).
 * <pre>
 *   netns nbA&lt;pid&gt;-&lt;n&gt;                        netns nbB&lt;pid&gt;-&lt;n&gt;
 *   +---------------------------+        +---------------------------+
 *   |  nbvA&lt;pid&gt;x&lt;n&gt;  10.X.Y.1/30 |========|  nbvB&lt;pid&gt;x&lt;n&gt;  10.X.Y.2/30 |
 *   |  (up, IPv6 off, MTU 1500) |  veth  |  (up, IPv6 off, MTU 1500) |
 *   +---------------------------+        +---------------------------+
 * </pre>
 * Names carry the process id and a per-process counter, so pairs of parallel test JVMs and of one JVM never
 * collide; interface names stay within Linux's 15 characters. IPv6 is disabled in both namespaces (and on both
 * ends) before the link comes up, so the kernel sends no neighbour discovery or router solicitations: the only
 * frames on the wire are the ones a test sends (plus ARP once IPv4 traffic starts).
 *
 * <p>{@link #close()} deletes both namespaces, which deletes the veth ends once no socket or thread holds them;
 * it never throws, also on a pair whose creation failed half-way. A JVM shutdown hook closes pairs a test forgot.
 * {@link #availability()} says whether this machine allows any of it, and why not, for tests to skip with.
 */
public final class VethPair implements KernelPath, AutoCloseable {
    /** Linux IFNAMSIZ - 1. */
    public static final int MAX_INTERFACE_NAME = 15;
    /** The IPv4 prefix of the two addresses: a point-to-point /30 holds exactly .1 and .2. */
    public static final int PREFIX_LENGTH = 30;
    public static final int DEFAULT_MTU = 1500;

    private static final Logger LOG = LoggerFactory.getLogger(VethPair.class);
    static final long PID = ProcessHandle.current().pid();
    private static final AtomicInteger COUNTER = new AtomicInteger();
    /** 10.X.Y.0/30 with X in [200, 255]: the pair index fills X (high part) and Y. */
    private static final int FIRST_SECOND_OCTET = 200;
    private static final int MAX_PAIRS = (256 - FIRST_SECOND_OCTET) * 256;
    private static final long LINK_UP_TIMEOUT_NANOS = 5_000_000_000L;
    private static final Pattern ETHER = Pattern.compile("link/ether ([0-9a-f]{2}(?::[0-9a-f]{2}){5})");
    private static final Pattern LINK_MTU = Pattern.compile(" mtu (\\d+) ");
    private static final Pattern INET = Pattern.compile(" inet (\\d+\\.\\d+\\.\\d+\\.\\d+)/\\d+ ");
    private static final Set<VethPair> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOK_INSTALLED = new AtomicBoolean();

    private final int index;
    private final String namespaceNameA;
    private final String namespaceNameB;
    private final String interfaceA;
    private final String interfaceB;
    private final int mtu;
    private final Inet4Address addressA;
    private final Inet4Address addressB;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Created here (close deletes the namespaces), or an existing pair {@link #attach attached} to (it does not). */
    private final boolean owned;
    private volatile NetworkNamespace namespaceA;
    private volatile NetworkNamespace namespaceB;
    private MacAddress macA;
    private MacAddress macB;

    private VethPair(int index, int mtu, boolean ipv4) {
        this.owned = true;
        this.index = index;
        this.namespaceNameA = "nbA" + PID + "-" + index;
        this.namespaceNameB = "nbB" + PID + "-" + index;
        this.interfaceA = interfaceName('A', index);
        this.interfaceB = interfaceName('B', index);
        this.mtu = mtu;
        this.addressA = ipv4 ? ipv4Address(index, 1) : null;
        this.addressB = ipv4 ? ipv4Address(index, 2) : null;
    }

    /** Interface name {@code nbv<side><pid>x<n>}, falling back to base 36 numbers if that exceeds 15 chars. */
    static String interfaceName(char side, int index) {
        String decimal = "nbv" + side + PID + "x" + Integer.toString(index, 36);
        if (decimal.length() <= MAX_INTERFACE_NAME) {
            return decimal;
        }
        return "nbv" + side + Long.toString(PID, 36) + "x" + Integer.toString(index, 36);
    }

    private static Inet4Address ipv4Address(int index, int host) {
        byte[] a = {10, (byte) (FIRST_SECOND_OCTET + (index >>> 8)), (byte) (index & 0xFF), (byte) host};
        try {
            return (Inet4Address) InetAddress.getByAddress(a);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("4 bytes always make an IPv4 address", e);
        }
    }

    /** A pair with IPv4 addresses and MTU 1500: {@code builder().create()}. */
    public static VethPair create() throws IOException {
        return builder().create();
    }

    /**
     * An existing link whose two ends are {@code interfaceA} in the named network namespace {@code namespaceA} and
     * {@code interfaceB} in {@code namespaceB} (names as {@code ip netns} lists them), e.g. one a user built by hand.
     * Both ends must be up. Their MACs, MTU (the smaller of the two) and first IPv4 address each are read with
     * {@code ip}; {@link #hasIpv4()} is true only when both ends have one. {@link #close()} releases the namespace
     * threads only: the namespaces and the link stay as they were.
     *
     * @throws IOException naming the end that is missing, down or unreadable
     */
    public static VethPair attach(String namespaceA, String interfaceA, String namespaceB, String interfaceB)
        throws IOException {
        Objects.requireNonNull(namespaceA, "namespaceA");
        Objects.requireNonNull(namespaceB, "namespaceB");
        End a = End.read(namespaceA, interfaceA);
        End b = End.read(namespaceB, interfaceB);
        boolean ipv4 = a.address != null && b.address != null;
        VethPair pair = new VethPair(namespaceA, interfaceA, namespaceB, interfaceB, Math.min(a.mtu, b.mtu),
            ipv4 ? a.address : null, ipv4 ? b.address : null);
        pair.macA = a.mac;
        pair.macB = b.mac;
        try {
            pair.namespaceA = NetworkNamespace.open(namespaceA);
            pair.namespaceB = NetworkNamespace.open(namespaceB);
        } catch (IOException | RuntimeException e) {
            pair.close();
            throw e;
        }
        LOG.debug("attached to {}", pair);
        return pair;
    }

    private VethPair(String namespaceA, String interfaceA, String namespaceB, String interfaceB, int mtu,
                     Inet4Address addressA, Inet4Address addressB) {
        this.owned = false;
        this.index = -1;
        this.namespaceNameA = namespaceA;
        this.namespaceNameB = namespaceB;
        this.interfaceA = interfaceA;
        this.interfaceB = interfaceB;
        this.mtu = mtu;
        this.addressA = addressA;
        this.addressB = addressB;
    }

    /** One end of an existing link as {@code ip} shows it. */
    private record End(MacAddress mac, int mtu, Inet4Address address) {
        static End read(String namespace, String ifname) throws IOException {
            if (ifname == null || ifname.isEmpty() || ifname.length() > MAX_INTERFACE_NAME) {
                throw new IllegalArgumentException("interface name must have 1.." + MAX_INTERFACE_NAME
                    + " characters, was '" + ifname + "'");
            }
            if (!NetworkNamespace.exists(namespace)) {
                throw new IOException("no network namespace '" + namespace + "' (ip netns list shows the names)");
            }
            String link = IpCommand.check("-n", namespace, "-o", "link", "show", "dev", ifname);
            if (!link.contains("state UP")) {
                throw new IOException(ifname + " in " + namespace + " is not up: " + link.strip());
            }
            Matcher mac = ETHER.matcher(link.toLowerCase(Locale.ROOT));
            Matcher mtu = LINK_MTU.matcher(link);
            if (!mac.find() || !mtu.find()) {
                throw new IOException("no link/ether address or MTU in: " + link.strip());
            }
            Matcher inet = INET.matcher(IpCommand.check("-n", namespace, "-4", "-o", "addr", "show", "dev", ifname));
            Inet4Address address = null;
            if (inet.find()) {
                address = (Inet4Address) InetAddress.getByName(inet.group(1)); // a literal: no lookup
            }
            return new End(MacAddress.parse(mac.group(1)), Integer.parseInt(mtu.group(1)), address);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Options of a pair to create. */
    public static final class Builder {
        private int mtu = DEFAULT_MTU;
        private boolean ipv4 = true;
        private Consumer<String> afterStep = step -> { };

        private Builder() {
        }

        /** @param mtu the MTU of both ends, 68..65535 (Linux's IPv4 minimum to veth's maximum) */
        public Builder mtu(int mtu) {
            if (mtu < 68 || mtu > 65535) {
                throw new IllegalArgumentException("veth MTU must be in 68..65535, got " + mtu);
            }
            this.mtu = mtu;
            return this;
        }

        /** @param ipv4 whether to give the ends {@code 10.X.Y.1/30} and {@code 10.X.Y.2/30} (default true) */
        public Builder ipv4(boolean ipv4) {
            this.ipv4 = ipv4;
            return this;
        }

        /** Test seam: called after each named creation step; throwing from it aborts the creation there. */
        Builder afterStep(Consumer<String> hook) {
            this.afterStep = Objects.requireNonNull(hook, "hook");
            return this;
        }

        /**
         * Creates the namespaces, the link and the configuration, and waits until both ends are up.
         *
         * @throws IOException quoting {@code ip} (or naming the setns/sysctl step) when a step fails; everything
         *                     already built has been removed by then
         */
        public VethPair create() throws IOException {
            int index = COUNTER.getAndIncrement();
            if (index >= MAX_PAIRS) {
                throw new IllegalStateException("this JVM created " + MAX_PAIRS + " veth pairs; 10.200-255.x.y is full");
            }
            VethPair pair = new VethPair(index, mtu, ipv4);
            installShutdownHook();
            LIVE.add(pair);
            try {
                pair.build(afterStep);
            } catch (IOException | RuntimeException | Error e) {
                pair.close();
                throw e;
            }
            LOG.info("created {}", pair);
            return pair;
        }
    }

    private static void installShutdownHook() {
        if (HOOK_INSTALLED.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("veth-pair-cleanup").unstarted(() -> {
                for (VethPair pair : LIVE) {
                    pair.close();
                }
            }));
        }
    }

    private void build(Consumer<String> afterStep) throws IOException {
        removeStale(namespaceNameA);
        removeStale(namespaceNameB);
        namespaceA = NetworkNamespace.create(namespaceNameA);
        namespaceB = NetworkNamespace.create(namespaceNameB);
        afterStep.accept("namespaces");
        // Before the interfaces exist, so they are born without IPv6 and never send a single ND frame.
        disableIpv6(namespaceA, "default");
        disableIpv6(namespaceA, "all");
        disableIpv6(namespaceB, "default");
        disableIpv6(namespaceB, "all");
        afterStep.accept("ipv6");
        // Both ends are created directly in their namespaces: neither name ever exists in the root namespace.
        IpCommand.check("link", "add", interfaceA, "netns", namespaceNameA, "type", "veth",
            "peer", "name", interfaceB, "netns", namespaceNameB);
        afterStep.accept("link");
        configure(namespaceA, interfaceA, addressA);
        configure(namespaceB, interfaceB, addressB);
        afterStep.accept("configure");
        macA = waitUntilUp(namespaceNameA, interfaceA);
        macB = waitUntilUp(namespaceNameB, interfaceB);
        afterStep.accept("up");
    }

    /**
     * A namespace with our name can only be left over by a dead process that had our pid (names carry the pid and
     * this JVM's counter never repeats): remove it so the name can be used.
     */
    static void removeStale(String name) throws IOException {
        if (NetworkNamespace.exists(name)) {
            LOG.warn("removing stale network namespace {} left by an earlier process with pid {}", name, PID);
            IpCommand.check("netns", "del", name);
        }
    }

    private void configure(NetworkNamespace ns, String ifname, Inet4Address address) throws IOException {
        disableIpv6(ns, ifname);
        IpCommand.check("-n", ns.name(), "link", "set", "dev", ifname, "mtu", Integer.toString(mtu));
        if (address != null) {
            IpCommand.check("-n", ns.name(), "addr", "add", address.getHostAddress() + "/" + PREFIX_LENGTH,
                "dev", ifname);
        }
        IpCommand.check("-n", ns.name(), "link", "set", "dev", ifname, "up");
    }

    /**
     * Writes {@code 1} to {@code net.ipv6.conf.WHICH.disable_ipv6} of {@code ns}: {@code /proc/sys/net} shows the
     * namespace of the thread that opens it, so the write runs on the namespace's thread. A kernel without IPv6 has
     * no such file and nothing to disable.
     */
    static void disableIpv6(NetworkNamespace ns, String which) throws IOException {
        Path sysctl = Path.of("/proc/sys/net/ipv6/conf", which, "disable_ipv6");
        try {
            ns.call(() -> {
                if (Files.exists(Path.of("/proc/sys/net/ipv6"))) {
                    Files.writeString(sysctl, "1\n");
                }
                return null;
            });
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("cannot set " + sysctl + " in " + ns, e);
        }
    }

    /** Waits for operstate UP (the kernel attaches the qdisc a moment after "link set up") and reads the MAC. */
    static MacAddress waitUntilUp(String namespace, String ifname) throws IOException {
        long deadline = System.nanoTime() + LINK_UP_TIMEOUT_NANOS;
        while (true) {
            String out = IpCommand.check("-n", namespace, "-o", "link", "show", "dev", ifname);
            if (out.contains("state UP")) {
                Matcher m = ETHER.matcher(out.toLowerCase(Locale.ROOT));
                if (!m.find()) {
                    throw new IOException("no link/ether address in: " + out.strip());
                }
                return MacAddress.parse(m.group(1));
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(ifname + " in " + namespace + " did not come up within "
                    + LINK_UP_TIMEOUT_NANOS / 1_000_000 + " ms: " + out.strip());
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted waiting for " + ifname + " to come up", e);
            }
        }
    }

    /**
     * Whether veth pairs in network namespaces can be made here, and if not, why, as a sentence for a skipped
     * test. Checked once per JVM: the capabilities first (for a precise reason), then a real pair is created and
     * deleted (the only way to know a container does not forbid one of the steps).
     */
    public static Availability availability() {
        return AvailabilityHolder.RESULT;
    }

    private static final class AvailabilityHolder {
        static final Availability RESULT = probe();

        private static Availability probe() {
            String os = System.getProperty("os.name", "");
            if (!os.toLowerCase(Locale.ROOT).contains("linux")) {
                return Availability.unavailable("veth pairs and network namespaces need Linux; this is " + os);
            }
            if (!LinuxCapabilities.has(LinuxCapabilities.CAP_SYS_ADMIN)
                || !LinuxCapabilities.has(LinuxCapabilities.CAP_NET_ADMIN)) {
                return Availability.unavailable("not root: creating network namespaces and veth links needs "
                    + "CAP_SYS_ADMIN and CAP_NET_ADMIN (run as root)");
            }
            try {
                IpCommand.run("-V");
            } catch (IOException e) {
                return Availability.unavailable("no 'ip' command (install iproute2): " + e.getMessage());
            }
            LinuxCapabilities.Probe netns = LinuxCapabilities.probeNetworkNamespaces();
            if (!netns.permitted()) {
                return Availability.unavailable(netns.detail());
            }
            try (VethPair trial = builder().ipv4(false).create()) {
                LOG.debug("veth pairs work here ({} built and removed)", trial);
                return Availability.ok();
            } catch (IOException | RuntimeException | LinkageError e) {
                return Availability.unavailable("creating a veth pair failed: " + e.getMessage());
            }
        }
    }

    public NetworkNamespace namespaceA() {
        return namespaceA;
    }

    public NetworkNamespace namespaceB() {
        return namespaceB;
    }

    /** @return the name of the end in namespace A (at most 15 characters) */
    public String interfaceA() {
        return interfaceA;
    }

    /** @return the name of the end in namespace B (at most 15 characters) */
    public String interfaceB() {
        return interfaceB;
    }

    public MacAddress macA() {
        return macA;
    }

    public MacAddress macB() {
        return macB;
    }

    public int mtu() {
        return mtu;
    }

    /** @return whether the ends have IPv4 addresses */
    public boolean hasIpv4() {
        return addressA != null && addressB != null;
    }

    /**
     * @return {@code 10.X.Y.1}, the address of the end in namespace A
     * @throws IllegalStateException when the pair was built without addresses
     */
    public Inet4Address addressA() {
        return requireIpv4(addressA);
    }

    /**
     * @return {@code 10.X.Y.2}, the address of the end in namespace B
     * @throws IllegalStateException when the pair was built without addresses
     */
    public Inet4Address addressB() {
        return requireIpv4(addressB);
    }

    private Inet4Address requireIpv4(Inet4Address address) {
        if (address == null) {
            throw new IllegalStateException(this + " was created without IPv4 addresses (builder().ipv4(true))");
        }
        return address;
    }

    /**
     * Sets end A ({@code endA} true) or end B administratively up or down ({@code ip link set dev X up|down} in its
     * namespace). Taking one end down takes the carrier away from the other (it stops running): what a pulled
     * cable does to a NIC.
     *
     * @throws IOException naming the command and quoting what {@code ip} said when it failed
     * @throws IllegalStateException after {@link #close()}
     */
    public void setUp(boolean endA, boolean up) throws IOException {
        if (closed.get()) {
            throw new IllegalStateException(this + " is closed");
        }
        IpCommand.check("-n", endA ? namespaceNameA : namespaceNameB, "link", "set", "dev",
            endA ? interfaceA : interfaceB, up ? "up" : "down");
    }

    /** @return whether {@link #close()} has run */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Deletes both namespaces (and with them the veth ends). Idempotent; never throws: a failure is logged, and
     * parts never built are skipped.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        LIVE.remove(this);
        if (!owned) {
            // Someone else's pair: give back the namespace threads, leave the namespaces and the link alone.
            if (namespaceA != null) {
                namespaceA.close();
            }
            if (namespaceB != null) {
                namespaceB.close();
            }
            LOG.debug("released {}", this);
            return;
        }
        deleteQuietly(namespaceB, namespaceNameB);
        deleteQuietly(namespaceA, namespaceNameA);
        LOG.debug("closed {}", this);
    }

    static void deleteQuietly(NetworkNamespace ns, String name) {
        try {
            if (ns != null) {
                ns.delete();
            } else if (NetworkNamespace.exists(name)) {
                // Created by ip netns add but never opened: the build stopped in between.
                IpCommand.check("netns", "del", name);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not delete network namespace {}: {}", name, e.getMessage());
        }
    }

    @Override
    public String toString() {
        return (owned ? "veth pair #" + index : "existing link") + " " + namespaceNameA + "/" + interfaceA
            + (addressA != null ? " " + addressA.getHostAddress() : "")
            + " <-> " + namespaceNameB + "/" + interfaceB
            + (addressB != null ? " " + addressB.getHostAddress() : "") + " mtu " + mtu;
    }
}
