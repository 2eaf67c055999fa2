package io.nicbridge.bridge.link;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import io.nicbridge.bridge.port.PortCounters;
import io.nicbridge.bridge.port.PortReadiness;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * What every framing of a {@link Link} over a card's {@link FramePort} shares: the {@link PeerTable}, the handle
 * bookkeeping (link handles are the port's handles, so nothing maps or allocates per frame), the misuse checks of
 * {@link Link}'s contract, the writable-again probe and the readiness hand-off. A medium's framing supplies only its
 * header: how it is written ({@link #writeHeader}) and read ({@link #accepts}, {@link #source},
 * {@link #payloadLength}), and where a transmit frame is built ({@link #frameBuffer}, {@link #transmit}).
 *
 * <pre>
 *   port buffer of handle h:   [ header (headerLength bytes) | payload (up to mtu bytes) ...... ]
 *   link txBuffer(h) / rxBuffer(h) = the payload part, a slice made once per handle (the port's buffer of a
 *   handle is the same memory for the port's whole life, true of every driver's rings and buffer RAM)
 * </pre>
 *
 * <h2>Receive</h2>
 * {@link #poll} takes frames from the port; a frame the card flagged (CRC, length, overrun: {@link FrameStatus}) is
 * released and counted as damaged; one of another protocol ({@link #accepts} false) as filtered; one from an
 * address not in the table as from an unknown peer; one that came back from this very station as own; one whose
 * header's length disagrees with the frame as damaged. Only the rest reach {@link LinkHandler#onFrame}.
 *
 * <h2>Host cost</h2>
 * Given its node's CPU ({@link #hostCpu}), the link charges what the host does for each frame, per
 * {@link io.nicbridge.bridge.cost}: a successful claim reclaims a transmit descriptor ({@code DESCRIPTOR_RECLAIM});
 * a commit writes the header ({@code COPY}, {@link #headerLength()} bytes) and posts the descriptor
 * ({@code DESCRIPTOR_POST}), plus what the framing's {@link #chargeTransmit} adds (the Medusa's PIO words); every
 * frame the port hands over is a receive descriptor reclaimed, a frame with a good status has its source looked
 * up ({@code TABLE_LOOKUP}) and its bytes read as {@link #chargeRead} says (nothing for a card that DMAs into host
 * memory), and every frame given back to the port - by {@link #release} or because it was not for this link - is a
 * descriptor posted. The payload bytes are the card's DMA (or the core's own, which it charges). In virtual time the
 * port's commit (the doorbell) waits until the CPU has done the work charged before it ({@link CpuPacedTransmits}).
 * The writable-again probe in {@link #poll} is not charged (a driver looks at its ring's ownership bit anyway).
 *
 * <h2>Readiness</h2>
 * The port's {@link PortReadiness} listener is installed at construction; it only calls the link's readiness
 * listener (from the card's thread, see {@link PortReadiness}). {@link #signalsReadiness()} says whether the port
 * could install it; if not, the runner must poll on a timer.
 *
 * <h2>Ownership</h2>
 * The link does not own the port: {@link #close()} gives back the frames it holds and removes its listener, and
 * the port's owner closes the port. Link counters beyond the port's are single-writer (the link's thread);
 * reading them from another thread is for diagnostics.
 */
public abstract class FramePortLink implements Link {
    private static final int NOT_HELD = -3;

    private final FramePort port;
    private final String name;
    private final PeerTable peers;
    private final int self;
    private final int headerLength;
    private final int mtu;
    private final boolean broadcast;

    private final int[] txPeer;
    private final MemorySegment[] txPayload;
    private final ReceivedFrames rx;
    private final MemorySegment[] rxPayload;
    private final CpuPacedTransmits transmits;
    private HostCpu cpu;
    private boolean wantWritable;
    private boolean closed;
    private volatile Runnable readiness;
    private final boolean signals;

    private long framesDamaged;
    private long framesFiltered;
    private long framesFromUnknownPeers;
    private long ownFrames;

    /**
     * @param port         the card's port, opened and owned by the caller
     * @param peers        the peers' medium addresses
     * @param selfAddress  this station's address, which must be in {@code peers}
     * @param headerLength the framing's header in front of the payload
     * @param txHandles    the port's transmit handles are {@code [0, txHandles)}
     * @param rxHandles    the port's receive handles are {@code [0, rxHandles)}
     * @param broadcast    whether the medium has a broadcast address
     * @throws IllegalArgumentException when this station is not in the table or the port's frames cannot carry a
     *                                  header and one payload byte
     */
    protected FramePortLink(FramePort port, PeerTable peers, long selfAddress, int headerLength, int txHandles,
                            int rxHandles, boolean broadcast) {
        this.port = Objects.requireNonNull(port, "port");
        this.peers = Objects.requireNonNull(peers, "peers");
        this.self = peers.peerOf(selfAddress);
        if (self == PeerTable.UNKNOWN) {
            throw new IllegalArgumentException(port.name() + ": this station's address 0x"
                    + Long.toHexString(selfAddress) + " is not in the peer table");
        }
        if (port.maxFrameLength() <= headerLength) {
            throw new IllegalArgumentException(port.name() + ": frames of " + port.maxFrameLength()
                    + " bytes leave no payload after a " + headerLength + "-byte header");
        }
        this.name = getClass().getSimpleName() + "(" + port.name() + ", peer " + self + " of " + peers.size() + ")";
        this.headerLength = headerLength;
        this.mtu = port.maxFrameLength() - headerLength;
        this.broadcast = broadcast;
        txPeer = new int[txHandles];
        txPayload = new MemorySegment[txHandles];
        rx = ReceivedFrames.ofHandles(name, rxHandles);
        rxPayload = new MemorySegment[rxHandles];
        Arrays.fill(txPeer, NOT_HELD);
        cpu = HostCpu.uncharged(name);
        transmits = new CpuPacedTransmits(name, txHandles, cpu, (h, frameLength, unused) -> transmit(h, frameLength));
        this.signals = port.readinessListener(this::portReady);
    }

    // ------------------------------------------------------------------ what a framing supplies

    /** Writes the header of a frame to {@code peer} ({@link #BROADCAST} possible) carrying {@code payload} bytes. */
    protected abstract void writeHeader(MemorySegment frame, int peer, int payload);

    /** @return true when a received frame of {@code length} bytes belongs to this link's protocol */
    protected abstract boolean accepts(MemorySegment frame, int length);

    /** @return the source address of an accepted frame */
    protected abstract long source(MemorySegment frame);

    /** @return the payload bytes of an accepted frame of {@code length} bytes, or -1 when its header disagrees */
    protected abstract int payloadLength(MemorySegment frame, int length);

    /** @return the memory a claimed frame is built in (header + payload); the port's buffer unless overridden */
    protected MemorySegment frameBuffer(int txHandle) {
        return port.txBuffer(txHandle);
    }

    /**
     * Checks a commit the framing has extra rules for, before anything changes (e.g. a payload already copied to
     * the card fixes the length).
     *
     * @throws IllegalArgumentException when the commit is not acceptable
     */
    protected void checkCommit(int txHandle, int payload) {
    }

    /** Hands the built frame of {@code frameLength} bytes to the port; {@code port.commit} unless overridden. */
    protected void transmit(int txHandle, int frameLength) {
        port.commit(txHandle, frameLength);
    }

    /** Called when a claimed handle goes back unsent (abort or close), for framings that keep per-handle state. */
    protected void forget(int txHandle) {
    }

    /**
     * Charges what the host does to hand a built frame of {@code payload} bytes to the card, beyond the header
     * written (charged already): by default posting one descriptor.
     */
    protected void chargeTransmit(HostCpu cpu, int txHandle, int payload) {
        cpu.charge(CostItem.DESCRIPTOR_POST);
    }

    /**
     * Charges reading {@code bytes} of a received frame where the card left it; nothing by default (the card's DMA put
     * it in host memory). Called with the header's length for a frame that is looked at and dropped, with the whole
     * frame's for one handed up.
     */
    protected void chargeRead(HostCpu cpu, int bytes) {
    }

    /** @return the CPU this link charges (an uncharged one until {@link #hostCpu} is called) */
    protected final HostCpu cpu() {
        return cpu;
    }

    // ------------------------------------------------------------------ Link

    @Override
    public String name() {
        return name;
    }

    @Override
    public int self() {
        checkOpen();
        return self;
    }

    @Override
    public int peers() {
        checkOpen();
        return peers.size();
    }

    @Override
    public int mtu() {
        return mtu;
    }

    @Override
    public boolean canBroadcast() {
        checkOpen();
        return broadcast;
    }

    /** @return the framing's header length in front of every payload */
    public int headerLength() {
        return headerLength;
    }

    /** @return the peer table (peer number to medium address) */
    public PeerTable peerTable() {
        return peers;
    }

    /** @return the medium address of {@code peer} */
    public long address(int peer) {
        return peers.address(peer);
    }

    @Override
    public void hostCpu(HostCpu cpu) {
        checkOpen();
        transmits.cpu(cpu);
        this.cpu = cpu;
    }

    /** @return true when the port signals readiness; false when the runner must poll the link on a timer */
    public boolean signalsReadiness() {
        return signals;
    }

    @Override
    public int claim(int peer) {
        checkOpen();
        if (peer == BROADCAST ? !broadcast : peer < 0 || peer >= peers.size() || peer == self) {
            throw new IllegalArgumentException(name + ": peer must be in [0, " + peers.size() + ") and not this node ("
                    + self + ")" + (broadcast ? ", or BROADCAST" : " (this medium has no broadcast)") + "; was " + peer);
        }
        int h = port.claim();
        if (h == FramePort.NONE) {
            wantWritable = true;
            return NONE;
        }
        if (h >= txPeer.length) {
            port.abort(h);
            throw new IllegalStateException(name + ": the port returned transmit handle " + h + ", outside the "
                    + txPeer.length + " this framing was built for");
        }
        cpu.charge(CostItem.DESCRIPTOR_RECLAIM);
        txPeer[h] = peer;
        return h;
    }

    @Override
    public MemorySegment txBuffer(int txHandle) {
        checkClaimed(txHandle);
        MemorySegment s = txPayload[txHandle];
        if (s == null) {
            s = frameBuffer(txHandle).asSlice(headerLength, mtu); // once per handle, then reused
            txPayload[txHandle] = s;
        }
        return s;
    }

    @Override
    public void commit(int txHandle, int length) {
        checkClaimed(txHandle);
        if (length < 1 || length > mtu) {
            throw new IllegalArgumentException(name + ": payload length must be in [1, " + mtu + "], was " + length);
        }
        checkCommit(txHandle, length);
        int peer = txPeer[txHandle];
        writeHeader(frameBuffer(txHandle), peer, length);
        cpu.charge(CostItem.COPY, headerLength);
        chargeTransmit(cpu, txHandle, length);
        txPeer[txHandle] = NOT_HELD;
        transmits.commit(txHandle, headerLength + length, 0);
    }

    @Override
    public void abort(int txHandle) {
        checkClaimed(txHandle);
        txPeer[txHandle] = NOT_HELD;
        forget(txHandle);
        port.abort(txHandle);
    }

    @Override
    public int poll(LinkHandler handler, int limit) {
        checkOpen();
        Objects.requireNonNull(handler, "handler");
        if (limit < 0) {
            throw new IllegalArgumentException(name + ": limit must be >= 0, was " + limit);
        }
        int n = 0;
        while (n < limit) {
            int h = port.poll();
            if (h == FramePort.NONE) {
                break;
            }
            if (accept(h)) {
                n++;
                handler.onFrame(this, h);
            }
        }
        if (wantWritable) {
            int probe = port.claim();
            if (probe != FramePort.NONE) {
                port.abort(probe);
                wantWritable = false;
                handler.onWritable(this);
            }
        }
        return n;
    }

    /** Classifies a frame the port handed over: true = now held for the handler, false = counted and released. */
    private boolean accept(int h) {
        if (h >= rx.capacity()) {
            port.release(h);
            throw new IllegalStateException(name + ": the port returned receive handle " + h + ", outside the "
                    + rx.capacity() + " this framing was built for");
        }
        cpu.charge(CostItem.DESCRIPTOR_RECLAIM);
        if (!FrameStatus.isOk(port.rxStatus(h))) {
            framesDamaged++;
            giveBack(h);
            return false;
        }
        MemorySegment frame = port.rxBuffer(h);
        int length = port.rxLength(h);
        if (length <= headerLength || !accepts(frame, length)) {
            chargeRead(cpu, Math.min(length, headerLength));
            framesFiltered++;
            giveBack(h);
            return false;
        }
        cpu.charge(CostItem.TABLE_LOOKUP);
        int peer = peers.peerOf(source(frame));
        if (peer == PeerTable.UNKNOWN || peer == self) {
            chargeRead(cpu, headerLength);
            if (peer == self) {
                ownFrames++;
            } else {
                framesFromUnknownPeers++;
            }
            giveBack(h);
            return false;
        }
        int payload = payloadLength(frame, length);
        if (payload < 1 || payload > Math.min(mtu, length - headerLength)) {
            chargeRead(cpu, headerLength);
            framesDamaged++;
            giveBack(h);
            return false;
        }
        chargeRead(cpu, headerLength + payload);
        if (rxPayload[h] == null) {
            rxPayload[h] = frame.asSlice(headerLength); // once per handle, then reused
        }
        rx.hold(h, peer, payload, rxPayload[h]);
        return true;
    }

    /** A frame not for the caller goes straight back to the card: one descriptor posted. */
    private void giveBack(int h) {
        cpu.charge(CostItem.DESCRIPTOR_POST);
        port.release(h);
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
        giveBack(rxHandle);
    }

    @Override
    public void readinessListener(Runnable listener) {
        checkOpen();
        readiness = listener;
    }

    @Override
    public <C> C capability(Class<C> type) {
        checkOpen();
        return null;
    }

    @Override
    public PortCounters counters() {
        return port.counters();
    }

    /** @return frames the card flagged (CRC, length, overrun) or whose header's length was wrong, released */
    public long framesDamaged() {
        return framesDamaged;
    }

    /** @return frames of another protocol (ethertype, frame control) or too short for the header, released */
    public long framesFiltered() {
        return framesFiltered;
    }

    /** @return frames from a source address not in the peer table, released */
    public long framesFromUnknownPeers() {
        return framesFromUnknownPeers;
    }

    /** @return frames this station sent that came back to it (a ring's own frames, a hub's echo), released */
    public long ownFrames() {
        return ownFrames;
    }

    /**
     * Gives every held receive frame and claimed transmit buffer back to the port and removes the readiness
     * listener; the port stays open (its owner closes it). Handles held now are void. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        readiness = null;
        try {
            if (signals) {
                port.readinessListener(null);
            }
            transmits.flush(); // frames committed still go out
            for (int h = 0; h < rx.capacity(); h++) {
                if (rx.isHeld(h)) {
                    rx.release(h);
                    port.release(h);
                }
            }
            for (int h = 0; h < txPeer.length; h++) {
                if (txPeer[h] != NOT_HELD) {
                    txPeer[h] = NOT_HELD;
                    forget(h);
                    port.abort(h);
                }
            }
        } catch (IllegalStateException e) {
            // the port was closed first: its buffers and listener went with it
        }
    }

    @Override
    public String toString() {
        return name + (closed ? " closed" : "") + ": damaged " + framesDamaged + ", filtered " + framesFiltered
                + ", unknown peers " + framesFromUnknownPeers + ", own " + ownFrames;
    }

    // ------------------------------------------------------------------ for framings

    /** @return the port (framings reach their driver's extras through their own typed reference) */
    protected final FramePort port() {
        return port;
    }

    /** @throws IllegalStateException when the link is closed */
    protected final void checkOpen() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    /** @throws IllegalStateException when {@code txHandle} is not claimed through this link (or the link closed) */
    protected final void checkClaimed(int txHandle) {
        checkOpen();
        if (txHandle < 0 || txHandle >= txPeer.length || txPeer[txHandle] == NOT_HELD) {
            throw new IllegalStateException(name + ": transmit handle " + txHandle + " is not claimed by the caller");
        }
    }

    /** The port's readiness, on the card's thread: pass it on, nothing else (allocation-free). */
    private void portReady(int events) {
        Runnable r = readiness;
        if (r != null) {
            r.run();
        }
    }
}
