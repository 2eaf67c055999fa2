package io.nicbridge.sim.fabric;

/**
 * A node's network-interface port: the one object an {@link Endpoint} (traffic generator, trace engine, NIFDY or
 * idempotent-messaging core) uses to talk to the fabric. One per node, created with the {@link Network}.
 *
 * <p>Sending: {@link #inject} puts a packet in the NI send queue of its class (request or reply); the NI injects
 * one flit per cycle per injection link, alternating between the classes. {@link #send} does the same after
 * charging the processor's send overhead: the packet becomes eligible when the processor has finished.
 * A full queue is back-pressure: the call returns {@code false} and nothing is queued.
 *
 * <p>Receiving: the NI consumes one flit per cycle per ejection link from the VCs of the classes whose receiving
 * is on, and calls {@link Endpoint#deliver} at the tail. Turning a class off models a processor that does not
 * poll it: that class's ejection VCs fill and back-pressure reaches into the network (in drop mode the blocked
 * heads at the last router are dropped, counted as {@link DropReason#EJECT_BLOCKED}), while the other class, on
 * its own VCs, keeps flowing - the separate request/reply networks that avoid fetch deadlock. An endpoint that
 * models polling keeps delivered packets in its own queue and charges {@link ProcessorModel#pollEmpty()} /
 * {@link ProcessorModel#receiveOverhead()} through {@link #chargeProcessor(long)}.
 */
public final class NodePort {
    private final Network network;
    private final int node;

    NodePort(Network network, int node) {
        this.network = network;
        this.node = node;
    }

    public int node() {
        return node;
    }

    public Network network() {
        return network;
    }

    /** Current cycle. */
    public long cycle() {
        return network.cycle();
    }

    /**
     * Queues a packet for injection now.
     *
     * @param dst          destination node
     * @param payloadFlits flits of payload (the network adds a checksum flit in drop mode)
     * @param cls          {@link Network#REQUEST} or {@link Network#REPLY}
     * @param createdCycle when the packet was created (latency is measured from here, source queueing included)
     * @param payloadId    opaque id handed back on delivery
     * @return false if the NI send queue of that class is full (nothing queued)
     * @throws IllegalArgumentException for a bad destination, class or length
     */
    public boolean inject(int dst, int payloadFlits, int cls, long createdCycle, long payloadId) {
        return network.inject(node, dst, payloadFlits, cls, createdCycle, payloadId, network.cycle());
    }

    /**
     * Like {@link #inject}, after charging the processor's send overhead: the NI may start the packet only at
     * the cycle the processor finishes sending it. Charges nothing when the queue is full.
     */
    public boolean send(int dst, int payloadFlits, int cls, long createdCycle, long payloadId) {
        if (network.queueFree(node, checkClass(cls)) == 0) {
            return false;
        }
        long ready = network.chargeProcessor(node, network.config().processor().sendOverhead());
        return network.inject(node, dst, payloadFlits, cls, createdCycle, payloadId, ready);
    }

    /** Free slots in this node's NI send queue of class {@code cls}. */
    public int queueFree(int cls) {
        return network.queueFree(node, checkClass(cls));
    }

    /** Asks for {@link Endpoint#wake} at {@code cycle} (clamped to now); an earlier pending request wins. */
    public void wakeAt(long cycle) {
        network.wakeAt(node, cycle);
    }

    /** Cycle of the pending wake-up, or {@link Network#NEVER}. */
    public long wakePending() {
        return network.wakePending(node);
    }

    /** Turns flit consumption from the ejection buffers on or off for both classes (on initially). */
    public void receiving(boolean on) {
        network.receiving(node, Network.REQUEST, on);
        network.receiving(node, Network.REPLY, on);
    }

    /** Turns flit consumption of class {@code cls} on or off. */
    public void receiving(int cls, boolean on) {
        network.receiving(node, checkClass(cls), on);
    }

    public boolean receiving(int cls) {
        return network.receiving(node, checkClass(cls));
    }

    /** The processor cost model of this fabric. */
    public ProcessorModel processor() {
        return network.config().processor();
    }

    /** First cycle at which the processor is free (never before now). */
    public long processorFreeAt() {
        return network.processorFreeAt(node);
    }

    /**
     * Occupies the processor for {@code cycles} more cycles, starting when it is next free; returns the cycle it
     * becomes free again. Endpoints charge receive overhead and polls through this.
     */
    public long chargeProcessor(long cycles) {
        return network.chargeProcessor(node, cycles);
    }

    private static int checkClass(int cls) {
        if (cls != Network.REQUEST && cls != Network.REPLY) {
            throw new IllegalArgumentException("class must be Network.REQUEST (0) or Network.REPLY (1), got " + cls);
        }
        return cls;
    }

    @Override
    public String toString() {
        return "NodePort[" + node + "]";
    }
}
