package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.testbed.UnetLinkTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
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
import org.openjdk.jmh.annotations.TearDown;

/**
 * One message through the go-back-N core over an emulated SBA-200 pair, in virtual time on one thread: node 0
 * offers a message, and the world (runner, cores, {@code UnetLink}s, both card models, the ATM switch and its
 * fibers) runs until node 1 has delivered it and node 0 has its ack. {@code payload} 24 makes a 40-byte frame, sent
 * inline (one cell, no buffer); 200 makes a 216-byte frame through a comm-segment buffer (5 cells, DMA on both
 * cards). The ack is always inline. What is measured is the host's simulation of all of it, per message; must
 * allocate nothing (-prof gc ~0 B/op).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class UnetProtocolBench {
    @Param({"24", "200"})
    public int payload;

    /** The host cost table: {@code measured} also takes the framing's CPU-paced doorbell path. */
    @Param({"zero", "measured"})
    public String costs;

    private UnetLinkTestbed testbed;
    private VirtualTimeBase time;
    private NodeRunner runner;
    private GoBackNCore sender;
    private MemorySegment message;
    private long delivered;
    private long target;
    private BooleanSupplier acknowledged;

    @Setup(Level.Trial)
    public void setUp() {
        testbed = UnetLinkTestbed.builder(EngineMode.VIRTUAL).buffers(256, 16, 48).build();
        time = testbed.virtualTimeBase();
        MessageHandler count = (peer, data, offset, length) -> delivered++;
        NodeApplication app = node -> ((MessageCore) node.core()).deliver(count, Integer.MAX_VALUE);
        runner = new NodeRunner(time, testbed.links(), HostCpu.forNodes(testbed.links().length, CostTable.named(costs), time),
                (link, clock, cpu) -> new GoBackNCore(link, clock, new GoBackNConfig(4, 240, 10_000_000), cpu), app,
                NodeSlowness.NONE);
        System.out.println("UnetProtocolBench: " + runner.cpu(0).table().describe()); // the table it runs with
        sender = (GoBackNCore) runner.node(0).core();
        message = MemorySegment.ofArray(new byte[240]);
        acknowledged = () -> delivered == target && sender.inFlight(1) == 0;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        testbed.close();
    }

    @Benchmark
    public long messageAndAck() {
        message.set(ValueLayout.JAVA_INT_UNALIGNED, 0, (int) target);
        if (sender.offer(1, message, 0, payload) != MessageCore.OK) {
            throw new IllegalStateException("window closed in an idle world");
        }
        target++;
        runner.node(0).applicationActed();
        if (!time.runUntil(acknowledged, time.nanoTime() + 5_000_000)) {
            throw new IllegalStateException("message " + target + " not delivered and acknowledged in 5 ms: " + sender);
        }
        return delivered;
    }
}
