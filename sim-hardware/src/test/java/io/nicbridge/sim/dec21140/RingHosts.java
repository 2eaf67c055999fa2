package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Minimal host drivers for property tests: a transmit list and a receive list of {@code n} descriptors in ring
 * mode (with a skip length) or chain mode (descriptors scattered, linked by word 3, the last also end-of-ring with
 * a bogus word 3 that must not be followed), each descriptor with its own two 2 KiB buffers.
 */
final class RingHosts {
    private RingHosts() {
    }

    /** Where each descriptor lives and how the list is linked. */
    static final class Geometry {
        final int n;
        final boolean chain;
        final int dsl;
        final long[] tx;
        final long[] rx;

        Geometry(int n, boolean chain, int dsl, long seed) {
            this.n = n;
            this.chain = chain;
            this.dsl = chain ? 0 : dsl;
            this.tx = place(CardHarness.TX_RING, seed);
            this.rx = place(CardHarness.RX_RING, seed ^ 0x5DEECE66DL);
        }

        private long[] place(long base, long seed) {
            long[] at = new long[n];
            if (chain) {
                int[] slots = new int[64]; // 64-byte slots in one 4 KiB page, shuffled
                for (int i = 0; i < slots.length; i++) {
                    slots[i] = i;
                }
                SplittableRandom r = new SplittableRandom(seed);
                for (int i = slots.length - 1; i > 0; i--) {
                    int j = r.nextInt(i + 1);
                    int t = slots[i];
                    slots[i] = slots[j];
                    slots[j] = t;
                }
                for (int i = 0; i < n; i++) {
                    at[i] = base + 64L * slots[i];
                }
            } else {
                for (int i = 0; i < n; i++) {
                    at[i] = base + (16L + 4L * dsl) * i;
                }
            }
            return at;
        }

        /** End-of-ring and chain bits of descriptor i (the caller adds sizes and flags). */
        int listBits(int i, int endOfRing, int chained) {
            return (i == n - 1 ? endOfRing : 0) | (chain ? chained : 0);
        }

        /** Word 3 of descriptor i in chain mode; the last one's is an unmapped address the card must not follow. */
        long link(CardHarness h, long[] list, int i) {
            return i == n - 1 ? 0x00000040L : h.bus(list[i + 1]);
        }
    }

    /** Transmit side: posts frames split over descriptors and buffers, setting OWN in an arbitrary order. */
    static final class TxHost {
        final CardHarness h;
        final Geometry g;
        final List<byte[]> expected = new ArrayList<>();
        int head;
        int tail;
        int inFlight;

        TxHost(CardHarness h, Geometry g) {
            this.h = h;
            this.g = g;
            for (int i = 0; i < g.n; i++) {
                h.desc(g.tx[i], 0, g.listBits(i, TDES1_TER, TDES1_TCH), 0, g.chain ? g.link(h, g.tx, i) : 0);
            }
        }

        long buffer(int slot, int which) {
            return CardHarness.TX_BUF + 4096L * slot + 2048L * which;
        }

        /**
         * Posts {@code frame} in {@code pieces} descriptors (1..3), handing OWN over in an order and with CSR1 writes
         * drawn from {@code r}. @return false when there are not enough free descriptors
         */
        boolean post(byte[] frame, int pieces, SplittableRandom r) {
            pieces = Math.max(1, Math.min(pieces, Math.min(frame.length, 3)));
            if (g.n - inFlight < pieces) {
                return false;
            }
            int[] cut = new int[pieces + 1];
            cut[pieces] = frame.length;
            for (int p = 1; p < pieces; p++) {
                cut[p] = cut[p - 1] + 1 + r.nextInt(frame.length - cut[p - 1] - (pieces - p));
            }
            int[] slots = new int[pieces];
            for (int p = 0; p < pieces; p++) {
                int slot = (head + p) % g.n;
                slots[p] = slot;
                byte[] part = Arrays.copyOfRange(frame, cut[p], cut[p + 1]);
                int control = g.listBits(slot, TDES1_TER, TDES1_TCH) | (p == 0 ? TDES1_FS : 0)
                    | (p == pieces - 1 ? TDES1_LS : 0);
                long b1 = buffer(slot, 0);
                if (!g.chain && part.length > 1 && r.nextBoolean()) { // use both buffers
                    int s1 = 1 + r.nextInt(part.length - 1);
                    h.put(b1, Arrays.copyOf(part, s1));
                    h.put(buffer(slot, 1), Arrays.copyOfRange(part, s1, part.length));
                    control |= s1 | ((part.length - s1) << TDES1_TBS2_SHIFT);
                    h.desc(g.tx[slot], 0, control, h.bus(b1), h.bus(buffer(slot, 1)));
                } else {
                    h.put(b1, part);
                    control |= part.length;
                    h.desc(g.tx[slot], 0, control, h.bus(b1), g.chain ? g.link(h, g.tx, slot) : 0);
                }
            }
            // hand over in an arbitrary order, with doorbells in between: the card may meet a host-owned
            // descriptor in the middle of the frame, suspend, and must resume the same frame later
            int[] order = shuffled(pieces, r);
            for (int p : order) {
                h.mem.set(CardHarness.LE, g.tx[slots[p]], TDES0_OWN);
                if (r.nextInt(3) == 0) {
                    h.write(CSR1, 0);
                }
            }
            head = (head + pieces) % g.n;
            inFlight += pieces;
            byte[] wire = frame.length < ETH_MIN_FRAME_NOFCS ? Arrays.copyOf(frame, ETH_MIN_FRAME_NOFCS) : frame;
            expected.add(CardHarness.withFcs(wire));
            return true;
        }

        void reclaim() {
            while (inFlight > 0 && (h.word(g.tx[tail]) & TDES0_OWN) == 0) {
                tail = (tail + 1) % g.n;
                inFlight--;
            }
        }
    }

    /** Receive side: hands descriptors back in batches, reassembles FS..LS frames. */
    static final class RxHost {
        final CardHarness h;
        final Geometry g;
        final int[] size1;
        final int[] size2;
        final List<byte[]> good = new ArrayList<>();
        int crcErrors;
        int truncated;
        int cursor;       // next descriptor the host expects the card to complete
        int armedUpTo;    // descriptors [cursor, cursor + armed) are card-owned
        int armed;
        final List<Integer> processed = new ArrayList<>(); // completed, not yet given back
        private byte[] partial = new byte[0];

        RxHost(CardHarness h, Geometry g, SplittableRandom r, int minBuffer) {
            this.h = h;
            this.g = g;
            this.size1 = new int[g.n];
            this.size2 = new int[g.n];
            for (int i = 0; i < g.n; i++) {
                size1[i] = (minBuffer + r.nextInt(LINUX_RX_BUF_SIZE - minBuffer + 1)) & ~3;
                size2[i] = g.chain || r.nextBoolean() ? 0 : (64 + r.nextInt(512)) & ~3;
                arm(i);
            }
            armed = g.n;
        }

        long buffer(int slot, int which) {
            return CardHarness.RX_BUF + 4096L * slot + 2048L * which;
        }

        private void arm(int i) {
            int control = g.listBits(i, RDES1_RER, RDES1_RCH) | size1[i] | (size2[i] << RDES1_RBS2_SHIFT);
            long w3 = g.chain ? g.link(h, g.rx, i) : h.bus(buffer(i, 1));
            h.desc(g.rx[i], RDES0_OWN, control, h.bus(buffer(i, 0)), w3);
        }

        /** Processes what the card completed, then: @return bytes the still card-owned descriptors can hold */
        int capacity() {
            process();
            int c = 0;
            for (int k = 0; k < armed; k++) {
                int i = (cursor + k) % g.n;
                c += size1[i] + size2[i];
            }
            return c;
        }

        /** Takes every completed descriptor in order. */
        void process() {
            while (armed > 0) {
                int i = cursor;
                int st = h.word(g.rx[i]);
                if ((st & RDES0_OWN) != 0) {
                    return;
                }
                int fl = (st & RDES0_FL_MASK) >>> RDES0_FL_SHIFT;
                int have = partial.length;
                int take = (st & RDES0_LS) != 0 ? Math.max(0, fl - have) : size1[i] + size2[i];
                byte[] data = new byte[take];
                int n1 = Math.min(take, size1[i]);
                System.arraycopy(h.get(buffer(i, 0), n1), 0, data, 0, n1);
                if (take > n1) {
                    System.arraycopy(h.get(buffer(i, 1), take - n1), 0, data, n1, take - n1);
                }
                if ((st & RDES0_FS) != 0) {
                    partial = new byte[0];
                }
                byte[] joined = Arrays.copyOf(partial, partial.length + data.length);
                System.arraycopy(data, 0, joined, partial.length, data.length);
                partial = joined;
                if ((st & RDES0_LS) != 0) {
                    if ((st & RDES0_DE) != 0) {
                        truncated++;
                    } else if ((st & RDES0_CE) != 0) {
                        crcErrors++;
                    } else {
                        good.add(partial);
                    }
                    partial = new byte[0];
                }
                processed.add(i);
                cursor = (cursor + 1) % g.n;
                armed--;
            }
        }

        /** Gives back up to {@code count} processed descriptors (oldest first), then maybe a CSR2 write. */
        void giveBack(int count, boolean pollDemand) {
            for (int k = 0; k < count && !processed.isEmpty(); k++) {
                arm(processed.remove(0));
                armed++;
            }
            if (pollDemand) {
                h.write(CSR2, 0);
            }
        }
    }

    static int[] shuffled(int n, SplittableRandom r) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return a;
    }

    /** A frame to MAC with a sequence number in its payload. */
    static byte[] numbered(int seq, int payload, byte[] dst) {
        byte[] f = CardHarness.frame(dst, CardHarness.PEER, 0x88B5, Math.max(payload, 4));
        f[14] = (byte) (seq >>> 24);
        f[15] = (byte) (seq >>> 16);
        f[16] = (byte) (seq >>> 8);
        f[17] = (byte) seq;
        return f;
    }
}
