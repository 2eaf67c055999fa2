package io.nicbridge.sim.testing;

import java.lang.management.ManagementFactory;

/** Bytes allocated by the current thread (HotSpot's per-thread counter), for allocation-free checks. */
public final class ThreadAllocations {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private ThreadAllocations() {}

    /** Runs {@code body} a few times to get it compiled, then returns what one more run allocated. */
    public static long measure(Runnable body) {
        for (int i = 0; i < 5; i++) {
            body.run();
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        body.run();
        return THREADS.getCurrentThreadAllocatedBytes() - before;
    }
}
