package io.nicbridge.bench.simtest;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.VirtualScheduler;
import io.nicbridge.protocols.dst.PartitionedLink;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator.Family;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.sim.atm.AtmSwitch;
import io.nicbridge.sim.atm.CellLink;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.testbed.UnetLinkTestbed;
import java.util.EnumSet;
import java.util.Set;

/**
 * The DST medium {@code atm}: the schedule's nodes as emulated Fore SBA-200s (U-Net firmware, one endpoint each, a
 * duplex channel per pair) on one ATM switch, one {@link io.nicbridge.bridge.driver.unet.UnetLink} each
 * ({@link UnetLinkTestbed}, virtual time seeded by the schedule). The schedule's frame faults are the switch's own
 * cell faults on the fibers from the cards to the switch: frame {@code f} names cell {@code f / n + 1} on node
 * {@code f % n}'s uplink ({@link CardFaultPlan}). A dropped, duplicated, reordered or corrupted cell costs the
 * receiver the whole AAL5 PDU (its CRC or length check fails), a delayed cell holds the cells behind it. Partitions:
 * the harness's {@link PartitionedLink} cuts arrivals from the other side (the switch has no timed fault).
 */
final class AtmSimMedium implements SimMedium {
    static final Factory FACTORY = new Factory() {
        @Override
        public String name() {
            return "atm";
        }

        @Override
        public Set<Family> families() {
            return EnumSet.of(Family.DROP, Family.DUPLICATE, Family.REORDER, Family.CORRUPT, Family.DELAY,
                    Family.PARTITION, Family.SLOW);
        }

        @Override
        public SimMedium open(Schedule schedule, SimSettings settings) {
            requireExpressible(schedule);
            return new AtmSimMedium(schedule, settings);
        }

        @Override
        public String toString() {
            return "atm: emulated Fore SBA-200s (U-Net firmware, UnetLink, a channel per pair) on one ATM switch";
        }
    };

    private final UnetLinkTestbed bed;
    private final AtmSwitch atmSwitch;
    private final Link[] links;
    private final HostCpu[] cpus;
    private final CardFaultPlan faults;
    private final FaultClock faultClock;

    private AtmSimMedium(Schedule schedule, SimSettings settings) {
        int n = schedule.nodes();
        faults = new CardFaultPlan(schedule, n);
        bed = UnetLinkTestbed.builder(EngineMode.VIRTUAL).nodes(n).seed(schedule.seed())
                .switchOptions(sw -> {
                    for (int p = 0; p < n; p++) {
                        sw.uplinkFaults(p, faults.plan(p));
                    }
                }).build();
        try {
            atmSwitch = bed.network().atmSwitch();
            links = new Link[n];
            for (int i = 0; i < n; i++) {
                links[i] = PartitionedLink.wrap(bed.link(i), bed.virtualTimeBase(), schedule);
            }
            cpus = HostCpu.forNodes(n, settings.costs(), bed.virtualTimeBase());
            faultClock = new FaultClock(bed.virtualTimeBase(), this::faultsInjected);
        } catch (RuntimeException e) {
            bed.close();
            throw e;
        }
    }

    private long faultsInjected() {
        long sum = 0;
        for (Link l : links) {
            sum += PartitionedLink.dropped(l);
        }
        for (int p = 0; p < links.length; p++) {
            CellLink up = atmSwitch.uplink(p);
            for (FaultKind k : FaultKind.values()) {
                if (k != FaultKind.NONE) {
                    sum += up.faultCount(k);
                }
            }
        }
        return sum;
    }

    private long cells() {
        long sum = 0;
        for (int p = 0; p < links.length; p++) {
            sum += atmSwitch.uplink(p).transmitted();
        }
        return sum;
    }

    @Override
    public VirtualScheduler scheduler() {
        return bed.virtualTimeBase();
    }

    @Override
    public HostCpu[] cpus() {
        return cpus;
    }

    @Override
    public Link link(int node) {
        return links[node];
    }

    /** @return cells the cards put on their fibers to the switch (the unit the switch faults) */
    @Override
    public long framesCarried() {
        return cells();
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
        long cuts = 0;
        for (Link l : links) {
            cuts += PartitionedLink.dropped(l);
        }
        return "atm: " + cells() + " cells to the switch, " + faultsInjected() + " faulted (" + cuts
                + " frames cut by partitions)"
                + (faults.merged() > 0 ? " (" + faults.merged() + " schedule faults on an already faulted cell)" : "")
                + ", " + atmSwitch.switched() + " switched, " + atmSwitch.hecDrops() + " HEC drops";
    }

    @Override
    public void close() {
        bed.close();
    }
}
