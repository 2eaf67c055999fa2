package io.nicbridge.bench.unet.real;

import io.nicbridge.bench.unet.real.UnetIpShimPair.Node;
import io.nicbridge.bridge.platform.CpuAffinity;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The far end's own thread in the real-time U-Net runs (an echo, a sink): it attaches to its {@link Node}, sets its
 * protocol up ({@link #setUp}: bind, listen), then steps the stack and does its work ({@link #work}) until stopped,
 * waiting the node's way when neither found anything. The measuring thread {@link #start}s it, waits for it to be
 * {@link #setUp set up} (so that no first message finds the port closed), and {@link #close}s it after its turn;
 * what failed on it (a damaged message) comes back through {@link #rethrow}.
 */
abstract class NodeThread implements Runnable, AutoCloseable {
    private static final long READY_NANOS = TimeUnit.SECONDS.toNanos(10);

    final Node node;
    private final Thread thread;
    private volatile boolean ready;
    private volatile boolean stop;
    private volatile Throwable failure;
    /** The CPU the thread pins itself to before it attaches, or -1: not pinned. */
    private int cpu = -1;

    NodeThread(Node node, String name) {
        this.node = node;
        this.thread = Thread.ofPlatform().name(name).unstarted(this);
    }

    /**
     * Pins the thread to {@code cpu} when it starts (before {@link #start}), or not for -1.
     *
     * @throws IllegalArgumentException for a CPU outside {@code [0, CpuAffinity.cpus())} other than -1
     */
    NodeThread pinTo(int cpu) {
        if (cpu != -1 && (cpu < 0 || cpu >= CpuAffinity.cpus())) {
            throw new IllegalArgumentException("cpu must be -1 (not pinned) or in [0, " + CpuAffinity.cpus()
                + "), was " + cpu);
        }
        this.cpu = cpu;
        return this;
    }

    /** On the node's thread, before the loop: bind or listen. */
    abstract void setUp();

    /** On the node's thread, after each step. @return how much it did (0: nothing, the node may wait) */
    int work() {
        return 0;
    }

    @Override
    public final void run() {
        try {
            if (cpu >= 0) {
                CpuAffinity.pinCurrentThread(cpu);
            }
            node.attach();
            setUp();
            ready = true;
            while (!stop) {
                if (node.step() + work() == 0) {
                    node.idle();
                }
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    /**
     * Starts the thread and waits until it is set up.
     *
     * @throws IOException when it failed or was not set up within 10 s
     */
    NodeThread start(UnetIpShimPair pair) throws IOException {
        thread.start();
        long limit = System.nanoTime() + READY_NANOS;
        while (!ready) {
            rethrow();
            if (System.nanoTime() - limit > 0) {
                throw new IOException(thread.getName() + " not set up within 10 s: " + pair.cardStatistics());
            }
            Thread.yield();
        }
        return this;
    }

    /** @return whether the thread failed (then {@link #rethrow} throws) */
    boolean failed() {
        return failure != null;
    }

    /** @throws IOException carrying the thread's failure, if it had one */
    void rethrow() throws IOException {
        Throwable f = failure;
        if (f != null) {
            throw new IOException(thread.getName() + " failed", f);
        }
    }

    /** Stops the thread and waits for it (at most 10 s); a failure stays for {@link #rethrow}. */
    @Override
    public void close() throws InterruptedException {
        stop = true;
        LockSupport.unpark(thread);
        thread.join(10_000);
    }
}
