package io.nicbridge.bench.unet;

import io.nicbridge.bridge.time.EventLoop;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.testbed.UnetLinkTestbed;
import java.util.function.BooleanSupplier;

/**
 * The clock a two-node U-Net run ({@link UamRuns}, {@link UdpRuns}, {@link TcpRuns}) runs on. The run itself - cores,
 * node runner, application - is the same on both:
 * <ul>
 *   <li>{@link #VIRTUAL}: the cards, the switch and both hosts in one discrete-event simulation; the host work is
 *       charged to each node's CPU by the cost table, and every figure is simulated time;</li>
 *   <li>{@link #REAL_ONE_THREAD}: the emulated cards on the real clock, run inline, and both nodes' runners and
 *       applications on the calling thread: one {@link EventLoop} whose every pass runs the card engine (so the
 *       cards' readiness signals arrive on the loop's thread), then the nodes' due events. The real CPU pays for the
 *       host work (the cost table only counts); every figure is wall-clock time, this machine's and its load's.</li>
 * </ul>
 */
public enum Timebase {
    VIRTUAL,
    REAL_ONE_THREAD;

    /** @return the testbed builder with the engine mode this clock needs */
    UnetLinkTestbed.Builder testbed() {
        return UnetLinkTestbed.builder(this == VIRTUAL ? EngineMode.VIRTUAL : EngineMode.INLINE);
    }

    /** @return the world's scheduler on {@code tb} (built by {@link #testbed()}); close it with the testbed */
    World world(UnetLinkTestbed tb) {
        if (this == VIRTUAL) {
            return new World(tb.virtualTimeBase(), null);
        }
        EventLoop loop = new EventLoop("unet-one-thread", 1_000_000L);
        loop.addSource(tb.engine()::poll);
        for (var link : tb.links()) { // a refused claim looks again every 20 us (the card signals no completion)
            link.writableProbe(loop, 20_000L);
        }
        return new World(loop, loop);
    }

    /** A run's scheduler and how to run it until a condition holds. */
    static final class World {
        final Scheduler scheduler;
        private final EventLoop loop;

        private World(Scheduler scheduler, EventLoop loop) {
            this.scheduler = scheduler;
            this.loop = loop;
        }

        /**
         * Runs the world until {@code done} or for {@code limitNanos} of its time.
         *
         * @return whether {@code done} held
         */
        boolean runUntil(BooleanSupplier done, long limitNanos) {
            if (loop == null) {
                io.nicbridge.sim.engine.VirtualTimeBase v = (io.nicbridge.sim.engine.VirtualTimeBase) scheduler;
                return v.runUntil(done, v.nanoTime() + limitNanos);
            }
            long end = System.nanoTime() + limitNanos;
            int idle = 0;
            while (!done.getAsBoolean()) {
                if (System.nanoTime() - end > 0) {
                    return false;
                }
                if (loop.runOnce() > 0) {
                    idle = 0;
                } else if (++idle > 64) { // the card engine did nothing for a while: let other threads in
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
            }
            return true;
        }
    }
}
