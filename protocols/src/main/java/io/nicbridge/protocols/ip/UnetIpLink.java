package io.nicbridge.protocols.ip;

import io.nicbridge.bridge.driver.unet.UnetGather;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.protocols.ip.IpCounters.Counter;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * IP over U-Net (paper 7.1 and 7.5): the {@link IpLink} of a U-Net {@link Link} - the emulated SBA-200's, or U-Net
 * over Ethernet's on the shim - whose peers are the endpoint's channels. "For IP-over-U-Net a single channel is used
 * to carry all IP traffic between two applications": each peer's IPv4 address is bound to its channel at setup
 * ({@link #route}), so the channel is the route and there is no ARP; a datagram is one AAL5 PDU with nothing in front
 * of it ({@link #header()} 0), and the link's buffers bound the MTU ({@link Ipv4Stack#UNET_MTU}, 9 KB, when the link
 * was built with buffers that large).
 *
 * <h2>Scatter-gather</h2>
 * When the U-Net link offers {@link UnetGather} and a {@link SharedBuffers} pool lies in its endpoint's
 * communication segment ({@link #sharedBuffers}), a datagram's head (the IPv4 and transport headers, written in the
 * claimed buffer) goes out with up to five of the pool's blocks gathered after it by the card: each attached block
 * gains a reference, dropped when the card has completed the send (paper 7.3's reference counts).
 *
 * <h2>Receive</h2>
 * Every frame is a datagram (liberal receive: the stack checks the IPv4 header as on Ethernet); its arrival
 * channel - the peer number - is passed to the transports ({@link Ipv4Stack#arrivalChannel()}) for their
 * demultiplexing. A runner that polls the U-Net link itself (a {@code NodeRunner} with a core wrapping the stack)
 * hands each frame to {@link #deliver}; otherwise {@link Ipv4Stack#poll} polls the link.
 */
public final class UnetIpLink implements IpLink, LinkHandler {
    private final Link link;
    private final UnetGather gather;
    private final int[] routeAddress;
    private final int[] routePeer;
    private int routes;
    private Ipv4Stack stack;
    private IpCounters counters;
    private SharedBuffers shared;
    private long pollNanos;

    /**
     * @param link a U-Net link (its peers are channels), or any other {@link Link} used the same way, one peer number
     *             per route and never its broadcast (the simulation tester runs IP so on every medium it has, the
     *             in-memory one and the emulated cards' framings: {@code dst.TcpNode}); this adapter is its only user
     */
    public UnetIpLink(Link link) {
        this.link = Objects.requireNonNull(link, "link");
        this.gather = link.capability(UnetGather.class);
        routeAddress = new int[link.peers()];
        routePeer = new int[link.peers()];
        Arrays.fill(routePeer, -1);
    }

    /**
     * Binds {@code address} to the channel to {@code peer} (setup-time): datagrams to it go on that channel.
     *
     * @throws IllegalArgumentException for a peer outside the link, this node, or an address or peer bound already
     */
    public UnetIpLink route(int address, int peer) {
        if (peer < 0 || peer >= link.peers() || peer == link.self()) {
            throw new IllegalArgumentException(link.name() + ": peer must be in [0, " + link.peers() + ") and not this"
                + " node (" + link.self() + "), was " + peer);
        }
        for (int i = 0; i < routes; i++) {
            if (routeAddress[i] == address || routePeer[i] == peer) {
                throw new IllegalArgumentException(link.name() + ": " + Ipv4Address.toString(address) + " or peer "
                    + peer + " is routed already");
            }
        }
        routeAddress[routes] = address;
        routePeer[routes] = peer;
        routes++;
        return this;
    }

    /**
     * Names the pool of data blocks this link gathers from (setup-time): it must lie in the endpoint's communication
     * segment, the memory the card reads. Its blocks' references are dropped as the card completes their sends.
     *
     * @throws IllegalStateException    when the link has no scatter-gather, or a pool is set already
     * @throws IllegalArgumentException when the pool lies outside the communication segment
     */
    public UnetIpLink sharedBuffers(SharedBuffers buffers) {
        Objects.requireNonNull(buffers, "buffers");
        if (gather == null) {
            throw new IllegalStateException(link.name() + " offers no scatter-gather send (UnetGather)");
        }
        if (shared != null) {
            throw new IllegalStateException(link.name() + ": a shared buffer pool is set already");
        }
        if (buffers.segmentOffsetIn(gather.segment()) < 0) {
            throw new IllegalArgumentException(buffers + " does not lie in the communication segment of "
                + link.name());
        }
        shared = buffers;
        gather.completionListener(buffers::release);
        return this;
    }

    @Override
    public void attach(Ipv4Stack stack) {
        if (this.stack != null) {
            throw new IllegalStateException(link.name() + " serves a stack already");
        }
        this.stack = stack;
        this.counters = stack.counters();
    }

    public Link link() {
        return link;
    }

    @Override
    public int header() {
        return 0;
    }

    @Override
    public int maxDatagram() {
        return Math.min(link.mtu(), 65535);
    }

    @Override
    public long mac() {
        return 0;
    }

    // ---------------------------------------------------------------------------------------------------- send

    @Override
    public int claim(int destination, long nowNanos) {
        int peer = -1;
        for (int i = 0; i < routes; i++) {
            if (routeAddress[i] == destination) {
                peer = routePeer[i];
                break;
            }
        }
        if (peer < 0) {
            return Ipv4Stack.NO_ROUTE;
        }
        int h = link.claim(peer);
        return h == Link.NONE ? Ipv4Stack.NO_BUFFER : h;
    }

    @Override
    public MemorySegment txBuffer(int handle) {
        return link.txBuffer(handle);
    }

    @Override
    public void commit(int handle, int headBytes) {
        link.commit(handle, headBytes);
    }

    @Override
    public void abort(int handle) {
        link.abort(handle);
    }

    @Override
    public int gatherLimit(SharedBuffers buffers) {
        return buffers != null && buffers == shared ? UnetGather.MAX_ATTACHED : 0;
    }

    @Override
    public void attach(int handle, SharedBuffers buffers, int buffer, int length) {
        if (gatherLimit(buffers) == 0) {
            throw new IllegalStateException(link.name() + ": " + buffers + " is not this link's shared pool");
        }
        buffers.checkLength(buffer, length);
        buffers.retain(buffer); // the card's reference, dropped by the completion listener (or at once on abort)
        try {
            gather.attach(handle, buffers.offset(buffer), length, buffer);
        } catch (RuntimeException e) {
            buffers.release(buffer);
            throw e;
        }
    }

    // ---------------------------------------------------------------------------------------------------- receive

    @Override
    public int poll(int limit, long nowNanos) {
        pollNanos = nowNanos;
        return link.poll(this, limit);
    }

    /** {@link LinkHandler}: a frame of {@link #poll}, delivered with the poll's time. */
    @Override
    public void onFrame(Link from, int rxHandle) {
        deliver(from, rxHandle, pollNanos);
    }

    @Override
    public void onWritable(Link from) {
        // UDP keeps nothing to retry: a refused claim is the application's back-pressure, which it retries itself
    }

    /** Hands the received frame {@code rxHandle} of {@code from} (this adapter's link) to the stack and releases it. */
    public void deliver(Link from, int rxHandle, long nowNanos) {
        try {
            counters.increment(Counter.RX_FRAMES);
            stack.deliver(from.rxBuffer(rxHandle), 0, from.rxLength(rxHandle), from.rxPeer(rxHandle), nowNanos);
        } finally {
            from.release(rxHandle);
        }
    }

    @Override
    public void receive(MemorySegment frame, int length, long nowNanos) {
        counters.increment(Counter.RX_FRAMES);
        if (length < 0 || length > frame.byteSize()) {
            counters.increment(Counter.RX_TRUNCATED);
            return;
        }
        stack.deliver(frame, 0, length, Ipv4Stack.NO_CHANNEL, nowNanos);
    }

    @Override
    public String toString() {
        return "U-Net " + link.name();
    }
}
