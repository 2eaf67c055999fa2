package io.nicbridge.protocols.traditional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.cstar.Flooding;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The paper's flooding test (Table 3) on the traditional core with the Medusa's buffer budget
 * ({@link TraditionalConfig#medusa}: 64 descriptors, 64 receive buffers, 64 host buffers), over an in-memory medium
 * with 64 receive buffers per node at FDDI speed.
 */
class TraditionalFloodingTest {
    static Flooding.Outcome flood(int nodes, int n, int k, int events) {
        VirtualTimeBase time = new VirtualTimeBase(nodes * 1000L + n * k);
        HostCpu[] cpus = HostCpu.forNodes(nodes, CostTable.zero(), time);
        InMemoryMedium medium = new InMemoryMedium(time, new InMemoryMedium.Config(nodes, 4478, 64, 64, 5_000, 80),
                FrameFaults.NONE, cpus);
        Link[] links = new Link[nodes];
        for (int i = 0; i < nodes; i++) {
            links[i] = medium.link(i);
        }
        Flooding app = new Flooding(nodes, new Flooding.Params(events, n, k, 8));
        TraditionalConfig config = TraditionalConfig.medusa(1024, 2_000_000);
        NodeRunner runner = new NodeRunner(time, links, cpus, (l, c, cpu) -> new TraditionalCore(l, c, cpu, config),
                app, NodeSlowness.NONE);
        Flooding.Outcome o = app.run(time, runner, links, 10_000_000, 10, 2_000_000_000L);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < nodes; i++) {
            sb.append("\n  ").append(runner.node(i).core());
        }
        System.out.println("P=" + nodes + " " + n + "x" + k + ": " + o + sb);
        return o;
    }

    /** The paper's two-node case (10 x 16) completes: one receiver keeps up with one sender. */
    @ParameterizedTest
    @CsvSource({"2, 10, 16", "4, 1, 8", "8, 1, 4"})
    void completesWhenReceiversKeepUp(int nodes, int n, int k) {
        Flooding.Outcome o = flood(nodes, n, k, 20);
        assertEquals(Flooding.Verdict.COMPLETED, o.verdict(), o.toString());
        assertEquals(o.expected(), o.taken());
    }

    /**
     * The paper's four- and eight-node cases (10 x 8, 10 x 4): every node floods the others before consuming,
     * receivers refuse the fragments of later events, senders retransmit them on every timeout, and they are refused
     * again: frames flow and nothing progresses. The bounded check reports it as a livelock within 110 ms of virtual
     * time (10 quiet windows of 10 ms after the start), not as a hang.
     */
    @ParameterizedTest
    @CsvSource({"4, 10, 8", "8, 10, 4"})
    void livelocksFromFourNodesAndIsReportedAsSuch(int nodes, int n, int k) {
        long wall = System.nanoTime();
        Flooding.Outcome o = flood(nodes, n, k, 20);
        assertEquals(Flooding.Verdict.LIVELOCK, o.verdict(), o.toString());
        assertTrue(o.taken() < o.expected());
        assertTrue(o.evidence().contains("frames while no node sent or consumed"), o.evidence());
        assertTrue(o.endNanos() <= 200_000_000L, "decided within the bound: " + o.endNanos());
        assertTrue(System.nanoTime() - wall < 30_000_000_000L, "and quickly in wall time");
    }
}
