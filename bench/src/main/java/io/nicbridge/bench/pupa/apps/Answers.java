package io.nicbridge.bench.pupa.apps;

/** Comparing a parallel program's answer with the one-node program's. */
final class Answers {
    private Answers() {
    }

    /** @return whether the two arrays are equal bit for bit */
    static boolean sameBits(double[] a, double[] b) {
        if (a.length != b.length) {
            return false;
        }
        for (int i = 0; i < a.length; i++) {
            if (Double.doubleToRawLongBits(a[i]) != Double.doubleToRawLongBits(b[i])) {
                return false;
            }
        }
        return true;
    }
}
