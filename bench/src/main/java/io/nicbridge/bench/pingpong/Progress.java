package io.nicbridge.bench.pingpong;

import java.io.PrintStream;
import java.util.Locale;

/** A progress line on stderr at most once a second; checking costs one clock read every 256 ticks. */
public final class Progress {
    private static final long PERIOD_NANOS = 1_000_000_000L;
    private final String what;
    private final long total;
    private final PrintStream out;
    private final long started = System.nanoTime();
    private long nextAt = started + PERIOD_NANOS;

    public Progress(String what, long total, PrintStream out) {
        this.what = what;
        this.total = total;
        this.out = out;
    }

    /** @param done units finished so far */
    public void tick(long done) {
        if ((done & 255) != 0) {
            return;
        }
        long now = System.nanoTime();
        if (now - nextAt >= 0) {
            nextAt = now + PERIOD_NANOS;
            out.printf(Locale.ROOT, "%s: %d/%d (%.0f%%), %.1f s%n", what, done, total, 100.0 * done / total,
                (now - started) / 1e9);
        }
    }
}
