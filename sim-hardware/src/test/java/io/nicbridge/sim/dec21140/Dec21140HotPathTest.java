package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static io.nicbridge.sim.dec21140.CardHarness.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.queue.Dec21140DescriptorRing;
import io.nicbridge.sim.ethernet.WirePort;
import io.nicbridge.sim.testing.ManualVirtualTime;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The card's per-frame path allocates nothing: transmit (descriptor walk, FIFO, FCS, wire) and receive (FIFO,
 * filter, FCS check, DMA, status) for thousands of frames, measured with the JVM's per-thread allocation counter.
 */
class Dec21140HotPathTest {
    private static final int RING = 4;
    private static final int FRAMES = 20_000;

    /** Sends every frame straight back into the same card's receive side: no copies, no allocation. */
    private static final class LoopbackPort implements WirePort {
        Dec21140Model card;

        @Override
        public long transmit(MemorySegment frame, long offset, int length) {
            card.frameArrived(frame, offset, length);
            return 0;
        }

        @Override
        public String name() {
            return "loopback";
        }
    }

    @Test
    void sendReceiveLoopAllocatesNothing() {
        LoopbackPort port = new LoopbackPort();
        ManualVirtualTime time = new ManualVirtualTime(false);
        Dec21140Model card = new Dec21140Model("hot", MAC, time, Dec21140Timing.ZERO);
        port.card = card;
        card.connect(card::service, port);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mem = arena.allocate(MEM_BYTES, 4096);
            long bus = card.dma().register("host", mem);
            var csr = card.registers();
            byte[] f = frame(MAC, PEER, 0x0800, 46);
            MemorySegment.copy(f, 0, mem, java.lang.foreign.ValueLayout.JAVA_BYTE, TX_BUF, f.length);
            for (int i = 0; i < RING; i++) {
                mem.set(LE, RX_RING + 16L * i + 4, LINUX_RX_BUF_SIZE | (i == RING - 1 ? RDES1_RER : 0));
                mem.set(LE, RX_RING + 16L * i + 8, (int) (bus + RX_BUF + 0x800L * i));
                mem.set(LE, RX_RING + 16L * i, RDES0_OWN);
                mem.set(LE, TX_RING + 16L * i + 4, i == RING - 1 ? TDES1_TER : 0);
            }
            csr.write(CSR3, (int) (bus + RX_RING));
            csr.write(CSR4, (int) (bus + TX_RING));
            csr.write(CSR7, LINUX_VALID_INTRS);
            csr.write(CSR6, CSR6_MBO | CSR6_PS | CSR6_SF | CSR6_SR | CSR6_ST | CSR6_PR);
            loop(csr, mem, bus, f.length, FRAMES); // warm up (JIT)
            var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long tid = Thread.currentThread().threadId();
            long before = threads.getThreadAllocatedBytes(tid);
            loop(csr, mem, bus, f.length, FRAMES);
            long allocated = threads.getThreadAllocatedBytes(tid) - before;
            assertEquals(2L * FRAMES, card.counters().rxFrames());
            assertTrue(allocated < 4096, "allocated " + allocated + " bytes for " + FRAMES + " frames");
        }
    }

    private static void loop(io.nicbridge.bridge.regs.Registers csr, MemorySegment mem, long bus, int len, int n) {
        for (int k = 0; k < n; k++) {
            int slot = k % RING;
            long td = TX_RING + 16L * slot;
            mem.set(LE, td + 4, LINUX_TDES1_FRAME | len | (slot == RING - 1 ? TDES1_TER : 0));
            mem.set(LE, td + 8, (int) (bus + TX_BUF));
            mem.set(LE, td, TDES0_OWN);
            csr.write(CSR1, 0);
            long rd = RX_RING + 16L * slot;
            int st = mem.get(LE, rd);
            if (!Dec21140DescriptorRing.isGoodReceive(st)) {
                throw new AssertionError("frame " + k + ": RDES0 0x" + Integer.toHexString(st));
            }
            mem.set(LE, rd, RDES0_OWN);
            csr.write(CSR2, 0);
            csr.write(CSR5, csr.read(CSR5) & LINUX_CSR5_ACK_MASK);
        }
    }
}
