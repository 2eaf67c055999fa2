package io.nicbridge.bench.simtest;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.VirtualScheduler;
import io.nicbridge.protocols.dst.PartitionedLink;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator.Family;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.ethernet.EthernetSegment;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The DST medium {@code ethernet}: the schedule's nodes as emulated 21140s with Tulip drivers on one 100 Mb/s
 * Ethernet segment ({@link TulipTestbed}, virtual time seeded by the schedule), one {@link TulipLink} each; the
 * schedule's frame faults are the segment's own ({@link CardFaultPlan}). The card's rings and the segment's timing
 * are the testbed's (the settings' MTU, buffer counts, latency and bandwidth are the in-memory medium's).
 * Partitions: the harness's {@link PartitionedLink} cuts arrivals from the other side (the segment has no timed
 * fault).
 */
final class EthernetSimMedium implements SimMedium {
    static final Factory FACTORY = new Factory() {
        @Override
        public String name() {
            return "ethernet";
        }

        @Override
        public Set<Family> families() {
            return EnumSet.of(Family.DROP, Family.DUPLICATE, Family.REORDER, Family.CORRUPT, Family.DELAY,
                    Family.PARTITION, Family.SLOW);
        }

        @Override
        public SimMedium open(Schedule schedule, SimSettings settings) {
            requireExpressible(schedule);
            return new EthernetSimMedium(schedule, settings);
        }

        @Override
        public String toString() {
            return "ethernet: emulated DEC 21140s (Tulip driver, TulipLink) on one 100 Mb/s segment";
        }
    };

    private final TulipTestbed bed;
    private final EthernetSegment wire;
    private final VirtualTimeBase time;
    private final Link[] links;
    private final HostCpu[] cpus;
    private final CardFaultPlan faults;
    private final FaultClock faultClock;

    private EthernetSimMedium(Schedule schedule, SimSettings settings) {
        faults = new CardFaultPlan(schedule);
        int n = schedule.nodes();
        bed = TulipTestbed.builder().nodes(n).mode(EngineMode.VIRTUAL).seed(schedule.seed()).faults(faults.plan())
                .build();
        try {
            bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            wire = bed.wire();
            time = bed.virtualTime();
            List<MacAddress> macs = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                macs.add(TulipTestbed.mac(i));
            }
            links = new Link[n];
            for (int i = 0; i < n; i++) {
                links[i] = PartitionedLink.wrap(new TulipLink(bed.driver(i), macs,
                        TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE), time, schedule);
            }
            cpus = HostCpu.forNodes(n, settings.costs(), time);
            faultClock = new FaultClock(time, this::faultsInjected);
        } catch (RuntimeException e) {
            bed.close();
            throw e;
        }
    }

    private long faultsInjected() {
        return wire.faultsInjected() + partitionCuts();
    }

    private long partitionCuts() {
        long sum = 0;
        for (Link l : links) {
            sum += PartitionedLink.dropped(l);
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
        return wire.frames();
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
        return "ethernet: " + wire.frames() + " frames on the segment, " + wire.faultsInjected() + " faulted, "
                + partitionCuts() + " frames cut by partitions"
                + (faults.merged() > 0 ? " (" + faults.merged() + " schedule faults on an already faulted frame)" : "")
                + ", " + wire.deliveries() + " deliveries";
    }

    @Override
    public void close() {
        for (Link l : links) {
            l.close();
        }
        bed.close();
    }
}
