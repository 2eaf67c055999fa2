package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;
import static io.nicbridge.sim.medusa.MedusaHost.reg;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Registers, reset, ISR/IMR and the interrupt line, FIFO semantics - one card, inline engine, no ring traffic. */
class MedusaRegistersTest {
    EmulatedTestbed bed;
    FddiRing ring;
    MedusaHost h;

    @BeforeEach
    void setUp() {
        bed = EmulatedTestbed.create(EngineMode.INLINE, 0);
        ring = bed.fddiRing("fddi0");
        h = new MedusaHost(bed.medusa("m", ring, new byte[] {0x08, 0x00, 0x09, 0x12, 0x34, 0x56}));
    }

    @AfterEach
    void tearDown() {
        bed.close();
    }

    @Test
    void idReadsMdsaAndIdentityRegistersIgnoreWrites() {
        int id = h.read(REG_ID);
        assertEquals(ID_VALUE, id);
        byte[] ascii = {(byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8), (byte) id};
        assertEquals("MDSA", new String(ascii, StandardCharsets.US_ASCII));
        assertEquals(REV_VALUE, h.read(REG_REV));
        h.write(REG_ID, 0x12345678);
        h.write(REG_REV, 7);
        h.write(REG_STATUS, -1);
        h.write(REG_CNT_FRAMES_TX, 99);
        h.write(REG_FIFO_LEVEL, -1);
        assertEquals(ID_VALUE, h.read(REG_ID));
        assertEquals(REV_VALUE, h.read(REG_REV));
        assertEquals(0, h.read(REG_STATUS));
        assertEquals(0, h.read(REG_CNT_FRAMES_TX));
        assertEquals(0, h.read(REG_FIFO_LEVEL));
    }

    @Test
    void resetRestoresDefaultsAndSelfClears() {
        h.write(REG_CTRL, CTRL_RX_EN | CTRL_PROMISC | CTRL_KEEP_FCS);
        h.write(REG_IMR, INT_ALL);
        h.write(REG_TREQ_US, 4000);
        h.write(REG_MACADDR_LO, 0);
        h.write(REG_RXCK_START, 3);
        h.write(REG_FREE_FIFO, 9);
        h.ram.writeInt(0, 0x01020304);
        assertNotEquals(0, h.read(REG_PIO_CKSUM));

        h.write(REG_CTRL, CTRL_RESET | CTRL_TX_EN);
        assertEquals(CTRL_RESET_VALUE, h.read(REG_CTRL), "RESET self-clears; bits written with it are ignored");
        assertEquals(CTRL_FRAME_OFS3, h.read(REG_CTRL));
        assertEquals(0, h.read(REG_IMR));
        assertEquals(0, h.read(REG_ISR));
        assertEquals(TREQ_US_DEFAULT, h.read(REG_TREQ_US));
        assertEquals(0x0800, h.read(REG_MACADDR_HI));
        assertEquals(0x09123456, h.read(REG_MACADDR_LO));
        assertEquals(RXCK_START_DEFAULT, h.read(REG_RXCK_START));
        assertEquals(0, h.read(REG_FIFO_LEVEL));
        assertEquals(0, h.read(REG_PIO_CKSUM));
        assertEquals(0, h.read(REG_STATUS));
    }

    @Test
    void ctrlKeepsOnlyDefinedBitsAndRxckStartIsThirteenBits() {
        h.write(REG_CTRL, 0xFFFF_FFFE & ~CTRL_RING_JOIN & ~CTRL_LOOPBACK);
        assertEquals(MedusaModel.CTRL_WRITABLE & ~CTRL_RING_JOIN & ~CTRL_LOOPBACK, h.read(REG_CTRL));
        h.write(REG_RXCK_START, 0xFFFF_FFFF);
        assertEquals(RXCK_START_MASK, h.read(REG_RXCK_START));
    }

    @Test
    void reservedWordsReadZeroAndIgnoreWrites() {
        for (int off : new int[] {REGS_OFS + 0x60, REGS_OFS + 0xFC, REGS_OFS + 0x100, BUF_STATUS_OFS - 4,
                BUF_STATUS_OFS + BUF_STATUS_SIZE, WINDOW_SIZE - 4}) {
            h.regs.write(off, 0xDEADBEEF);
            assertEquals(0, h.regs.read(off), "offset 0x" + Integer.toHexString(off));
        }
    }

    @Test
    void isrIsWriteOneToClearAndTheLineFollowsIsrAndImr() {
        // out-of-range pushes raise TX_ERR and RX_ERR without queueing anything
        h.write(REG_TX_FIFO, 200);
        h.write(REG_FREE_FIFO, 128);
        assertEquals(INT_TX_ERR | INT_RX_ERR, h.read(REG_ISR));
        assertFalse(h.card.interrupt().isAsserted(), "IMR = 0 masks everything");

        h.write(REG_IMR, INT_TX_ERR);
        assertTrue(h.card.interrupt().isAsserted());
        long edges = h.card.interrupt().assertions();

        h.write(REG_ISR, INT_RX_ERR); // clears RX_ERR only
        assertEquals(INT_TX_ERR, h.read(REG_ISR));
        assertTrue(h.card.interrupt().isAsserted());

        h.write(REG_ISR, 0); // writing 0 clears nothing
        assertEquals(INT_TX_ERR, h.read(REG_ISR));

        h.write(REG_ISR, INT_TX_ERR);
        assertEquals(0, h.read(REG_ISR));
        assertFalse(h.card.interrupt().isAsserted());

        h.write(REG_TX_FIFO, -1);
        assertTrue(h.card.interrupt().isAsserted());
        assertEquals(edges + 1, h.card.interrupt().assertions());
        h.write(REG_IMR, 0);
        assertFalse(h.card.interrupt().isAsserted(), "masking lowers the line; ISR keeps the bit");
        assertEquals(INT_TX_ERR, h.read(REG_ISR));
        h.write(REG_IMR, 0xFFFF_FFFF);
        assertEquals(INT_ALL, h.read(REG_IMR), "IMR keeps the defined bits only");
    }

    @Test
    void freeFifoHoldsAll128BuffersAndLevelsCountThem() {
        for (int n = 0; n < BUF_COUNT; n++) {
            h.write(REG_FREE_FIFO, n);
            assertEquals(n + 1, (h.read(REG_FIFO_LEVEL) & FIFO_LEVEL_FREE_MASK) >>> FIFO_LEVEL_FREE_SHIFT);
        }
        assertEquals(128, h.read(REG_FIFO_LEVEL) >>> FIFO_LEVEL_FREE_SHIFT);
        assertEquals(0, h.read(REG_ISR), "128 pushes of distinct buffers: no error");
        assertEquals(0, h.read(REG_FREE_FIFO), "write-only FIFOs read 0");
        assertEquals(0, h.read(REG_TX_FIFO));
    }

    @Test
    void txAndTxdoneFifosPopInOrderWithLevelsAndReadZeroWhenEmpty() {
        h.write(REG_CTRL, CTRL_FRAME_OFS3); // TX disabled: pushes stay queued
        for (int n = 0; n < BUF_COUNT; n++) {
            h.frame(n, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(9), MedusaHost.mac(1), 0, n);
            h.write(REG_TX_FIFO, n);
        }
        assertEquals(128, h.read(REG_FIFO_LEVEL) & FIFO_LEVEL_TX_MASK);
        assertEquals(STATUS_TX_BUSY, h.read(REG_STATUS) & STATUS_TX_BUSY);
        assertEquals(0, h.read(REG_TXDONE_FIFO));

        h.write(REG_CTRL, CTRL_FRAME_OFS3 | CTRL_TX_EN | CTRL_LOOPBACK); // loopback drains TX into TXDONE
        assertEquals(128 << FIFO_LEVEL_TXDONE_SHIFT, h.read(REG_FIFO_LEVEL));
        assertEquals(0, h.read(REG_STATUS) & STATUS_TX_BUSY);
        for (int n = 0; n < BUF_COUNT; n++) {
            assertEquals(FIFO_VALID | n, h.read(REG_TXDONE_FIFO), "pop " + n);
            assertEquals(127 - n, (h.read(REG_FIFO_LEVEL) & FIFO_LEVEL_TXDONE_MASK) >>> FIFO_LEVEL_TXDONE_SHIFT);
        }
        assertEquals(0, h.read(REG_TXDONE_FIFO));
        assertEquals(128, h.card.model().counter(REG_CNT_FRAMES_TX));
        assertEquals(INT_TX_DONE, h.read(REG_ISR));
    }

    @Test
    void rxFifoPopsReceivedBuffersInArrivalOrder() {
        h.init(CTRL_RX_EN | CTRL_TX_EN | CTRL_LOOPBACK | CTRL_FRAME_OFS3, 100, 3);
        for (int n = 0; n < 3; n++) {
            h.frame(n, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(0x56), MedusaHost.mac(1), 10, n);
        }
        h.write(REG_MACADDR_HI, 0x0200);
        h.write(REG_MACADDR_LO, 0x00000056);
        for (int n = 0; n < 3; n++) {
            h.write(REG_TX_FIFO, n);
        }
        assertEquals(3, (h.read(REG_FIFO_LEVEL) & FIFO_LEVEL_RX_MASK) >>> FIFO_LEVEL_RX_SHIFT);
        for (int n = 0; n < 3; n++) {
            int e = h.read(REG_RX_FIFO);
            assertEquals(FIFO_VALID | (100 + n), e);
            assertArrayEquals(h.frameBytes(n, 23), h.frameBytes(100 + n, 23));
        }
        assertEquals(0, h.read(REG_RX_FIFO));
        assertEquals(3 << FIFO_LEVEL_TXDONE_SHIFT, h.read(REG_FIFO_LEVEL), "only the three TXDONE entries remain");
    }

    @Test
    void pioChecksumRegisterReadsTheFoldedSumAndWriteSetsIt() {
        h.ram.writeInt(0x2000, 0xFFFF_FFFF);
        h.ram.writeInt(0x2004, 0x0000_0002);
        // 0xFFFF + 0xFFFF + 0x0000 + 0x0002 = 0x20000 -> fold -> 0x0002
        assertEquals(0x0002, h.read(REG_PIO_CKSUM));
        h.write(REG_PIO_CKSUM, 0);
        assertEquals(0, h.read(REG_PIO_CKSUM));
        h.write(REG_PIO_CKSUM, 0x1_1234);
        assertEquals(0x1234, h.read(REG_PIO_CKSUM));
    }
}
