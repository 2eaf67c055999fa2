package io.nicbridge.sim.engine;

/**
 * Told when a model's engine thread stops because its {@code service()} (or a timer action polled on that thread)
 * threw: the model does no more work. The emulated testbed's listener fails the card of that name, so its drivers
 * throw {@code CardFailedException} at their next call (see {@link DeviceEngine#addFailureListener}).
 */
@FunctionalInterface
public interface ModelFailureListener {
    /**
     * Runs once per failed model, on its (dying) engine thread, or on the registering thread when the model had
     * failed before the listener was added. Must not block.
     */
    void failed(DeviceModel model, Throwable cause);
}
