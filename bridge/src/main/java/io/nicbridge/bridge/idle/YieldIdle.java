package io.nicbridge.bridge.idle;

/** Yields the core on every idle pass: moderate latency, and the core goes to whoever else is runnable. */
public final class YieldIdle implements IdleStrategy {
    @Override
    public void idle(int workCount) {
        if (workCount <= 0) {
            Thread.yield();
        }
    }

    @Override
    public void reset() {
        // stateless
    }

    @Override
    public IdleStrategy copy() {
        return new YieldIdle();
    }

    @Override
    public String describe() {
        return "yield";
    }

    @Override
    public String toString() {
        return "YieldIdle";
    }
}
