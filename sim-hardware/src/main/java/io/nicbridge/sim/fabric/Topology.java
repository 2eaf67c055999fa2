package io.nicbridge.sim.fabric;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Wiring and routing function of a fabric. A subclass wires routers in its constructor with
 * {@link #connect}, {@link #attachInjection} and {@link #attachEjection}, and answers {@link #route} for head
 * flits. Routers are numbered {@code [0, routers)}, each with {@code ports} input and {@code ports} output ports;
 * an output port and the input port of the same index need not lead to the same neighbour.
 *
 * <p>The {@link Network} turns the wiring into primitive arrays once; a topology object is immutable after
 * construction and may back several networks.
 */
public abstract class Topology {
    private final String name;
    private final int nodes;
    private final int routers;
    private final int ports;
    /** Per router output port {@code r * ports + p}: the downstream router input {@code r' * ports + p'}, or -1. */
    private final int[] link;
    private final boolean[] inputUsed;
    private int[] injection = new int[16]; // triples node, router, port
    private int injections;
    private int[] ejection = new int[16];
    private int ejections;

    protected Topology(String name, int nodes, int routers, int ports) {
        if (nodes < 1 || routers < 1 || ports < 1 || ports > 64) {
            throw new IllegalArgumentException("topology needs nodes >= 1, routers >= 1, ports in [1, 64]; got nodes="
                + nodes + " routers=" + routers + " ports=" + ports);
        }
        if ((long) routers * ports > Integer.MAX_VALUE / 256) {
            throw new IllegalArgumentException("topology too large: " + routers + " routers x " + ports + " ports");
        }
        this.name = name;
        this.nodes = nodes;
        this.routers = routers;
        this.ports = ports;
        this.link = new int[routers * ports];
        this.inputUsed = new boolean[routers * ports];
        Arrays.fill(link, -1);
    }

    /** Wires output port {@code fromPort} of router {@code from} to input port {@code toPort} of router {@code to}. */
    protected final void connect(int from, int fromPort, int to, int toPort) {
        int out = checkedPort(from, fromPort);
        int in = checkedPort(to, toPort);
        if (link[out] != -1) {
            throw new IllegalStateException(name + ": output port " + fromPort + " of router " + from + " wired twice");
        }
        if (inputUsed[in]) {
            throw new IllegalStateException(name + ": input port " + toPort + " of router " + to + " wired twice");
        }
        link[out] = in;
        inputUsed[in] = true;
    }

    /** Node {@code node}'s NI injects into input port {@code port} of router {@code router}. */
    protected final void attachInjection(int node, int router, int port) {
        int in = checkedPort(router, port);
        if (inputUsed[in]) {
            throw new IllegalStateException(name + ": input port " + port + " of router " + router + " wired twice");
        }
        inputUsed[in] = true;
        if (injections * 3 + 3 > injection.length) {
            injection = Arrays.copyOf(injection, injection.length * 2);
        }
        injection[injections * 3] = checkedNode(node);
        injection[injections * 3 + 1] = router;
        injection[injections * 3 + 2] = port;
        injections++;
    }

    /** Output port {@code port} of router {@code router} ejects to node {@code node}'s NI. */
    protected final void attachEjection(int node, int router, int port) {
        int out = checkedPort(router, port);
        if (link[out] != -1) {
            throw new IllegalStateException(name + ": output port " + port + " of router " + router + " wired twice");
        }
        link[out] = -2; // marks "used by ejection" so a later connect() is caught
        if (ejections * 3 + 3 > ejection.length) {
            ejection = Arrays.copyOf(ejection, ejection.length * 2);
        }
        ejection[ejections * 3] = checkedNode(node);
        ejection[ejections * 3 + 1] = router;
        ejection[ejections * 3 + 2] = port;
        ejections++;
    }

    private int checkedPort(int router, int port) {
        if (router < 0 || router >= routers || port < 0 || port >= ports) {
            throw new IllegalArgumentException(name + ": router " + router + " port " + port + " out of range ("
                + routers + " routers, " + ports + " ports)");
        }
        return router * ports + port;
    }

    private int checkedNode(int node) {
        if (node < 0 || node >= nodes) {
            throw new IllegalArgumentException(name + ": node " + node + " out of range [0, " + nodes + ")");
        }
        return node;
    }

    /**
     * Routing function for a head flit at input port {@code inPort} of {@code router}. Writes candidate output
     * ports in preference order into {@code outPorts} and each candidate's dateline VC half (0, 1,
     * or one of the "either half" codes {@link #EITHER_HALF}, {@link #EITHER_PREFER_1}, {@link #UPWARD_PREFER_0},
     * {@link #UPWARD_PREFER_1}; ignored unless {@link #vcSubclasses()} is 2) into
     * {@code outSubclass}; returns the number of candidates (>= 1, at
     * most {@link #maxCandidates()}). An ejection port is a candidate like any other. {@code random} is the
     * network's generator: draw from it only when the route is random, so runs stay deterministic.
     */
    public abstract int route(int router, int inPort, int src, int dst, SplittableRandom random, int[] outPorts,
                              int[] outSubclass);

    /** Dateline half code: any VC of the class, half 0 tried first (ejection, a torus's wrap link). */
    public static final int EITHER_HALF = 2;
    /** Dateline half code: any VC of the class, half 1 tried first. */
    public static final int EITHER_PREFER_1 = 3;
    /**
     * Dateline half code: half 0 first, then half 1, but only half 1 if the packet's input VC is in half 1 (it
     * continues along a ring where halves may only rise, see {@link KaryNCube}).
     */
    public static final int UPWARD_PREFER_0 = 4;
    /** Dateline half code: half 1 first, then half 0 only if the packet's input VC is in half 0. */
    public static final int UPWARD_PREFER_1 = 5;

    /** 2 when each message class is split into dateline halves (tori), else 1. */
    public int vcSubclasses() {
        return 1;
    }

    /** Most candidates {@link #route} ever returns. */
    public int maxCandidates() {
        return 1;
    }

    /**
     * Whether buffered (lossless) operation is deadlock-free with this routing; adaptive mesh routing without
     * escape channels is not, and is accepted only in drop mode.
     */
    public boolean deadlockFreeWhenBuffered() {
        return true;
    }

    public final String name() {
        return name;
    }

    public final int nodes() {
        return nodes;
    }

    public final int routers() {
        return routers;
    }

    public final int ports() {
        return ports;
    }

    /** Downstream router input {@code r * ports + p} of output port {@code r * ports + p}; -1 none, -2 ejection. */
    final int linkOf(int routerOutPort) {
        return link[routerOutPort];
    }

    final int injections() {
        return injections;
    }

    /** Field 0 = node, 1 = router, 2 = port of injection attachment {@code i}. */
    final int injection(int i, int field) {
        return injection[i * 3 + field];
    }

    final int ejections() {
        return ejections;
    }

    final int ejection(int i, int field) {
        return ejection[i * 3 + field];
    }

    @Override
    public String toString() {
        return name;
    }
}
