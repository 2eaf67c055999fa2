package io.nicbridge.sim.testbed;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.sim.dec21140.Dec21140Card;
import io.nicbridge.sim.dec21140.Dec21140Timing;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.ThreadedEngine;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.ethernet.EthernetMode;
import io.nicbridge.sim.ethernet.EthernetSegment;
import io.nicbridge.sim.fault.FaultPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * N emulated 21140s on one Ethernet segment, each with a {@link TulipDriver}, driven by one engine: the world that
 * {@code ./nic pingpong}, the Tulip benchmarks and the driver-conformance tests run in.
 *
 * <pre>
 *   engine (inline | threaded | virtual, seeded)
 *     +-- node 0: Dec21140Model "dec21140#0" (SROM MAC 02:00:00:00:00:01) -- TulipDriver
 *     +-- node 1: Dec21140Model "dec21140#1" (SROM MAC 02:00:00:00:00:02) -- TulipDriver
 *     |                 |
 *   EthernetSegment "segment" (100 Mb/s, propagation 500 ns in virtual time; immediate in real time)
 * </pre>
 * Built on the emu backend's {@link EmulatedTestbed}. Closing it closes the drivers (which stop the chips), then
 * the cards, the segment and the engine.
 */
public final class TulipTestbed implements AutoCloseable {
    private final EmulatedTestbed world;
    private final EthernetSegment wire;
    private final List<Dec21140Card> cards = new ArrayList<>();
    private final List<TulipDriver> drivers = new ArrayList<>();

    private TulipTestbed(Builder b) {
        this.world = b.engine != null ? EmulatedTestbed.on(b.engine) : EmulatedTestbed.create(b.mode, b.seed, b.idle);
        EthernetSegment segment = null;
        try {
            world.cardTiming(b.timing);
            segment = world.ethernet("segment", wb -> {
                if (b.propagationNanos >= 0) {
                    wb.propagationNanos(b.propagationNanos);
                }
                wb.faults(b.faults).mode(b.medium).seed(b.seed).portBufferFrames(b.portBufferFrames);
            });
            for (int i = 0; i < b.nodes; i++) {
                cards.add(world.dec21140("dec21140#" + i, segment, mac(i).toBytes()));
            }
            if (world.engine() instanceof ThreadedEngine t) {
                t.start();
            }
            for (int i = 0; i < b.nodes; i++) {
                drivers.add(TulipDriver.open(cards.get(i), b.config.apply(i)));
            }
            if (world.engine() instanceof VirtualTimeEngine v) {
                for (TulipDriver d : drivers) {
                    d.timeOn(v.timeBase(), v::step); // waits and timeouts in virtual time (issue 16)
                }
            }
            if (b.watchdogNanos > 0) {
                VirtualTimeBase vt = world.virtualEngine().timeBase();
                for (TulipDriver d : drivers) {
                    d.watchdog(vt, b.watchdogNanos);
                }
            }
        } catch (RuntimeException e) {
            closeAll();
            throw e;
        }
        this.wire = segment;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The station address node {@code i}'s SROM holds: 02:00:00:00:00:(i+1), locally administered. */
    public static MacAddress mac(int i) {
        return MacAddress.of(0x0200_0000_0000L + i + 1);
    }

    public DeviceEngine engine() {
        return world.engine();
    }

    public EngineMode mode() {
        return world.mode();
    }

    /** The emulated world underneath (engine, segments, cards). */
    public EmulatedTestbed world() {
        return world;
    }

    public EthernetSegment wire() {
        return wire;
    }

    public Dec21140Card card(int i) {
        return cards.get(i);
    }

    public TulipDriver driver(int i) {
        return drivers.get(i);
    }

    public int nodes() {
        return drivers.size();
    }

    /**
     * Injects a card reset into node {@code i}'s 21140 ({@link io.nicbridge.sim.dec21140.Dec21140Model#hardwareReset}):
     * the chip loses its state as on the bus's reset; its driver finds out at the next tick of its watchdog
     * ({@link Builder#watchdog}, or {@link TulipDriver#watchdog} installed by the caller) and re-initialises it.
     * Any thread; in virtual time call it from the world's thread (a timer, or between runs).
     */
    public void resetCard(int i) {
        cards.get(i).model().hardwareReset();
    }

    /** @throws IllegalStateException when the engine is not virtual */
    public VirtualTimeBase virtualTime() {
        return world.virtualEngine().timeBase();
    }

    /**
     * Waits until every driver's setup frame has been processed: in virtual time by running the world until idle
     * (with watchdogs, whose ticks never let it idle, until every filter is loaded or {@code timeoutNanos} of virtual
     * time passed), in real time by polling (bounded).
     *
     * @throws IllegalStateException when a filter is still not loaded after {@code timeoutNanos}
     */
    public void awaitFiltersLoaded(long timeoutNanos) {
        if (world.engine() instanceof VirtualTimeEngine v) {
            if (drivers.stream().anyMatch(d -> d.watchdogNanos() > 0)) {
                v.runUntil(() -> drivers.stream().allMatch(TulipDriver::isFilterLoaded),
                    v.timeBase().nanoTime() + timeoutNanos);
            } else {
                v.runUntilIdle();
            }
        }
        long deadline = System.nanoTime() + timeoutNanos;
        for (TulipDriver d : drivers) {
            if (!d.awaitFilterLoaded(Math.max(0, deadline - System.nanoTime()), null)) {
                throw new IllegalStateException(d.name() + ": setup frame not processed within " + timeoutNanos
                    + " ns");
            }
        }
    }

    @Override
    public void close() {
        closeAll();
    }

    private void closeAll() {
        RuntimeException first = null;
        for (TulipDriver d : drivers) {
            try {
                d.close();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        world.close(); // cards, segment, engine
        if (first != null) {
            throw first;
        }
    }

    /** Testbed parameters; defaults: 2 nodes, inline, seed 1, Linux driver defaults, PCI 33 MHz card timing. */
    public static final class Builder {
        private int nodes = 2;
        private EngineMode mode = EngineMode.INLINE;
        private long seed = 1;
        private EthernetMode medium = EthernetMode.IDEAL;
        private int portBufferFrames = EthernetSegment.DEFAULT_PORT_BUFFER_FRAMES;
        private IdleStrategy idle;
        private DeviceEngine engine;
        private Dec21140Timing timing = Dec21140Timing.PCI_33MHZ;
        private long propagationNanos = -1;
        private FaultPlan faults = FaultPlan.NONE;
        private IntFunction<TulipConfig> config = i -> TulipConfig.defaults();
        private long watchdogNanos;

        private Builder() {
        }

        public Builder nodes(int n) {
            if (n < 1 || n > 254) {
                throw new IllegalArgumentException("a testbed has 1..254 nodes, was " + n);
            }
            this.nodes = n;
            return this;
        }

        public Builder mode(EngineMode m) {
            this.mode = Objects.requireNonNull(m, "mode");
            return this;
        }

        /** Threaded mode's idle strategy by name (spin, yield, park, park:&lt;nanos&gt;, backoff); default backoff. */
        public Builder idle(String name) {
            this.idle = IdleStrategy.parse(name);
            return this;
        }

        public Builder seed(long s) {
            this.seed = s;
            return this;
        }

        /** Uses an engine built by the caller (the testbed still closes it). */
        public Builder engine(DeviceEngine e) {
            this.engine = Objects.requireNonNull(e, "engine");
            return this;
        }

        /** The cards' delays in virtual time (ignored in real time). */
        public Builder timing(Dec21140Timing t) {
            this.timing = Objects.requireNonNull(t, "timing");
            return this;
        }

        public Builder propagationNanos(long nanos) {
            this.propagationNanos = nanos;
            return this;
        }

        /**
         * How the segment shares its medium (default {@link EthernetMode#IDEAL}); hub and switched need the
         * virtual engine. The hub's backoff draws come from the testbed's seed.
         */
        public Builder medium(EthernetMode m) {
            this.medium = Objects.requireNonNull(m, "medium");
            return this;
        }

        /** Frames each switch output port holds (switched medium only). */
        public Builder portBufferFrames(int frames) {
            this.portBufferFrames = frames;
            return this;
        }

        /** Faults the segment injects per transmitted frame (default none). */
        public Builder faults(FaultPlan plan) {
            this.faults = Objects.requireNonNull(plan, "plan");
            return this;
        }

        /** The same driver configuration for every node. */
        public Builder config(TulipConfig c) {
            Objects.requireNonNull(c, "config");
            this.config = i -> c;
            return this;
        }

        /** A driver configuration per node index. */
        public Builder config(IntFunction<TulipConfig> perNode) {
            this.config = Objects.requireNonNull(perNode, "perNode");
            return this;
        }

        /**
         * Installs every driver's periodic watchdog ({@link TulipDriver#watchdog}) on the virtual clock with this
         * period, so card resets ({@link #resetCard}) are found and recovered from. The world then never runs idle:
         * run it until a condition or a time ({@link #awaitFiltersLoaded} does). Virtual mode only: in real time the
         * watchdog belongs on the thread that runs the node, which the caller installs it on.
         */
        public Builder watchdog(long periodNanos) {
            if (periodNanos <= 0) {
                throw new IllegalArgumentException("watchdog periodNanos must be > 0, was " + periodNanos);
            }
            this.watchdogNanos = periodNanos;
            return this;
        }

        public TulipTestbed build() {
            if (watchdogNanos > 0 && mode != EngineMode.VIRTUAL && engine == null) {
                throw new IllegalStateException("watchdog(" + watchdogNanos + ") on the virtual clock needs"
                    + " EngineMode.VIRTUAL; in " + mode + " install TulipDriver.watchdog on the node's scheduler");
            }
            if (idle == null) {
                idle = IdleStrategy.parse("backoff");
            }
            return new TulipTestbed(this);
        }
    }
}
