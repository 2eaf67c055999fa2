package io.nicbridge.sim.trace;

import io.nicbridge.sim.traffic.FabricPorts;
import io.nicbridge.sim.traffic.IntRingQueues;

/**
 * Replays a {@link BlockTrace} on a network's NI ports, one cycle at a time:
 * <pre>
 *   block activated at t  ->  each of its messages is released at t + offset
 *   message released      ->  LOCAL: signals its target now; else queued at its node's port for
 *                             its network (FIFO, one offer per port per cycle)
 *   packet ejected at t   ->  signals its target block at t + receiveOverhead
 *   block signalled by all the messages aimed at it  ->  activated
 * </pre>
 * Requests travel on {@link FabricPorts#REQUEST}, replies on {@link FabricPorts#REPLY} (a fabric with
 * one logical network carries both on network 0). The result's completion cycle is the end of the
 * last block: the program's execution time on that network. Deterministic: event order is
 * (time, kind, message index).
 */
public final class TraceEngine {
    private static final int INDEX_BITS = 27;
    private static final long INDEX_MASK = (1L << INDEX_BITS) - 1;
    private static final long KIND_DELIVERED = 1L << INDEX_BITS;

    private final BlockTrace trace;
    private final FabricPorts fabric;
    private final int receiveOverhead;
    private final int networks;
    private final int[] remaining;
    private final LongMinHeap events = new LongMinHeap();
    private final IntRingQueues[] outbound;
    private long queued;
    private long inFlight;
    private long lastEnd;
    private int activated;
    private long requestPackets;
    private long replyPackets;
    private long dropped;
    private long flits;

    /**
     * @param receiveOverhead cycles between a packet's arrival and its target block being signalled
     */
    public TraceEngine(BlockTrace trace, FabricPorts fabric, int receiveOverhead) {
        if (trace.nodes() > fabric.nodeCount()) {
            throw new IllegalArgumentException("trace '" + trace.name() + "' needs " + trace.nodes()
                    + " nodes but the network has " + fabric.nodeCount());
        }
        if (trace.messageCount() > INDEX_MASK) {
            throw new IllegalArgumentException("trace has " + trace.messageCount() + " messages; at most "
                    + INDEX_MASK + " are supported");
        }
        if (receiveOverhead < 0) {
            throw new IllegalArgumentException("receive overhead must be >= 0, got " + receiveOverhead);
        }
        this.trace = trace;
        this.fabric = fabric;
        this.receiveOverhead = receiveOverhead;
        this.networks = fabric.networkCount();
        this.remaining = trace.signalsNeeded.clone();
        this.outbound = new IntRingQueues[networks];
        for (int n = 0; n < networks; n++) {
            outbound[n] = new IntRingQueues(fabric.nodeCount(), 8);
        }
        fabric.dropListener((net, tag) -> {
            dropped++;
            inFlight--;
        });
    }

    /**
     * Runs until the program finishes (or nothing more can happen), or {@code maxCycles} pass.
     */
    public TraceResult run(long maxCycles) {
        long wall = System.nanoTime();
        long start = fabric.cycle();
        for (int b = 0; b < trace.blockCount; b++) {
            if (remaining[b] == 0) {
                activate(b, start);
            }
        }
        while (fabric.cycle() - start < maxCycles) {
            long now = fabric.cycle();
            releaseDue(now);
            if (queued == 0 && inFlight == 0 && events.isEmpty()) {
                break;
            }
            if (queued > 0) {
                offerQueued();
            }
            fabric.step();
            pollArrivals(fabric.cycle());
        }
        return new TraceResult(lastEnd - start, activated == trace.blockCount, activated, trace.blockCount,
                requestPackets, replyPackets, dropped, flits, System.nanoTime() - wall);
    }

    private void releaseDue(long now) {
        while (!events.isEmpty() && (events.peek() >>> (INDEX_BITS + 1)) <= now) {
            long key = events.poll();
            long time = key >>> (INDEX_BITS + 1);
            int m = (int) (key & INDEX_MASK);
            if ((key & KIND_DELIVERED) != 0 || trace.network[m] == BlockTrace.LOCAL) {
                lastEnd = Math.max(lastEnd, time);
                signal(trace.target[m], time);
            } else {
                int net = Math.min(trace.network[m], networks - 1);
                outbound[net].push(trace.blockNode[trace.from[m]], m);
                queued++;
            }
        }
    }

    private void offerQueued() {
        int nodes = trace.nodes;
        for (int net = 0; net < networks; net++) {
            IntRingQueues q = outbound[net];
            for (int n = 0; n < nodes; n++) {
                if (!q.isEmpty(n)) {
                    int m = q.peek(n);
                    if (fabric.offer(net, n, trace.destination[m], trace.size[m], m)) {
                        q.pop(n);
                        queued--;
                        inFlight++;
                    }
                }
            }
        }
    }

    private void pollArrivals(long now) {
        int nodes = trace.nodes;
        for (int net = 0; net < networks; net++) {
            for (int n = 0; n < nodes; n++) {
                long tag;
                while ((tag = fabric.poll(net, n)) != FabricPorts.NO_PACKET) {
                    int m = (int) tag;
                    inFlight--;
                    flits += trace.size[m];
                    if (trace.network[m] == FabricPorts.REQUEST) {
                        requestPackets++;
                    } else {
                        replyPackets++;
                    }
                    lastEnd = Math.max(lastEnd, now);
                    if (receiveOverhead == 0) {
                        signal(trace.target[m], now);
                    } else {
                        events.add(((now + receiveOverhead) << (INDEX_BITS + 1)) | KIND_DELIVERED | m);
                    }
                }
            }
        }
    }

    private void signal(int block, long time) {
        if (block >= 0 && --remaining[block] == 0) {
            activate(block, time);
        }
    }

    private void activate(int b, long time) {
        activated++;
        lastEnd = Math.max(lastEnd, time + trace.duration[b]);
        int first = trace.firstMessage[b];
        for (int m = first; m < first + trace.messageCount[b]; m++) {
            long due = time + trace.offset[m];
            if (due == time && trace.network[m] == BlockTrace.LOCAL) {
                lastEnd = Math.max(lastEnd, time);
                signal(trace.target[m], time);
            } else {
                events.add((due << (INDEX_BITS + 1)) | m);
            }
        }
    }
}
