package io.nicbridge.bridge.platform;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Pins the calling thread to one CPU, or lets it run on all of them again (sched_setaffinity(2) on the thread).
 * Setup-time: each call allocates its mask in a confined arena.
 */
public final class CpuAffinity {
    /** The kernel's cpu_set_t is 1024 bits. */
    private static final int MASK_BYTES = 128;
    /**
     * The JVM's CPUs, read once before anything is pinned: {@code availableProcessors()} follows the calling thread's
     * affinity, so a pinned thread would see 1.
     */
    private static final int CPUS = Runtime.getRuntime().availableProcessors();

    private CpuAffinity() {
    }

    /** @return the CPUs this JVM could run on when this class was loaded (before any pinning) */
    public static int cpus() {
        return CPUS;
    }

    /**
     * @throws IllegalArgumentException for a CPU outside {@code [0, cpus())}
     * @throws IOException              when the kernel refuses (errno named)
     */
    public static void pinCurrentThread(int cpu) throws IOException {
        if (cpu < 0 || cpu >= cpus()) {
            throw new IllegalArgumentException("cpu must be in [0, " + cpus() + "), was " + cpu);
        }
        set(cpu);
    }

    /** Lets the calling thread run on every CPU again. @throws IOException when the kernel refuses */
    public static void unpinCurrentThread() throws IOException {
        set(-1);
    }

    private static void set(int cpu) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES, 8);
            if (cpu < 0) {
                for (int c = 0; c < cpus(); c++) {
                    mask.set(ValueLayout.JAVA_BYTE, c / 8, (byte) (mask.get(ValueLayout.JAVA_BYTE, c / 8) | 1 << c % 8));
                }
            } else {
                mask.set(ValueLayout.JAVA_BYTE, cpu / 8, (byte) (1 << cpu % 8));
            }
            MemorySegment state = Libc.newCallState(arena);
            if (Libc.schedSetaffinity(state, mask) != 0) {
                throw new IOException("sched_setaffinity(" + (cpu < 0 ? "all CPUs" : "CPU " + cpu) + "): "
                    + Libc.errnoName(Libc.errno(state)));
            }
        }
    }
}
