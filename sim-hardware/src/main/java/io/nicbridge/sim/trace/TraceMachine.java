package io.nicbridge.sim.trace;

import io.nicbridge.sim.traffic.FabricPorts;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The idempotent-messaging paper's simulation library (its Table 1: Load, Store, Wait, Fork, Join,
 * Sync) running a parallel program as ONE Java thread and recording the messages it would send as a
 * {@link BlockTrace}.
 *
 * <p>The machine model (paper section 3.1): distributed shared memory with split-phase remote
 * operations; pointers name (node, offset) and every distributed object occupies the same offsets
 * on every node; threads are created by {@link #fork} on any node and synchronise through join
 * capabilities ({@link #join} writes a register of the owning thread, {@link #sync} waits for it).
 *
 * <p>How the single-threaded run maps onto blocks (section 3.3):
 * <ul>
 *   <li>Each thread always has a current block on its node; {@link #compute} and local references add
 *       time to it. A message leaves at the block's current time offset.</li>
 *   <li>{@link #load} of a remote word ends the block: a request (request network) to the owner
 *       signals a new one-message block there whose reply (reply network) signals the continuation
 *       block, which becomes current.</li>
 *   <li>{@link #store} of a remote word sends the store and leaves an acknowledgement block at the
 *       owner; {@link #waitStores} starts a block that waits for every outstanding acknowledgement
 *       (and for the current block's own end). A load of an address with an outstanding store waits
 *       first (the paper's conflict check).</li>
 *   <li>{@link #fork} is a function call: the child runs to completion, depth first, in a new block on
 *       its node signalled by the fork message, then the parent resumes where it was.</li>
 *   <li>{@link #join} sends the value to the capability's owner; {@link #sync} starts a block that
 *       waits for both that join message and the end of the current block. Because forks run depth
 *       first, a child-to-parent join has always happened before the parent syncs. Otherwise use
 *       {@link #syncThen}: the continuation runs now if the join has happened, else later inside the
 *       matching {@link #join} (paper figure 8).</li>
 * </ul>
 * A node-local signal (the end of a block, a local fork or join) is recorded as a
 * {@link BlockTrace#LOCAL} message.
 */
public final class TraceMachine {
    private final int nodes;
    private final TraceCosts costs;
    private long[][] memory;
    private int wordsPerNode;

    // Blocks.
    private int blockCount;
    private int[] blockNode = new int[1024];
    private long[] duration = new long[1024];
    private int[] signals = new int[1024];
    // Messages (grouped by block when the trace is frozen).
    private int messageCount;
    private int[] from = new int[1024];
    private long[] offset = new long[1024];
    private int[] size = new int[1024];
    private int[] destination = new int[1024];
    private int[] target = new int[1024];
    private int[] network = new int[1024];

    private ThreadState current;

    /** The library's globals for one thread: its block, its node and its outstanding stores. */
    static final class ThreadState {
        int block;
        final int node;
        int[] pendingAck = new int[8];
        long[] pendingAddress = new long[8];
        int pendingCount;
        boolean suspended;

        ThreadState(int block, int node) {
            this.block = block;
            this.node = node;
        }
    }

    private TraceMachine(int nodes, TraceCosts costs) {
        if (nodes < 1) {
            throw new IllegalArgumentException("a trace machine needs at least one node, got " + nodes);
        }
        this.nodes = nodes;
        this.costs = Objects.requireNonNull(costs, "costs");
        this.memory = new long[nodes][0];
    }

    /**
     * Runs {@code program} as the main thread on node 0 and returns the trace it generated.
     *
     * @param setup called first with the machine (allocate and fill memory at no cost), may be null
     */
    public static BlockTrace record(String name, int nodes, TraceCosts costs, Consumer<TraceMachine> setup,
                                    Consumer<TraceMachine> program) {
        TraceMachine m = new TraceMachine(nodes, costs);
        if (setup != null) {
            setup.accept(m);
        }
        m.current = new ThreadState(m.newBlock(0), 0);
        program.accept(m);
        return m.freeze(name);
    }

    /** @return number of nodes */
    public int nodes() {
        return nodes;
    }

    /** @return the node the current thread runs on (the paper's global {@code node}) */
    public int node() {
        return current.node;
    }

    /** @return the cost model in use */
    public TraceCosts costs() {
        return costs;
    }

    // ---------------------------------------------------------------- memory

    /** Allocates {@code words} words at the same offsets on every node; returns the first offset. */
    public int allocate(int words) {
        if (words < 0) {
            throw new IllegalArgumentException("cannot allocate " + words + " words");
        }
        int base = wordsPerNode;
        wordsPerNode += words;
        for (int n = 0; n < nodes; n++) {
            memory[n] = Arrays.copyOf(memory[n], wordsPerNode);
        }
        return base;
    }

    /** @return a pointer to word {@code offset} of {@code node} */
    public static long pointer(int node, int offset) {
        return ((long) node << 32) | (offset & 0xFFFF_FFFFL);
    }

    public static int pointerNode(long p) {
        return (int) (p >>> 32);
    }

    public static int pointerOffset(long p) {
        return (int) p;
    }

    /** Reads memory without simulating anything (for setup and for checking results). */
    public long peek(long p) {
        checkPointer(p);
        return memory[pointerNode(p)][pointerOffset(p)];
    }

    /** Writes memory without simulating anything (for setup). */
    public void poke(long p, long value) {
        checkPointer(p);
        memory[pointerNode(p)][pointerOffset(p)] = value;
    }

    // ---------------------------------------------------------------- the library

    /** Adds computation time to the current block (the paper's time macro). */
    public void compute(long cycles) {
        if (cycles < 0) {
            throw new IllegalArgumentException("compute time must be >= 0, got " + cycles);
        }
        duration[live().block] += cycles;
    }

    /** Load: a remote word costs a request/reply round trip and ends the current block. */
    public long load(long p) {
        ThreadState t = live();
        checkPointer(p);
        for (int i = 0; i < t.pendingCount; i++) {
            if (t.pendingAddress[i] == p) {
                waitStores();
                break;
            }
        }
        int owner = pointerNode(p);
        if (owner == t.node) {
            duration[t.block] += costs.localReference();
        } else {
            int ref = newBlock(owner);
            int next = newBlock(t.node);
            addMessage(t.block, costs.loadRequestFlits(), owner, ref, FabricPorts.REQUEST);
            addMessage(ref, costs.loadReplyFlits(), t.node, next, FabricPorts.REPLY);
            t.block = next;
        }
        return memory[owner][pointerOffset(p)];
    }

    /** Store: a remote word sends the store; its acknowledgement is awaited by {@link #waitStores}. */
    public void store(long p, long value) {
        ThreadState t = live();
        checkPointer(p);
        int owner = pointerNode(p);
        memory[owner][pointerOffset(p)] = value;
        if (owner == t.node) {
            duration[t.block] += costs.localReference();
            return;
        }
        int ackBlock = newBlock(owner);
        addMessage(t.block, costs.storeFlits(), owner, ackBlock, FabricPorts.REQUEST);
        int ack = addMessage(ackBlock, costs.storeAckFlits(), t.node, -1, FabricPorts.REPLY);
        if (t.pendingCount == t.pendingAck.length) {
            t.pendingAck = Arrays.copyOf(t.pendingAck, t.pendingCount * 2);
            t.pendingAddress = Arrays.copyOf(t.pendingAddress, t.pendingCount * 2);
        }
        t.pendingAck[t.pendingCount] = ack;
        t.pendingAddress[t.pendingCount] = p;
        t.pendingCount++;
    }

    /** Wait: the thread continues once every store it issued has been acknowledged. */
    public void waitStores() {
        ThreadState t = live();
        if (t.pendingCount == 0) {
            return;
        }
        int next = newBlock(t.node);
        endBlockInto(t, next);
        for (int i = 0; i < t.pendingCount; i++) {
            target[t.pendingAck[i]] = next;
            signals[next]++;
        }
        t.pendingCount = 0;
        t.block = next;
    }

    /**
     * Fork: starts {@code body} as a new thread on {@code node}. Runs it now, depth first, then resumes
     * the caller.
     */
    public void fork(int node, Runnable body) {
        ThreadState parent = live();
        checkNode(node);
        int child = newBlock(node);
        if (node == parent.node) {
            duration[parent.block] += costs.localFork();
            addMessage(parent.block, 0, node, child, BlockTrace.LOCAL);
        } else {
            addMessage(parent.block, costs.forkFlits(), node, child, FabricPorts.REQUEST);
        }
        current = new ThreadState(child, node);
        try {
            body.run();
        } finally {
            current = parent;
        }
    }

    /** @return a new join capability naming a register of the current thread */
    public JoinCapability newJoin() {
        return new JoinCapability(live().node);
    }

    /** Join: writes {@code value} into the capability's register (a message when it is remote). */
    public void join(JoinCapability j, long value) {
        ThreadState t = live();
        if (j.joined) {
            throw new IllegalStateException("join capability of node " + j.ownerNode + " was already joined");
        }
        if (j.syncBlock < 0) {
            j.syncBlock = newBlock(j.ownerNode);
        }
        if (j.ownerNode == t.node) {
            duration[t.block] += costs.localJoin();
            addMessage(t.block, 0, j.ownerNode, j.syncBlock, BlockTrace.LOCAL);
        } else {
            addMessage(t.block, costs.joinFlits(), j.ownerNode, j.syncBlock, FabricPorts.REQUEST);
        }
        j.joined = true;
        j.value = value;
        if (j.continuation != null) {
            // Sync was called first (figure 8b): run the waiting thread's continuation now.
            LongConsumer k = j.continuation;
            ThreadState waiting = j.waiting;
            j.continuation = null;
            j.waiting = null;
            waiting.suspended = false;
            waiting.block = j.syncBlock;
            ThreadState caller = current;
            current = waiting;
            try {
                k.accept(value);
            } finally {
                current = caller;
            }
        }
    }

    /**
     * Sync: waits for the join and returns its value. Valid only when the join has already happened
     * in program order (child-to-parent synchronisation); otherwise use {@link #syncThen}.
     */
    public long sync(JoinCapability j) {
        ThreadState t = live();
        checkOwner(j, t);
        if (!j.joined) {
            throw new IllegalStateException("sync on node " + t.node + " before the matching join: the "
                    + "single-threaded library needs syncThen(cap, continuation) here");
        }
        enterSyncBlock(j, t);
        return j.value;
    }

    /**
     * Sync in continuation form: runs {@code continuation} with the joined value, either now (join
     * already done) or from inside the matching {@link #join}. The calling thread must do nothing more
     * after this call; its remaining work belongs in the continuation.
     */
    public void syncThen(JoinCapability j, LongConsumer continuation) {
        ThreadState t = live();
        checkOwner(j, t);
        Objects.requireNonNull(continuation, "continuation");
        if (j.joined) {
            enterSyncBlock(j, t);
            continuation.accept(j.value);
            return;
        }
        if (j.syncBlock < 0) {
            j.syncBlock = newBlock(j.ownerNode);
        }
        j.synced = true;
        endBlockInto(t, j.syncBlock);
        j.continuation = continuation;
        j.waiting = t;
        t.suspended = true;
    }

    // ---------------------------------------------------------------- internals

    private void enterSyncBlock(JoinCapability j, ThreadState t) {
        if (j.synced) {
            throw new IllegalStateException("join capability of node " + j.ownerNode + " was already synced");
        }
        j.synced = true;
        endBlockInto(t, j.syncBlock);
        t.block = j.syncBlock;
    }

    /** The next block must also wait for the end of the current one (a local signal at its end). */
    private void endBlockInto(ThreadState t, int next) {
        addMessage(t.block, 0, t.node, next, BlockTrace.LOCAL);
    }

    private ThreadState live() {
        ThreadState t = current;
        if (t.suspended) {
            throw new IllegalStateException("the thread on node " + t.node
                    + " called syncThen and is suspended; its remaining work belongs in the continuation");
        }
        return t;
    }

    private void checkOwner(JoinCapability j, ThreadState t) {
        if (j.ownerNode != t.node) {
            throw new IllegalStateException("sync on node " + t.node + " of a join capability owned by node "
                    + j.ownerNode);
        }
    }

    private void checkNode(int node) {
        if (node < 0 || node >= nodes) {
            throw new IllegalArgumentException("node " + node + " is outside [0, " + nodes + ")");
        }
    }

    private void checkPointer(long p) {
        int n = pointerNode(p);
        int o = pointerOffset(p);
        if (n < 0 || n >= nodes || o < 0 || o >= wordsPerNode) {
            throw new IllegalArgumentException("pointer (node " + n + ", offset " + o + ") is outside the "
                    + nodes + " nodes x " + wordsPerNode + " allocated words");
        }
    }

    private int newBlock(int node) {
        if (blockCount == blockNode.length) {
            int cap = blockCount * 2;
            blockNode = Arrays.copyOf(blockNode, cap);
            duration = Arrays.copyOf(duration, cap);
            signals = Arrays.copyOf(signals, cap);
        }
        blockNode[blockCount] = node;
        return blockCount++;
    }

    private int addMessage(int block, int flits, int dst, int targetBlock, int net) {
        if (messageCount == from.length) {
            int cap = messageCount * 2;
            from = Arrays.copyOf(from, cap);
            offset = Arrays.copyOf(offset, cap);
            size = Arrays.copyOf(size, cap);
            destination = Arrays.copyOf(destination, cap);
            target = Arrays.copyOf(target, cap);
            network = Arrays.copyOf(network, cap);
        }
        int m = messageCount++;
        from[m] = block;
        offset[m] = duration[block];
        size[m] = flits;
        destination[m] = dst;
        target[m] = targetBlock;
        network[m] = net;
        if (targetBlock >= 0) {
            // A block starts when every message aimed at it has arrived.
            signals[targetBlock]++;
        }
        return m;
    }

    private BlockTrace freeze(String name) {
        // Group the messages by sending block (counting sort, stable: program order within a block).
        int[] first = new int[blockCount + 1];
        for (int m = 0; m < messageCount; m++) {
            first[from[m] + 1]++;
        }
        for (int b = 0; b < blockCount; b++) {
            first[b + 1] += first[b];
        }
        int[] count = new int[blockCount];
        int[] order = new int[messageCount];
        int[] fill = Arrays.copyOf(first, blockCount);
        for (int m = 0; m < messageCount; m++) {
            order[fill[from[m]]++] = m;
            count[from[m]]++;
        }
        int[] fFrom = new int[messageCount];
        long[] fOffset = new long[messageCount];
        int[] fSize = new int[messageCount];
        int[] fDst = new int[messageCount];
        int[] fTarget = new int[messageCount];
        int[] fNet = new int[messageCount];
        for (int i = 0; i < messageCount; i++) {
            int m = order[i];
            fFrom[i] = from[m];
            fOffset[i] = offset[m];
            fSize[i] = size[m];
            fDst[i] = destination[m];
            fTarget[i] = target[m];
            fNet[i] = network[m];
        }
        return new BlockTrace(name, nodes, blockCount, Arrays.copyOf(blockNode, blockCount),
                Arrays.copyOf(duration, blockCount), Arrays.copyOf(signals, blockCount),
                Arrays.copyOf(first, blockCount), count, messageCount, fFrom, fOffset, fSize, fDst, fTarget, fNet);
    }
}
