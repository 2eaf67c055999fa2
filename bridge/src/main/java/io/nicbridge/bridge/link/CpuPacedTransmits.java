package io.nicbridge.bridge.link;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import java.util.Objects;

/**
 * A card framing's doorbell, rung when the node's CPU gets there: in virtual time a committed frame reaches the card
 * at {@link HostCpu#now()} (the time the CPU has reached with the work charged so far), not at the scheduler's
 * present, so that host work before a send delays the frame on the wire, as the in-memory and fabric media stamp
 * their frames. A commit whose time has come is handed to the card at once; a later one waits in a FIFO (commits
 * keep their order) for a timer of the CPU's scheduler. In real time (the CPU only counts) and with the zero table
 * (the CPU is never ahead of the clock) every commit goes to the card at once, exactly as without this class.
 *
 * <p>Between commit and doorbell the card's buffer stays claimed at the card and the link's handle is already void,
 * so nobody touches the frame. Capacity = the framing's transmit handles, so the FIFO never fills.
 *
 * <p>Single-threaded: the link's thread, which in virtual time is the scheduler's. Nothing allocates after
 * {@link #cpu(HostCpu)}.
 */
public final class CpuPacedTransmits {
    /** The card's side of a commit: hand the built frame of {@code length} bytes in handle {@code handle} over. */
    @FunctionalInterface
    public interface Doorbell {
        void ring(int handle, int length, int extra);
    }

    private final String owner;
    private final Doorbell doorbell;
    private final int[] handle;
    private final int[] length;
    private final int[] extra;
    private final long[] due;
    private int head;
    private int count;
    private HostCpu cpu;
    private Scheduler scheduler;
    private Timer timer;

    /**
     * @param capacity the most commits that can wait: the framing's transmit handles
     * @param cpu      the node's CPU, or an {@link HostCpu#uncharged} one
     */
    public CpuPacedTransmits(String owner, int capacity, HostCpu cpu, Doorbell doorbell) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.doorbell = Objects.requireNonNull(doorbell, "doorbell");
        if (capacity < 1) {
            throw new IllegalArgumentException(owner + ": capacity must be >= 1, was " + capacity);
        }
        handle = new int[capacity];
        length = new int[capacity];
        extra = new int[capacity];
        due = new long[capacity];
        cpu(cpu);
    }

    /**
     * Paces later commits by {@code cpu} (setup-time; makes the timer when the CPU delays).
     *
     * @throws IllegalStateException when commits are waiting
     */
    public void cpu(HostCpu cpu) {
        Objects.requireNonNull(cpu, "cpu");
        if (count > 0) {
            throw new IllegalStateException(owner + ": " + count + " commits wait for the previous CPU");
        }
        this.cpu = cpu;
        if (cpu.delays()) {
            scheduler = Objects.requireNonNull(cpu.scheduler(), "a delaying CPU's scheduler");
            timer = scheduler.newTimer(owner + ".doorbell", this::expired);
        } else {
            scheduler = null;
            timer = null;
        }
    }

    /** @return the CPU commits are paced by (the one the framing charges) */
    public HostCpu cpu() {
        return cpu;
    }

    /** Rings the doorbell for {@code handle} now, or when the CPU gets there, after every earlier commit. */
    public void commit(int h, int frameLength, int extraWord) {
        if (timer == null) {
            doorbell.ring(h, frameLength, extraWord);
            return;
        }
        long at = cpu.now();
        if (count == 0 && at <= scheduler.nanoTime()) {
            doorbell.ring(h, frameLength, extraWord);
            return;
        }
        if (count == handle.length) {
            throw new IllegalStateException(owner + ": " + count + " commits wait already, the capacity");
        }
        int tail = head + count;
        tail = tail >= handle.length ? tail - handle.length : tail;
        handle[tail] = h;
        length[tail] = frameLength;
        extra[tail] = extraWord;
        due[tail] = at;
        if (count++ == 0) {
            timer.armAt(at);
        }
    }

    /** The timer: ring every doorbell whose time has come, then wait for the next. */
    private void expired() {
        long now = scheduler.nanoTime();
        while (count > 0 && due[head] <= now) {
            ringHead();
        }
        if (count > 0) {
            timer.armAt(due[head]);
        }
    }

    private void ringHead() {
        int h = handle[head];
        int len = length[head];
        int x = extra[head];
        head = head + 1 == handle.length ? 0 : head + 1;
        count--;
        doorbell.ring(h, len, x);
    }

    /** Rings every waiting doorbell now (the link closes: frames committed still go out). */
    public void flush() {
        if (timer != null) {
            timer.cancel();
        }
        while (count > 0) {
            ringHead();
        }
    }

    /** @return commits waiting for the CPU */
    public int waiting() {
        return count;
    }

    /** @return true when {@code h} is committed and waits for its doorbell */
    public boolean isWaiting(int h) {
        for (int i = 0, k = head; i < count; i++, k = k + 1 == handle.length ? 0 : k + 1) {
            if (handle[k] == h) {
                return true;
            }
        }
        return false;
    }
}
