package io.nicbridge.sim.engine;

/**
 * What a {@link DeviceModel} calls to say it has work: the engine then runs its
 * {@link DeviceModel#service()} - at once on the calling thread (inline), by waking the card's
 * thread (threaded), or as an event at the current simulated time (virtual). Safe from any thread;
 * allocation-free.
 */
@FunctionalInterface
public interface WorkSignal {
    void kick();
}
