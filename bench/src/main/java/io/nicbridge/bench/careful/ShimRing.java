package io.nicbridge.bench.careful;

import io.nicbridge.bench.careful.CStarRing.Protocol;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.platform.VethBridge;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.shim.ShimTulipLinks;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.protocols.careful.CarefulConfig;
import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.ThreadPerNodeRunner;
import io.nicbridge.protocols.traditional.TraditionalConfig;
import io.nicbridge.protocols.traditional.TraditionalCore;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * The same C* cluster as {@link CStarRing} on real hardware's stand-in, in real time: P native-shim 21140s on the
 * stations of a Linux bridge of veth pairs ({@link VethBridge}, {@link ShimTulipLinks}), one {@code TulipLink} and one
 * C* core per node, each node on its own thread ({@link ThreadPerNodeRunner}), the shim's card threads raising the
 * interrupts. The cores are unchanged: only the link differs (Ethernet broadcast, the 21140's plain copy-and-sum send).
 * The application runs serialised on itself (one lock): the experiments' programs keep their state in one object.
 *
 * <p>Buffers: the careful protocol manages R = the 21140's receive ring (128) - (P - 1), as on the Medusa; the
 * traditional one has the Medusa's budget ({@link TraditionalConfig#medusa}), which the ring holds.
 */
final class ShimRing implements AutoCloseable {
    /** The receiver's timeout of the traditional protocol: large, as the paper kept it; the segment loses nothing. */
    static final long TRADITIONAL_TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** The largest fragment: what one Ethernet frame carries after the 21140 link's and the cores' headers. */
    static final int MAX_FRAGMENT = 1400;
    /** The veth MTU: room for the largest frame the 21140 link sends. */
    static final int MTU = 1600;
    /** An idle node parks at most this long before polling its link again. */
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final VethBridge segment;
    private final ShimTulipLinks stations;
    private final CStarNetwork[] cores;
    private final ThreadPerNodeRunner runner;

    /**
     * @throws IOException when the segment cannot be built (the namespace, the bridge or a veth pair)
     */
    ShimRing(int nodes, Protocol protocol, CostTable costs, Object lock, NodeApplication application)
            throws IOException {
        segment = VethBridge.create(nodes, MTU);
        ShimTulipLinks opened = null;
        ThreadPerNodeRunner started = null;
        cores = new CStarNetwork[nodes];
        try {
            opened = ShimTulipLinks.on(segment, ShimTulipLinks.Mode.THREADED);
            CarefulConfig careful = CarefulConfig.defaults().withReceiveBuffers(TulipConfig.defaults().rxRingSize()
                    - (nodes - 1)).withEventSlots(64);
            TraditionalConfig traditional = TraditionalConfig.medusa(MAX_FRAGMENT, TRADITIONAL_TIMEOUT_NANOS);
            NodeApplication serialised = node -> {
                synchronized (lock) {
                    application.afterEvent(node);
                }
            };
            started = new ThreadPerNodeRunner("cstar-shim-" + protocol.column, opened.links(), costs,
                    (l, clock, cpu) -> cores[l.self()] = protocol == Protocol.CAREFUL ? new CarefulCore(l, careful, cpu)
                            : new TraditionalCore(l, clock, cpu, traditional), serialised, MAX_PARK_NANOS);
        } catch (RuntimeException | Error e) {
            if (opened != null) {
                opened.close();
            }
            segment.close();
            throw e;
        }
        stations = opened;
        runner = started;
    }

    /** @return why the shim or bridged veth segments cannot run here, or null when they can */
    static String missingPrerequisite() {
        Availability segments = VethBridge.availability();
        if (!segments.available()) {
            return "network namespaces, veth pairs and a Linux bridge: " + segments.reason() + " (run as root)";
        }
        Availability shim = new ShimBackendProvider().availability();
        return shim.available() ? null : "the native shim: " + shim.reason();
    }

    ThreadPerNodeRunner runner() {
        return runner;
    }

    int nodes() {
        return cores.length;
    }

    /** @return frames reported as breaking the protocol's assumptions, over all nodes (after {@link #close}) */
    long violations() {
        long n = 0;
        for (CStarNetwork c : cores) {
            n += c.violations();
        }
        return n;
    }

    /** @return the cards' statistics, for the report */
    String cardStatistics() {
        return stations.cardStatistics();
    }

    /** Stops the node threads, then closes the links, drivers and cards, then deletes the segment. */
    @Override
    public void close() {
        runner.close();
        stations.close();
        segment.close();
    }
}
