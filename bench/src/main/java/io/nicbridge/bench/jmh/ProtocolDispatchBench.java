package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Virtual runner -> go-back-N core -> in-memory link, on one thread: nodes 0 and 1 of a medium of {@code nodes}
 * (the others stay silent, but every core has a channel to each of them, so {@code nodes} is the core's peer count,
 * which its per-call bookkeeping, e.g. finding its next deadline, must not scale with):
 * <ul>
 *   <li>{@code messageAndAck}: node 0 offers a 32-byte message; the world runs until idle: the DATA frame's arrival
 *       event, node 1's poll and onFrame, delivery to its application, its explicit ACK, node 0's poll and onFrame
 *       (about 4 scheduler events, 2 frames, 2 CRCs);</li>
 *   <li>{@code nextDeadline}: the core's answer to the runner's question after every event, alone;</li>
 *   <li>{@code lossAndTimeout}: the same as {@code messageAndAck} with the DATA frame lost, so the retransmission
 *       timer fires (onTimer, go back N) and the message goes again: the difference to {@code messageAndAck} is one
 *       timer dispatch plus one more frame.</li>
 * </ul>
 * Must allocate nothing (-prof gc ~0 B/op), with either cost table (the charges of the runner, core and medium are
 * part of every operation).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ProtocolDispatchBench {
    /** The host cost table the nodes' CPUs charge (zero or measured: charging must allocate nothing either way). */
    @Param({"zero", "measured"})
    public String costs;

    /** Nodes on the medium: every core's peer count. */
    @Param({"2", "256"})
    public int nodes;

    private VirtualTimeBase time;
    private NodeRunner runner;
    private MessageCore sender;
    private MemorySegment message;
    private boolean dropNext;
    private long delivered;
    private int seq;

    @Setup(Level.Trial)
    public void setUp() {
        time = new VirtualTimeBase(1);
        FrameFaults faults = (index, source, destination, now, fate) -> {
            if (dropNext && source == 0) {
                dropNext = false;
                fate.drop = true;
            }
        };
        HostCpu[] cpus = HostCpu.forNodes(nodes, CostTable.named(costs), time);
        InMemoryMedium medium = new InMemoryMedium(time, new InMemoryMedium.Config(nodes, 64, 4, 8, 1_000, 80), faults,
                cpus);
        MessageHandler count = (peer, data, offset, length) -> delivered += length;
        NodeApplication app = node -> ((MessageCore) node.core()).deliver(count, Integer.MAX_VALUE);
        Link[] links = new Link[nodes];
        for (int i = 0; i < nodes; i++) {
            links[i] = medium.link(i);
        }
        runner = new NodeRunner(time, links, cpus,
                (link, clock, cpu) -> new GoBackNCore(link, clock, new GoBackNConfig(4, 32, 100_000), cpu), app,
                NodeSlowness.NONE);
        sender = (MessageCore) runner.node(0).core();
        message = MemorySegment.ofArray(new byte[32]);
    }

    @Benchmark
    public long messageAndAck() {
        return oneMessage();
    }

    @Benchmark
    public long lossAndTimeout() {
        dropNext = true;
        return oneMessage();
    }

    /**
     * The query a runner makes after every event it dispatched: the sender core's next deadline, here with nothing in
     * flight (the state after every {@code messageAndAck}).
     */
    @Benchmark
    public long nextDeadline() {
        return sender.nextDeadline();
    }

    private long oneMessage() {
        message.set(ValueLayout.JAVA_INT_UNALIGNED, 0, ++seq);
        if (sender.offer(1, message, 0, 32) != MessageCore.OK) {
            throw new IllegalStateException("window closed in an idle world");
        }
        runner.node(0).applicationActed();
        time.runUntilIdle();
        return delivered;
    }
}
