package io.nicbridge.sim.fabric;

import java.util.Arrays;

/**
 * The packets alive in a {@link Network}, as struct-of-arrays indexed by a recycled handle. A handle is taken at
 * NI enqueue and given back when the packet's last flit is ejected or discarded. The arrays grow by doubling only
 * when more packets are alive at once than ever before, so a steady state allocates nothing.
 *
 * <p>Fields are package-visible arrays so the router stages read them without a call; they are replaced (not
 * resized in place) when the pool grows, so callers must not cache the array references across an
 * {@link #take()}.
 */
final class PacketPool {
    static final byte LIVE = 0;
    /** Drop-when-blocked: the head was dropped; remaining flits are discarded where the head died. */
    static final byte DEAD = 1;

    int[] src;
    int[] dst;
    int[] len;
    int[] cls;
    int[] hops;
    long[] created;
    long[] ready;
    long[] injected;
    long[] payload;
    byte[] state;
    /** Flits not yet ejected or discarded; the handle is freed at 0. */
    int[] left;
    private int[] free;
    private int freeCount;
    private int size;

    PacketPool(int initialSize) {
        grow(Math.max(1, initialSize));
    }

    /** A free handle (the lowest first on a fresh pool); grows the pool when none is free. */
    int take() {
        if (freeCount == 0) {
            grow(size * 2);
        }
        return free[--freeCount];
    }

    void release(int handle) {
        assert freeCount < size : "packet handle " + handle + " released twice";
        free[freeCount++] = handle;
    }

    /** Handles currently taken. */
    int live() {
        return size - freeCount;
    }

    private void grow(int newSize) {
        int old = size;
        src = grow(src, newSize);
        dst = grow(dst, newSize);
        len = grow(len, newSize);
        cls = grow(cls, newSize);
        hops = grow(hops, newSize);
        created = grow(created, newSize);
        ready = grow(ready, newSize);
        injected = grow(injected, newSize);
        payload = grow(payload, newSize);
        state = state == null ? new byte[newSize] : Arrays.copyOf(state, newSize);
        left = grow(left, newSize);
        int[] f = new int[newSize];
        if (free != null) {
            System.arraycopy(free, 0, f, 0, freeCount);
        }
        // push new handles so the lowest is popped first
        for (int h = newSize - 1; h >= old; h--) {
            f[freeCount++] = h;
        }
        free = f;
        size = newSize;
    }

    private static int[] grow(int[] a, int n) {
        return a == null ? new int[n] : Arrays.copyOf(a, n);
    }

    private static long[] grow(long[] a, int n) {
        return a == null ? new long[n] : Arrays.copyOf(a, n);
    }
}
