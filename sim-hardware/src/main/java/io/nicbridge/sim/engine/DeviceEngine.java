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

    @Override
    void close();
}
