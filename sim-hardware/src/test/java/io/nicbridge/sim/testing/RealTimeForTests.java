package io.nicbridge.sim.testing;

import io.nicbridge.sim.engine.SimTimer;
import io.nicbridge.sim.engine.TimeBase;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** A real-time time base for tests: System.nanoTime and timers on one daemon scheduler thread. */
public final class RealTimeForTests implements TimeBase, AutoCloseable {
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "test-real-time-timers");
        t.setDaemon(true);
        return t;
    });

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public boolean isVirtual() {
        return false;
    }

    @Override
    public SimTimer newTimer(String name, Runnable action) {
        return new SimTimer() {
            private ScheduledFuture<?> pending;
            private long deadline;

            @Override
            public synchronized void armAfter(long delayNanos) {
                cancel();
                deadline = System.nanoTime() + delayNanos;
                pending = scheduler.schedule(action, delayNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public synchronized void armAt(long deadlineNanos) {
                armAfter(Math.max(0L, deadlineNanos - System.nanoTime()));
            }

            @Override
            public synchronized void cancel() {
                if (pending != null) {
                    pending.cancel(false);
                    pending = null;
                }
            }

            @Override
            public synchronized boolean isArmed() {
                return pending != null && !pending.isDone();
            }

            @Override
            public synchronized long deadline() {
                return deadline;
            }
        };
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
