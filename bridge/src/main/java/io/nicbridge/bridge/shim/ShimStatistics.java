package io.nicbridge.bridge.shim;

import io.nicbridge.contract.NicShimStats;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A snapshot of {@code nicshim_stats_t}: the shim's counters since open (see nicshim.h for what each counts).
 * Reusable: {@link NativeShim#statistics(ShimStatistics)} overwrites it without allocating.
 */
public final class ShimStatistics {
    /** Number of uint64 counters in {@code nicshim_stats_t} (ABI 1.4: the fault counters took the reserved words). */
    static final int COUNTERS = (int) (NicShimStats.BYTE_SIZE / Long.BYTES);

    private final long[] values = new long[COUNTERS];

    void load(MemorySegment stats) {
        MemorySegment.copy(stats, ValueLayout.JAVA_LONG, 0, values, 0, COUNTERS);
    }

    private long at(long offset) {
        return values[(int) (offset / Long.BYTES)];
    }

    public long txFrames() { return at(NicShimStats.OFFSET_TX_FRAMES); }
    public long txBytes() { return at(NicShimStats.OFFSET_TX_BYTES); }
    public long rxFrames() { return at(NicShimStats.OFFSET_RX_FRAMES); }
    public long rxBytes() { return at(NicShimStats.OFFSET_RX_BYTES); }
    public long rxMissed() { return at(NicShimStats.OFFSET_RX_MISSED); }
    public long rxDropFilter() { return at(NicShimStats.OFFSET_RX_DROP_FILTER); }
    public long rxDropKernel() { return at(NicShimStats.OFFSET_RX_DROP_KERNEL); }
    public long rxDropTruncated() { return at(NicShimStats.OFFSET_RX_DROP_TRUNCATED); }
    public long rxDropTooLong() { return at(NicShimStats.OFFSET_RX_DROP_TOO_LONG); }
    public long rxDropBadFrame() { return at(NicShimStats.OFFSET_RX_DROP_BAD_FRAME); }
    public long rxDropNoChannel() { return at(NicShimStats.OFFSET_RX_DROP_NO_CHANNEL); }
    public long txDropTooLong() { return at(NicShimStats.OFFSET_TX_DROP_TOO_LONG); }
    public long txDropKernel() { return at(NicShimStats.OFFSET_TX_DROP_KERNEL); }
    public long txBadDescriptor() { return at(NicShimStats.OFFSET_TX_BAD_DESCRIPTOR); }
    public long busErrors() { return at(NicShimStats.OFFSET_BUS_ERRORS); }
    public long linkChanges() { return at(NicShimStats.OFFSET_LINK_CHANGES); }
    public long kicks() { return at(NicShimStats.OFFSET_KICKS); }
    public long polls() { return at(NicShimStats.OFFSET_POLLS); }
    public long interrupts() { return at(NicShimStats.OFFSET_INTERRUPTS); }
    public long cardErrors() { return at(NicShimStats.OFFSET_CARD_ERRORS); }
    /** Frames the fault injector ({@link ShimFaults}) dropped, both directions. */
    public long faultDrops() { return at(NicShimStats.OFFSET_FAULT_DROPS); }
    /** Frames the fault injector sent or delivered twice. */
    public long faultDuplicates() { return at(NicShimStats.OFFSET_FAULT_DUPLICATES); }
    /** Frames the fault injector held back behind the next one. */
    public long faultReorders() { return at(NicShimStats.OFFSET_FAULT_REORDERS); }
    /** Frames the fault injector corrupted (one payload byte inverted). */
    public long faultCorrupts() { return at(NicShimStats.OFFSET_FAULT_CORRUPTS); }

    /** Every fault the shim injected. */
    public long faultsInjected() {
        return faultDrops() + faultDuplicates() + faultReorders() + faultCorrupts();
    }

    /** Every receive the shim dropped for any reason (kernel, filter, missed, truncated, too long, bad, no channel). */
    public long rxDropped() {
        return rxMissed() + rxDropFilter() + rxDropKernel() + rxDropTruncated() + rxDropTooLong() + rxDropBadFrame()
            + rxDropNoChannel();
    }

    @Override
    public String toString() {
        return "ShimStatistics[tx " + txFrames() + " frames/" + txBytes() + " B, rx " + rxFrames() + " frames/"
            + rxBytes() + " B, rx missed " + rxMissed() + ", filter " + rxDropFilter() + ", kernel " + rxDropKernel()
            + ", truncated " + rxDropTruncated() + ", too long " + rxDropTooLong() + ", bad " + rxDropBadFrame()
            + ", no channel " + rxDropNoChannel() + ", tx too long " + txDropTooLong() + ", tx kernel "
            + txDropKernel() + ", bad descriptors " + txBadDescriptor() + ", bus errors " + busErrors()
            + ", card errors " + cardErrors() + ", link changes " + linkChanges() + ", kicks " + kicks() + ", polls "
            + polls() + ", interrupts " + interrupts() + ", faults: dropped " + faultDrops() + ", duplicated "
            + faultDuplicates() + ", reordered " + faultReorders() + ", corrupted " + faultCorrupts() + "]";
    }
}
