package io.nicbridge.bench.simtest;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.medusa.MedusaConfig;
import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.bridge.driver.medusa.MedusaLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.contract.Medusa;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator.Family;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fault.FaultInjector;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.medusa.MedusaCard;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * The DST medium {@code fddi}: the schedule's nodes as emulated HP Medusas (interrupt-driven drivers, one
 * {@link MedusaLink} each, station i = 02:00:00:00:00:(i+1)) on one FDDI ring in virtual time seeded by the
 * schedule; the schedule's frame faults are the ring's own ({@link CardFaultPlan}, one site). FDDI neither
 * duplicates nor reorders nor delays a frame (the Medusa paper, section 5.2; {@link FddiRing} models only loss and
 * corruption), so a schedule with duplicate, reorder or delay is refused here. Capture: the ring's, LINKTYPE 10.
 */
final class FddiSimMedium implements CardSimMedium.Hardware {
    static final SimMedium.Factory FACTORY = CardSimMedium.factory("fddi",
            "fddi: emulated HP Medusas (interrupt-driven driver, MedusaLink) on one FDDI ring",
            EnumSet.of(Family.DROP, Family.CORRUPT, Family.PARTITION, Family.SLOW, Family.RESET), "frame",
            FddiSimMedium::new);

    /**
     * The Medusa driver's watchdog period when the schedule resets a card: longer than the ring's worst token
     * rotation and the claim process after a station leaves and re-joins (a few TTRTs), as MedusaDriver asks. Each
     * tick reads CTRL, so a reset station is found within one period even when it has nothing to send.
     */
    private static final long WATCHDOG_NANOS = 20_000_000;

    private final EmulatedTestbed bed;
    private final List<MedusaDriver> drivers = new ArrayList<>();
    private final List<MedusaCard> cards = new ArrayList<>();
    private final FddiRing ring;
    private final VirtualTimeBase time;
    private final Link[] links;
    private final HostCpu[] cpus;
    private final CardFaultPlan faults;

    private FddiSimMedium(Schedule schedule, SimSettings settings, Path pcap) {
        faults = new CardFaultPlan(schedule);
        int n = schedule.nodes();
        bed = EmulatedTestbed.create(EngineMode.VIRTUAL, schedule.seed());
        links = new Link[n];
        try {
            time = bed.virtualEngine().timeBase();
            ring = bed.fddiRing("ring", b -> {
                b.faults(faults.plan());
                if (pcap != null) {
                    b.capture(pcap); // the ring opens the file on the world's time base and closes it with itself
                }
            });
            long[] stations = new long[n];
            for (int i = 0; i < n; i++) {
                stations[i] = 0x0200_0000_0000L | (i + 1);
                MedusaCard card = bed.medusa("medusa" + i, ring, new byte[] {2, 0, 0, 0, 0, (byte) (i + 1)});
                cards.add(card);
                MedusaDriver driver = MedusaDriver.open(card, MedusaConfig.builder().stationAddress(stations[i])
                        .interruptMode(MedusaConfig.InterruptMode.INTERRUPT).build());
                driver.timeOn(time, bed.virtualEngine()::step); // waits and timeouts in virtual time
                drivers.add(driver);
            }
            time.runUntilIdle();
            if (ring.memberCount() != n || ring.state() != FddiRing.STATE_OPERATIONAL) {
                throw new IllegalStateException("FDDI ring not operational after setup: " + ring.memberCount()
                        + " of " + n + " stations joined");
            }
            if (CardFaultPlan.resetsCards(schedule)) {
                for (MedusaDriver d : drivers) {
                    d.watchdog(time, WATCHDOG_NANOS);
                }
            }
            for (int i = 0; i < n; i++) {
                links[i] = new MedusaLink(drivers.get(i), stations, Medusa.FC_LLC_ASYNC_DEFAULT);
            }
            cpus = HostCpu.forNodes(n, settings.costs(), time);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public void resetCard(int node) {
        cards.get(node).hardwareReset();
    }

    /** The driver finds a reset at its next tick (within one period), then the station re-joins the ring. */
    @Override
    public long resetRecoveryNanos() {
        return 2 * WATCHDOG_NANOS;
    }

    @Override
    public VirtualTimeBase time() {
        return time;
    }

    @Override
    public HostCpu[] cpus() {
        return cpus;
    }

    @Override
    public Link link(int node) {
        return links[node];
    }

    @Override
    public long carried() {
        return ring.frames();
    }

    @Override
    public long faultsInjected() {
        FaultInjector f = ring.faultInjector();
        return f == null ? 0 : f.injected();
    }

    @Override
    public int mergedFaults() {
        return faults.merged();
    }

    @Override
    public String counters() {
        return "fddi: " + ring.frames() + " frames on the ring, " + ring.rotations() + " token rotations";
    }

    @Override
    public void close() {
        for (Link l : links) {
            if (l != null) {
                l.close();
            }
        }
        drivers.forEach(MedusaDriver::close);
        bed.close();
    }
}
