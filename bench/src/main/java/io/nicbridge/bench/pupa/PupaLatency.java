package io.nicbridge.bench.pupa;

import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.pupa.PupaConfig;
import io.nicbridge.sim.ethernet.EthernetMode;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * {@code nic pupa latency}: the paper's Tables 1 and 2 and Figure 3 in virtual time. Node 0 sends one message at a
 * time to node 1 ({@link PupaPair}, the fast path: sent in the call, as a latency test must), the system idle
 * before each; node 1's application delivers it and copies it into its own buffer (the paper's receive call copies
 * from Pupa's buffers to the user). Per message, from the clock and the two CPUs:
 * <pre>
 *   t0  node 0's application calls send            (its CPU idle)
 *   tc  the frame is handed to the card            (the CPU's time after the framing's descriptor work)
 *   ta  node 1's card signals the frame            (after its DMA into host memory; the interrupt follows)
 *   t1  the message is in node 1's user buffer     (the CPU's time after the copy)
 *
 *   sender side       = tc - t0
 *   receiver side     = t1 - ta - the interrupt's cost
 *   transmission, DMA = ta - tc + the interrupt's cost   (the paper counts the interrupt, context switch and
 *                                                          handler invocation here)
 * </pre>
 * Table 2's host components are the two CPUs' work between t0 and tc and between ta and t1, by {@link HostWork}.
 * The model self-check is that they add up: host components plus transmission and DMA equal the one-way latency the
 * clock measured, that is, nothing on the path took host time that was not charged. Everything runs in virtual time,
 * so every message of a size takes the same time: the figures are exact, not averages of noisy samples.
 */
public final class PupaLatency {
    /** The largest message that is one frame (Pupa's fragment). */
    static final int MAX_SIZE = 1436;
    /**
     * What the breakdown may leave unaccounted: a CPU's busy time is whole nanoseconds at each event's end (the
     * carry is dropped when the next event starts on an idle CPU), and the path crosses at most four such ends (the
     * sender's send, the receiver's interrupt, its dispatch, the delivery), each adding under a nanosecond of idle.
     */
    static final double ROUNDING_NANOS = 4;
    private static final long GAP_NANOS = 100_000;
    private static final long LIMIT_NANOS = 2_000_000_000L;

    /** What a run takes: the table, the sizes, the seed, messages per size (warm-up and measured), the medium. */
    public record Settings(CostTable costs, int[] sizes, long seed, int warmup, int count, EthernetMode medium) {
        public Settings {
            Objects.requireNonNull(costs, "costs");
            Objects.requireNonNull(medium, "medium");
            for (int s : sizes) {
                if (s < 1 || s > MAX_SIZE) {
                    throw new IllegalArgumentException("--sizes: message sizes in [1, " + MAX_SIZE + "] (one frame)"
                            + " wanted, got " + s);
                }
            }
            if (warmup < 0 || count < 1) {
                throw new IllegalArgumentException("--warmup must be >= 0 and --count >= 1, were " + warmup + " and "
                        + count);
            }
        }

        boolean priced() {
            return costs != CostTable.zero();
        }
    }

    /**
     * One size's breakdown, nanoseconds per message (the mean of the measured messages).
     *
     * @param host        Table 2's host components ({@link HostWork#HOST_NAMES} order)
     * @param unaccounted total less the host components and transmission and DMA: 0 when every bit of host time on
     *                    the path was charged, up to {@link #ROUNDING_NANOS} of rounding
     */
    record Point(int size, double total, double sender, double receiver, double transmission, double[] host,
                 double unaccounted) {
        double hostSum() {
            double s = 0;
            for (double h : host) {
                s += h;
            }
            return s;
        }
    }

    private PupaLatency() {
    }

    /**
     * Measures one size.
     *
     * @throws IllegalStateException when a message is not delivered, arrives whole but changed, or the path is not
     *                               the expected one frame each way
     */
    static Point measure(Settings s, int size) {
        Measurement m = new Measurement(size, s.warmup() + s.count());
        try (PupaPair pair = new PupaPair(s.costs(), PupaConfig.defaults(), s.medium(), s.seed(), node -> {
            if (node.id() == 1) {
                m.pair.core(1).deliver(m, Integer.MAX_VALUE);
            }
        })) {
            m.pair = pair;
            return m.run(s.warmup());
        }
    }

    /** The per-message bookkeeping; the application's handler on node 1. */
    private static final class Measurement implements MessageHandler {
        final int size;
        final int messages;
        final MemorySegment message;
        final MemorySegment user;
        final long[] s0 = new long[HostWork.PARTS];
        final long[] s1 = new long[HostWork.PARTS];
        final long[] r0 = new long[HostWork.PARTS];
        final long[] r1 = new long[HostWork.PARTS];
        PupaPair pair;
        HostWork senderWork;
        HostWork receiverWork;
        long t0;
        long tc;
        long ta;
        long t1;
        boolean inFlight;
        boolean committed;
        boolean signalled;
        int delivered;
        String wrong;

        Measurement(int size, int messages) {
            this.size = size;
            this.messages = messages;
            Arena arena = Arena.ofAuto();
            message = arena.allocate(size, 8);
            user = arena.allocate(size, 8);
        }

        Point run(int warmup) {
            senderWork = new HostWork(pair.cpu(0));
            receiverWork = new HostWork(pair.cpu(1));
            pair.probe(0).onCommit(() -> {
                if (inFlight && !committed) {
                    committed = true;
                    tc = pair.probe(0).committedAt();
                    senderWork.snapshot(s1);
                }
            });
            pair.probe(1).onSignal(() -> {
                if (committed && !signalled) {
                    signalled = true;
                    ta = pair.time().nanoTime();
                    receiverWork.snapshot(r0);
                }
            });
            double[] sum = new double[4 + HostWork.HOST_NAMES.size() + 1];
            for (int i = 0; i < messages; i++) {
                for (int b = 0; b < size; b++) {
                    message.set(java.lang.foreign.ValueLayout.JAVA_BYTE, b, (byte) (i * 31 + b));
                }
                long at = pair.time().nanoTime() + GAP_NANOS;
                int n = i;
                inFlight = true;
                committed = false;
                signalled = false;
                pair.at(at, 0, () -> {
                    if (pair.cpu(0).busyAfter(at) || pair.cpu(1).busyAfter(at)) {
                        wrong = "a CPU was still busy when message " + n + " was sent";
                    }
                    t0 = pair.time().nanoTime();
                    senderWork.snapshot(s0);
                    if (pair.core(0).send(1, message, 0, size, n, true) != MessageChannel.OK) {
                        wrong = "message " + n + " refused";
                    }
                });
                int before = delivered;
                if (!pair.time().runUntil(() -> delivered > before || wrong != null, pair.time().nanoTime()
                        + LIMIT_NANOS) || wrong != null) {
                    throw new IllegalStateException(size + " B: " + (wrong != null ? wrong : "message " + n
                            + " not delivered within 2 s of virtual time"));
                }
                if (!committed || !signalled) {
                    throw new IllegalStateException(size + " B: message " + n + " delivered without its frame seen"
                            + " leaving node 0 and arriving at node 1");
                }
                if (i >= warmup) {
                    accumulate(sum);
                }
                if (!pair.time().runUntil(pair::quiet, pair.time().nanoTime() + LIMIT_NANOS)) {
                    throw new IllegalStateException(size + " B: the pair did not settle after message " + n + ": "
                            + pair.core(0) + " / " + pair.core(1));
                }
            }
            int measured = messages - warmup;
            double[] host = new double[HostWork.HOST_NAMES.size()];
            for (int h = 0; h < host.length; h++) {
                host[h] = sum[4 + h] / measured;
            }
            return new Point(size, sum[0] / measured, sum[1] / measured, sum[2] / measured, sum[3] / measured, host,
                    sum[4 + host.length] / measured);
        }

        private void accumulate(double[] sum) {
            double interrupt = (r1[HostWork.INTERRUPT] - r0[HostWork.INTERRUPT]) / 1e3;
            double total = t1 - t0;
            double transmission = ta - tc + interrupt;
            sum[0] += total;
            sum[1] += tc - t0;
            sum[2] += t1 - ta - interrupt;
            sum[3] += transmission;
            double host = 0;
            for (int h = 0; h < HostWork.HOST_NAMES.size(); h++) {
                double v = ((s1[h] - s0[h]) + (r1[h] - r0[h])) / 1e3;
                sum[4 + h] += v;
                host += v;
            }
            sum[4 + HostWork.HOST_NAMES.size()] += total - host - transmission;
        }

        @Override
        public void onMessage(int peer, MemorySegment data, long offset, int length) {
            if (!signalled) {
                wrong = "a message was delivered before its frame was signalled";
                return;
            }
            // the paper's receive call: from Pupa's buffers into the user's
            MemorySegment.copy(data, offset, user, 0, length);
            pair.cpu(1).charge(CostItem.COPY, length);
            if (length != size || user.mismatch(message) != -1) {
                wrong = "message " + pair.core(1).lastTag() + " arrived changed (" + length + " B)";
            }
            t1 = pair.cpu(1).now();
            receiverWork.snapshot(r1);
            inFlight = false;
            delivered++;
        }
    }

    // ------------------------------------------------------------------------------------------------ the command

    /** Runs every size, prints both tables beside the paper's, and the checks. @return the exit code */
    public static int run(PrintStream out, Settings s) {
        out.println("Pupa (Verma and Chiueh) Tables 1 and 2, Figure 3: one-way latency and its breakdown [us]");
        out.println("two emulated DEC 21140s (Tulip driver, PCI 33 MHz DMA model) on one 100 Mb/s Ethernet segment ("
                + s.medium().name().toLowerCase(Locale.ROOT) + "), virtual time, seed " + s.seed() + "; node 0 sends"
                + " one message at a time (fast path) to node 1, whose application copies it into its own buffer");
        out.println("cost table: " + s.costs().describe());
        out.println("messages per size: " + s.warmup() + " warm-up + " + s.count() + " measured (virtual time: every"
                + " message of a size takes the same time)");
        CheckLog log = new CheckLog(out::println);
        List<Point> points = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (int size : s.sizes()) {
            try {
                points.add(measure(s, size));
            } catch (IllegalStateException e) {
                failures.add(e.getMessage());
            }
        }
        out.println();
        out.println("Table 1: one-way latency [us]      | ours                                 | paper (P90, FreeBSD)");
        out.println("  size | sender receiver trans+DMA   total | sender receiver trans+DMA  total   TCP");
        for (Point p : points) {
            int c = PupaPaper.column(p.size());
            out.printf(Locale.ROOT, "  %4d | %6.2f %8.2f %9.2f %7.2f | %s%n", p.size(), p.sender() / 1e3,
                    p.receiver() / 1e3, p.transmission() / 1e3, p.total() / 1e3, c < 0 ? "(no column)"
                    : String.format(Locale.ROOT, "%6d %8d %9d %6d %5d", PupaPaper.SENDER[c], PupaPaper.RECEIVER[c],
                    PupaPaper.TRANSMISSION[c], PupaPaper.PUPA[c], PupaPaper.TCP[c]));
        }
        out.println();
        out.println("Table 2: components [us] (% of one-way) | protocol       driver      trans+DMA      copy"
                + "       buffer+header   total");
        for (Point p : points) {
            double[] h = p.host();
            out.printf(Locale.ROOT, "  %4d ours                      | %s %s %s %s %s %7.2f%n", p.size(),
                    cell(h[0], p.total()), cell(h[1], p.total()), cell(p.transmission(), p.total()),
                    cell(h[2], p.total()), cell(h[3], p.total()), p.total() / 1e3);
            int c = PupaPaper.column(p.size());
            if (c >= 0) {
                double t = PupaPaper.PUPA[c] * 1e3;
                out.printf(Locale.ROOT, "  %4d paper                     | %s %s %s %s %s %7d%n", p.size(),
                        cell(PupaPaper.PROTOCOL[c] * 1e3, t), cell(PupaPaper.DRIVER[c] * 1e3, t),
                        cell(PupaPaper.TRANSMISSION[c] * 1e3, t), cell(PupaPaper.COPY[c] * 1e3, t),
                        cell(PupaPaper.BUFFER[c] * 1e3, t), PupaPaper.PUPA[c]);
            }
        }
        out.println();
        out.println("Figure 3 is Table 1's total rows plotted: ours, the paper's Pupa and its TCP (TCP_NODELAY) above."
                + " Our host figures are this machine's JMH prices of this code (or 0 with --costs zero), not a P90's:"
                + " a host operation here costs nanoseconds where the paper's took microseconds, so our totals sit"
                + " near the wire and card time, which is the same chip and 100 Mb/s wire as the paper's.");
        checks(log, s, points, failures);
        return log.finish(false);
    }

    private static String cell(double nanos, double total) {
        return String.format(Locale.ROOT, "%7.2f (%3.0f%%)", nanos / 1e3, 100 * nanos / total);
    }

    private static void checks(CheckLog log, Settings s, List<Point> points, List<String> failures) {
        log.check(CheckKind.INTEGRITY_CHECK, "every message of every size was delivered whole, one frame each way"
                + (failures.isEmpty() ? "" : ": " + failures), failures.isEmpty());
        for (Point p : points) {
            log.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "%d B: host components %.1f ns +"
                    + " transmission and DMA %.1f ns add up to the one-way latency the clock measured, %.1f ns,"
                    + " less at most %.0f ns of rounding (all host time on the path charged)", p.size(), p.hostSum(),
                    p.transmission(), p.total(), ROUNDING_NANOS),
                    p.unaccounted() >= 0 && p.unaccounted() <= ROUNDING_NANOS);
            double wire = wireNanos(p.size());
            log.check(CheckKind.MODEL_SELF_CHECK, String.format(Locale.ROOT, "%d B: transmission and DMA %.1f ns >="
                    + " the frame's %.0f ns on a 100 Mb/s wire (preamble to FCS)", p.size(), p.transmission(), wire),
                    p.transmission() >= wire);
        }
        Point small = find(points, PupaPaper.SIZES[0]);
        Point large = find(points, PupaPaper.SIZES[PupaPaper.SIZES.length - 1]);
        if (small != null && large != null) {
            double slope = (large.transmission() - small.transmission()) / (large.size() - small.size());
            double paper = PupaPaper.transmissionSlopeNanosPerByte();
            log.check(CheckKind.ANCHOR_CHECK, String.format(Locale.ROOT, "transmission and DMA per byte, 4..1436 B:"
                    + " ours %.1f ns/B between the wire's 80 ns/B and the paper's Table 1 %.1f ns/B (same chip and"
                    + " wire; their P90's PCI bus and memory no faster than our 33 MHz PCI model)", slope, paper),
                    slope >= 80 && slope <= paper);
            String dominant = String.format(Locale.ROOT, "Table 2 shape: transmission and DMA is the largest component"
                    + " at 1436 B (paper 193 us = 39%%; ours %.2f us = %.0f%%)", large.transmission() / 1e3,
                    100 * large.transmission() / large.total());
            boolean holds = large.transmission() >= max(large.host());
            if (s.priced()) {
                log.check(CheckKind.ANCHOR_CHECK, dominant, holds);
            } else {
                log.comparison(dominant + ": " + (holds ? "holds" : "does not hold") + " (zero table: no host work at"
                        + " all, so not a check)");
            }
            log.comparison(String.format(Locale.ROOT, "one-way latency at 4 B: ours %.2f us, the paper's %d us"
                    + " (host work %.2f us here vs %d us on the P90: sender plus receiver side), at 1436 B: ours %.2f"
                    + " us, the paper's %d us; the gap is the era of the CPU, not the protocol",
                    small.total() / 1e3, PupaPaper.PUPA[0], (small.sender() + small.receiver()) / 1e3,
                    PupaPaper.SENDER[0] + PupaPaper.RECEIVER[0], large.total() / 1e3,
                    PupaPaper.PUPA[PupaPaper.SIZES.length - 1]));
        }
        Point secondary = find(points, 128);
        Point mbuf = find(points, 256);
        if (secondary != null && mbuf != null) {
            log.comparison(String.format(Locale.ROOT, "buffer and header management, 128 B (secondary buffer) vs 256"
                    + " B (kept in the card's buffer): ours %.1f vs %.1f ns, the paper's 102 vs 94 us (its 128-byte"
                    + " body is copied into a secondary buffer; our copy is in the data copy column, the pool's"
                    + " allocation and freeing against the card buffer's hold and release here)",
                    secondary.host()[3], mbuf.host()[3]));
        }
    }

    private static double max(double[] v) {
        double m = Double.NEGATIVE_INFINITY;
        for (double d : v) {
            m = Math.max(m, d);
        }
        return m;
    }

    private static Point find(List<Point> points, int size) {
        for (Point p : points) {
            if (p.size() == size) {
                return p;
            }
        }
        return null;
    }

    /**
     * @return the frame's time on a 100 Mb/s wire, ns: preamble and SFD (8), Ethernet header (14), Pupa's frame and
     *     message headers (20 + 28), the body, padding to the 60-byte minimum, FCS (4); 80 ns a byte
     */
    static double wireNanos(int size) {
        return (8 + Math.max(60, 14 + 20 + 28 + size) + 4) * 80.0;
    }
}
