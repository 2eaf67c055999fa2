package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.dec21140.RingHosts.Geometry;
import io.nicbridge.sim.dec21140.RingHosts.RxHost;
import io.nicbridge.sim.dec21140.RingHosts.TxHost;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.ethernet.EthernetSegment;
import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Ring wrap, chain, suspend and resume under arbitrary ownership patterns. Without faults no frame is lost,
 * duplicated or reordered; with faults every loss shows in a counter.
 */
class Dec21140RingProperties {

    private static void start(CardHarness h, Geometry g, int csr6) {
        h.write(CSR0, g.dsl << CSR0_DSL_SHIFT);
        h.write(CSR3, h.bus32(g.rx[0]));
        h.write(CSR4, h.bus32(g.tx[0]));
        h.write(CSR6, CSR6_MBO | CSR6_PS | CSR6_SF | CSR6_SR | CSR6_ST | csr6);
    }

    @Property(tries = 150)
    void transmitNeverLosesDuplicatesOrReorders(@ForAll boolean chain, @ForAll @IntRange(min = 2, max = 12) int n,
                                                @ForAll @IntRange(min = 0, max = 4) int dsl,
                                                @ForAll @Size(min = 1, max = 40) List<@IntRange(min = 1, max = 1514) Integer> sizes,
                                                @ForAll @Size(max = 80) List<@IntRange(min = 0, max = 99) Integer> ops,
                                                @ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        try (CardHarness h = new CardHarness()) {
            Geometry g = new Geometry(n, chain, dsl, seed);
            TxHost tx = new TxHost(h, g);
            start(h, g, 0);
            int next = 0;
            for (int op : ops) {
                if (next < sizes.size() && op < 50) {
                    if (tx.post(RingHosts.numbered(next, sizes.get(next) - 14, CardHarness.PEER), 1 + op % 3, r)) {
                        next++;
                    }
                } else if (op < 75) {
                    h.write(CSR1, 0);
                } else {
                    tx.reclaim();
                }
            }
            for (int guard = 0; next < sizes.size() && guard < 10_000; guard++) {
                tx.reclaim();
                if (tx.post(RingHosts.numbered(next, sizes.get(next) - 14, CardHarness.PEER), 1 + r.nextInt(3), r)) {
                    next++;
                } else {
                    h.write(CSR1, 0);
                }
            }
            h.write(CSR1, 0);
            tx.reclaim();
            assertEquals(sizes.size(), next);
            assertEquals(tx.expected.size(), h.wire.frames.size(), "every frame exactly once");
            for (int i = 0; i < tx.expected.size(); i++) {
                assertArrayEquals(tx.expected.get(i), h.wire.frames.get(i), "frame " + i + " in order, intact");
            }
            assertEquals(0, tx.inFlight, "every descriptor handed back");
            assertEquals(0, h.read(CSR5) & CSR5_FBE);
            assertEquals(TS_SUSPENDED, h.ts());
        }
    }

    @Property(tries = 150)
    void receiveNeverLosesWhenTheHostKeepsUp(@ForAll boolean chain, @ForAll @IntRange(min = 2, max = 12) int n,
                                             @ForAll @IntRange(min = 0, max = 4) int dsl,
                                             @ForAll @Size(min = 1, max = 40) List<@IntRange(min = 60, max = 1514) Integer> sizes,
                                             @ForAll @Size(max = 80) List<@IntRange(min = 0, max = 99) Integer> ops,
                                             @ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        try (CardHarness h = new CardHarness()) {
            Geometry g = new Geometry(n, chain, dsl, seed);
            RxHost rx = new RxHost(h, g, r, 128);
            start(h, g, CSR6_PR);
            List<byte[]> sent = new ArrayList<>();
            int next = 0;
            int o = 0;
            int ringBytes = 0;
            for (int i = 0; i < n; i++) {
                ringBytes += rx.size1[i] + rx.size2[i];
            }
            boolean drain = false;
            for (int guard = 0; next < sizes.size(); guard++) {
                assertTrue(guard < 100_000, "the test loop must end");
                // after the generated ops, alternate arrivals with hand-backs so that the loop always ends
                int op = o < ops.size() ? ops.get(o++) : (drain = !drain) ? 90 : 0;
                int size = Math.min(sizes.get(next), ringBytes - ETH_FCS_LEN); // must fit the whole ring
                byte[] f = CardHarness.withFcs(RingHosts.numbered(next, size - 14, CardHarness.MAC));
                if (op < 50 && rx.capacity() >= f.length) {
                    h.arrive(f);
                    sent.add(f);
                    next++;
                } else if (op < 80) {
                    rx.process();
                    rx.giveBack(1 + op % 4, op % 2 == 0);
                } else {
                    rx.process();
                    if (rx.capacity() < f.length) {
                        rx.giveBack(g.n, false);
                    }
                }
            }
            rx.process();
            assertEquals(sent.size(), rx.good.size(), "no loss: " + h.card.counters());
            for (int i = 0; i < sent.size(); i++) {
                assertArrayEquals(sent.get(i), rx.good.get(i), "frame " + i + " in order, intact, with its FCS");
            }
            assertEquals(0, h.card.counters().rxLost());
            assertEquals(0, h.read(CSR8) & CSR8_MFC_MASK);
        }
    }

    @Property(tries = 150)
    void receiveAccountsForEveryFrameUnderArbitraryOwnership(
            @ForAll boolean chain, @ForAll @IntRange(min = 2, max = 8) int n,
            @ForAll @IntRange(min = 0, max = 4) int dsl,
            @ForAll @Size(min = 1, max = 60) List<@IntRange(min = 60, max = 1514) Integer> sizes,
            @ForAll @Size(max = 120) List<@IntRange(min = 0, max = 99) Integer> ops,
            @ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        try (CardHarness h = new CardHarness()) {
            Geometry g = new Geometry(n, chain, dsl, seed);
            RxHost rx = new RxHost(h, g, r, 64);
            start(h, g, CSR6_PR);
            List<byte[]> sent = new ArrayList<>();
            int o = 0;
            for (int next = 0; next < sizes.size(); ) {
                int op = o < ops.size() ? ops.get(o++) : r.nextInt(100);
                if (op < 60) { // frames arrive whether or not the host has buffers for them
                    byte[] f = CardHarness.withFcs(RingHosts.numbered(next, sizes.get(next) - 14, CardHarness.MAC));
                    h.arrive(f);
                    sent.add(f);
                    next++;
                } else {
                    rx.process();
                    rx.giveBack(op % 5, op % 3 == 0);
                }
            }
            rx.process();
            Dec21140Counters c = h.card.counters();
            assertEquals(sent.size(), rx.good.size() + rx.truncated + c.rxMissed(), "every frame accounted: " + c);
            assertEquals(rx.truncated, c.rxTruncated());
            assertEquals(c.rxFrames(), rx.good.size());
            int last = -1;
            for (byte[] got : rx.good) { // what arrived is intact and in order
                int seq = (got[14] & 0xFF) << 24 | (got[15] & 0xFF) << 16 | (got[16] & 0xFF) << 8 | (got[17] & 0xFF);
                assertTrue(seq > last, "in order, no duplicate");
                assertArrayEquals(sent.get(seq), got);
                last = seq;
            }
        }
    }

    @Property(tries = 60)
    void faultyWireEveryLossShowsInACounter(@ForAll @IntRange(min = 2, max = 8) int n, @ForAll boolean chain,
                                            @ForAll @Size(min = 1, max = 40) List<@IntRange(min = 1, max = 1514) Integer> sizes,
                                            @ForAll @Size(max = 100) List<@IntRange(min = 0, max = 99) Integer> ops,
                                            @ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        FaultPlan faults = FaultPlan.builder().seed(seed).drop(0.1).duplicate(0.1).reorder(0.1).corrupt(0.15).build();
        try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.INLINE, seed)) {
            EthernetSegment lab = bed.ethernet("lab", b -> b.faults(faults));
            Dec21140Card a = bed.dec21140("a", lab, CardHarness.PEER);
            Dec21140Card b = bed.dec21140("b", lab, CardHarness.MAC);
            try (CardHarness ha = new CardHarness(a.model()); CardHarness hb = new CardHarness(b.model())) {
                Geometry g = new Geometry(n, chain, 1, seed);
                TxHost tx = new TxHost(ha, g);
                RxHost rx = new RxHost(hb, g, r, 64);
                start(ha, g, 0);
                start(hb, g, CSR6_PR | CSR6_PB);
                List<byte[]> sent = new ArrayList<>();
                int o = 0;
                for (int next = 0; next < sizes.size(); ) {
                    int op = o < ops.size() ? ops.get(o++) : r.nextInt(100);
                    if (op < 50) {
                        byte[] f = RingHosts.numbered(next, sizes.get(next) - 14, CardHarness.MAC);
                        if (tx.post(f, 1 + op % 3, r)) {
                            sent.add(tx.expected.getLast());
                            next++;
                        } else {
                            tx.reclaim();
                            ha.write(CSR1, 0);
                        }
                    } else if (op < 60) {
                        ha.write(CSR1, 0);
                    } else {
                        rx.process();
                        rx.giveBack(op % 4, op % 2 == 0);
                    }
                }
                ha.write(CSR1, 0);
                rx.process();
                long transmitted = a.counters().txFrames();
                assertEquals(sent.size(), transmitted, "the sender lost nothing");
                long arrivals = transmitted - lab.drops(EthernetSegment.DropReason.FAULT)
                    + lab.faultCount(FaultKind.DUPLICATE) - (lab.holdsFrame() ? 1 : 0);
                Dec21140Counters c = b.counters();
                assertEquals(arrivals, c.rxFrames() + c.rxLost(), "every frame that reached b is accounted: " + c);
                assertEquals(c.rxFrames(), rx.good.size() + rx.crcErrors);
                assertEquals(c.rxCrcErrors(), rx.crcErrors);
                assertEquals(c.rxTruncated(), rx.truncated);
                for (byte[] got : rx.good) {
                    int seq = (got[14] & 0xFF) << 24 | (got[15] & 0xFF) << 16 | (got[16] & 0xFF) << 8 | (got[17] & 0xFF);
                    assertTrue(seq >= 0 && seq < sent.size(), "a frame we sent");
                    assertArrayEquals(sent.get(seq), got, "a frame with a good FCS is intact: " + Arrays.toString(got));
                }
            }
        }
    }
}
