package io.nicbridge.bench.reproduce;

import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A figure's plot, drawn with XChart: the paper's axes, our curve per series (line and dots) over the paper's points
 * for the same series (open diamonds, same colour, no line), written as SVG (inlined in the page) and PNG.
 */
final class Plots {
    private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf)};

    private Plots() {
    }

    /** The files of one plot. */
    record PlotFiles(Path svg, Path png) {
    }

    /**
     * Draws {@code rows} (all of {@code figure}) and writes {@code dir/name.svg} and {@code dir/name.png}.
     *
     * @return the files, or null when no row has a value to draw
     */
    static PlotFiles draw(Figure figure, List<Row> rows, Path dir, String name) throws IOException {
        Map<String, List<Row>> bySeries = new LinkedHashMap<>();
        for (Row r : rows) {
            bySeries.computeIfAbsent(r.series(), s -> new ArrayList<>()).add(r);
        }
        XYChart chart = new XYChartBuilder().width(760).height(460).title(figure.title()).xAxisTitle(figure.xAxis())
                .yAxisTitle(figure.yAxis()).build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setMarkerSize(7);
        boolean positive = rows.stream().allMatch(r -> r.x() > 0);
        chart.getStyler().setXAxisLogarithmic(figure.logX() && positive);
        chart.getStyler().setYAxisLogarithmic(figure.logY());
        int colour = 0;
        int drawn = 0;
        for (Map.Entry<String, List<Row>> e : bySeries.entrySet()) {
            Color c = PALETTE[colour++ % PALETTE.length];
            double[][] ours = xy(e.getValue(), true, figure.logY());
            double[][] paper = xy(e.getValue(), false, figure.logY());
            if (ours[0].length > 0) {
                XYSeries s = chart.addSeries(e.getKey() + " (ours)", ours[0], ours[1]);
                s.setMarker(SeriesMarkers.CIRCLE);
                s.setLineColor(c);
                s.setMarkerColor(c);
                drawn++;
            }
            if (paper[0].length > 0) {
                XYSeries s = chart.addSeries(e.getKey() + " (paper)", paper[0], paper[1]);
                s.setMarker(SeriesMarkers.DIAMOND);
                s.setLineStyle(SeriesLines.NONE);
                s.setMarkerColor(c.darker());
                drawn++;
            }
        }
        if (drawn == 0) {
            return null;
        }
        Files.createDirectories(dir);
        Path svg = dir.resolve(name + ".svg");
        Path png = dir.resolve(name + ".png");
        VectorGraphicsEncoder.saveVectorGraphic(chart, svg.toString(), VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
        return new PlotFiles(svg, png);
    }

    /** @return the SVG file's {@code <svg>} element, for inlining in HTML (no XML prolog or doctype) */
    static String inline(Path svg) throws IOException {
        String text = Files.readString(svg, StandardCharsets.UTF_8);
        int start = text.indexOf("<svg");
        if (start < 0) {
            throw new IOException(svg + " holds no <svg> element");
        }
        return text.substring(start);
    }

    /** @return the series' points with a value, sorted by x; on a log y axis, only those above 0 */
    private static double[][] xy(List<Row> rows, boolean ours, boolean logY) {
        List<double[]> pts = new ArrayList<>();
        for (Row r : rows) {
            double y = ours ? r.ours() : r.paper();
            if (!Double.isNaN(y) && !Double.isNaN(r.x()) && (!logY || y > 0)) {
                pts.add(new double[] {r.x(), y});
            }
        }
        pts.sort((a, b) -> Double.compare(a[0], b[0]));
        double[][] out = new double[2][pts.size()];
        for (int i = 0; i < pts.size(); i++) {
            out[0][i] = pts.get(i)[0];
            out[1][i] = pts.get(i)[1];
        }
        return out;
    }
}
