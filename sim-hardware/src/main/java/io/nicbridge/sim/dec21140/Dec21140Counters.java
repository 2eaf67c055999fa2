package io.nicbridge.sim.dec21140;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The emulated 21140's statistics: what it moved and every way a frame can be lost or flagged, so that a test
 * (or a user) can account for each frame. Like a card's own statistics registers these are counted, never logged.
 *
 * <p>Single writer: fields without {@code Atomic} are only written by the card's engine while it holds the
 * model's lock, and are volatile so other threads read current values. The receive-side counters that the wire's
 * threads bump before the frame reaches the card ({@link #rxFifoOverflows()}, {@link #rxWhileStopped()},
 * {@link #rxOversize()}) are atomic.
 */
public final class Dec21140Counters {
    volatile long txFrames;
    volatile long txBytes;
    volatile long txSetupFrames;
    volatile long txSetupRejected;
    volatile long txNullDescriptors;
    volatile long txEmptyFrames;
    volatile long txJabber;
    volatile long txAbortedFrames;
    volatile long txUnderflowSuspends;
    volatile long txUnderflows;
    volatile long txNoCarrier;
    volatile long txDescriptors;
    volatile long txLoopback;

    volatile long rxFrames;
    volatile long rxBytes;
    volatile long rxFiltered;
    volatile long rxMissed;
    volatile long rxTruncated;
    volatile long rxCrcErrors;
    volatile long rxRunts;
    volatile long rxTooLong;
    volatile long rxZeroSizeDescriptors;
    volatile long rxDescriptors;
    volatile long rxFlushed;

    volatile long busErrors;
    volatile long busErrorDrops;
    volatile long listBaseWritesIgnored;
    volatile long gpTimerExpiries;

    final AtomicLong rxFifoOverflows = new AtomicLong();
    final AtomicLong rxWhileStopped = new AtomicLong();
    final AtomicLong rxOversize = new AtomicLong();
    final AtomicLong rxDuringLoopback = new AtomicLong();

    /** Frames put on the wire (setup frames are not sent and not counted here). */
    public long txFrames() {
        return txFrames;
    }

    /** Bytes put on the wire, padding and FCS included. */
    public long txBytes() {
        return txBytes;
    }

    /** Setup frames processed (address filter loaded). */
    public long txSetupFrames() {
        return txSetupFrames;
    }

    /** Setup frames rejected because TBS1 was not 192 (TDES0 = ES, filter unchanged). */
    public long txSetupRejected() {
        return txSetupRejected;
    }

    /** Stray zero-length descriptors outside a frame (Linux's setup-frame erratum dummy), handed back with 0. */
    public long txNullDescriptors() {
        return txNullDescriptors;
    }

    /** FS..LS frames with no bytes at all: not sent, TDES0 = ES. */
    public long txEmptyFrames() {
        return txEmptyFrames;
    }

    /** Frames over the 2048-byte transmit FIFO: cut off by the jabber timer, not sent, TDES0 = TO|ES, CSR5.TJT. */
    public long txJabber() {
        return txJabber;
    }

    /** Partly read frames thrown away: a new FS before the previous LS, transmit stopped mid-frame, or reset. */
    public long txAbortedFrames() {
        return txAbortedFrames;
    }

    /** Times the transmit process suspended in the middle of a frame (next descriptor host-owned before LS). */
    public long txUnderflowSuspends() {
        return txUnderflowSuspends;
    }

    /**
     * Frames whose transmit FIFO ran dry in threshold mode (virtual time): the bytes sent before it ran dry went on
     * the wire as a fragment with a bad FCS (not counted in {@link #txFrames()}), TDES0 = UF|ES, CSR5.UNF, the
     * transmit process suspended.
     */
    public long txUnderflows() {
        return txUnderflows;
    }

    /**
     * Frames (and underflow fragments) sent while the PHY had no carrier (cable unplugged, segment down): lost on the
     * wire, TDES0 = NC|LO|ES.
     */
    public long txNoCarrier() {
        return txNoCarrier;
    }

    /** Transmit descriptors consumed (OWN cleared). */
    public long txDescriptors() {
        return txDescriptors;
    }

    /** Frames looped back to our own receiver (CSR6.OM loopback) instead of the wire. */
    public long txLoopback() {
        return txLoopback;
    }

    /** Frames from the wire ignored because CSR6.OM selected a loopback mode. */
    public long rxDuringLoopback() {
        return rxDuringLoopback.get();
    }

    /** Frames written to receive buffers and handed to the host (truncated ones included). */
    public long rxFrames() {
        return rxFrames;
    }

    /** Bytes written to receive buffers, FCS included. */
    public long rxBytes() {
        return rxBytes;
    }

    /** Frames dropped by the address filter. */
    public long rxFiltered() {
        return rxFiltered;
    }

    /** Frames dropped because the current receive descriptor was host-owned (CSR8 missed-frame count, RU). */
    public long rxMissed() {
        return rxMissed;
    }

    /** Frames cut short because a later descriptor was host-owned (RDES0.DE). */
    public long rxTruncated() {
        return rxTruncated;
    }

    /** Frames received with a bad FCS (RDES0.CE); delivered to the host, flagged. */
    public long rxCrcErrors() {
        return rxCrcErrors;
    }

    /** Runts (under 64 bytes) dropped because CSR6.PB was clear, or too short to carry an address at all. */
    public long rxRunts() {
        return rxRunts;
    }

    /** Frames over 1518 bytes delivered with RDES0.TL. */
    public long rxTooLong() {
        return rxTooLong;
    }

    /** Receive descriptors with both buffer sizes 0, skipped (handed back with DE|ES). */
    public long rxZeroSizeDescriptors() {
        return rxZeroSizeDescriptors;
    }

    /** Receive descriptors handed back. */
    public long rxDescriptors() {
        return rxDescriptors;
    }

    /** Frames still in the receive FIFO when the chip was reset (thrown away). */
    public long rxFlushed() {
        return rxFlushed;
    }

    /** Frames dropped because the receive FIFO was full when they arrived (CSR8 FIFO-overflow count). */
    public long rxFifoOverflows() {
        return rxFifoOverflows.get();
    }

    /** Frames that arrived while the receive process was stopped (CSR6.SR clear): not received. */
    public long rxWhileStopped() {
        return rxWhileStopped.get();
    }

    /**
     * Frames over 2048 bytes that reached a host buffer: cut off by the receive watchdog, their first 2048 bytes
     * received with RDES0.RW (and CSR5.RWT); not counted as {@link #rxFrames()}.
     */
    public long rxOversize() {
        return rxOversize.get();
    }

    /** DMA accesses that missed the DMA space (each one a CSR5.FBE). */
    public long busErrors() {
        return busErrors;
    }

    /** Frames lost to a fatal bus error (the one in flight when it happened). */
    public long busErrorDrops() {
        return busErrorDrops;
    }

    /** CSR3/CSR4 writes ignored because the process was running. */
    public long listBaseWritesIgnored() {
        return listBaseWritesIgnored;
    }

    /** CSR11 general-purpose timer expiries (CSR5.GTE raised). */
    public long gpTimerExpiries() {
        return gpTimerExpiries;
    }

    /** Every receive-side loss in one number: frames that reached the card's PHY and no host buffer in full. */
    public long rxLost() {
        return rxFiltered + rxMissed + rxTruncated + rxRunts + rxFlushed + busErrorDrops + rxFifoOverflows.get()
            + rxWhileStopped.get() + rxOversize.get() + rxDuringLoopback.get();
    }

    /** @return every counter by name, in a stable order (allocates: diagnostics and reports) */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("txFrames", txFrames);
        m.put("txBytes", txBytes);
        m.put("txSetupFrames", txSetupFrames);
        m.put("txSetupRejected", txSetupRejected);
        m.put("txNullDescriptors", txNullDescriptors);
        m.put("txEmptyFrames", txEmptyFrames);
        m.put("txJabber", txJabber);
        m.put("txAbortedFrames", txAbortedFrames);
        m.put("txUnderflowSuspends", txUnderflowSuspends);
        m.put("txUnderflows", txUnderflows);
        m.put("txNoCarrier", txNoCarrier);
        m.put("txDescriptors", txDescriptors);
        m.put("txLoopback", txLoopback);
        m.put("rxFrames", rxFrames);
        m.put("rxBytes", rxBytes);
        m.put("rxFiltered", rxFiltered);
        m.put("rxMissed", rxMissed);
        m.put("rxTruncated", rxTruncated);
        m.put("rxCrcErrors", rxCrcErrors);
        m.put("rxRunts", rxRunts);
        m.put("rxTooLong", rxTooLong);
        m.put("rxZeroSizeDescriptors", rxZeroSizeDescriptors);
        m.put("rxDescriptors", rxDescriptors);
        m.put("rxFlushed", rxFlushed);
        m.put("rxFifoOverflows", rxFifoOverflows.get());
        m.put("rxWhileStopped", rxWhileStopped.get());
        m.put("rxOversize", rxOversize.get());
        m.put("rxDuringLoopback", rxDuringLoopback.get());
        m.put("busErrors", busErrors);
        m.put("busErrorDrops", busErrorDrops);
        m.put("listBaseWritesIgnored", listBaseWritesIgnored);
        m.put("gpTimerExpiries", gpTimerExpiries);
        return m;
    }

    @Override
    public String toString() {
        return "Dec21140Counters" + snapshot();
    }
}
