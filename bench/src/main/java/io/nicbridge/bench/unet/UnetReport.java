package io.nicbridge.bench.unet;

import static io.nicbridge.contract.Sba200Unet.CELL_PAYLOAD;

import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.PaperPoints;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.sba200.Sba200Timing;
import io.nicbridge.sim.testbed.UnetApiTestbed;
import java.io.PrintStream;
import java.util.Locale;

/**
 * The sba200 reports of {@code nic unet pingpong} and {@code nic unet throughput}: the simulated curves beside the
 * U-Net paper's published figures, the model that produced them, and (pingpong) the real-time software cost per message on
 * the inline engine. The checks are of two kinds ({@link CheckKind}): model self-checks (the simulation adds up to its
 * own card and fibre model, or shows what that model implies by construction) and anchor checks against the paper
 * where the comparison is like for like; where the paper's figure includes host software, which the simulation does
 * not model, both figures are printed as a comparison, not a check.
 */
public final class UnetReport {
    /** 4 bytes .. 5 KB, with the points around the single-cell boundary and the cell multiples. */
    public static final int[] DEFAULT_SIZES = {4, 8, 16, 24, 32, 40, 44, 48, 64, 96, 128, 256, 512, 800, 1024, 1500,
        2048, 4096, 5120};

    /** The simulation rounds each timer to whole nanoseconds; the model is exact. */
    static final long MODEL_TOLERANCE_NANOS = 10;
    /** Percent of the AAL5 limit that counts as "saturated" for the paper's 800-byte statement. */
    static final double SATURATION_PERCENT = 85;

    private UnetReport() {
    }

    /**
     * Checks a sweep's message sizes: 1..6144 bytes, what 6 receive buffers of 1 KB hold.
     *
     * @throws IllegalArgumentException naming the first size outside it
     */
    static void requireMessageSizes(int[] sizes) {
        if (sizes.length == 0) {
            throw new IllegalArgumentException("the sweep needs at least one message size");
        }
        for (int s : sizes) {
            if (s < 1 || s > 5 * 1024 + 1024) {
                throw new IllegalArgumentException("message sizes must be 1..6144 bytes (6 receive buffers of 1 KB),"
                        + " was " + s);
            }
        }
    }

    /** Fiber figures of the testbed: {cell time in picoseconds, propagation in nanoseconds}. */
    static long[] fiber(Sba200Timing timing) {
        try (UnetApiTestbed t = UnetApiTestbed.builder(EngineMode.VIRTUAL).timing(timing).build()) {
            return new long[] {t.cellTimePicos(), t.propagationNanos()};
        }
    }

    /**
     * The model's one-way time for a message, in picoseconds: the send doorbell's poll latency, the send set-up, the
     * DMA of the first cell's 48 bytes (none inline; later cells are fetched faster than the fiber sends them), the
     * cells on the uplink, the last cell again on the downlink (store and forward), two fibers' propagation, and the
     * receiving i960's work on the last cell (inline: per-cell work + the receive-entry write; otherwise per-cell
     * work + the cell's DMA + completing the buffer PDU). Earlier cells are processed while later ones are still on
     * the fiber, as long as a cell's receive work is shorter than a cell time (true for the default timing).
     */
    static long modelOneWayPicos(int size, Sba200Timing timing, long[] fiber) {
        boolean inline = size <= io.nicbridge.contract.Sba200Unet.INLINE_MAX;
        long firstFetch = inline ? 0 : CELL_PAYLOAD * timing.dmaPicosPerByte();
        long lastCellRx = inline ? (timing.rxCellNanos() + timing.rxInlineNanos()) * 1000
                : (timing.rxCellNanos() + timing.rxBufferPduNanos()) * 1000 + CELL_PAYLOAD * timing.dmaPicosPerByte();
        return (timing.pollLatencyNanos() + timing.txSetupNanos()) * 1000 + firstFetch
                + (UnetPaper.cells(size) + 1L) * fiber[0] + 2 * fiber[1] * 1000 + lastCellRx;
    }

    static void printModel(PrintStream out, Sba200Timing timing) {
        try (UnetApiTestbed t = UnetApiTestbed.builder(EngineMode.VIRTUAL).timing(timing).build()) {
            out.printf(Locale.ROOT, "model: card (sim.sba200.Sba200Timing): i960 poll latency %d ns after a send doorbell,"
                    + " send set-up %d ns per descriptor, SBus DMA %d ps/byte (a cell leaves once its 48 bytes are"
                    + " fetched; inline sends fetch nothing)%n", timing.pollLatencyNanos(), timing.txSetupNanos(),
                    timing.dmaPicosPerByte());
            out.printf(Locale.ROOT, "model: fibers: 140 Mbit/s TAXI, %.3f ns per 53-byte cell, %d ns propagation per"
                    + " fiber; the switch forwards each cell onto the downlink (one more cell time); hosts poll at zero"
                    + " cost%n", t.cellTimePicos() / 1000.0, t.propagationNanos());
            out.printf(Locale.ROOT, "model: card receive: %d ns i960 work per cell, + %d ns to write a single-cell message"
                    + " into its receive entry, or + 48 B of DMA per cell and %d ns to complete a multi-cell (buffer)"
                    + " message%n", timing.rxCellNanos(), timing.rxInlineNanos(), timing.rxBufferPduNanos());
            out.printf(Locale.ROOT, "model: one i960 per card: its send and receive work share one timeline (a received"
                    + " cell or a send descriptor at a time); sends are pipelined: the next descriptor is taken once the"
                    + " previous PDU is fetched and about to leave the fiber%n");
        }
    }

    // ------------------------------------------------------------------ pingpong

    /**
     * @param capture records the PDUs card A sends and receives in the virtual-time runs (null: no capture); the
     *                real-time software cost is measured without it
     * @return the exit code of the checks ({@link io.nicbridge.bench.verdict.ExitCodes})
     */
    public static int pingpong(PrintStream out, int[] sizes, int warmup, int count, int realWarmup, int realCount,
                               long seed, Sba200Timing timing, PcapWriter capture) {
        return pingpong(out, sizes, warmup, count, realWarmup, realCount, seed, timing, capture, PaperPoints.NONE);
    }

    /** As above, each size's simulated RTT also handed to {@code points} (figure {@code "fig3"}) beside the paper's. */
    public static int pingpong(PrintStream out, int[] sizes, int warmup, int count, int realWarmup, int realCount,
                               long seed, Sba200Timing timing, PcapWriter capture, PaperPoints points) {
        requireMessageSizes(sizes);
        if (realCount < 1 || realWarmup < 0) {
            throw new IllegalArgumentException("--count must be >= 1 and --warmup >= 0");
        }
        return pingpong(out, sizes, warmup, count, realWarmup, realCount, seed, timing, timing, capture, points);
    }

    /**
     * @param simulated the card timing the simulation runs with
     * @param modelled  the card timing the model (and its self-check) assumes; the same unless a test makes the model
     *                  deliberately wrong to see the self-check fail
     */
    static int pingpong(PrintStream out, int[] sizes, int warmup, int count, int realWarmup, int realCount,
                        long seed, Sba200Timing simulated, Sba200Timing modelled, PcapWriter capture) {
        return pingpong(out, sizes, warmup, count, realWarmup, realCount, seed, simulated, modelled, capture,
                PaperPoints.NONE);
    }

    private static int pingpong(PrintStream out, int[] sizes, int warmup, int count, int realWarmup, int realCount,
                                long seed, Sba200Timing simulated, Sba200Timing modelled, PcapWriter capture,
                                PaperPoints points) {
        Sba200Timing timing = modelled;
        CheckLog checks = new CheckLog(out::println);
        out.println("pingpong: card sba200 - two emulated Fore SBA-200s (U-Net firmware) on a 2-port ATM switch,"
                + " driven through the bridge's U-Net API (io.nicbridge.bridge.driver.unet); raw U-Net: messages <= 40 B"
                + " inline in the descriptor (one cell), longer ones from the segment into 1 KB free buffers");
        out.printf(Locale.ROOT, "virtual time, seed %d, %d warm-up + %d measured round trips per size%n", seed, warmup,
                count);
        printModel(out, timing);
        out.println();
        out.println("model: RTT = 2 x (poll + set-up + first-cell DMA (0 inline) + (cells + 1) x cell time"
                + " + 2 x propagation + receive work on the last cell)");
        out.println();
        out.println("  size  cells | simulated RTT us (min..max) | model us  | paper Fig.3 (sec. 4.2.3 text) us | sim/paper");
        double[] rtt = new double[sizes.length];
        long[] fiber = fiber(timing);
        long worst = 0;
        for (int i = 0; i < sizes.length; i++) {
            long[] r = UnetRuns.virtualRoundTrip(sizes[i], warmup, count, seed, simulated, capture);
            rtt[i] = r[0] / 1000.0;
            double model = 2 * modelOneWayPicos(sizes[i], timing, fiber) / 1e6;
            worst = Math.max(worst, Math.max(Math.abs(r[0] - Math.round(model * 1000)),
                    Math.abs(r[1] - Math.round(model * 1000))));
            double paper = UnetPaper.describedRttUs(sizes[i]);
            out.printf(Locale.ROOT, "%6d  %5d | %10.3f .. %-10.3f      | %9.3f | %8.1f                         | %5.2f%n",
                    sizes[i], UnetPaper.cells(sizes[i]), r[0] / 1000.0, r[1] / 1000.0, model, paper, rtt[i] / paper);
            points.point("fig3", "round-trip time", sizes[i], rtt[i], paper);
        }
        for (String src : UnetPaper.sources()) {
            out.println("  " + src);
        }
        checks.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "every simulated RTT equals the model"
                + " above within %d ns (largest |simulated - model| = %d ns; the simulation rounds each timer to whole"
                + " ns)", MODEL_TOLERANCE_NANOS, worst), worst <= MODEL_TOLERANCE_NANOS);
        // Shape: the single-cell step at 40 bytes, and the per-cell slope after it.
        int i40 = indexOf(sizes, 40);
        int i44 = indexOf(sizes, 44) >= 0 ? indexOf(sizes, 44) : indexOf(sizes, 48);
        int i48 = indexOf(sizes, 48);
        int i96 = indexOf(sizes, 96);
        if (i40 >= 0 && i44 >= 0 && i48 >= 0 && i96 >= 0) {
            double step = rtt[i44] - rtt[i40];
            double perCell = (rtt[i96] - rtt[i48]) / (UnetPaper.cells(96) - UnetPaper.cells(48));
            double twoCellTimes = 2 * fiber[0] / 1e6;
            checks.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "per-cell slope %.3f us/cell (%d to"
                    + " %d B) = 2 x the fibre's cell time %.3f us within 0.01 us: true by construction of the 140"
                    + " Mbit/s fibre timing, a regression check, not agreement with the paper", perCell, sizes[i48],
                    sizes[i96], twoCellTimes / 2), Math.abs(perCell - twoCellTimes) <= 0.01);
            double paperStep = UnetPaper.RTT_48_BYTES_US - UnetPaper.SINGLE_CELL_RTT_US;
            // A self-check, not an anchor: the step comes from the card timing's own single-cell fast path (our
            // assumed Sba200Timing constants); the paper's Fig. 3 shows the same shape, printed as a comparison below.
            checks.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "single-cell step at 40 B: the"
                    + " model's single-cell fast path (criterion: the step from 40 to %d B exceeds 1.2 x the per-cell"
                    + " increment; the shape of U-Net paper sec. 4.2.3 / Fig. 3, which the assumed card timing"
                    + " encodes): simulated +%.2f us vs +%.2f us per cell", sizes[i44], step, perCell),
                step > perCell * 1.2);
            checks.comparison(String.format(Locale.ROOT, "per-cell slope paper ~%.0f us/cell vs simulated %.2f"
                    + " us/cell: both are twice the 140 Mbit/s cell time, so they agree by construction",
                    UnetPaper.RTT_PER_EXTRA_CELL_US, perCell));
            checks.comparison(String.format(Locale.ROOT, "single-cell RTT paper %.0f us vs simulated %.2f us"
                    + " (ratio %.2f), step paper +%.0f us vs simulated +%.2f us: the paper's figures include host"
                    + " software and SBus PIO time, which the simulation does not model", UnetPaper.SINGLE_CELL_RTT_US,
                    rtt[i40], rtt[i40] / UnetPaper.SINGLE_CELL_RTT_US, paperStep, step));
        } else {
            out.println("not checked: the per-cell slope and the single-cell step need sizes 40, 44 (or 48), 48 and"
                    + " 96 in --sizes");
        }
        out.println();
        out.printf(Locale.ROOT, "real time, inline engine (U-Net API + emulated card + switch on one thread, wall clock):"
                + " a discarded JIT warm-up pass over both sizes, then per size %d warm-up round trips and the best of 5"
                + " runs of %d (machine: %d cores, load average %.1f):%n", realWarmup, realCount,
                Runtime.getRuntime().availableProcessors(),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        int[] realSizes = {40, 1024};
        for (int size : realSizes) {
            UnetRuns.inlineNanosPerMessage(size, realWarmup, realCount, 1); // JIT warm-up of the whole chain
        }
        for (int size : realSizes) {
            double ns = UnetRuns.inlineNanosPerMessage(size, realWarmup, realCount, 5);
            out.printf(Locale.ROOT, "  software cost per message (send + card + switch + card + receive), %4d B (%s): %.0f ns%n",
                    size, size <= 40 ? "inline, one cell" : "segment buffer, " + UnetPaper.cells(size) + " cells", ns);
        }
        return checks.finish(false);
    }

    // ------------------------------------------------------------------ throughput (the paper's "bandwidth")

    /**
     * @param capture records the PDUs card A (the sender) sends and receives (null: no capture)
     * @return the exit code of the checks ({@link io.nicbridge.bench.verdict.ExitCodes})
     */
    public static int throughput(PrintStream out, int[] sizes, int messages, long seed, Sba200Timing timing,
                                 PcapWriter capture) {
        return throughput(out, sizes, messages, seed, timing, capture, PaperPoints.NONE);
    }

    /**
     * As above, each size's throughput also handed to {@code points} (figure {@code "fig4"}): beside Fig. 4's AAL5
     * limit curve at every size, and beside Table 3's figure at 4096 B.
     */
    public static int throughput(PrintStream out, int[] sizes, int messages, long seed, Sba200Timing timing,
                                 PcapWriter capture, PaperPoints points) {
        requireMessageSizes(sizes);
        if (messages < 1) {
            throw new IllegalArgumentException("--messages must be at least 1, was " + messages);
        }
        CheckLog checks = new CheckLog(out::println);
        out.println("throughput: card sba200 - A streams messages to B over one U-Net channel through the ATM switch,"
                + " keeping its 32-entry send queue full; B polls, releases and re-posts its buffers");
        out.printf(Locale.ROOT, "virtual time, seed %d, %d messages per size; throughput = payload bits / (last arrival -"
                + " first send)%n", seed, messages);
        printModel(out, timing);
        out.println();
        out.println("  size  cells | simulated Mbit/s   MB/s | AAL5 limit Mbit/s (Fig.4 curve) | % of limit | paper");
        double[] pct = new double[sizes.length];
        double[] bw = new double[sizes.length];
        double maxPct = 0;
        int maxAt = -1;
        for (int i = 0; i < sizes.length; i++) {
            UnetRuns.Stream s = UnetRuns.virtualStream(sizes[i], messages, seed, timing, capture);
            bw[i] = s.mbits();
            double limit = UnetPaper.aal5LimitMbits(sizes[i]);
            pct[i] = 100.0 * bw[i] / limit;
            if (pct[i] > maxPct) {
                maxPct = pct[i];
                maxAt = i;
            }
            String paper = sizes[i] >= UnetPaper.SATURATION_MESSAGE_BYTES ? "fiber saturated (>= 800 B)"
                    : "below saturation (i960-bound)";
            if (sizes[i] == 4096) {
                paper = "Table 3: 120 Mbit/s";
            }
            out.printf(Locale.ROOT, "%6d  %5d | %10.2f   %6.2f | %10.2f                      | %6.1f %%   | %s%n",
                    sizes[i], UnetPaper.cells(sizes[i]), bw[i], bw[i] / 8, limit, pct[i], paper);
            points.point("fig4", "vs Fig. 4's AAL5 limit curve", sizes[i], bw[i], limit);
            if (sizes[i] == 4096) {
                points.point("fig4", "vs Table 3", sizes[i], bw[i], UnetPaper.TABLE3_RAW_AAL5_MBITS);
            }
        }
        for (String s : UnetPaper.sources()) {
            out.println("  " + s);
        }
        out.printf(Locale.ROOT, "max throughput %.1f %% of the AAL5 limit (at %d B, %.2f Mbit/s)%n", maxPct,
                maxAt >= 0 ? sizes[maxAt] : 0, maxAt >= 0 ? bw[maxAt] : 0);
        out.printf(Locale.ROOT, "note: the AAL5 limit is %d B payload per 53 B cell at 140 Mbit/s = %.1f Mbit/s for"
                + " messages filling whole cells%n", CELL_PAYLOAD, 140.0 * CELL_PAYLOAD / 53);
        checks.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "every size at or below the AAL5 limit,"
                + " the fibre model's own ceiling (highest: %.2f %%)", maxPct), maxPct <= 100.0);
        int i40 = indexOf(sizes, 40);
        int i44 = indexOf(sizes, 44);
        if (i40 >= 0 && i44 >= 0) {
            checks.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "48-byte sawtooth: from 40 B (1 cell)"
                    + " to 44 B (2 cells) the AAL5 limit drops (%.1f -> %.1f Mbit/s) and so does the simulation (%.2f"
                    + " -> %.2f Mbit/s); true by construction of the cell quantisation", UnetPaper.aal5LimitMbits(40),
                    UnetPaper.aal5LimitMbits(44), bw[i40], bw[i44]), bw[i44] < bw[i40]);
        }
        int i800 = indexOf(sizes, UnetPaper.SATURATION_MESSAGE_BYTES);
        if (i800 >= 0) {
            checks.check(CheckKind.ANCHOR_CHECK, String.format(Locale.ROOT, "fibre saturated at 800 B (U-Net paper"
                    + " sec. 4.2.3 / Fig. 4 and sec. 8: \"with message sizes as small as 800 bytes the network is"
                    + " saturated\"; criterion: >= %.0f %% of the AAL5 limit; one-sided: the simulated hosts cost"
                    + " nothing, so the model may saturate earlier than the paper, not later): %.1f %%",
                    SATURATION_PERCENT, pct[i800]), pct[i800] >= SATURATION_PERCENT);
        } else {
            out.println("not checked: the saturation anchor needs 800 in --sizes");
        }
        int i4096 = indexOf(sizes, 4096);
        if (i4096 >= 0) {
            checks.comparison(String.format(Locale.ROOT, "4096 B paper Table 3 %.0f Mbit/s (raw AAL5) vs simulated"
                    + " %.2f Mbit/s: the paper's includes host software, which the simulation does not model",
                    UnetPaper.TABLE3_RAW_AAL5_MBITS, bw[i4096]));
        }
        return checks.finish(false);
    }

    private static int indexOf(int[] sizes, int size) {
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] == size) {
                return i;
            }
        }
        return -1;
    }
}
