package io.nicbridge.sim.traffic;

import java.util.Arrays;

/**
 * The harness's record of every packet it has created and not yet seen leave the network,
 * in parallel primitive arrays indexed by a slot number that doubles as the packet's tag.
 * Freed slots are reused (a stack), so a steady-state run allocates nothing; the arrays double
 * only when more packets are alive than ever before.
 */
final class PacketTable {
    long[] created;
    long[] injected;
    int[] source;
    int[] destination;
    boolean[] measured;
    private int[] free;
    private int freeTop;
    private int capacity;

    PacketTable(int initialCapacity) {
        capacity = Math.max(16, initialCapacity);
        created = new long[capacity];
        injected = new long[capacity];
        source = new int[capacity];
        destination = new int[capacity];
        measured = new boolean[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = capacity - 1 - i;
        }
        freeTop = capacity;
    }

    int allocate(long createdCycle, int src, int dst, boolean isMeasured) {
        if (freeTop == 0) {
            grow();
        }
        int slot = free[--freeTop];
        created[slot] = createdCycle;
        injected[slot] = -1;
        source[slot] = src;
        destination[slot] = dst;
        measured[slot] = isMeasured;
        return slot;
    }

    void release(int slot) {
        free[freeTop++] = slot;
    }

    int live() {
        return capacity - freeTop;
    }

    private void grow() {
        int old = capacity;
        capacity = old * 2;
        created = Arrays.copyOf(created, capacity);
        injected = Arrays.copyOf(injected, capacity);
        source = Arrays.copyOf(source, capacity);
        destination = Arrays.copyOf(destination, capacity);
        measured = Arrays.copyOf(measured, capacity);
        free = Arrays.copyOf(free, capacity);
        for (int i = old; i < capacity; i++) {
            free[freeTop++] = capacity - 1 - (i - old);
        }
    }
}
