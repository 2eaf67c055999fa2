package io.nicbridge.bench.pingpong;

import io.nicbridge.bridge.port.FramePort;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * How a node waits for its next received frame: block at once ({@link #BLOCK}: the driver's {@code await}, which on an
 * inline shim card sleeps in the shim's epoll wait until the frame arrives), or spin first for a bounded time, polling the
 * descriptor ring and giving the card a thread, and block only if nothing came in that time.
 * <pre>
 *   spin:N   |-- poll ring, card progress, onSpinWait x64, then yield --- N us ---|-- await (blocks) --|
 * </pre>
 * The spin skips the two sleeps and wake-ups of a blocking round trip (one per node) when the answer comes soon, the
 * way a NIC driver's busy polling does; the CPU it burns is bounded by N per wait. The kernel UDP baseline always
 * blocks in {@code read}: a spinning shim against it is not the like-for-like comparison, and the CLI says which ran.
 */
public final class FrameWait {
    /** Block in the driver's await at once. */
    public static final FrameWait BLOCK = new FrameWait(0, null);
    /** Spin iterations with {@link Thread#onSpinWait()} before the spin yields its CPU on every further iteration. */
    static final int SPIN_BEFORE_YIELD = 64;

    private final long spinNanos;
    private final Runnable cardProgress;

    /**
     * @param spinNanos    how long to poll before blocking (0: block at once)
     * @param cardProgress run on each spin iteration (an inline shim card's {@code progress()}: moves frames from the
     *                     kernel ring into the descriptor ring); null when the card has its own thread
     */
    public FrameWait(long spinNanos, Runnable cardProgress) {
        if (spinNanos < 0) {
            throw new IllegalArgumentException("spin time must be >= 0, was " + spinNanos);
        }
        this.spinNanos = spinNanos;
        this.cardProgress = cardProgress;
    }

    /**
     * Parses {@code block} or {@code spin[:MICROS]} (default 50 us).
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static long parseSpinNanos(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("block")) {
            return 0;
        }
        if (t.equals("spin")) {
            return TimeUnit.MICROSECONDS.toNanos(50);
        }
        if (t.startsWith("spin:")) {
            try {
                long us = Long.parseLong(t.substring(5));
                if (us >= 1 && us <= 1_000_000) {
                    return TimeUnit.MICROSECONDS.toNanos(us);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw new IllegalArgumentException("--wait '" + text + "': expected block, spin or spin:MICROS (1..1000000)");
    }

    public long spinNanos() {
        return spinNanos;
    }

    /** @return a held receive handle, or {@link FramePort#NONE} when nothing arrived within the timeout */
    public int next(FramePort port, long timeoutNanos) throws InterruptedException {
        int h = port.poll();
        if (h != FramePort.NONE) {
            return h;
        }
        if (spinNanos > 0) {
            long start = System.nanoTime();
            int spins = 0;
            do {
                if (cardProgress != null) {
                    cardProgress.run();
                }
                h = port.poll();
                if (h != FramePort.NONE) {
                    return h;
                }
                if (++spins < SPIN_BEFORE_YIELD) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            } while (System.nanoTime() - start < spinNanos);
        }
        return port.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public String toString() {
        return spinNanos == 0 ? "block" : "spin " + TimeUnit.NANOSECONDS.toMicros(spinNanos) + " us, then block";
    }
}
