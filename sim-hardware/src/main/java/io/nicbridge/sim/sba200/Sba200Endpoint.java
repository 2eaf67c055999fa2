package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.UG_OFS;
import static io.nicbridge.contract.Sba200Unet.UG_UPCALL_PENDING_OFS;

import io.nicbridge.bridge.regs.Registers;
import java.lang.foreign.MemorySegment;

/**
 * What a process owns of a U-Net endpoint on the emulated SBA-200, as the {@link UnetKernel} handed it out after
 * EP_CREATE: its endpoint page (a 4 KiB slice of board RAM - EPCB, send queue, free queue - and no other byte of
 * the board), its communication segment and its receive queue in host memory. Build the bridge's user-side views
 * over them: {@code new UnetSendQueue(page())}, {@code new UnetFreeQueue(page())},
 * {@code new UnetReceiveQueue(receiveQueue(), 0, receiveQueueLength(), page())}.
 *
 * <p>The page is memory, so the process's {@code sq_prod} store cannot trap: after pushing a send descriptor it
 * rings {@link #doorbell()}, which stands for the i960 noticing the new producer index on its next polling pass
 * (a threaded engine's i960 thread polls by itself as well). Hot-path methods allocate nothing.
 */
public final class Sba200Endpoint {
    private final int number;
    private final Sba200Model model;
    private final MemorySegment page;
    private final MemorySegment segment;
    private final long segmentBusAddress;
    private final MemorySegment receiveQueue;
    private final int receiveQueueLength;
    private final Registers ram;
    private final int bit;

    Sba200Endpoint(int number, Sba200Model model, MemorySegment segment, long segmentBusAddress,
                   MemorySegment receiveQueue, int receiveQueueLength) {
        this.number = number;
        this.model = model;
        this.page = model.endpointPage(number);
        this.segment = segment;
        this.segmentBusAddress = segmentBusAddress;
        this.receiveQueue = receiveQueue;
        this.receiveQueueLength = receiveQueueLength;
        this.ram = model.ram();
        this.bit = 1 << number;
    }

    /** The endpoint number (0..31) on its card. */
    public int number() {
        return number;
    }

    /** The endpoint page mapping: exactly 4 KiB. */
    public MemorySegment page() {
        return page;
    }

    /** The communication segment (host memory, pinned and mapped into the card's DMA space). */
    public MemorySegment segment() {
        return segment;
    }

    public long segmentBusAddress() {
        return segmentBusAddress;
    }

    /** The receive queue in host memory: {@link #receiveQueueLength()} x 64-byte descriptors, written by card DMA. */
    public MemorySegment receiveQueue() {
        return receiveQueue;
    }

    public int receiveQueueLength() {
        return receiveQueueLength;
    }

    /** Tells the i960 that the send queue has new descriptors (allocation-free, any thread). */
    public void doorbell() {
        model.doorbell();
    }

    /**
     * The kernel's upcall delivery for this endpoint: true when the card set this endpoint's bit in the UG
     * upcall-pending mask.
     */
    public boolean upcallPending() {
        return (ram.loadRaw(UG_OFS + UG_UPCALL_PENDING_OFS) & bit) != 0;
    }

    /** Clears this endpoint's pending bit (write 1 to clear), before draining the receive queue. */
    public void clearUpcallPending() {
        ram.writeRelease(UG_OFS + UG_UPCALL_PENDING_OFS, bit);
    }

    @Override
    public String toString() {
        return "Sba200Endpoint[" + model.name() + " ep " + number + ", segment " + segment.byteSize() + " B, rq "
            + receiveQueueLength + "]";
    }
}
