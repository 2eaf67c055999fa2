package io.nicbridge.protocols.ip;

import io.nicbridge.protocols.ip.IpCounters.Counter;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * UDP (RFC 768) over an {@link Ipv4Stack}: port demultiplexing to one {@link UdpPcb} per bound port (a direct table
 * of 65536 entries: one array load per datagram, no hashing), the checksum optional per pcb on send and checked on
 * receive whenever the sender put one in.
 *
 * <p>Receive is in place: the receiver sees the datagram's bytes in the port's receive buffer. Send copies the
 * application's bytes into the TX frame and, as in U-Net's UDP (section 7.5), computes the checksum during that copy
 * ({@link InternetChecksum#copyAndSum}). Malformed datagrams (length under 8 or past the IP payload, a bad checksum)
 * and datagrams to unbound ports are dropped and counted.
 */
public final class Udp {
    public static final int HEADER = 8;
    private static final int PORTS = 65536;

    private final Ipv4Stack ip;
    private final IpCounters counters;
    private final UdpPcb[] pcbs = new UdpPcb[PORTS];

    /** Registers itself with {@code ip} for protocol 17. */
    public Udp(Ipv4Stack ip) {
        this.ip = Objects.requireNonNull(ip, "ip");
        this.counters = ip.counters();
        ip.register(Ipv4Stack.PROTOCOL_UDP, this::onDatagram);
    }

    /**
     * Binds a port (setup-time).
     *
     * @param checksum whether datagrams sent from this port carry the checksum
     * @throws IllegalArgumentException for a port outside 1..65535 or one already bound
     */
    public UdpPcb bind(int port, UdpReceiver receiver, boolean checksum) {
        Objects.requireNonNull(receiver, "receiver");
        checkPort("port", port);
        if (pcbs[port] != null) {
            throw new IllegalArgumentException("UDP port " + port + " is already bound");
        }
        UdpPcb pcb = new UdpPcb(this, port, receiver, checksum);
        pcbs[port] = pcb;
        return pcb;
    }

    /** Unbinds a pcb's port; datagrams to it are counted as {@link Counter#UDP_NO_PORT} from now on. */
    public void unbind(UdpPcb pcb) {
        if (pcbs[pcb.port()] == pcb) {
            pcbs[pcb.port()] = null;
        }
    }

    /** @return the most data bytes one datagram carries (MTU less the IPv4 and UDP headers) */
    public int maxPayload() {
        return ip.mtu() - Ipv4Stack.IPV4_HEADER - HEADER;
    }

    private static void checkPort(String name, int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(name + " must be in [1, 65535], was " + port);
        }
    }

    int send(UdpPcb pcb, int destination, int destinationPort, MemorySegment data, long offset, int length,
             long now) {
        checkPort("destinationPort", destinationPort);
        if (length < 0 || length > maxPayload()) {
            throw new IllegalArgumentException("length must be in [0, " + maxPayload() + "] (no fragmentation), was "
                + length);
        }
        Objects.checkFromIndexSize(offset, length, data.byteSize());
        int h = ip.claim(destination, now);
        if (h < 0) {
            return h;
        }
        MemorySegment f = ip.txBuffer(h);
        int u = Ipv4Stack.TRANSPORT_OFFSET;
        int udpLength = HEADER + length;
        f.set(Ipv4Stack.U16, u, (short) pcb.port());
        f.set(Ipv4Stack.U16, u + 2, (short) destinationPort);
        f.set(Ipv4Stack.U16, u + 4, (short) udpLength);
        f.set(Ipv4Stack.U16, u + 6, (short) 0);
        if (pcb.checksums()) {
            long sum = InternetChecksum.pseudoHeader(ip.address(), destination, Ipv4Stack.PROTOCOL_UDP, udpLength);
            sum = InternetChecksum.sum(f, u, HEADER, sum);
            sum = InternetChecksum.copyAndSum(data, offset, f, u + HEADER, length, sum);
            int c = InternetChecksum.finish(sum);
            f.set(Ipv4Stack.U16, u + 6, (short) (c == 0 ? 0xFFFF : c)); // 0 means "no checksum": send all ones
        } else {
            MemorySegment.copy(data, offset, f, u + HEADER, length);
        }
        ip.send(h, Ipv4Stack.PROTOCOL_UDP, destination, udpLength);
        pcb.sent++;
        counters.increment(Counter.UDP_SENT);
        return 0;
    }

    private void onDatagram(MemorySegment frame, int offset, int length, int source, int destination, long now) {
        if (length < HEADER) {
            counters.increment(Counter.UDP_BAD_LENGTH);
            return;
        }
        int udpLength = Short.toUnsignedInt(frame.get(Ipv4Stack.U16, offset + 4));
        if (udpLength < HEADER || udpLength > length) {
            counters.increment(Counter.UDP_BAD_LENGTH);
            return;
        }
        if (frame.get(Ipv4Stack.U16, offset + 6) != 0) {
            long sum = InternetChecksum.pseudoHeader(source, destination, Ipv4Stack.PROTOCOL_UDP, udpLength);
            if (!InternetChecksum.verifies(InternetChecksum.sum(frame, offset, udpLength, sum))) {
                counters.increment(Counter.UDP_BAD_CHECKSUM);
                return;
            }
        }
        int port = Short.toUnsignedInt(frame.get(Ipv4Stack.U16, offset + 2));
        UdpPcb pcb = pcbs[port];
        if (pcb == null) {
            counters.increment(Counter.UDP_NO_PORT);
            return;
        }
        pcb.received++;
        counters.increment(Counter.UDP_DELIVERED);
        pcb.receiver().onDatagram(pcb, source, Short.toUnsignedInt(frame.get(Ipv4Stack.U16, offset)), frame,
            offset + HEADER, udpLength - HEADER, now);
    }
}
