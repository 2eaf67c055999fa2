package io.nicbridge.bridge.driver.tulip;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import io.nicbridge.bridge.port.PortCounters;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.ListMode;
import java.util.BitSet;

/**
 * The Tulip driver against a hostile card ({@link TestTulip#hostile}): whatever the chip writes into the descriptors it
 * was given (any RDES0 and TDES0, OWN cleared or set, on any descriptor, in any order, and any other descriptor
 * word), whatever CSR5 sources and CSR8 counts it reports and whenever it loses its state (the watchdog's reset
 * path), interleaved with the host's claims (kept across steps, so across resets, or settled at once), commits,
 * aborts, polls, releases, acknowledgements and watchdog ticks:
 * <ul>
 *   <li>no exception escapes the driver;</li>
 *   <li>its port counters and statistics never go back;</li>
 *   <li>every received frame it hands up is a handle the host does not hold already, with a length in
 *       {@code [0, rxBufferSize]} inside its buffer, and a status that is OK only for a one-buffer frame the Linux
 *       accept test passes with a length an Ethernet frame can have;</li>
 *   <li>every claimed transmit buffer is one the host does not hold already, and the host never holds more than
 *       {@link TulipDriver#claimLimit()};</li>
 *   <li>after a reset, every frame the driver re-posts has a length a transmit buffer holds (never a TDES1 the card
 *       wrote), no buffer is posted twice and none the host holds claimed; the claims it holds still commit;</li>
 *   <li>wire order is commit order: as long as the card has written nothing into the transmit list, the frames its
 *       transmit walk sends ({@link TestTulip#transmit()}, from the list base after each reset) are committed ones,
 *       each sent once, in the order of their commits - across resets and claims kept across them too;</li>
 *   <li>no buffer leaks: once the card behaves (hands every descriptor back) and the host gives back what it holds,
 *       every receive descriptor is the card's again after the frames are taken, each frame once, and the host can
 *       claim as many transmit buffers as on a fresh driver.</li>
 * </ul>
 * Corpus: {@code src/test/resources/io/nicbridge/bridge/driver/tulip/TulipDriverFuzzTestInputs/hostileCard/}.
 */
class TulipDriverFuzzTest {
    private static final MacAddress STATION = MacAddress.parse("02:00:00:00:00:42");

    @FuzzTest(maxDuration = "30s")
    void hostileCard(FuzzedDataProvider script) {
        TestTulip card = TestTulip.hostile(STATION);
        int rx = script.consumeInt(2, 8);
        int tx = script.consumeInt(TulipConfig.MIN_TX_RING, 8);
        TulipConfig config = TulipConfig.builder().interruptMode(InterruptMode.POLLING).rxRingSize(rx).txRingSize(tx)
            .listMode(script.consumeBoolean() ? ListMode.RING : ListMode.CHAIN).skipLongwords(script.consumeInt(0, 2))
            .build();
        ManualScheduler scheduler = new ManualScheduler();
        try (TulipDriver d = TulipDriver.open(card, config)) {
            Host host = new Host(d, card, rx, tx);
            card.onSend(host::sent);
            host.behave(); // the card sends the setup frame
            int freshClaims = host.countClaims(); // what a driver whose card behaves gives: the reference
            if (script.consumeBoolean()) {
                d.watchdog(scheduler, scheduler.period());
            }
            for (int step = 0; step < 64 && script.remainingBytes() > 0; step++) {
                switch (script.consumeInt(0, 12)) {
                    case 0 -> host.cardWrite(d.receiveRing(), script.consumeInt(0, rx - 1), 0,
                        script.consumeInt() & (script.consumeBoolean() ? ~RDES0_OWN : -1));
                    case 1 -> host.cardWrite(d.transmitRing(), script.consumeInt(0, tx - 1), 0,
                        script.consumeInt() & (script.consumeBoolean() ? ~TDES0_OWN : -1));
                    case 2 -> host.cardWrite(script.consumeBoolean() ? d.receiveRing() : d.transmitRing(),
                        script.consumeInt(0, Math.max(rx, tx) - 1), script.consumeInt(1, 3), script.consumeInt());
                    case 3 -> card.raise(script.consumeInt());
                    case 4 -> card.missed(script.consumeInt());
                    case 5 -> card.loseState();
                    case 6 -> host.send(script.consumeInt(1, TulipDriver.MAX_FRAME), script.consumeInt(0, 2));
                    case 7 -> host.receive(script.consumeBoolean());
                    case 8 -> host.releaseOne(script.consumeInt(0, rx - 1));
                    case 9 -> d.acknowledge();
                    case 10 -> {
                        long resets = d.statistics().get(TulipStatistics.Counter.CARD_RESETS);
                        scheduler.fire();
                        if (d.statistics().get(TulipStatistics.Counter.CARD_RESETS) != resets) {
                            host.checkRepost();
                        }
                    }
                    case 11 -> host.settleClaim(script.consumeInt(0, tx - 1), script.consumeBoolean(),
                        script.consumeInt(1, TulipDriver.MAX_FRAME));
                    default -> {
                        card.transmit(); // the chip sends what it owns, in list order
                        d.transmitInFlight();
                    }
                }
                host.checkCounters();
            }
            host.behave();
            assertEquals(freshClaims, host.countClaims(), "transmit buffers the host can claim once the card behaves");
        }
    }

    /** The host's side: what it holds, and the checks of what the driver hands it. */
    private static final class Host {
        final TulipDriver d;
        final TestTulip card;
        final int rxCount;
        final int txCount;
        final BitSet rxHeld = new BitSet();
        final BitSet txClaimed = new BitSet();
        /** By transmit buffer bus address: the number of its last commit, or null once sent. */
        final java.util.Map<Long, Long> committed = new java.util.HashMap<>();
        long commits;
        long lastSent = -1;
        /** The card wrote into the transmit list: a chip's walk then says nothing of the driver's order. */
        boolean txTampered;
        final long[] last = new long[9 + TulipStatistics.Counter.values().length];

        Host(TulipDriver d, TestTulip card, int rxCount, int txCount) {
            this.d = d;
            this.card = card;
            this.rxCount = rxCount;
            this.txCount = txCount;
        }

        void cardWrite(Dec21140DescriptorRing ring, int index, int word, int value) {
            if (index < ring.count()) {
                txTampered |= ring == d.transmitRing();
                card.write(ring.busAddress(index) + 4L * word, value, ring.order());
            }
        }

        /** Right after a reset: the transmit ring as re-posted, before the card can write into it. */
        void checkRepost() {
            Dec21140DescriptorRing t = d.transmitRing();
            java.util.Set<Long> buffers = new java.util.HashSet<>();
            for (int i = 0; i < t.count(); i++) {
                int control = t.control(i);
                if ((t.status(i) & TDES0_OWN) == 0 || (control & (TDES1_FS | TDES1_SET)) != TDES1_FS) {
                    continue; // not a frame the driver posted (free, setup or dummy)
                }
                int length = (control & TDES1_TBS1_MASK) >>> TDES1_TBS1_SHIFT;
                assertTrue(length >= 1 && length <= TulipDriver.MAX_FRAME, "re-posted descriptor " + i + " has length "
                    + length + " (TDES1 0x" + Integer.toHexString(control) + ")");
                assertTrue(buffers.add(t.buffer1Address(i)), "buffer 0x" + Long.toHexString(t.buffer1Address(i))
                    + " re-posted twice");
            }
            for (int h = txClaimed.nextSetBit(0); h >= 0; h = txClaimed.nextSetBit(h + 1)) {
                long bus = d.card().dma().busAddress(d.txBuffer(h)); // still the host's: txBuffer does not throw
                assertTrue(!buffers.contains(bus), "TX buffer " + h + " is claimed by the host and re-posted");
            }
        }

        /** Claims a buffer and commits it ({@code settle} 0), aborts it (1) or keeps it claimed (2). */
        void send(int length, int settle) {
            int h = d.claim();
            if (h == FramePort.NONE) {
                return;
            }
            assertTrue(h >= 0 && h < txCount && !txClaimed.get(h), "claim handed out TX handle " + h + " twice");
            assertTrue(d.txBuffer(h).byteSize() >= length);
            switch (settle) {
                case 0 -> commit(h, length);
                case 1 -> d.abort(h);
                default -> {
                    txClaimed.set(h);
                    assertTrue(txClaimed.cardinality() <= d.claimLimit(), "the host holds " + txClaimed
                        + ", more than the claim limit " + d.claimLimit());
                }
            }
        }

        /** Commits (with {@code length}) or aborts one of the claims the host keeps, if it keeps any. */
        void settleClaim(int which, boolean commit, int length) {
            int h = txClaimed.nextSetBit(which);
            if (h < 0) {
                h = txClaimed.nextSetBit(0);
            }
            if (h < 0) {
                return;
            }
            txClaimed.clear(h);
            if (commit) {
                commit(h, length);
            } else {
                d.abort(h);
            }
        }

        void receive(boolean keep) {
            int h = d.poll();
            if (h == FramePort.NONE) {
                return;
            }
            assertTrue(h >= 0 && h < rxCount && !rxHeld.get(h), "poll handed out RX handle " + h + " twice");
            int length = d.rxLength(h);
            int status = d.rxStatus(h);
            int rdes0 = d.rxDescriptorStatus(h);
            assertTrue(length >= 0 && length <= d.config().rxBufferSize() && length <= d.rxBuffer(h).byteSize(),
                "frame length " + length + " of RDES0 0x" + Integer.toHexString(rdes0));
            if (status == FrameStatus.OK) {
                assertTrue((rdes0 & (RDES0_FS | RDES0_LS)) == (RDES0_FS | RDES0_LS)
                        && Dec21140DescriptorRing.isGoodReceive(rdes0) && length <= ETH_MAX_FRAME,
                    "frame passed as OK with RDES0 0x" + Integer.toHexString(rdes0) + ", length " + length);
            }
            if (keep) {
                rxHeld.set(h);
            } else {
                d.release(h);
            }
        }

        void releaseOne(int which) {
            int h = rxHeld.nextSetBit(which % rxCount);
            if (h < 0) {
                h = rxHeld.nextSetBit(0);
            }
            if (h >= 0) {
                rxHeld.clear(h);
                d.release(h);
            }
        }

        /**
         * The card turns honest: the host gives back what it holds (the claims it kept it commits), every transmit
         * descriptor comes back sent and every receive descriptor with a good 64-byte frame; then each receive
         * descriptor yields one frame and all are the card's again.
         */
        void behave() {
            for (int h = rxHeld.nextSetBit(0); h >= 0; h = rxHeld.nextSetBit(h + 1)) {
                d.release(h);
            }
            rxHeld.clear();
            for (int h = txClaimed.nextSetBit(0); h >= 0; h = txClaimed.nextSetBit(h + 1)) {
                commit(h, 64); // a claim kept across a reset still commits
            }
            txClaimed.clear();
            for (int round = 0; round < 2 * txCount && !txTampered; round++) { // the chip's own walk first
                card.transmit();
                d.transmitInFlight();
            }
            for (int round = 0; round < 4; round++) { // frames re-posted after a reset go out in later rounds
                Dec21140DescriptorRing t = d.transmitRing();
                for (int i = 0; i < t.count(); i++) {
                    if (!t.isHostOwned(i)) {
                        card.write(t.busAddress(i), 0, t.order());
                    }
                }
                d.transmitInFlight();
            }
            // The host holds nothing now, so every receive descriptor is the card's or a frame the card handed back
            // and the host has not taken: the card completes all of them with a good frame (re-stating the
            // garbage it had handed back, which the driver would drop as errors).
            Dec21140DescriptorRing r = d.receiveRing();
            for (int i = 0; i < r.count(); i++) {
                card.write(r.busAddress(i), RDES0_FS | RDES0_LS | (64 + ETH_FCS_LEN) << RDES0_FL_SHIFT, r.order());
            }
            int frames = 0;
            StringBuilder taken = new StringBuilder();
            for (int h; (h = d.poll()) != FramePort.NONE; frames++) {
                assertTrue(frames < rxCount, "more frames than receive descriptors");
                taken.append(' ').append(h);
                d.release(h);
            }
            assertEquals(rxCount, frames, "frames taken once the card handed every receive descriptor back (took"
                + taken + "; " + d.statistics() + ")");
            for (int i = 0; i < r.count(); i++) {
                assertTrue(!r.isHostOwned(i), "receive descriptor " + i + " is not the card's again");
            }
        }

        void commit(int h, int length) {
            committed.put(d.card().dma().busAddress(d.txBuffer(h)), commits++);
            d.commit(h, length);
        }

        /** The card's transmit walk sent the frame in the buffer at {@code bus}: the next one committed. */
        void sent(long bus) {
            if (txTampered) {
                return;
            }
            Long n = committed.put(bus, null);
            assertTrue(n != null, "the card sent buffer 0x" + Long.toHexString(bus) + ", which holds no frame committed"
                + " and not sent yet");
            assertTrue(n > lastSent, "frame of commit " + n + " sent after that of commit " + lastSent);
            lastSent = n;
        }

        /** Claims until refused, gives everything back, and says how many it got. */
        int countClaims() {
            BitSet got = new BitSet();
            for (int h; (h = d.claim()) != FramePort.NONE; ) {
                assertTrue(!got.get(h), "claim handed out TX handle " + h + " twice");
                got.set(h);
            }
            for (int h = got.nextSetBit(0); h >= 0; h = got.nextSetBit(h + 1)) {
                d.abort(h);
            }
            return got.cardinality();
        }

        void checkCounters() {
            PortCounters c = d.counters();
            long[] now = new long[last.length];
            long[] port = {c.txFrames(), c.txBytes(), c.txBackPressure(), c.txDrops(), c.txErrors(), c.rxFrames(),
                c.rxBytes(), c.rxDrops(), c.rxErrors()};
            System.arraycopy(port, 0, now, 0, port.length);
            for (TulipStatistics.Counter k : TulipStatistics.Counter.values()) {
                now[port.length + k.ordinal()] = d.statistics().get(k);
            }
            for (int i = 0; i < now.length; i++) {
                assertTrue(now[i] >= last[i], "counter " + i + " went from " + last[i] + " to " + now[i] + ": "
                    + c + ", " + d.statistics());
            }
            System.arraycopy(now, 0, last, 0, now.length);
        }
    }
}
