package io.nicbridge.bench.cli.fabric;

import io.nicbridge.sim.traffic.LoadResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** PNG charts of load sweeps, drawn with XChart (headless). */
final class FabricPlots {
    private FabricPlots() {
    }

    /** One curve: a fabric's measured points in load order. */
    record Series(String name, List<LoadResult> points) {
    }

    /** Average packet latency of the stable points against offered load. */
    static Path latency(List<Series> series, Path file) throws IOException {
        XYChart chart = chart("Latency vs offered load", "offered load (flits/node/cycle)",
                "average packet latency (cycles)");
        for (Series s : series) {
            double[][] xy = xy(s.points(), true, r -> r.packetLatency());
            if (xy[0].length > 0) {
                chart.addSeries(s.name(), xy[0], xy[1]).setMarker(SeriesMarkers.CIRCLE);
            }
        }
        return save(chart, file);
    }

    /** Accepted throughput (minimum and average over nodes) against offered load, every point. */
    static Path throughput(List<Series> series, Path file) throws IOException {
        XYChart chart = chart("Accepted vs offered load", "offered load (flits/node/cycle)",
                "accepted (flits/node/cycle)");
        double max = 0;
        for (Series s : series) {
            double[][] min = xy(s.points(), false, LoadResult::acceptedMinimum);
            double[][] avg = xy(s.points(), false, LoadResult::acceptedAverage);
            if (min[0].length > 0) {
                chart.addSeries(s.name() + " min", min[0], min[1]).setMarker(SeriesMarkers.CIRCLE);
                XYSeries a = chart.addSeries(s.name() + " avg", avg[0], avg[1]);
                a.setMarker(SeriesMarkers.DIAMOND);
                max = Math.max(max, min[0][min[0].length - 1]);
            }
        }
        if (max > 0) {
            chart.addSeries("offered = accepted", new double[] {0, max}, new double[] {0, max})
                    .setMarker(SeriesMarkers.NONE);
        }
        return save(chart, file);
    }

    /** Fraction of measured packets dropped against offered load (drop-when-blocked fabrics). */
    static Path drops(List<Series> series, Path file) throws IOException {
        XYChart chart = chart("Drop rate vs offered load", "offered load (flits/node/cycle)", "packets dropped (%)");
        for (Series s : series) {
            double[][] xy = xy(s.points(), false, r -> 100 * r.dropRate());
            if (xy[0].length > 0) {
                chart.addSeries(s.name(), xy[0], xy[1]).setMarker(SeriesMarkers.CIRCLE);
            }
        }
        return save(chart, file);
    }

    private static XYChart chart(String title, String x, String y) {
        XYChart chart = new XYChartBuilder().width(900).height(600).title(title).xAxisTitle(x).yAxisTitle(y).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setMarkerSize(6);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        return chart;
    }

    private static double[][] xy(List<LoadResult> points, boolean stableOnly,
                                 java.util.function.ToDoubleFunction<LoadResult> y) {
        List<LoadResult> use = points.stream().filter(r -> !stableOnly || r.stable())
                .sorted(java.util.Comparator.comparingDouble(LoadResult::offeredLoad)).toList();
        double[][] out = new double[2][use.size()];
        for (int i = 0; i < use.size(); i++) {
            out[0][i] = use.get(i).offeredLoad();
            out[1][i] = y.applyAsDouble(use.get(i));
        }
        return out;
    }

    private static Path save(XYChart chart, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        String name = file.toString();
        String base = name.endsWith(".png") ? name.substring(0, name.length() - 4) : name;
        BitmapEncoder.saveBitmap(chart, base, BitmapEncoder.BitmapFormat.PNG);
        return Path.of(base + ".png");
    }
}
