package io.nicbridge.bridge.link;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.port.PortCounters;
import java.lang.foreign.MemorySegment;

/**
 * The card-independent link a protocol core talks through: frames of at most {@link #mtu()} payload bytes to and
 * from peers named by small integers {@code 0 .. peers()-1} ({@link #self()} is one of them), whatever the medium
 * underneath. A framing maps the peer numbers onto the medium's addresses and puts its own header in front of the
 * payload, so the core sees only payload bytes, and all handles are ints so that nothing allocates per frame.
 *
 * <h2>Send: claim, fill, commit (or abort)</h2>
 * <pre>
 *   int h = link.claim(peer);              // NONE = no buffer/descriptor free: back-pressure; onWritable follows
 *   MemorySegment b = link.txBuffer(h);    // mtu() bytes, filled in place (in the card's comm segment)
 *   link.commit(h, length);                // the frame belongs to the link now; h is void
 * </pre>
 * A claimed buffer that is not to be sent goes back with {@link #abort(int)}. {@link #BROADCAST} as the peer sends
 * to every other peer, where {@link #canBroadcast()} says the medium has it. A committed frame may still be lost
 * by the medium (a lossy wire, a fabric that drops on block, a full receiver): delivery is not promised, which is
 * why reliable protocols exist; a link never reports such a loss to the sender, and counts what it sees of it.
 *
 * <h2>Receive: poll, in place, release</h2>
 * {@link #poll(LinkHandler, int)} hands each arrived frame to {@link LinkHandler#onFrame} in place, and calls
 * {@link LinkHandler#onWritable} once when a claim had been refused and a buffer has come free since. Frames the
 * medium itself finds damaged (a card's CRC error, a runt, a U-Net descriptor error) are counted and never
 * delivered; a frame whose damage the medium missed is the core's to detect (its own checksum).
 *
 * <h2>Readiness</h2>
 * A runner that sleeps between polls registers a {@link #readinessListener(Runnable) readiness listener}: the
 * link calls it (from whatever thread the medium runs on: a card's engine thread, the virtual scheduler) when a
 * frame has arrived or the link has become writable, and the runner then polls on its own thread. In virtual time
 * the listener schedules the node's poll as an event; in real time it wakes the node's {@code EventLoop}.
 *
 * <h2>Threads</h2>
 * One thread sends and receives (the core's thread), as for a single-threaded core; only the readiness
 * listener runs elsewhere and must be cheap and allocation-free.
 *
 * <h2>Misuse</h2>
 * {@link IllegalStateException} for a handle the caller does not hold (never claimed, already committed, aborted or
 * released), or any call but {@link #name()}, {@link #mtu()}, {@link #counters()} and {@link #close()} after close;
 * {@link IllegalArgumentException} for a peer outside {@code [0, peers())} (or {@link #BROADCAST} without
 * broadcast), sending to {@link #self()}, or a length outside {@code [1, mtu()]}. A misuse changes nothing.
 *
 * <h2>How each medium implements it (the framings)</h2>
 * <ul>
 *   <li><b>DEC 21140 Ethernet</b> (emulated and shim), on its {@code FramePort}
 *       ({@code io.nicbridge.bridge.driver.tulip.TulipLink}): peer i = the i-th MAC of a table given at setup; a
 *       16-byte header in front of the payload - Ethernet II (DA, SA, an ethertype chosen per protocol) and the
 *       payload's length, because Ethernet II has none and frames under 60 bytes arrive padded - so
 *       {@code mtu() = 1498}; {@code txBuffer} is a slice of the claimed TX descriptor's buffer after the header;
 *       receive filters on the ethertype and maps SA back to a peer (unknown SA or ethertype: counted, released, not
 *       delivered); broadcast = DA ff:ff:ff:ff:ff:ff; readiness from the port's {@code PortReadiness} (RI, TI/TU).</li>
 *   <li><b>Medusa FDDI</b> ({@code io.nicbridge.bridge.driver.medusa.MedusaLink}): peer i = the i-th station
 *       address; FC + DA + SA (13 bytes) in front, {@code mtu()} = the driver's largest frame less that; the card
 *       has no DMA, so {@code txBuffer} is host memory and {@code commit} is the host's PIO copy into the card's
 *       buffer RAM; {@code capability(MedusaSingleCopy.class)} exposes the single-copy PIO send with the checksum
 *       computed during the copy, which the careful protocol depends on; broadcast = the FDDI broadcast
 *       address.</li>
 *   <li><b>U-Net (SBA-200, and U-Net over Ethernet)</b>: peer i = the channel to peer i (one channel per peer, set
 *       up by the kernel driver), so there is no header at all: the channel tag names the peer; payloads up to 40
 *       bytes go as inline sends (one ATM cell, no buffer in the comm segment) and longer ones through a claimed
 *       comm-segment buffer, the framing choosing at {@code commit}; receive is in place from the receive queue,
 *       one frame held at a time (the queue is consumed in order), and readiness uses the U-Net signal that does
 *       not consume the message; no broadcast ({@link #canBroadcast()} false):
 *       {@link io.nicbridge.bridge.driver.unet.UnetLink}.</li>
 *   <li><b>MPP fabric</b> (NIFDY, idempotent messaging): peer i = fabric node i; a packet carries the payload as
 *       real bytes plus its request/reply class; a packet the fabric drops (drop-on-block) is invisible to the
 *       sender as in the hardware, and counted for the experiment's accounting; no broadcast: sim-hardware's
 *       {@code io.nicbridge.sim.fabric.link.FabricLinks} (classes through its {@code PacketClasses}
 *       capability).</li>
 * </ul>
 * Medium-specific extras reach a core through {@link #capability(Class)}, never through a cast. The framings over a
 * card's {@code FramePort} share their peer table, handle bookkeeping and misuse checks in {@link FramePortLink}.
 */
public interface Link extends AutoCloseable {
    /** The "no handle" result of {@link #claim}. */
    int NONE = -1;
    /** The peer address meaning "every other peer", where {@link #canBroadcast()}. */
    int BROADCAST = -2;

    String name();

    /** @return this node's own peer number */
    int self();

    /** @return the number of peer numbers, {@link #self()} included */
    int peers();

    /** @return the most payload bytes one frame carries (the medium's frame less the framing's header) */
    int mtu();

    /** @return true when {@link #BROADCAST} is a valid destination */
    boolean canBroadcast();

    /**
     * @return a TX handle the caller now owns, or {@link #NONE} when no buffer is free (back-pressure: the handler's
     *     {@link LinkHandler#onWritable} follows when one is)
     * @throws IllegalArgumentException for a bad peer (see Misuse)
     */
    int claim(int peer);

    /** @return the claimed handle's buffer, {@link #mtu()} bytes, to fill in place */
    MemorySegment txBuffer(int txHandle);

    /** Sends the first {@code length} bytes of the claimed buffer to the peer named at claim. */
    void commit(int txHandle, int length);

    /** Returns a claimed buffer unsent. */
    void abort(int txHandle);

    /**
     * Hands up to {@code limit} arrived frames to {@code handler}, then calls its {@code onWritable} if a claim was
     * refused and a buffer has come free since.
     *
     * @return the number of frames handed over
     */
    int poll(LinkHandler handler, int limit);

    /** @return the peer a received frame came from */
    int rxPeer(int rxHandle);

    /** @return the received frame's buffer; its payload is {@code [0, rxLength(rxHandle))} */
    MemorySegment rxBuffer(int rxHandle);

    int rxLength(int rxHandle);

    /** Gives a received buffer back to the medium. */
    void release(int rxHandle);

    /**
     * Sets the listener told when there may be something to {@link #poll} (a frame arrived, or the link became
     * writable after a refused claim). Setup-time; {@code null} removes it.
     */
    void readinessListener(Runnable listener);

    /**
     * Gives the link its node's CPU, the one the node's runner and core charge: from now on the framing charges it
     * the host work it does (descriptors posted and reclaimed, header and inline bytes copied, PIO words, address
     * lookups: the rules of {@link io.nicbridge.bridge.cost}), and in virtual time a committed frame reaches the card
     * when that CPU gets there ({@link HostCpu#now()}). A runner calls this once per node at setup, before the first
     * claim or poll. A link never given a CPU charges nothing.
     *
     * <p>The default does nothing: for a link whose medium charges the CPUs it was built with (the in-memory medium,
     * the fabric) or that does no host work of its own.
     */
    default void hostCpu(HostCpu cpu) {
    }

    /**
     * @return true when the medium fills its receive buffers in a fixed order and stops at one the host still holds
     *     (a descriptor ring, a receive queue): a received frame kept unreleased stops all reception once the medium
     *     comes round to its buffer, however many other buffers are free. A core that keeps frames until its
     *     application takes them must copy them out at once on such a link (a driver does the same: Linux's tulip
     *     copies or swaps every received buffer). False (the default) when buffers come back in any order and each
     *     free one takes a frame (the Medusa's buffer status table, the in-memory medium, the fabric's queues).
     */
    default boolean receivesInOrder() {
        return false;
    }

    /**
     * @return the medium-specific extension of the given type (e.g. the Medusa's PIO send with checksum), or
     *     {@code null} when this link's medium has none
     */
    <C> C capability(Class<C> type);

    PortCounters counters();

    @Override
    void close();
}
