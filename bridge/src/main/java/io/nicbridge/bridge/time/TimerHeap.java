package io.nicbridge.bridge.time;

import java.util.Arrays;
import java.util.Objects;

/**
 * The timer queue of every single-threaded scheduler ({@link EventLoop} in real time, sim's virtual time base):
 * an indexed binary min-heap of entries keyed by (deadline, arming sequence).
 *
 * <pre>
 *   heap[0] = earliest deadline     each Entry knows its heapIndex (-1 = not queued), so a re-arm moves it
 *        /        \                  up or down in place (O(log n)) and a cancel removes it from the middle:
 *   heap[1]      heap[2]             no tombstones, no duplicate entries
 * </pre>
 *
 * <p><b>Ties.</b> Every {@link #schedule} takes the next sequence number, so entries due at the same deadline
 * come out in the order they were (last) scheduled, never in an order that depends on hashing or identity: a
 * virtual world replays the same events in the same order.
 *
 * <p><b>Deadlines</b> compare by difference ({@code a - b < 0}), as {@link System#nanoTime()} readings must (they
 * may be negative); for deadlines that are all {@code >= 0} (virtual time) that is the plain order.
 *
 * <p><b>Allocation.</b> The owner calls {@link #reserve()} once per entry it creates (at setup), so the array
 * always holds every entry that exists: scheduling, removing and polling allocate nothing.
 *
 * <p>Not thread-safe: the owning scheduler confines it to one thread.
 *
 * @param <E> the owner's entry type (its timers, its events)
 */
public final class TimerHeap<E extends TimerHeap.Entry> {
    /** A schedulable entry: created at setup, reused for every schedule. Only the heap writes its fields. */
    public abstract static class Entry {
        long deadline;
        long sequence;
        int heapIndex = -1;

        /** @return the deadline of the last schedule (still readable after it fired or was removed) */
        public final long deadline() {
            return deadline;
        }

        /** @return true while the entry waits in a heap */
        public final boolean isQueued() {
            return heapIndex >= 0;
        }
    }

    private Entry[] heap;
    private int size;
    private int reserved;
    private long nextSequence;

    /** @param initialCapacity the array's first length (&gt; 0); it doubles in {@link #reserve()} as entries are made */
    public TimerHeap(int initialCapacity) {
        if (initialCapacity <= 0) {
            throw new IllegalArgumentException("initialCapacity must be > 0, was " + initialCapacity);
        }
        heap = new Entry[initialCapacity];
    }

    /** Makes room for one more entry. Call once per entry created, at setup: scheduling never allocates. */
    public void reserve() {
        if (++reserved > heap.length) {
            heap = Arrays.copyOf(heap, heap.length * 2);
        }
    }

    /**
     * Queues {@code e} at {@code deadline}, or moves it there if it is queued already, behind every entry already
     * due then.
     *
     * @throws IllegalStateException when more entries are queued than were {@link #reserve() reserved}
     */
    public void schedule(E e, long deadline) {
        e.deadline = deadline;
        e.sequence = nextSequence++;
        int i = e.heapIndex;
        if (i < 0) {
            if (size == heap.length) {
                throw new IllegalStateException("timer heap full (" + size + " entries): an entry was scheduled"
                        + " that its owner never reserved");
            }
            i = size++;
            heap[i] = e;
            e.heapIndex = i;
            siftUp(i);
        } else if (!siftUp(i)) {
            siftDown(i);
        }
    }

    /** Takes {@code e} out of the heap; nothing happens when it is not queued. */
    public void remove(E e) {
        int i = e.heapIndex;
        if (i < 0) {
            return;
        }
        Entry last = heap[--size];
        heap[size] = null;
        e.heapIndex = -1;
        if (i != size) {
            heap[i] = last;
            last.heapIndex = i;
            if (!siftUp(i)) {
                siftDown(i);
            }
        }
    }

    /** @return the entry with the earliest deadline (first scheduled among equals), or null when empty */
    @SuppressWarnings("unchecked") // only E's are ever scheduled
    public E peek() {
        return size == 0 ? null : (E) heap[0];
    }

    /** @return the earliest deadline, or {@link Long#MAX_VALUE} when the heap is empty */
    public long nextDeadline() {
        return size == 0 ? Long.MAX_VALUE : heap[0].deadline;
    }

    /** @return how many entries are queued */
    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** @return true when every entry knows its index and no child is due before its parent (for tests) */
    boolean invariantHolds() {
        for (int i = 0; i < size; i++) {
            if (heap[i].heapIndex != i || (i > 0 && before(heap[i], heap[(i - 1) >>> 1]))) {
                return false;
            }
        }
        return true;
    }

    private static boolean before(Entry a, Entry b) {
        long d = a.deadline - b.deadline;
        return d < 0 || (d == 0 && a.sequence < b.sequence);
    }

    /** @return true when the entry moved */
    private boolean siftUp(int i) {
        Entry e = heap[i];
        int start = i;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Entry p = heap[parent];
            if (!before(e, p)) {
                break;
            }
            heap[i] = p;
            p.heapIndex = i;
            i = parent;
        }
        heap[i] = e;
        e.heapIndex = i;
        return i != start;
    }

    private void siftDown(int i) {
        Entry e = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            Entry c = heap[child];
            int right = child + 1;
            if (right < size && before(heap[right], c)) {
                child = right;
                c = heap[child];
            }
            if (!before(c, e)) {
                break;
            }
            heap[i] = c;
            c.heapIndex = i;
            i = child;
        }
        heap[i] = e;
        e.heapIndex = i;
    }

    @Override
    public String toString() {
        return "TimerHeap(" + size + " queued, " + reserved + " reserved, next " + Objects.toString(peek()) + ")";
    }
}
