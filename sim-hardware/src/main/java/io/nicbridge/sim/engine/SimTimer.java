package io.nicbridge.sim.engine;

/**
 * A one-shot timer created once at setup and re-armed as often as needed, so that arming it on a
 * hot path allocates nothing (the 21140's CSR11 timer, a wire's delivery of an in-flight frame, a
 * protocol's retransmission timeout).
 *
 * <p>When it expires, its action runs where the time base runs actions: on the scheduler thread in
 * virtual time; in real time on the thread that services the owning engine. An action never runs
 * concurrently with itself.
 */
public interface SimTimer extends io.nicbridge.bridge.time.Timer {
    // armAfter, armAt, cancel, isArmed, deadline: see bridge's Timer, which this is for sim code.
}
