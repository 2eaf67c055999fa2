package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Buffer ownership and bad input: every case has a defined outcome (ISR bits, TXDONE ERROR, counters). */
class MedusaOwnershipTest {
    static final int LOOP = CTRL_RX_EN | CTRL_TX_EN | CTRL_LOOPBACK | CTRL_FRAME_OFS3;

    EmulatedTestbed bed;
    MedusaHost h;

    @BeforeEach
    void setUp() {
        bed = EmulatedTestbed.create(EngineMode.INLINE, 0);
        h = new MedusaHost(bed.medusa("m", bed.fddiRing("fddi0"), MedusaHost.mac(1)));
    }

    @AfterEach
    void tearDown() {
        bed.close();
    }

    @ParameterizedTest
    @ValueSource(ints = {128, 129, 255, 0x100, 0x8000_0005, -1, Integer.MAX_VALUE})
    void outOfRangeBufferNumbersAreRejectedWithoutQueueing(int value) {
        h.write(REG_CTRL, CTRL_FRAME_OFS3); // TX disabled, so anything accepted would stay visible in the level
        h.write(REG_TX_FIFO, value);
        h.write(REG_FREE_FIFO, value);
        assertEquals(0, h.read(REG_FIFO_LEVEL));
        assertEquals(INT_TX_ERR | INT_RX_ERR, h.read(REG_ISR));
        assertEquals(1, h.card.model().rejectedTxPushes());
        assertEquals(1, h.card.model().rejectedFreePushes());
        assertEquals(0, h.card.model().counter(REG_CNT_TX_ERRORS), "nothing was queued, so no TX completion error");
    }

    @Test
    void aBufferInTheFreeFifoIsTheCards() {
        h.write(REG_FREE_FIFO, 7);
        h.write(REG_FREE_FIFO, 7);
        h.write(REG_TX_FIFO, 7);
        assertEquals(1 << FIFO_LEVEL_FREE_SHIFT, h.read(REG_FIFO_LEVEL), "one FREE entry, nothing queued for TX");
        assertEquals(INT_TX_ERR | INT_RX_ERR, h.read(REG_ISR));
        assertEquals(1, h.card.model().rejectedFreePushes());
        assertEquals(1, h.card.model().rejectedTxPushes());
    }

    @Test
    void aBufferBetweenTxFifoAndTxdoneIsTheCardsThenTheHostsAgain() {
        h.write(REG_CTRL, CTRL_FRAME_OFS3); // TX disabled: 3 waits in the TX FIFO
        h.frame(3, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(9), MedusaHost.mac(1), 20, 0);
        h.write(REG_TX_FIFO, 3);
        h.write(REG_TX_FIFO, 3);
        h.write(REG_FREE_FIFO, 3);
        assertEquals(1, h.read(REG_FIFO_LEVEL) & FIFO_LEVEL_TX_MASK);
        assertEquals(INT_TX_ERR | INT_RX_ERR, h.read(REG_ISR));
        h.write(REG_ISR, INT_ALL);

        h.write(REG_CTRL, LOOP); // sent (looped back; DA is not ours so nobody copies it)
        assertEquals(FIFO_VALID | 3, h.read(REG_TXDONE_FIFO));
        assertEquals(STAT_DONE_BIT, h.stat(3) & STAT_CODE_MASK, "no station recognised the address: A = C = 0");
        h.write(REG_TX_FIFO, 3); // the host owns it again: re-queue (retransmission from card memory)
        assertEquals(FIFO_VALID | 3, h.read(REG_TXDONE_FIFO));
        assertEquals(INT_TX_DONE, h.read(REG_ISR));
        assertEquals(2, h.card.model().counter(REG_CNT_FRAMES_TX));
    }

    @Test
    void aReceivedBufferIsTheHostsUntilItIsFreedAgain() {
        h.init(LOOP, 50, 1);
        h.frame(0, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(1), MedusaHost.mac(1), 8, 0);
        h.write(REG_FREE_FIFO, 50);
        assertEquals(1, h.card.model().rejectedFreePushes(), "50 is in the FREE FIFO already");
        h.write(REG_TX_FIFO, 0);
        assertEquals(FIFO_VALID | 50, h.read(REG_RX_FIFO));
        h.write(REG_TX_FIFO, 50); // the host may send straight out of a received buffer (forwarding)
        assertEquals(0, h.card.model().rejectedTxPushes(), "a received buffer is the host's");
        h.write(REG_FREE_FIFO, 0);
        assertEquals(1, h.card.model().rejectedFreePushes());
    }

    @Test
    void lengthsOverTheFddiLimitFailWithTruncated() {
        h.init(LOOP, 0, 0);
        // LEN counts FC .. INFO; with the 4-byte FCS the frame may be 4500 bytes: LEN 4496 passes, 4497 fails
        h.frame(1, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(9), MedusaHost.mac(1), MAX_FRAME - 4 - 13, 0);
        h.write(REG_TX_FIFO, 1);
        assertEquals(FIFO_VALID | 1, h.read(REG_TXDONE_FIFO));
        assertEquals(STAT_DONE_BIT, h.stat(1) & STAT_CODE_MASK);

        h.frame(2, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(9), MedusaHost.mac(1), MAX_FRAME - 4 - 13 + 1, 0);
        h.write(REG_TX_FIFO, 2);
        assertEquals(FIFO_VALID | FIFO_ERROR | 2, h.read(REG_TXDONE_FIFO));
        assertEquals(STAT_DONE_BIT | STAT_TRUNCATED_BIT, h.stat(2) & STAT_CODE_MASK);
        assertEquals(INT_TX_DONE | INT_TX_ERR, h.read(REG_ISR));
        assertEquals(1, h.card.model().counter(REG_CNT_TX_ERRORS));
        assertEquals(1, h.card.model().counter(REG_CNT_FRAMES_TX));
        h.write(REG_TX_FIFO, 2); // an error completion hands the buffer back too
        assertEquals(FIFO_VALID | FIFO_ERROR | 2, h.read(REG_TXDONE_FIFO));
    }

    @Test
    void longFramesAllowTheWholeBufferButNotMore() {
        h.init(LOOP | CTRL_LONG_FRAMES, 0, 0);
        h.frame(1, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(9), MedusaHost.mac(1), 8052 - 13, 0); // the paper's 2000 words
        h.write(REG_TX_FIFO, 1);
        assertEquals(FIFO_VALID | 1, h.read(REG_TXDONE_FIFO));

        // FRAME_OFS3: at most 8192 - 3 = 8189 bytes fit, but LEN + FCS must also stay within 8192
        h.regs.write(MedusaHost.entry(2) + BUF_STATUS_LEN_OFS, BUF_SIZE - 3);
        h.write(REG_TX_FIFO, 2);
        assertEquals(FIFO_VALID | FIFO_ERROR | 2, h.read(REG_TXDONE_FIFO));
        assertEquals(STAT_DONE_BIT | STAT_TRUNCATED_BIT, h.stat(2) & STAT_CODE_MASK);

        h.write(REG_CTRL, (LOOP | CTRL_LONG_FRAMES) & ~CTRL_FRAME_OFS3);
        h.regs.write(MedusaHost.entry(2) + BUF_STATUS_LEN_OFS, BUF_SIZE - 4);
        h.write(REG_TX_FIFO, 2);
        assertEquals(FIFO_VALID | 2, h.read(REG_TXDONE_FIFO), "offset 0: LEN 8188 + FCS = 8192 fits");
    }

    @ParameterizedTest
    @ValueSource(ints = {0x2000, 0x2000 | 20, 0xFFFF_FFFF, 0x1FFF})
    void lenFieldsBeyondThirteenBitsOrTheBufferFail(int len) {
        h.init(LOOP | CTRL_LONG_FRAMES, 0, 0);
        h.regs.write(MedusaHost.entry(4) + BUF_STATUS_LEN_OFS, len);
        h.write(REG_TX_FIFO, 4);
        assertEquals(FIFO_VALID | FIFO_ERROR | 4, h.read(REG_TXDONE_FIFO));
        assertEquals(STAT_DONE_BIT | STAT_TRUNCATED_BIT, h.stat(4) & STAT_CODE_MASK);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 12})
    void framesShorterThanTheMacHeaderFailWithoutTruncated(int len) {
        h.init(LOOP, 0, 0);
        h.regs.write(MedusaHost.entry(4) + BUF_STATUS_LEN_OFS, len);
        h.write(REG_TX_FIFO, 4);
        assertEquals(FIFO_VALID | FIFO_ERROR | 4, h.read(REG_TXDONE_FIFO));
        assertEquals(STAT_DONE_BIT, h.stat(4) & STAT_CODE_MASK);
        assertEquals(1, h.card.model().counter(REG_CNT_TX_ERRORS));
    }

    @Test
    void receivedFramesLongerThanTheLimitAreStoredTruncated() {
        // sender side allows long frames, receiver side (same card, loopback) then drops LONG_FRAMES: use two
        // settings in sequence on one card: send 5000 bytes with LONG_FRAMES, receive without it is not possible
        // in loopback, so check the buffer limit instead: KEEP_FCS with a frame that fills the buffer exactly
        h.init(LOOP | CTRL_LONG_FRAMES | CTRL_KEEP_FCS, 60, 1);
        h.write(REG_MACADDR_LO, 0x00000001);
        int len = h.frame(1, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(1), MedusaHost.mac(1), BUF_SIZE - 3 - 4 - 13, 0);
        h.write(REG_TX_FIFO, 1);
        assertEquals(FIFO_VALID | 60, h.read(REG_RX_FIFO));
        assertEquals(len, h.len(60));
        assertEquals(STAT_DONE_BIT | STAT_A_BIT | STAT_C_BIT, h.stat(60) & STAT_CODE_MASK, "8185 + 4 FCS = 8189 fits");

        h.write(REG_CTRL, LOOP | CTRL_LONG_FRAMES | CTRL_KEEP_FCS); // same, now one byte longer than the buffer
        h.write(REG_FREE_FIFO, 60);
        h.regs.write(MedusaHost.entry(1) + BUF_STATUS_LEN_OFS, len + 1);
        h.write(REG_ISR, INT_ALL);
        h.write(REG_TX_FIFO, 1);
        // TX side: LEN + FCS = 8190 <= 8192 but 3 + 8186 = 8189 <= 8192 -> sent; RX side with KEEP_FCS needs 8190 > 8189
        assertEquals(FIFO_VALID | 60, h.read(REG_RX_FIFO));
        assertEquals(len + 1, h.len(60), "LEN counts FC .. INFO stored; only the kept FCS lost a byte");
        assertEquals(STAT_DONE_BIT | STAT_A_BIT | STAT_TRUNCATED_BIT, h.stat(60) & STAT_CODE_MASK);
        assertEquals(INT_RX_READY | INT_RX_ERR | INT_TX_DONE, h.read(REG_ISR));
        assertEquals(1, h.card.model().counter(REG_CNT_RX_TRUNCATED));
    }

    @Test
    void noFreeBufferDropsAndCounts() {
        h.init(LOOP, 0, 0);
        h.frame(1, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(1), MedusaHost.mac(1), 30, 0);
        h.write(REG_TX_FIFO, 1);
        assertEquals(0, h.read(REG_RX_FIFO));
        assertEquals(1, h.card.model().counter(REG_CNT_NOBUF_DROPS));
        assertEquals(INT_RX_DROP_NOBUF | INT_TX_DONE, h.read(REG_ISR));
        assertEquals(STAT_DONE_BIT | STAT_A_BIT, h.stat(1) & STAT_CODE_MASK, "recognised but not copied: A without C");
    }

    @Test
    void resetReturnsEveryBufferToTheHost() {
        h.init(CTRL_FRAME_OFS3, 0, 10);
        h.frame(20, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(2), MedusaHost.mac(1), 30, 0);
        h.write(REG_TX_FIFO, 20);
        h.write(REG_CTRL, CTRL_RESET);
        assertEquals(0, h.read(REG_FIFO_LEVEL));
        for (int n = 0; n < BUF_COUNT; n++) {
            h.write(REG_FREE_FIFO, n);
        }
        assertEquals(0, h.card.model().rejectedFreePushes(), "all 128 are the host's after RESET");
    }
}
