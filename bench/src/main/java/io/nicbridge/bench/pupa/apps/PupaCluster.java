package io.nicbridge.bench.pupa.apps;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.driver.tulip.TulipStatistics;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.pupa.PupaConfig;
import io.nicbridge.protocols.pupa.PupaCore;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.ethernet.EthernetMode;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The paper's cluster (section 3: PCs with DEC 21140 cards on one SMC TigerHub 100): N emulated 21140s with Tulip
 * drivers on one half-duplex CSMA/CD hub segment, in virtual time, a {@link PupaCore} on each, every node's CPU
 * priced by one cost table, and one {@link StepProgram} running on every node.
 */
final class PupaCluster implements AutoCloseable {
    private final TulipTestbed bed;
    private final TulipLink[] links;
    private final PupaCore[] cores;
    private final NodeRunner runner;
    private final StepProgram program;
    private long programEnd;

    /**
     * @throws IllegalArgumentException when {@code costs} does not price an operation Pupa charges (the table's
     *                                  message)
     */
    PupaCluster(int nodes, PupaConfig config, CostTable costs, long seed, StepProgram program) {
        this.program = program;
        bed = TulipTestbed.builder().nodes(nodes).mode(EngineMode.VIRTUAL).medium(EthernetMode.HUB).seed(seed)
                .build();
        try {
            bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            List<MacAddress> macs = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                macs.add(TulipTestbed.mac(i));
            }
            links = new TulipLink[nodes];
            for (int i = 0; i < nodes; i++) {
                links[i] = new TulipLink(bed.driver(i), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE);
            }
            cores = new PupaCore[nodes];
            VirtualTimeBase time = bed.virtualTime();
            runner = new NodeRunner(time, links.clone(), HostCpu.forNodes(nodes, costs, time),
                    (link, clock, cpu) -> cores[link.self()] = new PupaCore(link, clock, config, cpu), program,
                    NodeSlowness.NONE);
            program.attach(this);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    VirtualTimeBase time() {
        return bed.virtualTime();
    }

    PupaCore core(int node) {
        return cores[node];
    }

    HostCpu cpu(int node) {
        return runner.cpu(node);
    }

    int nodes() {
        return cores.length;
    }

    NodeRunner runner() {
        return runner;
    }

    /**
     * Starts the program on every node, runs until every node has finished it, then lets the last acknowledgements
     * settle (until no core holds a message or buffer).
     *
     * @return true when the program finished (without a wrong message) within {@code limitNanos} of virtual time
     */
    boolean run(long limitNanos) {
        VirtualTimeBase time = time();
        for (int p = 0; p < cores.length; p++) {
            int node = p;
            time.newTimer("start" + p, () -> {
                program.afterEvent(runner.node(node));
                runner.node(node).applicationActed();
            }).armAt(time.nanoTime());
        }
        long end = time.nanoTime() + limitNanos;
        boolean finished = time.runUntil(program::done, end) && program.wrong() == null;
        programEnd = runner.workEndNanos();
        time.runUntil(() -> leaks() == null, end);
        return finished;
    }

    /** @return when the program's last work ended (virtual time), before the last acknowledgements settled */
    long programEndNanos() {
        return programEnd;
    }

    /** @return what the cores still hold (nothing once every message is acknowledged), or null */
    String leaks() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cores.length; i++) {
            String l = cores[i].leaks();
            if (l != null) {
                sb.append("node ").append(i).append(": ").append(l);
            }
        }
        return sb.isEmpty() ? null : sb.toString();
    }

    /** @return the sum over the nodes' drivers of one TDES0/RDES0 statistics counter */
    long cards(TulipStatistics.Counter counter) {
        long n = 0;
        for (int i = 0; i < cores.length; i++) {
            n += bed.driver(i).statistics().get(counter);
        }
        return n;
    }

    /** @return collisions on the hub (every station's collided attempts) */
    long collisions() {
        return bed.wire().collisions();
    }

    @Override
    public void close() {
        if (runner != null) {
            runner.stop();
        }
        if (links != null) {
            for (TulipLink l : links) {
                if (l != null) {
                    l.close();
                }
            }
        }
        bed.close();
    }
}
