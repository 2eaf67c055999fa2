package io.nicbridge.bench.medusa;

/** Ordinary least-squares line y = intercept + slope x. */
public record LeastSquares(double slope, double intercept, double maxResidual) {
    public static LeastSquares fit(double[] x, double[] y) {
        int n = x.length;
        if (n < 2 || y.length != n) {
            throw new IllegalArgumentException("a line needs at least 2 points with x and y each, got " + n + " and "
                + y.length);
        }
        double sx = 0;
        double sy = 0;
        for (int i = 0; i < n; i++) {
            sx += x[i];
            sy += y[i];
        }
        double mx = sx / n;
        double my = sy / n;
        double sxx = 0;
        double sxy = 0;
        for (int i = 0; i < n; i++) {
            sxx += (x[i] - mx) * (x[i] - mx);
            sxy += (x[i] - mx) * (y[i] - my);
        }
        if (sxx == 0) {
            throw new IllegalArgumentException("all x are equal: no slope");
        }
        double slope = sxy / sxx;
        double intercept = my - slope * mx;
        double worst = 0;
        for (int i = 0; i < n; i++) {
            worst = Math.max(worst, Math.abs(y[i] - (intercept + slope * x[i])));
        }
        return new LeastSquares(slope, intercept, worst);
    }
}
