package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.VirtualScheduler;
import java.util.Set;

/**
 * The world one {@link Schedule} runs in: a schedule's nodes as {@link Link}s on one {@link VirtualScheduler}, with
 * the schedule's frame faults and partitions applied by the medium's own fault injection (slow nodes are the
 * runner's, the same on every medium). Opened per schedule by a {@link Factory}, closed after the run.
 *
 * <p>The harness owns this interface; a medium whose model lives in a module {@code protocols} may not depend on
 * (the emulated cards of sim-hardware) implements it where both are visible (bench), one class per medium.
 */
public interface SimMedium extends AutoCloseable {
    /** Makes the medium of one schedule. */
    interface Factory {
        /** @return the medium's name ({@code --medium}) */
        String name();

        /** @return the fault families this medium can express; a schedule with any other is refused */
        Set<ScheduleGenerator.Family> families();

        /**
         * @return a fresh world of {@code schedule.nodes()} nodes, seeded from {@code schedule.seed()}, with the
         *         schedule's frame faults and partitions armed
         * @throws IllegalArgumentException naming the medium and the fault when the schedule holds a fault this
         *                                  medium cannot express
         */
        SimMedium open(Schedule schedule, SimSettings settings);

        /**
         * @param directory where each schedule's world writes its capture, {@link #captureFileName} in it
         * @return this medium with every world writing the frames it carries to a pcap file, stamped with the
         *         world's virtual time, so the same schedule gives a byte-identical file
         * @throws IllegalArgumentException when the medium has nothing to capture (the in-memory medium)
         */
        default Factory capturing(java.nio.file.Path directory) {
            throw new IllegalArgumentException("medium '" + name() + "' cannot write pcap captures (it has no"
                    + " frames on a wire); the emulated media can");
        }

        /** @throws IllegalArgumentException when {@code schedule} holds a fault outside {@link #families()} */
        default void requireExpressible(Schedule schedule) {
            for (Fault f : schedule.faults()) {
                ScheduleGenerator.Family family = ScheduleGenerator.Family.of(f);
                if (!families().contains(family)) {
                    throw new IllegalArgumentException("medium '" + name() + "' cannot express fault "
                            + f.encode() + " (" + family.name().toLowerCase(java.util.Locale.ROOT)
                            + "); it expresses " + families());
                }
            }
        }
    }

    /**
     * The reference medium ({@code memory}): every fault family, exactly.
     *
     * @param worlds makes the virtual scheduler of a world from the schedule's seed (sim-hardware's
     *               {@code VirtualTimeBase::new})
     */
    static Factory inMemory(java.util.function.LongFunction<? extends VirtualScheduler> worlds) {
        return InMemorySimMedium.factory(worlds);
    }

    /**
     * @return the capture file name of {@code schedule} on {@code medium}: the medium's name up to any ':' (a
     *         config path), the seed and a hash of the whole schedule, so a shrunk or replayed schedule of the same
     *         seed gets its own file: {@code ethernet-seed77-1f3a09c2.pcap}
     */
    static String captureFileName(String medium, Schedule schedule) {
        int colon = medium.indexOf(':');
        String base = (colon < 0 ? medium : medium.substring(0, colon)).replaceAll("[^A-Za-z0-9_-]", "_");
        return base + "-seed" + schedule.seed() + "-" + String.format(java.util.Locale.ROOT, "%08x",
                schedule.encode().hashCode()) + ".pcap";
    }

    /** @return the one clock and event queue of the world */
    VirtualScheduler scheduler();

    /** @return each node's CPU, priced by the settings' cost table (the runner charges the same ones) */
    HostCpu[] cpus();

    /** @return node {@code node}'s link */
    Link link(int node);

    /** @return frames the medium carried (offered to it) so far */
    long framesCarried();

    /** @return frames the medium's fault injection acted on so far */
    long framesFaulted();

    /**
     * @return the time of the last fault the medium applied (a faulted frame, or a partition in force), or
     *         {@link Long#MIN_VALUE}; the progress check counts from it. Called after every event.
     */
    long lastFaultNanos();

    /** @return the medium's own counters, one line, for reports */
    String describe();

    @Override
    void close();
}
