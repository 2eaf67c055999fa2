package io.nicbridge.bench.unet.real;

import io.nicbridge.bridge.driver.unet.Endpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.driver.unet.UnetLink;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimCard;
import io.nicbridge.bridge.shim.XskUnetEndpoint;
import io.nicbridge.contract.NicShim;
import io.nicbridge.contract.Sba200Unet;
import io.nicbridge.protocols.ip.Ipv4Address;
import io.nicbridge.protocols.ip.Ipv4Stack;
import io.nicbridge.protocols.ip.Udp;
import io.nicbridge.protocols.ip.UnetIpLink;
import io.nicbridge.protocols.ip.tcp.Tcp;
import io.nicbridge.protocols.ip.tcp.TcpConfig;
import io.nicbridge.protocols.ip.tcp.TcpConnection;
import io.nicbridge.protocols.ip.tcp.TcpHandler;
import io.nicbridge.protocols.ip.tcp.TcpState;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * UDP and TCP over U-Net over Ethernet at the two ends of a {@link VethPair}: on each end one U-Net endpoint with one
 * channel to the other end, a {@link UnetLink} on it and the one {@link Ipv4Stack} on a {@link UnetIpLink} with
 * {@link Udp} and {@link Tcp} above it - the same stack that runs on the emulated SBA-200 (the paper's section 7: one
 * channel carries all IP traffic between the two applications). One {@link Node} per end, driven by the thread that
 * calls it. The endpoint is one of two kinds ({@link Access}), the same frames on the wire (nicshim.h):
 * <pre>
 *   CARD:   netns A: Udp|Tcp - Ipv4Stack - UnetIpLink - UnetLink - UnetEndpoint - kernel driver - shim SBA-200
 *           (AF_PACKET) - vethA ==== vethB - ... :netns B
 *   DIRECT: netns A: Udp|Tcp - Ipv4Stack - UnetIpLink - UnetLink - XskUnetEndpoint (the AF_XDP socket's rings)
 *           - vethA ==== vethB - ... :netns B
 * </pre>
 * How a node waits ({@link Wait}): {@link Wait#BLOCK} - one thread, woken by the kernel when a frame arrives: on the
 * card, an inline shim card whose work the node does itself, sleeping in the shim's epoll on the packet socket
 * ({@link ShimCard#waitForWork}; the card's interrupt runs the U-Net kernel driver's handler on the node's thread);
 * on the direct endpoint, ppoll on the AF_XDP socket ({@link UnetLink#awaitFrame}). (A threaded card would put its own
 * thread in between - woken from epoll, it signals the endpoint, which unparks the node: two wake-ups per hop, the
 * blocking card path's cost that {@code nic unet real-latency} measured at 4-5x the kernel's before.)
 * {@link Wait#SPIN} - the node's own thread polls (the inline card's work included), spinning
 * ({@link Thread#onSpinWait()}) and then yielding, never sleeping. The IP MTU is the link's: the veth's MTU less
 * U-Net over Ethernet's 8-byte tag, at most {@link Ipv4Stack#UNET_MTU}; TCP's MSS follows from it (1460 over a
 * 1508-byte veth, as the kernel's over the same pair). Each TCP connection's send and receive rings are
 * {@code window} bytes: the receive window is the receiving application's free ring space (section 7.4), capped at
 * 65535 (no window scaling).
 */
final class UnetIpShimPair implements AutoCloseable {
    enum Wait { BLOCK, SPIN }

    /** Which U-Net endpoint each end has. */
    enum Access {
        /** The shim's SBA-200 card model over AF_PACKET, its U-Net kernel driver and a regular endpoint. */
        CARD("shim card"),
        /** The direct-access endpoint: the AF_XDP socket's rings are the U-Net queues, no card model. */
        DIRECT("direct XSK");

        final String label;

        Access(String label) {
            this.label = label;
        }
    }

    static final int IP_A = Ipv4Address.parse("10.117.0.1");
    static final int IP_B = Ipv4Address.parse("10.117.0.2");
    static final int CHANNEL = 0;
    static final int VCI_A_TO_B = 117;
    static final int VCI_B_TO_A = 118;
    /** U-Net over Ethernet's tag in front of each PDU (nicshim.h): the IP MTU is the veth's less this. */
    static final int TAG = 8;
    /** Transmit buffers of each link: the send queue's length, so a TCP window of segments can be in flight. */
    static final int TX_BUFFERS = 32;
    /**
     * Receive buffers of a shim card's link: the whole free queue ({@code FQ_LEN}; a 64 KB TCP window of 1460-byte
     * segments is 45). A UDP stream has no flow control,
     * so what the receiving node has not taken yet waits here, in the receive queue and in the card's packet socket;
     * with 64 (as before) a stream's receiver lost a quarter of its datagrams to a full receive queue alone.
     */
    static final int RX_BUFFERS = Sba200Unet.FQ_LEN;
    /** The card endpoint's receive queue: every posted buffer's message and as many inline ones again. */
    static final int RECEIVE_QUEUE = 2 * Sba200Unet.FQ_LEN;
    /**
     * Receive chunks of a direct endpoint's link: its whole FILL ring (the RX ring's size). The kernel drops a frame
     * that finds FILL empty ({@code rx_dropped}); with 64 chunks posted that was where a stream lost its datagrams.
     */
    static final int DIRECT_RX_BUFFERS = NicShim.DEFAULT_RING_FRAMES;
    static final int SPINS_BEFORE_YIELD = 64;
    static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** A direct endpoint's receive chunks: all the link's buffers, and at least the RX ring's worth (its rule). */
    static final int DIRECT_CHUNK = 2048;

    private final Access access;
    private final UnetVethEndpoints ends;
    private final ShimCard[] cards = new ShimCard[2];
    private final XskUnetEndpoint[] directs = new XskUnetEndpoint[2];
    private final UnetKernelDriver[] kernels = new UnetKernelDriver[2];
    private final UnetLink[] links = new UnetLink[2];
    private final Node[] nodes = new Node[2];
    private final int mtu;

    private final Arena arena = Arena.ofShared();

    /**
     * @param window bytes of each TCP connection's send and receive ring, a power of two in [1024, 2^30]
     * @throws IllegalArgumentException naming the bad argument
     */
    UnetIpShimPair(VethPair veth, Wait wait, int window) {
        this(veth, Access.CARD, wait, window);
    }

    /**
     * @param window bytes of each TCP connection's send and receive ring, a power of two in [1024, 2^30]
     * @throws IllegalArgumentException naming the bad argument
     */
    UnetIpShimPair(VethPair veth, Access access, Wait wait, int window) {
        this(veth, access, wait, window, true);
    }

    /**
     * @param window    bytes of each TCP connection's send and receive ring, a power of two in [1024, 2^30]
     * @param ackAtPoll TCP acknowledges at the end of the step ({@link TcpConfig#ackAtPoll}, the default), or inside
     *                  every data segment's arrival (false: the comparison, a pure ACK before each reply)
     * @throws IllegalArgumentException naming the bad argument
     */
    UnetIpShimPair(VethPair veth, Access access, Wait wait, int window, boolean ackAtPoll) {
        this.access = access;
        this.mtu = Math.min(veth.mtu() - TAG, Ipv4Stack.UNET_MTU);
        int stride = (mtu + 63) & -64;
        try {
            this.ends = access == Access.DIRECT
                ? UnetVethEndpoints.directs(veth, VCI_A_TO_B, VCI_B_TO_A, "", Math.max((long) DIRECT_CHUNK
                    * (TX_BUFFERS + DIRECT_RX_BUFFERS), (long) DIRECT_CHUNK * NicShim.DEFAULT_RING_FRAMES))
                : UnetVethEndpoints.cards(veth, "ip-real", VCI_A_TO_B, VCI_B_TO_A, "",
                    (long) stride * (TX_BUFFERS + RX_BUFFERS), RECEIVE_QUEUE);
            Endpoint[] eps = new Endpoint[2];
            for (int i = 0; i < 2; i++) {
                cards[i] = ends.card(i);
                kernels[i] = ends.kernel(i);
                directs[i] = ends.direct(i);
                eps[i] = ends.endpoint(i);
            }
            for (int i = 0; i < 2; i++) {
                links[i] = new UnetLink("ip-real-" + i, eps[i], i, new int[] {CHANNEL, CHANNEL}, 0, mtu, TX_BUFFERS,
                    access == Access.DIRECT ? DIRECT_RX_BUFFERS : RX_BUFFERS);
                if (wait == Wait.SPIN && access == Access.CARD) {
                    links[i].progress(cards[i].progress());
                }
                UnetIpLink ipLink = new UnetIpLink(links[i]).route(i == 0 ? IP_B : IP_A, 1 - i);
                Ipv4Stack ip = new Ipv4Stack(ipLink, i == 0 ? IP_A : IP_B, 24, mtu);
                Tcp tcp = Tcp.over(ip, TcpConfig.defaults().withBuffers(window, window).withConnections(2)
                    .withAckAtPoll(ackAtPoll), arena);
                ShimCard card = cards[i];
                UnetLink link = links[i];
                Waiter waiter = wait == Wait.SPIN ? null : access == Access.CARD ? card::waitForWork
                    : link::awaitFrame;
                nodes[i] = new Node(links[i], ip, new Udp(ip), tcp, waiter);
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    Node node(int i) {
        return nodes[i];
    }

    /**
     * Node A connects to node B's {@code port} (listening on B's thread) and steps until the handshake is done.
     *
     * @throws IOException when the connection is refused or not established within 10 s
     */
    TcpConnection connect(int port) throws IOException {
        Node a = nodes[0];
        TcpConnection c = a.tcp.connect(IP_B, port, new TcpHandler() { }, System.nanoTime());
        long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.state() != TcpState.ESTABLISHED) {
            if (c.state() == TcpState.CLOSED) {
                throw new IOException("U-Net TCP connect to node B failed: " + c.closeReason());
            }
            if (a.step() == 0) {
                if (System.nanoTime() - limit > 0) {
                    throw new IOException("no U-Net TCP connection within 10 s: " + c + "; " + cardStatistics());
                }
                a.idle();
            }
        }
        return c;
    }

    /** @return the IP MTU over this pair */
    int mtu() {
        return mtu;
    }

    Access access() {
        return access;
    }

    /**
     * Where node B's side lost frames so far, each place's count: for the shim card, its packet socket
     * ({@code kernel}: the socket buffer overflowed before the card's thread read it), and the card's firmware (no
     * free buffer, receive queue full, FIFO overflow); for the direct endpoint, the kernel's XDP statistics (no FILL
     * chunk, RX ring full). What the link then refused (error descriptors) is its own {@code rxErrors}.
     */
    String receiverLosses() {
        if (access == Access.DIRECT) {
            var k = directs[1].kernelStatistics();
            return String.format(java.util.Locale.ROOT, "no FILL chunk %d, RX ring full %d, link rxErrors %d",
                k.rxDropped(), k.rxRingFull(), links[1].counters().rxErrors());
        }
        var socket = cards[1].statistics();
        var card = kernels[1].readStatistics();
        return String.format(java.util.Locale.ROOT, "packet socket %d, card: no free buffer %d, receive queue full %d,"
            + " FIFO overflow %d; link rxErrors %d", socket.rxDropKernel() + socket.rxMissed(), card.dropNoFreeBuffer(),
            card.dropReceiveQueueFull(), card.dropFifoOverflow(), links[1].counters().rxErrors());
    }

    /** What the endpoints below counted: the shim cards' statistics, or the direct endpoints' drops and the kernel's. */
    String cardStatistics() {
        if (access == Access.DIRECT) {
            StringBuilder b = new StringBuilder();
            for (XskUnetEndpoint d : directs) {
                b.append(d).append(": dropped ").append(d.rxDropFilter()).append(" filtered, ").append(d.rxDropBadFrame())
                    .append(" bad, ").append(d.rxDropNoChannel()).append(" no channel; kernel ")
                    .append(d.kernelStatistics().describe()).append("; ");
            }
            return b.toString();
        }
        return cards[0].statistics() + "; " + cards[1].statistics();
    }

    @Override
    public void close() {
        for (int i = 0; i < 2; i++) {
            if (links[i] != null) {
                links[i].close();
            }
        }
        if (ends != null) {
            ends.close(); // each end's driver before its card, the segment last
        }
        arena.close();
    }

    /** How a blocking node sleeps until its endpoint has work: at most {@code nanos}. */
    @FunctionalInterface
    interface Waiter {
        void await(long nanos) throws InterruptedException;
    }

    /** One end: its stack, driven by whichever thread calls {@link #step} and {@link #idle}. */
    static final class Node {
        final Ipv4Stack ip;
        final Udp udp;
        final Tcp tcp;
        /** The blocking wait, or {@code null} for a spinning node. */
        private final Waiter blocking;
        private volatile Thread waiter;
        private int idle;

        Node(UnetLink link, Ipv4Stack ip, Udp udp, Tcp tcp, Waiter blocking) {
            this.blocking = blocking;
            this.ip = ip;
            this.udp = udp;
            this.tcp = tcp;
            link.readinessListener(() -> {
                Thread t = waiter;
                if (t != null) {
                    LockSupport.unpark(t);
                }
            });
        }

        /** Makes the calling thread the one a blocked node's receive signal wakes. */
        void attach() {
            waiter = Thread.currentThread();
        }

        /**
         * Runs TCP's due timers and sends the ACKs the last step's segments still owe, then polls the link (and an
         * inline card) into the stack. In that order because TCP acknowledges at the end of a step
         * ({@link TcpConfig#ackAtPoll}): what the caller does between two steps - an echo writing its reply, the
         * measuring thread writing its next message - carries the ACK of what this step took, so a round trip is two
         * segments on the wire, not four. A step that took a segment returns non-zero, so the next step (and its
         * owed ACK) follows at once, with no wait in between.
         *
         * @return frames taken
         */
        int step() {
            long now = System.nanoTime();
            tcp.poll(now);
            int n = ip.poll(16, now);
            if (n > 0) {
                idle = 0;
            }
            return n;
        }

        /**
         * Waits a little after a step that took nothing: spin then yield, or block in the endpoint's own wait for at
         * most {@value #MAX_PARK_NANOS} ns, so that TCP's timers and a stop are seen at the next step.
         */
        void idle() {
            if (blocking == null) {
                if (++idle < SPINS_BEFORE_YIELD) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
                return;
            }
            try {
                blocking.await(MAX_PARK_NANOS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String toString() {
            return ip.toString();
        }
    }
}
