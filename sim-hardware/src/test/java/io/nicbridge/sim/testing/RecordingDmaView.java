package io.nicbridge.sim.testing;

import io.nicbridge.bridge.memory.DmaView;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link DmaView} that logs every access a card makes - bus address, length, direction, ordering mode and the
 * word written - and then performs it on the view it wraps. The card-side analogue of the mocked buffer in
 * Agrona's ring buffer tests: a test reads the log to check the order in which the card touched host memory
 * (the 21140's descriptor handoff, the SBA-200's receive-queue handoff).
 *
 * <p>Translations are not accesses and are not logged. {@link #snapshot()} returns this view (tests are
 * single-threaded and do not change the wrapped view's regions while the card runs).
 */
public final class RecordingDmaView implements DmaView {
    /** How an access is ordered: {@code readIntAcquire} is ACQUIRE, {@code writeIntRelease} RELEASE. */
    public enum Mode { PLAIN, ACQUIRE, RELEASE }

    /**
     * One access: {@code write} is the card writing host memory; {@code value} is the word or long it wrote
     * ({@code writeInt}, {@code writeIntRelease}, {@code writeLong}), 0 for reads and copies.
     */
    public record Access(long bus, long length, boolean write, Mode mode, long value) {
        /** An access that carries no value: a read or a copy. */
        public Access(long bus, long length, boolean write, Mode mode) {
            this(bus, length, write, mode, 0);
        }

        /** Whether the access touched any byte of {@code [from, from + len)}. */
        public boolean overlaps(long from, long len) {
            return bus < from + len && from < bus + length;
        }

        @Override
        public String toString() {
            return (write ? "W " : "R ") + mode + " 0x" + Long.toHexString(bus) + " +" + length
                + (value != 0 ? " =0x" + Long.toHexString(value) : "");
        }
    }

    private final DmaView inner;
    private final List<Access> log = new ArrayList<>();

    public RecordingDmaView(DmaView inner) {
        this.inner = inner;
    }

    /** The accesses so far, oldest first (a live view: copy before mutating the card further). */
    public List<Access> log() {
        return log;
    }

    public void clear() {
        log.clear();
    }

    private void record(long bus, long length, boolean write, Mode mode, long value) {
        log.add(new Access(bus, length, write, mode, value));
    }

    @Override
    public int translate(long busAddress, long length) {
        return inner.translate(busAddress, length);
    }

    @Override
    public MemorySegment region(int region) {
        return inner.region(region);
    }

    @Override
    public long offset(int region, long busAddress) {
        return inner.offset(region, busAddress);
    }

    @Override
    public DmaView snapshot() {
        return this;
    }

    @Override
    public long readInt(long busAddress, ByteOrder order) {
        record(busAddress, 4, false, Mode.PLAIN, 0);
        return inner.readInt(busAddress, order);
    }

    @Override
    public int writeInt(long busAddress, int value, ByteOrder order) {
        record(busAddress, 4, true, Mode.PLAIN, Integer.toUnsignedLong(value));
        return inner.writeInt(busAddress, value, order);
    }

    @Override
    public int writeLong(long busAddress, long value, ByteOrder order) {
        record(busAddress, 8, true, Mode.PLAIN, value);
        return inner.writeLong(busAddress, value, order);
    }

    @Override
    public long readIntAcquire(long busAddress, ByteOrder order) {
        record(busAddress, 4, false, Mode.ACQUIRE, 0);
        return inner.readIntAcquire(busAddress, order);
    }

    @Override
    public int writeIntRelease(long busAddress, int value, ByteOrder order) {
        record(busAddress, 4, true, Mode.RELEASE, Integer.toUnsignedLong(value));
        return inner.writeIntRelease(busAddress, value, order);
    }

    @Override
    public int copyFromBus(long busAddress, MemorySegment dst, long dstOffset, long len) {
        record(busAddress, len, false, Mode.PLAIN, 0);
        return inner.copyFromBus(busAddress, dst, dstOffset, len);
    }

    @Override
    public int copyToBus(MemorySegment src, long srcOffset, long busAddress, long len) {
        record(busAddress, len, true, Mode.PLAIN, 0);
        return inner.copyToBus(src, srcOffset, busAddress, len);
    }
}
