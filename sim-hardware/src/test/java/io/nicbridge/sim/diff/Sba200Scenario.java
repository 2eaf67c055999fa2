package io.nicbridge.sim.diff;

import static io.nicbridge.sim.diff.ScenarioLines.at;

import static io.nicbridge.contract.Sba200Unet.*;

import java.util.List;

/**
 * Random scenario of the U-Net firmware differential test ({@link Sba200DiffTest}): kernel commands (EP_CREATE,
 * EP_DESTROY, CH_OPEN, CH_CLOSE, EP_UPCALL, GET_STATS, NOP, bad opcodes, bad arguments), send descriptors (good,
 * inline, bad length, bad buffer count, out-of-segment, bad channel, not VALID), free-queue pushes (good, misaligned,
 * outside the segment), PDUs from the network on open, closed and unknown channels (inline, multi-buffer, longer than
 * six buffers, abort), the process consuming (and recycling) receive-queue entries, interrupts, upcall masks and
 * card resets. Small receive queues and scarce free buffers make overload and buffer exhaustion frequent.
 *
 * <p>Host memory: {@code MEM} bytes at bus {@code BUS}; endpoint e (0..3) has its receive queue at
 * {@code RQ_AREA + e * 0x1000} and its segment at {@code SEG_AREA + e * SEG_STRIDE}; GET_STATS targets lie below
 * RQ_AREA. One operation per line; numbers are decimal, "@X" is the bus address of memory offset X:
 *
 * <pre>
 *   W off value            board-RAM word write (kernel or process: doorbells, intr_enable, pending W1C)
 *   B value                BCR write (0x04 clear interrupt, 0x01 reset, 0x00 release)
 *   K w0 a2 a3 a4 a5 a6    kernel command in the next slot (arguments, w0, w1 = PENDING), then cmd_prod + 1
 *   P off len seed         fill host memory with (i*7+seed)
 *   T ep w0 w2 .. w13      send descriptor in the next free SQ slot of ep (w2..w13, w1 = PENDING, w0 last);
 *                          rung by the next TD
 *   TD ep                  sq_prod += descriptors written since the last TD
 *   F ep offset length     free-queue push (skipped with "FQFULL ep" when the queue is full)
 *   RX vpi vci len seed    a PDU of len bytes (i*13+seed) from the network, UU 0, CPI 0
 *   C ep n L               the process consumes up to n receive entries (printed), clears VALID, advances
 *                          rq_cons; L &gt; 0: gives each listed buffer back to the free queue as L bytes
 *   END                    final dump
 * </pre>
 *
 * <p>Trace (identical for Sba200JavaRunner and sba200_diff_runner.c): after every operation the transmitted PDUs
 * ({@code TX vpi vci length crc32}), the received entries as the process reads them ({@code RQ ep w0 w1} and the
 * inline bytes, or {@code offset:length:crc32} per buffer) and {@code k BCR bcr PEND upcall_pending CONS cmd_cons};
 * at END every non-zero board-RAM word (command status words, EPCBs, SQ completion status, counters, VCI table),
 * every non-zero word below SEG_AREA (receive queues, GET_STATS copies) and a CRC per KiB of the segments.
 *
 * <p>What is not compared, because the media differ legitimately (cells on the Java side, one Ethernet frame per
 * PDU on the C side): the framing (a PDU is compared as VPI, VCI, length and payload CRC, never as cells or frame
 * bytes); the receive timestamps (w14/w15: each side's own clock); the heartbeat word (it counts service passes,
 * which the two firmwares count differently). Not generated, for the same reason: HEC and AAL5 CRC errors, OAM
 * cells, cells of two PDUs interleaved (a PDU is one frame on Ethernet, so there is nothing to interleave: the C card
 * sees a PDU when its last cell would have arrived; Sba200ReceiveQueueReservationTest covers interleaving on the
 * Java firmware), and PDUs longer than the Ethernet MTU allows.
 */
final class Sba200Scenario {
    static final long BUS = 0x100000;
    static final int MEM = 0x40000;
    static final int RQ_AREA = 0x1000;
    static final int SEG_AREA = 0x8000;
    static final int SEG_STRIDE = 0x8000;
    static final int ENDPOINTS = 4;
    /** The largest good PDU generated for sending: the C card's Ethernet (MTU 9000) carries PDUs up to 8992 bytes. */
    private static final int MAX_GOOD_TX = 8000;
    private static final int FIRST_RX_VCI = 32;
    private static final int RX_VCIS = 16;
    private static final long[] BAD_ENDPOINTS = {32, 1000, 0xFFFF_FFFFL};

    private final ScenarioRandom r;
    private final ScenarioLines out = new ScenarioLines();
    /** What the generator believes (it never needs to be exact: both sides run the same lines). */
    private final boolean[] created = new boolean[ENDPOINTS];
    private final int[] segLen = new int[ENDPOINTS];
    private final long[] openTx = new long[ENDPOINTS];
    /** [ep][chan] = vpi << 16 | rx vci, or -1. */
    private final int[][] openRx = new int[ENDPOINTS][64];
    private final int[] posted = new int[ENDPOINTS];

    private Sba200Scenario(long seed) {
        r = new ScenarioRandom(seed);
        for (int[] row : openRx) {
            java.util.Arrays.fill(row, -1);
        }
    }

    static List<String> generate(long seed, int operations) {
        Sba200Scenario s = new Sba200Scenario(seed);
        s.prologue();
        for (int k = 0; k < operations; k++) {
            s.step();
        }
        s.op("END");
        return s.out.lines();
    }

    private void op(Object... words) {
        out.op(words);
    }

    private static int page(int ep) {
        return EP_PAGE_BASE + ep * EP_PAGE_SIZE;
    }

    private int anyEndpoint() {
        return r.below(ENDPOINTS);
    }

    /** Mostly an endpoint believed active. */
    private int someEndpoint() {
        if (r.chance(0.9)) {
            int start = r.below(ENDPOINTS);
            for (int k = 0; k < ENDPOINTS; k++) {
                int ep = (start + k) % ENDPOINTS;
                if (created[ep]) {
                    return ep;
                }
            }
        }
        return anyEndpoint();
    }

    private void prologue() {
        if (r.chance(0.7)) {
            op("W", UG_OFS + UG_INTR_ENABLE_OFS, UG_INTR_ENABLE);
        }
        int endpoints = r.between(1, ENDPOINTS);
        for (int ep = 0; ep < endpoints; ep++) {
            op("P", SEG_AREA + ep * SEG_STRIDE, SEG_STRIDE, r.between(0, 255));
            createEndpoint(ep, true);
            for (int c = r.between(1, 6); c > 0; c--) {
                openChannel(ep, true);
            }
            for (int f = r.between(0, 12); f > 0; f--) {
                freeBuffer(ep, true);
            }
        }
    }

    private void step() {
        double x = r.next();
        if (x < 0.22) {
            receive();
        } else if (x < 0.40) {
            int ep = someEndpoint();
            send(ep);
            if (r.chance(0.75)) {
                doorbell(ep);
            }
        } else if (x < 0.45) {
            doorbell(anyEndpoint());
        } else if (x < 0.58) {
            freeBuffer(someEndpoint(), r.chance(0.9));
        } else if (x < 0.72) {
            op("C", someEndpoint(), r.between(1, 8), r.pick(0, 0, 256, 1024, 2048));
        } else if (x < 0.86) {
            command();
        } else if (x < 0.89) {
            op("W", UG_OFS + UG_INTR_ENABLE_OFS, r.pick(0, UG_INTR_ENABLE));
        } else if (x < 0.92) {
            op("W", UG_OFS + UG_UPCALL_PENDING_OFS, r.chance(0.5) ? 0xFFFF_FFFFL : r.bits(4));
        } else if (x < 0.96) {
            op("B", BCR_CLEAR_INTR);
        } else if (x < 0.97) {
            int ep = anyEndpoint();
            op("P", SEG_AREA + ep * SEG_STRIDE, SEG_STRIDE, r.between(0, 255));
        } else if (x < 0.975) {
            // A process scribbling an impossible producer index over its own page: that queue reads as empty.
            int ep = anyEndpoint();
            op("W", page(ep) + (r.chance(0.5) ? EPCB_SQ_PROD_OFS : EPCB_FQ_PROD_OFS), r.bits(32));
        } else if (x < 0.98) {
            reset();
        } else if (x < 0.99) {
            bursts();
        } else {
            overload();
        }
    }

    /**
     * Several channels of one endpoint receiving at once (issue 16): PDUs of every size on two or more channels in
     * random order, the process now and then consuming a few entries with or without recycling their buffers, so
     * the receive queue and the free buffers run out mid-burst on every channel.
     */
    private void overload() {
        int ep = someEndpoint();
        int channels = 0;
        int[] ids = new int[64];
        for (int c = 0; c < 64; c++) {
            if (openRx[ep][c] >= 0) {
                ids[channels++] = openRx[ep][c];
            }
        }
        if (channels < 2) {
            openChannel(ep, true);
            openChannel(ep, true);
            receive();
            return;
        }
        for (int k = r.between(8, 24); k > 0; k--) {
            if (r.chance(0.15)) {
                op("C", ep, r.between(1, 3), r.pick(0, 256, 2048));
            } else if (r.chance(0.1)) {
                freeBuffer(ep, true);
            }
            int id = ids[r.below(channels)];
            op("RX", id >>> 16, id & 0xFFFF, rxLength(), r.between(0, 255));
        }
    }

    /** Several PDUs in a row on one channel: the receive queue overflows unless the process keeps up. */
    private void bursts() {
        int ep = someEndpoint();
        int chan = openChannelOf(ep);
        if (chan < 0) {
            receive();
            return;
        }
        int id = openRx[ep][chan];
        for (int k = r.between(3, 12); k > 0; k--) {
            op("RX", id >>> 16, id & 0xFFFF, rxLength(), r.between(0, 255));
        }
    }

    private int openChannelOf(int ep) {
        int start = r.below(64);
        for (int k = 0; k < 64; k++) {
            int c = (start + k) & 63;
            if (openRx[ep][c] >= 0) {
                return c;
            }
        }
        return -1;
    }

    private void reset() {
        op("B", BCR_RESET);
        if (r.chance(0.5)) {
            receive(); // the firmware is not running: lost
        }
        op("B", BCR_RELEASE);
        java.util.Arrays.fill(created, false);
        java.util.Arrays.fill(openTx, 0);
        for (int[] row : openRx) {
            java.util.Arrays.fill(row, -1);
        }
        java.util.Arrays.fill(posted, 0);
    }

    // ---------------------------------------------------------------------------------------------- commands

    private long endpointArg(int ep) {
        return r.chance(0.93) ? ep : r.pick(BAD_ENDPOINTS);
    }

    private long irq() {
        return r.chance(0.3) ? CMD_IRQ : 0;
    }

    private void command() {
        double x = r.next();
        if (x < 0.14) {
            createEndpoint(anyEndpoint(), r.chance(0.7));
        } else if (x < 0.22) {
            int ep = anyEndpoint();
            long arg = endpointArg(ep);
            op("K", OP_EP_DESTROY | irq(), arg, 0, 0, 0, 0);
            if (arg == ep) {
                created[ep] = false;
                openTx[ep] = 0;
                java.util.Arrays.fill(openRx[ep], -1);
            }
        } else if (x < 0.50) {
            openChannel(someEndpoint(), r.chance(0.8));
        } else if (x < 0.60) {
            int ep = someEndpoint();
            int chan = r.chance(0.8) ? r.between(0, 7) : (int) r.pick(63, 64, 1000);
            op("K", OP_CH_CLOSE | irq(), endpointArg(ep), chan, 0, 0, 0);
            if (chan < 64) {
                openTx[ep] &= ~(1L << chan);
                openRx[ep][chan] = -1;
            }
        } else if (x < 0.74) {
            op("K", OP_EP_UPCALL | irq(), endpointArg(someEndpoint()), r.chance(0.9) ? r.between(0, 2) : r.pick(3, 255),
                0, 0, 0);
        } else if (x < 0.84) {
            Object address = r.chance(0.85) ? at(64L * r.below(RQ_AREA / 64)) : r.chance(0.5) ? 0 : at(MEM - 32);
            op("K", OP_GET_STATS | irq(), address, 0, 0, 0, 0);
        } else if (x < 0.92) {
            op("K", OP_NOP | irq(), r.bits(32), 0, 0, 0, 0);
        } else {
            op("K", r.pick(0, 8, 0x7F, 0xFF) | irq(), r.bits(32), r.bits(32), 0, 0, 0);
        }
    }

    private void createEndpoint(int ep, boolean good) {
        long epArg = ep;
        Object segBase = at(SEG_AREA + (long) ep * SEG_STRIDE);
        long seg = r.chance(0.3) ? SEG_STRIDE : r.between(64, SEG_STRIDE);
        Object rqBase = at(RQ_AREA + ep * 0x1000L);
        long rqLen = r.pick(2, 4, 4, 8, 8, 16, 64);
        if (!good) {
            switch (r.below(8)) {
                case 0 -> epArg = r.pick(BAD_ENDPOINTS);
                case 1 -> segBase = at(SEG_AREA + (long) ep * SEG_STRIDE + 4);
                case 2 -> segBase = 0;
                case 3 -> seg = r.pick(0, 0x100000);
                case 4 -> rqBase = r.chance(0.5) ? at(RQ_AREA + ep * 0x1000L + 8) : at(MEM);
                case 5 -> rqLen = r.pick(0, 1, 3, 100, 4096, 8192, 0x8000_0000L);
                default -> {
                    // good arguments on an endpoint that may already be active (EP_ACTIVE)
                }
            }
        }
        op("K", OP_EP_CREATE | irq(), epArg, segBase, seg, rqBase, rqLen);
        if (good && !created[ep]) {
            created[ep] = true;
            segLen[ep] = (int) seg;
        }
    }

    private void openChannel(int ep, boolean good) {
        int chan = r.between(0, 7);
        int vpi = (int) r.pick(0, 0, 1);
        int txVci = r.between(32, 60);
        int rxVci = FIRST_RX_VCI + r.below(RX_VCIS);
        long epArg = ep;
        long chanArg = chan;
        long vpiArg = vpi;
        long txArg = txVci;
        long rxArg = rxVci;
        if (!good) {
            switch (r.below(5)) {
                case 0 -> epArg = r.pick(BAD_ENDPOINTS);
                case 1 -> chanArg = r.pick(64, 1000);
                case 2 -> vpiArg = r.pick(256, 0xFFFF_FFFFL);
                case 3 -> txArg = r.pick(0, 5, 31, 1024);
                default -> rxArg = r.pick(3, 16, 1024, 70000);
            }
        }
        op("K", OP_CH_OPEN | irq(), epArg, chanArg, vpiArg, txArg, rxArg);
        if (good && created[ep] && (openTx[ep] & (1L << chan)) == 0) {
            openTx[ep] |= 1L << chan;
            openRx[ep][chan] = vpi << 16 | rxVci;
        }
    }

    // ---------------------------------------------------------------------------------------------- send

    private void doorbell(int ep) {
        op("TD", ep);
        posted[ep] = 0;
    }

    private int channelFor(int ep) {
        if (r.chance(0.85) && openTx[ep] != 0) {
            int start = r.below(64);
            for (int k = 0; k < 64; k++) {
                int c = (start + k) & 63;
                if ((openTx[ep] & (1L << c)) != 0) {
                    return c;
                }
            }
        }
        return r.below(64);
    }

    private void send(int ep) {
        if (posted[ep] >= SQ_LEN) {
            return;
        }
        posted[ep]++;
        int chan = channelFor(ep);
        long[] w = new long[12]; // w2..w13
        for (int i = 0; i < w.length; i++) {
            w[i] = r.chance(0.5) ? 0 : r.bits(32); // unused words are ignored; junk shows that they are
        }
        long w0;
        int seg = Math.max(segLen[ep], 64);
        double x = r.next();
        if (x < 0.25) {
            int len = r.between(1, INLINE_MAX);
            for (int i = 0; i < 10; i++) {
                w[i] = r.bits(32);
            }
            w0 = TX_VALID | TX_INLINE | (long) chan << TX_CHAN_SHIFT | len;
        } else if (x < 0.72) {
            int nbufs = r.between(1, 3);
            long sum = 0;
            for (int b = 0; b < nbufs; b++) {
                int len = Math.min(r.chance(0.3) ? r.between(1, 40) : r.between(1, MAX_GOOD_TX / 3), seg);
                w[2 * b] = r.between(0, seg - len);
                w[2 * b + 1] = len;
                sum += len;
            }
            w0 = TX_VALID | (long) nbufs << TX_NBUFS_SHIFT | (long) chan << TX_CHAN_SHIFT | sum;
        } else {
            int len = r.between(1, 600);
            w[0] = r.between(0, seg - 1);
            w[1] = len;
            long nbufs = 1;
            long length = len;
            long flags = TX_VALID;
            switch (r.below(10)) {
                case 0 -> flags = 0;                                   // not VALID: BAD_DESC
                case 1 -> length = 0;                                  // AAL5 abort length: BAD_DESC
                case 2 -> nbufs = r.pick(0, 7, 15);                    // BAD_DESC
                case 3 -> length = len + 1;                            // the buffers do not add up: BAD_DESC
                case 4 -> w[0] = seg - len + r.between(1, 100);        // SEG_BOUNDS
                case 5 -> w[0] = 0xFFFF_FFF0L;                         // SEG_BOUNDS (no wrap-around)
                case 6 -> {                                            // a buffer longer than any PDU: TOO_LONG
                    w[1] = 70000;
                    length = 70000 & 0xFFFF;
                }
                case 7 -> {                                            // INLINE longer than 40: TOO_LONG
                    flags |= TX_INLINE;
                    length = r.between(41, 60);
                }
                case 8 -> chan = 63;                                   // (most likely) not open: BAD_CHANNEL
                default -> {                                           // the same extent twice
                    nbufs = 2;
                    w[2] = w[0];
                    w[3] = w[1];
                    length = 2L * len;
                }
            }
            w0 = flags | nbufs << TX_NBUFS_SHIFT | (long) chan << TX_CHAN_SHIFT | (length & 0xFFFF);
        }
        StringBuilder line = new StringBuilder("T ").append(ep).append(' ').append(w0 & 0xFFFF_FFFFL);
        for (long word : w) {
            line.append(' ').append(word);
        }
        out.add(line.toString());
    }

    // ---------------------------------------------------------------------------------------------- receive

    private void freeBuffer(int ep, boolean good) {
        int seg = Math.max(segLen[ep], 64);
        long len = r.pick(64, 256, 256, 1024, 2048);
        long off = 64L * r.below(Math.max(1, (int) ((seg - len) / 64) + 1));
        if (!good) {
            switch (r.below(4)) {
                case 0 -> off += 8;                        // misaligned
                case 1 -> off = seg + 64L * r.below(8);    // outside the segment
                case 2 -> len = 0;
                default -> len = r.between(1, 3000);       // an odd length is fine
            }
        }
        op("F", ep, off, len);
    }

    private int rxLength() {
        double x = r.next();
        if (x < 0.35) {
            return r.between(1, INLINE_MAX);
        }
        if (x < 0.65) {
            return r.between(INLINE_MAX + 1, 600);
        }
        if (x < 0.88) {
            return r.between(600, 3000);
        }
        if (x < 0.97) {
            return r.between(3000, 12000); // more than six buffers unless they are large
        }
        return 0; // AAL5 abort
    }

    private void receive() {
        int vpi;
        int vci;
        int ep = someEndpoint();
        int chan = openChannelOf(ep);
        if (chan >= 0 && r.chance(0.8)) {
            vpi = openRx[ep][chan] >>> 16;
            vci = openRx[ep][chan] & 0xFFFF;
            if (r.chance(0.05)) {
                vpi ^= 1; // the right VCI on the wrong VPI: unknown
            }
        } else {
            vpi = (int) r.pick(0, 1);
            vci = r.chance(0.8) ? FIRST_RX_VCI + r.below(RX_VCIS) : (int) r.pick(5, 1000, 2000, 65535);
        }
        op("RX", vpi, vci, rxLength(), r.between(0, 255));
    }
}
