package io.nicbridge.bench.jmh;

import java.util.Collection;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * How the commands that run JMH in this JVM run it ({@code nic calibrate}, the per-operation tables of
 * {@code nic reproduce}): silently, under JMH's lock ({@link JmhLock}), with one of a few settings.
 */
public final class JmhRuns {
    /** {@code nic calibrate}'s regular run: one fork per benchmark, 3 warm-ups and 5 iterations of 1 s. */
    public static final Settings REGULAR = new Settings(1, 3, 1_000, 5, 1_000);
    /** {@code nic calibrate --quick}: one fork per benchmark, 1 warm-up and 3 iterations of 200 ms. */
    public static final Settings QUICK = new Settings(1, 1, 200, 3, 200);

    private JmhRuns() {
    }

    /**
     * One JMH setting.
     *
     * @param forks           JVMs forked per benchmark; 0 runs in this JVM (no JVM start per benchmark, which is
     *                        most of a short run's time, but the benchmark shares this JVM's compiled code and heap)
     * @param warmups         warm-up iterations
     * @param warmupMillis    each warm-up's length
     * @param iterations      measurement iterations
     * @param iterationMillis each measurement's length
     */
    public record Settings(int forks, int warmups, int warmupMillis, int iterations, int iterationMillis) {
        public Settings {
            if (forks < 0 || warmups < 0 || warmupMillis < 1 || iterations < 1 || iterationMillis < 1) {
                throw new IllegalArgumentException("forks and warm-ups >= 0, iterations and lengths >= 1, was "
                        + this);
            }
        }

        /** @return e.g. {@code one fork per benchmark, 3 warm-ups + 5 iterations of 1000 ms} */
        public String describe() {
            return String.format(Locale.ROOT, "%s, %d warm-up%s of %d ms + %d iterations of %d ms",
                    forks == 0 ? "in this JVM (not forked)" : forks + " fork" + (forks == 1 ? "" : "s")
                            + " per benchmark", warmups, warmups == 1 ? "" : "s", warmupMillis, iterations,
                    iterationMillis);
        }
    }

    /**
     * Runs the benchmarks {@code include} matches.
     *
     * @param include  a JMH include pattern (a regular expression over benchmark names)
     * @param settings forks and iterations
     * @param params   {@code name=value,value...} to restrict a {@code @Param}; none: every value the benchmark lists
     * @throws JmhLock.Held    when another JMH run holds JMH's lock: nothing measured
     * @throws RunnerException when JMH fails otherwise
     */
    public static Collection<RunResult> run(String include, Settings settings, String... params)
            throws JmhLock.Held, RunnerException {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(include)
                .forks(settings.forks())
                .warmupIterations(settings.warmups())
                .warmupTime(TimeValue.milliseconds(settings.warmupMillis()))
                .measurementIterations(settings.iterations())
                .measurementTime(TimeValue.milliseconds(settings.iterationMillis()))
                .verbosity(VerboseMode.SILENT);
        for (String p : params) {
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("a JMH parameter is name=value[,value...], was '" + p + "'");
            }
            options.param(p.substring(0, eq), p.substring(eq + 1).split(","));
        }
        return JmhLock.run(options.build());
    }
}
