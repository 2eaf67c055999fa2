package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What going through {@link Registers} costs: a doorbell write that dispatches to a backend hook, a
 * write to a register without side effects, and the raw {@link MemorySegment} stores they are built on.
 * The window is a little-endian 21140-style CSR file (16 registers at an 8-byte stride).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RegisterDoorbellBench {
    private static final int CSR1 = 0x08; // transmit poll demand: the doorbell
    private static final int CSR7 = 0x38; // interrupt enable: a plain register
    private static final VarHandle INT_LE = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();

    /** A doorbell hook that records the demand the way a device model would. */
    static final class Doorbell implements RegisterSideEffects {
        long demands;
        int lastValue;

        @Override
        public int onRead(int offset, int storedValue) {
            return storedValue;
        }

        @Override
        public void onWrite(int offset, int value) {
            demands++;
            lastValue = value;
        }
    }

    private Arena arena;
    private MemorySegment window;
    private Registers registers;
    private Doorbell doorbell;
    private int value;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        window = arena.allocate(128, 8);
        doorbell = new Doorbell();
        registers = new Registers("bench csrs", window, ByteOrder.LITTLE_ENDIAN, doorbell, CSR1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public void doorbellWithHookRelease() {
        registers.writeRelease(CSR1, ++value);
    }

    @Benchmark
    public void plainRegisterWriteRelease() {
        registers.writeRelease(CSR7, ++value);
    }

    @Benchmark
    public void rawSegmentSetRelease() {
        INT_LE.setRelease(window, (long) CSR7, ++value);
    }

    @Benchmark
    public void plainRegisterWritePlain() {
        registers.writePlain(CSR7, ++value);
    }

    @Benchmark
    public void rawSegmentSet() {
        window.set(ValueLayout.JAVA_INT, CSR7, ++value);
    }

    @Benchmark
    public void plainRegisterWriteVolatile() {
        registers.write(CSR7, ++value);
    }

    @Benchmark
    public int plainRegisterReadAcquire() {
        return registers.readAcquire(CSR7);
    }
}
