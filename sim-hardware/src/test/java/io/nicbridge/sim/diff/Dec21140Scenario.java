package io.nicbridge.sim.diff;

import static io.nicbridge.sim.diff.ScenarioLines.at;

import java.util.List;

/**
 * Random scenario of the 21140 differential test ({@link Dec21140DiffTest}): descriptors in ring mode with a random
 * descriptor skip length, setup frames, transmit and receive traffic, CSR writes, bad sizes and bad addresses. One
 * operation per line:
 *
 * <pre>
 *   W off value          register write            R off               register read (traced)
 *   D off w0 w1 w2 w3    descriptor (w1..w3 first, w0 last)
 *   P off len seed       fill memory with (i*7+seed)
 *   Z off / H off        a perfect / hash setup frame at off
 *   F dst len seed type  a frame from the wire (no FCS); dst MAC, PEER, BCAST, MCAST or OTHER
 *   T                    CSR11 := 1 (one-shot, one tick), then time passes until it expired (GTE, under AIS)
 *   END                  final dump
 * </pre>
 *
 * Numbers are decimal; "@X" is the bus address of memory offset X. Features where the shim differs from the model
 * on purpose (AC frames, frames under 14 bytes, the MTU, a full kernel TX ring, the DMA timing) are not generated; of the
 * timers only the CSR11 expiry is, through T (both runners wait it out).
 */
final class Dec21140Scenario {
    static final int MEM = 0x40000;
    private static final int RXR = 0x0;
    private static final int TXR = 0x1000;
    private static final int SETUP = 0x3000;
    private static final int TXB = 0x4000;
    private static final int RXB = 0x8000;

    private final ScenarioRandom r;
    private final ScenarioLines out = new ScenarioLines();
    private final int stride;
    private final int ntx;
    private final int nrx;

    private Dec21140Scenario(long seed) {
        r = new ScenarioRandom(seed);
        int dsl = (int) r.pick(0, 0, 1, 2);
        stride = 16 + 4 * dsl;
        ntx = r.between(3, 8);
        nrx = r.between(2, 8);
        prologue(dsl);
    }

    static List<String> generate(long seed, int operations) {
        Dec21140Scenario s = new Dec21140Scenario(seed);
        s.body(operations);
        return s.out.lines();
    }

    private void op(Object... words) {
        out.op(words);
    }

    private Object randomAddress(int base, int span, boolean align) {
        double x = r.next();
        if (x < 0.005) {
            return 0;
        }
        if (x < 0.01) {
            return at(MEM - r.between(1, 64));
        }
        if (x < 0.015) {
            return at(base + r.below(span) | 2);
        }
        int a = base + r.below(span);
        return at(align ? a & ~3 : a);
    }

    private void txDescriptor(int i) {
        long c = 0;
        Object b1;
        Object b2;
        if (r.chance(0.06)) { // setup frame
            c |= 1L << 27;
            c |= r.pick(0, 1L << 22, 1L << 28, (1L << 28) | (1L << 22));
            c |= r.chance(0.8) ? 192 : r.between(0, 300);
            if (r.chance(0.5)) {
                c |= 1L << 31;
            }
            b1 = r.chance(0.95) ? at(SETUP) : 0;
            b2 = 0;
        } else {
            boolean fs = r.chance(0.8);
            boolean ls = r.chance(0.8);
            if (fs) {
                c |= 1L << 29;
            }
            if (ls) {
                c |= 1L << 30;
            }
            if (r.chance(0.4)) {
                c |= 1L << 31;
            }
            long s1 = r.chance(0.97) ? r.pick(0, r.between(1, 300), r.between(1, 60), r.between(1000, 2047)) : 0;
            long s2 = r.chance(0.3) ? r.between(1, 200) : 0;
            if (r.chance(0.02)) {
                s1 = 2047;
                s2 = 2047;
            }
            c |= s1 | (s2 << 11);
            if (s1 >= 14 && r.chance(0.15)) {
                c |= 1L << 23; // DPD (only where the frame cannot be shorter than a header, which AF_PACKET needs)
            }
            b1 = randomAddress(TXB, 0x3000, false);
            b2 = randomAddress(TXB, 0x3000, false);
        }
        if (i == ntx - 1) {
            c |= 1L << 25;
        }
        if (r.chance(0.15)) { // chained: word 3 points at the next descriptor (TBS2 then ignored)
            c |= 1L << 24;
            b2 = at(TXR + (long) ((i + 1) % ntx) * stride);
        }
        long own = r.chance(0.85) ? 1L << 31 : 0;
        op("D", TXR + i * stride, own, c, b1, b2);
    }

    private void rxDescriptor(int i) {
        long s1 = r.chance(0.97) ? r.pick(r.between(0, 500) & ~3, r.between(0, 200), 1536, 64, 0) : 0;
        long s2 = r.chance(0.3) ? r.between(0, 300) & ~3 : 0;
        long c = s1 | (s2 << 11);
        if (i == nrx - 1) {
            c |= 1L << 25;
        }
        Object b2 = randomAddress(RXB + 0x1000 * i + 0x800, 0x400, true);
        if (r.chance(0.15)) { // chained
            c |= 1L << 24;
            b2 = at(RXR + (long) ((i + 1) % nrx) * stride);
        }
        long own = r.chance(0.85) ? 1L << 31 : 0;
        op("D", RXR + i * stride, own, c, randomAddress(RXB + 0x1000 * i, 0x800, true), b2);
    }

    private long csr6() {
        long v = (1L << 25) | (1L << 18) | (1L << 21);
        if (r.chance(0.9)) {
            v |= 2;
        }
        if (r.chance(0.9)) {
            v |= 1L << 13;
        }
        int[] bits = {6, 7, 30, 3, 0, 2, 4};
        double[] p = {0.15, 0.15, 0.08, 0.1, 0.1, 0.1, 0.1};
        for (int k = 0; k < bits.length; k++) {
            if (r.chance(p[k])) {
                v |= 1L << bits[k];
            }
        }
        if (r.chance(0.1)) {
            v |= r.pick(1, 2) << 10;
        }
        return v;
    }

    private void prologue(int dsl) {
        op("W", 0x00, 1);
        op("W", 0x00, dsl << 2);
        op("P", TXB, 0x3000, r.between(0, 255));
        op(r.chance(0.6) ? "Z" : "H", SETUP);
        for (int i = 0; i < ntx; i++) {
            txDescriptor(i);
        }
        for (int i = 0; i < nrx; i++) {
            rxDescriptor(i);
        }
        op("W", 0x18, at(RXR));
        op("W", 0x20, at(TXR));
        op("W", 0x38, r.pick(0x1ebef, 0x1ffff, 0, r.bits(17)));
        op("W", 0x30, csr6());
    }

    private void body(int operations) {
        int nextTx = ntx - 1;
        int nextRx = nrx - 1;
        for (int k = 0; k < operations; k++) {
            double x = r.next();
            if (x < 0.20) {
                String dst = new String[] {"MAC", "MAC", "PEER", "BCAST", "MCAST", "OTHER"}[r.below(6)];
                long len = r.chance(0.97) ? r.pick(r.between(60, 700), r.between(60, 100), r.between(1400, 1514)) : 2100;
                op("F", dst, len, r.between(0, 255), r.pick(0x0800, 0x0040, 0x88b5));
            } else if (x < 0.32) {
                nextTx = r.chance(0.85) ? (nextTx + 1) % ntx : r.below(ntx);
                txDescriptor(nextTx);
                op("W", 0x08, 0);
            } else if (x < 0.42) {
                nextRx = r.chance(0.85) ? (nextRx + 1) % nrx : r.below(nrx);
                rxDescriptor(nextRx);
            } else if (x < 0.50) {
                op("W", 0x08, 0);
            } else if (x < 0.56) {
                op("W", 0x10, 0);
            } else if (x < 0.64) {
                op("W", 0x28, r.pick(0x1ffff, r.bits(32), 0x0800f7baL));
            } else if (x < 0.70) {
                op("W", 0x30, csr6());
            } else if (x < 0.72) {
                op("W", 0x38, r.bits(17));
            } else if (x < 0.78) {
                op("R", 0x40);
            } else if (x < 0.81) {
                op("W", 0x18, at(RXR));
            } else if (x < 0.84) {
                op("W", 0x20, at(TXR));
            } else if (x < 0.85) {
                op("W", 0x00, r.pick(1, (long) (stride - 16) / 4 << 2));
            } else if (x < 0.87) {
                op("W", 0x30, 1L << 25);
            } else if (x < 0.88) {
                op("T");
            } else {
                op("R", 0x28);
            }
        }
        op("END");
    }
}
