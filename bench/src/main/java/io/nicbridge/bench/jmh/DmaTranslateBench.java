package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.memory.DmaSpace;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Cost of a card's DMA address translation in a table of 1, 8 or 64 registered regions: a hit (the
 * normal case), a hit followed by the 32-bit word read a card does for a descriptor, and a miss (a bus
 * error: counted and recorded, no exception). Addresses cycle through 1024 precomputed values so the
 * branch predictor cannot learn one path.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DmaTranslateBench {
    private static final int ADDRESSES = 1024;
    private static final int REGION_BYTES = 4096;

    @Param({"1", "8", "64"})
    public int regions;

    private CommSegment comm;
    private DmaSpace dma;
    private final long[] hits = new long[ADDRESSES];
    private final long[] misses = new long[ADDRESSES];
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        comm = CommSegment.allocate("bench dma", (long) regions * REGION_BYTES);
        dma = new DmaSpace("bench", io.nicbridge.bridge.memory.BusWidth.BITS_32, 64);
        long[] bases = new long[regions];
        for (int i = 0; i < regions; i++) {
            MemorySegment region = comm.carve(REGION_BYTES, REGION_BYTES);
            bases[i] = dma.register("r" + i, region);
        }
        Random random = new Random(21140);
        for (int i = 0; i < ADDRESSES; i++) {
            long base = bases[random.nextInt(regions)];
            hits[i] = base + (random.nextInt(REGION_BYTES / 64 - 1) * 64L);
            misses[i] = base + REGION_BYTES + random.nextInt((int) DmaSpace.GUARD_GAP); // in the guard gap
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        comm.close();
    }

    @Benchmark
    public int translateHit() {
        int i = next++ & (ADDRESSES - 1);
        return dma.translate(hits[i], 64);
    }

    @Benchmark
    public long readIntHit() {
        int i = next++ & (ADDRESSES - 1);
        return dma.readInt(hits[i], ByteOrder.LITTLE_ENDIAN);
    }

    @Benchmark
    public int translateMiss() {
        int i = next++ & (ADDRESSES - 1);
        return dma.translate(misses[i], 64);
    }
}
