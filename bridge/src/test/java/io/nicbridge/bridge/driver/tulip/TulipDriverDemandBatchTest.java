package io.nicbridge.bridge.driver.tulip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.port.FramePort;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link TulipDriver#transmitDemandBatch}: the transmit poll demand (CSR1) once per N commits, the batch taken by
 * the card in one pass, nothing stranded (a refused claim and {@link TulipDriver#flush()} ring it), frames in order.
 * The self-looping stand-in sends on each demand, so "sent" here means "the chip was told".
 */
class TulipDriverDemandBatchTest {
    private static final MacAddress MAC = MacAddress.parse("02:00:00:00:00:09");
    private static final TulipConfig CONFIG = TulipConfig.builder().interruptMode(InterruptMode.POLLING)
        .rxRingSize(64).txRingSize(16).build();

    @Test
    void aBatchGoesOutOnItsLastCommitInOnePass() {
        TestTulip card = TestTulip.selfLoop(MAC);
        try (TulipDriver d = TulipDriver.open(card, CONFIG)) {
            long demandsBefore = d.transmitDemands();
            long loopedBefore = card.framesLooped();
            d.transmitDemandBatch(4);
            for (int i = 0; i < 3; i++) {
                send(d, i);
            }
            assertEquals(loopedBefore, card.framesLooped(), "three of a batch of four: the chip was not told yet");
            assertEquals(FramePort.NONE, d.poll());
            send(d, 3);
            assertEquals(loopedBefore + 4, card.framesLooped(), "the fourth commit rings CSR1 for all four");
            assertEquals(demandsBefore + 1, d.transmitDemands());
            assertEquals(List.of(0, 1, 2, 3), receive(d, 4));
        }
    }

    @Test
    void flushRingsForAPartialBatchAndIsANoOpWithoutOne() {
        TestTulip card = TestTulip.selfLoop(MAC);
        try (TulipDriver d = TulipDriver.open(card, CONFIG)) {
            d.transmitDemandBatch(8);
            send(d, 10);
            send(d, 11);
            long demands = d.transmitDemands();
            d.flush();
            assertEquals(demands + 1, d.transmitDemands());
            assertEquals(List.of(10, 11), receive(d, 2));
            d.flush();
            assertEquals(demands + 1, d.transmitDemands(), "nothing waiting: no demand");
        }
    }

    @Test
    void aRefusedClaimRingsTheDemandSoNothingWaitsForAFullBatch() {
        TestTulip card = TestTulip.selfLoop(MAC);
        try (TulipDriver d = TulipDriver.open(card, CONFIG)) {
            d.transmitDemandBatch(16); // the whole ring: only back-pressure or flush can send
            for (int i = 0; i < 10; i++) {
                send(d, i);
            }
            assertEquals(FramePort.NONE, d.poll(), "ten of a batch of sixteen: not sent yet");
            // Claims held uncommitted use up the six descriptors left; the seventh is refused, and the refusal rings
            // CSR1 for the ten waiting (a sender that backs off on NONE must not wait for ever).
            List<Integer> held = new ArrayList<>();
            int h;
            while ((h = d.claim()) != FramePort.NONE) {
                held.add(h);
            }
            assertEquals(6, held.size());
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), receive(d, 10));
            held.forEach(d::abort);
            assertTrue(d.claim() != FramePort.NONE, "the sent descriptors are reclaimed");
        }
    }

    @Test
    void aStreamInBatchesArrivesWholeAndInOrderWithADemandPerBatch() {
        TestTulip card = TestTulip.selfLoop(MAC);
        try (TulipDriver d = TulipDriver.open(card, CONFIG)) {
            d.transmitDemandBatch(8);
            long demands = d.transmitDemands();
            List<Integer> got = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                send(d, i);
                got.addAll(receive(d, -1));
            }
            d.flush();
            got.addAll(receive(d, -1));
            assertEquals(100, got.size());
            for (int i = 0; i < 100; i++) {
                assertEquals(i, got.get(i), "frame order");
            }
            assertEquals(100 / 8 + 1, d.transmitDemands() - demands, "12 full batches and the flush of 4");
        }
    }

    @Test
    void theBatchIsOneUpToTheTransmitRing() {
        try (TulipDriver d = TulipDriver.open(TestTulip.selfLoop(MAC), CONFIG)) {
            assertThrows(IllegalArgumentException.class, () -> d.transmitDemandBatch(0));
            assertThrows(IllegalArgumentException.class, () -> d.transmitDemandBatch(17));
            d.transmitDemandBatch(16);
            d.transmitDemandBatch(1);
            long demands = d.transmitDemands();
            send(d, 5);
            assertEquals(demands + 1, d.transmitDemands(), "a batch of one rings on every commit");
        }
    }

    @Test
    void settingASmallerBatchSendsWhatWaited() {
        TestTulip card = TestTulip.selfLoop(MAC);
        try (TulipDriver d = TulipDriver.open(card, CONFIG)) {
            d.transmitDemandBatch(8);
            send(d, 1);
            d.transmitDemandBatch(1);
            assertEquals(List.of(1), receive(d, 1));
        }
    }

    private static void send(TulipDriver d, int seq) {
        int h = d.claim();
        assertTrue(h != FramePort.NONE, "claim refused");
        fill(d, h, seq);
        d.commit(h, 64);
    }

    private static void fill(TulipDriver d, int h, int seq) {
        MemorySegment b = d.txBuffer(h);
        MacAddress.write(MAC.value(), b, 0);
        b.set(ValueLayout.JAVA_INT_UNALIGNED, 14, seq);
    }

    /** The sequence numbers of the frames waiting: exactly {@code n}, or all of them with n = -1. */
    private static List<Integer> receive(TulipDriver d, int n) {
        List<Integer> got = new ArrayList<>();
        for (int r; (n < 0 || got.size() < n) && (r = d.poll()) != FramePort.NONE; ) {
            got.add(d.rxBuffer(r).get(ValueLayout.JAVA_INT_UNALIGNED, 14));
            d.release(r);
        }
        if (n >= 0) {
            assertEquals(n, got.size(), "frames received");
        }
        return got;
    }
}
