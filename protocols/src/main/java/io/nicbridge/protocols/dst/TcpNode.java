package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Clock;
import io.nicbridge.protocols.core.BufferAudit;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.core.ProtocolCore;
import io.nicbridge.protocols.ip.Ipv4Stack;
import io.nicbridge.protocols.ip.UnetIpLink;
import io.nicbridge.protocols.ip.tcp.Tcp;
import io.nicbridge.protocols.ip.tcp.TcpConfig;
import java.lang.foreign.Arena;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * One simulated node's IPv4 stack and TCP as a {@link ProtocolCore}, so that the simulation tester runs the real
 * {@link Tcp} (RFC 9293 state machine, retransmission, congestion and flow control, orderly close) on any medium it
 * has, unchanged. IP runs over the node's {@link Link} as over a U-Net channel ({@link UnetIpLink}): peer {@code p}
 * is the route to address {@link #address address(p)} (10.0.0.p+1), the datagram is the link's payload with nothing
 * in front, the MTU is the link's (at most {@link Ipv4Stack#ETHERNET_MTU}); so on Ethernet a datagram travels in the
 * 21140 framing's frame, on ATM in one AAL5 PDU of a channel.
 *
 * <p>The byte stream's application (connects, writes, reads, closes) is the workload's ({@link StreamWorkload}),
 * through {@link #tcp()}. Buffers: each connection's send and receive rings, allocated once at setup from an
 * automatic arena (a node lives for one schedule); {@link #bufferedMessages()} counts bytes held in them.
 */
public final class TcpNode implements ProtocolCore, BufferAudit {
    /** The port every node listens on. */
    public static final int PORT = 7;
    private static final int NETWORK = 0x0A00_0000; // 10.0.0.0/24

    private final Link link;
    private final Clock clock;
    private final UnetIpLink ipLink;
    private final Ipv4Stack ip;
    private final Tcp tcp;

    /**
     * @param link   this node's link; its peers are the other nodes (every peer number but its own gets a route)
     * @param clock  the world's clock
     * @param config the TCP's settings (its MSS, when 0, comes from the link's MTU)
     * @throws IllegalArgumentException when the link carries less than a 104-byte datagram (IP and TCP headers and
     *                                  64 bytes of data) or has more than 254 peers
     */
    public TcpNode(Link link, Clock clock, TcpConfig config) {
        this.link = Objects.requireNonNull(link, "link");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (link.peers() > 254) {
            throw new IllegalArgumentException("a /24 has 254 hosts; the link has " + link.peers() + " peers");
        }
        ipLink = new UnetIpLink(link);
        for (int p = 0; p < link.peers(); p++) {
            if (p != link.self()) {
                ipLink.route(address(p), p);
            }
        }
        ip = new Ipv4Stack(ipLink, address(link.self()), 24, Math.min(ipLink.maxDatagram(), Ipv4Stack.ETHERNET_MTU));
        tcp = Tcp.over(ip, config, Arena.ofAuto());
    }

    /** @return node {@code node}'s IPv4 address, 10.0.0.(node + 1) */
    public static int address(int node) {
        return NETWORK + node + 1;
    }

    /** @return the node number of IPv4 address {@code address} (the inverse of {@link #address}) */
    public static int node(int address) {
        return address - NETWORK - 1;
    }

    /** @return the node's TCP: the application connects, listens, writes and reads through it */
    public Tcp tcp() {
        return tcp;
    }

    public Ipv4Stack ip() {
        return ip;
    }

    @Override
    public void onFrame(Link from, int rxHandle) {
        ipLink.deliver(from, rxHandle, clock.nanoTime());
    }

    /** A claim the TCP was refused can succeed now: send what it holds pending. */
    @Override
    public void onWritable(Link from) {
        tcp.poll(clock.nanoTime());
    }

    @Override
    public void onTimer() {
        tcp.poll(clock.nanoTime());
    }

    /**
     * The TCP's earliest timer; now, when an ACK is owed for the end of the step ({@link TcpConfig#ackAtPoll}: the
     * world runs the timer right after the event that took the segment, as a real runner polls at the end of its
     * step); while output the link pushed back is pending ({@link Tcp#nextDeadline()} in the past), one timer
     * granularity from now: the link's {@link #onWritable} normally comes first.
     */
    @Override
    public long nextDeadline() {
        long d = tcp.nextDeadline();
        if (d == Long.MAX_VALUE) {
            return NO_DEADLINE;
        }
        long now = clock.nanoTime();
        if (tcp.ackOwed()) {
            return now; // its onTimer sends the ACK and clears it, so this cannot spin
        }
        return d > now ? d : now + TcpConfig.GRANULARITY_NANOS; // d may be Long.MIN_VALUE: no wrapping difference
    }

    /** Every byte accepted by a write reaches the peer's reader exactly once, in order, while the peer is reachable. */
    @Override
    public Set<Guarantee> guarantees() {
        return EnumSet.of(Guarantee.EXACTLY_ONCE, Guarantee.PER_PEER_ORDER, Guarantee.PROGRESS,
                Guarantee.BOUNDED_MEMORY);
    }

    /** @return bytes the connections hold: written and not yet acknowledged, received and not yet read */
    @Override
    public int bufferedMessages() {
        return (int) Math.min(Integer.MAX_VALUE, tcp.heldBytes());
    }

    /** @return the bytes of every connection's two rings */
    @Override
    public int bufferCapacity() {
        TcpConfig c = tcp.config();
        return (int) Math.min(Integer.MAX_VALUE, (long) c.connections() * (c.sendBuffer() + c.receiveBuffer()));
    }

    /** @return null when every connection slot is free again (closed and released), else the ones that are not */
    @Override
    public String leaks() {
        return tcp.slotsInUse() == 0 ? null : tcp.slotsInUse() + " connection slots in use: " + tcp.describeSlotsInUse();
    }

    @Override
    public String toString() {
        return "TcpNode[" + link.name() + " " + io.nicbridge.protocols.ip.Ipv4Address.toString(ip.address()) + "]";
    }
}
