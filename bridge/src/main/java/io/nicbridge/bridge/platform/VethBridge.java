package io.nicbridge.bridge.platform;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.spi.Availability;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Ethernet segment of N stations for tests and experiments: N veth pairs in one fresh network namespace, one
 * end of each (the station's interface) free for a socket or the native shim, the other end a port of a Linux
 * bridge. What a station sends reaches the station it is addressed to, and a broadcast reaches every other station:
 * a switch, where {@link VethPair} is a cable. Nothing outside the namespace sees a frame.
 * <pre>
 *   netns nbS&lt;pid&gt;-&lt;n&gt;
 *   +--------------------------------------------------------------+
 *   |  station 0: nbn..p0 ==veth== nbp..p0 --+                      |
 *   |  station 1: nbn..p1 ==veth== nbp..p1 --+-- bridge nbr.. (STP  |
 *   |  ...                                    |   off: ports forward |
 *   |  station N-1: ...   ==veth== nbp..pN-1 -+   at once)           |
 *   +--------------------------------------------------------------+
 * </pre>
 * Every interface is up with IPv6 off before it exists (the namespace's default), and no interface has an address,
 * so the only frames on the segment are the ones the stations send. Names carry the process id (base 36) and a
 * per-process counter, within Linux's 15 characters. {@link #close()} deletes the namespace, and with it every
 * interface; it never throws. A JVM shutdown hook closes segments a caller forgot.
 */
public final class VethBridge implements AutoCloseable {
    /** The most stations: names keep one base-36 digit per port. */
    public static final int MAX_STATIONS = 36;

    private static final Logger LOG = LoggerFactory.getLogger(VethBridge.class);
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final Set<VethBridge> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOK_INSTALLED = new AtomicBoolean();

    private final int index;
    private final String namespaceName;
    private final String bridgeName;
    private final String[] stations;
    private final String[] ports;
    private final MacAddress[] macs;
    private final int mtu;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile NetworkNamespace namespace;

    private VethBridge(int index, int stationCount, int mtu) {
        this.index = index;
        this.mtu = mtu;
        String tag = Long.toString(VethPair.PID, 36) + "x" + Integer.toString(index, 36);
        this.namespaceName = "nbS" + VethPair.PID + "-" + index;
        this.bridgeName = "nbr" + tag;
        this.stations = new String[stationCount];
        this.ports = new String[stationCount];
        this.macs = new MacAddress[stationCount];
        for (int i = 0; i < stationCount; i++) {
            stations[i] = "nbn" + tag + "p" + Integer.toString(i, 36);
            ports[i] = "nbp" + tag + "p" + Integer.toString(i, 36);
            if (stations[i].length() > VethPair.MAX_INTERFACE_NAME) {
                throw new IllegalStateException("interface name " + stations[i] + " is longer than "
                    + VethPair.MAX_INTERFACE_NAME + " characters (segment counter " + index + ")");
            }
        }
    }

    /**
     * Creates the namespace, the bridge and {@code stations} veth pairs, and waits until every interface is up.
     *
     * @param stations 2 .. {@link #MAX_STATIONS}
     * @param mtu      the MTU of every interface, 68..65535
     * @throws IllegalArgumentException for a count or MTU out of range
     * @throws IOException quoting {@code ip} (or naming the step) when a step fails; everything already built has been
     *                     removed by then
     */
    public static VethBridge create(int stations, int mtu) throws IOException {
        if (stations < 2 || stations > MAX_STATIONS) {
            throw new IllegalArgumentException("stations must be in [2, " + MAX_STATIONS + "], was " + stations);
        }
        if (mtu < 68 || mtu > 65535) {
            throw new IllegalArgumentException("veth MTU must be in 68..65535, got " + mtu);
        }
        VethBridge segment = new VethBridge(COUNTER.getAndIncrement(), stations, mtu);
        installShutdownHook();
        LIVE.add(segment);
        try {
            segment.build();
        } catch (IOException | RuntimeException | Error e) {
            segment.close();
            throw e;
        }
        LOG.info("created {}", segment);
        return segment;
    }

    private void build() throws IOException {
        VethPair.removeStale(namespaceName);
        namespace = NetworkNamespace.create(namespaceName);
        // Before any interface exists, so none is born with IPv6 and none ever sends a neighbour discovery frame.
        VethPair.disableIpv6(namespace, "default");
        VethPair.disableIpv6(namespace, "all");
        // STP off: a port forwards as soon as it is up (with STP on it would listen and learn for forward_delay first).
        IpCommand.check("-n", namespaceName, "link", "add", "name", bridgeName, "type", "bridge", "stp_state", "0");
        IpCommand.check("-n", namespaceName, "link", "set", "dev", bridgeName, "mtu", Integer.toString(mtu), "up");
        for (int i = 0; i < stations.length; i++) {
            IpCommand.check("-n", namespaceName, "link", "add", stations[i], "mtu", Integer.toString(mtu), "type",
                "veth", "peer", "name", ports[i], "mtu", Integer.toString(mtu));
            IpCommand.check("-n", namespaceName, "link", "set", "dev", ports[i], "master", bridgeName);
            IpCommand.check("-n", namespaceName, "link", "set", "dev", ports[i], "up");
            IpCommand.check("-n", namespaceName, "link", "set", "dev", stations[i], "up");
        }
        for (int i = 0; i < stations.length; i++) {
            macs[i] = VethPair.waitUntilUp(namespaceName, stations[i]);
            VethPair.waitUntilUp(namespaceName, ports[i]);
        }
    }

    private static void installShutdownHook() {
        if (HOOK_INSTALLED.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("veth-bridge-cleanup").unstarted(() -> {
                for (VethBridge segment : LIVE) {
                    segment.close();
                }
            }));
        }
    }

    /**
     * Whether segments can be built here, and if not why, as a sentence for a skipped test: {@link VethPair}'s
     * conditions, then a real two-station segment is built and removed (a kernel without the bridge module fails
     * here). Checked once per JVM.
     */
    public static Availability availability() {
        return AvailabilityHolder.RESULT;
    }

    private static final class AvailabilityHolder {
        static final Availability RESULT = probe();

        private static Availability probe() {
            Availability veth = VethPair.availability();
            if (!veth.available()) {
                return veth;
            }
            try (VethBridge trial = create(2, VethPair.DEFAULT_MTU)) {
                LOG.debug("bridged veth segments work here ({} built and removed)", trial);
                return Availability.ok();
            } catch (IOException | RuntimeException e) {
                return Availability.unavailable("creating a Linux bridge of veth pairs failed: " + e.getMessage());
            }
        }
    }

    /** @return the stations */
    public int stations() {
        return stations.length;
    }

    /** @return the namespace every interface is in */
    public NetworkNamespace namespace() {
        return namespace;
    }

    /** @return station {@code i}'s interface (at most 15 characters) */
    public String interfaceName(int i) {
        return stations[i];
    }

    /** @return station {@code i}'s MAC address */
    public MacAddress mac(int i) {
        return macs[i];
    }

    /** @return every station's MAC address, in station order */
    public List<MacAddress> macs() {
        return List.of(macs);
    }

    public int mtu() {
        return mtu;
    }

    /** Deletes the namespace (and with it the bridge and every veth pair). Idempotent; never throws. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        LIVE.remove(this);
        VethPair.deleteQuietly(namespace, namespaceName);
        LOG.debug("closed {}", this);
    }

    @Override
    public String toString() {
        return "bridged veth segment #" + index + " of " + stations.length + " stations in " + namespaceName
            + " (bridge " + bridgeName + ", mtu " + mtu + ")";
    }
}
