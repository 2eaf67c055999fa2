package io.nicbridge.sim.fabric;

import io.nicbridge.sim.fault.FaultPlan;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cycle-driven, flit-level simulator of one fabric: input-queued virtual-channel routers with credit flow
 * control, a network-interface port per node, and a single simulation thread calling {@link #step()}.
 *
 * <h2>Router and pipeline model</h2>
 * Every router input port has {@code V = 2 * vcsPerClass} VCs of {@code bufferDepth} flits. A flit that arrives
 * in an input buffer at cycle t is eligible for switch traversal at {@code t + routerDelay} (the RC/VA/SA stages
 * collapsed into one configurable delay). Each cycle each router with flits does, with the default
 * {@link Allocator#SEPARABLE_INPUT_FIRST}:
 * <ol>
 *   <li>route computation (RC) for an eligible head at the front of an idle VC ({@link Topology#route});</li>
 *   <li>VC allocation ({@link SeparableVcAllocator}): each routed head asks for the first free output VC of its
 *       packet's class among its route's candidates, in the route's order of preference (on tori, in the dateline
 *       halves the route allows: see {@link KaryNCube}; cut-through and store-and-forward also need credits for
 *       the whole packet, store-and-forward also needs the tail to be present); each output VC grants one of its
 *       requesters by round robin;</li>
 *   <li>switch allocation ({@link SeparableSwitchAllocator}): each input port puts forward one VC that holds an
 *       output VC, has an eligible flit, a credit and a free output port (one flit per output port per
 *       {@code cyclesPerFlit} cycles), by round robin over its VCs; each output port grants one input port by
 *       round robin. Pointers move past used grants only (iSLIP), which makes both stages starvation-free;</li>
 *   <li>switch traversal of the winners: the flit arrives downstream {@code linkLatency} cycles later and a credit
 *       returns upstream {@code linkLatency} cycles later. The tail frees the output VC (reusable next cycle).</li>
 * </ol>
 * A head may win VA and SA in the same cycle. Zero-load latency is
 * {@code hops * (routerDelay + linkLatency) + linkLatency + (flits - 1) * cyclesPerFlit} (NI injection link
 * included; ejection consumes one flit per cycle per ejection link).
 *
 * <p>{@link Allocator#ROTATING_PRIORITY} keeps the original policy for comparison: inputs visited in an order
 * that rotates by one port every cycle whatever was granted, the first VC of an input that can take a free output
 * VC and a free output port moves at once. That priority phase-locks with periodic traffic: on an 8-node ring
 * (torus k=8, n=1, 2 VCs per class, 3-flit buffers, 4-flit packets) under tornado at full load, destinations 0-4
 * receive nothing while 5-7 get 1/2, 1/6 and 1/3 flit/cycle ({@code AllocatorFairnessTest}).
 *
 * <h2>Invariants</h2>
 * With {@code -ea} (the tests) the stages assert what BookSim's router checks: no flit arrives without a credit
 * (buffer overflow), flits of a VC arrive in wormhole order, credits never exceed the buffer depth, output VCs
 * are granted only when free and only to routed heads, flits cross the switch only from an active VC with a
 * credit, and after every cycle injected = ejected + dropped + buffered + on links.
 *
 * <h2>Data layout</h2>
 * Struct-of-arrays, no per-flit objects. Global input index {@code gi}: router inputs {@code r * P + p}, then
 * ejection sinks; global output index {@code go}: router outputs {@code r * P + p}, then NI injection links.
 * VC index = {@code g * V + v}. Flits and credits in flight sit in an {@link EventWheel}; endpoint wake-ups in a
 * {@link WakeHeap}; packets in a {@link PacketPool} of recycled handles. Only routers holding flits (an active
 * list in deterministic insertion order) and nodes with work are visited each cycle, and within a router only its
 * occupied input ports and VCs: one bit per VC of a port and one per port of a router, kept as flits arrive and
 * leave, so the separable scan walks set bits in the arbiters' order instead of testing every VC. Nothing is allocated per
 * cycle once the pool, wheel buckets and heap have grown to the load's peak.
 *
 * <h2>Determinism</h2>
 * All randomness (random up-ports, multibutterfly copies, NI link choice) comes from one
 * {@link SplittableRandom} seeded at construction; all iteration orders are fixed.
 *
 * <p>Not thread-safe: one simulation thread.
 */
public final class Network {
    private static final Logger LOG = LoggerFactory.getLogger(Network.class);
    /** {@link NodePort#inject} class of request packets. */
    public static final int REQUEST = 0;
    /** {@link NodePort#inject} class of reply packets. */
    public static final int REPLY = 1;
    /** "No wake-up pending". */
    public static final long NEVER = Long.MAX_VALUE;

    private static final int IDLE = 0;
    private static final int ROUTED = 1;
    private static final int ACTIVE = 2;

    private final Topology topology;
    private final FabricConfig config;
    private final SplittableRandom random;
    private final int nodes;
    private final int routers;
    private final int ports;
    private final int vcs;
    /** The low {@code vcs} bits: one per VC of a port. */
    private final long vcWordMask;
    private final int vcsPerClass;
    private final int depth;
    private final int routerDelay;
    private final int linkLatency;
    private final int cyclesPerFlit;
    private final boolean dropMode;
    private final int dropTimeout;
    private final boolean cutThrough;
    private final boolean timeMux;
    private final boolean storeAndForward;
    /**
     * Neither drop-when-blocked (a waiting head's timeout) nor store-and-forward (its tail's arrival): a routed head
     * retries VC allocation from VC and output state alone.
     */
    private final boolean retryVaFromState;
    private final int subclasses;
    private final int routerPorts; // routers << portShift: first sink / first injection link index
    // index strides are padded to powers of two so the hot path shifts and masks instead of dividing
    private final int portShift;
    private final int vcShift;
    private final int vcMask;
    private final int portMask;

    // wiring
    private final int[] outTarget;   // per go: gi downstream
    private final int[] inSource;    // per gi: go upstream
    private final int[] sinkNode;    // per sink
    private final int[] linkNode;    // per injection link
    private final int[] nodeSinkFirst;
    private final int[] nodeSinkCount;
    private final int[] nodeLinkFirst;
    private final int[] nodeLinkCount;

    // input VC buffers, per gi*V+v (and per slot)
    /**
     * Buffer slots, two longs each: {@code [2 * slot]} the cycle the flit arrived, {@code [2 * slot + 1]} its packet
     * handle (high 32 bits) and sequence number (low 32 bits), so reading a front flit touches one cache line.
     */
    private final long[] buf;
    private final int[] vcHead;
    private final int[] vcCount;
    private final byte[] vcState;
    private final int[] vcOutVc;     // go*V+v granted
    private final int[] vcFlitsLeft; // flits of the front packet still to cross: its length once routed, 0 after the tail
    private final int[] vcCandPort;  // candidates (go) per input VC
    private final int[] vcCandSub;
    private final byte[] vcCandN;
    private final int maxCand;
    /**
     * Per gi: bit v set while VC v holds a flit ({@code vcCount > 0}), so a port scan visits occupied VCs only and
     * an empty port is one zero word ({@link FabricConfig} allows at most 64 VCs per port).
     */
    private final long[] vcOccupied;
    private final int[] rrVc;        // per gi

    // output VCs, per go*V+v
    private final int[] credits;
    private final boolean[] ovcBusy;
    /**
     * Per go * 2 + slot: first cycle the port may send again. Demand-multiplexed classes share slot 0; with time
     * multiplexing each class has its own slot and only every other cycle, so a flit takes 2 * cyclesPerFlit.
     */
    private final long[] outFreeAt;
    private final int serialization;

    // routers
    /** Per router: bit p set while input port p holds a flit (a router stays on the active list while non-zero). */
    private final long[] portsOccupied;
    private final int[] rrIn;
    private final boolean[] routerListed;
    private int[] activeRouters;
    private int activeRouterCount;

    // nodes
    private final NodePort[] nodePorts;
    private final Endpoint[] endpoints;
    private final int[] nodeSinkFlits;
    private final boolean[] receiving; // per node*2+cls
    private final boolean[] ejectListed;
    private final int[] ejectList;
    private int ejectCount;
    private final boolean[] injectListed;
    private final int[] injectList;
    private int injectCount;
    private final int queueCap;
    private final int[] niQueue;     // (node*2+cls)*queueCap + i
    private final int[] niQHead;
    private final int[] niQCount;
    private final int[] niCur;       // per node*2+cls, -1 none
    private final int[] niCurSeq;
    private final int[] niCurOvc;
    private final byte[] niRr;
    private final long[] nodeWake;
    private final long[] processorFreeAt;
    private final long[] nodeFlitsInjected;
    private final long[] nodeFlitsEjected;
    private final WakeHeap wakes;

    private final PacketPool pool;

    private final EventWheel wheel;

    private final Allocator allocator;
    private final SeparableVcAllocator vcAllocator;
    private final SeparableSwitchAllocator switchAllocator;
    private final int[] candPorts;
    private final int[] candSubs;
    private final PacketRecord record;
    private FabricListener listener;
    private InterfaceFaults interfaceFaults; // null until an NI gets a fault plan: the tail path stays one test
    private boolean copyFollows;

    private long cycle;
    private long flitsInjected;
    private long flitsEjected;
    private long flitsDropped;
    /** Flits in input VC buffers (router inputs and ejection sinks), for the conservation assertion. */
    private long flitsBuffered;
    private long flitHops;
    private long packetsInjected;
    private long packetsDelivered;
    private long packetsDropped;
    private final long[] dropsByReason = new long[DropReason.values().length];

    public Network(Topology topology, FabricConfig config, long seed) {
        if (topology == null || config == null) {
            throw new IllegalArgumentException("topology and config must not be null");
        }
        this.topology = topology;
        this.config = config;
        this.random = new SplittableRandom(seed);
        this.nodes = topology.nodes();
        if (nodes >= WakeHeap.MAX_NODES) {
            throw new IllegalArgumentException(topology.name() + ": " + nodes + " nodes, at most "
                + (WakeHeap.MAX_NODES - 1) + " supported");
        }
        this.routers = topology.routers();
        this.ports = topology.ports();
        this.vcsPerClass = config.vcsPerClass();
        this.vcs = config.vcsPerPort();
        this.vcWordMask = vcs == Long.SIZE ? -1L : (1L << vcs) - 1;
        this.depth = config.bufferDepth();
        this.routerDelay = config.routerDelay();
        this.linkLatency = config.linkLatency();
        this.cyclesPerFlit = config.cyclesPerFlit();
        this.dropMode = config.discipline() == Discipline.DROP_WHEN_BLOCKED;
        this.dropTimeout = config.dropTimeoutCycles();
        this.storeAndForward = config.switching() == Switching.STORE_AND_FORWARD;
        this.cutThrough = config.switching() != Switching.WORMHOLE;
        this.retryVaFromState = !dropMode && !storeAndForward;
        this.subclasses = topology.vcSubclasses();
        this.timeMux = config.timeMultiplexedClasses();
        if (subclasses == 2 && (vcsPerClass < 2 || vcsPerClass % 2 != 0)) {
            throw new IllegalArgumentException(topology.name() + " uses dateline VCs: vcsPerClass must be even and"
                + " >= 2, got " + vcsPerClass);
        }
        if (!dropMode && !topology.deadlockFreeWhenBuffered()) {
            throw new IllegalArgumentException(topology.name() + " is not deadlock-free when buffered;"
                + " use Discipline.DROP_WHEN_BLOCKED or dimension-order routing");
        }
        this.portShift = 32 - Integer.numberOfLeadingZeros(Math.max(1, ports - 1));
        this.vcShift = 32 - Integer.numberOfLeadingZeros(Math.max(1, vcs - 1));
        this.vcMask = (1 << vcShift) - 1;
        this.portMask = (1 << portShift) - 1;
        if ((long) routers << portShift > Integer.MAX_VALUE / 1024) {
            throw new IllegalArgumentException("fabric too large: " + routers + " routers");
        }
        this.routerPorts = routers << portShift;

        // ---- wiring: sinks grouped by node, injection links grouped by node
        int sinks = topology.ejections();
        int links = topology.injections();
        nodeSinkCount = new int[nodes];
        nodeLinkCount = new int[nodes];
        for (int i = 0; i < sinks; i++) {
            nodeSinkCount[topology.ejection(i, 0)]++;
        }
        for (int i = 0; i < links; i++) {
            nodeLinkCount[topology.injection(i, 0)]++;
        }
        nodeSinkFirst = new int[nodes];
        nodeLinkFirst = new int[nodes];
        for (int n = 1; n < nodes; n++) {
            nodeSinkFirst[n] = nodeSinkFirst[n - 1] + nodeSinkCount[n - 1];
            nodeLinkFirst[n] = nodeLinkFirst[n - 1] + nodeLinkCount[n - 1];
        }
        for (int n = 0; n < nodes; n++) {
            if (nodeSinkCount[n] == 0 || nodeLinkCount[n] == 0) {
                throw new IllegalArgumentException(topology.name() + ": node " + n
                    + " has no injection or no ejection link");
            }
        }
        int inputs = routerPorts + sinks;
        int outputs = routerPorts + links;
        outTarget = new int[outputs];
        inSource = new int[inputs];
        Arrays.fill(outTarget, -1);
        Arrays.fill(inSource, -1);
        for (int r = 0; r < routers; r++) {
            for (int p = 0; p < ports; p++) {
                int t = topology.linkOf(r * ports + p);
                if (t >= 0) {
                    int go = (r << portShift) + p;
                    int gi = ((t / ports) << portShift) + t % ports;
                    outTarget[go] = gi;
                    inSource[gi] = go;
                }
            }
        }
        sinkNode = new int[sinks];
        linkNode = new int[links];
        int[] fill = new int[nodes];
        for (int i = 0; i < sinks; i++) {
            int n = topology.ejection(i, 0);
            int sink = nodeSinkFirst[n] + fill[n]++;
            sinkNode[sink] = n;
            int go = (topology.ejection(i, 1) << portShift) + topology.ejection(i, 2);
            outTarget[go] = routerPorts + sink;
            inSource[routerPorts + sink] = go;
        }
        Arrays.fill(fill, 0);
        for (int i = 0; i < links; i++) {
            int n = topology.injection(i, 0);
            int link = nodeLinkFirst[n] + fill[n]++;
            linkNode[link] = n;
            int gi = (topology.injection(i, 1) << portShift) + topology.injection(i, 2);
            outTarget[routerPorts + link] = gi;
            inSource[gi] = routerPorts + link;
        }

        // ---- buffers and VC state
        long slots = ((long) inputs << vcShift) * depth;
        if (slots > (Integer.MAX_VALUE - 16) / 2) {
            throw new IllegalArgumentException("fabric too large: " + slots + " buffer slots");
        }
        buf = new long[(int) slots * 2];
        vcHead = new int[(inputs << vcShift)];
        vcCount = new int[(inputs << vcShift)];
        vcState = new byte[(inputs << vcShift)];
        vcOutVc = new int[(inputs << vcShift)];
        vcFlitsLeft = new int[(inputs << vcShift)];
        maxCand = Math.max(1, topology.maxCandidates());
        vcCandPort = new int[(inputs << vcShift) * maxCand];
        vcCandSub = new int[(inputs << vcShift) * maxCand];
        vcCandN = new byte[(inputs << vcShift)];
        vcOccupied = new long[inputs];
        rrVc = new int[inputs];
        credits = new int[outputs << vcShift];
        ovcBusy = new boolean[outputs << vcShift];
        outFreeAt = new long[outputs * 2];
        serialization = timeMux ? 2 * cyclesPerFlit : cyclesPerFlit;
        for (int go = 0; go < outputs; go++) {
            if (outTarget[go] >= 0) {
                Arrays.fill(credits, go << vcShift, (go << vcShift) + vcs, depth);
            }
        }
        portsOccupied = new long[routers];
        rrIn = new int[routers];
        routerListed = new boolean[routers];
        activeRouters = new int[routers];

        // ---- nodes
        nodePorts = new NodePort[nodes];
        endpoints = new Endpoint[nodes];
        nodeSinkFlits = new int[nodes];
        receiving = new boolean[nodes * 2];
        Arrays.fill(receiving, true);
        ejectListed = new boolean[nodes];
        ejectList = new int[nodes];
        injectListed = new boolean[nodes];
        injectList = new int[nodes];
        queueCap = config.injectQueuePackets();
        if ((long) nodes * 2 * queueCap > Integer.MAX_VALUE / 2) {
            throw new IllegalArgumentException("injectQueuePackets too large for " + nodes + " nodes");
        }
        niQueue = new int[nodes * 2 * queueCap];
        niQHead = new int[nodes * 2];
        niQCount = new int[nodes * 2];
        niCur = new int[nodes * 2];
        Arrays.fill(niCur, -1);
        niCurSeq = new int[nodes * 2];
        niCurOvc = new int[nodes * 2];
        niRr = new byte[nodes];
        nodeWake = new long[nodes];
        Arrays.fill(nodeWake, NEVER);
        processorFreeAt = new long[nodes];
        nodeFlitsInjected = new long[nodes];
        nodeFlitsEjected = new long[nodes];
        wakes = new WakeHeap(nodes * 2);
        for (int n = 0; n < nodes; n++) {
            nodePorts[n] = new NodePort(this, n);
        }

        // ---- packet pool (grows by doubling only when more packets are alive than ever before)
        pool = new PacketPool(Math.max(1024, nodes * 8));

        // ---- timing wheel: events are at most linkLatency cycles ahead
        wheel = new EventWheel(linkLatency);

        allocator = config.allocator();
        if (allocator == Allocator.SEPARABLE_INPUT_FIRST) {
            vcAllocator = new SeparableVcAllocator(routerPorts << vcShift, ports << vcShift);
            switchAllocator = new SeparableSwitchAllocator(routerPorts, routerPorts, ports, vcs);
        } else {
            vcAllocator = null;
            switchAllocator = null;
        }
        candPorts = new int[maxCand];
        candSubs = new int[maxCand];
        record = new PacketRecord(this);
        LOG.debug("fabric built: {}, {} nodes, {} routers x {} ports, {} VCs/port x {} flits, {} {}, seed {}",
            topology.name(), nodes, routers, ports, vcs, depth, config.switching(), config.discipline(), seed);
    }

    // ------------------------------------------------------------------------------------------------ public API

    public Topology topology() {
        return topology;
    }

    public FabricConfig config() {
        return config;
    }

    public int nodes() {
        return nodes;
    }

    /** The next cycle {@link #step()} will simulate (cycles simulated so far). */
    public long cycle() {
        return cycle;
    }

    /** Node {@code node}'s network-interface port. */
    public NodePort port(int node) {
        checkNode(node);
        return nodePorts[node];
    }

    /** Puts {@code endpoint} behind node {@code node}'s port (replacing any previous) and calls its attached(). */
    public void attach(int node, Endpoint endpoint) {
        checkNode(node);
        if (endpoint == null) {
            throw new IllegalArgumentException("endpoint must not be null");
        }
        endpoints[node] = endpoint;
        endpoint.attached(nodePorts[node]);
    }

    /** Sets the fabric-wide observer (null for none). */
    public void listener(FabricListener listener) {
        this.listener = listener;
    }

    /** Simulates {@code cycles} cycles. */
    public void run(long cycles) {
        if (cycles < 0) {
            throw new IllegalArgumentException("cycles must be >= 0, got " + cycles);
        }
        for (long i = 0; i < cycles; i++) {
            step();
        }
    }

    /**
     * Simulates until no flit is in the fabric or NI queues, or {@code maxCycles} have passed; returns true if
     * the fabric drained. Endpoint wake-ups keep happening meanwhile.
     */
    public boolean drain(long maxCycles) {
        for (long i = 0; i < maxCycles; i++) {
            if (idle()) {
                return true;
            }
            step();
        }
        return idle();
    }

    /**
     * True when no packet is queued in an NI, being injected, buffered, or on a link, and every credit is back
     * home. (A flit's credit leaves when the flit leaves its buffer and needs {@code linkLatency} cycles to arrive,
     * so "no flit anywhere" alone would call a fabric idle while output VCs still miss credits.)
     */
    public boolean idle() {
        return activeRouterCount == 0 && ejectCount == 0 && injectCount == 0 && wheel.flitsPending() == 0
            && wheel.creditsPending() == 0 && (interfaceFaults == null || interfaceFaults.delayed() == 0);
    }

    /**
     * Arms a fault plan at node {@code node}'s network interface, on its receive side ({@link InterfaceFaults}
     * says how each kind lands; a DELAY's parameter counts cycles). {@link FaultPlan#NONE} disarms it.
     */
    public void interfaceFaults(int node, FaultPlan plan) {
        checkNode(node);
        if (interfaceFaults == null) {
            interfaceFaults = new InterfaceFaults(this, nodes);
        }
        interfaceFaults.plan(node, plan);
    }

    /** @return the NIs' fault injection (counts, held packets), or null when no NI was given a plan */
    public InterfaceFaults interfaceFaults() {
        return interfaceFaults;
    }


    /** Simulates one cycle: link arrivals, endpoint wake-ups, NI injection, routers, NI ejection. */
    public void step() {
        long now = cycle;
        EventWheel w = wheel;
        int b = (int) (now & w.mask);
        int[] cr = w.credit[b];
        for (int i = 0, n = w.creditN[b]; i < n; i++) {
            int o = cr[i];
            credits[o]++;
            assert credits[o] <= depth : broken("output VC", o, "got a credit it never spent");
        }
        w.clearCredits(b);
        int[] f = w.flit[b];
        for (int i = 0, end = w.flitN[b] * EventWheel.FLIT_INTS; i < end; i += EventWheel.FLIT_INTS) {
            arrive(f[i + EventWheel.FLIT_VC], f[i + EventWheel.FLIT_PKT], f[i + EventWheel.FLIT_SEQ], now);
        }
        w.clearFlits(b);

        while (wakes.dueBy(now)) {
            long top = wakes.pop();
            int node = WakeHeap.node(top);
            long at = WakeHeap.cycle(top);
            if (nodeWake[node] == at) {
                nodeWake[node] = NEVER;
                Endpoint ep = endpoints[node];
                if (ep != null) {
                    ep.wake(nodePorts[node], now);
                }
            }
        }

        if (injectCount > 0) {
            injectPhase(now);
        }
        if (activeRouterCount > 0) {
            routerPhase(now);
        }
        if (ejectCount > 0) {
            ejectPhase(now);
        }
        if (interfaceFaults != null && interfaceFaults.delayed() > 0) {
            interfaceFaults.releaseDue(now);
        }
        assert flitsConserved() : broken("cycle", now, conservation());
        cycle = now + 1;
    }

    // ---------------------------------------------------------------------------------------------- counters

    public long flitsInjected() {
        return flitsInjected;
    }

    public long flitsEjected() {
        return flitsEjected;
    }

    public long flitsDropped() {
        return flitsDropped;
    }

    /** Flit-hops: flits moved through a router switch. */
    public long flitHops() {
        return flitHops;
    }

    public long packetsInjected() {
        return packetsInjected;
    }

    /** @return packets handed to endpoints (an NI duplicate counts twice) */
    public long packetsDelivered() {
        return packetsDelivered;
    }

    public long packetsDropped() {
        return packetsDropped;
    }

    /** @return packets discarded for {@code reason}: in the network ({@link #packetsDropped()}) or at an NI */
    public long drops(DropReason reason) {
        return dropsByReason[reason.ordinal()];
    }

    public long flitsInjectedAt(int node) {
        checkNode(node);
        return nodeFlitsInjected[node];
    }

    public long flitsEjectedAt(int node) {
        checkNode(node);
        return nodeFlitsEjected[node];
    }

    /**
     * Flits that left an NI and are neither ejected nor dropped, counted by scanning buffers and links (not by
     * subtracting counters), so {@code injected == ejected + dropped + inFlight} is a real check.
     */
    public long flitsInNetwork() {
        long n = wheel.flitsPending();
        for (int i = 0; i < vcCount.length; i++) {
            n += vcCount[i];
        }
        return n;
    }

    /**
     * Describes the first resource still held in a fabric that should be empty, or returns null when every VC is
     * idle, no output VC is allocated, every credit is home and no packet handle is alive. For tests after
     * {@link #drain}: a leaked allocation would block a channel forever.
     */
    String leakedResource() {
        for (int i = 0; i < vcState.length; i++) {
            if (vcState[i] != IDLE || vcCount[i] != 0) {
                return "input VC " + i + " state " + vcState[i] + " holding " + vcCount[i] + " flits";
            }
        }
        for (int go = 0; go < outTarget.length; go++) {
            if (outTarget[go] < 0) {
                continue;
            }
            for (int v = 0; v < vcs; v++) {
                int o = (go << vcShift) + v;
                if (ovcBusy[o] || credits[o] != depth) {
                    return "output VC " + o + " busy=" + ovcBusy[o] + " credits " + credits[o] + "/" + depth;
                }
            }
        }
        if (pool.live() != 0) {
            return pool.live() + " packet handles still alive";
        }
        return null;
    }

    /** Packets waiting in NI send queues or partly injected. */
    public int packetsQueued() {
        int n = 0;
        for (int i = 0; i < niQCount.length; i++) {
            n += niQCount[i] + (niCur[i] >= 0 ? 1 : 0);
        }
        return n;
    }

    // ------------------------------------------------------------------------------------------- NI (NodePort)

    boolean inject(int node, int dst, int payloadFlits, int cls, long created, long payloadId, long ready) {
        if (dst < 0 || dst >= nodes) {
            throw new IllegalArgumentException("destination " + dst + " out of range [0, " + nodes + ")");
        }
        if (cls != REQUEST && cls != REPLY) {
            throw new IllegalArgumentException("class must be Network.REQUEST (0) or Network.REPLY (1), got " + cls);
        }
        if (payloadFlits < 1) {
            throw new IllegalArgumentException("packet needs at least one flit, got " + payloadFlits);
        }
        int len = config.networkFlits(payloadFlits);
        if (cutThrough && len > depth) {
            throw new IllegalArgumentException(config.switching() + " needs the whole packet (" + len
                + " flits) to fit a VC buffer of " + depth + " flits");
        }
        int q = node * 2 + cls;
        if (niQCount[q] == queueCap) {
            return false;
        }
        int h = pool.take();
        pool.src[h] = node;
        pool.dst[h] = dst;
        pool.len[h] = len;
        pool.cls[h] = cls;
        pool.hops[h] = 0;
        pool.created[h] = created;
        pool.ready[h] = ready;
        pool.injected[h] = -1;
        pool.payload[h] = payloadId;
        pool.state[h] = PacketPool.LIVE;
        pool.left[h] = len;
        int tail = niQHead[q] + niQCount[q];
        if (tail >= queueCap) {
            tail -= queueCap;
        }
        niQueue[q * queueCap + tail] = h;
        niQCount[q]++;
        if (!injectListed[node]) {
            injectListed[node] = true;
            injectList[injectCount++] = node;
        }
        return true;
    }

    int queueFree(int node, int cls) {
        return queueCap - niQCount[node * 2 + cls];
    }

    void wakeAt(int node, long at) {
        if (at < cycle) {
            at = cycle;
        }
        if (at >= nodeWake[node]) {
            return;
        }
        nodeWake[node] = at;
        wakes.push(WakeHeap.key(at, node));
    }

    long wakePending(int node) {
        return nodeWake[node];
    }

    void receiving(int node, int cls, boolean on) {
        receiving[node * 2 + cls] = on;
    }

    boolean receiving(int node, int cls) {
        return receiving[node * 2 + cls];
    }

    long processorFreeAt(int node) {
        return Math.max(processorFreeAt[node], cycle);
    }

    long chargeProcessor(int node, long cycles) {
        if (cycles < 0) {
            throw new IllegalArgumentException("cycles must be >= 0, got " + cycles);
        }
        long at = Math.max(processorFreeAt[node], cycle) + cycles;
        processorFreeAt[node] = at;
        return at;
    }

    // -------------------------------------------------------------------------------------------- cycle phases

    private void arrive(int ivc, int pkt, int seq, long now) {
        int count = vcCount[ivc];
        int slot = CyclicIndex.reduce(vcHead[ivc] + count, depth);
        assert arrivalChecked(ivc, count, slot, pkt, seq);
        slot += ivc * depth;
        flitsBuffered++;
        buf[slot << 1] = now;
        buf[(slot << 1) + 1] = ((long) pkt << 32) | (seq & 0xFFFF_FFFFL);
        vcCount[ivc] = count + 1;
        int gi = ivc >> vcShift;
        vcOccupied[gi] |= 1L << (ivc & vcMask);
        if (gi < routerPorts) {
            int r = gi >> portShift;
            portsOccupied[r] |= 1L << (gi & portMask);
            if (!routerListed[r]) {
                routerListed[r] = true;
                activeRouters[activeRouterCount++] = r;
            }
        } else {
            int node = sinkNode[gi - routerPorts];
            nodeSinkFlits[node]++;
            if (!ejectListed[node]) {
                ejectListed[node] = true;
                ejectList[ejectCount++] = node;
            }
        }
    }

    /** The cycle the flit in buffer slot {@code slot} arrived. */
    private long bufTime(int slot) {
        return buf[slot << 1];
    }

    /** The packet handle of the flit in buffer slot {@code slot}. */
    private int bufPkt(int slot) {
        return (int) (buf[(slot << 1) + 1] >>> 32);
    }

    /** The sequence number of the flit in buffer slot {@code slot} within its packet. */
    private int bufSeq(int slot) {
        return (int) buf[(slot << 1) + 1];
    }

    // ---- invariant messages: built only when an assertion fails, outside the hot methods (their bytecode size
    // decides what the JIT inlines)

    private static String broken(String what, long index, String how) {
        return what + " " + index + " " + how;
    }

    private boolean flitsConserved() {
        return flitsInjected == flitsEjected + flitsDropped + flitsBuffered + wheel.flitsPending();
    }

    private String conservation() {
        return "flits not conserved: injected " + flitsInjected + " != ejected " + flitsEjected + " + dropped "
            + flitsDropped + " + buffered " + flitsBuffered + " + on links " + wheel.flitsPending();
    }

    /**
     * The checks of a flit arriving in input VC {@code ivc} that holds {@code count} flits (new slot {@code slot}
     * without the VC's base): true, or an AssertionError naming the broken invariant. One call, so the hot method
     * keeps the bytecode size under which the JIT inlines it.
     */
    private boolean arrivalChecked(int ivc, int count, int slot, int pkt, int seq) {
        if (count >= depth) {
            throw new AssertionError(broken("input VC", ivc, "overflows: a flit arrived without a credit"));
        }
        if (count > 0 && !arrivesInOrder(ivc, slot, pkt, seq)) {
            throw new AssertionError(broken("input VC", ivc, "flit out of wormhole order"));
        }
        return true;
    }

    /**
     * Wormhole order inside a VC: the flit after {@code seq - 1} of the same packet, or a head after a tail. ({@code
     * slot} is the new flit's position in the VC's ring, without the VC's base.)
     */
    private boolean arrivesInOrder(int ivc, int slot, int pkt, int seq) {
        int prev = (slot == 0 ? depth - 1 : slot - 1) + ivc * depth;
        int prevPkt = bufPkt(prev);
        int prevSeq = bufSeq(prev);
        return prevPkt == pkt ? seq == prevSeq + 1 : seq == 0 && prevSeq == pool.len[prevPkt] - 1;
    }

    /** Removes the front flit of input VC {@code ivc}, returning its credit upstream. */
    private void popFront(int ivc, int gi, long now) {
        assert vcCount[ivc] > 0 : broken("input VC", ivc, "popped while empty");
        flitsBuffered--;
        vcHead[ivc] = CyclicIndex.next(vcHead[ivc], depth);
        // the occupancy bits are rewritten whether or not they change: whether a VC or port empties is data the
        // branch predictor cannot learn, and a store costs less than a mispredicted branch
        int count = vcCount[ivc] - 1;
        vcCount[ivc] = count;
        long occupied = vcOccupied[gi] & ~(count == 0 ? 1L << (ivc & vcMask) : 0L);
        vcOccupied[gi] = occupied;
        if (gi < routerPorts) {
            portsOccupied[gi >> portShift] &= ~(occupied == 0 ? 1L << (gi & portMask) : 0L);
        }
        int up = inSource[gi];
        wheel.scheduleCredit(now + linkLatency, (up << vcShift) + (ivc & vcMask));
    }

    private void injectPhase(long now) {
        int kept = 0;
        for (int i = 0; i < injectCount; i++) {
            int node = injectList[i];
            int first = niRr[node];
            for (int k = 0; k < 2; k++) {
                injectClass(node, first ^ k, now);
            }
            niRr[node] = (byte) (first ^ 1);
            int q = node * 2;
            if (niQCount[q] + niQCount[q + 1] > 0 || niCur[q] >= 0 || niCur[q + 1] >= 0) {
                injectList[kept++] = node;
            } else {
                injectListed[node] = false;
            }
        }
        injectCount = kept;
    }

    private void injectClass(int node, int cls, long now) {
        int q = node * 2 + cls;
        int pkt = niCur[q];
        if (pkt < 0) {
            if (niQCount[q] == 0) {
                return;
            }
            int cand = niQueue[q * queueCap + niQHead[q]];
            if (pool.ready[cand] > now) {
                return;
            }
            int linkCount = nodeLinkCount[node];
            int link = nodeLinkFirst[node] + (linkCount == 1 ? 0 : random.nextInt(linkCount));
            int go = routerPorts + link;
            int base = (go << vcShift) + cls * vcsPerClass;
            int ovc = -1;
            for (int v = 0; v < vcsPerClass; v++) {
                int o = base + v;
                if (!ovcBusy[o] && (!cutThrough || credits[o] >= pool.len[cand])) {
                    ovc = o;
                    break;
                }
            }
            if (ovc < 0) {
                return;
            }
            ovcBusy[ovc] = true;
            pkt = cand;
            niCur[q] = pkt;
            niCurSeq[q] = 0;
            niCurOvc[q] = ovc;
            int h = niQHead[q] + 1;
            niQHead[q] = h == queueCap ? 0 : h;
            niQCount[q]--;
        }
        int ovc = niCurOvc[q];
        // A packet whose head was dropped downstream is still sent in full: the NI cannot know, and the routers
        // between here and the drop point hold VCs that only the tail releases.
        int seq = niCurSeq[q];
        int go = ovc >> vcShift;
        int port = timeMux ? go * 2 + cls : go * 2;
        if (credits[ovc] == 0 || outFreeAt[port] > now || (timeMux && ((int) now & 1) != cls)) {
            return;
        }
        credits[ovc]--;
        outFreeAt[port] = now + serialization;
        wheel.scheduleFlit(now + linkLatency, (outTarget[go] << vcShift) + (ovc & vcMask), pkt, seq);
        flitsInjected++;
        nodeFlitsInjected[node]++;
        if (seq == 0) {
            pool.injected[pkt] = now;
            packetsInjected++;
        }
        if (seq == pool.len[pkt] - 1) {
            ovcBusy[ovc] = false;
            niCur[q] = -1;
        } else {
            niCurSeq[q] = seq + 1;
        }
    }

    private void routerPhase(long now) {
        int[] list = activeRouters;
        int n = activeRouterCount;
        boolean separable = allocator == Allocator.SEPARABLE_INPUT_FIRST;
        int kept = 0;
        for (int i = 0; i < n; i++) {
            int r = list[i];
            if (separable) {
                processRouterSeparable(r, now);
            } else {
                processRouterRotating(r, now);
            }
            // compacted in the same pass: a router's visit changes only its own inputs' occupancy and arrivals happen
            // at the start of a cycle, so r's word is final once r has been visited
            if (portsOccupied[r] != 0) {
                list[kept++] = r;
            } else {
                routerListed[r] = false;
            }
        }
        activeRouterCount = kept;
    }

    // ------------------------------------------------------------------ separable input-first allocation (default)

    /**
     * One router cycle with separable allocators. (1) Every input VC whose front flit is eligible: route
     * computation for a new head, then either a VC request (a routed head: the first free output VC in its route's
     * preference order) or, for a VC that holds an output VC, a switch request if it has a credit and the output
     * port is free. (2) VC allocation; a winner may also ask for the switch this cycle (RC, VA and SA share the
     * {@code routerDelay} stage, as before). (3) Switch allocation: one VC per input port, then one input per output
     * port. (4) Switch traversal of the winners.
     */
    private void processRouterSeparable(int r, long now) {
        int base = r << portShift;
        SeparableVcAllocator va = vcAllocator;
        SeparableSwitchAllocator sa = switchAllocator;
        va.begin(base << vcShift);
        sa.begin(base);
        for (long ports = portsOccupied[r]; ports != 0; ports &= ports - 1) {
            int p = Long.numberOfTrailingZeros(ports);
            int gi = base + p;
            // the port's occupied VCs from the switch input arbiter's pointer round (those at or after it, then
            // those before it), so the first VC that offers is the arbiter's choice; later active VCs lost the
            // input arbitration (drop mode still checks timeouts). A visit changes no other VC's occupancy.
            scanVcs(r, p, gi, vcOccupied[gi], sa.firstVc(gi), now);
        }
        for (int i = 0, vaRequests = va.requests(); i < vaRequests; i++) {
            int local = va.requester(i);
            int gi = base + (local >> vcShift);
            int v = local & vcMask;
            int ivc = (gi << vcShift) + v;
            if (va.grant(i)) {
                grantVc(ivc, va.outputVc(i));
                requestSwitchLate(r, gi - base, gi, ivc, v, now); // may replace its port's choice
            } else if (dropMode && now - headEligibleAt(ivc, vcFlitsLeft[ivc]) >= dropTimeout) {
                drop(r, gi, ivc, bufPkt(ivc * depth + vcHead[ivc]), vcCandPort[ivc * maxCand], now);
            }
        }
        for (int i = 0, saRequests = sa.requests(); i < saRequests; i++) {
            int gi = sa.input(i);
            int ivc = (gi << vcShift) + sa.vc(i);
            if (sa.grant(i)) {
                traverse(r, gi, ivc, now);
            } else if (dropMode) {
                dropBlockedHead(r, gi, ivc, now);
            }
        }
    }

    /**
     * Visits the occupied VCs {@code occupied} (a bit per VC) of input port {@code p} cyclically from VC {@code first}
     * (one loop over the word rotated by {@code first}): RC and VA requests for VCs without an output VC, the switch
     * request of the first active VC that can cross.
     */
    private void scanVcs(int r, int p, int gi, long occupied, int first, long now) {
        int ivcBase = gi << vcShift;
        int width = vcs;
        boolean chosen = false;
        for (long m = rotatedTo(occupied, first); m != 0; m &= m - 1) {
            int v = CyclicIndex.reduce(Long.numberOfTrailingZeros(m) + first, width);
            int ivc = ivcBase + v;
            if (vcState[ivc] != ACTIVE) {
                requestVcOf(r, p, gi, ivc, v, now); // RC and VA requests: never the switch yet
            } else if (!chosen || dropMode) {
                chosen |= requestSwitchActive(r, p, gi, ivc, v, chosen, now);
            }
        }
    }

    /**
     * A port's VC word (bit v = VC v, {@code vcs} bits) rotated so that bit b is VC {@code first + b} (mod vcs):
     * walking its set bits upwards visits the VCs cyclically from {@code first} in one loop.
     */
    private long rotatedTo(long vcBits, int first) {
        if (first == 0) {
            return vcBits; // (a shift by vcs = 64 would be a shift by 0 in Java)
        }
        return ((vcBits >>> first) | (vcBits << (vcs - first))) & vcWordMask;
    }

    /**
     * The input stages for occupied VC {@code v} of input port {@code p} while it holds no output VC: discards a
     * dead packet, routes a new head (RC) and asks for an output VC (VA).
     */
    private void requestVcOf(int r, int p, int gi, int ivc, int v, long now) {
        if (retryVaFromState && vcState[ivc] == ROUTED) {
            // a head that is still routed lost VA before: it was eligible then (and stays so), so only the output
            // VCs' state can have changed, and neither its buffer slot nor its packet needs reading
            int ovc = chooseVc(ivc, vcFlitsLeft[ivc]);
            if (ovc >= 0) {
                vcAllocator.request((p << vcShift) + v, ovc);
            }
            return;
        }
        int pkt = readyFront(r, p, gi, ivc, now);
        if (pkt >= 0 && vcState[ivc] == ROUTED) {
            requestVc(r, gi, ivc, pkt, (p << vcShift) + v, now);
        }
    }

    /**
     * The switch request of active VC {@code v} of input port {@code p} during the port scan: it asks if its front
     * flit is eligible, its output VC has a credit and the output port is free; true if it asked. Once the port
     * has {@code chosen}, a VC behind the choice only checks its drop timeout (it lost the input arbitration).
     */
    private boolean requestSwitchActive(int r, int p, int gi, int ivc, int v, boolean chosen, long now) {
        int slot = ivc * depth + vcHead[ivc];
        if (bufTime(slot) + routerDelay > now) {
            return false;
        }
        int go = freeOutput(r, gi, ivc, slot, now);
        if (go < 0) {
            return false;
        }
        if (!chosen) {
            switchAllocator.request(p, v, go);
        }
        return true;
    }

    /**
     * The output port active VC {@code ivc} (front flit in buffer slot {@code slot}) can cross to this cycle: its
     * output VC has a credit, the port is free and (time multiplexing) it is the packet's class's turn; else -1,
     * and in drop mode a blocked head past its timeout is dropped.
     */
    private int freeOutput(int r, int gi, int ivc, int slot, long now) {
        int ovc = vcOutVc[ivc];
        int go = ovc >> vcShift;
        int port = go * 2;
        if (timeMux) {
            int cls = pool.cls[bufPkt(slot)]; // read only here: the pool is a cache miss the common case does without
            if (((int) now & 1) != cls) {
                return -1; // not this logical network's time slot: waiting for it is not being blocked
            }
            port += cls;
        }
        if (credits[ovc] == 0 || outFreeAt[port] > now) {
            if (dropMode) {
                dropBlockedHead(r, gi, ivc, now);
            }
            return -1;
        }
        return go;
    }

    /** A routed head asks for an output VC (store-and-forward: once its tail is in and eligible too). */
    private void requestVc(int r, int gi, int ivc, int pkt, int localIvc, long now) {
        int len = vcFlitsLeft[ivc];
        if (storeAndForward && vcCount[ivc] < len) {
            return;
        }
        long eligible = headEligibleAt(ivc, len);
        if (eligible > now) {
            return;
        }
        int ovc = chooseVc(ivc, len);
        if (ovc >= 0) {
            vcAllocator.request(localIvc, ovc);
        } else if (dropMode && now - eligible >= dropTimeout) {
            drop(r, gi, ivc, pkt, vcCandPort[ivc * maxCand], now);
        }
    }

    /**
     * A VC that has just won an output VC asks for the switch if it {@link #freeOutput can cross}, replacing its
     * port's choice if the input arbiter prefers it.
     */
    private void requestSwitchLate(int r, int p, int gi, int ivc, int v, long now) {
        int go = freeOutput(r, gi, ivc, ivc * depth + vcHead[ivc], now);
        if (go >= 0) {
            switchAllocator.offer(p, v, go);
        }
    }

    /** Drop mode: a head that holds an output VC but cannot cross the switch dies once its timeout has passed. */
    private void dropBlockedHead(int r, int gi, int ivc, long now) {
        int slot = ivc * depth + vcHead[ivc];
        if (bufSeq(slot) == 0 && now - (bufTime(slot) + routerDelay) >= dropTimeout) {
            int ovc = vcOutVc[ivc];
            ovcBusy[ovc] = false;
            drop(r, gi, ivc, bufPkt(slot), ovc >> vcShift, now);
        }
    }

    // --------------------------------------------------------------- rotating-priority allocation (the old policy)

    /**
     * One router cycle with the original policy: inputs in an order that starts one port later every cycle
     * (whatever was granted), VCs of an input round-robin past the last VC that moved; the first VC that can take
     * a free output VC and a free output port moves, one flit per input port.
     */
    private void processRouterRotating(int r, long now) {
        int base = r << portShift;
        int start = rrIn[r];
        for (int i = 0; i < ports; i++) {
            int p = start + i;
            if (p >= ports) {
                p -= ports;
            }
            int gi = base + p;
            if (vcOccupied[gi] == 0) {
                continue;
            }
            int vs = rrVc[gi];
            for (int j = 0; j < vcs; j++) {
                int v = vs + j;
                if (v >= vcs) {
                    v -= vcs;
                }
                int ivc = (gi << vcShift) + v;
                if (vcCount[ivc] != 0 && advanceRotating(r, p, gi, ivc, now)) {
                    rrVc[gi] = v + 1 == vcs ? 0 : v + 1;
                    break;
                }
            }
        }
        rrIn[r] = start + 1 == ports ? 0 : start + 1;
    }

    /** Tries to move the front flit of {@code ivc} through the switch at once; true if it moved. */
    private boolean advanceRotating(int r, int inPort, int gi, int ivc, long now) {
        int pkt = readyFront(r, inPort, gi, ivc, now);
        if (pkt < 0) {
            return false;
        }
        int slot = ivc * depth + vcHead[ivc];
        long eligible = bufTime(slot) + routerDelay;
        int seq = bufSeq(slot);
        if (vcState[ivc] == ROUTED) {
            int len = vcFlitsLeft[ivc];
            if (storeAndForward) {
                if (vcCount[ivc] < len) {
                    return false;
                }
                eligible = headEligibleAt(ivc, len);
                if (eligible > now) {
                    return false;
                }
            }
            int ovc = chooseVc(ivc, len);
            if (ovc < 0) {
                if (dropMode && now - eligible >= dropTimeout) {
                    drop(r, gi, ivc, pkt, vcCandPort[ivc * maxCand], now);
                }
                return false;
            }
            grantVc(ivc, ovc);
        }
        int ovc = vcOutVc[ivc];
        int go = ovc >> vcShift;
        if (timeMux && ((int) now & 1) != pool.cls[pkt]) {
            return false; // not this logical network's time slot: waiting for it is not being blocked
        }
        int port = timeMux ? go * 2 + pool.cls[pkt] : go * 2;
        if (credits[ovc] == 0 || outFreeAt[port] > now) {
            if (dropMode && seq == 0 && now - eligible >= dropTimeout) {
                ovcBusy[ovc] = false;
                drop(r, gi, ivc, pkt, go, now);
            }
            return false;
        }
        traverse(r, gi, ivc, now);
        return true;
    }

    // ------------------------------------------------------------------------------------- stages both use

    /**
     * The packet at the front of {@code ivc} if its front flit is eligible ({@code routerDelay} cycles after it
     * arrived), or -1. Discards the flits of a packet dropped here first, and routes a new head (RC).
     */
    private int readyFront(int r, int inPort, int gi, int ivc, long now) {
        int slot = ivc * depth + vcHead[ivc];
        int pkt = bufPkt(slot);
        // only drop mode kills packets, and only an idle VC can front a dead one: the common cases skip the pool load
        if (dropMode && vcState[ivc] == IDLE && pool.state[pkt] == PacketPool.DEAD) {
            discardDead(r, gi, ivc, now);
            if (vcCount[ivc] == 0) {
                return -1;
            }
            slot = ivc * depth + vcHead[ivc];
            pkt = bufPkt(slot);
        }
        if (bufTime(slot) + routerDelay > now) {
            return -1;
        }
        if (vcState[ivc] == IDLE) {
            // a live front flit of an idle VC is always a head: the previous packet's tail reset the state
            assert bufSeq(slot) == 0 : broken("input VC", ivc, "idle with a body flit at its front");
            int count = topology.route(r, inPort, pool.src[pkt], pool.dst[pkt], random, candPorts, candSubs);
            int cb = ivc * maxCand;
            for (int c = 0; c < count; c++) {
                vcCandPort[cb + c] = (r << portShift) + candPorts[c];
                vcCandSub[cb + c] = candSubs[c];
            }
            vcCandN[ivc] = (byte) count;
            // the count kept from here spares the allocation retries and every flit a load from the pool
            vcFlitsLeft[ivc] = pool.len[pkt];
            vcState[ivc] = ROUTED;
        }
        return pkt;
    }

    /** The cycle a head may allocate: its own eligibility, or (store-and-forward) its tail's. */
    private long headEligibleAt(int ivc, int len) {
        int h = vcHead[ivc];
        if (storeAndForward) {
            h += len - 1;
            if (h >= depth) {
                h -= depth;
            }
        }
        return bufTime(ivc * depth + h) + routerDelay;
    }

    /** VC allocation's grant to the packet whose head is at the front of {@code ivc}. */
    private void grantVc(int ivc, int ovc) {
        assert vcState[ivc] == ROUTED : broken("input VC", ivc, "granted an output VC while not routed");
        assert !ovcBusy[ovc] : broken("output VC", ovc, "granted twice");
        ovcBusy[ovc] = true;
        vcOutVc[ivc] = ovc;
        vcState[ivc] = ACTIVE;
    }

    /**
     * Switch traversal (ST) of the front flit of {@code ivc}; the tail frees the output VC.
     *
     * <p>Its invariant checks are written here rather than in a helper, which puts its bytecode (about 360 bytes) over
     * the size up to which C2 inlines a hot callee ({@code FreqInlineSize}, 325), so the router's compiled visit calls
     * it instead of inlining it: inlined, the 8x8 speed case ran about 3 % slower (same outputs; the same gain comes
     * from {@code -XX:CompileCommand=dontinline} on the older code, so it is the compiled shape, not the checks).
     */
    private void traverse(int r, int gi, int ivc, long now) {
        int slot = ivc * depth + vcHead[ivc];
        int pkt = bufPkt(slot);
        int seq = bufSeq(slot);
        int ovc = vcOutVc[ivc];
        int go = ovc >> vcShift;
        assert vcState[ivc] == ACTIVE && ovcBusy[ovc] : broken("input VC", ivc, "crosses without an output VC");
        assert credits[ovc] > 0 : broken("output VC", ovc, "sends without a credit");
        int port = timeMux ? go * 2 + pool.cls[pkt] : go * 2;
        popFront(ivc, gi, now);
        credits[ovc]--;
        outFreeAt[port] = now + serialization;
        wheel.scheduleFlit(now + linkLatency, (outTarget[go] << vcShift) + (ovc & vcMask), pkt, seq);
        flitHops++;
        if (seq == 0) {
            pool.hops[pkt]++;
        }
        // the tail frees the output VC and the input VC; written for every flit rather than branched on (a body
        // flit writes the values the fields already hold: busy, ACTIVE)
        int left = vcFlitsLeft[ivc] - 1;
        vcFlitsLeft[ivc] = left;
        assert left > 0 || seq == pool.len[pkt] - 1 : broken("input VC", ivc, "tail is not its packet's last flit");
        ovcBusy[ovc] = left != 0;
        vcState[ivc] = (byte) (left != 0 ? ACTIVE : IDLE);
    }

    /**
     * The input stage of VC allocation: the first free output VC of the packet's class among the route's
     * candidates, in the route's order of preference (on tori, in the dateline halves each candidate allows), or
     * -1. Cut-through and store-and-forward also need credits for the whole packet.
     */
    private int chooseVc(int ivc, int len) {
        int cb = ivc * maxCand;
        int count = vcCandN[ivc];
        // a packet stays in its class's VCs from injection on, so the input VC names the class
        int clsBase = (ivc & vcMask) >= vcsPerClass ? vcsPerClass : 0;
        if (subclasses == 2) {
            return chooseDatelineVc(ivc, clsBase, len);
        }
        for (int c = 0; c < count; c++) {
            int o = firstFree((vcCandPort[cb + c] << vcShift) + clsBase, vcsPerClass, len);
            if (o >= 0) {
                return o;
            }
        }
        return -1;
    }

    private int chooseDatelineVc(int ivc, int clsBase, int len) {
        int cb = ivc * maxCand;
        int count = vcCandN[ivc];
        int width = vcsPerClass >> 1;
        // the half of the VC the packet sits in now (every port has the same class layout)
        int inHalf = (ivc & vcMask) - clsBase >= width ? 1 : 0;
        for (int c = 0; c < count; c++) {
            int portBase = (vcCandPort[cb + c] << vcShift) + clsBase;
            int halves = halves(vcCandSub[cb + c], inHalf);
            for (int i = 0; i < 2; i++) {
                int h = (halves >> (4 * i)) & 0xF;
                if (h > 1) {
                    break;
                }
                int o = firstFree(portBase + h * width, width, len);
                if (o >= 0) {
                    return o;
                }
            }
        }
        return -1;
    }

    /**
     * The dateline halves a route's half code allows, in preference order, packed as nibbles (first half in bits
     * 0-3, second in bits 4-7, 0xF = none). Without dateline halves every code is "half 0" = the whole class.
     */
    private static int halves(int sub, int inHalf) {
        return switch (sub) {
            case 0 -> 0xF0;
            case 1 -> 0xF1;
            case Topology.EITHER_HALF -> 0x10;
            case Topology.EITHER_PREFER_1 -> 0x01;
            case Topology.UPWARD_PREFER_0 -> inHalf == 0 ? 0x10 : 0xF1;
            case Topology.UPWARD_PREFER_1 -> inHalf == 0 ? 0x01 : 0xF1;
            default -> throw new IllegalStateException("unknown dateline half code " + sub);
        };
    }

    /**
     * The first free output VC of {@code [lo, lo + width)} (cut-through: with credits for the packet), or -1. Always
     * from the lowest: spreading the heads of a router over all free VCs (a round-robin input stage) was tried and
     * interleaves more worms per channel, so each holds its VCs longer; on the 8x8 mesh under tornado with 4 x 8
     * buffers that halved the post-saturation throughput (0.28 to 0.16 flits/node/cycle).
     */
    private int firstFree(int lo, int width, int len) {
        for (int o = lo; o < lo + width; o++) {
            if (!ovcBusy[o] && (!cutThrough || credits[o] >= len)) {
                return o;
            }
        }
        return -1;
    }

    /** Drop-when-blocked: kills the packet whose head is at the front of {@code ivc}. */
    private void drop(int r, int gi, int ivc, int pkt, int blockedOut, long now) {
        pool.state[pkt] = PacketPool.DEAD;
        vcState[ivc] = IDLE;
        packetsDropped++;
        DropReason reason = outTarget[blockedOut] >= routerPorts ? DropReason.EJECT_BLOCKED : DropReason.HEAD_BLOCKED;
        dropsByReason[reason.ordinal()]++;
        if (listener != null) {
            listener.dropped(record.at(pkt), reason, now);
        }
        discardDead(r, gi, ivc, now);
    }

    /**
     * Discards the front flits of a dead packet at the VC where its head was dropped (state IDLE there). Routers
     * upstream of the drop point still hold an output VC for the worm (state ACTIVE), so they keep forwarding its
     * flits normally and the tail releases each allocation on its way; only at the drop point do flits vanish.
     * (Discarding upstream too would strand a downstream VC whose tail never arrives.) The handle is freed when
     * the last flit is gone.
     */
    private void discardDead(int r, int gi, int ivc, long now) {
        while (vcCount[ivc] > 0) {
            int slot = ivc * depth + vcHead[ivc];
            int pkt = bufPkt(slot);
            if (pool.state[pkt] != PacketPool.DEAD) {
                return;
            }
            popFront(ivc, gi, now);
                flitsDropped++;
            if (--pool.left[pkt] == 0) {
                pool.release(pkt);
            }
        }
    }

    private void ejectPhase(long now) {
        int kept = 0;
        for (int i = 0; i < ejectCount; i++) {
            int node = ejectList[i];
            if (receiving[node * 2] || receiving[node * 2 + 1]) {
                int first = nodeSinkFirst[node];
                for (int s = 0, c = nodeSinkCount[node]; s < c; s++) {
                    consume(node, routerPorts + first + s, now);
                }
            }
            if (nodeSinkFlits[node] > 0) {
                ejectList[kept++] = node;
            } else {
                ejectListed[node] = false;
            }
        }
        ejectCount = kept;
    }

    /** The NI takes one flit per cycle from an ejection buffer; the tail completes the packet. */
    private void consume(int node, int gi, long now) {
        long occupied = vcOccupied[gi];
        if (occupied == 0) {
            return;
        }
        // the occupied VCs cyclically from the round-robin pointer, as in the router's port scan
        int width = vcs;
        int first = rrVc[gi];
        for (long m = rotatedTo(occupied, first); m != 0; m &= m - 1) {
            int v = CyclicIndex.reduce(Long.numberOfTrailingZeros(m) + first, width);
            int ivc = (gi << vcShift) + v;
            if (!receiving[node * 2 + (v >= vcsPerClass ? 1 : 0)]) {
                continue;
            }
            int slot = ivc * depth + vcHead[ivc];
            if (bufTime(slot) > now) {
                continue;
            }
            int pkt = bufPkt(slot);
            int seq = bufSeq(slot);
            popFront(ivc, gi, now);
            nodeSinkFlits[node]--;
            flitsEjected++;
            nodeFlitsEjected[node]++;
            rrVc[gi] = CyclicIndex.next(v, vcs);
            if (seq == pool.len[pkt] - 1) {
                if (interfaceFaults == null) {
                    handOver(node, pkt, false, now);
                } else {
                    interfaceFaults.arrived(node, pkt, now);
                }
            }
            return;
        }
    }

    /**
     * Hands a whole packet to node {@code node}'s endpoint and the listener; frees its handle unless
     * {@code copyFollows} (an NI duplicate: the same packet is handed over again at once).
     */
    void handOver(int node, int pkt, boolean copyFollows, long now) {
        packetsDelivered++;
        this.copyFollows = copyFollows;
        Endpoint ep = endpoints[node];
        if (ep != null) {
            ep.deliver(nodePorts[node], record.at(pkt), now);
        }
        if (listener != null) {
            listener.delivered(record.at(pkt), now);
        }
        this.copyFollows = false;
        if (!copyFollows) {
            pool.release(pkt);
        }
    }

    /** The NI discards a whole packet it consumed (its fault plan dropped it, or its check failed). */
    void discardAtInterface(int pkt, DropReason reason, long now) {
        dropsByReason[reason.ordinal()]++;
        if (listener != null) {
            listener.dropped(record.at(pkt), reason, now);
        }
        pool.release(pkt);
    }

    boolean copyFollows() {
        return copyFollows;
    }

    private void checkNode(int node) {
        if (node < 0 || node >= nodes) {
            throw new IllegalArgumentException("node " + node + " out of range [0, " + nodes + ")");
        }
    }

    // ------------------------------------------------------------------------------------ packet record access

    int src(int h) {
        return pool.src[h];
    }

    int dst(int h) {
        return pool.dst[h];
    }

    int length(int h) {
        return pool.len[h];
    }

    int cls(int h) {
        return pool.cls[h];
    }

    int hops(int h) {
        return pool.hops[h];
    }

    long created(int h) {
        return pool.created[h];
    }

    long injected(int h) {
        return pool.injected[h];
    }

    long payload(int h) {
        return pool.payload[h];
    }
}
