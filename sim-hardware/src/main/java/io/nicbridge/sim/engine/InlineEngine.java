package io.nicbridge.sim.engine;

import java.util.Arrays;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each model's {@link DeviceModel#service()} on the thread that kicks it: the driver thread that rings a
 * doorbell, the wire thread that delivers a frame, or the host thread that calls {@link #poll()}. No engine
 * threads; the fewest context switches, which is why it is the default for latency work on few cores.
 *
 * <p>Each model sits behind a {@link ServiceGate}: if a second thread kicks while the first is inside
 * {@code service()}, the second returns at once and the first services once more before it leaves, so
 * {@code service()} never runs concurrently for one model and no kick is lost. A kick from inside
 * {@code service()} (the model kicking itself) is handled the same way, by one more pass, never by recursion.
 *
 * <p><b>Time-driven work happens only when someone drives the engine.</b> Timers live in a
 * {@link RealTimeBase} and are checked after every service of any attached model and on every
 * {@link #poll()} / {@link #pollTimers()}. A host that waits for a timer-driven event (a CSR11 timer
 * interrupt, a retransmission) must therefore poll the engine while it waits; a driver that polls its card
 * does so naturally.
 *
 * <p>Kicks and polls allocate nothing and take no locks.
 */
public final class InlineEngine implements DeviceEngine {
    private static final Logger LOG = LoggerFactory.getLogger(InlineEngine.class);

    private final RealTimeBase timeBase;
    /** Copy-on-write at attach (setup), read by poll() on any thread. */
    private volatile Gated[] models = new Gated[0];
    private volatile boolean closed;

    public InlineEngine() {
        this(new RealTimeBase());
    }

    /** @param timeBase the real-time base whose timers this engine polls (may be shared by several engines) */
    public InlineEngine(RealTimeBase timeBase) {
        this.timeBase = Objects.requireNonNull(timeBase, "timeBase");
    }

    @Override
    public EngineMode mode() {
        return EngineMode.INLINE;
    }

    @Override
    public RealTimeBase timeBase() {
        return timeBase;
    }

    @Override
    public synchronized WorkSignal attach(DeviceModel model) {
        Objects.requireNonNull(model, "model");
        if (closed) {
            throw new IllegalStateException("inline engine is closed; cannot attach " + model.name());
        }
        for (Gated g : models) {
            if (g.model == model) {
                throw new IllegalArgumentException("model " + model.name() + " is already attached");
            }
        }
        Gated gated = new Gated(model);
        Gated[] grown = Arrays.copyOf(models, models.length + 1);
        grown[grown.length - 1] = gated;
        models = grown;
        LOG.debug("inline engine: attached {}", model.name());
        return gated;
    }

    /**
     * Services every attached model once (through its gate: a model busy on another thread is asked to loop
     * once more instead) and then fires the due timers.
     *
     * @return the work done on this thread: the sum of the {@code service()} results plus the timers fired
     */
    @Override
    public int poll() {
        int work = 0;
        for (Gated g : models) {
            work += Math.max(0, g.serviceGated());
        }
        return work + timeBase.pollTimers();
    }

    /**
     * Fires the timers whose deadline has passed, on this thread.
     *
     * @return how many timer actions ran
     */
    public int pollTimers() {
        return timeBase.pollTimers();
    }

    /** @return the number of attached models */
    public int modelCount() {
        return models.length;
    }

    /** Stops accepting attachments. Kicks still work (there is no thread to stop). */
    @Override
    public void close() {
        closed = true;
    }

    /** A model behind its gate; also the model's {@link WorkSignal}. */
    private final class Gated implements WorkSignal {
        private final DeviceModel model;
        private final ServiceGate gate = new ServiceGate();

        Gated(DeviceModel model) {
            this.model = model;
        }

        @Override
        public void kick() {
            if (serviceGated() >= 0) {
                timeBase.pollTimers();
            }
        }

        /** @return the work done, or -1 when another thread was inside and will service once more for us */
        int serviceGated() {
            if (!gate.enterOrNote()) {
                return -1;
            }
            int work = 0;
            try {
                do {
                    work += model.service();
                } while (!gate.tryExit());
            } catch (RuntimeException | Error e) {
                gate.abandon();
                throw e;
            }
            return work;
        }

        @Override
        public String toString() {
            return "inline signal of " + model.name();
        }
    }
}
