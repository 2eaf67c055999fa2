package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.memory.BusError;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.InterruptLine;
import io.nicbridge.bridge.time.StepScheduler;
import java.lang.foreign.Arena;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Endpoint and channel lifecycle through the kernel command queue, and every command error surfaced. */
class UnetKernelDriverTest {
    private final UnetFixture f = new UnetFixture();

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void createMapsSegmentAndReceiveQueueAndActivatesThePage() {
        int regionsBefore = f.card.dma.regions().size();
        UnetEndpoint ep = f.endpoint(3, 64 * 1024);
        assertEquals(3, ep.id());
        assertEquals(EP_ACTIVE, ep.status() & EP_ACTIVE);
        assertEquals(EP_PAGE_SIZE, ep.page().byteSize());
        assertEquals(f.card.ramMemory.address() + EP_PAGE_BASE + 3L * EP_PAGE_SIZE, ep.page().address());
        assertEquals(regionsBefore + 2, f.card.dma.regions().size(), "segment + receive queue are DMA-mapped");
        assertEquals(16, ep.epcbWord(EPCB_RQ_LEN_OFS));
        assertEquals(64 * 1024, ep.epcbWord(EPCB_SEG_LEN_OFS));
        assertSame(ep, f.kernel.endpoint(3));
    }

    @Test
    void destroyDeactivatesUnmapsAndFreesTheReceiveQueue() {
        UnetEndpoint ep = f.endpoint(1, 8192);
        long segBus = ep.segmentBusAddress();
        CommSegment rq = ep.receiveQueueMemory();
        f.kernel.destroyEndpoint(ep);
        assertFalse(ep.isLive());
        assertNull(f.kernel.endpoint(1));
        assertEquals(0, f.card.w.getIntVolatile(EP_PAGE_BASE + EP_PAGE_SIZE + EPCB_EP_STATUS_OFS) & EP_ACTIVE,
                "the firmware deactivated it");
        assertThrows(IllegalStateException.class, ep::status, "the process's handle is dead");
        assertTrue(f.card.dma.translate(segBus, 1) < 0, "segment left the DMA space");
        assertFalse(rq.isOpen());
        f.kernel.destroyEndpoint(ep); // idempotent
        UnetEndpoint again = f.endpoint(1, 8192);
        assertTrue(again.isLive(), "the number is reusable");
    }

    @Test
    void hostSideMisuseIsRejectedBeforeTheCard() {
        CommSegment s = f.segment("s", 4096);
        assertThrows(IllegalArgumentException.class, () -> f.kernel.createEndpoint(32, s, 16));
        assertThrows(IllegalArgumentException.class, () -> f.kernel.createEndpoint(-1, s, 16));
        f.kernel.createEndpoint(2, s, 16);
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> f.kernel.createEndpoint(2, f.segment("t", 4096), 16));
        assertTrue(twice.getMessage().contains("already in use"));
        int regions = f.card.dma.regions().size();
        IllegalArgumentException wraps = assertThrows(IllegalArgumentException.class,
                () -> f.kernel.createEndpoint(3, f.segment("u", 4096), 24));
        assertTrue(wraps.getMessage().contains("power of two"), wraps.getMessage());
        assertEquals(regions, f.card.dma.regions().size(), "refused before anything was mapped");
    }

    @Test
    void badReceiveQueueLengthComesBackAsTheFirmwaresError() {
        int regions = f.card.dma.regions().size();
        UnetCommandException e = assertThrows(UnetCommandException.class,
                () -> f.kernel.createEndpoint(4, f.segment("s", 4096), 1)); // below RQ_LEN_MIN: the card's call
        assertEquals(OP_EP_CREATE, e.opcode());
        assertEquals(CMD_ERR_BAD_RQ, e.errorCode());
        assertTrue(e.getMessage().contains("EP_CREATE") && e.getMessage().contains("receive queue"), e.getMessage());
        assertEquals(regions, f.card.dma.regions().size(), "a failed create unmaps what it mapped");
        assertNull(f.kernel.endpoint(4));
    }

    @Test
    void everyCommandErrorCodeIsSurfaced() {
        UnetEndpoint a = f.endpoint(0, 8192);
        UnetEndpoint b = f.endpoint(1, 8192);
        assertRaw(CMD_ERR_BAD_OPCODE, 0x55, 0, 0, 0, 0, 0);
        assertRaw(CMD_ERR_BAD_ENDPOINT, OP_EP_DESTROY, 40, 0, 0, 0, 0);
        assertRaw(CMD_ERR_EP_ACTIVE, OP_EP_CREATE, 0, (int) a.segmentBusAddress(), 8192, (int) a.receiveQueueBusAddress(), 16);
        assertRaw(CMD_ERR_EP_INACTIVE, OP_EP_DESTROY, 9, 0, 0, 0, 0);
        assertRaw(CMD_ERR_BAD_SEGMENT, OP_EP_CREATE, 9, 0x40, 4096, (int) a.receiveQueueBusAddress(), 16);

        f.kernel.openChannel(a, 1, 0, 100, 200);
        assertTrue(a.isChannelOpen(1));
        assertCommand(CMD_ERR_CHANNEL_OPEN, () -> f.kernel.openChannel(a, 1, 0, 101, 201));
        assertCommand(CMD_ERR_BAD_CHANNEL, () -> f.kernel.openChannel(a, 64, 0, 101, 201));
        assertCommand(CMD_ERR_BAD_VCI, () -> f.kernel.openChannel(a, 2, 0, VCI_SIGNALLING, 201));
        assertCommand(CMD_ERR_BAD_VCI, () -> f.kernel.openChannel(a, 2, 256, 101, 201));
        assertCommand(CMD_ERR_VCI_IN_USE, () -> f.kernel.openChannel(b, 0, 0, 102, 200));
        assertCommand(CMD_ERR_BAD_CHANNEL, () -> f.kernel.closeChannel(a, 5));
        assertCommand(CMD_ERR_BAD_MODE, () -> f.kernel.setUpcallMode(a, 9));
        assertRaw(CMD_ERR_DMA, OP_GET_STATS, 0x40, 0, 0, 0, 0);

        f.kernel.closeChannel(a, 1);
        assertFalse(a.isChannelOpen(1));
        f.kernel.openChannel(b, 0, 0, 102, 200); // the RX VCI is free again
        f.kernel.nop();
    }

    @Test
    void statisticsComeBackByDma() {
        UnetEndpoint a = f.endpoint(0, 8192);
        UnetEndpoint b = f.endpoint(1, 8192);
        f.connect(a, 0, b, 0, 100, 101);
        var src = java.lang.foreign.MemorySegment.ofArray(new byte[8]);
        assertTrue(a.sendInline(0, src, 0, 8));
        assertTrue(a.sendInline(0, src, 0, 8));
        UnetCardStatistics s = f.kernel.readStatistics();
        assertEquals(2, s.pdusTx());
        assertEquals(2, s.pdusRx());
        assertEquals(0, s.dropUnknownVci());
        assertTrue(s.toString().contains("pdusTx=2"));
    }

    @Test
    void aDriverRefusesABoardWithoutRunningFirmware() {
        try (Arena arena = Arena.ofConfined()) {
            Registers blank = Registers.plain("blank", arena.allocate(RAM_SIZE, 4096), BYTE_ORDER);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> new UnetKernelDriver("x", blank,
                    new DmaSpace("d"), new InterruptLine("l"), null));
            assertTrue(e.getMessage().contains("not running"));
            Registers small = Registers.plain("small", arena.allocate(4096, 4096), BYTE_ORDER);
            assertThrows(IllegalArgumentException.class, () -> new UnetKernelDriver("x", small, new DmaSpace("d"),
                    new InterruptLine("l"), null));
        }
    }

    @Test
    void aCommandTheCardNeverCompletesTimesOut() {
        try (Arena arena = Arena.ofConfined()) {
            Registers ram = deadFirmware(arena);
            UnetKernelDriver d = new UnetKernelDriver("dead", ram, null, new DmaSpace("d"), new InterruptLine("l"),
                    null, 20_000_000L);
            UnetCommandException e = assertThrows(UnetCommandException.class, d::nop);
            assertEquals(-1, e.errorCode());
            assertTrue(e.getMessage().contains("timeout"), e.getMessage());
            assertEquals(BusError.NO_REGION, new DmaSpace("x").translate(0x10000, 4));
        }
    }

    /**
     * In virtual time with nothing else scheduled, the command's deadline timer is the world's last event: the wait
     * reached the deadline exactly, did not count that as past it, and stepped an empty world for ever (found as a
     * hang by UnetKernelDriverFuzzTest).
     */
    @Test
    void aCommandTheCardNeverCompletesTimesOutInAnEmptyVirtualWorld() {
        try (Arena arena = Arena.ofConfined()) {
            Registers ram = deadFirmware(arena);
            StepScheduler world = new StepScheduler();
            UnetKernelDriver d = new UnetKernelDriver("dead", ram, null, new DmaSpace("d"), new InterruptLine("l"),
                    world::step, 20_000L);
            d.timeOn(world);
            UnetCommandException e = assertThrows(UnetCommandException.class, d::nop);
            assertEquals(UnetCommandException.TIMEOUT, e.errorCode());
            assertEquals(20_000L, world.nanoTime(), "timed out at the deadline, in virtual time");
            assertEquals(1, d.commandTimeouts());
        }
    }

    /** Board RAM whose firmware set up its UG block and command queue and then stopped: nothing completes. */
    private static Registers deadFirmware(Arena arena) {
        Registers ram = Registers.plain("dead", arena.allocate(RAM_SIZE, 4096), BYTE_ORDER);
        ram.write(UG_OFS + UG_MAGIC_OFS, UG_MAGIC);
        ram.write(UG_OFS + UG_CMDQ_BASE_OFS, CMDQ_OFS);
        ram.write(UG_OFS + UG_CMDQ_LEN_OFS, CMDQ_LEN);
        return ram;
    }

    /** A one-path network: hands out fixed tags and records what was torn down. */
    private static final class FixedSignalling implements UnetSignalling {
        record P(int vpi, int aTxVci, int aRxVci, int bTxVci, int bRxVci) implements Path {
        }

        final P path;
        int connects;
        int disconnects;

        FixedSignalling(int aTx, int aRx, int bTx, int bRx) {
            path = new P(0, aTx, aRx, bTx, bRx);
        }

        @Override
        public Path connect(UnetKernelDriver a, UnetKernelDriver b) {
            connects++;
            return path;
        }

        @Override
        public void disconnect(Path p) {
            assertSame(path, p);
            disconnects++;
        }
    }

    @Test
    void connectRegistersBothSidesOnTheLowestFreeChannelsAndUndoesAFailedHalf() {
        UnetEndpoint a = f.endpoint(0, 8192);
        UnetEndpoint b = f.endpoint(1, 8192);
        f.kernel.openChannel(a, 0, 0, 90, 91); // channel 0 of a is taken: a gets 1
        FixedSignalling net = new FixedSignalling(100, 101, 101, 100);
        UnetKernelDriver.Connection c = UnetKernelDriver.connect(net, f.kernel, a, f.kernel, b);
        assertEquals(1, c.channelA());
        assertEquals(0, c.channelB());
        assertTrue(a.isChannelOpen(1) && b.isChannelOpen(0));
        f.card.connect(100, 100);
        f.card.connect(101, 101);
        var src = java.lang.foreign.MemorySegment.ofArray(new byte[] {1, 2, 3});
        assertTrue(a.sendInline(1, src, 0, 3));
        long d = b.poll();
        assertEquals(0, b.channel(d), "a's channel 1 arrives on b's channel 0");
        b.release(d);

        // The second CH_OPEN fails (b's receive VCI 100 is taken): a's channel is closed again, the path released.
        UnetEndpoint e = f.endpoint(2, 8192);
        FixedSignalling clash = new FixedSignalling(102, 103, 104, 100);
        UnetCommandException failed = assertThrows(UnetCommandException.class,
                () -> UnetKernelDriver.connect(clash, f.kernel, e, f.kernel, b));
        assertEquals(CMD_ERR_VCI_IN_USE, failed.errorCode());
        assertFalse(e.isChannelOpen(0), "the half-open channel was closed");
        assertEquals(1, clash.disconnects, "and the path released");
        f.kernel.openChannel(e, 0, 0, 102, 103); // its receive VCI is free again
        assertEquals(0, net.disconnects);

        f.kernel.destroyEndpoint(b);
        assertThrows(IllegalStateException.class, () -> UnetKernelDriver.connect(net, f.kernel, a, f.kernel, b),
                "a destroyed endpoint cannot be connected");
        assertEquals(1, net.connects, "nothing was asked of the network");
    }

    private void assertRaw(int expectedError, int op, int a0, int a1, int a2, int a3, int a4) {
        int w1 = f.kernel.execute(op, a0, a1, a2, a3, a4, 0);
        assertEquals(CMD_STATUS_ERROR, w1 & CMD_STATUS_MASK, UnetCommandException.opcodeName(op));
        assertEquals(expectedError, (w1 & CMD_ERROR_MASK) >>> CMD_ERROR_SHIFT, UnetCommandException.opcodeName(op));
    }

    private static void assertCommand(int expectedError, Runnable r) {
        UnetCommandException e = assertThrows(UnetCommandException.class, r::run);
        assertEquals(expectedError, e.errorCode(), e.getMessage());
        assertTrue(e.getMessage().contains(UnetCommandException.errorName(expectedError)), e.getMessage());
    }
}
