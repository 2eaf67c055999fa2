package io.nicbridge.protocols.careful;

import io.nicbridge.protocols.dst.CStarWorkload;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.ForwardingLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;

/** Test fixture: P careful cores on an in-memory medium in virtual time, running a {@link CStarWorkload}. */
final class CarefulWorld {
    final VirtualTimeBase vt;
    final HostCpu[] cpus;
    final InMemoryMedium medium;
    final NodeRunner runner;
    final CarefulCore[] cores;
    final CStarWorkload app;

    CarefulWorld(long seed, CarefulConfig config, FrameFaults faults, CStarWorkload app, CostTable table) {
        this(seed, config, faults, app, table, true);
    }

    /**
     * @param broadcast false: the links say they cannot broadcast (as the MPP fabric's), so the cores send a
     *                  broadcast as P-1 unicasts
     */
    CarefulWorld(long seed, CarefulConfig config, FrameFaults faults, CStarWorkload app, CostTable table,
                 boolean broadcast) {
        this.app = app;
        int nodes = app.nodes();
        vt = new VirtualTimeBase(seed);
        cpus = HostCpu.forNodes(nodes, table, vt);
        // the medium's receive buffers (a card's on-board buffers): R for the windows, one per peer for an update
        medium = new InMemoryMedium(vt, new InMemoryMedium.Config(nodes, CarefulWire.HEADER + app.maxFragment(),
                8, config.receiveBuffers() + nodes - 1, 2_000, 80), faults, cpus);
        Link[] links = new Link[nodes];
        for (int i = 0; i < nodes; i++) {
            links[i] = broadcast ? medium.link(i) : new NoBroadcast(medium.link(i));
        }
        cores = new CarefulCore[nodes];
        runner = new NodeRunner(vt, links, cpus, (l, s, cpu) -> cores[l.self()] = new CarefulCore(l, config, cpu), app,
                NodeSlowness.NONE);
        app.start(vt, runner);
    }

    /** A link without broadcast over one with it. */
    private static final class NoBroadcast extends ForwardingLink {
        NoBroadcast(Link inner) {
            super(inner);
        }

        @Override
        public boolean canBroadcast() {
            return false;
        }

        @Override
        public int claim(int peer) {
            if (peer == BROADCAST) {
                throw new IllegalArgumentException("no broadcast on this link");
            }
            return super.claim(peer);
        }
    }

    CarefulWorld(long seed, CarefulConfig config, FrameFaults faults, CStarWorkload app) {
        this(seed, config, faults, app, CostTable.zero());
    }

    /** Runs until the workload is done or {@code limitNanos} of virtual time passed. */
    boolean run(long limitNanos) {
        return vt.runUntil(app::isDone, vt.nanoTime() + limitNanos);
    }

    long violations() {
        long v = 0;
        for (CarefulCore c : cores) {
            v += c.violations();
        }
        return v;
    }

    long violations(CarefulViolation kind) {
        long v = 0;
        for (CarefulCore c : cores) {
            v += c.violations(kind);
        }
        return v;
    }

    long copyOuts() {
        long v = 0;
        for (CarefulCore c : cores) {
            v += c.copyOuts();
        }
        return v;
    }

    String state() {
        StringBuilder sb = new StringBuilder(app.progress());
        for (CarefulCore c : cores) {
            sb.append("\n  ").append(c).append(" windows");
            for (int p = 0; p < c.nodes(); p++) {
                sb.append(' ').append(p == c.self() ? "-" : c.window(p) + "/" + c.pendingUpdate(p) + "/"
                        + c.peerCredit(p));
            }
            sb.append(", held ").append(c.heldInPlace()).append('+').append(c.heldCopiedOut()).append(", updates ")
                    .append(c.updateFramesSent()).append(", blocked ").append(c.blockedSends());
        }
        return sb.toString();
    }
}
