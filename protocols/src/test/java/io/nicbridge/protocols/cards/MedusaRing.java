package io.nicbridge.protocols.cards;

import io.nicbridge.bridge.driver.medusa.MedusaConfig;
import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.bridge.driver.medusa.MedusaLink;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.contract.Medusa;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.medusa.MedusaCard;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Test fixture: N emulated Medusas on one FDDI ring (with the ring's fault plan), interrupt-driven drivers, one
 * {@link MedusaLink} each, station i = 02:00:00:00:00:(i+1). Closes links, drivers, then the world.
 */
final class MedusaRing implements AutoCloseable {
    final EmulatedTestbed bed;
    final FddiRing ring;
    final List<MedusaDriver> drivers = new ArrayList<>();
    final List<MedusaCard> cards = new ArrayList<>();
    final MedusaLink[] links;

    MedusaRing(int nodes, EngineMode mode, long seed, FaultPlan faults) {
        this(nodes, mode, seed, faults, b -> b);
    }

    /** @param config adjusts each driver's configuration (station address and interrupt mode are set already) */
    MedusaRing(int nodes, EngineMode mode, long seed, FaultPlan faults,
               java.util.function.UnaryOperator<MedusaConfig.Builder> config) {
        bed = EmulatedTestbed.create(mode, seed);
        try {
            ring = bed.fddiRing("ring", b -> b.faults(faults));
            long[] stations = new long[nodes];
            for (int i = 0; i < nodes; i++) {
                stations[i] = 0x0200_0000_0000L | (i + 1);
                cards.add(bed.medusa("medusa" + i, ring, new byte[] {2, 0, 0, 0, 0, (byte) (i + 1)}));
                MedusaDriver driver = MedusaDriver.open(cards.get(i), config.apply(MedusaConfig.builder()
                        .stationAddress(stations[i]).interruptMode(MedusaConfig.InterruptMode.INTERRUPT)).build());
                if (bed.engine() instanceof VirtualTimeEngine v) {
                    driver.timeOn(v.timeBase(), v::step); // waits and timeouts in virtual time
                }
                drivers.add(driver);
            }
            awaitRing(nodes);
            links = new MedusaLink[nodes];
            for (int i = 0; i < nodes; i++) {
                links[i] = new MedusaLink(drivers.get(i), stations, Medusa.FC_LLC_ASYNC_DEFAULT);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private void awaitRing(int nodes) {
        if (bed.timeBase() instanceof VirtualTimeBase v) {
            v.runUntilIdle();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        BackoffIdle idle = new BackoffIdle();
        while (ring.memberCount() != nodes || ring.state() != FddiRing.STATE_OPERATIONAL) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("ring not operational: " + ring.memberCount() + " of " + nodes);
            }
            bed.engine().poll();
            idle.idle(0);
        }
    }

    Link[] links() {
        return links.clone();
    }

    VirtualTimeBase virtualTime() {
        return bed.virtualEngine().timeBase();
    }

    @Override
    public void close() {
        if (links != null) {
            for (MedusaLink l : links) {
                if (l != null) {
                    l.close();
                }
            }
        }
        drivers.forEach(MedusaDriver::close);
        bed.close();
    }
}
