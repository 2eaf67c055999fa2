package io.nicbridge.sim.engine;

/**
 * Drives {@link DeviceModel}s in one of the three {@link EngineMode}s and supplies their shared
 * {@link TimeBase}. Models are attached at setup; {@link #close()} stops any engine threads and
 * waits for them.
 */
public interface DeviceEngine extends AutoCloseable {
    EngineMode mode();

    TimeBase timeBase();

    /** Attaches a model; the returned signal is how the model asks to be serviced. Setup-time only. */
    WorkSignal attach(DeviceModel model);

    /**
     * Lets the engine run pending work on the calling thread, for hosts that drive it by polling (a driver
     * reading its card's status register). Inline: services every model and fires due timers. Threaded and
     * virtual: nothing - engine threads or the scheduler run the work - so a card may call this from any
     * register-read hook without knowing the mode.
     *
     * @return the work done on this call
     */
    default int poll() {
        return 0;
    }

    /**
     * Adds a listener for models that stop on an exception. Only an engine that runs models on threads of its own
     * ({@link ThreadedEngine}) reports to it: inline and virtual-time engines run {@code service()} on the caller's
     * thread, where the exception reaches the caller itself, so they ignore listeners.
     */
    default void addFailureListener(ModelFailureListener listener) {
        java.util.Objects.requireNonNull(listener, "listener");
    }

    @Override
    void close();
}
