package io.nicbridge.bridge.queue;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.memory.BusError;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.memory.DmaView;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.Direction;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.ListMode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Misuse at the ring and walker API boundaries fails with a message that names the problem. */
class Dec21140BadInputTest {
    private static final long BUS = 0x1000;
    private Arena arena;
    private MemorySegment memory;

    @BeforeEach
    void setUp() {
        arena = Arena.ofConfined();
        memory = arena.allocate(4096, 16);
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    private static void assertMessage(Class<? extends Throwable> type, String fragment, Executable call) {
        Throwable t = assertThrows(type, call);
        assertTrue(t.getMessage().contains(fragment), () -> "message '" + t.getMessage() + "' should mention '" + fragment + "'");
    }

    private Dec21140DescriptorRing rx(ListMode mode) {
        return new Dec21140DescriptorRing(memory, BUS, 8, 0, Direction.RECEIVE, mode);
    }

    @Test
    void segmentTooSmallForTheDescriptors() {
        // 8 descriptors at DSL 4 need 7 * 32 + 16 = 240 bytes.
        MemorySegment small = memory.asSlice(0, 239);
        assertMessage(IllegalArgumentException.class, "segment holds only 239 bytes",
                () -> new Dec21140DescriptorRing(small, BUS, 8, 4, Direction.RECEIVE, ListMode.RING));
        assertDoesNotThrow(() -> new Dec21140DescriptorRing(memory.asSlice(0, 240), BUS, 8, 4, Direction.RECEIVE, ListMode.RING));
    }

    @Test
    void misalignedSegmentOrBusAddress() {
        assertMessage(IllegalArgumentException.class, "4-byte aligned",
                () -> new Dec21140DescriptorRing(memory.asSlice(2), BUS, 4, 0, Direction.RECEIVE, ListMode.RING));
        assertMessage(IllegalArgumentException.class, "longword aligned",
                () -> new Dec21140DescriptorRing(memory, BUS + 1, 4, 0, Direction.RECEIVE, ListMode.RING));
        assertMessage(IllegalArgumentException.class, "below 4 GiB",
                () -> new Dec21140DescriptorRing(memory, 0xFFFF_FFF0L, 4, 0, Direction.RECEIVE, ListMode.RING));
        assertMessage(IllegalArgumentException.class, "4-byte aligned",
                () -> new Dec21140DescriptorRing(MemorySegment.ofArray(new byte[256]), BUS, 4, 0, Direction.RECEIVE, ListMode.RING));
    }

    @Test
    void badGeometry() {
        assertMessage(IllegalArgumentException.class, "at least 1 descriptor",
                () -> new Dec21140DescriptorRing(memory, BUS, 0, 0, Direction.RECEIVE, ListMode.RING));
        assertMessage(IllegalArgumentException.class, "CSR0.DSL",
                () -> new Dec21140DescriptorRing(memory, BUS, 4, 32, Direction.RECEIVE, ListMode.RING));
        assertMessage(IllegalArgumentException.class, "CSR0.DSL",
                () -> new Dec21140DescriptorWalker(new DmaSpace("21140")).setSkipLength(-1));
    }

    @Test
    void indexOutOfRange() {
        Dec21140DescriptorRing ring = rx(ListMode.RING);
        assertMessage(IndexOutOfBoundsException.class, "0..7, was 8", () -> ring.arm(8, 0x2000, 64));
        assertMessage(IndexOutOfBoundsException.class, "0..7, was -1", () -> ring.isHostOwned(-1));
        assertMessage(IndexOutOfBoundsException.class, "0..7, was 9", () -> ring.status(9));
    }

    @Test
    void receiveBufferSizes() {
        Dec21140DescriptorRing ring = rx(ListMode.RING);
        assertMessage(IllegalArgumentException.class, "multiple of 4", () -> ring.arm(0, 0x2000, 1537));
        assertMessage(IllegalArgumentException.class, "at most 2047", () -> ring.arm(0, 0x2000, 2048));
        assertMessage(IllegalArgumentException.class, "at most 2047", () -> ring.arm(0, 0x2000, 0));
        assertMessage(IllegalArgumentException.class, "multiple of 4", () -> ring.arm(0, 0x2000, 64, 0x3000, 6));
        assertMessage(IllegalArgumentException.class, "longword aligned", () -> ring.arm(0, 0x2002, 64));
        assertMessage(IllegalArgumentException.class, "32-bit bus range", () -> ring.arm(0, 0xFFFF_FF00L, 1024));
        assertMessage(IllegalArgumentException.class, "chain mode", () -> rx(ListMode.CHAIN).arm(0, 0x2000, 64, 0x3000, 64));
        assertTrue(ring.isHostOwned(0), "rejected input wrote nothing");
        assertEquals(0, ring.postedDescriptors());
    }

    @Test
    void armingACardOwnedDescriptorIsRefused() {
        Dec21140DescriptorRing ring = rx(ListMode.RING);
        ring.arm(3, 0x2000, 64);
        assertMessage(IllegalStateException.class, "owned by the card", () -> ring.arm(3, 0x2000, 64));
    }

    @Test
    void transmitLengthsAndSequence() {
        Dec21140DescriptorRing tx = new Dec21140DescriptorRing(memory, BUS, 8, 0, Direction.TRANSMIT, ListMode.RING);
        assertMessage(IllegalArgumentException.class, "0..2047, was 2048", () -> tx.transmit(0x2000, 2048, 0, 0, 0));
        assertMessage(IllegalArgumentException.class, "0..2047, was -1", () -> tx.transmit(0x2000, 10, 0x3000, -1, 0));
        assertMessage(IllegalArgumentException.class, "transmit flags", () -> tx.transmit(0x2000, 10, 0, 0, TDES1_TER));
        assertMessage(IllegalStateException.class, "without claimTransmit", () -> tx.addTransmitBuffers(0x2000, 1, 0, 0));
        assertMessage(IllegalStateException.class, "without claimTransmit", () -> tx.commitTransmit(0));
        assertMessage(IllegalArgumentException.class, "1..8 descriptors", () -> tx.claimTransmit(9));
        tx.claimTransmit(2);
        tx.addTransmitBuffers(0x2000, 1, 0, 0);
        assertMessage(IllegalStateException.class, "only 1 of 2", () -> tx.commitTransmit(0));
        assertMessage(IllegalStateException.class, "already claimed", () -> tx.claimTransmit(1));
        tx.addTransmitBuffers(0x2000, 1, 0, 0);
        assertMessage(IllegalStateException.class, "already have buffers", () -> tx.addTransmitBuffers(0x2000, 1, 0, 0));
        tx.abortTransmit();
        assertTrue(tx.isHostOwned(0) && tx.isHostOwned(1), "an aborted frame was never handed over");
        assertMessage(IllegalStateException.class, "RECEIVE operation", () -> tx.arm(0, 0x2000, 64));
        assertMessage(IllegalStateException.class, "TRANSMIT operation", () -> rx(ListMode.RING).claimTransmit(1));
        Dec21140DescriptorRing chained = new Dec21140DescriptorRing(memory, BUS, 8, 0, Direction.TRANSMIT, ListMode.CHAIN);
        assertMessage(IllegalArgumentException.class, "chain mode", () -> chained.transmit(0x2000, 10, 0x3000, 10, 0));
    }

    @Test
    void transmitBackPressureIsAReturnValue() {
        Dec21140DescriptorRing tx = new Dec21140DescriptorRing(memory, BUS, 4, 0, Direction.TRANSMIT, ListMode.RING);
        assertEquals(0, tx.claimTransmit(3));
        tx.abortTransmit();
        for (int i = 0; i < 4; i++) {
            assertEquals(i, tx.transmit(0x2000, 60, 0, 0, 0));
        }
        assertEquals(QueueCode.FULL, tx.transmit(0x2000, 60, 0, 0, 0));
        assertEquals(QueueCode.FULL, tx.claimTransmit(1));
    }

    @Test
    void walkerRefusesOwnInStatusAndUseBeforeFetch() {
        DmaSpace dma = new DmaSpace("21140");
        dma.registerAt("ring", memory, BUS);
        Dec21140DescriptorRing ring = rx(ListMode.RING);
        ring.arm(0, 0x2000, 64);
        Dec21140DescriptorWalker w = new Dec21140DescriptorWalker(dma);
        w.setListBase(BUS);
        assertThrows(IllegalStateException.class, () -> w.complete(0));
        assertThrows(IllegalStateException.class, w::nextAddress);
        assertEquals(Dec21140DescriptorWalker.FETCH_CARD_OWNED, w.fetch());
        assertMessage(IllegalArgumentException.class, "OWN", () -> w.complete(RDES0_OWN | 5));
        assertFalse(ring.isHostOwned(0));
        w.complete(5);
        assertTrue(ring.isHostOwned(0));
        ring.arm(0, 0x2000, 64); // the host re-arms at once
        assertMessage(IllegalStateException.class, "already handed back", () -> w.complete(6));
        assertFalse(ring.isHostOwned(0), "the second completion did not steal the re-armed descriptor");
    }

    @Test
    void dmaSpaceAsDmaViewReportsBusErrorCodesAndSnapshotsKeepTheirIndices() {
        DmaSpace space = new DmaSpace("21140");
        DmaView dma = space;
        space.registerAt("ring", memory, 0x2000);
        assertEquals(BusError.NO_REGION, dma.translate(0x1FFF, 1));
        assertEquals(BusError.OUT_OF_REGION, dma.translate(0x2000 + 4090, 16));
        assertEquals(BusError.BAD_LENGTH, dma.translate(0x2000, -1));
        assertEquals(BusError.ADDRESS_WRAP, dma.translate(0xFFFF_FFF8L, 16));
        assertEquals(0, dma.translate(0x2000 + 4080, 16));
        assertEquals(4080, dma.offset(0, 0x2000 + 4080));
        assertEquals(memory, dma.region(0));
        assertThrows(IndexOutOfBoundsException.class, () -> dma.region(1));

        // A snapshot is one immutable table: registering a region below shifts the live indices, not its.
        DmaView before = dma.snapshot();
        assertSame(before, before.snapshot());
        MemorySegment low = arena.allocate(4096, 16);
        space.registerAt("low", low, BUS);
        assertEquals(1, dma.translate(0x2000, 16), "the live table now has 'low' at index 0");
        assertEquals(0, before.translate(0x2000, 16));
        assertEquals(memory, before.region(0));
        assertEquals(BusError.NO_REGION, before.translate(BUS, 16), "the old table never saw 'low'");

        // The walker takes one snapshot per fetch, so a descriptor list in a newly registered region is found.
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(low, BUS, 2, 0, Direction.RECEIVE, ListMode.RING);
        ring.arm(0, 0x2000, 64);
        Dec21140DescriptorWalker w = new Dec21140DescriptorWalker(space);
        w.setListBase(BUS);
        assertEquals(Dec21140DescriptorWalker.FETCH_CARD_OWNED, w.fetch());
        space.unregister(BUS);
        w.setListBase(BUS);
        assertEquals(Dec21140DescriptorWalker.FETCH_BUS_ERROR, w.fetch(), "an unregistered list is a bus error");
        assertEquals(BusError.NO_REGION, space.lastErrorCode());
    }
}
