package io.nicbridge.sim.fddi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/** A station that always (or {@code queued} times) has a frame to send (random LEN in [minLen, maxLen]) and records what it sees. */
final class SaturatedMac implements FddiMac {
    final String name;
    final long address;
    final long treqNanos;
    final int minLen;
    final int maxLen;
    final SplittableRandom random;
    boolean saturated = true;
    /** Frames still to send when not saturated. */
    int queued;
    long sent;
    long returned;
    long received;
    long tokens;
    int lastState = -1;
    long lastTtrt;
    int lastFs = -1;

    SaturatedMac(String name, long address, long treqNanos, int minLen, int maxLen, long seed) {
        this.name = name;
        this.address = address;
        this.treqNanos = treqNanos;
        this.minLen = minLen;
        this.maxLen = maxLen;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long requestedTtrtNanos() {
        return treqNanos;
    }

    @Override
    public long pullFrame(MemorySegment frame, int capacity) {
        if (!saturated) {
            if (queued == 0) {
                return NO_FRAME;
            }
            queued--;
        }
        int len = minLen == maxLen ? minLen : random.nextInt(minLen, maxLen + 1);
        frame.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x54);
        for (int i = 0; i < 6; i++) {
            frame.set(ValueLayout.JAVA_BYTE, 1 + i, (byte) 0xFF); // broadcast
            frame.set(ValueLayout.JAVA_BYTE, 7 + i, (byte) (address >>> (40 - 8 * i)));
        }
        int withFcs = FddiFcs.append(frame, 0, len);
        sent++;
        return (long) (int) sent << 32 | withFcs;
    }

    @Override
    public int frameArrived(MemorySegment frame, int lengthWithFcs, int fsIn) {
        received++;
        return FddiFcs.check(frame, 0, lengthWithFcs) ? FS_A | FS_C : FS_E;
    }

    @Override
    public void frameReturned(int tag, int fs) {
        returned++;
        lastFs = fs;
    }

    @Override
    public void ringStateChanged(int state, long ttrtNanos) {
        lastState = state;
        lastTtrt = ttrtNanos;
    }

    @Override
    public void tokensSeen(long count) {
        tokens += count;
    }
}
