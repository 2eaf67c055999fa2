package io.nicbridge.protocols.dst;

import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFate;
import io.nicbridge.protocols.sim.FrameFaults;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** A {@link Schedule}'s faults as the medium and the runner consult them: frame fates, partitions, slow nodes. */
final class ScheduleFaults implements FrameFaults, NodeSlowness {
    private final Fault.FrameFault[] frameFaults; // by frame index
    private final Fault.Partition[] partitions;
    private final Fault.SlowNode[] slow;
    private int cursor;
    private long lastSlowNanos = Long.MIN_VALUE;

    ScheduleFaults(Schedule schedule) {
        List<Fault.FrameFault> ff = new ArrayList<>();
        List<Fault.Partition> parts = new ArrayList<>();
        List<Fault.SlowNode> sl = new ArrayList<>();
        for (Fault f : schedule.faults()) {
            switch (f) {
                case Fault.FrameFault x -> ff.add(x);
                case Fault.Partition x -> parts.add(x);
                case Fault.SlowNode x -> sl.add(x);
                case Fault.CardReset x -> {
                    // applied by a card medium itself; the in-memory medium leaves the family out and is refused
                }
            }
        }
        ff.sort(Comparator.comparingLong(Fault.FrameFault::frame));
        frameFaults = ff.toArray(new Fault.FrameFault[0]);
        partitions = parts.toArray(new Fault.Partition[0]);
        slow = sl.toArray(new Fault.SlowNode[0]);
    }

    @Override
    public void decide(long frameIndex, int source, int destination, long now, FrameFate fate) {
        while (cursor < frameFaults.length && frameFaults[cursor].frame() < frameIndex) {
            cursor++;
        }
        for (int i = cursor; i < frameFaults.length && frameFaults[i].frame() == frameIndex; i++) {
            Fault.FrameFault f = frameFaults[i];
            switch (f.kind()) {
                case DROP -> fate.drop = true;
                case DUPLICATE -> fate.duplicateAfterNanos = f.param();
                case REORDER, DELAY -> fate.extraDelayNanos += f.param();
                case CORRUPT -> {
                    fate.corruptOffset = (int) (f.param() & 0xffff);
                    fate.corruptMask = (byte) ((f.param() >>> 16) | 1);
                }
            }
        }
        for (Fault.Partition p : partitions) {
            if (now >= p.startNanos() && now < p.endNanos() && side(p, source) != side(p, destination)) {
                fate.drop = true;
            }
        }
    }

    private static long side(Fault.Partition p, int node) {
        return node < 0 ? -1 : (p.sides() >>> node) & 1; // a broadcast crosses every partition: lost
    }

    @Override
    public long delayNanos(int node, long now) {
        long delay = 0;
        for (Fault.SlowNode s : slow) {
            if (s.node() == node && now >= s.startNanos() && now < s.endNanos()) {
                delay += s.delayNanos();
            }
        }
        if (delay > 0) {
            lastSlowNanos = now;
        }
        return delay;
    }

    /** @return the last time a slow node was delayed, or Long.MIN_VALUE */
    long lastSlowNanos() {
        return lastSlowNanos;
    }
}
