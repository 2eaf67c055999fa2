package io.nicbridge.bench.reproduce;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The progress of a reproduce run: on a terminal, one line redrawn twice a second with a bar for the running
 * experiment and one for the whole run, with the time left; elsewhere (a pipe, CI) one plain line when each
 * experiment starts and ends. The bars are estimates: an experiment's bar is its elapsed time over its estimate
 * (held at 99 % until it ends), the time left is the remaining estimates scaled by how far off the finished ones were.
 */
final class ProgressDisplay implements AutoCloseable {
    private static final int WIDTH = 20;
    private final PrintStream terminal;
    private final boolean tty;
    private final double totalEstimate;
    private final int count;
    private final Thread ticker;
    private volatile String currentId;
    private volatile double currentEstimate;
    private volatile long currentStart;
    private volatile int index;
    private volatile double doneEstimate;
    private volatile double doneActual;

    /**
     * @param terminal      where the progress goes (the real standard error, while experiments print elsewhere)
     * @param tty           whether it is a terminal (redraw one line) or not (plain lines)
     * @param totalEstimate the sum of the experiments' estimates, seconds
     * @param count         how many experiments
     */
    ProgressDisplay(PrintStream terminal, boolean tty, double totalEstimate, int count) {
        this.terminal = terminal;
        this.tty = tty;
        this.totalEstimate = totalEstimate;
        this.count = count;
        this.ticker = tty ? Thread.ofPlatform().daemon().name("reproduce-progress").start(this::tick) : null;
    }

    void start(int i, Experiment e) {
        index = i;
        currentEstimate = e.estimateSeconds();
        currentStart = System.nanoTime();
        currentId = e.id();
        if (!tty) {
            terminal.printf(Locale.ROOT, "reproduce: [%d/%d] %s: %s ...%n", i + 1, count, e.id(), e.title());
        }
    }

    void end(Result r) {
        double actual = r.wall().toNanos() / 1e9;
        doneEstimate += r.experiment().estimateSeconds();
        doneActual += r.status() == Result.Status.NOT_RUN ? r.experiment().estimateSeconds() : actual;
        currentId = null;
        String line = String.format(Locale.ROOT, "reproduce: [%d/%d] %s: %s (%s)%s", index + 1, count,
                r.experiment().id(), r.verdict().word(), r.basis(), r.status() == Result.Status.NOT_RUN ? ""
                        : String.format(Locale.ROOT, ", %.1f s", actual));
        synchronized (terminal) {
            terminal.print(tty ? "\r\033[K" + line + "\n" : line + "\n");
            terminal.flush();
        }
    }

    private void tick() {
        while (!Thread.currentThread().isInterrupted()) {
            String id = currentId;
            if (id != null) {
                double elapsed = (System.nanoTime() - currentStart) / 1e9;
                double mine = Math.min(0.99, elapsed / currentEstimate);
                double speed = doneEstimate > 0 ? doneActual / doneEstimate : 1.0;
                double left = Math.max(0, (totalEstimate - doneEstimate) * speed - elapsed);
                double overall = Math.min(0.99, (doneEstimate + mine * currentEstimate) / totalEstimate);
                String line = String.format(Locale.ROOT, "%-22s %s %3.0f%% %5.1fs | all %s %d/%d, ~%s left",
                        id.length() > 22 ? id.substring(0, 22) : id, bar(mine), 100 * mine, elapsed, bar(overall),
                        index, count, clock(left));
                synchronized (terminal) {
                    terminal.print("\r\033[K" + line);
                    terminal.flush();
                }
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static String bar(double fraction) {
        int full = (int) Math.round(Math.max(0, Math.min(1, fraction)) * WIDTH);
        return "[" + "#".repeat(full) + ".".repeat(WIDTH - full) + "]";
    }

    static String clock(double seconds) {
        long s = Math.round(seconds);
        return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }

    @Override
    public void close() {
        if (ticker != null) {
            ticker.interrupt();
            synchronized (terminal) {
                terminal.print("\r\033[K");
                terminal.flush();
            }
        }
    }
}
