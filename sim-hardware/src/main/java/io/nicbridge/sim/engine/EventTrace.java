package io.nicbridge.sim.engine;

/**
 * Receives every event a {@link VirtualTimeBase} processes, in processing order: a timer expiring (its
 * name) or a model being serviced (the model's name). Two runs of the same world with the same seed produce
 * the same sequence; that is how determinism is checked.
 */
@FunctionalInterface
public interface EventTrace {
    /**
     * @param timeNanos the simulated time of the event
     * @param name      the timer's or model's name (the same String instance every time, so recording it
     *                  allocates nothing)
     */
    void event(long timeNanos, String name);
}
