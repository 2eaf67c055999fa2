package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.fault.FaultPlan;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** Two cards through the switch, in every engine mode, with and without cell faults on the fiber. */
class Sba200EndToEndTest {
    private static void exchange(Pair p, int messages) {
        p.sb.postBuffers(0, 120, 512);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int received = 0;
        int sent = 0;
        int recycled = 0;
        while (received < messages) {
            // A window of 16 messages keeps the receiver's 120 buffers from running out (U-Net has no flow control).
            if (sent < messages && p.sa.ep.sendsInFlight() < SQ_LEN && sent - received < 16) {
                int len = 1 + (sent * 37) % 2000;
                byte[] m = Pair.bytes(len, sent);
                // A send buffer is reused only once its descriptor completed: one per send-queue slot.
                boolean ok = len <= INLINE_MAX ? p.sa.sendInline(m) : p.sa.send((sent % SQ_LEN) * 2048, m);
                if (ok) {
                    sent++;
                }
            }
            while (p.sa.ep.pollSendCompletion() >= 0) {
                // collect
            }
            p.settle();
            long d;
            while ((d = p.sb.ep.poll()) >= 0) {
                int len = 1 + (received * 37) % 2000;
                assertFalse(p.sb.ep.isError(d), "message " + received + " error " + p.sb.ep.errorCode(d));
                assertArrayEquals(Pair.bytes(len, received), p.sb.payload(d), "message " + received);
                for (int i = 0; i < p.sb.ep.bufferCount(d); i++) {
                    assertTrue(p.sb.ep.offerFreeBufferUnchecked(p.sb.ep.bufferOffset(d, i), 512));
                    recycled++;
                }
                p.sb.ep.releaseKeepBuffers(d);
                received++;
            }
            assertTrue(System.nanoTime() < deadline, "timed out after " + received + " of " + messages);
            if (p.engine.mode() == EngineMode.THREADED) {
                LockSupport.parkNanos(1_000);
            }
        }
        assertTrue(recycled > 0);
        assertEquals(messages, p.b.model().counter(UG_CNT_PDUS_RX_OFS));
    }

    @Test
    void inlineEngine() {
        try (Pair p = Pair.inline()) {
            exchange(p, 300);
        }
    }

    @Test
    void virtualEngine() {
        try (Pair p = new Pair(EngineMode.VIRTUAL, Sba200Timing.I960_25MHZ, s -> s.ports(2))) {
            exchange(p, 300);
        }
    }

    @Test
    void threadedEngine() {
        try (Pair p = new Pair(EngineMode.THREADED, Sba200Timing.WIRE_ONLY, s -> s.ports(2))) {
            exchange(p, 300);
        }
    }

    @Test
    void aThreadedI960FindsSendsWithoutADoorbell() {
        try (Pair p = new Pair(EngineMode.THREADED, Sba200Timing.WIRE_ONLY, s -> s.ports(2))) {
            byte[] m = Pair.bytes(30, 1);
            // A raw queue view over the page: the descriptor and sq_prod are plain stores, no register write rings.
            var raw = new io.nicbridge.bridge.queue.UnetSendQueue(p.sa.ep.page());
            assertTrue(raw.offerInline(p.sa.channel, java.lang.foreign.MemorySegment.ofArray(m), 0, m.length) >= 0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long d;
            while ((d = p.sb.ep.poll()) < 0) {
                assertTrue(System.nanoTime() < deadline, "the i960 thread polls the send queue by itself");
                LockSupport.parkNanos(100_000);
            }
            assertArrayEquals(m, p.sb.payload(d));
        }
    }

    @Test
    void lostAndCorruptedCellsFailReassemblyAndAreCounted() {
        // Downlink to port 1: cell 2 lost (middle of a 3-cell PDU), cell 5 corrupted in its payload.
        FaultPlan plan = FaultPlan.builder().dropFrame(2).corruptFrame(5, 8 * 30).corruptFrame(8, 8 * 2).build();
        try (Pair p = new Pair(EngineMode.VIRTUAL, Sba200Timing.WIRE_ONLY, s -> s.ports(2).downlinkFaults(1, plan))) {
            p.sb.postBuffers(0, 32, 512);
            for (int i = 0; i < 4; i++) {
                assertTrue(p.sa.send(i * 1024, Pair.bytes(130, i))); // 3 cells each: cells 1-3, 4-6, 7-9, 10-12
                p.settle();
            }
            long d = p.sb.ep.poll();
            assertEquals(RX_ERR_LENGTH, p.sb.ep.errorCode(d), "lost cell");
            p.sb.ep.releaseKeepBuffers(d);
            d = p.sb.ep.poll();
            assertEquals(RX_ERR_CRC, p.sb.ep.errorCode(d), "corrupted payload");
            p.sb.ep.releaseKeepBuffers(d);
            assertEquals(1, p.b.model().counter(UG_CNT_HEC_ERRORS_OFS), "corrupted header: HEC");
            d = p.sb.ep.poll();
            assertEquals(RX_ERR_LENGTH, p.sb.ep.errorCode(d), "the cell dropped for its bad HEC is a lost cell");
            p.sb.ep.releaseKeepBuffers(d);
            d = p.sb.ep.poll();
            assertFalse(p.sb.ep.isError(d));
            assertArrayEquals(Pair.bytes(130, 3), p.sb.payload(d));
            assertEquals(2, p.b.model().counter(UG_CNT_LENGTH_ERRORS_OFS));
            assertEquals(1, p.b.model().counter(UG_CNT_AAL5_CRC_ERRORS_OFS));
            assertEquals(1, p.b.model().counter(UG_CNT_PDUS_RX_OFS), "only the clean PDU counts as received");
        }
    }
}
