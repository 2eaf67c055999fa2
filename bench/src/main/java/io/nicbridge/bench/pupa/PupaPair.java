package io.nicbridge.bench.pupa;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.link.ForwardingLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.pupa.PupaConfig;
import io.nicbridge.protocols.pupa.PupaCore;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.ethernet.EthernetMode;
import io.nicbridge.sim.ethernet.EthernetSegment;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The paper's two-node setup in virtual time: two emulated DEC 21140s (Tulip drivers, the PCI 33 MHz DMA model) on
 * one 100 Mb/s Ethernet segment (by default the paper's half-duplex hub), a {@link TulipLink} and a {@link PupaCore}
 * per node, driven by one {@link NodeRunner} whose CPUs are priced by a cost table. Each link is wrapped in a
 * {@link Probe} that notes the times the latency breakdown needs: when a frame is handed to the card (after the
 * framing's own work, at the CPU's {@link HostCpu#now()}) and when the card signals a received frame (the
 * interrupt, at the clock).
 */
final class PupaPair implements AutoCloseable {
    private final TulipTestbed bed;
    private final Probe[] probes = new Probe[2];
    private final PupaCore[] cores = new PupaCore[2];
    private final NodeRunner runner;

    /**
     * @throws IllegalArgumentException when {@code costs} does not price an operation the core charges (the
     *                                  table's own message)
     */
    PupaPair(CostTable costs, PupaConfig config, EthernetMode medium, long seed, NodeApplication application) {
        bed = TulipTestbed.builder().nodes(2).mode(EngineMode.VIRTUAL).seed(seed).medium(medium).build();
        try {
            bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            List<MacAddress> macs = List.of(TulipTestbed.mac(0), TulipTestbed.mac(1));
            VirtualTimeBase time = bed.virtualTime();
            HostCpu[] cpus = HostCpu.forNodes(2, costs, time);
            Link[] links = new Link[2];
            for (int i = 0; i < 2; i++) {
                probes[i] = new Probe(new TulipLink(bed.driver(i), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE),
                        cpus[i], time);
                links[i] = probes[i];
            }
            runner = new NodeRunner(time, links, cpus, (l, c, cpu) -> cores[l.self()] = new PupaCore(l, c, config,
                    cpu), application, NodeSlowness.NONE);
        } catch (RuntimeException e) {
            bed.close();
            throw e;
        }
    }

    VirtualTimeBase time() {
        return bed.virtualTime();
    }

    EthernetSegment wire() {
        return bed.wire();
    }

    PupaCore core(int node) {
        return cores[node];
    }

    HostCpu cpu(int node) {
        return runner.cpu(node);
    }

    Probe probe(int node) {
        return probes[node];
    }

    NodeRunner runner() {
        return runner;
    }

    /** Runs {@code action} on {@code node} at virtual time {@code at}, as the node's application acting then. */
    void at(long at, int node, Runnable action) {
        time().newTimer("app" + node, () -> {
            action.run();
            runner.node(node).applicationActed();
        }).armAt(at);
    }

    /**
     * @return true when neither core holds anything nor asks for a deadline (a CPU may still work off the charges of
     *     the last event: no event follows to move the clock past them, so callers start the next work later)
     */
    boolean quiet() {
        for (int i = 0; i < 2; i++) {
            if (!cores[i].holdsNothing() || cores[i].nextDeadline() != PupaCore.NO_DEADLINE) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        if (runner != null) {
            runner.stop();
        }
        for (Probe p : probes) {
            if (p != null) {
                p.inner().close();
            }
        }
        bed.close();
    }

    /**
     * A link that notes, for the latency breakdown, the CPU's time after each frame it hands to the card
     * ({@link #committedAt()}: the framing's descriptor work included) and the clock at each readiness signal of the
     * card, before the runner's interrupt handling ({@link #signalledAt()}); {@link #onSignal} runs first, then.
     */
    static final class Probe extends ForwardingLink {
        private final HostCpu cpu;
        private final VirtualTimeBase time;
        private long committedAt = Long.MIN_VALUE;
        private long commits;
        private long signalledAt = Long.MIN_VALUE;
        private Runnable onSignal = () -> { };
        private Runnable onCommit = () -> { };

        Probe(Link inner, HostCpu cpu, VirtualTimeBase time) {
            super(inner);
            this.cpu = cpu;
            this.time = time;
        }

        Link inner() {
            return inner;
        }

        @Override
        public void commit(int txHandle, int length) {
            inner.commit(txHandle, length);
            committedAt = cpu.now();
            commits++;
            onCommit.run();
        }

        @Override
        public void readinessListener(Runnable listener) {
            if (listener == null) {
                inner.readinessListener(null);
                return;
            }
            inner.readinessListener(() -> {
                signalledAt = time.nanoTime();
                onSignal.run();
                listener.run();
            });
        }

        /** Runs {@code action} at each readiness signal, before the runner handles it (the interrupt). */
        void onSignal(Runnable action) {
            onSignal = action;
        }

        /** Runs {@code action} after each frame handed to the card (the CPU's time is then {@link #committedAt()}). */
        void onCommit(Runnable action) {
            onCommit = action;
        }

        long committedAt() {
            return committedAt;
        }

        long commits() {
            return commits;
        }

        long signalledAt() {
            return signalledAt;
        }
    }
}
