package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.careful.CarefulConfig;
import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.FragmentHandler;
import io.nicbridge.protocols.runner.CoreBuilder;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.protocols.traditional.TraditionalConfig;
import io.nicbridge.protocols.traditional.TraditionalCore;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;

/**
 * Two C* cores on an in-memory medium in virtual time (zero cost table), brought into the state of the paper's
 * Appendix A measurement by a few rounds of its two-node latency test: node 0 sends a 4-byte fragment (LAST_FRAG)
 * to node 1, whose application is waiting for it and replies with one of its own in the next event. The
 * {@link AppendixABench} views work on node 0's core afterwards.
 */
final class LatencyPair {
    static final int ROUNDS = 8;
    private static final int MTU = 256;

    final CStarNetwork[] cores = new CStarNetwork[2];
    private final VirtualTimeBase time = new VirtualTimeBase(1);
    private final NodeRunner runner;
    private final MemorySegment word = MemorySegment.ofArray(new byte[] {1, 2, 3, 4});
    private int taken;
    private final FragmentHandler count = (src, event, status, data, offset, length) -> taken++;

    private LatencyPair(CoreBuilder builder) {
        HostCpu[] cpus = HostCpu.forNodes(2, CostTable.zero(), time);
        InMemoryMedium medium = new InMemoryMedium(time, new InMemoryMedium.Config(2, MTU, 8, 64, 2_000, 80),
                FrameFaults.NONE, cpus);
        runner = new NodeRunner(time, new Link[] {medium.link(0), medium.link(1)}, cpus, (l, s, cpu) -> {
            CStarNetwork c = (CStarNetwork) builder.build(l, s, cpu);
            cores[l.self()] = c;
            return c;
        }, NodeApplication.NONE, NodeSlowness.NONE);
        for (int r = 0; r < ROUNDS; r++) {
            hop(0, 1, 2 * r);
            hop(1, 0, 2 * r + 1);
        }
    }

    /**
     * The traditional core with the Medusa's budget except 1024 descriptors (the batches of {@link AppendixABench}
     * need that many free; one is in use per round, as in the paper's test).
     */
    static LatencyPair traditional() {
        TraditionalConfig m = TraditionalConfig.medusa(64, 1_000_000);
        TraditionalConfig c = new TraditionalConfig(AppendixABench.BATCH, m.maxFragment(), m.ackLowWater(),
                m.receiveBuffers(), m.hostBuffers(), m.copyOutThreshold(), m.highLoad(), m.timeoutNanos(),
                m.eventSlots());
        return new LatencyPair((l, s, cpu) -> new TraditionalCore(l, s, cpu, c));
    }

    /** The careful core with R = 56 receive buffers, as on the Medusa ring of the tests. */
    static LatencyPair careful() {
        CarefulConfig c = CarefulConfig.defaults().withReceiveBuffers(56).withEventSlots(64);
        return new LatencyPair((l, s, cpu) -> new CarefulCore(l, c, cpu));
    }

    /** One hop of the latency test: {@code to}'s application waits for {@code event}, {@code from} sends it. */
    private void hop(int from, int to, int event) {
        int before = taken;
        if (cores[to].receive(from, event, count) != CStarNetwork.NOTHING) {
            throw new IllegalStateException("event " + event + " arrived before it was sent");
        }
        runner.node(to).applicationActed();
        if (cores[from].send(to, event, word, 0, 4, CStarNetwork.LAST_FRAG) != CStarNetwork.OK) {
            throw new IllegalStateException("latency round: send of event " + event + " refused");
        }
        runner.node(from).applicationActed();
        time.runUntil(time.nanoTime() + 1_000_000);
        if (cores[to].receive(from, event, count) == CStarNetwork.NOTHING || taken != before + 1) {
            throw new IllegalStateException("latency round: event " + event + " did not arrive at node " + to);
        }
        runner.node(to).applicationActed();
        time.runUntil(time.nanoTime() + 1_000_000);
    }
}
