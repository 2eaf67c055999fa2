package io.nicbridge.bench.jmh;

import java.util.Collection;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The two JMH settings the commands that run JMH in this JVM use ({@code nic calibrate}, the per-operation tables of
 * {@code nic reproduce}): one fork each, and either the quick or the regular iterations.
 */
public final class JmhRuns {
    private JmhRuns() {
    }

    /**
     * Runs the benchmarks {@code include} matches, one fork each, silently, under JMH's lock.
     *
     * @param include a JMH include pattern (a regular expression over benchmark names)
     * @param quick   1 warm-up and 3 measurement iterations of 200 ms instead of 3 and 5 of 1 s
     * @param params  {@code name=value,value...} to restrict a {@code @Param}; none: every value the benchmark lists
     * @throws JmhLock.Held    when another JMH run holds JMH's lock: nothing measured
     * @throws RunnerException when JMH fails otherwise
     */
    public static Collection<RunResult> run(String include, boolean quick, String... params)
            throws JmhLock.Held, RunnerException {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(include)
                .forks(1)
                .warmupIterations(quick ? 1 : 3)
                .warmupTime(quick ? TimeValue.milliseconds(200) : TimeValue.seconds(1))
                .measurementIterations(quick ? 3 : 5)
                .measurementTime(quick ? TimeValue.milliseconds(200) : TimeValue.seconds(1))
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
