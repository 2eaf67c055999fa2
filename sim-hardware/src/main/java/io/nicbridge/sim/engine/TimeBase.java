package io.nicbridge.sim.engine;

/**
 * The source of time and timers that one simulated world shares: every card, wire and process in
 * it reads the same clock, so that in virtual time the whole world is one deterministic
 * discrete-event simulation (same seed, same trace).
 */
public interface TimeBase extends SimClock, io.nicbridge.bridge.time.Scheduler {
    /** Creates a timer whose expiry runs {@code action}. Setup-time only. */
    @Override
    SimTimer newTimer(String name, Runnable action);

    /** @return true when time is simulated (it advances only as events are processed) */
    @Override
    boolean isVirtual();
}
