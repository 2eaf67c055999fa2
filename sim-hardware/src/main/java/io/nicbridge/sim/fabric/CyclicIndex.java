package io.nicbridge.sim.fabric;

/**
 * Index arithmetic on rings (VC buffers, round-robin pointers, rotated VC words) without branches. Whether an
 * index wraps is data the branch predictor cannot learn, and the router moves a ring head, a pointer or a rotated
 * VC index for every flit: a mispredicted branch costs more than the few integer operations here.
 */
final class CyclicIndex {
    private CyclicIndex() {
    }

    /** {@code i + 1}, or 0 when that reaches {@code n}; for {@code 0 <= i < n}. */
    static int next(int i, int n) {
        int next = i + 1;
        return next & ((next - n) >> 31);
    }

    /** {@code x mod n} for {@code 0 <= x < 2n}: {@code x - n} once {@code x} reaches {@code n}. */
    static int reduce(int x, int n) {
        return x - (n & ~((x - n) >> 31));
    }
}
