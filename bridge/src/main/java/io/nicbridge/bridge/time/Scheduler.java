package io.nicbridge.bridge.time;

/**
 * A clock plus timers: what a protocol runner (and a card model) needs of time. Two kinds exist:
 * <ul>
 *   <li><b>virtual</b> ({@link VirtualScheduler}): time advances only from one event to the next, on the one
 *       thread that runs the world, so that the same seed replays the same trace (sim-hardware's
 *       {@code VirtualTimeBase});</li>
 *   <li><b>real</b>: {@link System#nanoTime()}; timers fire on the thread that services the scheduler, e.g. the
 *       loop thread of an {@link EventLoop}, which is what a single-threaded protocol core needs, or the engine
 *       threads of an emulated card (sim-hardware's {@code RealTimeBase}).</li>
 * </ul>
 */
public interface Scheduler extends Clock {
    /**
     * Creates a disarmed timer whose expiry runs {@code action}. Setup-time only (it may allocate and grow the
     * scheduler's tables); arming it later allocates nothing.
     *
     * @param name for diagnostics and traces
     */
    Timer newTimer(String name, Runnable action);

    /** @return true when time is simulated (it advances only as events are processed) */
    boolean isVirtual();
}
