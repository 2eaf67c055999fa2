package io.nicbridge.protocols.gbn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.RunnerNode;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Go-back-N with many peers per node, where many retransmission timeouts of one node expire together (a loss burst
 * hits every channel at once): the order in which {@code onTimer} handles them decides which frames win the link's
 * send slots, so the trace pins it. The digests were recorded from the core that scanned every peer per call
 * (before its timeouts moved into a heap, commit af25337); the heap must replay them event for event.
 */
class GoBackNManyPeersTraceTest {
    private static final int MESSAGE = 24;

    record Run(String digest, long dispatches, long endNanos, long timeouts) {
    }

    static Run run(int nodes, int messages, long burstFrom, long burstTo, int every) {
        VirtualTimeBase time = new VirtualTimeBase(3);
        HostCpu[] cpus = HostCpu.forNodes(nodes, CostTable.measured(), time);
        FrameFaults faults = (index, source, destination, now, fate) ->
                fate.drop = (index >= burstFrom && index < burstTo) || index % every == every - 1;
        InMemoryMedium medium = new InMemoryMedium(time, new InMemoryMedium.Config(nodes, 64, 6, 12, 2_000, 40),
                faults, cpus);
        Link[] links = new Link[nodes];
        for (int i = 0; i < nodes; i++) {
            links[i] = medium.link(i);
        }
        int[][] sent = new int[nodes][nodes];
        int[][] expected = new int[nodes][nodes];
        int[] errors = {0};
        long[] delivered = {0};
        MemorySegment scratch = MemorySegment.ofArray(new byte[MESSAGE]);
        NodeApplication app = node -> {
            int me = node.id();
            MessageCore core = (MessageCore) node.core();
            core.deliver((peer, data, off, len) -> {
                if (data.get(ValueLayout.JAVA_INT_UNALIGNED, off) != expected[me][peer]++) {
                    errors[0]++;
                }
                delivered[0]++;
            }, Integer.MAX_VALUE);
            for (int round = 0; round < 2; round++) {
                for (int p = 0; p < nodes; p++) {
                    if (p != me && sent[me][p] < messages) {
                        scratch.set(ValueLayout.JAVA_INT_UNALIGNED, 0, sent[me][p]);
                        if (core.offer(p, scratch, 0, MESSAGE) == MessageChannel.OK) {
                            sent[me][p]++;
                        }
                    }
                }
            }
        };
        NodeRunner runner = new NodeRunner(time, links, cpus,
                (link, clock, cpu) -> new GoBackNCore(link, clock, new GoBackNConfig(4, MESSAGE, 60_000), cpu),
                app, NodeSlowness.NONE);
        for (int i = 0; i < nodes; i++) {
            RunnerNode n = runner.node(i);
            Timer t = time.newTimer("start" + i, () -> {
                app.afterEvent(n);
                n.applicationActed();
            });
            t.armAfter(0);
        }
        long total = (long) nodes * (nodes - 1) * messages;
        assertTrue(time.runUntil(() -> delivered[0] == total, time.nanoTime() + 1_000_000_000L),
                "delivered " + delivered[0] + " of " + total);
        assertEquals(0, errors[0], "every message once, in order");
        long timeouts = 0;
        for (int i = 0; i < nodes; i++) {
            timeouts += ((GoBackNCore) runner.node(i).core()).counters().timeouts();
        }
        return new Run(String.format("%016x", runner.traceDigest()), runner.dispatches(), time.nanoTime(), timeouts);
    }

    @ParameterizedTest
    @CsvSource({
        "12, 20, 100, 400, 13, 1f46b832be313bd9, 2837, 490789, 372",
        "24, 6, 50, 900, 7, c41615a9a0948ed3, 4871, 557084, 1392",
        "65, 2, 200, 3000, 17, 50c1cb98eaae6d13, 9843, 366459, 5652",
    })
    void simultaneousTimeoutsReplayTheRecordedTrace(int nodes, int messages, long burstFrom, long burstTo, int every,
                                                    String digest, long dispatches, long endNanos, long timeouts) {
        Run r = run(nodes, messages, burstFrom, burstTo, every);
        assertTrue(r.timeouts() > nodes, "the burst made many channels time out: " + r);
        assertEquals(new Run(digest, dispatches, endNanos, timeouts), r);
    }
}
