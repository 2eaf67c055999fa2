package io.nicbridge.bridge.link;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The receive side of a {@link Link}'s in-place receive: which receive handles the caller holds, and for each held
 * one the peer it came from, its payload length, its buffer and one word the medium keeps with it (the fabric's
 * packet class), so that {@link Link#rxPeer}, {@link Link#rxBuffer}, {@link Link#rxLength} and
 * {@link Link#release} check and answer in O(1), allocation-free. Every link implementation keeps its received
 * frames here.
 *
 * <p>Two kinds of table, by who owns the receive buffers:
 * <ul>
 *   <li>{@link #ofHandles(String, int)}: <b>the card owns them</b> and names each received frame by a small handle
 *       of its own (a ring index, a buffer number, a receive-queue slot). The link {@link #hold}s a frame it hands
 *       up and gives it back to the card after {@link #release}.</li>
 *   <li>{@link #ofSlots(String, MemorySegment[])}: <b>the medium model owns them</b> (a simulated NI's receive
 *       memory): the table also keeps the free slots (a stack: {@link #allocate}) and the arrived, not yet polled
 *       ones (a FIFO: {@link #arrived}, {@link #next}); {@link #release} puts a slot back on the free stack.</li>
 * </ul>
 *
 * <pre>
 *   slots:   FREE --allocate--&gt; (filling) --arrived--&gt; QUEUED --next--&gt; HELD --release--&gt; FREE
 *   handles: FREE --hold--------------------------------------------&gt; HELD --release--&gt; FREE
 * </pre>
 *
 * <p><b>Misuse.</b> A handle that is not held - never handed up, released already, out of range - is refused by
 * every accessor with an {@link IllegalStateException} naming the owner and the handle; a handle released and
 * handed up again is a new frame (handles are reused, as the cards' are). A misuse changes nothing.
 *
 * <p>Single-threaded (the link's thread, and in a simulation the medium's, which is the same). Nothing allocates
 * after construction.
 */
public final class ReceivedFrames {
    /** "No frame": {@link #allocate} with no free slot, {@link #next} with nothing queued. */
    public static final int NONE = -1;

    private static final byte FREE = 0;
    private static final byte FILLING = 1;
    private static final byte QUEUED = 2;
    private static final byte HELD = 3;

    private final String owner;
    private final byte[] state;
    private final int[] peer;
    private final int[] length;
    private final int[] tag;
    private final MemorySegment[] buffer;
    private final boolean ownsSlots;
    private final int[] freeStack;
    private int freeCount;
    private final int[] queue;
    private int queueHead;
    private int queueCount;
    private int held;

    private ReceivedFrames(String owner, int handles, MemorySegment[] slots) {
        this.owner = Objects.requireNonNull(owner, "owner");
        if (handles < 1) {
            throw new IllegalArgumentException(owner + ": a receive table needs at least one handle, was " + handles);
        }
        state = new byte[handles];
        peer = new int[handles];
        length = new int[handles];
        tag = new int[handles];
        buffer = new MemorySegment[handles];
        ownsSlots = slots != null;
        if (ownsSlots) {
            freeStack = new int[handles];
            queue = new int[handles];
            for (int s = 0; s < handles; s++) {
                buffer[s] = Objects.requireNonNull(slots[s], "slots[" + s + "]");
                freeStack[s] = handles - 1 - s; // slot 0 first
            }
            freeCount = handles;
        } else {
            freeStack = null;
            queue = null;
        }
    }

    /** @return a table of {@code handles} handles a card names its received frames by: {@code [0, handles)} */
    public static ReceivedFrames ofHandles(String owner, int handles) {
        return new ReceivedFrames(owner, handles, null);
    }

    /** @return a table owning one receive slot per buffer, slot i = {@code slots[i]}, all free */
    public static ReceivedFrames ofSlots(String owner, MemorySegment[] slots) {
        Objects.requireNonNull(slots, "slots");
        return new ReceivedFrames(owner, slots.length, slots);
    }

    // ------------------------------------------------------------------ a card's handles

    /**
     * Marks handle {@code h}, which the card has just handed over, as held by the caller.
     *
     * @param buffer the payload of the frame, in place
     * @throws IllegalStateException when {@code h} is held already, or this table owns its slots
     */
    public void hold(int h, int fromPeer, int payloadLength, MemorySegment buffer) {
        if (ownsSlots) {
            throw new IllegalStateException(owner + ": this receive table owns its slots; frames come by arrived()");
        }
        if (h < 0 || h >= state.length || state[h] != FREE) {
            throw new IllegalStateException(owner + ": the card handed over receive handle " + h + ", which is "
                    + (h < 0 || h >= state.length ? "outside [0, " + state.length + ")" : "held already"));
        }
        state[h] = HELD;
        peer[h] = fromPeer;
        length[h] = payloadLength;
        this.buffer[h] = buffer;
        held++;
    }

    // ------------------------------------------------------------------ a medium's own slots

    /** @return a free slot, now being filled ({@link #slot} is its buffer), or {@link #NONE} when all are taken */
    public int allocate() {
        requireSlots();
        if (freeCount == 0) {
            return NONE;
        }
        int s = freeStack[--freeCount];
        state[s] = FILLING;
        return s;
    }

    /** @return slot {@code s}'s buffer, whatever its state (the medium fills it between allocate and arrived) */
    public MemorySegment slot(int s) {
        requireSlots();
        return buffer[Objects.checkIndex(s, buffer.length)];
    }

    /** Queues the allocated slot {@code s}, now filled, for {@link #next}, behind every frame queued before it. */
    public void arrived(int s, int fromPeer, int payloadLength, int mediumTag) {
        requireSlots();
        if (s < 0 || s >= state.length || state[s] != FILLING) {
            throw new IllegalStateException(owner + ": receive slot " + s + " was not allocated");
        }
        state[s] = QUEUED;
        peer[s] = fromPeer;
        length[s] = payloadLength;
        tag[s] = mediumTag;
        int tail = queueHead + queueCount;
        queue[tail >= queue.length ? tail - queue.length : tail] = s;
        queueCount++;
    }

    /** @return the oldest queued slot, now held by the caller, or {@link #NONE} when none is queued */
    public int next() {
        requireSlots();
        if (queueCount == 0) {
            return NONE;
        }
        int s = queue[queueHead];
        queueHead = queueHead + 1 == queue.length ? 0 : queueHead + 1;
        queueCount--;
        state[s] = HELD;
        held++;
        return s;
    }

    /** @return slots arrived and not yet handed up by {@link #next} */
    public int queued() {
        return queueCount;
    }

    /** @return free slots ({@link #allocate} succeeds while this is above 0); 0 for a card's handles */
    public int free() {
        return freeCount;
    }

    private void requireSlots() {
        if (!ownsSlots) {
            throw new IllegalStateException(owner + ": this receive table holds a card's handles; it has no slots");
        }
    }

    // ------------------------------------------------------------------ both

    /** @throws IllegalStateException when {@code h} is not a frame the caller holds */
    public void checkHeld(int h) {
        if (h < 0 || h >= state.length || state[h] != HELD) {
            throw new IllegalStateException(owner + ": receive handle " + h + " is not a frame the caller holds");
        }
    }

    /** @return true when {@code h} is a frame the caller holds */
    public boolean isHeld(int h) {
        return h >= 0 && h < state.length && state[h] == HELD;
    }

    public int peer(int h) {
        checkHeld(h);
        return peer[h];
    }

    public int length(int h) {
        checkHeld(h);
        return length[h];
    }

    public MemorySegment buffer(int h) {
        checkHeld(h);
        return buffer[h];
    }

    /** @return the word the medium queued with the frame ({@link #arrived}'s {@code mediumTag}; 0 for handles) */
    public int tag(int h) {
        checkHeld(h);
        return tag[h];
    }

    /**
     * Ends the caller's hold of {@code h}: a card's handle is free for the card to hand over again, a slot goes back
     * on the free stack. The caller gives the frame back to the card itself.
     *
     * @throws IllegalStateException when {@code h} is not held
     */
    public void release(int h) {
        checkHeld(h);
        state[h] = FREE;
        held--;
        if (ownsSlots) {
            freeStack[freeCount++] = h;
        } else {
            buffer[h] = null;
        }
    }

    /** @return frames the caller holds now */
    public int heldCount() {
        return held;
    }

    /** @return the number of handles or slots, {@code [0, capacity())} */
    public int capacity() {
        return state.length;
    }

    @Override
    public String toString() {
        return owner + " receive " + (ownsSlots ? "slots" : "handles") + ": " + held + " held"
                + (ownsSlots ? ", " + queueCount + " queued, " + freeCount + " free" : "") + " of " + state.length;
    }
}
