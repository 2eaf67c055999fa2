package io.nicbridge.bench.medusa;

import io.nicbridge.bridge.driver.medusa.MedusaConfig;
import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.Engines;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.medusa.MedusaCard;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * P emulated Medusa cards on one FDDI ring of exactly P stations (as the paper measured), each with a
 * {@link MedusaDriver}, in one engine mode, built on the emu backend's {@link EmulatedTestbed}. Virtual mode gives the deterministic, simulated-time world the ring
 * experiments use. A world is ready when its constructor returns: every station is a member of the operational ring
 * (in every mode), so no frame sent from then on is lost to a station that has not joined yet.
 */
public final class MedusaRingWorld implements AutoCloseable {
    private final EmulatedTestbed testbed;
    private final DeviceEngine engine;
    private final FddiRing ring;
    private final List<MedusaCard> cards = new ArrayList<>();
    private final List<MedusaDriver> drivers = new ArrayList<>();
    /** How long {@link #awaitRingOperational} waits for every station to join. */
    static final long RING_UP_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    /**
     * @param nodes          stations on the ring, 2..64
     * @param mode           engine mode
     * @param seed           seed of the virtual world
     * @param receiveBuffers receive buffers per driver (the rest of the 128 transmit)
     * @param interrupt      interrupt-driven drivers (needed for listeners) or polling
     */
    public MedusaRingWorld(int nodes, EngineMode mode, long seed, int receiveBuffers, boolean interrupt) {
        this(nodes, mode, seed, receiveBuffers, interrupt, null);
    }

    /**
     * As {@link #MedusaRingWorld(int, EngineMode, long, int, boolean)}, the ring recording every frame sent into
     * {@code capture} (linktype 10, stamped by the world's clock; the ring flushes it on close, the caller closes
     * it); null: no capture.
     */
    public MedusaRingWorld(int nodes, EngineMode mode, long seed, int receiveBuffers, boolean interrupt,
                           PcapWriter capture) {
        this(nodes, EmulatedTestbed.create(mode, seed), receiveBuffers, interrupt, capture);
    }

    /**
     * As {@link #MedusaRingWorld(int, EngineMode, long, int, boolean)}, on an engine the caller built (the world
     * closes it).
     */
    public MedusaRingWorld(int nodes, DeviceEngine engine, int receiveBuffers, boolean interrupt) {
        this(nodes, EmulatedTestbed.on(engine), receiveBuffers, interrupt, null);
    }

    private MedusaRingWorld(int nodes, EmulatedTestbed testbed, int receiveBuffers, boolean interrupt,
                            PcapWriter capture) {
        this.testbed = testbed;
        this.engine = testbed.engine();
        if (nodes < 2 || nodes > 64) {
            testbed.close();
            throw new IllegalArgumentException("nodes must be in [2, 64], was " + nodes);
        }
        this.ring = capture == null ? testbed.fddiRing("ring") : testbed.fddiRing("ring", b -> b.capture(capture));
        try {
            for (int i = 0; i < nodes; i++) {
                byte[] mac = {0x02, 0, 0, 0, 0, (byte) (i + 1)};
                MedusaCard card = testbed.medusa("medusa-" + i, ring, mac);
                cards.add(card);
                MedusaConfig config = MedusaConfig.builder().stationAddress(0x02_00_00_00_00_00L | (i + 1))
                    .receiveBuffers(receiveBuffers).longFrames(true)
                    .interruptMode(interrupt ? MedusaConfig.InterruptMode.INTERRUPT : MedusaConfig.InterruptMode.POLLING)
                    .build();
                MedusaDriver driver = MedusaDriver.open(card, config);
                drivers.add(driver);
                if (engine instanceof VirtualTimeEngine v) {
                    driver.timeOn(v.timeBase(), v::step); // waits and timeouts in virtual time, never the wall clock
                }
            }
            awaitRingOperational(nodes);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Returns once all {@code nodes} stations are members of an operational ring. Each card joins from its own
     * {@code service()} after its driver set CTRL.RING_JOIN: inline at once, in virtual time when the world runs (the
     * claim settles TTRT), with engine threads whenever the scheduler gets to each thread. Until a station has
     * joined, frames addressed to it go round a ring without it and are stripped unseen (A = C = 0), as on a real
     * FDDI ring, so a world that handed out its drivers earlier would lose the first frames of a threaded run.
     *
     * @throws IllegalStateException when the ring is not up within {@link #RING_UP_TIMEOUT_NANOS}
     */
    private void awaitRingOperational(int nodes) {
        if (engine.timeBase() instanceof VirtualTimeBase v) {
            v.runUntilIdle();
        }
        long deadline = System.nanoTime() + RING_UP_TIMEOUT_NANOS;
        BackoffIdle idle = new BackoffIdle(); // setup path, once per world: spin, yield, then park up to 100 us
        while (ring.memberCount() != nodes || ring.state() != FddiRing.STATE_OPERATIONAL) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("ring " + ring.name() + ": " + ring.memberCount() + " of " + nodes
                    + " stations joined, state " + ring.state() + ", " + TimeUnit.NANOSECONDS.toMillis(
                    RING_UP_TIMEOUT_NANOS) + " ms after the drivers set RING_JOIN (" + Engines.modeName(engine.mode())
                    + " engine)");
            }
            idle.idle(0);
        }
    }

    public List<MedusaDriver> drivers() {
        return drivers;
    }

    public List<MedusaCard> cards() {
        return cards;
    }

    public FddiRing ring() {
        return ring;
    }

    public DeviceEngine engine() {
        return engine;
    }

    /** @return the virtual time base; throws when the world is not virtual */
    public VirtualTimeBase virtualTime() {
        if (engine.timeBase() instanceof VirtualTimeBase v) {
            return v;
        }
        throw new IllegalStateException("the ring runs in " + Engines.modeName(engine.mode()) + " mode, not virtual");
    }

    /** @return the card/ring timing model in one paragraph, with the figures this ring uses */
    public String timingModel() {
        return String.format(Locale.ROOT, "FDDI ring of exactly %d stations (sim.fddi.FddiRing, timed-token MAC):"
            + " 80 ns per byte on the fibre (100 Mb/s), frame = LEN + 15 bytes (8 preamble, SD, 4 FCS, ED+FS),"
            + " token 880 ns, hop latency H = %d ns (%d ns fibre + %d ns station repeat), TTRT %.3f ms"
            + " (claimed from T_Req bids); the Medusa card adds no delay of its own and host software takes no"
            + " virtual time (interrupt handlers run on the scheduler at the instant of the interrupt)",
            drivers.size(), ring.hopNanos(), ring.linkPropagationNanos(), ring.stationLatencyNanos(),
            ring.ttrtNanos() / 1e6);
    }

    @Override
    public void close() {
        for (MedusaDriver d : drivers) {
            d.close();
        }
        for (MedusaCard c : cards) {
            c.close();
        }
        testbed.close(); // the ring and the engine
    }
}
