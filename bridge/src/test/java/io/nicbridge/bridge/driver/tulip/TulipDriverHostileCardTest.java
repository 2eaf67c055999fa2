package io.nicbridge.bridge.driver.tulip;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.driver.tulip.TulipStatistics.Counter;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The driver bugs {@link TulipDriverFuzzTest} found (issue 22), each as a plain scenario on {@link TestTulip#hostile}:
 * the card does exactly what the test writes, so each test states the chip's misbehaviour and what the driver must do.
 */
class TulipDriverHostileCardTest {
    private static final MacAddress STATION = MacAddress.parse("02:00:00:00:00:42");
    private static final int TX_RING = 4;

    private final TestTulip card = TestTulip.hostile(STATION);
    private final ManualScheduler scheduler = new ManualScheduler();

    private TulipDriver open() {
        return open(TX_RING);
    }

    private TulipDriver open(int txRing) {
        TulipDriver d = TulipDriver.open(card, TulipConfig.builder().interruptMode(InterruptMode.POLLING)
            .rxRingSize(4).txRingSize(txRing).build());
        d.watchdog(scheduler, scheduler.period());
        completeTransmit(d); // the setup frame of open()
        assertEquals(0, d.transmitInFlight());
        return d;
    }

    /** Claims a buffer, marks it with {@code tag} in its first byte and commits {@code length} bytes. */
    private static void send(TulipDriver d, int tag, int length) {
        int h = d.claim();
        assertNotEquals(FramePort.NONE, h, "claim refused");
        d.txBuffer(h).set(ValueLayout.JAVA_BYTE, 0, (byte) tag);
        d.commit(h, length);
    }

    /** The chip loses its state (a bus reset) and the watchdog's next tick finds it. */
    private void resetAndTick(TulipDriver d) {
        long before = d.statistics().get(Counter.CARD_RESETS);
        card.loseState();
        scheduler.fire();
        assertEquals(before + 1, d.statistics().get(Counter.CARD_RESETS), "the watchdog found the reset");
    }

    /**
     * The chip's transmit process walks its list from where it is (entry 0 after a reset), sends what it owns and
     * suspends at the first descriptor it does not own; the host reclaims, which posts frames waiting since a reset,
     * and the chip is asked again. Returns the buffer addresses of the frames (not setup or dummy) sent, in wire
     * order.
     */
    private List<Long> completeTransmit(TulipDriver d) {
        List<Long> sent = new ArrayList<>();
        card.onSend(sent::add);
        for (int round = 0; round < 2 * TX_RING; round++) { // waiting frames are posted as these come back
            int before = d.transmitInFlight();
            card.transmit();
            d.transmitInFlight(); // reclaims, and posts what waits
            if (before == 0) {
                break;
            }
        }
        card.onSend(bus -> { });
        return sent;
    }

    /** Claims until refused, gives everything back, and says how many it got. */
    private static int countClaims(TulipDriver d) {
        List<Integer> claimed = new ArrayList<>();
        for (int h; (h = d.claim()) != FramePort.NONE; ) {
            claimed.add(h);
        }
        claimed.forEach(d::abort);
        return (int) claimed.stream().distinct().count();
    }

    /** Bug 1: the length of a re-posted frame came from TDES1, which the card can write. */
    @Test
    void aFrameRepostedAfterAResetHasItsCommittedLengthNotTheOneTheCardWroteIntoTdes1() {
        try (TulipDriver d = open()) {
            send(d, 1, TulipDriver.MAX_FRAME);
            Dec21140DescriptorRing t = d.transmitRing();
            int posted = 1; // entry 0 held the setup frame
            assertEquals(TulipDriver.MAX_FRAME, t.control(posted) & TDES1_TBS1_MASK);
            // The chip scribbles a 2000-byte length into TDES1 (a buffer holds 1514), then loses its state.
            card.write(t.busAddress(posted) + 4, t.control(posted) & ~TDES1_TBS1_MASK | 2000, t.order());
            resetAndTick(d);
            // Re-posted behind the setup frame, at entry 1 again, with the length commit() was given.
            assertEquals(TDES1_SET, t.control(0) & TDES1_SET, "entry 0 is the new setup frame");
            assertEquals(TDES1_FS | TDES1_LS | TulipDriver.MAX_FRAME,
                t.control(1) & (TDES1_FS | TDES1_LS | TDES1_TBS1_MASK), "TDES1 of the re-posted frame");
            assertEquals(1, completeTransmit(d).size());
        }
    }

    /**
     * Bug 2: a second reset while frames still waited to be re-posted posted one of them twice (programChip's
     * reclaim ran the re-post with the books of the first reset over a compacted array), and a third overran the
     * array: ArrayIndexOutOfBoundsException out of the watchdog's tick.
     */
    @Test
    void repeatedResetsRepostEveryAcceptedFrameOnceInCommitOrder() {
        try (TulipDriver d = open()) {
            List<Long> committed = new ArrayList<>();
            Dec21140DescriptorRing t = d.transmitRing();
            for (int k = 0; k < TX_RING; k++) { // the whole ring: after a reset one frame has to wait beside the setup
                int d0 = (1 + k) % TX_RING;
                send(d, k, 100 + k);
                committed.add(t.buffer1Address(d0));
            }
            assertEquals(FramePort.NONE, d.claim(), "ring full");
            for (int reset = 1; reset <= 3; reset++) {
                resetAndTick(d);
                assertEquals(TX_RING + 1, d.transmitInFlight(), "after reset " + reset + ": the setup frame and "
                    + TX_RING + " frames, in the ring or waiting");
                assertEquals(TDES1_SET, t.control(0) & TDES1_SET, "after reset " + reset + ": setup frame at entry 0");
                for (int i = 1; i < TX_RING; i++) {
                    assertEquals(committed.get(i - 1), t.buffer1Address(i), "after reset " + reset + ", entry " + i);
                    assertEquals(100 + i - 1, t.control(i) & TDES1_TBS1_MASK, "after reset " + reset + ", entry " + i);
                }
            }
            assertEquals(committed, completeTransmit(d), "each accepted frame sent once, in commit order");
            assertEquals(0, d.transmitInFlight());
            List<Integer> claimed = new ArrayList<>();
            for (int h; claimed.size() <= TX_RING && (h = d.claim()) != FramePort.NONE; ) {
                claimed.add(h);
            }
            assertEquals(TX_RING - 1, claimed.size(), "transmit buffers the host can claim again: as many as on a fresh"
                + " driver (the ring less the setup frame's entry), once each");
            assertEquals(TX_RING - 1, claimed.stream().distinct().count());
            claimed.forEach(d::abort);
            assertEquals(3, d.statistics().get(Counter.CARD_RESETS));
        }
    }

    /**
     * Bug 4: with every transmit buffer claimed (each claim reserves a descriptor for its commit) a reset left the
     * fresh ring no entry for the setup frame, and the watchdog's tick threw IllegalStateException out of programChip.
     * Now claims stop one short of the ring, so the chip is programmed and the claims the host holds still commit.
     */
    @Test
    void aResetWhileTheHostHoldsEveryBufferItCanClaimReprogramsTheChipAndTheClaimsStillCommit() {
        int ring = TulipConfig.MIN_TX_RING;
        try (TulipDriver d = open(ring)) {
            List<Integer> held = new ArrayList<>();
            for (int h; held.size() < ring && (h = d.claim()) != FramePort.NONE; ) {
                held.add(h);
            }
            resetAndTick(d); // threw IllegalStateException with `ring` claims held
            Dec21140DescriptorRing t = d.transmitRing();
            assertEquals(TDES1_SET, t.control(0) & TDES1_SET, "entry 0 is the new setup frame");
            assertEquals(1, d.transmitInFlight(), "only the setup frame: nothing had been committed");
            assertEquals(ring - 1, held.size(), "claims held at once: the ring less the setup frame's entry");
            assertEquals(d.claimLimit(), held.size());
            List<Long> committed = new ArrayList<>();
            for (int k = 0; k < held.size(); k++) {
                d.txBuffer(held.get(k)).set(ValueLayout.JAVA_BYTE, 0, (byte) k);
                d.commit(held.get(k), 60 + k);
                committed.add(t.buffer1Address(1 + k)); // behind the setup frame, in commit order
                assertEquals(60 + k, t.control(1 + k) & TDES1_TBS1_MASK);
            }
            assertEquals(committed, completeTransmit(d), "each claimed frame sent once, in commit order");
            assertEquals(0, d.transmitInFlight());
            assertEquals(1, d.statistics().get(Counter.CARD_RESETS));
            // And the ring turns on: three frames, one at a time, through the wrap.
            for (int k = 0; k < ring; k++) {
                send(d, k, 64);
                assertEquals(1, completeTransmit(d).size());
            }
        }
    }

    /**
     * Bug 5: a claim kept across a reset and committed afterwards went into the descriptor it had reserved, ahead of
     * older frames still waiting to be re-posted: on the wire it overtook them. Now a commit while frames wait goes
     * behind them in the (circular) re-post queue, so wire order is commit order.
     */
    @Test
    void aClaimKeptAcrossAResetAndCommittedAfterItGoesOnTheWireBehindTheOlderFramesStillWaiting() {
        try (TulipDriver d = open()) {
            Dec21140DescriptorRing t = d.transmitRing();
            List<Long> committed = new ArrayList<>();
            for (int k = 0; k < TX_RING - 1; k++) { // entries 1..3: the ring less the setup frame's entry
                send(d, k, 100 + k);
                committed.add(t.buffer1Address(1 + k));
            }
            int kept = d.claim(); // reserves the last free descriptor
            assertNotEquals(FramePort.NONE, kept);
            resetAndTick(d);
            // The fresh ring: setup at 0, two of the three frames, and the kept claim's reservation; one frame waits.
            assertEquals(TX_RING, d.transmitInFlight(), "the setup frame and three frames, in the ring or waiting");
            committed.add(d.card().dma().busAddress(d.txBuffer(kept)));
            d.commit(kept, 60);
            assertEquals(committed, completeTransmit(d), "each frame sent once, in commit order");
            assertEquals(0, d.transmitInFlight());
            assertEquals(TX_RING - 1, countClaims(d), "and every buffer can be claimed again");
        }
    }

    /**
     * A chip that sent frames and handed them back, then lost its state before the host reclaimed them: the reset
     * re-posted them (the driver collected every descriptor posted and not reclaimed), so they went out twice, behind
     * younger frames. Now what the chip handed back is reclaimed as sent and only the rest is re-posted.
     */
    @Test
    void framesTheChipHandedBackBeforeAResetAreNotSentAgain() {
        try (TulipDriver d = open()) {
            Dec21140DescriptorRing t = d.transmitRing();
            List<Long> sent = new ArrayList<>();
            card.onSend(sent::add);
            send(d, 1, 100);
            send(d, 2, 101);
            long first = t.buffer1Address(1);
            long second = t.buffer1Address(2);
            assertEquals(2, card.transmit());
            send(d, 3, 102); // posted at entry 3, not sent: the chip loses its state first
            long third = t.buffer1Address(3);
            resetAndTick(d);
            assertEquals(2, d.transmitInFlight(), "the setup frame and the frame the chip had not sent");
            sent.addAll(completeTransmit(d));
            assertEquals(List.of(first, second, third), sent, "each frame once, in commit order");
            assertEquals(3, d.counters().txFrames());
        }
    }

    /**
     * Bug 3: a card that set OWN on a receive descriptor the host held made release() throw IllegalStateException.
     * Now the driver counts a protocol violation, takes the descriptor back and re-arms it.
     */
    @Test
    void aCardThatSetsOwnOnADescriptorTheHostHoldsIsCountedAndReleaseRearmsIt() {
        try (TulipDriver d = open()) {
            Dec21140DescriptorRing r = d.receiveRing();
            card.write(r.busAddress(0), RDES0_FS | RDES0_LS | (64 + ETH_FCS_LEN) << RDES0_FL_SHIFT, r.order());
            int h = d.poll();
            assertEquals(0, h);
            assertEquals(64, d.rxLength(h));
            card.write(r.busAddress(0), RDES0_OWN, r.order()); // the card takes back what it had handed over
            d.release(h);
            assertEquals(1, d.statistics().get(Counter.CARD_PROTOCOL_VIOLATIONS));
            assertEquals(RDES0_OWN, r.status(0), "re-armed: the card's again");
            assertEquals(d.config().rxBufferSize(), r.control(0) & RDES1_RBS1_MASK);
            // And the ring works on: the next frames arrive at entries 1 and 0 after a wrap.
            for (int i = 1; i < r.count(); i++) {
                card.write(r.busAddress(i), RDES0_FS | RDES0_LS | (64 + ETH_FCS_LEN) << RDES0_FL_SHIFT, r.order());
                assertEquals(i, d.poll());
                d.release(i);
            }
            card.write(r.busAddress(0), RDES0_FS | RDES0_LS | (64 + ETH_FCS_LEN) << RDES0_FL_SHIFT, r.order());
            assertEquals(0, d.poll());
            d.release(0);
            assertEquals(1, d.statistics().get(Counter.CARD_PROTOCOL_VIOLATIONS), "honest releases count nothing");
        }
    }
}
