package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.sim.atm.Aal5;
import io.nicbridge.sim.atm.AtmCells;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** One endpoint can never observe or alter another's data, whatever its process writes into its own page. */
class Sba200IsolationTest {
    private static final ValueLayout.OfInt BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private static byte[] snapshot(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void fuzzedSendsAndFreeBuffersStayInsideTheirOwnEndpoint() {
        try (CardRig r = CardRig.inline()) {
            UnetEndpoint attacker = r.endpoint(8192, 8);
            UnetEndpoint victim = r.endpoint(8192, 8);
            int attackerRx = 200;
            int ach = r.kernel.openChannel(attacker, 0, 100, attackerRx);
            r.kernel.openChannel(victim, 0, 101, 201);
            attacker.segment().fill((byte) 0x11);
            victim.segment().fill((byte) 0xEE);
            byte[] victimPage = snapshot(victim.page());
            byte[] victimSegment = snapshot(victim.segment());
            byte[] victimRq = snapshot(victim.receiveQueueSegment());
            byte[] vciTable = snapshot(r.card.registers().window().asSlice(VCI_TABLE_OFS, VCI_TABLE_SIZE));

            SplittableRandom rnd = new SplittableRandom(2024);
            MemorySegment page = attacker.page();
            int sent = 0;
            for (int round = 0; round < 3000; round++) {
                // A random send descriptor: random flags, channel, length, buffer pairs (often far out of range).
                int prod = page.get(BE, EPCB_SQ_PROD_OFS);
                long d = SQ_OFS + (long) (prod & (SQ_LEN - 1)) * SEND_DESC_SIZE;
                for (int w = 1; w < 16; w++) {
                    int v = switch (rnd.nextInt(4)) {
                        case 0 -> rnd.nextInt();
                        case 1 -> rnd.nextInt(9000);
                        case 2 -> 8192 - rnd.nextInt(64);
                        default -> rnd.nextInt(64);
                    };
                    page.set(BE, d + 4L * w, v);
                }
                int w0 = rnd.nextInt() | (rnd.nextInt(8) != 0 ? TX_VALID : 0);
                if (rnd.nextBoolean()) {
                    w0 = w0 & ~TX_CHAN_MASK | ach << TX_CHAN_SHIFT;
                }
                if (rnd.nextInt(3) == 0) {
                    // Plausible descriptors whose buffers straddle the segment's end now and then.
                    int nbufs = 1 + rnd.nextInt(MAX_BUFS);
                    int total = 0;
                    for (int i = 0; i < nbufs; i++) {
                        int len = rnd.nextInt(300);
                        page.set(BE, d + 8 + 8L * i, rnd.nextInt(8192 - len + 40));
                        page.set(BE, d + 12 + 8L * i, len);
                        total += len;
                    }
                    w0 = TX_VALID | nbufs << TX_NBUFS_SHIFT | ach << TX_CHAN_SHIFT | Math.max(total, 1);
                }
                page.set(BE, d, w0);
                page.set(BE, EPCB_SQ_PROD_OFS, prod + 1);
                // A random free-queue entry and sometimes a garbage producer index.
                int fq = page.get(BE, EPCB_FQ_PROD_OFS);
                page.set(BE, FQ_OFS + (fq & (FQ_LEN - 1)) * 8L, rnd.nextBoolean() ? rnd.nextInt() : rnd.nextInt(128) * 64);
                page.set(BE, FQ_OFS + (fq & (FQ_LEN - 1)) * 8L + 4, rnd.nextBoolean() ? rnd.nextInt() : rnd.nextInt(9000));
                page.set(BE, EPCB_FQ_PROD_OFS, rnd.nextInt(50) == 0 ? rnd.nextInt() : fq + 1);
                r.ringSendDoorbell(attacker);
                // Traffic for the attacker's own channel exercises its (garbage) free buffers.
                r.injectAll(r.cellsOf(0, attackerRx, Pair.bytes(1 + rnd.nextInt(400), round)));
                long dq;
                MemorySegment arq = attacker.receiveQueueSegment();
                for (int i = 0; i < attacker.receiveQueueLength(); i++) {
                    arq.set(BE, i * 64L, 0); // consume everything
                }
                if (page.get(BE, d + 4) == TX_STATUS_SENT) {
                    sent++;
                }
            }
            assertTrue(sent > 10, "some fuzzed descriptors were legal and sent: " + sent);
            assertTrue(r.counter(UG_CNT_TX_REJECTED_OFS) > 1000);

            assertArrayEquals(victimPage, snapshot(victim.page()), "victim endpoint page unchanged");
            assertArrayEquals(victimSegment, snapshot(victim.segment()), "victim segment unchanged");
            assertArrayEquals(victimRq, snapshot(victim.receiveQueueSegment()), "victim receive queue unchanged");
            assertArrayEquals(vciTable, snapshot(r.card.registers().window().asSlice(VCI_TABLE_OFS, VCI_TABLE_SIZE)));

            // Every PDU that left carries only the attacker's own bytes (0x11), never the victim's (0xEE).
            int start = 0;
            for (int i = 0; i < r.sent.size(); i++) {
                MemorySegment c = MemorySegment.ofArray(r.sent.get(i));
                if (AtmCells.isLastOfPdu(AtmCells.readHeader(c, 0))) {
                    int len = Aal5.trailerLength(c, 5);
                    int at = 0;
                    for (int k = start; k <= i && at < len; k++) {
                        byte[] cell = r.sent.get(k);
                        for (int b = 5; b < 53 && at < len; b++, at++) {
                            assertTrue(cell[b] == 0x11 || inlineSend(cell), "byte " + at + " of a PDU was 0x"
                                + Integer.toHexString(cell[b] & 0xFF));
                        }
                    }
                    start = i + 1;
                }
            }
        }
    }

    /** Inline sends carry the descriptor's own (random) words: they are the attacker's too. */
    private static boolean inlineSend(byte[] cell) {
        return cell[5] != (byte) 0xEE || cell[6] != (byte) 0xEE || cell[7] != (byte) 0xEE;
    }

    @Test
    void aProcessMappingIsExactlyItsOwnPage() {
        try (CardRig r = CardRig.inline()) {
            UnetEndpoint a = r.endpoint(4096, 4);
            UnetEndpoint b = r.endpoint(4096, 4);
            assertEquals(EP_PAGE_SIZE, a.page().byteSize());
            assertThrows(IndexOutOfBoundsException.class, () -> a.page().get(BE, EP_PAGE_SIZE));
            assertThrows(IndexOutOfBoundsException.class, () -> a.page().set(BE, -4, 1));
            assertNotEquals(a.page().address(), b.page().address());
            assertEquals(4096, a.segment().byteSize());
            try (CardRig other = CardRig.inline()) {
                UnetEndpoint foreign = other.endpoint(4096, 4);
                assertThrows(IllegalStateException.class, () -> r.kernel.openChannel(foreign, 0, 0, 100, 200),
                    "an endpoint of another card's driver is not this driver's to touch");
                r.kernel.destroyEndpoint(foreign); // not its own: a no-op
                assertTrue(foreign.isLive());
            }
        }
    }
}
