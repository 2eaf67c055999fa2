package io.nicbridge.bridge.queue;

import static io.nicbridge.bridge.queue.Dec21140DescriptorRing.frameLength;
import static io.nicbridge.bridge.queue.Dec21140DescriptorRing.isGoodReceive;
import static io.nicbridge.bridge.queue.Dec21140DescriptorWalker.*;
import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.memory.BusError;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.Direction;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.ListMode;
import io.nicbridge.contract.Dec21140Desc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The chip's next-descriptor rule (docs/hardware-facts.md A.7) as seen through the host ring and the card walker. */
class Dec21140RingWalkTest {
    private static final long RING_BUS = 0x0010_0000L;
    private static final long BUF_BUS = 0x0020_0000L;

    private Arena arena;
    private MemorySegment ringMemory;
    private MemorySegment buffers;
    private DmaSpace dma;

    @BeforeEach
    void setUp() {
        arena = Arena.ofConfined();
        ringMemory = arena.allocate(8192, 64);
        buffers = arena.allocate(64 * 1024, 64);
        dma = new DmaSpace("21140");
        dma.registerAt("rings", ringMemory, RING_BUS);
        dma.registerAt("buffers", buffers, BUF_BUS);
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    private Dec21140DescriptorWalker walker(Dec21140DescriptorRing ring, int dsl) {
        Dec21140DescriptorWalker w = new Dec21140DescriptorWalker(dma, ring.order());
        w.setSkipLength(dsl);
        w.setListBase(ring.busBase());
        return w;
    }

    private static void armAll(Dec21140DescriptorRing ring) {
        for (int i = 0; i < ring.count(); i++) {
            ring.arm(i, BUF_BUS + 2048L * i, 1536);
        }
    }

    /** Fetches, completes and advances once; returns the bus address of the descriptor it used. */
    private static long step(Dec21140DescriptorWalker w, int status) {
        long at = w.currentAddress();
        assertEquals(FETCH_CARD_OWNED, w.fetch(), "descriptor at 0x" + Long.toHexString(at) + " should be card-owned");
        w.complete(status);
        w.advance();
        return at;
    }

    @Test
    void ringModeWithoutSkipVisitsConsecutiveDescriptorsAndWrapsAtEndOfRing() {
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(ringMemory, RING_BUS, 4, 0, Direction.RECEIVE, ListMode.RING);
        armAll(ring);
        Dec21140DescriptorWalker w = walker(ring, 0);
        for (int i = 0; i < 4; i++) {
            assertEquals(RING_BUS + 16L * i, step(w, RDES0_FS | RDES0_LS | (64 << RDES0_FL_SHIFT)));
        }
        assertEquals(RING_BUS, w.currentAddress(), "end-of-ring (RER) returns to CSR3");
        assertEquals(FETCH_HOST_OWNED, w.fetch(), "the host has not re-armed descriptor 0");
        assertEquals(1, w.hostOwnedFetches());
        for (int i = 0; i < 4; i++) {
            assertTrue(ring.isHostOwned(i));
            assertEquals(64, frameLength(ring.status(i)));
        }
    }

    @Test
    void ringModeWithSkipLengthAddsFourBytesPerSkippedLongword() {
        int dsl = 3;
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(ringMemory, RING_BUS, 5, dsl, Direction.RECEIVE, ListMode.RING);
        assertEquals(28, ring.stride());
        armAll(ring);
        Dec21140DescriptorWalker w = walker(ring, dsl);
        for (int i = 0; i < 5; i++) {
            assertEquals(ring.busAddress(i), step(w, 0));
            assertEquals(RING_BUS + 28L * i, ring.busAddress(i));
        }
        assertEquals(RING_BUS, w.currentAddress());
        assertTrue((ring.control(4) & RDES1_RER) != 0, "only the last descriptor has RER");
        assertEquals(0, ring.control(3) & RDES1_RER);
    }

    @Test
    void ringModeNeverFollowsWordThreeWithoutChainBitAndRbs2ZeroMeansNoBuffer2() {
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(ringMemory, RING_BUS, 4, 0, Direction.RECEIVE, ListMode.RING);
        armAll(ring);
        // Linux style: word 3 of each descriptor holds the next descriptor's address without RCH...
        assertEquals(ring.busAddress(1), ring.word3(0));
        // ...and make word 3 of descriptor 0 point somewhere else entirely: the chip must not follow it.
        ringMemory.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), Dec21140Desc.OFFSET_DES3, (int) ring.busAddress(3));
        Dec21140DescriptorWalker w = walker(ring, 0);
        assertEquals(FETCH_CARD_OWNED, w.fetch());
        assertFalse(w.isChained());
        assertEquals(0, w.buffer2Size(), "RBS2 = 0: no buffer 2");
        assertEquals(1536, w.buffer1Size());
        assertEquals(BUF_BUS, w.buffer1Address());
        assertEquals(ring.busAddress(1), w.nextAddress(), "no chain bit: current + 16, not word 3");
    }

    @Test
    void ringModeWithTwoBuffersReportsBuffer2FromWordThree() {
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(ringMemory, RING_BUS, 2, 0, Direction.RECEIVE, ListMode.RING);
        ring.arm(0, BUF_BUS, 1024, BUF_BUS + 4096, 512);
        Dec21140DescriptorWalker w = walker(ring, 0);
        assertEquals(FETCH_CARD_OWNED, w.fetch());
        assertEquals(1024, w.buffer1Size());
        assertEquals(512, w.buffer2Size());
        assertEquals(BUF_BUS + 4096, w.buffer2Address());
        assertEquals(ring.busAddress(1), w.nextAddress());
    }

    @Test
    void chainModeFollowsWordThreeInWhateverOrderTheHostLinkedThem() {
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(ringMemory, RING_BUS, 4, 0, Direction.RECEIVE, ListMode.CHAIN);
        armAll(ring);
        for (int i = 0; i < 4; i++) {
            assertEquals(RDES1_RCH, ring.control(i) & (RDES1_RCH | RDES1_RER), "chain bit in every descriptor, no RER");
            assertEquals(ring.busAddress((i + 1) % 4), ring.word3(i));
        }
        // Relink 0 -> 2 -> 1 -> 3 -> 0 by rewriting word 3 (a chained list need not be contiguous).
        int[] next = {2, 3, 1, 0};
        for (int i = 0; i < 4; i++) {
            ringMemory.set(ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN), ring.offsetOf(i) + Dec21140Desc.OFFSET_DES3,
                    (int) ring.busAddress(next[i]));
        }
        Dec21140DescriptorWalker w = walker(ring, 7); // DSL is irrelevant in chain mode
        int[] order = {0, 2, 1, 3, 0};
        for (int k = 0; k < 4; k++) {
            assertEquals(ring.busAddress(order[k]), step(w, 0));
            assertFalse(w.isLoaded());
        }
        assertEquals(ring.busAddress(0), w.currentAddress());
    }

    @Test
    void chainBitMakesBuffer2SizeZeroEvenIfTheFieldIsNot() {
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(ringMemory, RING_BUS, 2, 0, Direction.RECEIVE, ListMode.CHAIN);
        ring.arm(0, BUF_BUS, 64);
        int control = ring.control(0) | (100 << RDES1_RBS2_SHIFT);
        ringMemory.set(ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN), Dec21140Desc.OFFSET_DES1, control);
        Dec21140DescriptorWalker w = walker(ring, 0);
        assertEquals(FETCH_CARD_OWNED, w.fetch());
        assertEquals(0, w.buffer2Size());
        assertEquals(ring.busAddress(1), w.nextAddress());
    }

    @Test
    void endOfRingWinsOverChain() {
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(ringMemory, RING_BUS, 4, 0, Direction.RECEIVE, ListMode.CHAIN);
        armAll(ring);
        // Descriptor 1: chain bit, word 3 -> descriptor 3, and end-of-ring as well.
        int control = ring.control(1) | RDES1_RER;
        ringMemory.set(ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN), ring.offsetOf(1) + Dec21140Desc.OFFSET_DES1, control);
        ringMemory.set(ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN), ring.offsetOf(1) + Dec21140Desc.OFFSET_DES3,
                (int) ring.busAddress(3));
        Dec21140DescriptorWalker w = walker(ring, 0);
        step(w, 0);
        assertEquals(FETCH_CARD_OWNED, w.fetch());
        assertTrue(w.isChained() && w.isEndOfRing());
        assertEquals(ring.busAddress(3), w.word3());
        assertEquals(RING_BUS, w.nextAddress(), "RER sends the chip back to CSR3 even though RCH is set");
    }

    @Test
    void listBaseWriteResetsCurrentPointer() {
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(ringMemory, RING_BUS, 4, 0, Direction.RECEIVE, ListMode.RING);
        armAll(ring);
        Dec21140DescriptorWalker w = walker(ring, 0);
        step(w, 0);
        step(w, 0);
        w.setListBase(RING_BUS);
        assertEquals(RING_BUS, w.currentAddress());
        assertFalse(w.isLoaded());
    }

    @Test
    void multiDescriptorTransmitFrameHasFsFirstLsAndIcLastAndIsWalkedInOrder() {
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(ringMemory, RING_BUS, 8, 1, Direction.TRANSMIT, ListMode.RING);
        // A one-descriptor frame first, so the three-descriptor frame wraps nowhere but does not start at 0.
        assertEquals(0, ring.transmit(BUF_BUS, 60, 0, 0, 0));
        assertEquals(1, ring.claimTransmit(3));
        assertEquals(4, ring.freeDescriptors(), "8 - 1 posted - 3 claimed");
        ring.addTransmitBuffers(BUF_BUS + 100, 14, BUF_BUS + 200, 20);
        ring.addTransmitBuffers(BUF_BUS + 300, 1000, 0, 0);
        ring.addTransmitBuffers(BUF_BUS + 1301, 7, 0, 0);
        for (int i = 1; i <= 3; i++) {
            assertTrue(ring.isHostOwned(i), "nothing is handed over before commit");
        }
        assertEquals(1, ring.commitTransmit(TDES1_IC | TDES1_AC));
        assertEquals(TDES1_FS | TDES1_AC, ring.control(1) & (TDES1_FS | TDES1_LS | TDES1_IC | TDES1_AC));
        assertEquals(0, ring.control(2) & (TDES1_FS | TDES1_LS | TDES1_IC | TDES1_AC));
        assertEquals(TDES1_LS | TDES1_IC, ring.control(3) & (TDES1_FS | TDES1_LS | TDES1_IC | TDES1_AC));
        for (int i = 0; i <= 3; i++) {
            assertFalse(ring.isHostOwned(i));
        }
        Dec21140DescriptorWalker w = walker(ring, 1);
        step(w, 0); // the single frame, descriptor 0
        int[] expectedLengths = {14 + 20, 1000, 7};
        for (int k = 0; k < 3; k++) {
            assertEquals(FETCH_CARD_OWNED, w.fetch());
            assertEquals(k == 0, (w.control() & TDES1_FS) != 0);
            assertEquals(k == 2, (w.control() & TDES1_LS) != 0);
            assertEquals(expectedLengths[k], w.buffer1Size() + w.buffer2Size());
            w.complete(k == 2 ? (2 << TDES0_CC_SHIFT) : 0);
            w.advance();
        }
        assertEquals(0, ring.reclaim());
        assertEquals(1, ring.reclaim());
        assertEquals(2, ring.reclaim());
        assertEquals(3, ring.reclaim());
        assertEquals(QueueCode.EMPTY, ring.reclaim());
        assertEquals(2, (ring.status(3) & TDES0_CC_MASK) >>> TDES0_CC_SHIFT);
        assertEquals(8, ring.freeDescriptors());
    }

    @Test
    void transmitFrameWrapsAroundTheRingEnd() {
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(ringMemory, RING_BUS, 4, 0, Direction.TRANSMIT, ListMode.RING);
        Dec21140DescriptorWalker w = walker(ring, 0);
        for (int i = 0; i < 3; i++) {
            ring.transmit(BUF_BUS, 60, 0, 0, 0);
            step(w, 0);
            assertEquals(i, ring.reclaim());
        }
        assertEquals(3, ring.claimTransmit(2));
        ring.addTransmitBuffers(BUF_BUS, 10, 0, 0);
        ring.addTransmitBuffers(BUF_BUS, 20, 0, 0);
        ring.commitTransmit(0);
        assertTrue((ring.control(3) & TDES1_FS) != 0 && (ring.control(0) & TDES1_LS) != 0);
        assertEquals(ring.busAddress(3), step(w, 0));
        assertEquals(ring.busAddress(0), step(w, 0), "TER on descriptor 3 takes the chip back to CSR4");
    }

    @Test
    void busErrorsForUnmappedOrMisalignedDescriptors() {
        Dec21140DescriptorWalker w = new Dec21140DescriptorWalker(dma);
        w.setListBase(0x7000_0000L);
        assertEquals(FETCH_BUS_ERROR, w.fetch());
        w.setListBase(RING_BUS + 2);
        assertEquals(FETCH_BUS_ERROR, w.fetch());
        w.setListBase(RING_BUS + ringMemory.byteSize() - 8); // descriptor straddles the end of the region
        assertEquals(FETCH_BUS_ERROR, w.fetch());
        assertEquals(3, w.busErrors());
        assertEquals(2, dma.busErrors(), "the misaligned pointer never reaches the DMA space; the other two do");
        assertEquals(BusError.OUT_OF_REGION, dma.lastErrorCode());
        assertThrows(IllegalStateException.class, w::control);
    }

    @Test
    void bigEndianDescriptorsPutOwnInTheFirstByte() {
        Dec21140DescriptorRing le = new Dec21140DescriptorRing(ringMemory, RING_BUS, 2, 0, Direction.RECEIVE, ListMode.RING);
        le.arm(0, BUF_BUS, 64);
        assertEquals((byte) 0x80, ringMemory.get(ValueLayout.JAVA_BYTE, 3));
        assertEquals((byte) 0, ringMemory.get(ValueLayout.JAVA_BYTE, 0));

        MemorySegment second = ringMemory.asSlice(4096, 1024);
        Dec21140DescriptorRing be = new Dec21140DescriptorRing(second, RING_BUS + 4096, 2, 0, Direction.RECEIVE,
                ListMode.RING, ByteOrder.BIG_ENDIAN);
        be.arm(0, BUF_BUS, 64);
        assertEquals((byte) 0x80, second.get(ValueLayout.JAVA_BYTE, 0));
        assertEquals(64, second.get(ValueLayout.JAVA_BYTE, 4 + 3), "RBS1 in the low byte, stored last");
        Dec21140DescriptorWalker w = new Dec21140DescriptorWalker(dma, ByteOrder.BIG_ENDIAN);
        w.setListBase(RING_BUS + 4096);
        assertEquals(FETCH_CARD_OWNED, w.fetch());
        assertEquals(64, w.buffer1Size());
        assertEquals(BUF_BUS, w.buffer1Address());
        w.complete(RDES0_FS | RDES0_LS | (68 << RDES0_FL_SHIFT));
        assertTrue(be.isHostOwned(0));
        assertEquals(68, frameLength(be.status(0)));
        assertTrue(isGoodReceive(be.status(0)));
    }

    @Test
    void receiveCursorPostsInRingOrderAndReportsBackPressure() {
        Dec21140DescriptorRing ring = new Dec21140DescriptorRing(ringMemory, RING_BUS, 3, 0, Direction.RECEIVE, ListMode.RING);
        assertEquals(0, ring.postReceive(BUF_BUS, 1536));
        assertEquals(1, ring.postReceive(BUF_BUS + 2048, 1536));
        assertEquals(2, ring.postReceive(BUF_BUS + 4096, 1536));
        assertEquals(QueueCode.FULL, ring.postReceive(BUF_BUS, 1536), "every descriptor is posted");
        assertEquals(QueueCode.EMPTY, ring.reclaim(), "the card still owns descriptor 0");
        Dec21140DescriptorWalker w = walker(ring, 0);
        step(w, RDES0_FS | RDES0_LS | (64 << RDES0_FL_SHIFT));
        assertEquals(0, ring.reclaim());
        assertEquals(64, frameLength(ring.status(0)));
        assertEquals(0, ring.postReceive(BUF_BUS, 1536));
        assertEquals(3, ring.inFlight());
        assertEquals(4, ring.postedDescriptors());
        assertEquals(1, ring.reclaimedDescriptors());
    }

    @Test
    void linuxAcceptanceTest() {
        int good = RDES0_FS | RDES0_LS | (64 << RDES0_FL_SHIFT);
        assertTrue(isGoodReceive(good));
        assertTrue(isGoodReceive(good | RDES0_ES | RDES0_MF), "ES alone is not tested, MF is fine");
        assertFalse(isGoodReceive(good | RDES0_CE));
        assertFalse(isGoodReceive(good | RDES0_DE));
        assertFalse(isGoodReceive(RDES0_FS | (64 << RDES0_FL_SHIFT)), "no LS");
        assertFalse(isGoodReceive(RDES0_FS | RDES0_LS | (2048 << RDES0_FL_SHIFT)), "length bits 29:27");
    }
}
