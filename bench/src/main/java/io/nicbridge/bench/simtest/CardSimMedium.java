package io.nicbridge.bench.simtest;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.bridge.time.VirtualScheduler;
import io.nicbridge.protocols.dst.Fault;
import io.nicbridge.protocols.dst.PartitionedLink;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator.Family;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A DST medium of emulated hardware (the cards' Ethernet segment, FDDI ring and ATM switch, the MPP fabric): what
 * every such medium does the same way, around a small per-medium {@link Hardware}.
 * <ul>
 *   <li>frame faults: the hardware's own sim.fault plans, built from the schedule by {@link CardFaultPlan} (the
 *       hardware decides which sites it has and how each kind lands);</li>
 *   <li>partitions: the harness's {@link PartitionedLink} over each node's link, cutting arrivals from the other
 *       side (no emulated medium has a timed fault of its own);</li>
 *   <li>counting: faulted = the hardware's injected faults + frames cut by partitions; the time of the last one is
 *       stamped by a {@link FaultClock};</li>
 *   <li>capture: {@link #capturing} gives each schedule's world a pcap file the hardware writes with its own link
 *       type ({@link Hardware.Builder#build}).</li>
 * </ul>
 * <ul>
 *   <li>card resets ({@link Fault.CardReset}): armed here on the world's scheduler and applied by
 *       {@link Hardware#resetCard}, each card its own way (the hardware installs its drivers' watchdogs when the
 *       schedule holds a reset, so a schedule without one runs exactly as before); for the progress check a reset
 *       counts as a fault lasting {@link Hardware#resetRecoveryNanos()} (the driver's stated detection bound plus its
 *       re-initialisation), since until then the node cannot be expected to deliver. The fabric has no card and
 *       leaves the family out of its {@link Factory#families()}, so a reset there is refused as any inexpressible
 *       fault.</li>
 * </ul>
 */
final class CardSimMedium implements SimMedium {
    /** The emulated hardware of one schedule: the per-medium part. */
    interface Hardware extends AutoCloseable {
        /** Builds the hardware of one schedule, its frame faults armed; writes its frames to {@code pcap}. */
        @FunctionalInterface
        interface Builder {
            /**
             * @param pcap the capture file of this schedule, or null for none
             */
            Hardware build(Schedule schedule, SimSettings settings, Path pcap);
        }

        /** @return the world's one clock and event queue, seeded by the schedule */
        VirtualTimeBase time();

        /** @return each node's CPU, priced by the settings' cost table */
        HostCpu[] cpus();

        /** @return node {@code node}'s link on the medium */
        Link link(int node);

        /** @return units the medium carried: frames (cells on ATM) */
        long carried();

        /** @return units the medium's own fault injection acted on */
        long faultsInjected();

        /** @return schedule faults that named an already-faulted unit ({@link CardFaultPlan#merged()}) */
        int mergedFaults();

        /** @return the hardware's own counters, for {@link SimMedium#describe()} */
        String counters();

        /**
         * Resets node {@code node}'s card now, as a hardware reset would; its driver's watchdog (installed by the
         * hardware when the schedule holds a reset) finds it through the card's registers and recovers. Only called
         * on media whose families include {@link Family#RESET}.
         */
        default void resetCard(int node) {
            throw new IllegalStateException("this medium has no card to reset (node " + node + ")");
        }

        /** @return the longest a reset keeps a node from delivering: the driver's detection bound plus recovery */
        default long resetRecoveryNanos() {
            return 0;
        }

        /** Closes the links and frees the hardware (and flushes and closes its capture). */
        @Override
        void close();
    }

    /**
     * @param name        the {@code --medium} name
     * @param description what the medium is, one line
     * @param families    the fault families the hardware expresses
     * @param unit        what {@link Hardware#carried()} counts ("frame", "cell")
     */
    static Factory factory(String name, String description, Set<Family> families, String unit,
                           Hardware.Builder builder) {
        return new CardFactory(name, description, EnumSet.copyOf(families), unit, builder, null);
    }

    private record CardFactory(String name, String description, Set<Family> families, String unit,
                               Hardware.Builder builder, Path pcapDirectory) implements Factory {
        @Override
        public Set<Family> families() {
            return EnumSet.copyOf(families);
        }

        @Override
        public SimMedium open(Schedule schedule, SimSettings settings) {
            requireExpressible(schedule);
            Path pcap = pcapDirectory == null ? null : pcapDirectory.resolve(SimMedium.captureFileName(name,
                    schedule));
            return new CardSimMedium(builder.build(schedule, settings, pcap), schedule, unit);
        }

        @Override
        public Factory capturing(Path directory) {
            return new CardFactory(name, description, families, unit, builder,
                    Objects.requireNonNull(directory, "directory"));
        }

        @Override
        public String toString() {
            return description;
        }
    }

    private final Hardware hardware;
    private final Link[] links;
    private final FaultClock faultClock;
    private final String unit;
    private long resets;
    private long resetEffectEndsNanos = Long.MIN_VALUE;

    private CardSimMedium(Hardware hardware, Schedule schedule, String unit) {
        this.hardware = hardware;
        this.unit = unit;
        try {
            links = new Link[schedule.nodes()];
            for (int i = 0; i < links.length; i++) {
                links[i] = PartitionedLink.wrap(hardware.link(i), hardware.time(), schedule);
            }
            faultClock = new FaultClock(hardware.time(), this::framesFaulted);
            for (Fault f : schedule.faults()) {
                if (f instanceof Fault.CardReset reset) {
                    Timer t = hardware.time().newTimer("reset-node" + reset.node(), () -> resetCard(reset.node()));
                    t.armAt(reset.atNanos());
                }
            }
        } catch (RuntimeException e) {
            hardware.close();
            throw e;
        }
    }

    private void resetCard(int node) {
        hardware.resetCard(node);
        resets++;
        resetEffectEndsNanos = Math.max(resetEffectEndsNanos,
                hardware.time().nanoTime() + hardware.resetRecoveryNanos());
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
        return hardware.time();
    }

    @Override
    public HostCpu[] cpus() {
        return hardware.cpus();
    }

    @Override
    public Link link(int node) {
        return links[node];
    }

    @Override
    public long framesCarried() {
        return hardware.carried();
    }

    @Override
    public long framesFaulted() {
        return hardware.faultsInjected() + partitionCuts() + resets;
    }

    @Override
    public long lastFaultNanos() {
        return Math.max(faultClock.lastFaultNanos(), resetEffectEndsNanos);
    }

    @Override
    public String describe() {
        int merged = hardware.mergedFaults();
        return hardware.counters() + "; " + hardware.faultsInjected() + " " + unit + "s faulted, " + partitionCuts()
                + " frames cut by partitions" + (resets > 0 ? ", " + resets + " card resets" : "")
                + (merged > 0 ? " (" + merged + " schedule faults on an already faulted " + unit + ")" : "");
    }

    @Override
    public void close() {
        hardware.close();
    }
}
