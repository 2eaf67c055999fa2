package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.util.ArrayDeque;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Any sequence of host operations - pushes of any value into TX_FIFO and FREE_FIFO, pops, TX on/off, RESET -
 * against a reference model of buffer ownership: every push is accepted or rejected exactly as the model says,
 * every FIFO pop returns what the model expects, and no buffer is ever handed to the host twice.
 */
class MedusaOwnershipPropertyTest {
    static final int HOST = 0;
    static final int FREE = 1;
    static final int TX = 2;

    @Property(tries = 60)
    void theCardFollowsTheOwnershipModel(@ForAll @Size(min = 1, max = 400) List<@IntRange(min = 0, max = 9999) Integer> ops) {
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.INLINE, 0)) {
            MedusaHost h = new MedusaHost(bed.medusa("p", bed.fddiRing("fddi0"), MedusaHost.mac(1)));
            int base = CTRL_RX_EN | CTRL_LOOPBACK | CTRL_FRAME_OFS3;
            h.write(REG_CTRL, base);
            for (int n = 0; n < BUF_COUNT; n++) {
                h.frame(n, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(1), MedusaHost.mac(1), n % 40, n);
            }
            int[] owner = new int[BUF_COUNT];
            ArrayDeque<Integer> free = new ArrayDeque<>();
            ArrayDeque<Integer> txq = new ArrayDeque<>();
            ArrayDeque<Integer> txdone = new ArrayDeque<>();
            ArrayDeque<Integer> rx = new ArrayDeque<>();
            boolean txOn = false;
            long rejectedTx = 0;
            long rejectedFree = 0;
            for (int op : ops) {
                int kind = op % 7;
                int arg = op / 7; // 0..1428: many out of range (>= 128)
                int value = arg < 200 ? arg : (arg % 3 == 0 ? -arg : arg << 20 | (arg & 0x7F));
                switch (kind) {
                    case 0, 1 -> { // TX push
                        h.write(REG_TX_FIFO, value);
                        if (value >= 0 && value < BUF_COUNT && owner[value] == HOST) {
                            owner[value] = TX;
                            txq.add(value);
                            if (txOn) {
                                drain(txq, free, txdone, rx, owner);
                            }
                        } else {
                            rejectedTx++;
                        }
                    }
                    case 2 -> { // FREE push
                        h.write(REG_FREE_FIFO, value);
                        if (value >= 0 && value < BUF_COUNT && owner[value] == HOST) {
                            owner[value] = FREE;
                            free.add(value);
                        } else {
                            rejectedFree++;
                        }
                    }
                    case 3 -> {
                        Integer e = txdone.poll();
                        assertEquals(e == null ? 0 : FIFO_VALID | e, h.read(REG_TXDONE_FIFO));
                    }
                    case 4 -> {
                        Integer e = rx.poll();
                        assertEquals(e == null ? 0 : FIFO_VALID | e, h.read(REG_RX_FIFO));
                    }
                    case 5 -> {
                        txOn = !txOn;
                        h.write(REG_CTRL, txOn ? base | CTRL_TX_EN : base);
                        if (txOn) {
                            drain(txq, free, txdone, rx, owner);
                        }
                    }
                    default -> {
                        if (arg % 20 == 0) { // an occasional RESET: everything back to the host
                            h.write(REG_CTRL, CTRL_RESET);
                            h.write(REG_CTRL, base);
                            txOn = false;
                            java.util.Arrays.fill(owner, HOST);
                            free.clear();
                            txq.clear();
                            txdone.clear();
                            rx.clear();
                            for (int n = 0; n < BUF_COUNT; n++) { // RESET clears the status table: LEN again
                                h.frame(n, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(1), MedusaHost.mac(1), n % 40, n);
                            }
                        }
                    }
                }
                int level = h.read(REG_FIFO_LEVEL);
                assertEquals(txq.size(), level & FIFO_LEVEL_TX_MASK);
                assertEquals(txdone.size(), (level & FIFO_LEVEL_TXDONE_MASK) >>> FIFO_LEVEL_TXDONE_SHIFT);
                assertEquals(rx.size(), (level & FIFO_LEVEL_RX_MASK) >>> FIFO_LEVEL_RX_SHIFT);
                assertEquals(free.size(), level >>> FIFO_LEVEL_FREE_SHIFT);
                assertEquals(rejectedTx, h.card.model().rejectedTxPushes());
                assertEquals(rejectedFree, h.card.model().rejectedFreePushes());
            }
            assertEquals(0, h.card.model().counter(REG_CNT_TX_ERRORS), "every queued frame was valid");
        }
    }

    /** Loopback with TX on: each queued frame completes at once and is received into the next FREE buffer. */
    private static void drain(ArrayDeque<Integer> txq, ArrayDeque<Integer> free, ArrayDeque<Integer> txdone,
                              ArrayDeque<Integer> rx, int[] owner) {
        while (!txq.isEmpty()) {
            int n = txq.poll();
            Integer f = free.poll();
            if (f != null) {
                owner[f] = HOST;
                rx.add(f);
            }
            owner[n] = HOST;
            txdone.add(n);
        }
    }
}
