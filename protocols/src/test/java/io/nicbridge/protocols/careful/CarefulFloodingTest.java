package io.nicbridge.protocols.careful;

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
 * The paper's flooding test (Table 3) on the careful core, with the same application as the traditional core's
 * ({@link Flooding}, the one Table 3 program, with its bounded verdict) and the same medium (64 receive buffers per
 * node at FDDI speed; the careful core manages R = 64 - (P - 1) of them, one per peer kept for update frames): every
 * case completes - the windows stop the senders instead of dropping - and where the nodes flood (n = 10) the
 * receivers copy frames out of the receive buffers to keep advertising (the deadlock avoidance the paper blames for
 * its up to 12.1 % slowdown).
 */
class CarefulFloodingTest {
    record Run(Flooding.Outcome outcome, long copyOuts, long violations) {
    }

    static Run flood(int nodes, int n, int k, int events) {
        VirtualTimeBase time = new VirtualTimeBase(nodes * 1000L + n * k);
        HostCpu[] cpus = HostCpu.forNodes(nodes, CostTable.zero(), time);
        InMemoryMedium medium = new InMemoryMedium(time, new InMemoryMedium.Config(nodes, 4478, 64, 64, 5_000, 80),
                FrameFaults.NONE, cpus);
        Link[] links = new Link[nodes];
        for (int i = 0; i < nodes; i++) {
            links[i] = medium.link(i);
        }
        Flooding app = new Flooding(nodes, new Flooding.Params(events, n, k, 8));
        CarefulConfig config = CarefulConfig.defaults().withReceiveBuffers(64 - (nodes - 1)).withEventSlots(64);
        CarefulCore[] cores = new CarefulCore[nodes];
        NodeRunner runner = new NodeRunner(time, links, cpus, (l, c, cpu) -> cores[l.self()] = new CarefulCore(l,
                config, cpu), app, NodeSlowness.NONE);
        Flooding.Outcome o = app.run(time, runner, links, 10_000_000, 10, 2_000_000_000L);
        long copyOuts = 0;
        long violations = 0;
        for (CarefulCore c : cores) {
            copyOuts += c.copyOuts();
            violations += c.violations();
        }
        System.out.println("careful P=" + nodes + " " + n + "x" + k + ": " + o + ", copy-outs " + copyOuts);
        return new Run(o, copyOuts, violations);
    }

    @ParameterizedTest
    @CsvSource({"2, 10, 16", "4, 10, 8", "8, 10, 4", "4, 1, 8", "8, 1, 4"})
    void everyTable3CaseCompletes(int nodes, int n, int k) {
        Run r = flood(nodes, n, k, 20);
        assertEquals(Flooding.Verdict.COMPLETED, r.outcome().verdict(), r.outcome().toString());
        assertEquals(r.outcome().expected(), r.outcome().taken());
        assertEquals(0, r.violations());
        if (n == 10) {
            assertTrue(r.copyOuts() > 0, "flooding receivers copy out to keep their windows open: " + r);
        }
    }
}
