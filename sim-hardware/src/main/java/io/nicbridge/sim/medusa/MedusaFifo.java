package io.nicbridge.sim.medusa;

import io.nicbridge.contract.Medusa;

/**
 * One of the card's four FIFOs of buffer entries (TX, TXDONE, RX, FREE): {@value #DEPTH} deep, as deep as there
 * are buffers, so that with explicit buffer ownership (a buffer number sits in at most one FIFO) it can never
 * overflow. Not thread-safe: the card model guards it with its lock. Allocation-free.
 */
final class MedusaFifo {
    static final int DEPTH = Medusa.FIFO_DEPTH;

    private final int[] entries = new int[DEPTH];
    private int head;
    private int size;

    /** @return false when full (cannot happen while ownership is enforced; the caller treats it as a bug) */
    boolean push(int entry) {
        if (size == DEPTH) {
            return false;
        }
        entries[(head + size) & (DEPTH - 1)] = entry;
        size++;
        return true;
    }

    /** @return the oldest entry, removed, or 0 when empty (FIFO registers read 0 when empty) */
    int pop() {
        if (size == 0) {
            return 0;
        }
        int e = entries[head];
        head = (head + 1) & (DEPTH - 1);
        size--;
        return e;
    }

    /** @return the oldest entry without removing it; only when {@link #size()} &gt; 0 */
    int peek() {
        return entries[head];
    }

    int size() {
        return size;
    }

    void clear() {
        head = 0;
        size = 0;
    }
}
