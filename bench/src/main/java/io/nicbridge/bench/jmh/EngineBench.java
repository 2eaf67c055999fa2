package io.nicbridge.bench.jmh;

import io.nicbridge.sim.engine.DeviceModel;
import io.nicbridge.sim.engine.FrameFifo;
import io.nicbridge.sim.engine.InlineEngine;
import io.nicbridge.sim.engine.SimTimer;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.engine.WorkSignal;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the engine layer itself costs per operation, below any card: an inline kick (gate in, service a
 * trivial model, gate out, timer poll), one virtual-time event (arm a timer, process it), one kick-to-service
 * in virtual time, and a frame through a card's ingress FIFO (copy in, peek, release).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class EngineBench {
    /** A model whose service is a counter: what remains is the engine's own cost. */
    static final class CountingModel implements DeviceModel {
        long services;

        @Override
        public String name() {
            return "bench-model";
        }

        @Override
        public int service() {
            services++;
            return 1;
        }
    }

    private InlineEngine inline;
    private WorkSignal inlineSignal;
    private VirtualTimeEngine virtual;
    private SimTimer virtualTimer;
    private WorkSignal virtualSignal;
    private FrameFifo fifo;
    private MemorySegment frame;
    private CountingModel inlineModel;
    private CountingModel virtualModel;
    private long fired;

    @Setup(Level.Trial)
    public void setUp() {
        inline = new InlineEngine();
        inlineModel = new CountingModel();
        inlineSignal = inline.attach(inlineModel);
        inline.timeBase().newTimer("idle-timer", () -> fired++); // a table to scan, never armed
        virtual = new VirtualTimeEngine(1);
        virtualModel = new CountingModel();
        virtualSignal = virtual.attach(virtualModel);
        virtualTimer = virtual.timeBase().newTimer("bench-timer", () -> fired++);
        fifo = new FrameFifo(64, 1536);
        frame = Arena.ofAuto().allocate(1536);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        inline.close();
        virtual.close();
    }

    @Benchmark
    public long inlineKick() {
        inlineSignal.kick();
        return inlineModel.services;
    }

    @Benchmark
    public long virtualTimerArmAndFire() {
        virtualTimer.armAfter(100);
        virtual.step();
        return fired;
    }

    @Benchmark
    public long virtualKickAndService() {
        virtualSignal.kick();
        virtual.step();
        return virtualModel.services;
    }

    @Benchmark
    public int fifoFrame64() {
        fifo.offer(frame, 0, 64);
        int length = fifo.peekLength();
        fifo.release();
        return length;
    }
}
