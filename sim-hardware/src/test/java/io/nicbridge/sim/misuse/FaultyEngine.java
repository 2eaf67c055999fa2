package io.nicbridge.sim.misuse;

import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.DeviceModel;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.ModelFailureListener;
import io.nicbridge.sim.engine.ThreadedEngine;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.engine.WorkSignal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A fault seam for tests: a {@link ThreadedEngine} whose models can be made to throw. Every attached model is wrapped;
 * {@link #explode(String, RuntimeException)} makes that model's next {@code service()} throw the given exception on its
 * engine thread (and kicks it so that happens now), as a card model with a bug would.
 */
final class FaultyEngine implements DeviceEngine {
    private final ThreadedEngine engine;
    private final Map<String, Faulty> models = new ConcurrentHashMap<>();

    FaultyEngine(ThreadedEngine engine) {
        this.engine = engine;
    }

    /** Makes model {@code name}'s next service() throw {@code failure}. */
    void explode(String name, RuntimeException failure) {
        Faulty f = models.get(name);
        if (f == null) {
            throw new IllegalArgumentException("no model named " + name + "; attached: " + models.keySet());
        }
        f.failure = failure;
        f.signal.kick();
    }

    ThreadedEngine threaded() {
        return engine;
    }

    @Override
    public EngineMode mode() {
        return engine.mode();
    }

    @Override
    public TimeBase timeBase() {
        return engine.timeBase();
    }

    @Override
    public WorkSignal attach(DeviceModel model) {
        Faulty f = new Faulty(model);
        f.signal = engine.attach(f);
        models.put(model.name(), f);
        return f.signal;
    }

    @Override
    public void addFailureListener(ModelFailureListener listener) {
        engine.addFailureListener(listener);
    }

    @Override
    public void close() {
        engine.close();
    }

    private static final class Faulty implements DeviceModel {
        private final DeviceModel model;
        private volatile RuntimeException failure;
        private volatile WorkSignal signal;

        Faulty(DeviceModel model) {
            this.model = model;
        }

        @Override
        public String name() {
            return model.name();
        }

        @Override
        public int service() {
            RuntimeException f = failure;
            if (f != null) {
                throw f;
            }
            return model.service();
        }
    }
}
