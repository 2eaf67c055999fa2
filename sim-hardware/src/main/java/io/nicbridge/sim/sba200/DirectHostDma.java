package io.nicbridge.sim.sba200;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * {@link Sba200HostDma#direct()}: the accesses themselves, nothing else. One instance, so the firmware's calls stay
 * monomorphic and the JIT inlines them.
 */
final class DirectHostDma implements Sba200HostDma {
    static final DirectHostDma INSTANCE = new DirectHostDma();

    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_BE_HANDLE = INT_BE.varHandle();

    private DirectHostDma() {
    }

    @Override
    public boolean write(MemorySegment src, long srcOffset, MemorySegment host, long hostOffset, long length) {
        if (!host.scope().isAlive()) {
            return false; // the process freed its memory: a bus error, which the firmware reports
        }
        try {
            MemorySegment.copy(src, srcOffset, host, hostOffset, length);
            return true;
        } catch (IllegalStateException freedDuringTheCopy) {
            // Only a free racing with this copy gets here: FFM's shared-arena close has no non-throwing check.
            return false;
        }
    }

    @Override
    public boolean read(MemorySegment host, long hostOffset, MemorySegment dst, long dstOffset, long length) {
        if (!host.scope().isAlive()) {
            return false;
        }
        try {
            MemorySegment.copy(host, hostOffset, dst, dstOffset, length);
            return true;
        } catch (IllegalStateException freedDuringTheCopy) {
            return false;
        }
    }

    @Override
    public int getInt(MemorySegment host, long offset) {
        return host.get(INT_BE, offset);
    }

    @Override
    public int getIntAcquire(MemorySegment host, long offset) {
        return (int) INT_BE_HANDLE.getAcquire(host, offset);
    }

    @Override
    public void putInt(MemorySegment host, long offset, int value) {
        host.set(INT_BE, offset, value);
    }

    @Override
    public void putLong(MemorySegment host, long offset, long value) {
        host.set(LONG_BE, offset, value);
    }

    @Override
    public void putIntRelease(MemorySegment host, long offset, int value) {
        INT_BE_HANDLE.setRelease(host, offset, value);
    }
}
