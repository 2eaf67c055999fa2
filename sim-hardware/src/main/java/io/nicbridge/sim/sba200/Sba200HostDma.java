package io.nicbridge.sim.sba200;

import java.lang.foreign.MemorySegment;

/**
 * The i960's DMA engine as the firmware core ({@link Sba200Firmware}) sees it: every access the firmware makes to
 * host memory - receive buffers and send buffers in a process's segment, the entries of its receive queue - goes
 * through here, with its access mode. The host regions are the slices of the card's
 * {@link io.nicbridge.bridge.memory.DmaSpace} the firmware translated at EP_CREATE; offsets are bounds-checked by
 * the firmware against that endpoint's own slice before an access is made. (The kernel's GET_STATS command, off the
 * data path, copies to a bus address through the DmaSpace itself, which translates it on the spot.)
 *
 * <p>Words are big-endian (SBus, contract {@code sba200_unet.h}). {@link #direct()} is the card's; tests install a
 * recording one to check the order of a handoff (payload and entry body first, the VALID word last, with release).
 *
 * <p><b>Freed memory.</b> A process may free its segment under the card (its own fault). The copies report that as
 * {@code false}, which the firmware turns into a DMA error the card's way; they never throw for it.
 */
public interface Sba200HostDma {
    /** Copies {@code length} bytes from card memory {@code src} into host memory. @return false: the host memory is gone */
    boolean write(MemorySegment src, long srcOffset, MemorySegment host, long hostOffset, long length);

    /** Copies {@code length} bytes of host memory into card memory {@code dst}. @return false: the host memory is gone */
    boolean read(MemorySegment host, long hostOffset, MemorySegment dst, long dstOffset, long length);

    /** A plain big-endian word read. */
    int getInt(MemorySegment host, long offset);

    /** A big-endian word read with acquire: host writes made before its release of that word are visible after. */
    int getIntAcquire(MemorySegment host, long offset);

    /** A plain big-endian word write. */
    void putInt(MemorySegment host, long offset, int value);

    /** A plain big-endian 64-bit write (the SBus burst of two words, high word first in memory). */
    void putLong(MemorySegment host, long offset, long value);

    /**
     * A big-endian word write with release: every access made before it is visible to a host that reads this word
     * with acquire. The firmware's only way to hand an entry over.
     */
    void putIntRelease(MemorySegment host, long offset, int value);

    /** The card's DMA engine: plain memory accesses, no recording. */
    static Sba200HostDma direct() {
        return DirectHostDma.INSTANCE;
    }
}
