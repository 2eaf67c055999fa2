package io.nicbridge.sim.engine;

import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * Drives models in simulated time: a kick schedules the model's {@link DeviceModel#service()} as an event at
 * the current simulated time (behind whatever is already due then), and the {@link VirtualTimeBase} runs it
 * when the world is run. Kicks are coalesced: at most one service event per model is scheduled at a time, so
 * ten doorbell writes in one instant cost one service; a kick made while the service runs schedules another.
 *
 * <p>Several engines (or cards) can share one {@link VirtualTimeBase}: that is one world, one clock, one
 * trace. The run methods here are shortcuts to the time base's.
 */
public final class VirtualTimeEngine implements DeviceEngine {
    private final VirtualTimeBase timeBase;
    private boolean closed;

    /** A new world with its own {@link VirtualTimeBase} seeded with {@code seed}. */
    public VirtualTimeEngine(long seed) {
        this(new VirtualTimeBase(seed));
    }

    public VirtualTimeEngine(VirtualTimeBase timeBase) {
        this.timeBase = Objects.requireNonNull(timeBase, "timeBase");
    }

    @Override
    public EngineMode mode() {
        return EngineMode.VIRTUAL;
    }

    @Override
    public VirtualTimeBase timeBase() {
        return timeBase;
    }

    @Override
    public WorkSignal attach(DeviceModel model) {
        Objects.requireNonNull(model, "model");
        if (closed) {
            throw new IllegalStateException("virtual engine is closed; cannot attach " + model.name());
        }
        ServiceEvent event = new ServiceEvent(model);
        timeBase.registered();
        return event;
    }

    public long runUntil(long timeNanos) {
        return timeBase.runUntil(timeNanos);
    }

    public boolean runUntil(BooleanSupplier condition, long timeLimitNanos) {
        return timeBase.runUntil(condition, timeLimitNanos);
    }

    public long runFor(long durationNanos) {
        return timeBase.runFor(durationNanos);
    }

    public long runUntilIdle() {
        return timeBase.runUntilIdle();
    }

    public long runUntilIdle(long maxEvents) {
        return timeBase.runUntilIdle(maxEvents);
    }

    public boolean step() {
        return timeBase.step();
    }

    public SplittableRandom random() {
        return timeBase.random();
    }

    public void trace(EventTrace trace) {
        timeBase.trace(trace);
    }

    /** Stops accepting attachments; scheduled events stay and still run if the world is run. */
    @Override
    public void close() {
        closed = true;
    }

    /** A model's service as a reusable event; also its {@link WorkSignal}. */
    private final class ServiceEvent extends VirtualTimeBase.Event implements WorkSignal {
        private final DeviceModel model;

        ServiceEvent(DeviceModel model) {
            super(model.name());
            this.model = model;
        }

        @Override
        public void kick() {
            if (!isScheduled()) {
                timeBase.schedule(this, timeBase.nanoTime());
            }
        }

        @Override
        void fire() {
            model.service();
        }

        @Override
        public String toString() {
            return "virtual signal of " + name;
        }
    }
}
