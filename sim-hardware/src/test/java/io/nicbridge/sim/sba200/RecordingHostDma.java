package io.nicbridge.sim.sba200;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The SBA-200 firmware's DMA engine with a log: every access to host memory is made (through
 * {@link Sba200HostDma#direct()}) and recorded with its mode, absolute address and length, in program order. The
 * ordering tests read the log to check a handoff the way Agrona's ring-buffer tests check theirs: the payload and
 * the entry's body are written before the entry's VALID word is released.
 *
 * <p>(The 21140's model gets the same kind of recorder for its descriptor handoff; the two may become one once the
 * cards share a DMA-access interface.)
 */
final class RecordingHostDma implements Sba200HostDma {
    /** The access modes of {@link Sba200HostDma}. */
    enum Mode { WRITE, READ, GET, GET_ACQUIRE, PUT, PUT_LONG, PUT_RELEASE }

    /** One access: {@code [address, address + length)} of host memory, and the word written (PUT*). */
    record Access(int seq, Mode mode, long address, long length, long value) {
        boolean overlaps(long from, long to) {
            return address < to && from < address + length;
        }

        boolean isWrite() {
            return mode == Mode.WRITE || mode == Mode.PUT || mode == Mode.PUT_LONG || mode == Mode.PUT_RELEASE;
        }
    }

    private final Sba200HostDma direct = Sba200HostDma.direct();
    private final List<Access> log = new ArrayList<>();

    /** A snapshot of the accesses so far. */
    synchronized List<Access> log() {
        return List.copyOf(log);
    }

    synchronized void clear() {
        log.clear();
    }

    private synchronized void record(Mode mode, MemorySegment host, long offset, long length, long value) {
        log.add(new Access(log.size(), mode, host.address() + offset, length, value));
    }

    @Override
    public boolean write(MemorySegment src, long srcOffset, MemorySegment host, long hostOffset, long length) {
        record(Mode.WRITE, host, hostOffset, length, 0);
        return direct.write(src, srcOffset, host, hostOffset, length);
    }

    @Override
    public boolean read(MemorySegment host, long hostOffset, MemorySegment dst, long dstOffset, long length) {
        record(Mode.READ, host, hostOffset, length, 0);
        return direct.read(host, hostOffset, dst, dstOffset, length);
    }

    @Override
    public int getInt(MemorySegment host, long offset) {
        record(Mode.GET, host, offset, 4, 0);
        return direct.getInt(host, offset);
    }

    @Override
    public int getIntAcquire(MemorySegment host, long offset) {
        record(Mode.GET_ACQUIRE, host, offset, 4, 0);
        return direct.getIntAcquire(host, offset);
    }

    @Override
    public void putInt(MemorySegment host, long offset, int value) {
        record(Mode.PUT, host, offset, 4, value);
        direct.putInt(host, offset, value);
    }

    @Override
    public void putLong(MemorySegment host, long offset, long value) {
        record(Mode.PUT_LONG, host, offset, 8, value);
        direct.putLong(host, offset, value);
    }

    @Override
    public void putIntRelease(MemorySegment host, long offset, int value) {
        record(Mode.PUT_RELEASE, host, offset, 4, value);
        direct.putIntRelease(host, offset, value);
    }
}
