package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.am.AmConfig;
import io.nicbridge.protocols.am.AmCore;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
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
 * U-Net Active Messages dispatch on one thread: two {@link AmCore}s (the paper's w = 8, 4160-byte buffers) on an
 * in-memory medium driven by the virtual runner, each node's application polling after every event.
 * <ul>
 *   <li>{@code requestReply}: node 0's request (4 arguments) - frame - node 1's poll dispatches the request handler,
 *       which replies - frame - node 0's poll dispatches the reply handler; then the delayed channel ack of the
 *       reply (one timer, one frame). The world runs until idle.</li>
 *   <li>{@code request}: a request whose handler does not reply: the layer's explicit acknowledgement answers it.</li>
 *   <li>{@code store64}: a 64-byte block store and its explicit acknowledgement.</li>
 * </ul>
 * Must allocate nothing (-prof gc ~0 B/op), with either cost table.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ActiveMessagesBench {
    static final int ECHO = 1;
    static final int PONG = 2;
    static final int SILENT = 3;

    @Param({"zero", "measured"})
    public String costs;

    private VirtualTimeBase time;
    private NodeRunner runner;
    private AmCore a;
    private MemorySegment block;
    private long handled;

    @Setup(Level.Trial)
    public void setUp() {
        time = new VirtualTimeBase(1);
        AmConfig config = AmConfig.paper(4096);
        HostCpu[] cpus = HostCpu.forNodes(2, CostTable.named(costs), time);
        InMemoryMedium medium = new InMemoryMedium(time, new InMemoryMedium.Config(2, config.linkMtu(), 8, 16, 1_000,
                80), FrameFaults.NONE, cpus);
        NodeApplication app = node -> ((AmCore) node.core()).poll();
        runner = new NodeRunner(time, new Link[] {medium.link(0), medium.link(1)}, cpus, (link, clock, cpu) -> {
            AmCore am = new AmCore(link, clock, config, cpu);
            am.register(ECHO, (t, a0, a1, a2, a3) -> am.reply(t, PONG, a0, a1, a2, a3));
            am.register(PONG, (t, a0, a1, a2, a3) -> handled++);
            am.register(SILENT, (t, a0, a1, a2, a3) -> handled++);
            return am;
        }, app, NodeSlowness.NONE);
        a = (AmCore) runner.node(0).core();
        block = MemorySegment.ofArray(new byte[64]);
    }

    @Benchmark
    public long requestReply() {
        check(a.request(1, ECHO, 1, 2, 3, 4));
        return run();
    }

    @Benchmark
    public long request() {
        check(a.request(1, SILENT, 1, 2, 3, 4));
        return run();
    }

    @Benchmark
    public long store64() {
        check(a.store(1, block, 0, 0, 64, SILENT, 0));
        return run();
    }

    private long run() {
        runner.node(0).applicationActed();
        time.runUntilIdle();
        return handled;
    }

    private static void check(int r) {
        if (r != AmCore.OK) {
            throw new IllegalStateException("no credit in an idle world");
        }
    }
}
