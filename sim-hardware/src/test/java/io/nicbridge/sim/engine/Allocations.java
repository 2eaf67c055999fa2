package io.nicbridge.sim.engine;

import java.lang.management.ManagementFactory;

/** Bytes allocated by the current thread, from HotSpot's per-thread allocation counter (TLAB accounting). */
final class Allocations {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private Allocations() {
    }

    static long allocatedBytes() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /** Runs {@code body} a few times to get it compiled, then returns what one more run allocated. */
    static long measure(Runnable body) {
        for (int i = 0; i < 5; i++) {
            body.run();
        }
        long before = allocatedBytes();
        body.run();
        return allocatedBytes() - before;
    }

    static long cpuNanos(Thread t) {
        return THREADS.getThreadCpuTime(t.threadId());
    }
}
