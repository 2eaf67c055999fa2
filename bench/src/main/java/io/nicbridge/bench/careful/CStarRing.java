package io.nicbridge.bench.careful;

import io.nicbridge.bench.medusa.MedusaRingWorld;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.medusa.MedusaLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.contract.Medusa;
import io.nicbridge.protocols.careful.CarefulConfig;
import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.traditional.TraditionalConfig;
import io.nicbridge.protocols.traditional.TraditionalCore;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;

/**
 * One C* cluster of the paper's section 6: P emulated Medusa cards on an FDDI ring of exactly P stations, in virtual
 * time, one {@link MedusaLink} per node, and the C* network layer on each node (the traditional or the careful core,
 * by {@link Protocol}), driven by one {@link NodeRunner} whose nodes' CPUs are priced by one cost table. The same
 * application runs on either protocol.
 *
 * <p>Buffers: the driver gives {@code receiveBuffers} of the card's 128 to receiving (64 by default: the
 * traditional protocol's {@link TraditionalConfig#medusa} budget); the careful protocol manages
 * R = receiveBuffers - (P - 1) of them (the link needs one more per peer for an update frame in flight).
 */
final class CStarRing implements AutoCloseable {
    /** The C* network layer's two implementations (TR 94-14 sections 5.2 and 5.3). */
    enum Protocol {
        TRADITIONAL("trad"), CAREFUL("care");

        final String column;

        Protocol(String column) {
            this.column = column;
        }
    }

    /** The largest fragment the experiments send: 2000 words. */
    static final int MAX_FRAGMENT = 8000;
    /**
     * The traditional protocol's receive timeout: kept large, as the paper did ("we deliberately kept the
     * retransmission timeouts too large because packet loss is so rare"): longer than the slowest round of the
     * latency test (8 hops of 2000 words, about 5.2 ms of wire time). A 2 ms timeout fires while a node merely waits
     * for the message to come round and retransmits what the ring never lost.
     */
    static final long TRADITIONAL_TIMEOUT_NANOS = 20_000_000;
    /** The driver's default split of the card's 128 buffers. */
    static final int DEFAULT_RECEIVE_BUFFERS = 64;

    private final MedusaRingWorld world;
    private final MedusaLink[] links;
    private final CStarNetwork[] cores;
    private final NodeRunner runner;

    /**
     * @param nodes          P, 2..8
     * @param receiveBuffers the card's buffers given to receiving (the rest transmit; 127 leaves one on-board
     *                       transmit buffer, the paper's one-buffer variant)
     * @param application    the program every node runs
     * @throws IllegalArgumentException when {@code costs} does not price an operation a core performs (the table's
     *                                  own message)
     */
    CStarRing(int nodes, Protocol protocol, CostTable costs, long seed, int receiveBuffers,
              NodeApplication application) {
        world = new MedusaRingWorld(nodes, EngineMode.VIRTUAL, seed, receiveBuffers, true);
        try {
            long[] stations = new long[nodes];
            for (int i = 0; i < nodes; i++) {
                stations[i] = world.drivers().get(i).stationAddress();
            }
            links = new MedusaLink[nodes];
            for (int i = 0; i < nodes; i++) {
                links[i] = new MedusaLink(world.drivers().get(i), stations, Medusa.FC_LLC_ASYNC_DEFAULT);
            }
            VirtualTimeBase time = world.virtualTime();
            cores = new CStarNetwork[nodes];
            CarefulConfig careful = CarefulConfig.defaults().withReceiveBuffers(receiveBuffers - (nodes - 1))
                    .withEventSlots(64);
            TraditionalConfig traditional = TraditionalConfig.medusa(MAX_FRAGMENT, TRADITIONAL_TIMEOUT_NANOS);
            runner = new NodeRunner(time, links.clone(), HostCpu.forNodes(nodes, costs, time), (l, s, cpu) ->
                    cores[l.self()] = protocol == Protocol.CAREFUL ? new CarefulCore(l, careful, cpu)
                            : new TraditionalCore(l, s, cpu, traditional), application, NodeSlowness.NONE);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    VirtualTimeBase time() {
        return world.virtualTime();
    }

    NodeRunner runner() {
        return runner;
    }

    CStarNetwork core(int node) {
        return cores[node];
    }

    int nodes() {
        return cores.length;
    }

    Link[] links() {
        return links.clone();
    }

    HostCpu cpu(int node) {
        return runner.cpu(node);
    }

    /** Runs {@code node}'s application once now, as after an event (how a program starts). */
    void kick(int node, NodeApplication application) {
        var timer = time().newTimer("start" + node, () -> {
            application.afterEvent(runner.node(node));
            runner.node(node).applicationActed();
        });
        timer.armAt(time().nanoTime());
    }

    /** @return copy-outs (careful) or fragments copied out (traditional), over all nodes */
    long copyOuts() {
        long n = 0;
        for (CStarNetwork c : cores) {
            n += c instanceof CarefulCore cc ? cc.copyOuts() : ((TraditionalCore) c).counters().copiedOut();
        }
        return n;
    }

    /** @return frames reported as breaking the protocol's assumptions, over all nodes */
    long violations() {
        long n = 0;
        for (CStarNetwork c : cores) {
            n += c.violations();
        }
        return n;
    }

    @Override
    public void close() {
        if (runner != null) {
            runner.stop();
        }
        if (links != null) {
            for (MedusaLink l : links) {
                if (l != null) {
                    l.close();
                }
            }
        }
        world.close();
    }
}
