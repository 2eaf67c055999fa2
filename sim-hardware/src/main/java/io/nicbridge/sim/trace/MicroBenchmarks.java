package io.nicbridge.sim.trace;

import static io.nicbridge.sim.trace.TraceMachine.pointer;

import io.nicbridge.sim.traffic.Patterns;
import java.util.Arrays;
import java.util.function.IntConsumer;
import java.util.function.IntToLongFunction;

/**
 * The idempotent-messaging paper's four micro-benchmarks (section 4.1), written with the
 * {@link TraceMachine} library so that they produce block-structured traces. The programs really
 * compute (prefix sums, the reversed vector, the sorted vector, body positions), and each returns
 * its trace plus a check of its own result. Full sizes: add on 4096 nodes, reverse of 16K entries
 * on 1024 nodes, quicksort of 32K entries on 1024 nodes, nbody on 256 nodes; smaller sizes for tests.
 *
 * <p>Computation time per operation (the paper's "time macro", estimated by the programmer):
 * {@value #CYCLES_PER_ELEMENT} cycles per element touched, {@value #CYCLES_PER_COMPARE} per comparison
 * in a local sort, {@value #CYCLES_PER_INTERACTION} per body-body interaction.
 */
public final class MicroBenchmarks {
    static final int CYCLES_PER_ELEMENT = 2;
    static final int CYCLES_PER_COMPARE = 4;
    static final int CYCLES_PER_INTERACTION = 20;

    private MicroBenchmarks() {
    }

    /** A generated trace and whether the program computed the right answer. */
    public record Program(BlockTrace trace, boolean resultCorrect) {
    }

    /** Names accepted by {@link #create}. */
    public static final String NAMES = "add, reverse, quicksort, nbody";

    /**
     * @param size nodes for add and nbody, entries for reverse and quicksort (0 = the paper's size)
     * @param nodes nodes for reverse and quicksort (0 = the paper's 1024)
     */
    public static Program create(String name, int size, int nodes, long seed, TraceCosts costs) {
        return switch (name) {
            case "add" -> add(size == 0 ? 4096 : size, costs);
            case "reverse" -> reverse(size == 0 ? 16 * 1024 : size, nodes == 0 ? 1024 : nodes, costs);
            case "quicksort" -> quicksort(size == 0 ? 32 * 1024 : size, nodes == 0 ? 1024 : nodes, seed, costs);
            case "nbody" -> nbody(size == 0 ? 256 : size, 2, seed, costs);
            default -> throw new IllegalArgumentException("unknown micro-benchmark '" + name + "'; known: " + NAMES);
        };
    }

    // ------------------------------------------------------------------ add

    /**
     * Parallel prefix addition, one word per node: an up-sweep of forked threads returns subtree
     * sums by join/sync, a down-sweep hands each subtree its offset. Network use: thread creation
     * and synchronisation only.
     */
    public static Program add(int nodes, TraceCosts costs) {
        int[] base = new int[3];
        long[] expected = new long[nodes];
        long[] ok = new long[1];
        BlockTrace t = TraceMachine.record("add", nodes, costs, m -> {
            base[0] = m.allocate(1);            // data
            base[1] = m.allocate(1);            // prefix result
            base[2] = m.allocate(32);           // left-subtree sums, one word per tree level
            long run = 0;
            for (int n = 0; n < nodes; n++) {
                long v = (n * 7L + 3) % 11;
                m.poke(pointer(n, base[0]), v);
                run += v;
                expected[n] = run;
            }
        }, m -> {
            Trees trees = new Trees(m, base[2]);
            trees.prefix(0, nodes, n -> m.load(pointer(n, base[0])),
                    (n, offset, total) -> m.store(pointer(n, base[1]), offset + m.load(pointer(n, base[0]))));
            ok[0] = 1;
            for (int n = 0; n < nodes; n++) {
                if (m.peek(pointer(n, base[1])) != expected[n]) {
                    ok[0] = 0;
                }
            }
        });
        return new Program(t, ok[0] == 1);
    }

    // ------------------------------------------------------------------ reverse

    /**
     * Reverses a vector distributed block-wise over the nodes: every node stores each of its entries
     * to the mirrored position, waits for its stores, and joins the tree that started it.
     */
    public static Program reverse(int entries, int nodes, TraceCosts costs) {
        requireDivisible(entries, nodes, "reverse");
        int per = entries / nodes;
        int[] base = new int[3];
        boolean[] ok = new boolean[1];
        BlockTrace t = TraceMachine.record("reverse", nodes, costs, m -> {
            base[0] = m.allocate(per);
            base[1] = m.allocate(per);
            base[2] = m.allocate(32);
            for (int g = 0; g < entries; g++) {
                m.poke(pointer(g / per, base[0] + g % per), g);
            }
        }, m -> {
            Trees trees = new Trees(m, base[2]);
            trees.forAll(0, nodes, n -> {
                for (int k = 0; k < per; k++) {
                    int g = n * per + k;
                    int r = entries - 1 - g;
                    long v = m.load(pointer(n, base[0] + k));
                    m.compute(CYCLES_PER_ELEMENT);
                    m.store(pointer(r / per, base[1] + r % per), v);
                }
                m.waitStores();
            });
            boolean good = true;
            for (int g = 0; g < entries; g++) {
                good &= m.peek(pointer(g / per, base[1] + g % per)) == entries - 1 - g;
            }
            ok[0] = good;
        });
        return new Program(t, ok[0]);
    }

    // ------------------------------------------------------------------ quicksort

    /**
     * Parallel quicksort of a random vector (distinct keys) distributed block-wise. A range within one
     * node is sorted locally; a wider range picks a pivot (median of three remote loads), counts the
     * keys below it on every node of the range with a prefix tree (the counts give every key its new
     * position), moves the keys into the other buffer with remote stores, and sorts both parts in
     * parallel (fork, fork, sync, sync).
     */
    public static Program quicksort(int entries, int nodes, long seed, TraceCosts costs) {
        requireDivisible(entries, nodes, "quicksort");
        int per = entries / nodes;
        int[] base = new int[3];
        boolean[] ok = new boolean[1];
        BlockTrace t = TraceMachine.record("quicksort", nodes, costs, m -> {
            base[0] = m.allocate(per);
            base[1] = m.allocate(per);
            base[2] = m.allocate(64);
            int[] keys = Patterns.permutation(entries, seed);
            for (int g = 0; g < entries; g++) {
                m.poke(pointer(g / per, base[0] + g % per), keys[g]);
            }
        }, m -> {
            Quicksort qs = new Quicksort(m, per, base[0], base[1], new Trees(m, base[2]));
            JoinCapability done = m.newJoin();
            m.fork(0, () -> qs.sort(0, entries, 0, done));
            m.sync(done);
            boolean good = true;
            for (int g = 0; g < entries; g++) {
                good &= m.peek(pointer(g / per, base[0] + g % per)) == g;
            }
            ok[0] = good;
        });
        return new Program(t, ok[0]);
    }

    private static final class Quicksort {
        private final TraceMachine m;
        private final int per;
        private final int[] buffers;
        private final Trees trees;

        Quicksort(TraceMachine m, int per, int a, int b, Trees trees) {
            this.m = m;
            this.per = per;
            this.buffers = new int[] {a, b};
            this.trees = trees;
        }

        private long at(int g, int buffer) {
            return pointer(g / per, buffers[buffer] + g % per);
        }

        /** Runs on node owner(lo); sorts [lo, hi) held in {@code buffer}; result ends in buffer 0. */
        void sort(int lo, int hi, int buffer, JoinCapability parent) {
            int first = lo / per;
            int last = (hi - 1) / per;
            if (first == last) {
                int n = hi - lo;
                long[] local = new long[n];
                for (int i = 0; i < n; i++) {
                    local[i] = m.load(at(lo + i, buffer));
                }
                Arrays.sort(local);
                m.compute((long) CYCLES_PER_COMPARE * n * Math.max(1, 32 - Integer.numberOfLeadingZeros(n)));
                for (int i = 0; i < n; i++) {
                    m.store(at(lo + i, 0), local[i]);
                }
                m.join(parent, 0);
                return;
            }
            long pivot;
            if (hi - lo == 2) {
                pivot = Math.max(m.load(at(lo, buffer)), m.load(at(hi - 1, buffer)));
            } else {
                long x = m.load(at(lo, buffer));
                long y = m.load(at((lo + hi) >>> 1, buffer));
                long z = m.load(at(hi - 1, buffer));
                pivot = Math.max(Math.min(x, y), Math.min(Math.max(x, y), z));
            }
            m.compute(CYCLES_PER_COMPARE * 3);
            int other = buffer ^ 1;
            // Counts per node packed as (below << 32) | (at or above): the up-sweep sums them, the
            // down-sweep gives every node the counts before it, i.e. where its keys go.
            long totals = trees.prefix(first, last - first + 1, n -> {
                long below = 0;
                long above = 0;
                for (int g = Math.max(lo, n * per); g < Math.min(hi, (n + 1) * per); g++) {
                    if (m.load(at(g, buffer)) < pivot) {
                        below++;
                    } else {
                        above++;
                    }
                    m.compute(CYCLES_PER_ELEMENT);
                }
                return (below << 32) | above;
            }, (n, offsets, total) -> {
                int nextBelow = lo + (int) (offsets >>> 32);
                int nextAbove = lo + (int) (total >>> 32) + (int) (offsets & 0xFFFF_FFFFL);
                for (int g = Math.max(lo, n * per); g < Math.min(hi, (n + 1) * per); g++) {
                    long v = m.load(at(g, buffer));
                    m.compute(CYCLES_PER_ELEMENT);
                    m.store(at(v < pivot ? nextBelow++ : nextAbove++, other), v);
                }
                m.waitStores();
            });
            int lessTotal = (int) (totals >>> 32);
            int mid = lo + lessTotal;
            JoinCapability left = m.newJoin();
            JoinCapability right = m.newJoin();
            m.fork(lo / per, () -> sort(lo, mid, other, left));
            m.fork(mid / per, () -> sort(mid, hi, other, right));
            m.sync(left);
            m.sync(right);
            m.join(parent, 0);
        }
    }

    // ------------------------------------------------------------------ nbody

    /**
     * N-body, one body per node, nodes arranged as a sqrt(N) x sqrt(N) square: each step every node
     * stores its body's position to the nodes of its row; after a barrier every node stores the row's
     * positions to the nodes of its column, so every node holds all N positions; then each node
     * computes the forces on its body and moves it.
     */
    public static Program nbody(int nodes, int steps, long seed, TraceCosts costs) {
        int side = (int) Math.round(Math.sqrt(nodes));
        if (side * side != nodes || nodes < 4) {
            throw new IllegalArgumentException("nbody needs a square number of nodes >= 4, got " + nodes);
        }
        if (steps < 1) {
            throw new IllegalArgumentException("nbody needs at least one step, got " + steps);
        }
        int[] base = new int[3];
        boolean[] ok = new boolean[1];
        boolean[] good = {true};
        BlockTrace t = TraceMachine.record("nbody", nodes, costs, m -> {
            base[0] = m.allocate(2 * nodes);   // positions (x, y) of every body, as known by this node
            base[1] = m.allocate(2);           // velocity of this node's body
            base[2] = m.allocate(32);
            java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
            for (int b = 0; b < nodes; b++) {
                m.poke(pointer(b, base[0] + 2 * b), Double.doubleToLongBits(r.nextDouble()));
                m.poke(pointer(b, base[0] + 2 * b + 1), Double.doubleToLongBits(r.nextDouble()));
            }
        }, m -> {
            Trees trees = new Trees(m, base[2]);
            double[][] vel = new double[nodes][2];
            for (int s = 0; s < steps; s++) {
                trees.forAll(0, nodes, n -> {                 // row broadcast of the own body
                    int row = n / side;
                    long x = m.load(pointer(n, base[0] + 2 * n));
                    long y = m.load(pointer(n, base[0] + 2 * n + 1));
                    for (int c = 0; c < side; c++) {
                        int to = row * side + c;
                        if (to != n) {
                            m.store(pointer(to, base[0] + 2 * n), x);
                            m.store(pointer(to, base[0] + 2 * n + 1), y);
                        }
                    }
                    m.waitStores();
                });
                trees.forAll(0, nodes, n -> {                 // column broadcast of the whole row
                    int row = n / side;
                    int col = n % side;
                    for (int c = 0; c < side; c++) {
                        int body = row * side + c;
                        long x = m.load(pointer(n, base[0] + 2 * body));
                        long y = m.load(pointer(n, base[0] + 2 * body + 1));
                        for (int rr = 0; rr < side; rr++) {
                            int to = rr * side + col;
                            if (to != n) {
                                m.store(pointer(to, base[0] + 2 * body), x);
                                m.store(pointer(to, base[0] + 2 * body + 1), y);
                            }
                        }
                    }
                    m.waitStores();
                });
                // Every node must now hold every body's position as its owner has it.
                for (int n = 0; n < nodes; n++) {
                    for (int b = 0; b < 2 * nodes; b++) {
                        good[0] &= m.peek(pointer(n, base[0] + b)) == m.peek(pointer(b / 2, base[0] + b));
                    }
                }
                // Forces and the move: local work on every node, run by the same fork tree.
                double[][] next = new double[nodes][2];
                for (int n = 0; n < nodes; n++) {
                    double px = Double.longBitsToDouble(m.peek(pointer(n, base[0] + 2 * n)));
                    double py = Double.longBitsToDouble(m.peek(pointer(n, base[0] + 2 * n + 1)));
                    double ax = 0;
                    double ay = 0;
                    for (int b = 0; b < nodes; b++) {
                        if (b != n) {
                            double dx = Double.longBitsToDouble(m.peek(pointer(n, base[0] + 2 * b))) - px;
                            double dy = Double.longBitsToDouble(m.peek(pointer(n, base[0] + 2 * b + 1))) - py;
                            double d2 = dx * dx + dy * dy + 1e-3;
                            double inv = 1.0 / (d2 * Math.sqrt(d2));
                            ax += dx * inv;
                            ay += dy * inv;
                        }
                    }
                    vel[n][0] += 1e-6 * ax;
                    vel[n][1] += 1e-6 * ay;
                    next[n][0] = px + vel[n][0];
                    next[n][1] = py + vel[n][1];
                }
                trees.forAll(0, nodes, n -> {
                    m.compute((long) CYCLES_PER_INTERACTION * nodes);
                    m.store(pointer(n, base[0] + 2 * n), Double.doubleToLongBits(next[n][0]));
                    m.store(pointer(n, base[0] + 2 * n + 1), Double.doubleToLongBits(next[n][1]));
                });
            }
            ok[0] = good[0];
        });
        return new Program(t, ok[0]);
    }
    // ------------------------------------------------------------------ shared tree helpers

    /** Fork trees over a range of nodes (the paper's figure 6 pattern) for broadcast and prefix. */
    private static final class Trees {
        private final TraceMachine m;
        private final int scratch;
        private int depthBase;

        Trees(TraceMachine m, int scratch) {
            this.m = m;
            this.scratch = scratch;
        }

        /** Runs body(node) on every node of [first, first+count) in forked threads; returns when all did. */
        void forAll(int first, int count, IntConsumer body) {
            JoinCapability done = m.newJoin();
            m.fork(first, () -> forAllThread(first, count, body, done));
            m.sync(done);
        }

        private void forAllThread(int first, int count, IntConsumer body, JoinCapability j) {
            if (count == 1) {
                body.accept(first);
                m.join(j, 0);
                return;
            }
            int n = count / 2;
            JoinCapability a = m.newJoin();
            JoinCapability b = m.newJoin();
            m.fork(first, () -> forAllThread(first, n, body, a));
            m.fork(first + n, () -> forAllThread(first + n, count - n, body, b));
            m.sync(a);
            m.sync(b);
            m.join(j, 0);
        }

        /**
         * Up-sweep: sums leaf(node) over the range (returned); then, when {@code apply} is given, a
         * down-sweep calls apply(node, sum of leaf over the nodes before it in the range).
         */
        long prefix(int first, int count, IntToLongFunction leaf, NodeOffset apply) {
            int levelBase = depthBase;
            JoinCapability up = m.newJoin();
            m.fork(first, () -> m.join(up, upThread(first, count, 0, levelBase, leaf)));
            long total = m.sync(up);
            if (apply != null) {
                JoinCapability down = m.newJoin();
                m.fork(first, () -> downThread(first, count, 0, levelBase, 0, total, apply, down));
                m.sync(down);
            }
            return total;
        }

        private long upThread(int first, int count, int depth, int levelBase, IntToLongFunction leaf) {
            if (count == 1) {
                return leaf.applyAsLong(first);
            }
            int n = count / 2;
            JoinCapability a = m.newJoin();
            JoinCapability b = m.newJoin();
            m.fork(first, () -> m.join(a, upThread(first, n, depth + 1, levelBase, leaf)));
            m.fork(first + n, () -> m.join(b, upThread(first + n, count - n, depth + 1, levelBase, leaf)));
            long left = m.sync(a);
            long right = m.sync(b);
            m.store(pointer(first, scratch + levelBase + depth), left);
            m.compute(1);
            return left + right;
        }

        private void downThread(int first, int count, int depth, int levelBase, long offset, long total,
                                NodeOffset apply, JoinCapability j) {
            if (count == 1) {
                apply.apply(first, offset, total);
                m.join(j, 0);
                return;
            }
            int n = count / 2;
            long left = m.load(pointer(first, scratch + levelBase + depth));
            JoinCapability a = m.newJoin();
            JoinCapability b = m.newJoin();
            m.fork(first, () -> downThread(first, n, depth + 1, levelBase, offset, total, apply, a));
            m.fork(first + n, () -> downThread(first + n, count - n, depth + 1, levelBase, offset + left, total, apply,
                    b));
            m.sync(a);
            m.sync(b);
            m.join(j, 0);
        }
    }

    /** apply(node, offset, total) of a prefix down-sweep. */
    @FunctionalInterface
    private interface NodeOffset {
        void apply(int node, long offset, long total);
    }

    private static void requireDivisible(int entries, int nodes, String name) {
        if (nodes < 1 || entries < nodes || entries % nodes != 0) {
            throw new IllegalArgumentException(name + " needs entries to be a positive multiple of nodes, got "
                    + entries + " entries on " + nodes + " nodes");
        }
    }
}
