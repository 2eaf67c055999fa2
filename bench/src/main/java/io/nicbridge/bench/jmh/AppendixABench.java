package io.nicbridge.bench.jmh;

import io.nicbridge.protocols.careful.CarefulAppendixA;
import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.traditional.TraditionalAppendixA;
import io.nicbridge.protocols.traditional.TraditionalCore;
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
 * TR 94-14 Appendix A as JMH: one benchmark per operation one protocol does and the other omits, in the paper's
 * order and under its names ({@code traditional_decide_ack_flag} measures {@code traditional.decide-ack-flag}), each
 * running the core's own code for it through {@link TraditionalAppendixA} / {@link CarefulAppendixA} on node 0 of a
 * two-node cluster that has done {@link LatencyPair#ROUNDS} rounds of the latency test with a 4-byte fragment (the
 * paper's measurement: "a short frame (4 bytes of payload) is sent from one node to another").
 *
 * <p>Each measurement iteration starts from a fresh pair. The two operations that use something up per call
 * (a free descriptor, an outstanding fragment) run in batches of {@link #BATCH} calls prepared per invocation
 * outside the timed part ({@link Level#Invocation}: the timer's overhead, two clock
 * reads per batch, is well under 1 % of a batch). {@link #baseline} is the same call pattern into nothing: the
 * floor of the harness, which {@code nic calibrate} subtracts.
 *
 * <p>{@code traditional.maintain-buffer-counter} has no benchmark: the traditional core has no code of its own for
 * it (both protocols' {@code EventInbox} keeps the count of fragments held on board).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AppendixABench {
    /** Calls per batch of the batched operations (and the bench cores' descriptors). */
    public static final int BATCH = 1024;

    /** Node 0 of a traditional pair, and its view. */
    @State(Scope.Thread)
    public static class Traditional {
        TraditionalAppendixA ops;

        @Setup(Level.Iteration)
        public void setUp() {
            LatencyPair pair = LatencyPair.traditional();
            ops = new TraditionalAppendixA((TraditionalCore) pair.cores[0], 1);
        }
    }

    /** Node 0 of a careful pair, and its view. */
    @State(Scope.Thread)
    public static class Careful {
        CarefulAppendixA ops;

        @Setup(Level.Iteration)
        public void setUp() {
            LatencyPair pair = LatencyPair.careful();
            ops = new CarefulAppendixA((CarefulCore) pair.cores[0], 1);
        }
    }

    // The batched states own their pair (a state injected into another's fixture would be a second instance).

    /** A traditional pair whose view has {@link #BATCH} descriptors free before each invocation. */
    @State(Scope.Thread)
    public static class Fills extends Traditional {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareFills(BATCH);
        }
    }

    /** A traditional pair whose view has {@link #BATCH} fragments outstanding before each invocation. */
    @State(Scope.Thread)
    public static class Acks extends Traditional {
        @Setup(Level.Invocation)
        public void prepare() {
            ops.prepareAcks(BATCH);
        }
    }

    /**
     * A careful pair whose peer may send about 2^31 frames beyond its window, more than an iteration's calls (a
     * batch of decrements of the one counter, like the other batches, lets the compiler fold the loop: it measured
     * below the harness floor).
     */
    @State(Scope.Thread)
    public static class Decrements {
        CarefulAppendixA ops;

        @Setup(Level.Iteration)
        public void setUp() {
            LatencyPair pair = LatencyPair.careful();
            ops = new CarefulAppendixA((CarefulCore) pair.cores[0], 1);
            ops.prepareDecrements(Integer.MAX_VALUE - 1024);
        }
    }

    // ---------------------------------------------------------------------------------- harness floor

    /** Nothing: what the harness costs per call. */
    @Benchmark
    public void baseline() {
    }

    // ---------------------------------------------------------------------------------- traditional: send

    @Benchmark
    public int traditional_decide_ack_flag(Traditional t) {
        return t.ops.decideAckFlag();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void traditional_fill_fragment_descriptor(Fills f, Blackhole bh) {
        TraditionalAppendixA ops = f.ops;
        for (int i = 0; i < BATCH; i++) {
            bh.consume(ops.fillFragmentDescriptor());
        }
    }

    @Benchmark
    public void traditional_set_ack_mask(Traditional t) {
        t.ops.setAckMask();
    }

    @Benchmark
    public int traditional_get_tx_event_slot(Traditional t) {
        return t.ops.getTxEventSlot();
    }

    @Benchmark
    public void traditional_push_fragment_descriptor(Traditional t) {
        t.ops.pushFragmentDescriptor();
    }

    @Benchmark
    public void traditional_collect_tx_buffers(Traditional t) {
        t.ops.collectTxBuffers();
    }

    @Benchmark
    public void traditional_check_bitset(Traditional t) {
        t.ops.checkBitset();
    }

    // ---------------------------------------------------------------------------------- traditional: interrupt

    @Benchmark
    public boolean traditional_fragment_priority(Traditional t) {
        return t.ops.fragmentPriority();
    }

    @Benchmark
    public void traditional_check_copy_out(Traditional t) {
        t.ops.checkCopyOut();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void traditional_implicit_ack(Acks a) {
        TraditionalAppendixA ops = a.ops;
        for (int i = 0; i < BATCH; i++) {
            ops.implicitAck(i);
        }
    }

    @Benchmark
    public int traditional_check_fragment_number(Traditional t) {
        return t.ops.checkFragmentNumber();
    }

    @Benchmark
    public void traditional_check_explicit_ack(Traditional t) {
        t.ops.checkExplicitAck();
    }

    @Benchmark
    public void traditional_check_retransmission(Traditional t) {
        t.ops.checkRetransmission();
    }

    @Benchmark
    public int traditional_check_all_to_all(Traditional t) {
        return t.ops.checkAllToAll();
    }

    @Benchmark
    public void traditional_check_complete(Traditional t) {
        t.ops.checkComplete();
    }

    // ---------------------------------------------------------------------------------- careful

    @Benchmark
    public void careful_shrink_window(Careful c) {
        c.ops.shrinkWindow();
    }

    @Benchmark
    public void careful_fill_in_window_update(Careful c) {
        c.ops.fillInWindowUpdate();
    }

    @Benchmark
    public void careful_process_window_update(Careful c) {
        c.ops.processWindowUpdate();
    }

    @Benchmark
    public boolean careful_track_last_event(Careful c) {
        return c.ops.trackLastEvent();
    }

    @Benchmark
    public void careful_decrement_sender_window(Decrements d) {
        d.ops.decrementSenderWindow();
    }

    @Benchmark
    public void careful_skip_copy_out(Careful c) {
        c.ops.skipCopyOut();
    }

    /** @return the operation a benchmark measures ({@code traditional_check_bitset} -> {@code traditional.check-bitset}) */
    public static String operation(String benchmark) {
        int u = benchmark.indexOf('_');
        if (u < 0) {
            throw new IllegalArgumentException("not an operation benchmark: " + benchmark);
        }
        return benchmark.substring(0, u) + "." + benchmark.substring(u + 1).replace('_', '-');
    }
}
