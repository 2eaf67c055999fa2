package io.nicbridge.sim.traffic;

import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The BookSim synthetic traffic patterns, for {@code nodes = k^n} nodes numbered in radix k with
 * digit 0 fastest (on a mesh or torus digit d is the coordinate in dimension d, so node
 * {@code y*k + x} sits at (x, y)):
 * <pre>
 *   uniform          any node, self included, with equal probability
 *   bitcomp          d = ~s  (all log2(nodes) address bits inverted; nodes a power of two)
 *   transpose        d = s rotated by half its address bits: (x, y) -> (y, x)  (nodes = 4^m)
 *   tornado          each digit + ceil(k/2) - 1 (mod k): almost halfway round every dimension
 *   neighbor         each digit + 1 (mod k)
 *   randperm         a fixed random permutation of the nodes, drawn once from the seed
 *   hotspot          with probability f one of the hotspot nodes (uniformly), else uniform
 * </pre>
 */
public final class Patterns {
    private Patterns() {
    }

    /** Every name {@link #create} accepts. */
    public static final String NAMES = "uniform, bitcomp, transpose, tornado, neighbor, randperm, hotspot";

    /** @return uniform random destinations over all nodes, self included */
    public static TrafficPattern uniform(int nodes) {
        requirePositive(nodes);
        return (source, random) -> random.nextInt(nodes);
    }

    /** @return destination = source with every address bit inverted */
    public static TrafficPattern bitComplement(int nodes) {
        requirePowerOfTwo(nodes, "bitcomp");
        int mask = nodes - 1;
        return (source, random) -> ~source & mask;
    }

    /** @return destination = source with its upper and lower halves of address bits swapped */
    public static TrafficPattern transpose(int nodes) {
        requirePowerOfTwo(nodes, "transpose");
        int bits = Integer.numberOfTrailingZeros(nodes);
        if ((bits & 1) != 0) {
            throw new IllegalArgumentException("transpose needs nodes = 4^m (an even number of address bits), got "
                    + nodes);
        }
        int half = bits / 2;
        int lowMask = (1 << half) - 1;
        return (source, random) -> ((source & lowMask) << half) | (source >>> half);
    }

    /** @return each radix-k digit advanced by ceil(k/2) - 1 */
    public static TrafficPattern tornado(int k, int n) {
        return digitShift(k, n, (k + 1) / 2 - 1);
    }

    /** @return each radix-k digit advanced by one */
    public static TrafficPattern neighbor(int k, int n) {
        return digitShift(k, n, 1);
    }

    /** @return a fixed permutation drawn from {@code seed} (every node receives from exactly one node) */
    public static TrafficPattern randomPermutation(int nodes, long seed) {
        requirePositive(nodes);
        int[] perm = permutation(nodes, seed);
        return (source, random) -> perm[source];
    }

    /**
     * @param hotspots the hot nodes
     * @param fraction probability that a packet goes to a hot node (else uniform over all nodes)
     */
    public static TrafficPattern hotspot(int nodes, int[] hotspots, double fraction) {
        requirePositive(nodes);
        if (hotspots.length == 0) {
            throw new IllegalArgumentException("hotspot traffic needs at least one hotspot node");
        }
        for (int h : hotspots) {
            if (h < 0 || h >= nodes) {
                throw new IllegalArgumentException("hotspot node " + h + " is outside [0, " + nodes + ")");
            }
        }
        if (!(fraction >= 0.0 && fraction <= 1.0)) {
            throw new IllegalArgumentException("hotspot fraction must be in [0, 1], got " + fraction);
        }
        int[] hot = hotspots.clone();
        return (source, random) -> random.nextDouble() < fraction
                ? hot[random.nextInt(hot.length)]
                : random.nextInt(nodes);
    }

    /**
     * Builds a pattern by name (see {@link #NAMES}).
     *
     * @param k radix used by tornado and neighbor ({@code k^n} must equal nodes)
     * @param n number of radix-k digits
     */
    public static TrafficPattern create(String name, int nodes, int k, int n, long seed, int[] hotspots,
                                        double hotspotFraction) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "uniform" -> uniform(nodes);
            case "bitcomp", "bit-complement", "bitcomplement" -> bitComplement(nodes);
            case "transpose" -> transpose(nodes);
            case "tornado" -> checkedDigits(nodes, k, n, "tornado", tornado(k, n));
            case "neighbor" -> checkedDigits(nodes, k, n, "neighbor", neighbor(k, n));
            case "randperm", "random-permutation" -> randomPermutation(nodes, seed);
            case "hotspot" -> hotspot(nodes, hotspots, hotspotFraction);
            default -> throw new IllegalArgumentException("unknown traffic pattern '" + name + "'; known: " + NAMES);
        };
    }

    /** @return a random permutation of [0, nodes) drawn from {@code seed} (Fisher-Yates) */
    public static int[] permutation(int nodes, long seed) {
        int[] perm = new int[nodes];
        Arrays.setAll(perm, i -> i);
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = nodes - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        return perm;
    }

    private static TrafficPattern checkedDigits(int nodes, int k, int n, String name, TrafficPattern p) {
        long size = 1;
        for (int i = 0; i < n; i++) {
            size *= k;
        }
        if (size != nodes) {
            throw new IllegalArgumentException(name + " needs nodes = k^n, got nodes=" + nodes + " k=" + k + " n=" + n);
        }
        return p;
    }

    private static TrafficPattern digitShift(int k, int n, int shift) {
        if (k < 2 || n < 1) {
            throw new IllegalArgumentException("digit patterns need k >= 2 and n >= 1, got k=" + k + " n=" + n);
        }
        return (source, random) -> {
            int dest = 0;
            int place = 1;
            int s = source;
            for (int d = 0; d < n; d++) {
                int digit = s % k;
                s /= k;
                dest += ((digit + shift) % k) * place;
                place *= k;
            }
            return dest;
        };
    }

    private static void requirePositive(int nodes) {
        if (nodes < 1) {
            throw new IllegalArgumentException("a traffic pattern needs at least one node, got " + nodes);
        }
    }

    private static void requirePowerOfTwo(int nodes, String name) {
        if (nodes < 2 || Integer.bitCount(nodes) != 1) {
            throw new IllegalArgumentException(name + " needs a power-of-two node count, got " + nodes);
        }
    }
}
