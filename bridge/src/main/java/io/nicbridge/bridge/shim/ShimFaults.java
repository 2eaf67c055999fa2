package io.nicbridge.bridge.shim;

import io.nicbridge.contract.NicShim;
import io.nicbridge.contract.NicShimFaults;
import java.lang.foreign.MemorySegment;

/**
 * {@code nicshim_faults_t} as a Java value: the native shim's fault injection (nicshim.h "Fault injection", ABI 1.4).
 * Each frame crossing between the card and the interface in a direction that is on suffers at most one fault: dropped,
 * duplicated, held back behind the next frame (reordered) or one payload byte inverted (corrupted), each with its
 * probability; a seed fixes the sequence of decisions. The shim counts every injected fault
 * ({@link ShimStatistics#faultDrops()} ...).
 *
 * <p>In a device spec: {@code shim:afpacket?if=..&drop=0.01&dup=0.01&reorder=0&corrupt=0&seed=7[&faults=rx|tx|both]}
 * (see {@link ShimBackendProvider}).
 *
 * @param directions {@code NicShim.FAULT_RX | NicShim.FAULT_TX}, 0 = off
 * @param seed       the generators' seed
 * @param drop       probability a frame is dropped, in [0, 1]
 * @param duplicate  probability a frame goes on twice
 * @param reorder    probability a frame is held back behind the next one
 * @param corrupt    probability one payload byte of a frame is inverted
 */
public record ShimFaults(int directions, long seed, double drop, double duplicate, double reorder, double corrupt) {
    /** No fault injection. */
    public static final ShimFaults NONE = new ShimFaults(0, 0, 0, 0, 0, 0);
    /** Both directions. */
    public static final int BOTH = NicShim.FAULT_RX | NicShim.FAULT_TX;
    private static final double PPM = NicShim.FAULT_PPM_ONE;

    public ShimFaults {
        if ((directions & ~NicShim.FAULT_DIRECTIONS) != 0) {
            throw new IllegalArgumentException("fault directions must be FAULT_RX | FAULT_TX, were 0x"
                + Integer.toHexString(directions));
        }
        check("drop", drop);
        check("duplicate", duplicate);
        check("reorder", reorder);
        check("corrupt", corrupt);
        long sum = ppm(drop) + ppm(duplicate) + ppm(reorder) + ppm(corrupt);
        if (sum > NicShim.FAULT_PPM_ONE) {
            throw new IllegalArgumentException("fault probabilities add up to " + sum / PPM
                + ": a frame suffers at most one fault, so the sum must be at most 1");
        }
    }

    private static void check(String name, double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("the " + name + " probability must lie in [0, 1], was " + p);
        }
        if (p > 0 && ppm(p) == 0) {
            throw new IllegalArgumentException("the " + name + " probability " + p + " is below the shim's resolution"
                + " of 1e-6 (one frame in a million)");
        }
    }

    private static long ppm(double p) {
        return Math.round(p * PPM);
    }

    /** Whether any fault can happen. */
    public boolean enabled() {
        return directions != 0 && ppm(drop) + ppm(duplicate) + ppm(reorder) + ppm(corrupt) > 0;
    }

    /** Fills a {@code nicshim_faults_t}. */
    void writeTo(MemorySegment f) {
        f.fill((byte) 0);
        NicShimFaults.size(f, 0, (int) NicShimFaults.BYTE_SIZE);
        NicShimFaults.directions(f, 0, directions);
        NicShimFaults.seed(f, 0, seed);
        NicShimFaults.dropPpm(f, 0, (int) ppm(drop));
        NicShimFaults.duplicatePpm(f, 0, (int) ppm(duplicate));
        NicShimFaults.reorderPpm(f, 0, (int) ppm(reorder));
        NicShimFaults.corruptPpm(f, 0, (int) ppm(corrupt));
    }

    @Override
    public String toString() {
        if (!enabled()) {
            return "no faults";
        }
        String dirs = directions == BOTH ? "rx+tx" : directions == NicShim.FAULT_RX ? "rx" : "tx";
        return "faults " + dirs + " drop " + drop + " dup " + duplicate + " reorder " + reorder + " corrupt " + corrupt
            + " seed " + seed;
    }
}
