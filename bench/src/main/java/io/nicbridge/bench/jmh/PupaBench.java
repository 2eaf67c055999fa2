package io.nicbridge.bench.jmh;

import io.nicbridge.protocols.pupa.PupaOperations;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Pupa's host work as JMH, through {@link PupaOperations}: one benchmark per operation the core charges
 * ({@code op_header_build} measures {@code pupa.header-build}; {@code nic calibrate} prices each as its score less
 * {@link #baseline}), and one per path, the whole core call per message: send on the primary-FIFO (16 B), secondary
 * (100 B) and card-buffer (1000 B) paths, receive (one frame polled, the message delivered into a user buffer) on
 * the same three, an ACK frame and a NACK frame (which resends the message). The paths are not priced: the
 * operations are; a path shows what one message really costs the core, beside the sum of its priced parts.
 *
 * <p>Operations and paths that use something up per call (FIFO entries, pool or card buffers, outstanding
 * messages, queued frames) run {@link PupaOperations#BATCH} calls per invocation, prepared per invocation outside
 * the timed part ({@link Level#Invocation}; the timer's two clock reads per batch add about 1 ns per call). Each
 * measurement iteration starts from a fresh pair of cores. Everything here allocates nothing per call
 * ({@code -prof gc}: ~0 B/op).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PupaBench {
    private static final int BATCH = PupaOperations.BATCH;

    /** A fresh pair per iteration, for the operations that keep their state call after call. */
    @State(Scope.Thread)
    public static class Ops {
        PupaOperations ops;

        @Setup(Level.Iteration)
        public void setUp() {
            ops = new PupaOperations();
        }
    }

    /** The batched states own their pair, each prepared per invocation by its own method. */
    @State(Scope.Thread)
    public static class Enqueues extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareEnqueues();
        }
    }

    @State(Scope.Thread)
    public static class PoolAllocs extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.preparePoolAllocs();
        }
    }

    @State(Scope.Thread)
    public static class Acks extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareAcks();
        }
    }

    /** One message outstanding; each NACK for it goes back again (one setup: the order of two is unspecified). */
    @State(Scope.Thread)
    public static class Nack {
        PupaOperations ops;

        @Setup(Level.Iteration)
        public void setUp() {
            ops = new PupaOperations();
            ops.prepareNack();
        }
    }

    @State(Scope.Thread)
    public static class HeaderIns extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareHeaderIns();
        }
    }

    @State(Scope.Thread)
    public static class MbufHolds extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareMbufHolds();
        }
    }

    @State(Scope.Thread)
    public static class MbufReleases extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareMbufReleases();
        }
    }

    @State(Scope.Thread)
    public static class PoolFrees extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.preparePoolFrees();
        }
    }

    @State(Scope.Thread)
    public static class Dequeues extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareDequeues();
        }
    }

    @State(Scope.Thread)
    public static class Sends extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareSends();
        }
    }

    @State(Scope.Thread)
    public static class SmallReceives extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareReceives(PupaOperations.SMALL);
        }
    }

    @State(Scope.Thread)
    public static class SecondaryReceives extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareReceives(PupaOperations.SECONDARY);
        }
    }

    @State(Scope.Thread)
    public static class CardBufferReceives extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareReceives(PupaOperations.CARD_BUFFER);
        }
    }

    @State(Scope.Thread)
    public static class AckFrames extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareAckPath();
        }
    }

    @State(Scope.Thread)
    public static class NackFrames extends Ops {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareNackPath();
        }
    }

    // ---------------------------------------------------------------------------------- harness floor

    /** Nothing: what the harness costs per call. */
    @Benchmark
    public void baseline() {
    }

    // ---------------------------------------------------------------------------------- operations: send side

    @Benchmark
    public void op_header_build(Ops o) {
        o.ops.headerBuild();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void op_fifo_enqueue(Enqueues e) {
        PupaOperations ops = e.ops;
        for (int i = 0; i < BATCH; i++) {
            ops.fifoEnqueue();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void op_pool_alloc(PoolAllocs p, Blackhole bh) {
        PupaOperations ops = p.ops;
        for (int i = 0; i < BATCH; i++) {
            bh.consume(ops.poolAlloc());
        }
    }

    @Benchmark
    public void op_pack(Ops o) {
        o.ops.pack();
    }

    @Benchmark
    public int op_header_out(Ops o) {
        return o.ops.headerOut();
    }

    @Benchmark
    public long op_multicast_pack(Ops o) {
        return o.ops.multicastPack();
    }

    @Benchmark
    public boolean op_multicast_entry(Ops o) {
        return o.ops.multicastEntry();
    }

    @Benchmark
    public void op_control(Ops o) {
        o.ops.control();
    }

    @Benchmark
    public void op_retransmit(Ops o) {
        o.ops.retransmit();
    }

    @Benchmark
    public boolean op_ack_timer(Ops o) {
        return o.ops.ackTimer();
    }

    // ---------------------------------------------------------------------------------- operations: acknowledgements

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void op_ack_process(Acks a) {
        PupaOperations ops = a.ops;
        for (int i = 0; i < BATCH; i++) {
            ops.ackProcess(i);
        }
    }

    @Benchmark
    public void op_nack_process(Nack n) {
        n.ops.nackProcess();
    }

    @Benchmark
    public void op_credit_process(Ops o) {
        o.ops.creditProcess();
    }

    // ---------------------------------------------------------------------------------- operations: receive side

    @Benchmark
    public boolean op_frame_parse(Ops o) {
        return o.ops.frameParse();
    }

    @Benchmark
    public int op_accept(Ops o) {
        return o.ops.accept();
    }

    @Benchmark
    public long op_multicast_find(Ops o) {
        return o.ops.multicastFind();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void op_header_in(HeaderIns h) {
        PupaOperations ops = h.ops;
        for (int i = 0; i < BATCH; i++) {
            ops.headerIn();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void op_mbuf_hold(MbufHolds m) {
        PupaOperations ops = m.ops;
        for (int i = 0; i < BATCH; i++) {
            ops.mbufHold(i);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void op_mbuf_release(MbufReleases m, Blackhole bh) {
        PupaOperations ops = m.ops;
        for (int i = 0; i < BATCH; i++) {
            bh.consume(ops.mbufRelease(i));
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void op_pool_free(PoolFrees p) {
        PupaOperations ops = p.ops;
        for (int i = 0; i < BATCH; i++) {
            ops.poolFree(i);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void op_fifo_dequeue(Dequeues d, Blackhole bh) {
        PupaOperations ops = d.ops;
        for (int i = 0; i < BATCH; i++) {
            bh.consume(ops.fifoDequeue());
        }
    }

    @Benchmark
    public int op_reassemble(Ops o) {
        return o.ops.reassemble();
    }

    // ---------------------------------------------------------------------------------- paths, per message

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void path_send_small(Sends s, Blackhole bh) {
        send(s.ops, PupaOperations.SMALL, bh);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void path_send_secondary(Sends s, Blackhole bh) {
        send(s.ops, PupaOperations.SECONDARY, bh);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void path_send_card_buffer(Sends s, Blackhole bh) {
        send(s.ops, PupaOperations.CARD_BUFFER, bh);
    }

    private static void send(PupaOperations ops, int size, Blackhole bh) {
        for (int i = 0; i < BATCH; i++) {
            bh.consume(ops.sendPath(size, i));
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void path_receive_small(SmallReceives r, Blackhole bh) {
        receive(r.ops, bh);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void path_receive_secondary(SecondaryReceives r, Blackhole bh) {
        receive(r.ops, bh);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void path_receive_card_buffer(CardBufferReceives r, Blackhole bh) {
        receive(r.ops, bh);
    }

    private static void receive(PupaOperations ops, Blackhole bh) {
        for (int i = 0; i < BATCH; i++) {
            bh.consume(ops.receivePath());
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void path_ack(AckFrames a, Blackhole bh) {
        PupaOperations ops = a.ops;
        for (int i = 0; i < BATCH; i++) {
            bh.consume(ops.ackPath());
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void path_nack(NackFrames n, Blackhole bh) {
        PupaOperations ops = n.ops;
        for (int i = 0; i < BATCH; i++) {
            bh.consume(ops.nackPath());
        }
    }

    /** @return the operation a benchmark measures ({@code op_header_build} -> {@code pupa.header-build}), or null */
    public static String operation(String benchmark) {
        return benchmark.startsWith("op_") ? "pupa." + benchmark.substring(3).replace('_', '-') : null;
    }
}
