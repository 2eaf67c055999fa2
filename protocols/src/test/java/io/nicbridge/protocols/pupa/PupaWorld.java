package io.nicbridge.protocols.pupa;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * Pupa cores on an in-memory medium in virtual time; the application checks every message's bytes (a pattern of
 * source, destination, number) and per-peer order, and consumes only while {@link #consume} is set.
 */
final class PupaWorld {
    final VirtualTimeBase time;
    final NodeRunner runner;
    final int nodes;
    final List<String> errors = new ArrayList<>();
    final int[][] next;
    final int[][] sent;
    long delivered;
    boolean consume = true;

    PupaWorld(int nodes, int mtu, PupaConfig config, FrameFaults faults) {
        this(new VirtualTimeBase(1), nodes, mtu, config, faults);
    }

    private PupaWorld(VirtualTimeBase time, int nodes, int mtu, PupaConfig config, FrameFaults faults) {
        this(time, HostCpu.forNodes(nodes, CostTable.zero(), time), mtu, config, faults);
    }

    private PupaWorld(VirtualTimeBase time, HostCpu[] cpus, int mtu, PupaConfig config, FrameFaults faults) {
        this(time, memoryLinks(time, cpus, mtu, faults), cpus, config);
    }

    /** On the in-memory medium, node i's link seen through {@code wrap.apply(i, link)} (a test's observer). */
    static PupaWorld wrapped(int nodes, int mtu, PupaConfig config, BiFunction<Integer, Link, Link> wrap) {
        VirtualTimeBase time = new VirtualTimeBase(1);
        HostCpu[] cpus = HostCpu.forNodes(nodes, CostTable.zero(), time);
        Link[] links = memoryLinks(time, cpus, mtu, FrameFaults.NONE);
        for (int i = 0; i < nodes; i++) {
            links[i] = wrap.apply(i, links[i]);
        }
        return new PupaWorld(time, links, cpus, config);
    }

    private static Link[] memoryLinks(VirtualTimeBase time, HostCpu[] cpus, int mtu, FrameFaults faults) {
        int nodes = cpus.length;
        InMemoryMedium medium = new InMemoryMedium(time, new InMemoryMedium.Config(nodes, mtu, 8, 16, 2_000, 80),
                faults, cpus);
        Link[] links = new Link[nodes];
        for (int i = 0; i < nodes; i++) {
            links[i] = medium.link(i);
        }
        return links;
    }

    /** Over any links in {@code time} (an emulated card's testbed), each node's CPU priced by the zero table. */
    PupaWorld(VirtualTimeBase time, Link[] links, PupaConfig config) {
        this(time, links, HostCpu.forNodes(links.length, CostTable.zero(), time), config);
    }

    private PupaWorld(VirtualTimeBase time, Link[] links, HostCpu[] cpus, PupaConfig config) {
        this.time = time;
        this.nodes = links.length;
        next = new int[nodes][nodes];
        sent = new int[nodes][nodes];
        NodeApplication app = node -> {
            if (consume) {
                int me = node.id();
                core(me).deliver((peer, data, off, len) -> check(peer, me, data, off, len), Integer.MAX_VALUE);
            }
        };
        runner = new NodeRunner(time, links, cpus, (link, clock, cpu) -> new PupaCore(link, clock, config, cpu), app,
                NodeSlowness.NONE);
    }

    PupaCore core(int node) {
        return (PupaCore) runner.node(node).core();
    }

    static byte pattern(int src, int dst, int n, int i) {
        return (byte) (src * 31 + dst * 17 + n * 7 + i);
    }

    /** Offers message number sent[from][to] of {@code length} bytes; true when accepted. */
    boolean send(int from, int to, int length, boolean fastPath) {
        int n = sent[from][to];
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = pattern(from, to, n, i);
        }
        if (length >= 4) {
            MemorySegment.ofArray(b).set(ValueLayout.JAVA_INT_UNALIGNED, 0, n);
        }
        int r = core(from).send(to, MemorySegment.ofArray(b), 0, length, n, fastPath);
        runner.node(from).applicationActed();
        if (r == MessageChannel.OK) {
            sent[from][to]++;
            return true;
        }
        return false;
    }

    /** Sends, stepping virtual time while the core pushes back, until accepted. */
    void sendBlocking(int from, int to, int length, boolean fastPath) {
        for (int spins = 0; !send(from, to, length, fastPath); spins++) {
            if (!time.step() || spins > 1_000_000) {
                throw new AssertionError("send " + from + "->" + to + " stuck: " + describe());
            }
        }
    }

    private void check(int peer, int me, MemorySegment data, long off, int len) {
        int n = core(me).lastTag();
        if (n != next[peer][me]) {
            errors.add("order: " + peer + "->" + me + " got #" + n + ", due #" + next[peer][me]);
        }
        for (int i = 4; i < len; i++) {
            if (data.get(ValueLayout.JAVA_BYTE, off + i) != pattern(peer, me, n, i)) {
                errors.add("bytes: " + peer + "->" + me + " #" + n + " differs at " + i);
                break;
            }
        }
        if (len >= 4 && data.get(ValueLayout.JAVA_INT_UNALIGNED, off) != n) {
            errors.add("number: " + peer + "->" + me + " #" + n);
        }
        next[peer][me] = n + 1;
        delivered++;
    }

    String describe() {
        StringBuilder sb = new StringBuilder("at ").append(time.nanoTime()).append(" ns");
        for (int i = 0; i < nodes; i++) {
            sb.append("\n  ").append(core(i));
            for (int p = 0; p < nodes; p++) {
                if (p != i) {
                    sb.append("\n    to ").append(p).append(": credit ").append(core(i).credit(p))
                            .append(", ack-required ").append(core(i).ackRequired(p)).append(", send FIFO free ")
                            .append(core(i).sendFifoFree(p)).append(", receive FIFO free ")
                            .append(core(i).receiveFifoFree(p));
                }
            }
        }
        return sb.toString();
    }

    long offered() {
        long s = 0;
        for (int[] row : sent) {
            for (int v : row) {
                s += v;
            }
        }
        return s;
    }

    /** Runs until everything offered is delivered and every core has drained (no FIFO, pool or link buffer held). */
    void drain(long maxNanos) {
        long end = time.nanoTime() + maxNanos;
        time.runUntil(() -> delivered == offered() && quiet(), end);
    }

    boolean quiet() {
        for (int i = 0; i < nodes; i++) {
            if (core(i).leaks() != null) {
                return false;
            }
        }
        return true;
    }

    String leaks() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < nodes; i++) {
            String l = core(i).leaks();
            if (l != null) {
                sb.append("node ").append(i).append(": ").append(l);
            }
        }
        return sb.isEmpty() ? null : sb.toString();
    }
}
