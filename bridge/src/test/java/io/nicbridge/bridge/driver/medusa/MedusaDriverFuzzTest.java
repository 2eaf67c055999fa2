package io.nicbridge.bridge.driver.medusa;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.bridge.driver.medusa.TestMedusaRing.Station;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import io.nicbridge.contract.Medusa;
import io.nicbridge.contract.MedusaBufStatus;
import java.lang.foreign.MemorySegment;

/**
 * The Medusa driver against a hostile card: station A's card ({@link TestMedusaRing}) pushes any word into RX_FIFO
 * and TXDONE_FIFO (any buffer number, VALID and ERROR bits or not, a buffer the host holds or sends), writes any
 * LEN, STAT and RXCK into any buffer's status entry and sets any ISR bits, between honest traffic with station B
 * both ways, polls, copies out, releases, forwards, claims, commits, aborts, reclaims and acknowledgements, with or
 * without long frames, FRAME_OFS 3 and kept FCS:
 * <ul>
 *   <li>nothing thrown but the documented refusals;</li>
 *   <li>no buffer handed to the application twice (poll never returns a handle it holds, claim never one it holds
 *       or that is received);</li>
 *   <li>a received length never reaches past its buffer, and a frame is OK only with a length a frame can have
 *       (the MAC header up to the largest frame the configuration receives); copyOut of the whole frame reads
 *       the buffer's own bytes;</li>
 *   <li>the driver's counters never go back;</li>
 *   <li>once the card behaves (the FIFOs drained of what it made up) and the application gives everything back, a
 *       frame from B arrives at A whole and one from A at B, and every receive buffer is the card's again.</li>
 * </ul>
 * Corpus: {@code src/test/resources/io/nicbridge/bridge/driver/medusa/MedusaDriverFuzzTestInputs/hostileCard/}.
 */
class MedusaDriverFuzzTest {
    private static final long MAC_A = 0x0000_5A00_0001L;
    private static final long MAC_B = 0x0000_5A00_0002L;
    private static final int RX_BUFFERS = 16;

    @FuzzTest(maxDuration = "30s")
    void hostileCard(FuzzedDataProvider script) {
        MedusaConfig config = MedusaConfig.builder().stationAddress(MAC_A).receiveBuffers(RX_BUFFERS)
            .longFrames(script.consumeBoolean()).frameOffset3(script.consumeBoolean()).keepFcs(script.consumeBoolean())
            .build();
        try (TestMedusaRing ring = new TestMedusaRing()) {
            Station a = ring.add("a");
            Station b = ring.add("b");
            MedusaDriver da = MedusaDriver.open(a, a, config);
            MedusaDriver db = MedusaDriver.open(b, b, MedusaConfig.builder().stationAddress(MAC_B)
                .receiveBuffers(RX_BUFFERS).build());
            Host host = new Host(a, da, db);
            for (int step = 0; step < 64 && script.remainingBytes() > 0; step++) {
                host.step(script);
                host.checkCounters();
            }
            host.behaveAndExchange();
            da.close();
            db.close();
        }
    }

    /** The application on A (and B's, which only sends and drains), and the checks of A's driver. */
    private static final class Host {
        final Station a;
        final MedusaDriver da;
        final MedusaDriver db;
        final MedusaConfig config;
        final boolean[] heldRx = new boolean[Medusa.BUF_COUNT];
        final boolean[] claimed = new boolean[Medusa.BUF_COUNT];
        final long[] last = new long[MedusaStatistics.Counter.values().length];
        final MemorySegment payload = MemorySegment.ofArray(new byte[Medusa.BUF_SIZE]);
        final MemorySegment copy = MemorySegment.ofArray(new byte[Medusa.BUF_SIZE]);

        Host(Station a, MedusaDriver da, MedusaDriver db) {
            this.a = a;
            this.da = da;
            this.db = db;
            this.config = da.config();
            for (int i = 0; i < Medusa.BUF_SIZE; i++) {
                payload.set(JAVA_BYTE, i, (byte) (i * 13 + 7));
            }
        }

        /**
         * The longest frame A's card may store (C.2): 4500 bytes, 8192 with long frames, less the FCS unless it is
         * kept, and no more than the buffer holds behind FRAME_OFS.
         */
        int receiveLimit() {
            int ring = config.longFrames() ? 8192 : 4500;
            return Math.min(Medusa.BUF_SIZE - config.frameOffset(), config.keepFcs() ? ring : ring - 4);
        }

        void step(FuzzedDataProvider script) {
            int n = script.consumeInt(0, Medusa.BUF_COUNT - 1);
            switch (script.consumeInt(0, 12)) {
                case 0 -> hostileRxEntry(script.consumeInt());
                case 1 -> {
                    if (a.txDone.size < Medusa.FIFO_DEPTH) {
                        a.txDone.push(script.consumeInt());
                    }
                }
                case 2 -> {
                    long e = Station.statusOf(n);
                    MedusaBufStatus.len(a.window, e, script.consumeInt());
                    MedusaBufStatus.stat(a.window, e, script.consumeInt());
                    MedusaBufStatus.rxck(a.window, e, script.consumeInt());
                }
                case 3 -> a.raise(script.consumeInt() & Medusa.INT_ALL);
                case 4 -> db.send(MAC_A, Medusa.FC_LLC_ASYNC_DEFAULT, payload, 0, 0, payload, 0,
                    script.consumeInt(0, Medusa.MAX_FRAME - Medusa.FDDI_FCS_LEN - 13));
                case 5 -> {
                    int h = da.send(script.consumeBoolean() ? MAC_B : MedusaDriver.BROADCAST,
                        Medusa.FC_LLC_ASYNC_DEFAULT, payload, 0, 0, payload, 0, script.consumeInt(0, 600));
                    assertTrue(h >= 0 || h == FramePort.NONE, "send returned " + h);
                }
                case 6 -> poll();
                case 7 -> {
                    if (heldRx[n]) {
                        heldRx[n] = false;
                        da.release(n);
                    }
                }
                case 8 -> {
                    if (heldRx[n]) {
                        int length = da.rxLength(n);
                        heldRx[n] = false;
                        if (length < Medusa.FDDI_MAC_HEADER_LEN || length > config.maxFrameLength()) {
                            heldRx[n] = true;
                            try {
                                da.forward(n, MAC_B);
                                throw new AssertionError("forwarded a " + length + "-byte frame");
                            } catch (IllegalArgumentException refused) {
                                return; // documented: only frames of [13, maxFrame] bytes
                            }
                        }
                        da.forward(n, MAC_B);
                    }
                }
                case 9 -> {
                    int h = da.claim();
                    if (h != FramePort.NONE) {
                        assertTrue(!claimed[h] && !heldRx[h], "claim handed out buffer " + h + " it holds");
                        claimed[h] = true;
                    }
                }
                case 10 -> {
                    if (claimed[n]) {
                        claimed[n] = false;
                        if (script.consumeBoolean()) {
                            da.abort(n);
                        } else {
                            MemorySegment.copy(payload, 0, da.txBuffer(n), 0, 64);
                            da.commit(n, script.consumeInt(13, 64));
                        }
                    }
                }
                case 11 -> da.reclaim();
                default -> {
                    da.acknowledge();
                    drainB();
                }
            }
        }

        /** A made-up RX_FIFO entry: a card that claims to have stored a frame takes the free buffer it names. */
        void hostileRxEntry(int word) {
            if (a.rx.size == Medusa.FIFO_DEPTH) {
                return;
            }
            int n = word & Medusa.FIFO_BUF_MASK;
            if ((word & Medusa.FIFO_VALID) != 0) {
                TestMedusaRing.Fifo free = a.free;
                for (int k = 0; k < free.size; k++) { // keep the FREE FIFO free of duplicates, as a real card would
                    if (free.slots[(free.head + k) % free.slots.length] == n) {
                        for (int j = k; j < free.size - 1; j++) {
                            free.slots[(free.head + j) % free.slots.length] =
                                free.slots[(free.head + j + 1) % free.slots.length];
                        }
                        free.size--;
                        break;
                    }
                }
            }
            a.rx.push(word);
        }

        /** Polls A once and checks what it hands out. @return the handle, or NONE */
        int poll() {
            int h = da.poll();
            if (h == FramePort.NONE) {
                return h;
            }
            assertTrue(h >= 0 && h < Medusa.BUF_COUNT && !heldRx[h] && !claimed[h], "poll handed out buffer " + h
                + " twice");
            heldRx[h] = true;
            int length = da.rxLength(h);
            MemorySegment buffer = da.rxBuffer(h);
            assertTrue(length >= 0 && length <= buffer.byteSize(), "received length " + length + " reaches past its "
                + buffer.byteSize() + "-byte buffer");
            if (da.rxStatus(h) == FrameStatus.OK) {
                assertTrue(length >= 13 && length <= receiveLimit(), "OK frame of " + length + " bytes (limit "
                    + receiveLimit() + ")");
            }
            da.copyOut(h, 0, copy, 0, length);
            assertArrayEquals(buffer.asSlice(0, length).toArray(JAVA_BYTE), copy.asSlice(0, length).toArray(JAVA_BYTE),
                "copyOut read other bytes than the frame's buffer holds");
            return h;
        }

        void drainB() {
            db.reclaim();
            for (int h = db.poll(); h != FramePort.NONE; h = db.poll()) {
                db.release(h);
            }
        }

        void checkCounters() {
            for (MedusaStatistics.Counter c : MedusaStatistics.Counter.values()) {
                long v = da.statistics().get(c);
                assertTrue(v >= last[c.ordinal()], c + " went from " + last[c.ordinal()] + " to " + v);
                last[c.ordinal()] = v;
            }
        }

        /** The card behaves from now on: what it made up is drained, everything given back, then real traffic. */
        void behaveAndExchange() {
            while (a.rx.size > 0) { // a made-up entry without VALID reads as an empty FIFO: poll again behind it
                poll();
                checkCounters();
            }
            while (a.txDone.size > 0) {
                da.reclaim();
            }
            for (int n = 0; n < Medusa.BUF_COUNT; n++) {
                if (heldRx[n]) {
                    heldRx[n] = false;
                    da.release(n);
                }
                if (claimed[n]) {
                    claimed[n] = false;
                    da.abort(n);
                }
            }
            drainB();
            checkCounters();
            assertEquals(RX_BUFFERS, da.count(MedusaBufferState.CARD_FREE) + da.count(MedusaBufferState.HOST_RX),
                "receive buffers lost");

            // B -> A: a frame whose bytes A reads back whole
            int sent = db.send(MAC_A, Medusa.FC_LLC_ASYNC_DEFAULT, payload, 0, 0, payload, 100, 200);
            assertNotEquals(FramePort.NONE, sent, "B could not send");
            int h = poll();
            assertNotEquals(FramePort.NONE, h, "A received nothing from a card that behaves (free FIFO " + a.free.size
                + ", RX FIFO " + a.rx.size + ", CTRL 0x" + Integer.toHexString(a.reg(Medusa.REG_CTRL)) + ", "
                + da.statistics() + ")");
            assertEquals(FrameStatus.OK, da.rxStatus(h));
            assertEquals(MAC_B, da.rxSource(h));
            assertEquals(13 + 200, da.rxLength(h)); // the test ring stores no FCS, kept or not
            assertArrayEquals(payload.asSlice(100, 200).toArray(JAVA_BYTE),
                da.rxBuffer(h).asSlice(13, 200).toArray(JAVA_BYTE));
            heldRx[h] = false;
            da.release(h);

            // A -> B
            assertNotEquals(FramePort.NONE, da.send(MAC_B, Medusa.FC_LLC_ASYNC_DEFAULT, payload, 0, 0, payload, 0, 50),
                "A could not send");
            int hb = db.poll();
            assertNotEquals(FramePort.NONE, hb, "B received nothing from A");
            assertEquals(13 + 50, db.rxLength(hb));
            db.release(hb);
            assertEquals(RX_BUFFERS, da.count(MedusaBufferState.CARD_FREE), "every receive buffer is the card's");
            checkCounters();
        }
    }
}
