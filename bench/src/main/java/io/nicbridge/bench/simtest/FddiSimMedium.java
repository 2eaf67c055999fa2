package io.nicbridge.bench.simtest;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.medusa.MedusaConfig;
import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.bridge.driver.medusa.MedusaLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.VirtualScheduler;
import io.nicbridge.contract.Medusa;
import io.nicbridge.protocols.dst.PartitionedLink;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator.Family;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fault.FaultInjector;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The DST medium {@code fddi}: the schedule's nodes as emulated HP Medusas (interrupt-driven drivers, one
 * {@link MedusaLink} each, station i = 02:00:00:00:00:(i+1)) on one FDDI ring in virtual time seeded by the
 * schedule; the schedule's frame faults are the ring's own ({@link CardFaultPlan}). FDDI neither duplicates nor
 * reorders nor delays a frame (the Medusa paper, section 5.2; {@link FddiRing} models only loss and corruption), so
 * a schedule with duplicate, reorder or delay is refused here. Partitions: the harness's {@link PartitionedLink}
 * cuts arrivals from the other side (the ring has no timed fault).
 */
final class FddiSimMedium implements SimMedium {
    static final Factory FACTORY = new Factory() {
        @Override
        public String name() {
            return "fddi";
        }

        @Override
        public Set<Family> families() {
            return EnumSet.of(Family.DROP, Family.CORRUPT, Family.PARTITION, Family.SLOW);
        }

        @Override
        public SimMedium open(Schedule schedule, SimSettings settings) {
            requireExpressible(schedule);
            return new FddiSimMedium(schedule, settings);
        }

        @Override
        public String toString() {
            return "fddi: emulated HP Medusas (interrupt-driven driver, MedusaLink) on one FDDI ring";
        }
    };

    private final EmulatedTestbed bed;
    private final List<MedusaDriver> drivers = new ArrayList<>();
    private final FddiRing ring;
    private final VirtualTimeBase time;
    private final Link[] links;
    private final HostCpu[] cpus;
    private final CardFaultPlan faults;
    private final FaultClock faultClock;

    private FddiSimMedium(Schedule schedule, SimSettings settings) {
        faults = new CardFaultPlan(schedule);
        int n = schedule.nodes();
        bed = EmulatedTestbed.create(EngineMode.VIRTUAL, schedule.seed());
        links = new Link[n];
        try {
            ring = bed.fddiRing("ring", b -> b.faults(faults.plan()));
            time = bed.virtualEngine().timeBase();
            long[] stations = new long[n];
            for (int i = 0; i < n; i++) {
                stations[i] = 0x0200_0000_0000L | (i + 1);
                drivers.add(MedusaDriver.open(bed.medusa("medusa" + i, ring,
                                new byte[] {2, 0, 0, 0, 0, (byte) (i + 1)}),
                        MedusaConfig.builder().stationAddress(stations[i])
                                .interruptMode(MedusaConfig.InterruptMode.INTERRUPT).build()));
            }
            time.runUntilIdle();
            if (ring.memberCount() != n || ring.state() != FddiRing.STATE_OPERATIONAL) {
                throw new IllegalStateException("FDDI ring not operational after setup: " + ring.memberCount()
                        + " of " + n + " stations joined");
            }
            for (int i = 0; i < n; i++) {
                links[i] = PartitionedLink.wrap(new MedusaLink(drivers.get(i), stations,
                        Medusa.FC_LLC_ASYNC_DEFAULT), time, schedule);
            }
            cpus = HostCpu.forNodes(n, settings.costs(), time);
            faultClock = new FaultClock(time, this::faultsInjected);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private long faultsInjected() {
        FaultInjector f = ring.faultInjector();
        return (f == null ? 0 : f.injected()) + partitionCuts();
    }

    private long partitionCuts() {
        long sum = 0;
        for (Link l : links) {
            sum += l == null ? 0 : PartitionedLink.dropped(l);
        }
        return sum;
    }

    @Override
    public VirtualScheduler scheduler() {
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
    public long framesCarried() {
        return ring.frames();
    }

    @Override
    public long framesFaulted() {
        return faultsInjected();
    }

    @Override
    public long lastFaultNanos() {
        return faultClock.lastFaultNanos();
    }

    @Override
    public String describe() {
        return "fddi: " + ring.frames() + " frames on the ring, " + faultsInjected() + " faulted (" + partitionCuts()
                + " frames cut by partitions)"
                + (faults.merged() > 0 ? " (" + faults.merged() + " schedule faults on an already faulted frame)" : "")
                + ", " + ring.rotations() + " token rotations";
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
