package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Medusa's host-visible completions in order: the moment a buffer number enters RX_FIFO or TXDONE_FIFO (the
 * {@link MedusaTrace} event the chip core emits right after the push), the buffer's bytes and its status entry
 * must already be what the host will read after popping it. A tracer snapshots card memory at that moment; the
 * snapshot must equal what the host reads afterwards. (The Medusa has no DMA: its handoff is the FIFO push, and
 * the card memory the host reads by PIO.)
 */
class MedusaCompletionOrderTest {
    static final int LOOP = CTRL_RX_EN | CTRL_TX_EN | CTRL_LOOPBACK | CTRL_FRAME_OFS3;

    /** Card memory as it was when a buffer number was handed to the host. */
    record Snapshot(MedusaTrace.Event event, int buffer, int fifoEntry, int len, int stat, int rxck, byte[] data) {
    }

    EmulatedTestbed bed;
    MedusaHost h;
    final List<Snapshot> handoffs = new ArrayList<>();

    @BeforeEach
    void setUp() {
        bed = EmulatedTestbed.create(EngineMode.INLINE, 0);
        h = new MedusaHost(bed.medusa("m", bed.fddiRing("fddi0"), MedusaHost.mac(1)));
        MemorySegment window = h.regs.window();
        h.card.model().trace((event, buffer, value) -> {
            if (event == MedusaTrace.Event.RX_COMPLETED || event == MedusaTrace.Event.TX_COMPLETED) {
                int entry = MedusaHost.entry(buffer);
                int len = h.regs.loadRaw(entry + BUF_STATUS_LEN_OFS);
                byte[] data = new byte[Math.max(0, Math.min(len, BUF_SIZE - FRAME_OFS_DEFAULT))];
                MemorySegment.copy(window, ValueLayout.JAVA_BYTE, (long) buffer * BUF_SIZE + FRAME_OFS_DEFAULT, data,
                    0, data.length);
                handoffs.add(new Snapshot(event, buffer, value, len, h.regs.loadRaw(entry + BUF_STATUS_STAT_OFS),
                    h.regs.loadRaw(entry + BUF_STATUS_RXCK_OFS), data));
            }
        });
    }

    @AfterEach
    void tearDown() {
        bed.close();
    }

    @Test
    void aReceivedFramesBytesAndStatusAreInPlaceWhenItsNumberEntersRxFifo() {
        h.init(LOOP | CTRL_RX_CKSUM_EN, 10, 4);
        int len = h.frame(0, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(1), MedusaHost.mac(1), 200, 5);
        h.write(REG_TX_FIFO, 0); // loopback: the frame comes back into buffer 10

        int rx = h.read(REG_RX_FIFO);
        assertEquals(FIFO_VALID | 10, rx);
        Snapshot atPush = only(MedusaTrace.Event.RX_COMPLETED);
        assertEquals(rx, atPush.fifoEntry());
        assertEquals(len, h.len(10));
        assertEquals(h.len(10), atPush.len(), "LEN was written before the number was pushed");
        assertNotEquals(0, h.stat(10) & STAT_DONE_BIT);
        assertEquals(h.stat(10), atPush.stat(), "STAT was written before the number was pushed");
        assertNotEquals(0, h.rxck(10));
        assertEquals(h.rxck(10), atPush.rxck(), "RXCK was written before the number was pushed");
        assertArrayEquals(h.frameBytes(10, len), atPush.data(), "the frame's bytes were stored before the push");
        assertArrayEquals(h.frameBytes(0, len), atPush.data(), "and they are the frame sent");
    }

    @Test
    void aSentBuffersStatusIsInPlaceWhenItsNumberEntersTxDoneFifo() {
        h.init(LOOP, 10, 4);
        h.frame(0, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(1), MedusaHost.mac(1), 64, 1);
        h.frame(1, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(1), MedusaHost.mac(1), 0, 2);
        h.regs.write(MedusaHost.entry(1) + BUF_STATUS_LEN_OFS, 5); // below the MAC header: completes with an error
        h.write(REG_TX_FIFO, 0);
        h.write(REG_TX_FIFO, 1);

        assertEquals(FIFO_VALID | 0, h.read(REG_TXDONE_FIFO));
        assertEquals(FIFO_VALID | FIFO_ERROR | 1, h.read(REG_TXDONE_FIFO));
        List<Snapshot> done = handoffs.stream().filter(s -> s.event() == MedusaTrace.Event.TX_COMPLETED).toList();
        assertEquals(List.of(0, 1), done.stream().map(Snapshot::buffer).toList());
        for (Snapshot s : done) {
            assertNotEquals(0, h.stat(s.buffer()) & STAT_DONE_BIT);
            assertEquals(h.stat(s.buffer()), s.stat(), "buffer " + s.buffer() + ": STAT written before the push");
        }
    }

    private Snapshot only(MedusaTrace.Event event) {
        List<Snapshot> matching = handoffs.stream().filter(s -> s.event() == event).toList();
        assertEquals(1, matching.size(), event + " once: " + handoffs);
        return matching.getFirst();
    }
}
