package io.nicbridge.sim.trace;

import java.util.Arrays;

/** A binary min-heap of primitive longs (event keys with the time in the high bits). */
final class LongMinHeap {
    private long[] heap = new long[1024];
    private int size;

    void add(long key) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
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

    boolean isEmpty() {
        return size == 0;
    }

    long peek() {
        return heap[0];
    }

    long poll() {
        long top = heap[0];
        long last = heap[--size];
        int i = 0;
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            if (child + 1 < size && heap[child + 1] < heap[child]) {
                child++;
            }
            if (last <= heap[child]) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        if (size > 0) {
            heap[i] = last;
        }
        return top;
    }
}
