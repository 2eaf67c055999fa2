package io.nicbridge.protocols.traditional;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.ForwardingLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/** Test fixture: P traditional cores on an in-memory medium in virtual time, driven by the test itself. */
final class Cluster {
    static final int MTU = 256;

    /** One fragment a receive handed over, copied. */
    record Got(int src, int event, int status, byte[] data) {
    }

    final VirtualTimeBase time;
    final InMemoryMedium medium;
    final NodeRunner runner;
    final HostCpu[] cpus;

    Cluster(int nodes, TraditionalConfig config, FrameFaults faults, CostTable costs, NodeApplication app) {
        this(nodes, config, faults, costs, app, false);
    }

    /**
     * @param inOrder the links say they {@linkplain Link#receivesInOrder() receive in order}, as a descriptor ring
     *                does (the in-memory medium underneath does not care)
     */
    Cluster(int nodes, TraditionalConfig config, FrameFaults faults, CostTable costs, NodeApplication app,
            boolean inOrder) {
        time = new VirtualTimeBase(nodes);
        cpus = HostCpu.forNodes(nodes, costs, time);
        medium = new InMemoryMedium(time, new InMemoryMedium.Config(nodes, MTU, 8, 16, 2_000, 80), faults, cpus);
        Link[] links = new Link[nodes];
        for (int i = 0; i < nodes; i++) {
            links[i] = inOrder ? new InOrder(medium.link(i)) : medium.link(i);
        }
        runner = new NodeRunner(time, links, cpus, (l, c, cpu) -> new TraditionalCore(l, c, cpu, config), app,
                NodeSlowness.NONE);
    }

    Cluster(int nodes, FrameFaults faults) {
        this(nodes, config(), faults, CostTable.zero(), NodeApplication.NONE);
    }

    /** A link that says it receives in order (a descriptor ring's rule) over one that does not care. */
    private static final class InOrder extends ForwardingLink {
        InOrder(Link inner) {
            super(inner);
        }

        @Override
        public boolean receivesInOrder() {
            return true;
        }
    }

    static TraditionalConfig config() {
        return new TraditionalConfig(16, 64, 2, 16, 16, 8, 24, 200_000, 16);
    }

    TraditionalCore core(int i) {
        return (TraditionalCore) runner.node(i).core();
    }

    void run(long nanos) {
        time.runUntil(time.nanoTime() + nanos);
    }

    /** Sends and tells the runner the application acted (so the core's timer is re-armed). */
    int send(int node, int dst, int event, byte[] data, int flags) {
        int r = core(node).send(dst, event, MemorySegment.ofArray(data), 0, data.length, flags);
        runner.node(node).applicationActed();
        return r;
    }

    /** Receives until NOTHING or EVENT_DONE. */
    List<Got> receiveAll(int node, int src, int event) {
        List<Got> got = new ArrayList<>();
        int status;
        do {
            status = core(node).receive(src, event, (s, e, st, data, off, len) ->
                    got.add(new Got(s, e, st, data.asSlice(off, len).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))));
        } while (status != CStarNetwork.NOTHING && status != CStarNetwork.EVENT_DONE);
        runner.node(node).applicationActed();
        return got;
    }

    /** Runs until {@code node} has received all of {@code event} from {@code src}, polling like an application. */
    List<Got> awaitEvent(int node, int src, int event, long limitNanos) {
        List<Got> all = new ArrayList<>();
        long end = time.nanoTime() + limitNanos;
        while (time.nanoTime() < end) {
            List<Got> got = receiveAll(node, src, event);
            all.addAll(got);
            if (!got.isEmpty() && got.get(got.size() - 1).status() == CStarNetwork.EVENT_DONE) {
                return all;
            }
            time.runUntil(Math.min(end, time.nanoTime() + 20_000));
        }
        return all;
    }

    static byte[] bytes(int seed, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }
}
