package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.EventLoop;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.core.ProtocolCore;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
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
import org.openjdk.jmh.annotations.TearDown;

/**
 * One message through the go-back-N core over two emulated 21140s in inline mode, on one thread: node 0 offers a
 * message; the core claims a TX descriptor buffer through {@link TulipLink} and fills it in place; the commit rings
 * CSR1, so card 0 sends on this thread, the segment delivers, card 1 stores the frame and raises RI, whose
 * readiness arms node 1's io timer on the {@link EventLoop}; the benchmark then turns the loop (on this thread)
 * until node 1 has delivered the message and node 0 has its ACK back: two frames through two cards and two
 * drivers, two CRC-32C, four readiness signals, the runner's dispatches. The op ends with both cores idle, so every
 * op is the same work.
 *
 * <p>The hot path must allocate nothing ({@code -prof gc}: ~0 B/op).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TulipGoBackNBench {
    /** The application message, bytes. */
    @Param({"32", "1024"})
    public int size;

    private TulipTestbed bed;
    private EventLoop loop;
    private NodeRunner runner;
    private MessageCore sender;
    private ProtocolCore receiver;
    private MemorySegment message;
    private long delivered;
    private int seq;

    @Setup(Level.Trial)
    public void setUp() {
        bed = TulipTestbed.builder().mode(EngineMode.INLINE).build();
        bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
        List<MacAddress> macs = List.of(TulipTestbed.mac(0), TulipTestbed.mac(1));
        Link[] links = {new TulipLink(bed.driver(0), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE),
            new TulipLink(bed.driver(1), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE)};
        loop = new EventLoop("tulip-gbn-bench", TimeUnit.MILLISECONDS.toNanos(1));
        MessageHandler count = (peer, data, offset, length) -> delivered++;
        NodeApplication app = node -> ((MessageCore) node.core()).deliver(count, Integer.MAX_VALUE);
        // An RTO far above one op: no timeout fires, the op measures the message and its ACK only.
        GoBackNConfig config = new GoBackNConfig(8, size, TimeUnit.SECONDS.toNanos(1));
        runner = new NodeRunner(loop, links, HostCpu.forNodes(links.length, CostTable.zero(), loop),
                    (link, clock, cpu) -> new GoBackNCore(link, clock, config, cpu), app,
            NodeSlowness.NONE);
        sender = (MessageCore) runner.node(0).core();
        receiver = runner.node(1).core();
        message = MemorySegment.ofArray(new byte[size]);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        loop.close();
        bed.close();
    }

    @Benchmark
    public long messageAndAck() {
        message.set(ValueLayout.JAVA_INT_UNALIGNED, 0, ++seq);
        if (sender.offer(1, message, 0, size) != MessageCore.OK) {
            throw new IllegalStateException("window closed in an idle world");
        }
        runner.node(0).applicationActed();
        long target = seq;
        long passes = 0;
        while (delivered != target || ((ProtocolCore) sender).nextDeadline() != ProtocolCore.NO_DEADLINE
                || receiver.nextDeadline() != ProtocolCore.NO_DEADLINE) {
            loop.runOnce();
            if (++passes > 1_000_000) {
                throw new IllegalStateException("message " + seq + " not delivered and acknowledged after " + passes
                    + " loop passes: delivered " + delivered + ", " + sender + ", " + receiver);
            }
        }
        return delivered;
    }
}
