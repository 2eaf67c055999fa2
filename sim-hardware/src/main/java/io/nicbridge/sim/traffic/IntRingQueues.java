package io.nicbridge.sim.traffic;

import java.util.Arrays;

/**
 * One unbounded FIFO of ints per node (the source queues of the BookSim method: a packet waits
 * here from creation until its node's port accepts it, so packet latency includes this wait).
 * Each ring doubles when full; otherwise nothing is allocated.
 */
public final class IntRingQueues {
    private final int[][] rings;
    private final int[] head;
    private final int[] size;

    public IntRingQueues(int queues, int initialCapacity) {
        rings = new int[queues][Math.max(4, Integer.highestOneBit(Math.max(4, initialCapacity) - 1) << 1)];
        head = new int[queues];
        size = new int[queues];
    }

    public void push(int q, int value) {
        int[] ring = rings[q];
        if (size[q] == ring.length) {
            int[] bigger = new int[ring.length * 2];
            for (int i = 0; i < size[q]; i++) {
                bigger[i] = ring[(head[q] + i) & (ring.length - 1)];
            }
            rings[q] = ring = bigger;
            head[q] = 0;
        }
        ring[(head[q] + size[q]) & (ring.length - 1)] = value;
        size[q]++;
    }

    public boolean isEmpty(int q) {
        return size[q] == 0;
    }

    public int size(int q) {
        return size[q];
    }

    public int peek(int q) {
        return rings[q][head[q]];
    }

    public int pop(int q) {
        int[] ring = rings[q];
        int v = ring[head[q]];
        head[q] = (head[q] + 1) & (ring.length - 1);
        size[q]--;
        return v;
    }

    public void clear() {
        Arrays.fill(head, 0);
        Arrays.fill(size, 0);
    }
}
