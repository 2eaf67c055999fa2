package io.nicbridge.sim.traffic;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Latency-vs-load curves and saturation throughput by BookSim's load-sweep method. Every point runs
 * on a fresh network built by the caller's {@link PointRunner}, so points are independent and each
 * is deterministic for its seed.
 */
public final class LoadSweep {
    private LoadSweep() {
    }

    /** Measures one offered load (flits/node/cycle) on a fresh network. */
    @FunctionalInterface
    public interface PointRunner {
        LoadResult run(double offeredLoad);
    }

    /** Told about each finished point (progress on long sweeps). */
    @FunctionalInterface
    public interface Progress {
        void pointDone(int index, LoadResult result);

        Progress NONE = (i, r) -> { };
    }

    /**
     * The outcome of a saturation search.
     *
     * @param saturationLoad the last stable offered load
     * @param saturationResult that point's measurement (null when even the first step was unstable)
     * @param points every point run, in order
     */
    public record Saturation(double saturationLoad, LoadResult saturationResult, List<LoadResult> points) {
    }

    /**
     * Sweeps upward from {@code step} in steps of {@code step}; when a point is unstable the step is
     * halved and the search resumes from the last stable load, until the step falls below
     * {@code minStep} or the load passes {@code maxLoad}. Saturation = the last stable load.
     */
    public static Saturation saturation(PointRunner runner, double step, double minStep, double maxLoad,
                                        Progress progress) {
        Objects.requireNonNull(runner, "runner");
        if (!(step > 0) || !(minStep > 0) || minStep > step || !(maxLoad > 0)) {
            throw new IllegalArgumentException("saturation search needs 0 < min_step <= step and max_load > 0, got step="
                    + step + " min_step=" + minStep + " max_load=" + maxLoad);
        }
        List<LoadResult> points = new ArrayList<>();
        double lastStable = 0.0;
        LoadResult lastStableResult = null;
        double load = step;
        double s = step;
        while (s >= minStep - 1e-12 && load <= maxLoad + 1e-12) {
            LoadResult r = runner.run(load);
            points.add(r);
            progress.pointDone(points.size() - 1, r);
            if (r.stable()) {
                lastStable = load;
                lastStableResult = r;
                load = lastStable + s;
            } else {
                s /= 2;
                load = lastStable + s;
            }
        }
        return new Saturation(lastStable, lastStableResult, List.copyOf(points));
    }

    /** Runs every load of a fixed grid (a curve that includes the regime past saturation). */
    public static List<LoadResult> curve(PointRunner runner, double[] loads, Progress progress) {
        List<LoadResult> points = new ArrayList<>(loads.length);
        for (double load : loads) {
            LoadResult r = runner.run(load);
            points.add(r);
            progress.pointDone(points.size() - 1, r);
        }
        return List.copyOf(points);
    }

    /** @return loads {@code from, from+step, ...} up to and including {@code to} (to rounding) */
    public static double[] grid(double from, double to, double step) {
        if (!(step > 0) || to < from) {
            throw new IllegalArgumentException("a load grid needs step > 0 and to >= from, got " + from + ":" + to
                    + ":" + step);
        }
        int count = (int) Math.floor((to - from) / step + 1e-9) + 1;
        double[] loads = new double[count];
        for (int i = 0; i < count; i++) {
            loads[i] = Math.round((from + i * step) * 1e9) / 1e9;
        }
        return loads;
    }
}
