package io.nicbridge.bridge.port;

import io.nicbridge.bridge.memory.BufferPool;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.spi.InterruptLine;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Two {@link FramePort}s joined back to back in one {@link CommSegment}: what one commits, the other
 * receives, in the same buffer (zero copies). It has no card behind it; it is the reference
 * implementation of the port contract and a wire for protocol tests.
 *
 * <p>Each direction is a buffer pool plus a single-producer/single-consumer ring of frame entries:
 * <pre>
 *  ring (carved, 64-byte aligned)
 *  +0    +8             +64   +72            +128
 *  | tail (u64) | pad... | head (u64) | pad... | entry 0 | entry 1 | ... | entry cap-1 |
 *  tail: frames published by the sender (free-running)   entry (8 bytes, native order):
 *  head: frames taken by the receiver (free-running)     +0 buffer index (s32)  +4 length (s32)
 *
 *  pool: n buffers of maxFrameLength bytes, 64-byte stride alignment (BufferPool)
 * </pre>
 * Ownership handoff: the sender writes the frame into its claimed buffer and the entry with plain
 * stores, then publishes {@code tail + 1} with a volatile store (release + store-load fence, so the
 * wake-up check that follows cannot miss a receiver that is going to sleep); the receiver reads
 * {@code tail} with acquire before reading the entry and the buffer. The buffer returns to the pool on
 * {@link #release(int)}; the pool's atomic bitmap orders the receiver's reads before the next claim.
 * A ring never overflows: it has at least as many entries as the pool has buffers.
 */
public final class LoopbackFramePort implements FramePort {
    private static final long TAIL = 0;
    private static final long HEAD = 64;
    private static final long ENTRIES = 128;
    private static final int ENTRY = 8;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private static final byte TX_FREE = 0;
    private static final byte TX_CLAIMED = 1;

    private final String name;
    private final int maxFrameLength;
    private final PortCounters counters = new PortCounters();
    private final InterruptLine rxLine;
    /** Sender side: buffers and ring of the direction this port sends on. */
    private final BufferPool txPool;
    private final MemorySegment txRing;
    private final int txMask;
    private final byte[] txState;
    private long txTail;
    /** Receiver side: the peer's sending direction. */
    private final BufferPool rxPool;
    private final MemorySegment rxRing;
    private final int rxMask;
    private final int[] rxLength;
    private final boolean[] rxHeld;
    private long rxHead;
    private LoopbackFramePort peer;
    private volatile boolean closed;

    private LoopbackFramePort(String name, int maxFrameLength, BufferPool txPool, MemorySegment txRing,
                              BufferPool rxPool, MemorySegment rxRing) {
        this.name = name;
        this.maxFrameLength = maxFrameLength;
        this.rxLine = new InterruptLine(name + " rx");
        this.txPool = txPool;
        this.txRing = txRing;
        this.txMask = ringCapacity(txPool.capacity()) - 1;
        this.txState = new byte[txPool.capacity()];
        this.rxPool = rxPool;
        this.rxRing = rxRing;
        this.rxMask = ringCapacity(rxPool.capacity()) - 1;
        this.rxLength = new int[rxPool.capacity()];
        this.rxHeld = new boolean[rxPool.capacity()];
    }

    /** Both ends of a loopback link. Closing the pair closes both ports (not the comm segment). */
    public record Pair(LoopbackFramePort a, LoopbackFramePort b) implements AutoCloseable {
        @Override
        public void close() {
            a.close();
            b.close();
        }
    }

    /** @return bytes of comm segment {@link #pair} carves for these parameters */
    public static long requiredBytes(int buffersPerDirection, int maxFrameLength) {
        checkParameters(buffersPerDirection, maxFrameLength);
        long ring = ENTRIES + (long) ringCapacity(buffersPerDirection) * ENTRY;
        long stride = ((long) maxFrameLength + 63) & -64L;
        long direction = 64 + ring + 64 + stride * buffersPerDirection; // worst-case alignment padding included
        return 2 * direction;
    }

    /**
     * Carves two directions from {@code comm} and returns the joined ports.
     *
     * @param buffersPerDirection frames that may be in flight or held per direction, in [1, 65536]
     * @param maxFrameLength      bytes per buffer, in [1, 1 MiB]
     */
    public static Pair pair(String name, CommSegment comm, int buffersPerDirection, int maxFrameLength) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(comm, "comm");
        checkParameters(buffersPerDirection, maxFrameLength);
        long ringBytes = ENTRIES + (long) ringCapacity(buffersPerDirection) * ENTRY;
        MemorySegment ringAb = comm.carve(ringBytes, 64);
        MemorySegment ringBa = comm.carve(ringBytes, 64);
        BufferPool poolAb = comm.carvePool(name + " a->b", buffersPerDirection, maxFrameLength, 64);
        BufferPool poolBa = comm.carvePool(name + " b->a", buffersPerDirection, maxFrameLength, 64);
        LoopbackFramePort a = new LoopbackFramePort(name + ".a", maxFrameLength, poolAb, ringAb, poolBa, ringBa);
        LoopbackFramePort b = new LoopbackFramePort(name + ".b", maxFrameLength, poolBa, ringBa, poolAb, ringAb);
        a.peer = b;
        b.peer = a;
        VarHandle.releaseFence(); // peers are final in effect; callers publish the pair to their threads
        return new Pair(a, b);
    }

    private static void checkParameters(int buffers, int maxFrameLength) {
        if (buffers < 1 || buffers > 65536) {
            throw new IllegalArgumentException("loopback: buffers per direction must be in [1, 65536], was " + buffers);
        }
        if (maxFrameLength < 1 || maxFrameLength > (1 << 20)) {
            throw new IllegalArgumentException("loopback: max frame length must be in [1, 1048576], was "
                + maxFrameLength);
        }
    }

    private static int ringCapacity(int buffers) {
        return Integer.highestOneBit(buffers) == buffers ? buffers : Integer.highestOneBit(buffers) << 1;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int maxFrameLength() {
        return maxFrameLength;
    }

    /** @return the line that goes high when a frame is waiting for this port (level; see {@link #await}) */
    public InterruptLine rxInterrupt() {
        return rxLine;
    }

    // ------------------------------------------------------------------ send

    @Override
    public int claim() {
        checkOpen();
        int h = txPool.claim();
        if (h == BufferPool.NONE) {
            counters.recordTxBackPressure();
            return NONE;
        }
        txState[h] = TX_CLAIMED;
        return h;
    }

    @Override
    public MemorySegment txBuffer(int handle) {
        checkClaimed(handle);
        return txPool.buffer(handle);
    }

    @Override
    public void commit(int handle, int length) {
        checkClaimed(handle);
        if (length < 1 || length > maxFrameLength) {
            throw new IllegalArgumentException("port '" + name + "': frame length " + length + " is outside [1, "
                + maxFrameLength + "]");
        }
        txState[handle] = TX_FREE;
        LoopbackFramePort to = peer;
        if (to.closed) {
            txPool.release(handle);
            counters.recordTxDrop();
            return;
        }
        long tail = txTail;
        long slot = ENTRIES + (tail & txMask) * ENTRY;
        txRing.set(ValueLayout.JAVA_INT, slot, handle);
        txRing.set(ValueLayout.JAVA_INT, slot + 4, length);
        // Handoff: frame bytes and entry above are plain stores; this volatile store publishes them.
        txTail = tail + 1;
        LONG.setVolatile(txRing, TAIL, tail + 1);
        counters.recordTx(length);
        to.rxLine.raise();
    }

    @Override
    public void abort(int handle) {
        checkClaimed(handle);
        txState[handle] = TX_FREE;
        txPool.release(handle);
    }

    // ------------------------------------------------------------------ receive

    @Override
    public int poll() {
        checkOpen();
        long head = rxHead;
        if (head == (long) LONG.getAcquire(rxRing, TAIL)) { // acquire: pairs with the sender's publish
            return NONE;
        }
        long slot = ENTRIES + (head & rxMask) * ENTRY;
        int h = rxRing.get(ValueLayout.JAVA_INT, slot);
        int length = rxRing.get(ValueLayout.JAVA_INT, slot + 4);
        rxHead = head + 1;
        LONG.setRelease(rxRing, HEAD, head + 1);
        rxLength[h] = length;
        rxHeld[h] = true;
        counters.recordRx(length);
        return h;
    }

    @Override
    public int await(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            int h = poll();
            if (h != NONE) {
                return h;
            }
            // Lower the line, then look again: a frame published before the lower is seen by this poll,
            // one published after it raises the line again (both sides are volatile: no lost wake-up).
            rxLine.lower();
            VarHandle.fullFence();
            h = poll();
            if (h != NONE) {
                return h;
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0 || !rxLine.await(remaining, TimeUnit.NANOSECONDS)) {
                return poll();
            }
        }
    }

    @Override
    public MemorySegment rxBuffer(int handle) {
        checkHeld(handle);
        return rxPool.buffer(handle);
    }

    @Override
    public int rxLength(int handle) {
        checkHeld(handle);
        return rxLength[handle];
    }

    @Override
    public int rxStatus(int handle) {
        checkHeld(handle);
        return FrameStatus.OK; // a loopback neither corrupts nor truncates
    }

    @Override
    public void release(int handle) {
        checkHeld(handle);
        rxHeld[handle] = false;
        rxPool.release(handle);
    }

    @Override
    public PortCounters counters() {
        return counters;
    }

    @Override
    public void close() {
        closed = true;
        rxLine.raise(); // wake a receiver parked in await so it sees the close
    }

    public boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("port '" + name + "' is closed");
        }
    }

    /** Handles die with the port: after close a handle claimed before it sends nothing. */
    private void checkClaimed(int handle) {
        checkOpen();
        if (handle < 0 || handle >= txState.length || txState[handle] != TX_CLAIMED) {
            throw new IllegalStateException("port '" + name + "': TX handle " + handle + " is not claimed");
        }
    }

    private void checkHeld(int handle) {
        checkOpen();
        if (handle < 0 || handle >= rxHeld.length || !rxHeld[handle]) {
            throw new IllegalStateException("port '" + name + "': RX handle " + handle
                + " is not a received frame held by the caller");
        }
    }

    @Override
    public String toString() {
        return "LoopbackFramePort[" + name + ", " + counters + "]";
    }
}
