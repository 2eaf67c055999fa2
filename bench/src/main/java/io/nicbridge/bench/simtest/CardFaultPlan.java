package io.nicbridge.bench.simtest;

import io.nicbridge.protocols.dst.Fault;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.sim.fault.FaultPlan;
import java.util.HashSet;
import java.util.Set;

/**
 * A {@link Schedule}'s frame faults as the sim.fault plan of a card medium's shared wire (the Ethernet segment, the
 * FDDI ring): the schedule's frame {@code f} (0-based, every node's frames in the order they go on the medium) is
 * the plan's scheduled frame {@code f + 1}. How each kind lands is the medium's own model:
 * <ul>
 *   <li>drop, delay (the schedule's nanoseconds): as scheduled;</li>
 *   <li>duplicate: the medium's duplicate, the copy right after the original (the schedule's copy delay is a
 *       parameter of the in-memory medium only);</li>
 *   <li>reorder: the medium's reorder, held until after the next frame on the medium;</li>
 *   <li>corrupt: one bit after the addresses, drawn from the plan's seeded random (the schedule's seed), so the
 *       receiver's FCS check fails and the frame is counted and discarded by the card.</li>
 * </ul>
 * sim.fault applies at most one fault per frame: when a schedule names one frame twice, the first fault in the
 * schedule's order applies and the rest are counted in {@link #merged()}.
 */
final class CardFaultPlan {
    private final FaultPlan plan;
    private final int merged;

    CardFaultPlan(Schedule schedule) {
        FaultPlan.Builder b = FaultPlan.builder().seed(schedule.seed());
        Set<Long> taken = new HashSet<>();
        int m = 0;
        for (Fault f : schedule.faults()) {
            if (!(f instanceof Fault.FrameFault ff)) {
                continue;
            }
            long n = ff.frame() + 1;
            if (!taken.add(n)) {
                m++;
                continue;
            }
            switch (ff.kind()) {
                case DROP -> b.dropFrame(n);
                case DUPLICATE -> b.duplicateFrame(n);
                case REORDER -> b.reorderFrame(n);
                case DELAY -> b.delayFrame(n, ff.param());
                case CORRUPT -> b.corruptFrame(n);
            }
        }
        plan = b.build();
        merged = m;
    }

    FaultPlan plan() {
        return plan;
    }

    /** @return schedule faults that named an already-faulted frame (the first fault of that frame applied) */
    int merged() {
        return merged;
    }
}
