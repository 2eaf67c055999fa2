package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.driver.unet.UnetCommandException;
import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.sim.engine.EngineMode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** The firmware's kernel command queue, driven by the bridge's kernel driver (raw commands through execute). */
class Sba200KernelCommandTest {
    private static final ValueLayout.OfInt BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** One raw command through the driver's command queue, with the IRQ bit if asked; returns w1. */
    private static int cmd(UnetKernelDriver k, int opcode, boolean irq, int... args) {
        int[] a = java.util.Arrays.copyOf(args, CMD_ARG_COUNT);
        return k.execute(opcode | (irq ? CMD_IRQ : 0), a[0], a[1], a[2], a[3], a[4], a[5]);
    }

    private static boolean isDone(int status) {
        return (status & CMD_STATUS_MASK) == CMD_STATUS_DONE;
    }

    private static int error(int status) {
        assertEquals(CMD_STATUS_ERROR, status & CMD_STATUS_MASK, "status 0x" + Integer.toHexString(status));
        return (status & CMD_ERROR_MASK) >>> CMD_ERROR_SHIFT;
    }

    @Test
    void bootStatusAndGlobalBlockAfterPowerOnAndReset() {
        try (CardRig r = CardRig.inline()) {
            Registers ram = r.card.registers();
            assertEquals(BOOT_CP_RUNNING, ram.read(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS));
            assertEquals(UG_MAGIC, ram.read(UG_OFS + UG_MAGIC_OFS));
            assertEquals(UG_VERSION, ram.read(UG_OFS + UG_VERSION_OFS));
            assertEquals(MAX_ENDPOINTS, ram.read(UG_OFS + UG_MAX_ENDPOINTS_OFS));
            assertEquals(EP_PAGE_BASE, ram.read(UG_OFS + UG_EP_PAGE_BASE_OFS));
            assertEquals(EP_PAGE_SIZE, ram.read(UG_OFS + UG_EP_PAGE_SIZE_OFS));
            assertEquals(CMDQ_OFS, ram.read(UG_OFS + UG_CMDQ_BASE_OFS));
            assertEquals(CMDQ_LEN, ram.read(UG_OFS + UG_CMDQ_LEN_OFS));
            assertEquals(UG_LINK_CARRIER, ram.read(UG_OFS + UG_LINK_STATUS_OFS));
            UnetEndpoint ep = r.endpoint(4096, 8);
            assertEquals(EP_ACTIVE, r.epcb(ep, EPCB_EP_STATUS_OFS));

            r.card.bcr().write(BCR_OFS, BCR_RESET);
            assertEquals(BOOT_COLD_START, ram.read(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS));
            r.card.bcr().write(BCR_OFS, BCR_RELEASE);
            r.settle();
            assertEquals(BOOT_CP_RUNNING, ram.read(MONITOR_OFS + MONITOR_BOOT_STATUS_OFS));
            assertEquals(0, r.epcb(ep, EPCB_EP_STATUS_OFS), "reset forgets every endpoint");
            assertEquals(UG_MAGIC, ram.read(UG_OFS + UG_MAGIC_OFS));
        }
    }

    @Test
    void epCreateErrors() {
        try (CardRig r = CardRig.inline()) {
            MemorySegment seg = r.arena.allocate(8192, 64);
            MemorySegment rq = r.arena.allocate(64 * 8, 64);
            int segBus = (int) r.card.dma().register(seg);
            int rqBus = (int) r.card.dma().register(rq);
            UnetKernelDriver k = r.kernel;
            assertEquals(CMD_ERR_BAD_ENDPOINT, error(cmd(k, OP_EP_CREATE, false, 32, segBus, 8192, rqBus, 8)));
            assertEquals(CMD_ERR_BAD_SEGMENT, error(cmd(k, OP_EP_CREATE, false, 0, segBus, 0, rqBus, 8)));
            assertEquals(CMD_ERR_BAD_SEGMENT, error(cmd(k, OP_EP_CREATE, false, 0, segBus + 4, 4096, rqBus, 8)));
            assertEquals(CMD_ERR_BAD_SEGMENT, error(cmd(k, OP_EP_CREATE, false, 0, segBus, 8193, rqBus, 8)),
                "segment longer than the DMA region");
            assertEquals(CMD_ERR_BAD_SEGMENT, error(cmd(k, OP_EP_CREATE, false, 0, 0x40, 64, rqBus, 8)),
                "unmapped");
            assertEquals(CMD_ERR_BAD_RQ, error(cmd(k, OP_EP_CREATE, false, 0, segBus, 8192, rqBus, 6)));
            assertEquals(CMD_ERR_BAD_RQ, error(cmd(k, OP_EP_CREATE, false, 0, segBus, 8192, rqBus, 1)));
            assertEquals(CMD_ERR_BAD_RQ, error(cmd(k, OP_EP_CREATE, false, 0, segBus, 8192, rqBus, 16)),
                "queue longer than its DMA region");
            assertEquals(CMD_ERR_BAD_RQ, error(cmd(k, OP_EP_CREATE, false, 0, segBus, 8192, rqBus + 4, 2)));
            assertTrue(isDone(cmd(k, OP_EP_CREATE, false, 3, segBus, 8192, rqBus, 8)));
            assertEquals(CMD_ERR_EP_ACTIVE, error(cmd(k, OP_EP_CREATE, false, 3, segBus, 8192, rqBus, 8)));
            MemorySegment page = r.model.endpointPage(3);
            assertEquals(8, page.get(BE, EPCB_RQ_LEN_OFS));
            assertEquals(8192, page.get(BE, EPCB_SEG_LEN_OFS));
            assertTrue(isDone(cmd(k, OP_EP_DESTROY, false, 3)));
            assertEquals(CMD_ERR_EP_INACTIVE, error(cmd(k, OP_EP_DESTROY, false, 3)));
            assertEquals(CMD_ERR_BAD_ENDPOINT, error(cmd(k, OP_EP_DESTROY, false, -1)));
            assertEquals(0, page.get(BE, EPCB_EP_STATUS_OFS));
        }
    }

    @Test
    void channelCommandsAndVciTable() {
        try (CardRig r = CardRig.inline()) {
            UnetEndpoint ep = r.endpoint(4096, 8);
            int e = ep.id();
            UnetKernelDriver k = r.kernel;
            Registers ram = r.card.registers();
            assertTrue(isDone(cmd(k, OP_CH_OPEN, false, e, 5, 0, 100, 200)));
            assertEquals(VCI_VALID | e << VCI_EP_SHIFT | 5 << VCI_CHAN_SHIFT, ram.read(VCI_TABLE_OFS + 200 * 4));
            assertEquals(CMD_ERR_CHANNEL_OPEN, error(cmd(k, OP_CH_OPEN, false, e, 5, 0, 101, 201)));
            assertEquals(CMD_ERR_VCI_IN_USE, error(cmd(k, OP_CH_OPEN, false, e, 6, 0, 101, 200)));
            assertEquals(CMD_ERR_BAD_VCI, error(cmd(k, OP_CH_OPEN, false, e, 6, 0, 101, 31)), "reserved VCI");
            assertEquals(CMD_ERR_BAD_VCI, error(cmd(k, OP_CH_OPEN, false, e, 6, 0, 1024, 300)));
            assertEquals(CMD_ERR_BAD_VCI, error(cmd(k, OP_CH_OPEN, false, e, 6, 256, 101, 300)), "VPI > 255");
            assertEquals(CMD_ERR_BAD_CHANNEL, error(cmd(k, OP_CH_OPEN, false, e, 64, 0, 101, 300)));
            assertEquals(CMD_ERR_EP_INACTIVE, error(cmd(k, OP_CH_OPEN, false, 9, 1, 0, 101, 300)));
            assertEquals(CMD_ERR_BAD_ENDPOINT, error(cmd(k, OP_CH_OPEN, false, 40, 1, 0, 101, 300)));
            assertEquals(CMD_ERR_BAD_CHANNEL, error(cmd(k, OP_CH_CLOSE, false, e, 6)));
            assertEquals(CMD_ERR_BAD_CHANNEL, error(cmd(k, OP_CH_CLOSE, false, e, 64)));
            assertEquals(CMD_ERR_EP_INACTIVE, error(cmd(k, OP_CH_CLOSE, false, 9, 5)));
            assertEquals(CMD_ERR_BAD_ENDPOINT, error(cmd(k, OP_CH_CLOSE, false, 32, 5)));
            assertTrue(isDone(cmd(k, OP_CH_CLOSE, false, e, 5)));
            assertEquals(0, ram.read(VCI_TABLE_OFS + 200 * 4));
            assertTrue(isDone(cmd(k, OP_CH_OPEN, false, e, 5, 0, 100, 200)), "reopen");
            k.destroyEndpoint(ep);
            assertEquals(0, ram.read(VCI_TABLE_OFS + 200 * 4), "EP_DESTROY closes channels");
        }
    }

    /**
     * Issue 16, tags protected by the firmware (paper 3.2): a hostile process asking its kernel for a channel that
     * transmits on a VCI another process's channel already uses is refused by the card itself, whatever the kernel
     * or the network service above it allowed; otherwise both would feed one AAL5 reassembly at the receiver. The VCI
     * is free again once its channel is closed or its endpoint destroyed (a reset forgets it too: the differential test's
     * reset scenarios). (Before: only the RX VCI
     * was checked, and the second open succeeded.)
     */
    @Test
    void aTransmitVciInUseIsRefusedUntilItsChannelCloses() {
        try (CardRig r = CardRig.inline()) {
            UnetKernelDriver k = r.kernel;
            UnetEndpoint victim = r.endpoint(4096, 8);
            UnetEndpoint hostile = r.endpoint(4096, 8);
            k.openChannel(victim, 0, 0, 100, 200);
            UnetCommandException refused = assertThrows(UnetCommandException.class,
                () -> k.openChannel(hostile, 0, 0, 100, 201));
            assertEquals(CMD_ERR_VCI_IN_USE, refused.errorCode());
            assertFalse(hostile.isChannelOpen(0), "the refused channel is not open");
            assertEquals(0, r.card.registers().read(VCI_TABLE_OFS + 201 * 4), "nor routed");
            assertEquals(CMD_ERR_VCI_IN_USE, error(cmd(k, OP_CH_OPEN, false, victim.id(), 1, 1, 100, 202)),
                "the same VCI on another VPI or channel of the same endpoint is refused too");

            k.closeChannel(victim, 0);
            k.openChannel(hostile, 0, 0, 100, 201); // reuse after close
            assertTrue(hostile.isChannelOpen(0));
            assertEquals(CMD_ERR_VCI_IN_USE, error(cmd(k, OP_CH_OPEN, false, victim.id(), 0, 0, 100, 200)));
            k.destroyEndpoint(hostile);
            assertTrue(isDone(cmd(k, OP_CH_OPEN, false, victim.id(), 0, 0, 100, 200)), "EP_DESTROY frees it");
        }
    }

    @Test
    void upcallModeStatsNopBadOpcodeAndInterrupt() {
        try (CardRig r = CardRig.inline()) {
            UnetEndpoint ep = r.endpoint(4096, 8);
            UnetKernelDriver k = r.kernel;
            assertTrue(isDone(cmd(k, OP_EP_UPCALL, false, ep.id(), UPCALL_ALMOST_FULL)));
            assertEquals(UPCALL_ALMOST_FULL, r.epcb(ep, EPCB_UPCALL_MODE_OFS));
            assertEquals(CMD_ERR_BAD_MODE, error(cmd(k, OP_EP_UPCALL, false, ep.id(), 4)));
            assertTrue(isDone(cmd(k, OP_EP_UPCALL, false, ep.id(), UPCALL_BOTH)), "both conditions at once");
            assertEquals(CMD_ERR_EP_INACTIVE, error(cmd(k, OP_EP_UPCALL, false, 7, 1)));
            assertEquals(CMD_ERR_BAD_ENDPOINT, error(cmd(k, OP_EP_UPCALL, false, 99, 1)));
            assertEquals(CMD_ERR_BAD_OPCODE, error(cmd(k, 0x42, false)));
            assertEquals(CMD_ERR_BAD_OPCODE, error(cmd(k, 0, false)));
            assertEquals(CMD_ERR_DMA, error(cmd(k, OP_GET_STATS, false, 0x40)));
            assertEquals(1, r.counter(UG_CNT_DMA_ERRORS_OFS));
            assertEquals(1, k.readStatistics().dmaErrors(), "counters copied by DMA");

            // NOP with the IRQ bit: only raises the line when the kernel enabled interrupts; the driver's handler
            // sees the edge and acknowledges it through the BCR.
            long edges = r.card.interrupt().assertions();
            assertTrue(isDone(cmd(k, OP_NOP, true)));
            assertFalse(r.card.interrupt().isAsserted());
            assertEquals(edges, r.card.interrupt().assertions());
            k.interrupts(true);
            assertTrue(isDone(cmd(k, OP_NOP, true)));
            assertEquals(edges + 1, r.card.interrupt().assertions());
            assertEquals(1, k.interruptEdges(), "the driver's handler ran");
            assertFalse(r.card.interrupt().isAsserted(), "and acknowledged the line (BCR_CLEAR_INTR)");

            // The BCR itself, observed without the driver's handler (which would acknowledge at once).
            r.card.interrupt().handler(null);
            assertTrue(isDone(cmd(k, OP_NOP, true)));
            assertTrue(r.card.interrupt().isAsserted());
            assertEquals(BCR_INTR_PENDING, r.card.bcr().read(BCR_OFS));
            r.card.bcr().write(BCR_OFS, BCR_CLEAR_INTR);
            assertFalse(r.card.interrupt().isAsserted());
            assertEquals(0, r.card.bcr().read(BCR_OFS));
        }
    }

    @Test
    void commandsCompleteInVirtualTimeAfterThePollLatency() {
        try (CardRig r = new CardRig(EngineMode.VIRTUAL, new Sba200Timing(5_000, 0, 0))) {
            r.settle();
            long t0 = r.engine.timeBase().nanoTime();
            assertTrue(isDone(cmd(r.kernel, OP_NOP, false)));
            assertEquals(5_000, r.engine.timeBase().nanoTime() - t0);
        }
    }

    @Test
    void commandsCompleteOnAThreadedEngine() {
        try (CardRig r = new CardRig(EngineMode.THREADED, Sba200Timing.WIRE_ONLY)) {
            UnetEndpoint ep = r.endpoint(4096, 8);
            assertTrue(isDone(cmd(r.kernel, OP_CH_OPEN, false, ep.id(), 0, 0, 40, 41)));
        }
    }

    @Test
    void kernelApiRejectsMisuse() {
        try (CardRig r = CardRig.inline()) {
            UnetCommandException badRq = assertThrows(UnetCommandException.class, () -> r.endpoint(128, 1)); // < RQ_LEN_MIN
            assertEquals(CMD_ERR_BAD_RQ, badRq.errorCode());
            var closed = r.segment(4096);
            closed.close();
            assertThrows(IllegalArgumentException.class, () -> r.kernel.createEndpoint(closed, 4), "closed segment");
            for (int i = 0; i < MAX_ENDPOINTS; i++) {
                r.endpoint(128, 2);
            }
            assertThrows(IllegalStateException.class, () -> r.endpoint(128, 2), "32 endpoints");
            r.kernel.close();
            assertThrows(IllegalStateException.class, () -> r.endpoint(128, 2), "closed driver");
        }
    }
}
