package io.nicbridge.sim.trace;

/**
 * A block-structured trace (the idempotent-messaging paper, section 3.2): the dependency graph of
 * a parallel program's messages.
 * <pre>
 *   block b: runs on node[b] for duration[b] cycles once activated; activated when it has received
 *            signalsNeeded[b] signals (blocks needing none start at cycle 0)
 *   message m: sent by block from[m] at offset[m] cycles after that block's activation, to node
 *            destination[m] on logical network network[m] with size[m] flits; on delivery it
 *            signals block target[m] (or nothing when target is -1).
 *            network[m] == LOCAL marks a signal inside one node: no packet, it arrives at the offset.
 * </pre>
 * Messages of block b are {@code firstMessage[b] .. firstMessage[b] + messageCount[b] - 1}.
 * Instances are immutable once built by {@link TraceMachine}.
 */
public final class BlockTrace {
    /** network[] value of a node-local signal. */
    public static final int LOCAL = -1;

    final String name;
    final int nodes;
    final int blockCount;
    final int[] blockNode;
    final long[] duration;
    final int[] signalsNeeded;
    final int[] firstMessage;
    final int[] messageCount;
    final int messageTotal;
    final int[] from;
    final long[] offset;
    final int[] size;
    final int[] destination;
    final int[] target;
    final int[] network;

    BlockTrace(String name, int nodes, int blockCount, int[] blockNode, long[] duration, int[] signalsNeeded,
               int[] firstMessage, int[] messageCount, int messageTotal, int[] from, long[] offset, int[] size,
               int[] destination, int[] target, int[] network) {
        this.name = name;
        this.nodes = nodes;
        this.blockCount = blockCount;
        this.blockNode = blockNode;
        this.duration = duration;
        this.signalsNeeded = signalsNeeded;
        this.firstMessage = firstMessage;
        this.messageCount = messageCount;
        this.messageTotal = messageTotal;
        this.from = from;
        this.offset = offset;
        this.size = size;
        this.destination = destination;
        this.target = target;
        this.network = network;
    }

    public String name() {
        return name;
    }

    public int nodes() {
        return nodes;
    }

    public int blockCount() {
        return blockCount;
    }

    /** @return messages including node-local signals */
    public int messageCount() {
        return messageTotal;
    }

    /** @return packets that cross the network on {@code net} (0 request, 1 reply) */
    public int networkMessageCount(int net) {
        int c = 0;
        for (int m = 0; m < messageTotal; m++) {
            if (network[m] == net) {
                c++;
            }
        }
        return c;
    }

    /** @return flits over both networks */
    public long networkFlits() {
        long f = 0;
        for (int m = 0; m < messageTotal; m++) {
            if (network[m] != LOCAL) {
                f += size[m];
            }
        }
        return f;
    }

    public int blockNode(int b) {
        return blockNode[b];
    }

    public long blockDuration(int b) {
        return duration[b];
    }

    public int blockSignalsNeeded(int b) {
        return signalsNeeded[b];
    }

    public int messageFrom(int m) {
        return from[m];
    }

    public int messageTarget(int m) {
        return target[m];
    }

    public int messageNetwork(int m) {
        return network[m];
    }

    public int messageDestination(int m) {
        return destination[m];
    }

    public int messageSize(int m) {
        return size[m];
    }

    public long messageOffset(int m) {
        return offset[m];
    }

    /**
     * The program's critical path on an ideal network where every packet takes
     * {@code packetCycles + size} cycles and no packet ever waits (a bound useful for checks).
     *
     * @param packetCycles cycles a packet of one flit takes end to end (added to its size)
     * @return the completion cycle on that ideal network
     */
    public long idealCompletion(long packetCycles) {
        long[] latest = new long[blockCount];
        int[] remaining = signalsNeeded.clone();
        java.util.PriorityQueue<long[]> q = new java.util.PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
        long end = 0;
        for (int b = 0; b < blockCount; b++) {
            if (remaining[b] == 0) {
                q.add(new long[] {0, b});
            }
        }
        while (!q.isEmpty()) {
            long[] e = q.poll();
            int b = (int) e[1];
            end = Math.max(end, e[0] + duration[b]);
            for (int m = firstMessage[b]; m < firstMessage[b] + messageCount[b]; m++) {
                long arrive = e[0] + offset[m] + (network[m] == LOCAL ? 0 : packetCycles + size[m]);
                end = Math.max(end, arrive);
                int t = target[m];
                if (t >= 0) {
                    latest[t] = Math.max(latest[t], arrive);
                    if (--remaining[t] == 0) {
                        q.add(new long[] {latest[t], t});
                    }
                }
            }
        }
        return end;
    }
}
