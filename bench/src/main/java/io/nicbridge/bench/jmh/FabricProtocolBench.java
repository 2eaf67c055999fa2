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
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fabric.FabricConfig;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.Topologies;
import io.nicbridge.sim.fabric.link.FabricLinks;
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

/**
 * One message through the go-back-N core over the MPP fabric, in virtual time on one thread: node 0 of a 4x4 mesh
 * (default fabric: wormhole, 32-bit flits, 1-cycle links and routers) offers a message to node 15 (6 hops), and the
 * world (runner, cores, {@code FabricLinks}, the cycle-driven fabric stepped every 25 ns while busy) runs until node
 * 15 has delivered it and node 0 has its ack. {@code payload} 24 makes a 40-byte frame (11 flits), 200 a 216-byte
 * frame (55 flits); the ack is a bare header. What is measured is the host's simulation of all of it, per message,
 * fabric cycles included; must allocate nothing (-prof gc ~0 B/op).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FabricProtocolBench {
    @Param({"24", "200"})
    public int payload;

    private VirtualTimeBase time;
    private NodeRunner runner;
    private GoBackNCore sender;
    private MemorySegment message;
    private long delivered;
    private long target;
    private BooleanSupplier acknowledged;

    @Setup(Level.Trial)
    public void setUp() {
        time = new VirtualTimeBase(1);
        Network network = new Network(Topologies.mesh(4, 4), FabricConfig.defaults(), 1);
        HostCpu[] cpus = HostCpu.forNodes(network.nodes(), CostTable.zero(), time);
        FabricLinks medium = new FabricLinks(network, time, cpus,
                new FabricLinks.Config(256, 32, 64, FabricLinks.CM5_CYCLE_NANOS));
        MessageHandler count = (peer, data, offset, length) -> delivered++;
        NodeApplication app = node -> ((MessageCore) node.core()).deliver(count, Integer.MAX_VALUE);
        runner = new NodeRunner(time, medium.links(), cpus,
                (link, clock, cpu) -> new GoBackNCore(link, clock, new GoBackNConfig(4, 240, 10_000_000), cpu), app,
                NodeSlowness.NONE);
        sender = (GoBackNCore) runner.node(0).core();
        message = MemorySegment.ofArray(new byte[240]);
        acknowledged = () -> delivered == target && sender.inFlight(15) == 0;
    }

    @Benchmark
    public long messageAndAck() {
        message.set(ValueLayout.JAVA_INT_UNALIGNED, 0, (int) target);
        if (sender.offer(15, message, 0, payload) != MessageCore.OK) {
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
