package io.nicbridge.protocols.sim;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.link.ReceivedFrames;
import io.nicbridge.bridge.port.PortCounters;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * A simulated broadcast medium joining N nodes, each seeing it as a {@link Link}: the medium the simulation tester
 * runs protocol cores over, with faults decided per frame by a {@link FrameFaults}. It needs only a bridge
 * {@link Scheduler}, so it runs in virtual time (deterministically) as well as on a real-time event loop.
 *
 * <p>Each node has {@code txSlots} transmit buffers and {@code rxSlots} receive buffers, like a card's rings. A
 * committed frame keeps its transmit buffer until its last copy has arrived (the wire holds it), then the buffer
 * frees and a node whose claim was refused is told it is writable. A frame arrives
 * {@code latency + length * nanosPerByte} after its commit, never before the previous frame from the same node
 * (frames of one sender stay in order unless a fault delays one), plus whatever delay its fate adds. A frame
 * arriving at a node with no free receive buffer is dropped and counted in that node's rxDrops, as a card with a
 * full receive ring does.
 *
 * <p><b>Host work.</b> Each node's side is a card with descriptor rings, and the node's {@link HostCpu} pays what
 * its driver would (see {@link io.nicbridge.bridge.cost}): a successful {@code claim} reclaims a transmit descriptor
 * and {@code commit} posts it; {@code poll} reclaims one receive descriptor per frame handed up and {@code release}
 * posts it back ({@link CostItem#DESCRIPTOR_RECLAIM}, {@link CostItem#DESCRIPTOR_POST}). Moving the bytes between
 * nodes is the cards' DMA and costs no host time. A committed frame leaves at {@link HostCpu#now()}, the time the
 * sender's CPU has reached, so host work before a send delays it; while a receiver's CPU is busy its runner does not
 * poll, so arrivals wait in its receive buffers, and overflow them.
 *
 * <p>Single-threaded: the scheduler's thread runs the arrivals, and the node's runner calls the links, which in
 * virtual time is the same thread. Nothing allocates after construction.
 */
public final class InMemoryMedium {
    /**
     * @param nodes        peers on the medium, 2 .. 4096
     * @param mtu          payload bytes per frame (>= 1)
     * @param txSlots      transmit buffers per node (>= 1)
     * @param rxSlots      receive buffers per node (>= 1)
     * @param latencyNanos fixed delay of every frame (>= 0)
     * @param nanosPerByte transmission time per payload byte (>= 0); 80 is 100 Mb/s
     */
    public record Config(int nodes, int mtu, int txSlots, int rxSlots, long latencyNanos, long nanosPerByte) {
        public Config {
            if (nodes < 2 || nodes > 4096) {
                throw new IllegalArgumentException("nodes must be in [2, 4096], was " + nodes);
            }
            if (mtu < 1 || txSlots < 1 || rxSlots < 1) {
                throw new IllegalArgumentException("mtu, txSlots and rxSlots must be >= 1, were " + mtu + ", "
                        + txSlots + ", " + rxSlots);
            }
            if (latencyNanos < 0 || nanosPerByte < 0) {
                throw new IllegalArgumentException("latencyNanos and nanosPerByte must be >= 0, were "
                        + latencyNanos + ", " + nanosPerByte);
            }
        }
    }

    private static final byte FREE = 0;
    private static final byte CLAIMED = 1;
    private static final byte FLYING = 2;

    private final Scheduler scheduler;
    private final Config config;
    private final FrameFaults faults;
    private final FrameFate fate = new FrameFate();
    private final Endpoint[] endpoints;
    private final HostCpu[] cpus;
    private long framesCarried;
    private long framesFaulted;
    private long faultDrops;
    private long lastFaultNanos = Long.MIN_VALUE;

    /**
     * @param cpus each node's CPU, {@code config.nodes()} of them (see {@link HostCpu#forNodes}); the node's runner and
     *             core charge the same ones
     */
    public InMemoryMedium(Scheduler scheduler, Config config, FrameFaults faults, HostCpu[] cpus) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.config = Objects.requireNonNull(config, "config");
        this.faults = Objects.requireNonNull(faults, "faults");
        Objects.requireNonNull(cpus, "cpus");
        if (cpus.length != config.nodes()) {
            throw new IllegalArgumentException("cpus: one per node wanted, " + config.nodes() + ", got " + cpus.length);
        }
        this.cpus = cpus.clone();
        for (int i = 0; i < cpus.length; i++) {
            Objects.requireNonNull(cpus[i], "cpus[" + i + "]");
        }
        endpoints = new Endpoint[config.nodes()];
        for (int i = 0; i < endpoints.length; i++) {
            endpoints[i] = new Endpoint(i);
        }
    }

    /** @return node {@code node}'s view of the medium */
    public Link link(int node) {
        Objects.checkIndex(node, endpoints.length);
        return endpoints[node];
    }

    public Config config() {
        return config;
    }

    /** @return frames committed so far (the next frame's index) */
    public long framesCarried() {
        return framesCarried;
    }

    /** @return frames whose fate was not a plain delivery */
    public long framesFaulted() {
        return framesFaulted;
    }

    /** @return frames lost to a {@code drop} fate */
    public long faultDrops() {
        return faultDrops;
    }

    /** @return the time the last faulted frame was committed, or {@link Long#MIN_VALUE} when none was */
    public long lastFaultNanos() {
        return lastFaultNanos;
    }

    private final class Endpoint implements Link {
        private final int self;
        private final String name;
        private final PortCounters counters = new PortCounters();
        private final HostCpu cpu;
        private final MemorySegment txMemory;
        private final MemorySegment[] txBuffer;
        private final byte[] txState;
        private final int[] txPeer;
        private final int[] txLength;
        private final long[] txDuplicateAfter;
        private final int[] txCorruptOffset;
        private final byte[] txCorruptMask;
        private final Timer[] txTimer;
        private int txFree;
        private boolean wantWritable;
        private long lastArrival = Long.MIN_VALUE;

        private final ReceivedFrames rx;
        private Runnable readiness;
        private boolean closed;

        Endpoint(int self) {
            this.self = self;
            this.name = "mem" + self;
            this.cpu = cpus[self];
            int tx = config.txSlots();
            int rx = config.rxSlots();
            int mtu = config.mtu();
            txMemory = MemorySegment.ofArray(new byte[tx * mtu]);
            txBuffer = new MemorySegment[tx];
            txState = new byte[tx];
            txPeer = new int[tx];
            txLength = new int[tx];
            txDuplicateAfter = new long[tx];
            txCorruptOffset = new int[tx];
            txCorruptMask = new byte[tx];
            txTimer = new Timer[tx];
            for (int s = 0; s < tx; s++) {
                txBuffer[s] = txMemory.asSlice((long) s * mtu, mtu);
                int slot = s;
                txTimer[s] = scheduler.newTimer(name + ".tx" + s, () -> arrive(slot));
            }
            txFree = tx;
            MemorySegment rxMemory = MemorySegment.ofArray(new byte[rx * mtu]);
            MemorySegment[] rxSlots = new MemorySegment[rx];
            for (int s = 0; s < rx; s++) {
                rxSlots[s] = rxMemory.asSlice((long) s * mtu, mtu);
            }
            this.rx = ReceivedFrames.ofSlots(name, rxSlots);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int self() {
            return self;
        }

        @Override
        public int peers() {
            return endpoints.length;
        }

        @Override
        public int mtu() {
            return config.mtu();
        }

        @Override
        public boolean canBroadcast() {
            return true;
        }

        @Override
        public int claim(int peer) {
            checkOpen();
            if (peer != BROADCAST && (peer < 0 || peer >= endpoints.length || peer == self)) {
                throw new IllegalArgumentException(name + ": peer must be in [0, " + endpoints.length
                        + "), not this node (" + self + "), or BROADCAST; was " + peer);
            }
            if (txFree == 0) {
                wantWritable = true;
                counters.recordTxBackPressure();
                return NONE;
            }
            for (int s = 0; s < txState.length; s++) {
                if (txState[s] == FREE) {
                    cpu.charge(CostItem.DESCRIPTOR_RECLAIM);
                    txState[s] = CLAIMED;
                    txPeer[s] = peer;
                    txFree--;
                    return s;
                }
            }
            throw new IllegalStateException(name + ": free-buffer count " + txFree + " but no free buffer");
        }

        @Override
        public MemorySegment txBuffer(int txHandle) {
            checkClaimed(txHandle);
            return txBuffer[txHandle];
        }

        @Override
        public void commit(int txHandle, int length) {
            checkClaimed(txHandle);
            if (length < 1 || length > config.mtu()) {
                throw new IllegalArgumentException(name + ": frame length must be in [1, " + config.mtu()
                        + "], was " + length);
            }
            cpu.charge(CostItem.DESCRIPTOR_POST);
            long now = cpu.now(); // the frame leaves when the sender's CPU gets there
            fate.reset();
            faults.decide(framesCarried++, self, txPeer[txHandle], now, fate);
            counters.recordTx(length);
            if (fate.isFault()) {
                framesFaulted++;
                lastFaultNanos = now;
            }
            long arrival = Math.max(now + config.latencyNanos() + length * config.nanosPerByte(), lastArrival);
            lastArrival = arrival;
            if (fate.drop) {
                faultDrops++;
                txState[txHandle] = FREE;
                txFree++;
                return;
            }
            txState[txHandle] = FLYING;
            txLength[txHandle] = length;
            txDuplicateAfter[txHandle] = fate.duplicateAfterNanos;
            txCorruptOffset[txHandle] = fate.corruptOffset;
            txCorruptMask[txHandle] = fate.corruptMask == 0 ? 1 : fate.corruptMask;
            txTimer[txHandle].armAt(arrival + Math.max(0L, fate.extraDelayNanos));
        }

        @Override
        public void abort(int txHandle) {
            checkClaimed(txHandle);
            txState[txHandle] = FREE;
            txFree++;
        }

        @Override
        public int poll(LinkHandler handler, int limit) {
            checkOpen();
            int n = 0;
            int slot;
            while (n < limit && (slot = rx.next()) != ReceivedFrames.NONE) {
                cpu.charge(CostItem.DESCRIPTOR_RECLAIM);
                counters.recordRx(rx.length(slot));
                n++;
                handler.onFrame(this, slot);
            }
            if (wantWritable && txFree > 0) {
                wantWritable = false;
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
            rx.release(rxHandle);
            cpu.charge(CostItem.DESCRIPTOR_POST);
        }

        @Override
        public void readinessListener(Runnable listener) {
            readiness = listener;
        }

        /** The medium charges the CPUs it was built with; a runner must hand its node the same one. */
        @Override
        public void hostCpu(HostCpu given) {
            if (given != cpu) {
                throw new IllegalArgumentException(name + " charges " + cpu.name() + " given to the medium at"
                        + " construction, not " + (given == null ? "null" : given.name()));
            }
        }

        @Override
        public <C> C capability(Class<C> type) {
            return null;
        }

        @Override
        public PortCounters counters() {
            return counters;
        }

        @Override
        public void close() {
            closed = true;
        }

        /** The timer of a flying buffer fired: its (next) copy reaches its destination(s). */
        private void arrive(int slot) {
            int peer = txPeer[slot];
            int corrupt = txCorruptOffset[slot];
            if (peer == BROADCAST) {
                for (Endpoint e : endpoints) {
                    if (e != this) {
                        e.accept(self, txBuffer[slot], txLength[slot], corrupt, txCorruptMask[slot]);
                    }
                }
            } else {
                endpoints[peer].accept(self, txBuffer[slot], txLength[slot], corrupt, txCorruptMask[slot]);
            }
            txCorruptOffset[slot] = -1; // a duplicate is a clean copy
            if (txDuplicateAfter[slot] >= 0) {
                txTimer[slot].armAfter(txDuplicateAfter[slot]);
                txDuplicateAfter[slot] = -1;
                return;
            }
            txState[slot] = FREE;
            txFree++;
            if (wantWritable) {
                signal();
            }
        }

        private void accept(int from, MemorySegment frame, int length, int corruptOffset, byte mask) {
            int slot = closed ? ReceivedFrames.NONE : rx.allocate();
            if (slot == ReceivedFrames.NONE) {
                counters.recordRxDrop();
                return;
            }
            MemorySegment buffer = rx.slot(slot);
            MemorySegment.copy(frame, 0, buffer, 0, length);
            if (corruptOffset >= 0) {
                long at = corruptOffset % length;
                byte b = buffer.get(ValueLayout.JAVA_BYTE, at);
                buffer.set(ValueLayout.JAVA_BYTE, at, (byte) (b ^ mask));
            }
            rx.arrived(slot, from, length, 0);
            signal();
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
            return "in-memory link " + name + ": " + counters;
        }
    }
}
