package io.nicbridge.bridge.driver.medusa;

import static io.nicbridge.bridge.driver.medusa.MedusaStatistics.Counter.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.driver.medusa.MedusaStatistics.CardCounter;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import io.nicbridge.bridge.time.StepScheduler;
import io.nicbridge.contract.Medusa;
import io.nicbridge.contract.MedusaBufStatus;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MedusaDriverTest {
    static final long MAC_A = 0x02_00_00_00_00_0AL;
    static final long MAC_B = 0x02_00_00_00_00_0BL;
    static final long MAC_C = 0x02_00_00_00_00_0CL;
    static final int R = Medusa.REGS_OFS;

    TestMedusaRing ring;
    TestMedusaRing.Station ca;
    TestMedusaRing.Station cb;
    TestMedusaRing.Station cc;

    @BeforeEach
    void setUp() {
        ring = new TestMedusaRing();
        ca = ring.add("medusa-a");
        cb = ring.add("medusa-b");
        cc = ring.add("medusa-c");
    }

    @AfterEach
    void tearDown() {
        ring.close();
    }

    static MedusaConfig config(long mac) {
        return MedusaConfig.builder().stationAddress(mac).receiveBuffers(32).build();
    }

    static MemorySegment bytes(int n, int seed) {
        MemorySegment s = MemorySegment.ofArray(new byte[n]);
        for (int i = 0; i < n; i++) {
            s.set(JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
        return s;
    }

    /** Reference sum: big-endian halfwords by window address parity, as the card's unit sums. */
    static int referenceSum(MemorySegment data, int windowAddress) {
        int acc = 0;
        for (int i = 0; i < data.byteSize(); i++) {
            acc = TestMedusaRing.sumByte(acc, windowAddress + i, data.get(JAVA_BYTE, i));
        }
        return acc;
    }

    @Test
    void initProgramsTheCardPerTheFactSheet() {
        try (MedusaDriver a = MedusaDriver.open(ca, MedusaConfig.builder().stationAddress(MAC_A).receiveBuffers(40)
            .treqMicros(4000).interruptMode(MedusaConfig.InterruptMode.INTERRUPT).build())) {
            int ctrl = ca.reg(Medusa.REG_CTRL);
            assertEquals(Medusa.CTRL_RX_EN | Medusa.CTRL_TX_EN | Medusa.CTRL_RING_JOIN | Medusa.CTRL_FRAME_OFS3
                | Medusa.CTRL_RX_CKSUM_EN, ctrl);
            assertEquals(0x0200, ca.reg(Medusa.REG_MACADDR_HI));
            assertEquals(0x0000000A, ca.reg(Medusa.REG_MACADDR_LO));
            assertEquals(MAC_A, ca.address());
            assertEquals(4000, ca.reg(Medusa.REG_TREQ_US));
            assertEquals(40, ca.free.size, "every receive buffer number went into FREE_FIFO");
            for (int i = 0; i < 40; i++) {
                assertEquals(i, ca.free.slots[i]);
            }
            assertEquals(Medusa.INT_ALL, ca.reg(Medusa.REG_IMR));
            assertEquals(40, a.count(MedusaBufferState.CARD_FREE));
            assertEquals(88, a.count(MedusaBufferState.HOST_TX_FREE));
            assertEquals(88, a.freeTransmitBuffers());
            assertEquals(MedusaBufferState.CARD_FREE, a.ownership(0));
            assertEquals(MedusaBufferState.HOST_TX_FREE, a.ownership(40));
            assertEquals(MedusaDriver.MAX_FRAME, a.maxFrameLength());
        }
        assertEquals(Medusa.CTRL_FRAME_OFS3, ca.reg(Medusa.REG_CTRL), "close leaves the ring");
        assertEquals(0, ca.reg(Medusa.REG_IMR));
    }

    @Test
    void initResetsACardLeftRunningAndHonoursOptions() {
        ca.regs.write(R + Medusa.REG_FREE_FIFO, 99); // stale state from an earlier driver
        try (MedusaDriver a = MedusaDriver.open(ca, MedusaConfig.builder().stationAddress(MAC_A).frameOffset3(false)
            .promiscuous(true).keepFcs(true).receiveChecksum(false).longFrames(true).receiveChecksumStart(13)
            .receiveBuffers(1).build())) {
            assertEquals(1, ca.free.size, "RESET emptied the stale FIFO");
            assertEquals(Medusa.CTRL_RX_EN | Medusa.CTRL_TX_EN | Medusa.CTRL_RING_JOIN | Medusa.CTRL_PROMISC
                | Medusa.CTRL_KEEP_FCS | Medusa.CTRL_LONG_FRAMES, ca.reg(Medusa.REG_CTRL));
            assertEquals(13, ca.reg(Medusa.REG_RXCK_START));
            assertEquals(0, a.frameOffset());
            assertEquals(Medusa.BUF_SIZE - Medusa.FDDI_FCS_LEN, a.maxFrameLength());
            assertEquals(127, a.freeTransmitBuffers());
        }
    }

    @Test
    void singleCopySendIsReceivedInPlaceWithTheCardsChecksums() {
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A));
             MedusaDriver b = MedusaDriver.open(cb, config(MAC_B));
             MedusaDriver c = MedusaDriver.open(cc, config(MAC_C))) {
            MemorySegment header = bytes(35, 7);
            MemorySegment payload = bytes(1000, 3);
            int sum = a.send(MAC_B, Medusa.FC_LLC_ASYNC_DEFAULT, header, 0, 35, payload, 0, 1000);
            int txBuf = 32; // the lowest transmit buffer goes first
            int payloadAddress = txBuf * Medusa.BUF_SIZE + 3 + MedusaDriver.MAC_HEADER + 35;
            assertEquals(referenceSum(payload, payloadAddress), sum, "PIO_CKSUM summed exactly the payload");
            assertEquals(MedusaBufferState.CARD_TX, a.ownership(txBuf));

            assertEquals(FramePort.NONE, c.poll(), "C is not addressed");
            int h = b.poll();
            assertNotEquals(FramePort.NONE, h);
            assertEquals(MedusaBufferState.HOST_RX, b.ownership(h));
            assertEquals(13 + 35 + 1000, b.rxLength(h));
            assertEquals(FrameStatus.OK, b.rxStatus(h));
            assertEquals(MAC_A, b.rxSource(h));
            assertEquals(MAC_B, b.rxDestination(h));
            MemorySegment frame = b.rxBuffer(h);
            assertEquals((byte) Medusa.FC_LLC_ASYNC_DEFAULT, frame.get(JAVA_BYTE, 0));
            assertEquals(-1, frame.asSlice(13, 35).mismatch(header));
            assertEquals(-1, frame.asSlice(48, 1000).mismatch(payload), "payload read in place");
            // RXCK covers bytes from RXCK_START (21) to LEN, summed from an even lane.
            MemorySegment covered = frame.asSlice(21, 13 + 35 + 1000 - 21);
            assertEquals(referenceSum(covered, 0), b.rxChecksum(h));
            b.release(h);
            assertEquals(MedusaBufferState.CARD_FREE, b.ownership(h));
            assertEquals(32, cb.free.size);

            assertEquals(1, a.reclaim());
            assertEquals(MedusaBufferState.HOST_TX_FREE, a.ownership(txBuf));
        }
    }

    @Test
    void copyOutMovesTheFrameToHostMemoryAndSumsIt() {
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A));
             MedusaDriver b = MedusaDriver.open(cb, config(MAC_B))) {
            MemorySegment payload = bytes(3001, 11);
            a.send(MAC_B, Medusa.FC_LLC_ASYNC_DEFAULT, MemorySegment.NULL, 0, 0, payload, 0, 3001);
            int h = b.poll();
            MemorySegment dst = MemorySegment.ofArray(new byte[4000]);
            int sum = b.copyOut(h, 13, dst, 100, 3001);
            assertEquals(-1, dst.asSlice(100, 3001).mismatch(payload));
            assertEquals(referenceSum(payload, h * Medusa.BUF_SIZE + 3 + 13), sum);
            assertEquals(1, b.statistics().get(RX_COPY_OUTS));
            assertEquals(3001, b.statistics().get(PIO_BYTES_OUT));
            assertThrows(IllegalArgumentException.class, () -> b.copyOut(h, 13, dst, 100, 3002), "past the frame");
            assertThrows(IllegalArgumentException.class, () -> b.copyOut(h, -1, dst, 0, 1));
            assertThrows(IllegalArgumentException.class, () -> b.copyOut(h, 0, dst, 3999, 2), "past the destination");
            assertThrows(IllegalArgumentException.class, () -> b.copyOut(h, 0, dst.asReadOnly(), 0, 2));
            b.release(h);
            assertThrows(IllegalStateException.class, () -> b.copyOut(h, 0, dst, 0, 1), "released");
        }
    }

    @Test
    void rawFramesBuiltInPlaceGoThroughClaimAndCommit() {
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A));
             MedusaDriver b = MedusaDriver.open(cb, config(MAC_B))) {
            int h = a.claim();
            MemorySegment tx = a.txBuffer(h);
            assertEquals(a.maxFrameLength(), tx.byteSize());
            tx.set(JAVA_BYTE, 0, (byte) 0x54);
            for (int i = 0; i < 6; i++) {
                tx.set(JAVA_BYTE, 1 + i, (byte) (MAC_B >>> (40 - 8 * i)));
                tx.set(JAVA_BYTE, 7 + i, (byte) (MAC_A >>> (40 - 8 * i)));
            }
            tx.set(JAVA_BYTE, 13, (byte) 0x77);
            a.commit(h, 14);
            assertEquals(14, MedusaBufStatus.len(ca.window, TestMedusaRing.Station.statusOf(h)), "LEN written");
            int r = b.poll();
            assertEquals(14, b.rxLength(r));
            assertEquals((byte) 0x77, b.rxBuffer(r).get(JAVA_BYTE, 13));
            b.release(r);
            assertEquals(1, a.counters().txFrames());
            assertEquals(14, a.counters().txBytes());
            assertEquals(1, b.counters().rxFrames());
        }
    }

    @Test
    void ownershipIsTrackedThroughBackPressureAndReclaim() {
        try (MedusaDriver a = MedusaDriver.open(ca, MedusaConfig.builder().stationAddress(MAC_A).receiveBuffers(124)
            .build());
             MedusaDriver b = MedusaDriver.open(cb, config(MAC_B))) {
            ca.holdTx = true; // the card has not got the token yet: everything stays queued
            MemorySegment p = bytes(64, 1);
            for (int i = 0; i < 4; i++) {
                assertTrue(a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, p, 0, 64) >= 0);
            }
            assertEquals(4, a.count(MedusaBufferState.CARD_TX));
            assertEquals(FramePort.NONE, a.claim(), "no transmit buffer: back-pressure, not an exception");
            assertEquals(FramePort.NONE, a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, p, 0, 64));
            assertEquals(2, a.counters().txBackPressure());
            assertEquals(2, a.statistics().get(TX_BACK_PRESSURE));
            ca.holdTx = false;
            ca.drainTx();
            int h = a.claim(); // reclaims the four TXDONE entries on its way
            assertNotEquals(FramePort.NONE, h);
            assertEquals(4, a.statistics().get(TX_DONE));
            assertEquals(3, a.count(MedusaBufferState.HOST_TX_FREE));
            assertEquals(1, a.count(MedusaBufferState.HOST_CLAIMED));
            a.abort(h);
            assertEquals(4, a.count(MedusaBufferState.HOST_TX_FREE));
            int got = 0;
            for (int r = b.poll(); r != FramePort.NONE; r = b.poll()) {
                b.release(r);
                got++;
            }
            assertEquals(4, got);
        }
    }

    @Test
    void broadcastReachesEveryOtherStationAndForwardPassesABufferOnWithoutCopying() {
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A));
             MedusaDriver b = MedusaDriver.open(cb, config(MAC_B));
             MedusaDriver c = MedusaDriver.open(cc, config(MAC_C))) {
            MemorySegment p = bytes(200, 5);
            a.send(MedusaDriver.BROADCAST, 0x54, MemorySegment.NULL, 0, 0, p, 0, 200);
            int hb = b.poll();
            int hc = c.poll();
            assertNotEquals(FramePort.NONE, hb);
            assertNotEquals(FramePort.NONE, hc);
            assertEquals(FramePort.NONE, a.poll(), "the transmitter strips its own frame");
            assertEquals(MedusaDriver.BROADCAST, b.rxDestination(hb));
            assertEquals(1, a.statistics().get(TX_BROADCASTS));
            c.release(hc);

            // B passes the received buffer on to C in place.
            long outBefore = b.statistics().get(PIO_BYTES_OUT);
            b.forward(hb, MAC_C);
            assertEquals(MedusaBufferState.CARD_TX_FORWARD, b.ownership(hb));
            int h2 = c.poll();
            assertEquals(MAC_B, c.rxSource(h2));
            assertEquals(MAC_C, c.rxDestination(h2));
            assertEquals(-1, c.rxBuffer(h2).asSlice(13, 200).mismatch(p));
            c.release(h2);
            int freeBefore = cb.free.size;
            assertEquals(1, b.reclaim());
            assertEquals(MedusaBufferState.CARD_FREE, b.ownership(hb), "a forwarded buffer returns to FREE");
            assertEquals(freeBefore + 1, cb.free.size);
            assertEquals(outBefore, b.statistics().get(PIO_BYTES_OUT), "forwarding copies nothing out");
            assertEquals(1, b.statistics().get(TX_FORWARDS));
        }
    }

    @Test
    void statisticsCombineCardAndDriverCounters() {
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A));
             MedusaDriver b = MedusaDriver.open(cb, MedusaConfig.builder().stationAddress(MAC_B).receiveBuffers(2)
                 .build())) {
            MemorySegment p = bytes(10, 2);
            for (int i = 0; i < 3; i++) {
                a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, p, 0, 10);
            }
            assertEquals(3, a.statistics().card(CardCounter.FRAMES_TX));
            assertEquals(2, b.statistics().card(CardCounter.FRAMES_RX));
            assertEquals(1, b.statistics().card(CardCounter.NOBUF_DROPS));
            assertEquals(3, a.statistics().get(TX_FRAMES));
            assertEquals(3 * 23, a.statistics().get(TX_BYTES));
            assertEquals(3 * 23, a.statistics().get(PIO_BYTES_IN));
            int isr = b.acknowledge();
            assertTrue((isr & Medusa.INT_RX_DROP_NOBUF) != 0);
            assertEquals(1, b.statistics().get(RX_NOBUF_EVENTS));
            assertEquals(1, b.counters().rxDrops());
            assertEquals(0, cb.reg(Medusa.REG_ISR), "acknowledge cleared what it saw");
            b.poll();
            b.poll();
            assertEquals(2, b.statistics().get(RX_FRAMES));
            assertTrue(b.statistics().toString().contains("rx_frames=2"));
            assertTrue(a.statistics().toString().contains("frames_tx=3"));
        }
    }

    @Test
    void errorStatusIsMappedAndCounted() {
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A));
             MedusaDriver b = MedusaDriver.open(cb, config(MAC_B))) {
            MemorySegment p = bytes(10, 2);
            cb.injectStatBits = Medusa.STAT_FCS_ERR_BIT;
            a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, p, 0, 10);
            cb.injectStatBits = Medusa.STAT_TRUNCATED_BIT;
            a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, p, 0, 10);
            cb.injectStatBits = Medusa.STAT_A_BIT | Medusa.STAT_C_BIT;
            a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, p, 0, 10);
            int h1 = b.poll();
            int h2 = b.poll();
            int h3 = b.poll();
            assertEquals(FrameStatus.CRC_ERROR, b.rxStatus(h1));
            assertEquals(FrameStatus.TRUNCATED, b.rxStatus(h2));
            assertEquals(FrameStatus.OK, b.rxStatus(h3), "A and C indicators are informational");
            assertEquals(1, b.statistics().get(RX_FCS_ERRORS));
            assertEquals(1, b.statistics().get(RX_TRUNCATED));
            assertEquals(2, b.counters().rxErrors());
            assertEquals(1, b.counters().rxFrames(), "an errored frame counts in rxErrors only (MisuseFuzzTest)");
            assertEquals(1, b.statistics().card(CardCounter.FCS_ERRORS));
        }
    }

    @Test
    void fifoEntriesNamingBuffersTheCardDoesNotOwnAreSkipped() {
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A));
             MedusaDriver b = MedusaDriver.open(cb, config(MAC_B))) {
            cb.rx.push(Medusa.FIFO_VALID | 100); // a transmit buffer of B's: never given to the card for RX
            assertEquals(FramePort.NONE, b.poll());
            assertEquals(1, b.statistics().get(RX_BAD_FIFO_ENTRIES));
            assertEquals(MedusaBufferState.HOST_TX_FREE, b.ownership(100));
            ca.txDone.push(Medusa.FIFO_VALID | 5); // a receive buffer of A's: not in transmission
            assertEquals(0, a.reclaim());
            assertEquals(1, a.statistics().get(TX_BAD_FIFO_ENTRIES));
            assertEquals(MedusaBufferState.CARD_FREE, a.ownership(5));
            // A frame the card rejects completes with the TXDONE ERROR bit.
            int h = a.claim();
            a.commit(h, 5); // shorter than FC+DA+SA: the card refuses it
            assertEquals(1, a.reclaim());
            assertEquals(1, a.statistics().get(TX_ERRORS));
            assertEquals(1, a.counters().txErrors());
            assertEquals(MedusaBufferState.HOST_TX_FREE, a.ownership(h));
        }
    }

    /**
     * LEN is the card's word (MedusaDriverFuzzTest's {@code len-past-the-buffer}): a card that says 8191 bytes for a
     * buffer of 8189 (FRAME_OFS 3) had the driver hand out that length as an OK frame, and copyOut read past the
     * buffer by PIO (into the next one; past buffer RAM for the last, into the registers). Now it is a LENGTH_ERROR
     * cut to the buffer, and a frame shorter than the MAC header is one too.
     */
    @Test
    void aLengthNoFrameHasIsALengthErrorCutToTheBuffer() {
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A));
             MedusaDriver b = MedusaDriver.open(cb, MedusaConfig.builder().stationAddress(MAC_B).receiveBuffers(32)
                 .frameOffset3(true).longFrames(true).build())) {
            int[] lengths = {Medusa.LEN_MASK, 12};
            for (int len : lengths) {
                a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, bytes(10, 1), 0, 10);
                int stored = cb.rx.slots[cb.rx.head] & Medusa.FIFO_BUF_MASK;
                MedusaBufStatus.len(cb.window, TestMedusaRing.Station.statusOf(stored), len); // the card's word
                int h = b.poll();
                assertEquals(stored, h);
                assertEquals(FrameStatus.LENGTH_ERROR, b.rxStatus(h), "LEN " + len);
                assertTrue(b.rxLength(h) <= b.rxBuffer(h).byteSize(), b.rxLength(h) + " past the buffer");
                assertEquals(Math.min(len, 8188), b.rxLength(h)); // the longest frame stored: 8192 less the FCS
                MemorySegment out = MemorySegment.ofArray(new byte[b.rxLength(h)]);
                b.copyOut(h, 0, out, 0, b.rxLength(h));
                b.release(h);
            }
            assertEquals(2, b.statistics().get(RX_BAD_LENGTHS));
            assertEquals(2, b.counters().rxErrors());
        }
    }

    @Test
    void interruptModeAwaitWakesOnArrivalAndTimesOut() throws Exception {
        MedusaConfig irq = MedusaConfig.builder().stationAddress(MAC_B).interruptMode(MedusaConfig.InterruptMode.INTERRUPT)
            .build();
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A));
             MedusaDriver b = MedusaDriver.open(cb, irq)) {
            assertEquals(FramePort.NONE, b.await(5, TimeUnit.MILLISECONDS));
            MemorySegment p = bytes(10, 2);
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
                a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, p, 0, 10);
            });
            int h = b.await(5, TimeUnit.SECONDS);
            t.join();
            assertNotEquals(FramePort.NONE, h);
            assertEquals(23, b.rxLength(h));
            assertTrue(cb.line.assertions() > 0);
        }
    }

    @Test
    void anInterruptListenerRunsOnTheCardsEdgeAndMaySendFromThere() {
        MedusaConfig irq = MedusaConfig.builder().stationAddress(MAC_B).interruptMode(MedusaConfig.InterruptMode.INTERRUPT)
            .build();
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A));
             MedusaDriver b = MedusaDriver.open(cb, irq)) {
            int[] seen = new int[2];
            b.onInterrupt((d, isr) -> {
                seen[1] |= isr;
                for (int h = d.poll(); h != FramePort.NONE; h = d.poll()) {
                    seen[0]++;
                    d.forward(h, MAC_A); // echo in place from the handler
                }
            });
            a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, bytes(40, 1), 0, 40);
            assertEquals(1, seen[0]);
            assertTrue((seen[1] & Medusa.INT_RX_READY) != 0);
            int h = a.poll();
            assertEquals(MAC_B, a.rxSource(h));
            assertTrue(b.statistics().get(INTERRUPTS) >= 1);
            b.onInterrupt(null);
            assertThrows(IllegalStateException.class, () -> a.onInterrupt((d, isr) -> { }), "a polls");
        }
    }

    @Test
    void badInputAtTheDriverApiIsRejectedWithAClearMessage() {
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A));
             MedusaDriver b = MedusaDriver.open(cb, config(MAC_B))) {
            MemorySegment p = bytes(100, 1);
            assertThrows(IllegalStateException.class, () -> a.txBuffer(-1));
            assertThrows(IllegalStateException.class, () -> a.txBuffer(128));
            assertThrows(IllegalStateException.class, () -> a.commit(40, 10), "not claimed");
            assertThrows(IllegalStateException.class, () -> a.commit(3, 10), "a receive buffer");
            assertThrows(IllegalArgumentException.class, () -> a.ownership(128));
            int h = a.claim();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.commit(h, 0));
            assertTrue(e.getMessage().contains("outside [1, 4496]"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> a.commit(h, 4497), "over 4500 with the FCS");
            a.abort(h);
            assertThrows(IllegalStateException.class, () -> a.abort(h), "double abort");
            assertThrows(IllegalArgumentException.class,
                () -> a.send(1L << 48, 0x54, MemorySegment.NULL, 0, 0, p, 0, 10), "address over 48 bits");
            assertThrows(IllegalArgumentException.class,
                () -> a.send(MAC_B, 0x154, MemorySegment.NULL, 0, 0, p, 0, 10), "FC not a byte");
            assertThrows(IllegalArgumentException.class,
                () -> a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, p, 50, 51), "past the payload");
            assertThrows(IllegalArgumentException.class,
                () -> a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, p, 0, -1), "negative length");
            assertThrows(IllegalArgumentException.class,
                () -> a.send(MAC_B, 0x54, null, 0, 5, p, 0, 10), "null header");
            MemorySegment big = MemorySegment.ofArray(new byte[5000]);
            e = assertThrows(IllegalArgumentException.class,
                () -> a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, big, 0, 4484));
            assertTrue(e.getMessage().contains("exceeds the 4496-byte maximum"), e.getMessage());
            assertEquals(0, a.count(MedusaBufferState.HOST_CLAIMED), "a rejected send claims nothing");
            assertEquals(96, a.freeTransmitBuffers());

            a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, p, 0, 10);
            int r = b.poll();
            b.release(r);
            assertThrows(IllegalStateException.class, () -> b.release(r), "double release: not the host's");
            assertThrows(IllegalStateException.class, () -> b.rxLength(r));
            assertThrows(IllegalStateException.class, () -> b.forward(r, MAC_A));
            assertThrows(IllegalStateException.class, () -> b.rxBuffer(7), "never received");

            assertThrows(IllegalArgumentException.class, () -> MedusaConfig.builder().receiveBuffers(128));
            assertThrows(IllegalArgumentException.class, () -> MedusaConfig.builder().receiveBuffers(0));
            assertThrows(IllegalArgumentException.class, () -> MedusaConfig.builder().stationAddress(0x01_00_00_00_00_01L),
                "group address");
            assertThrows(IllegalArgumentException.class, () -> MedusaConfig.builder().treqMicros(0));
        }
        MedusaDriver closed = MedusaDriver.open(ca, config(MAC_A));
        closed.close();
        closed.close();
        assertThrows(IllegalStateException.class, closed::claim);
        assertThrows(IllegalStateException.class, closed::poll);
    }

    /** Found by MisuseFuzzTest: a buffer claimed before close could still be committed, and went out on the ring. */
    @Test
    void handlesHeldAtCloseAreVoid() {
        MedusaDriver b = MedusaDriver.open(cb, config(MAC_B));
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A))) {
            a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, bytes(10, 1), 0, 10);
            int held = b.poll();
            int claimed = a.claim();
            a.close();
            b.close();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.commit(claimed, 20));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            assertThrows(IllegalStateException.class, () -> a.txBuffer(claimed));
            assertThrows(IllegalStateException.class, () -> b.forward(held, MAC_A));
            assertThrows(IllegalStateException.class, () -> b.release(held));
            assertThrows(IllegalStateException.class, () -> b.rxChecksum(held));
            assertEquals(1, a.counters().txFrames(), "nothing sent after close");
        }
    }

    @Test
    void openRefusesACardThatIsNotAMedusa() {
        ca.regs.storeRaw(R + Medusa.REG_ID, 0x12345678);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> MedusaDriver.open(ca, config(MAC_A)));
        assertTrue(e.getMessage().contains("MDSA"), e.getMessage());
    }

    @Test
    void sendAndReceivePathsDoNotAllocate() {
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A));
             MedusaDriver b = MedusaDriver.open(cb, config(MAC_B))) {
            MemorySegment p = MemorySegment.ofArray(new byte[256]);
            MemorySegment dst = MemorySegment.ofArray(new byte[256]);
            Runnable round = () -> {
                a.send(MAC_B, 0x54, MemorySegment.NULL, 0, 0, p, 0, 256);
                int h = b.poll();
                b.copyOut(h, 13, dst, 0, 256);
                b.release(h);
                a.reclaim();
            };
            for (int i = 0; i < 20_000; i++) {
                round.run();
            }
            com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                round.run();
            }
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            assertTrue(allocated < 10_000, "allocated " + allocated + " bytes over 10000 rounds");
        }
    }

    /**
     * The watchdog finds the card reset, and the card never clears CTRL.RESET: in an empty virtual world the reset
     * wait gives up exactly at its 1 s deadline (it used to give up one nanosecond past it, by a deadline event
     * armed there) and leaves no deadline event behind although it throws. The preemptive budget turns a hang into
     * a failure.
     */
    @Test
    void aCardThatNeverLeavesResetTimesOutAtTheResetDeadlineInVirtualTime() {
        try (MedusaDriver a = MedusaDriver.open(ca, config(MAC_A))) {
            StepScheduler world = new StepScheduler(); // the waits' world: nothing in it but their deadline events
            a.timeOn(world, world::step);
            StepScheduler watchdogClock = new StepScheduler(); // ticks from the test, outside the world's events
            a.watchdog(watchdogClock, 1_000_000);
            ca.stuckInReset = true;
            ca.regs.storeRaw(R + Medusa.REG_CTRL, Medusa.CTRL_RESET_VALUE); // a reset the driver did not ask for

            IllegalStateException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertThrows(IllegalStateException.class, watchdogClock::step));
            assertTrue(e.getMessage().contains("CTRL.RESET did not self-clear"), e.getMessage());
            assertEquals(1, a.statistics().get(CARD_RESETS));
            assertEquals(TimeUnit.SECONDS.toNanos(1), world.nanoTime(), "gave up exactly at the deadline");
            assertEquals(Long.MAX_VALUE, world.nextEventTime(), "the deadline event is cancelled although it threw");
        }
    }
}
