package io.nicbridge.bench.simtest;

import io.nicbridge.protocols.dst.Fault;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.sim.fault.FaultPlan;
import java.util.HashSet;
import java.util.Set;

/**
 * A {@link Schedule}'s frame faults as the sim.fault plans of a card medium. On a shared wire (one site: the
 * Ethernet segment, the FDDI ring) the schedule's frame {@code f} (0-based, every node's frames in the order they go
 * on the medium) is the plan's scheduled frame {@code f + 1}. On a medium of per-node fibers (n sites: the ATM
 * switch's uplinks, which fault cells) it names unit {@code f / n + 1} on site {@code f % n}: a stable name of one
 * fault site, which is all the shrinker and a replay need (the fabric's NIs are n sites the same way, numbering the
 * packets each NI receives). How each kind lands is the medium's own model:
 * <ul>
 *   <li>drop, delay (the schedule's nanoseconds): as scheduled;</li>
 *   <li>duplicate: the medium's duplicate, the copy right after the original (the schedule's copy delay is a
 *       parameter of the in-memory medium only);</li>
 *   <li>reorder: the medium's reorder, held until after the next frame on the medium;</li>
 *   <li>corrupt: one bit after the addresses, drawn from the plan's seeded random (the schedule's seed plus the
 *       site), so the receiver's check (FCS, HEC or AAL5 CRC) fails and the card counts and discards the frame.</li>
 * </ul>
 * sim.fault applies at most one fault per frame: when a schedule names one frame twice, the first fault in the
 * schedule's order applies and the rest are counted in {@link #merged()}.
 */
final class CardFaultPlan {
    private final FaultPlan[] plans;
    private final int merged;

    /** One fault site: a shared wire. */
    CardFaultPlan(Schedule schedule) {
        this(schedule, 1);
    }

    /** {@code sites} fault sites, each with its own numbering (per-node fibers). */
    CardFaultPlan(Schedule schedule, int sites) {
        this(schedule, sites, 1);
    }

    /**
     * {@code sites} fault sites on hardware whose delays count in units of {@code delayUnitNanos} (the fabric's
     * cycles): a schedule's delay of d ns becomes {@code ceil(d / delayUnitNanos)} units.
     */
    CardFaultPlan(Schedule schedule, int sites, long delayUnitNanos) {
        if (delayUnitNanos < 1) {
            throw new IllegalArgumentException("delayUnitNanos must be >= 1, was " + delayUnitNanos);
        }
        FaultPlan.Builder[] b = new FaultPlan.Builder[sites];
        for (int i = 0; i < sites; i++) {
            b[i] = FaultPlan.builder().seed(schedule.seed() + i);
        }
        Set<Long> taken = new HashSet<>();
        int m = 0;
        for (Fault f : schedule.faults()) {
            if (!(f instanceof Fault.FrameFault ff)) {
                continue;
            }
            if (!taken.add(ff.frame())) {
                m++;
                continue;
            }
            FaultPlan.Builder site = b[(int) (ff.frame() % sites)];
            long n = ff.frame() / sites + 1;
            switch (ff.kind()) {
                case DROP -> site.dropFrame(n);
                case DUPLICATE -> site.duplicateFrame(n);
                case REORDER -> site.reorderFrame(n);
                case DELAY -> site.delayFrame(n, Math.ceilDiv(ff.param(), delayUnitNanos));
                case CORRUPT -> site.corruptFrame(n);
            }
        }
        plans = new FaultPlan[sites];
        for (int i = 0; i < sites; i++) {
            plans[i] = b[i].build();
        }
        merged = m;
    }

    /** @return the plan of the one site */
    FaultPlan plan() {
        return plans[0];
    }

    /** @return the plan of site {@code i} */
    FaultPlan plan(int i) {
        return plans[i];
    }

    /** @return schedule faults that named an already-faulted frame (the first fault of that frame applied) */
    int merged() {
        return merged;
    }

    /** @return true when {@code schedule} resets a card (the media then install their drivers' watchdogs) */
    static boolean resetsCards(Schedule schedule) {
        for (Fault f : schedule.faults()) {
            if (f instanceof Fault.CardReset) {
                return true;
            }
        }
        return false;
    }
}
