package io.nicbridge.sim.fabric;

import java.util.Arrays;

/**
 * Endpoint wake-ups: a binary min-heap of {@code (cycle << 22) | node} keys, so nodes due at the same cycle pop in
 * node order. Stale keys (a node that asked for an earlier wake-up afterwards) are filtered by the caller. Grows by
 * doubling; no allocation in steady state.
 */
final class WakeHeap {
    static final int NODE_BITS = 22;
    static final int MAX_NODES = 1 << NODE_BITS;
    private long[] heap;
    private int size;

    WakeHeap(int initialCapacity) {
        heap = new long[Math.max(16, initialCapacity)];
    }

    static long key(long cycle, int node) {
        return (cycle << NODE_BITS) | node;
    }

    static int node(long key) {
        return (int) (key & (MAX_NODES - 1));
    }

    static long cycle(long key) {
        return key >>> NODE_BITS;
    }

    boolean dueBy(long now) {
        return size > 0 && cycle(heap[0]) <= now;
    }

    void push(long key) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, heap.length * 2);
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (heap[parent] <= key) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = key;
    }

    long pop() {
        long top = heap[0];
        long last = heap[--size];
        int i = 0;
        int n = size;
        while (true) {
            int c = 2 * i + 1;
            if (c >= n) {
                break;
            }
            if (c + 1 < n && heap[c + 1] < heap[c]) {
                c++;
            }
            if (heap[c] >= last) {
                break;
            }
            heap[i] = heap[c];
            i = c;
        }
        if (n > 0) {
            heap[i] = last;
        }
        return top;
    }
}
