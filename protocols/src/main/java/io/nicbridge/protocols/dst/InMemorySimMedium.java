package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.VirtualScheduler;
import io.nicbridge.protocols.sim.InMemoryMedium;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongFunction;

/**
 * The harness's reference medium: an {@link InMemoryMedium} with the settings' latency, bandwidth, MTU and buffer
 * counts, whose frame fates come from the schedule ({@link ScheduleFaults}). Expresses every fault family exactly
 * (a duplicate after the schedule's delay, a corrupt byte at the schedule's offset).
 */
final class InMemorySimMedium implements SimMedium {
    static final String NAME = "memory";

    private final VirtualScheduler scheduler;
    private final HostCpu[] cpus;
    private final InMemoryMedium medium;

    private InMemorySimMedium(Schedule schedule, SimSettings settings, VirtualScheduler scheduler) {
        this.scheduler = scheduler;
        int nodes = schedule.nodes();
        cpus = HostCpu.forNodes(nodes, settings.costs(), scheduler);
        medium = new InMemoryMedium(scheduler, new InMemoryMedium.Config(nodes, settings.mtu(), settings.txSlots(),
                settings.rxSlots(), settings.latencyNanos(), settings.nanosPerByte()), new ScheduleFaults(schedule),
                cpus);
    }

    /** @param worlds makes the virtual scheduler of a world from the schedule's seed */
    static Factory factory(LongFunction<? extends VirtualScheduler> worlds) {
        Objects.requireNonNull(worlds, "worlds");
        return new Factory() {
            @Override
            public String name() {
                return NAME;
            }

            @Override
            public Set<ScheduleGenerator.Family> families() {
                return ScheduleGenerator.Family.frameAndTiming(); // no card to reset
            }

            @Override
            public SimMedium open(Schedule schedule, SimSettings settings) {
                return new InMemorySimMedium(schedule, settings, worlds.apply(schedule.seed()));
            }

            @Override
            public String toString() {
                return "memory: the harness's in-memory medium (the settings' MTU, buffers, latency and bandwidth)";
            }
        };
    }

    @Override
    public VirtualScheduler scheduler() {
        return scheduler;
    }

    @Override
    public HostCpu[] cpus() {
        return cpus;
    }

    @Override
    public Link link(int node) {
        return medium.link(node);
    }

    @Override
    public long framesCarried() {
        return medium.framesCarried();
    }

    @Override
    public long framesFaulted() {
        return medium.framesFaulted();
    }

    @Override
    public long lastFaultNanos() {
        return medium.lastFaultNanos();
    }

    @Override
    public String describe() {
        return "memory: " + medium.framesCarried() + " frames, " + medium.framesFaulted() + " faulted ("
                + medium.faultDrops() + " dropped)";
    }

    @Override
    public void close() {
        for (int i = 0; i < medium.config().nodes(); i++) {
            medium.link(i).close();
        }
    }
}
