package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.link.ForwardingLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A schedule's partitions on a medium that has no timed fault of its own (the card media): a node's link that, while
 * a {@link Fault.Partition} is in force, releases unread every frame arriving from a node on the other side, as if
 * the cable between the two sides were cut (the frames still took their time on the wire; a partition that starts
 * while a frame is in flight loses it on arrival). Everything else is the wrapped link's. Allocates nothing per
 * frame; the {@link #dropped()} count is the medium's fault count for partitions.
 */
public final class PartitionedLink extends ForwardingLink {
    private final Clock clock;
    private final long[] start;
    private final long[] end;
    private final long[] sides;
    private final LinkHandler filter = new LinkHandler() {
        @Override
        public void onFrame(Link link, int rxHandle) {
            if (cut(inner.rxPeer(rxHandle), clock.nanoTime())) {
                inner.release(rxHandle);
                dropped++;
            } else {
                downstream.onFrame(PartitionedLink.this, rxHandle);
            }
        }

        @Override
        public void onWritable(Link link) {
            downstream.onWritable(PartitionedLink.this);
        }
    };
    private LinkHandler downstream;
    private long dropped;

    private PartitionedLink(Link inner, Clock clock, List<Fault.Partition> partitions) {
        super(inner);
        this.clock = clock;
        start = new long[partitions.size()];
        end = new long[partitions.size()];
        sides = new long[partitions.size()];
        for (int i = 0; i < start.length; i++) {
            start[i] = partitions.get(i).startNanos();
            end[i] = partitions.get(i).endNanos();
            sides[i] = partitions.get(i).sides();
        }
    }

    /** @return {@code link} itself when {@code schedule} has no partition, else {@code link} behind the cut */
    public static Link wrap(Link link, Clock clock, Schedule schedule) {
        Objects.requireNonNull(link, "link");
        Objects.requireNonNull(clock, "clock");
        List<Fault.Partition> partitions = new ArrayList<>();
        for (Fault f : schedule.faults()) {
            if (f instanceof Fault.Partition p) {
                partitions.add(p);
            }
        }
        return partitions.isEmpty() ? link : new PartitionedLink(link, clock, partitions);
    }

    /** @return frames {@code link} lost to a partition, 0 for a link {@link #wrap} left alone */
    public static long dropped(Link link) {
        return link instanceof PartitionedLink p ? p.dropped : 0;
    }

    private boolean cut(int source, long now) {
        int self = inner.self();
        for (int i = 0; i < start.length; i++) {
            if (now >= start[i] && now < end[i] && ((sides[i] >>> source) & 1) != ((sides[i] >>> self) & 1)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int poll(LinkHandler handler, int limit) {
        downstream = handler;
        return inner.poll(filter, limit);
    }

    @Override
    public String toString() {
        return inner + " (partitioned by the schedule, " + dropped + " frames cut)";
    }
}
