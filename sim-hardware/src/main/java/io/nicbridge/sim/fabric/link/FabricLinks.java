package io.nicbridge.sim.fabric.link;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.link.ReceivedFrames;
import io.nicbridge.bridge.port.PortCounters;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.sim.fabric.DropReason;
import io.nicbridge.sim.fabric.Endpoint;
import io.nicbridge.sim.fabric.FabricListener;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.NodePort;
import io.nicbridge.sim.fabric.PacketRecord;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The MPP fabric as a {@link Link} per node: the framing that lets a protocol core run on a {@link Network}
 * (mesh, torus, fat tree, butterfly; buffered or drop-on-block), driven by a bridge {@link Scheduler}.
 *
 * <h2>Addressing and framing</h2>
 * Peer i is fabric node i. Links are made for nodes {@code 0 .. k-1}, {@code k = cpus.length}, so {@code peers() = k};
 * nodes {@code k ..} stay free for the experiment's own {@link Endpoint}s (cross traffic). A frame is one fabric
 * packet: the fabric's own packet fields carry the source, destination and class, and the framing adds a
 * {@link #FRAMING_BYTES}-byte header word (the payload length), so a frame of {@code n} bytes occupies
 * {@code flits = ceil((n + FRAMING_BYTES) * 8 / flitBits)} payload flits ({@code FabricConfig.flitsFor}), plus the
 * checksum flit in drop mode. No broadcast: the fabric has none.
 *
 * <h2>Bytes</h2>
 * The fabric simulates flits, not data, and hands a 64-bit payload id back on delivery or drop. Each node has a
 * preallocated payload store of {@code txBuffers} slots of {@code mtu} bytes (its NI's send memory):
 * {@link Link#txBuffer} is the claimed slot itself, and the packet's payload id names {@code (tag, node, slot)}:
 * <pre>
 *   63        48 47          24 23           0
 *   | 0x464C 'FL' | source node | store slot    |
 * </pre>
 * When the tail reaches the destination NI the bytes are copied from the sender's slot into a free slot of the
 * receiver's store ({@code rxBuffers} of them, handed up in place by {@link Link#poll}), and the sender's slot frees.
 * A slot is thus held from claim until its packet is delivered or dropped: a node has at most {@code txBuffers}
 * frames queued or in the network. Packets with another tag (an experiment's own traffic to a link node) are
 * counted as {@link #foreignPackets()} and ignored.
 *
 * <h2>Classes</h2>
 * Every frame travels in one of the fabric's two classes. {@link Link#claim(int)} uses {@link Network#REQUEST}; the
 * {@link PacketClasses} capability claims in either and tells the class of a received frame. One link per node
 * serves both classes, so one runner drives a request/reply core.
 *
 * <h2>Back-pressure, drops</h2>
 * A claim returns {@link Link#NONE} when no store slot is free or when the NI send queue of its class is full
 * (counting frames claimed or committed but not yet in the queue, so that a commit always finds room);
 * {@link LinkHandler#onWritable} follows once a claim would succeed. A receiver whose receive slots are all held
 * stops taking flits ({@link NodePort#receiving}): the fabric backs up behind it, and in drop-on-block mode the
 * blocked heads are dropped ({@link DropReason#EJECT_BLOCKED}). Drops are invisible to the sender, as in the
 * hardware (its slot simply frees); they are counted here ({@link #framesDropped()}, {@link #drops(DropReason)})
 * for the experiment's accounting. (Only if two tails reach a node in the cycle that fills its store is a frame
 * dropped at the link, counted in that link's {@code rxDrops}.)
 *
 * <h2>Time</h2>
 * The fabric's cycles are the scheduler's: one timer steps the network every {@code cycleNanos} (default
 * {@link #CM5_CYCLE_NANOS}) on a fixed grid, and only while something is queued or in flight; an idle fabric arms
 * nothing, so an idle world's virtual clock jumps. {@link Network#cycle()} therefore counts simulated cycles, not
 * elapsed time. An experiment's own endpoints on the other nodes (cross traffic) are woken only in cycles the
 * medium steps, that is while the fabric is busy. On a virtual scheduler the whole world (fabric, links, runner,
 * cores) is one deterministic simulation.
 *
 * <h2>Host cost</h2>
 * The fabric's NI has no DMA (the CM-5's is memory-mapped: the processor moves every word), so each node's
 * {@link HostCpu} pays, per {@link io.nicbridge.bridge.cost}: a claim reclaims a send descriptor
 * ({@code DESCRIPTOR_RECLAIM}); a commit copies the payload into the NI ({@code COPY} per byte) and posts the
 * descriptor ({@code DESCRIPTOR_POST}); poll reclaims one receive descriptor and copies the payload out of the NI
 * ({@code COPY} per byte) per frame; release posts the receive slot back. A commit is stamped with
 * {@link HostCpu#now()}: the packet enters the NI send queue at the first cycle at or after that time.
 *
 * <p>Single-threaded: the scheduler's thread steps the fabric and the runner's (in virtual time the same) calls the
 * links. For a fabric stepped by its own thread in real time while node threads call the links, see
 * {@link RealTimeFabric}, which confines both to one lock. Nothing allocates per frame or per cycle after
 * construction (the fabric's own pools aside, which stop growing at the load's peak).
 */
public final class FabricLinks {
    /** Header bytes the framing adds to every frame: one 32-bit word holding the payload length. */
    public static final int FRAMING_BYTES = 4;
    /**
     * Default cycle period: 25 ns, a 40 MHz network clock, the CM-5 data network's (4-bit links at 40 MHz, 20 MB/s
     * per link: Leiserson et al., "The Network Architecture of the Connection Machine CM-5", SPAA 1992). A
     * parameter, not an anchor: the shared reference facts give the NIFDY costs in cycles only.
     */
    public static final long CM5_CYCLE_NANOS = 25;

    private static final long TAG = 0x464CL << 48;
    private static final long TAG_MASK = 0xFFFFL << 48;
    private static final int MAX_NODES = 1 << 24;

    private static final byte FREE = 0;
    private static final byte CLAIMED = 1;
    private static final byte PENDING = 2;
    private static final byte SENT = 3;

    /**
     * @param mtu        payload bytes per frame (1 .. 65535)
     * @param txBuffers  payload store slots per node: frames a node may have claimed, queued or in the network
     * @param rxBuffers  receive slots per node: frames arrived and not yet released
     * @param cycleNanos one fabric cycle in scheduler nanoseconds (>= 1)
     */
    public record Config(int mtu, int txBuffers, int rxBuffers, long cycleNanos) {
        public Config {
            if (mtu < 1 || mtu > 65535) {
                throw new IllegalArgumentException("mtu must be in [1, 65535], was " + mtu);
            }
            if (txBuffers < 1 || txBuffers > 1 << 20 || rxBuffers < 1 || rxBuffers > 1 << 20) {
                throw new IllegalArgumentException("txBuffers and rxBuffers must be in [1, 2^20], were " + txBuffers
                        + ", " + rxBuffers);
            }
            if (cycleNanos < 1) {
                throw new IllegalArgumentException("cycleNanos must be >= 1, was " + cycleNanos);
            }
        }

        /** 256-byte frames, 32 send and 64 receive slots per node, CM-5 clock. */
        public static Config defaults() {
            return new Config(256, 32, 64, CM5_CYCLE_NANOS);
        }
    }

    private final Network network;
    private final Scheduler scheduler;
    private final Config config;
    private final NodeLink[] links;
    private final Timer cycleTimer;
    private long lastCycleNanos = Long.MIN_VALUE;
    private int pendingLinks;  // links with committed frames not yet in their NI queue
    private int refusedLinks;  // links with a refused claim not yet told writable
    private long cyclesStepped;
    private long framesDelivered;
    private long framesDropped;
    private long foreignPackets;
    private final long[] dropsByReason = new long[DropReason.values().length];

    /**
     * Attaches one link endpoint to each of the fabric nodes {@code 0 .. cpus.length-1} and takes over the fabric's
     * {@link Network#listener listener} (for drops).
     *
     * @param cpus one CPU per link node, on {@code scheduler}; the node's runner and core charge the same ones
     */
    public FabricLinks(Network network, Scheduler scheduler, HostCpu[] cpus, Config config) {
        this.network = Objects.requireNonNull(network, "network");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(cpus, "cpus");
        if (cpus.length < 2 || cpus.length > network.nodes() || cpus.length > MAX_NODES) {
            throw new IllegalArgumentException("cpus: one per link node, 2 .. " + network.nodes() + " of them, got "
                    + cpus.length);
        }
        int maxFlits = network.config().networkFlits(network.config().flitsFor(config.mtu() + FRAMING_BYTES));
        if (maxFlits > 1 << 16) {
            throw new IllegalArgumentException("mtu " + config.mtu() + " makes " + maxFlits + "-flit packets");
        }
        links = new NodeLink[cpus.length];
        for (int i = 0; i < cpus.length; i++) {
            links[i] = new NodeLink(i, Objects.requireNonNull(cpus[i], "cpus[" + i + "]"));
        }
        cycleTimer = scheduler.newTimer("fabric.cycle", this::cycle);
        for (NodeLink l : links) {
            network.attach(l.node, l);
        }
        network.listener(new FabricListener() {
            @Override
            public void delivered(PacketRecord packet, long cycle) {
            }

            @Override
            public void dropped(PacketRecord packet, DropReason reason, long cycle) {
                onDrop(packet, reason);
            }
        });
    }

    /** @return node {@code node}'s link */
    public Link link(int node) {
        Objects.checkIndex(node, links.length);
        return links[node];
    }

    /** @return every link, in node order (a runner's input) */
    public Link[] links() {
        Link[] out = new Link[links.length];
        System.arraycopy(links, 0, out, 0, links.length);
        return out;
    }

    public Network network() {
        return network;
    }

    public Config config() {
        return config;
    }

    /** @return payload flits a frame of {@code length} bytes occupies (the checksum flit of drop mode not included) */
    public int payloadFlits(int length) {
        return network.config().flitsFor(length + FRAMING_BYTES);
    }

    /** @return network cycles this medium has stepped (only those with something in flight) */
    public long cyclesStepped() {
        return cyclesStepped;
    }

    /** @return frames whose tail reached their destination's NI (dropped there for want of a slot or not) */
    public long framesDelivered() {
        return framesDelivered;
    }

    /** @return frames the drop-on-block fabric discarded; the senders never learn of them */
    public long framesDropped() {
        return framesDropped;
    }

    /** @return frames the fabric discarded for {@code reason} */
    public long drops(DropReason reason) {
        return dropsByReason[reason.ordinal()];
    }

    /** @return packets that reached a link node without this medium's tag (an experiment's own traffic), ignored */
    public long foreignPackets() {
        return foreignPackets;
    }

    // ------------------------------------------------------------------------------------------ cycle driver

    /**
     * One fabric cycle, at the current grid point: committed frames that are due enter their NI queues, then step.
     * In virtual time the timer fires exactly on the grid; in real time it fires late, and the cycle counts for the
     * grid point it fell into, so the next one is due at the next grid point (at once when stepping took longer
     * than a period: the grid points missed meanwhile are skipped, not caught up).
     */
    private void cycle() {
        long now = scheduler.nanoTime();
        long gridNow = Math.floorDiv(now, config.cycleNanos()) * config.cycleNanos();
        lastCycleNanos = gridNow;
        if (pendingLinks > 0) {
            for (NodeLink l : links) {
                if (l.pendingCount > 0) {
                    l.injectDue(now);
                }
            }
        }
        network.step();
        cyclesStepped++;
        if (refusedLinks > 0) {
            for (NodeLink l : links) {
                if (l.refused != 0 && !l.toldWritable && l.writable()) {
                    l.toldWritable = true;
                    l.signal();
                }
            }
        }
        if (!network.idle()) {
            cycleTimer.armAt(gridNow + config.cycleNanos());
        } else if (pendingLinks > 0) {
            long earliest = Long.MAX_VALUE;
            for (NodeLink l : links) {
                if (l.pendingCount > 0) {
                    earliest = Math.min(earliest, l.txReady[l.pendingQueue[l.pendingHead]]);
                }
            }
            cycleAt(earliest);
        }
    }

    /** A frame becomes due at {@code readyNanos}: make sure a cycle runs at the first grid point at or after it. */
    private void cycleAt(long readyNanos) {
        long period = config.cycleNanos();
        long at = Math.max(readyNanos, scheduler.nanoTime());
        at = Math.ceilDiv(at, period) * period;
        if (lastCycleNanos != Long.MIN_VALUE && at <= lastCycleNanos) {
            at = lastCycleNanos + period; // one fabric cycle per grid point
        }
        if (!cycleTimer.isArmed() || cycleTimer.deadline() > at) {
            cycleTimer.armAt(at);
        }
    }

    private void onDrop(PacketRecord packet, DropReason reason) {
        long id = packet.payloadId();
        if ((id & TAG_MASK) != TAG) {
            return;
        }
        framesDropped++;
        dropsByReason[reason.ordinal()]++;
        links[(int) (id >>> 24) & (MAX_NODES - 1)].sent((int) id & (MAX_NODES - 1));
    }

    // ------------------------------------------------------------------------------------------------ a node

    private final class NodeLink implements Link, Endpoint, PacketClasses {
        private final int node;
        private final String name;
        private final HostCpu cpu;
        private final NodePort port;
        private final PortCounters counters = new PortCounters();

        private final MemorySegment[] txSlot;
        private final byte[] txState;
        private final int[] txPeer;
        private final int[] txClass;
        private final int[] txLength;
        private final long[] txReady;
        private final int[] txFreeStack;
        private int txFreeCount;
        private final int[] reserved = new int[2]; // claimed or pending, per class: not yet in the NI queue
        private final int[] pendingQueue;
        private int pendingHead;
        private int pendingCount;
        private int refused;             // bit per class whose claim was refused since the last onWritable
        private boolean toldWritable;

        private final ReceivedFrames rx;

        private Runnable readiness;
        private boolean closed;

        NodeLink(int node, HostCpu cpu) {
            this.node = node;
            this.name = "fabric" + node;
            this.cpu = cpu;
            this.port = network.port(node);
            int mtu = config.mtu();
            int tx = config.txBuffers();
            int rx = config.rxBuffers();
            MemorySegment txStore = MemorySegment.ofArray(new byte[tx * mtu]);
            txSlot = new MemorySegment[tx];
            txState = new byte[tx];
            txPeer = new int[tx];
            txClass = new int[tx];
            txLength = new int[tx];
            txReady = new long[tx];
            txFreeStack = new int[tx];
            pendingQueue = new int[tx];
            for (int s = 0; s < tx; s++) {
                txSlot[s] = txStore.asSlice((long) s * mtu, mtu);
                txFreeStack[s] = tx - 1 - s;
            }
            txFreeCount = tx;
            MemorySegment rxStore = MemorySegment.ofArray(new byte[rx * mtu]);
            MemorySegment[] rxSlot = new MemorySegment[rx];
            for (int s = 0; s < rx; s++) {
                rxSlot[s] = rxStore.asSlice((long) s * mtu, mtu);
            }
            this.rx = ReceivedFrames.ofSlots(name, rxSlot);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int self() {
            return node;
        }

        @Override
        public int peers() {
            return links.length;
        }

        @Override
        public int mtu() {
            return config.mtu();
        }

        @Override
        public boolean canBroadcast() {
            return false;
        }

        @Override
        public int claim(int peer) {
            return claim(peer, Network.REQUEST);
        }

        @Override
        public int claim(int peer, int packetClass) {
            checkOpen();
            if (peer < 0 || peer >= links.length || peer == node) {
                throw new IllegalArgumentException(name + ": peer must be in [0, " + links.length
                        + ") and not this node (" + node + "); the fabric has no broadcast; was " + peer);
            }
            if (packetClass != Network.REQUEST && packetClass != Network.REPLY) {
                throw new IllegalArgumentException(name + ": packet class must be Network.REQUEST (0) or "
                        + "Network.REPLY (1), was " + packetClass);
            }
            if (txFreeCount == 0 || port.queueFree(packetClass) - reserved[packetClass] <= 0) {
                if (refused == 0) {
                    refusedLinks++;
                }
                refused |= 1 << packetClass;
                toldWritable = false;
                counters.recordTxBackPressure();
                return NONE;
            }
            int s = txFreeStack[--txFreeCount];
            cpu.charge(CostItem.DESCRIPTOR_RECLAIM);
            txState[s] = CLAIMED;
            txPeer[s] = peer;
            txClass[s] = packetClass;
            reserved[packetClass]++;
            return s;
        }

        @Override
        public MemorySegment txBuffer(int txHandle) {
            checkClaimed(txHandle);
            return txSlot[txHandle];
        }

        @Override
        public void commit(int txHandle, int length) {
            checkClaimed(txHandle);
            if (length < 1 || length > config.mtu()) {
                throw new IllegalArgumentException(name + ": frame length must be in [1, " + config.mtu()
                        + "], was " + length);
            }
            cpu.charge(CostItem.COPY, length);
            cpu.charge(CostItem.DESCRIPTOR_POST);
            long ready = cpu.now();
            counters.recordTx(length);
            txState[txHandle] = PENDING;
            txLength[txHandle] = length;
            txReady[txHandle] = ready;
            int tail = pendingHead + pendingCount;
            pendingQueue[tail >= pendingQueue.length ? tail - pendingQueue.length : tail] = txHandle;
            if (pendingCount++ == 0) {
                pendingLinks++;
            }
            cycleAt(ready);
        }

        @Override
        public void abort(int txHandle) {
            checkClaimed(txHandle);
            reserved[txClass[txHandle]]--;
            freeTx(txHandle);
        }

        /** Moves the committed frames due by {@code now} into the NI send queue (room was reserved at claim). */
        void injectDue(long now) {
            while (pendingCount > 0) {
                int s = pendingQueue[pendingHead];
                if (txReady[s] > now) {
                    return;
                }
                pendingHead = pendingHead + 1 == pendingQueue.length ? 0 : pendingHead + 1;
                if (--pendingCount == 0) {
                    pendingLinks--;
                }
                int cls = txClass[s];
                reserved[cls]--;
                long id = TAG | (long) node << 24 | s;
                if (!port.inject(txPeer[s], payloadFlits(txLength[s]), cls, port.cycle(), id)) {
                    throw new IllegalStateException(name + ": NI queue of class " + cls + " full despite the "
                            + "reservation made at claim");
                }
                txState[s] = SENT;
            }
        }

        /** The packet from slot {@code s} left the fabric (delivered or dropped): the slot is free again. */
        void sent(int s) {
            if (txState[s] != SENT) {
                throw new IllegalStateException(name + ": fabric returned store slot " + s + " that is not in flight");
            }
            freeTx(s);
        }

        private void freeTx(int s) {
            txState[s] = FREE;
            txFreeStack[txFreeCount++] = s;
        }

        boolean writable() {
            if (txFreeCount == 0) {
                return false;
            }
            for (int cls = 0; cls < 2; cls++) {
                if ((refused & 1 << cls) != 0 && port.queueFree(cls) - reserved[cls] > 0) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void wake(NodePort port, long cycle) {
            // the links never ask the fabric for wake-ups: their runner is driven by the scheduler
        }

        @Override
        public void deliver(NodePort port, PacketRecord packet, long cycle) {
            long id = packet.payloadId();
            if ((id & TAG_MASK) != TAG) {
                foreignPackets++;
                return;
            }
            framesDelivered++;
            NodeLink from = links[(int) (id >>> 24) & (MAX_NODES - 1)];
            int s = (int) id & (MAX_NODES - 1);
            int r = closed ? ReceivedFrames.NONE : rx.allocate();
            if (r == ReceivedFrames.NONE) {
                counters.recordRxDrop();
            } else {
                int length = from.txLength[s];
                MemorySegment.copy(from.txSlot[s], 0, rx.slot(r), 0, length);
                rx.arrived(r, from.node, length, packet.packetClass());
                if (rx.free() == 0) {
                    port.receiving(false); // no slot left: the NI stops taking flits and the fabric backs up
                }
                signal();
            }
            if (!packet.copyFollows()) { // an NI duplicate reads the sender's slot once more
                from.sent(s);
            }
        }

        @Override
        public int poll(LinkHandler handler, int limit) {
            checkOpen();
            int n = 0;
            int r;
            while (n < limit && (r = rx.next()) != ReceivedFrames.NONE) {
                cpu.charge(CostItem.DESCRIPTOR_RECLAIM);
                cpu.charge(CostItem.COPY, rx.length(r));
                counters.recordRx(rx.length(r));
                n++;
                handler.onFrame(this, r);
            }
            if (refused != 0 && writable()) {
                refused = 0;
                refusedLinks--;
                handler.onWritable(this);
            }
            return n;
        }

        @Override
        public int rxPeer(int rxHandle) {
            checkOpen();
            return rx.peer(rxHandle);
        }

        @Override
        public int rxClass(int rxHandle) {
            checkOpen();
            return rx.tag(rxHandle);
        }

        @Override
        public MemorySegment rxBuffer(int rxHandle) {
            checkOpen();
            return rx.buffer(rxHandle);
        }

        @Override
        public int rxLength(int rxHandle) {
            checkOpen();
            return rx.length(rxHandle);
        }

        @Override
        public void release(int rxHandle) {
            checkOpen();
            rx.checkHeld(rxHandle);
            cpu.charge(CostItem.DESCRIPTOR_POST);
            if (rx.free() == 0) {
                port.receiving(true);
            }
            rx.release(rxHandle);
        }

        @Override
        public void readinessListener(Runnable listener) {
            readiness = listener;
        }

        @Override
        public <C> C capability(Class<C> type) {
            return type == PacketClasses.class ? type.cast(this) : null;
        }

        @Override
        public PortCounters counters() {
            return counters;
        }

        /**
         * Closes this node's side: claims and polls fail from now on, frames still arriving are counted as rxDrops,
         * and frames already committed still go out (they belong to the fabric).
         */
        @Override
        public void close() {
            if (!closed) {
                closed = true;
                port.receiving(true); // a closed node swallows what reaches it rather than blocking the fabric
            }
        }

        private void signal() {
            Runnable r = readiness;
            if (r != null) {
                r.run();
            }
        }

        private void checkOpen() {
            if (closed) {
                throw new IllegalStateException(name + " is closed");
            }
        }

        private void checkClaimed(int h) {
            checkOpen();
            if (h < 0 || h >= txState.length || txState[h] != CLAIMED) {
                throw new IllegalStateException(name + ": transmit handle " + h + " is not claimed by the caller");
            }
        }

        @Override
        public String toString() {
            return "fabric link " + name + ": " + counters + ", " + (config.txBuffers() - txFreeCount)
                    + " store slots busy, " + rx.queued() + " frames waiting";
        }
    }
}
