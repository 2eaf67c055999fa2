package io.nicbridge.sim.dec21140;

import io.nicbridge.bridge.memory.DmaView;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link DmaView} that logs every access a card makes - address, length, direction and ordering mode - and
 * then performs it on the view it wraps. The card-side analogue of the mocked buffer in Agrona's ring buffer
 * tests: a test reads the log to check the order in which the card touched host memory.
 *
 * <p>Translations are not accesses and are not logged. {@link #snapshot()} returns this view (tests are
 * single-threaded and do not change the wrapped view's regions while the card runs).
 */
final class RecordingDmaView implements DmaView {
    enum Mode { PLAIN, ACQUIRE, RELEASE }

    /** One access: {@code write} is the card writing host memory. */
    record Access(long bus, long length, boolean write, Mode mode) {
        boolean overlaps(long from, long len) {
            return bus < from + len && from < bus + length;
        }

        @Override
        public String toString() {
            return (write ? "W " : "R ") + mode + " 0x" + Long.toHexString(bus) + " +" + length;
        }
    }

    private final DmaView inner;
    private final List<Access> log = new ArrayList<>();

    RecordingDmaView(DmaView inner) {
        this.inner = inner;
    }

    /** The accesses so far, oldest first (a live view: copy before mutating the card further). */
    List<Access> log() {
        return log;
    }

    void clear() {
        log.clear();
    }

    private void record(long bus, long length, boolean write, Mode mode) {
        log.add(new Access(bus, length, write, mode));
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
        record(busAddress, 4, false, Mode.PLAIN);
        return inner.readInt(busAddress, order);
    }

    @Override
    public int writeInt(long busAddress, int value, ByteOrder order) {
        record(busAddress, 4, true, Mode.PLAIN);
        return inner.writeInt(busAddress, value, order);
    }

    @Override
    public long readIntAcquire(long busAddress, ByteOrder order) {
        record(busAddress, 4, false, Mode.ACQUIRE);
        return inner.readIntAcquire(busAddress, order);
    }

    @Override
    public int writeIntRelease(long busAddress, int value, ByteOrder order) {
        record(busAddress, 4, true, Mode.RELEASE);
        return inner.writeIntRelease(busAddress, value, order);
    }

    @Override
    public int copyFromBus(long busAddress, MemorySegment dst, long dstOffset, long len) {
        record(busAddress, len, false, Mode.PLAIN);
        return inner.copyFromBus(busAddress, dst, dstOffset, len);
    }

    @Override
    public int copyToBus(MemorySegment src, long srcOffset, long busAddress, long len) {
        record(busAddress, len, true, Mode.PLAIN);
        return inner.copyToBus(src, srcOffset, busAddress, len);
    }
}
