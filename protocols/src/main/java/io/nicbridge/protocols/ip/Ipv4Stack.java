package io.nicbridge.protocols.ip;

import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import io.nicbridge.protocols.ip.IpCounters.Counter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * A user-level IPv4 host on one Ethernet (the U-Net paper's section 7 IP, on the 21140's {@link FramePort}): Ethernet
 * II framing, ARP (RFC 826) with a small cache, IPv4 (RFC 791) with liberal receive, no forwarding and no send-side
 * fragmentation, ICMP echo (RFC 792: answers pings, sends them), and a protocol demultiplexer to the transports
 * ({@link IpProtocol}: UDP now, TCP beside it later). Sans-I/O in the runtime's sense: the stack owns no thread and
 * no clock; the caller's thread calls {@link #poll} with its time, and every frame is parsed and built in place in
 * the port's buffers. Nothing allocates per frame. Malformed input is dropped and counted in {@link #counters()},
 * never thrown.
 *
 * <h2>Frame layouts (all fields big-endian)</h2>
 * <pre>
 *  Ethernet II                     ARP (Ethernet/IPv4, 28 bytes after the Ethernet header)
 *  0      6      12    14          0     2     4  5  6     8      14     18     24     28
 *  +------+------+-----+----       +-----+-----+--+--+-----+------+------+------+------+
 *  | DA   | SA   |type | ...       |htype|ptype|hl|pl| op  | SHA  | SPA  | THA  | TPA  |
 *  +------+------+-----+----       +-----+-----+--+--+-----+------+------+------+------+
 *                0x0800 IPv4          1   0x800 6  4  1 req, 2 reply
 *                0x0806 ARP
 *  IPv4 header (14 + 0)
 *  0       1       2               4               6   7         8     9      10        12      16      20
 *  +-------+-------+---------------+---------------+---+---------+-----+------+---------+-------+-------+----
 *  |ver|ihl| tos   | total length  | identification|flg|frag off | ttl |proto | checksum| source| dest  |opts
 *  +-------+-------+---------------+---------------+---+---------+-----+------+---------+-------+-------+----
 *  ICMP echo (at the IPv4 payload)           UDP (at the IPv4 payload)
 *  0    1    2         4      6        8     0        2        4        6         8
 *  +----+----+---------+------+--------+--   +--------+--------+--------+---------+--
 *  |type|code|checksum | id   | seq    |data | src pt | dst pt | length | checksum| data
 *  +----+----+---------+------+--------+--   +--------+--------+--------+---------+--
 *   8 request, 0 reply
 * </pre>
 * Liberal receive (RFC 1122 1.2.2): any TOS, TTL, identification and DF; options are skipped; Ethernet padding after
 * the IPv4 total length is ignored. What is dropped and counted: a frame too short for its headers, a version other
 * than 4, a header length under 20 or past the total length (options overrunning the header), a total length past
 * the frame, a bad header checksum, fragments (no reassembly), datagrams for another address (no forwarding) and
 * protocols nobody registered.
 *
 * <h2>Send</h2>
 * A transport {@link #claim}s a frame for a destination (the stack resolves the MAC and writes the Ethernet header),
 * writes its header and data from {@link #TRANSPORT_OFFSET} in {@link #txBuffer}, and {@link #send}s it (the stack
 * writes the IPv4 header and commits). {@link #claim} returns a negative status instead of a handle as back-pressure:
 * {@link #NO_BUFFER} (the port's ring is full), {@link #ARP_PENDING} (an ARP request is out; claim again later) or
 * {@link #NO_ROUTE} (the destination is off this link: there is no gateway and no forwarding).
 *
 * <h2>Threads</h2>
 * One thread calls everything (the port's one sender and one receiver).
 */
public final class Ipv4Stack {
    public static final int ETHERTYPE_IPV4 = 0x0800;
    public static final int ETHERTYPE_ARP = 0x0806;
    public static final int PROTOCOL_ICMP = 1;
    public static final int PROTOCOL_TCP = 6;
    public static final int PROTOCOL_UDP = 17;
    public static final int ETHERNET_HEADER = 14;
    public static final int IPV4_HEADER = 20;
    /** Where a transport's header starts in a frame this stack sends (it sends no IP options). */
    public static final int TRANSPORT_OFFSET = ETHERNET_HEADER + IPV4_HEADER;
    /** Ethernet's minimum frame without the FCS; shorter frames are padded with zeros. */
    public static final int MIN_FRAME = 60;
    /** The standard Ethernet IPv4 MTU. */
    public static final int ETHERNET_MTU = 1500;

    public static final int NO_BUFFER = -1;
    public static final int ARP_PENDING = -2;
    public static final int NO_ROUTE = -3;

    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    private static final long BROADCAST_MAC = 0xFFFF_FFFF_FFFFL;

    private static final int ARP_LENGTH = 28;
    private static final int ICMP_ECHO_HEADER = 8;
    private static final int ICMP_ECHO_REPLY = 0;
    private static final int ICMP_ECHO_REQUEST = 8;
    private static final int DEFAULT_TTL = 64;
    private static final int FLAG_DF = 0x4000;
    private static final int FLAG_MF = 0x2000;
    private static final int FRAGMENT_OFFSET_MASK = 0x1FFF;

    private final FramePort port;
    private final long mac;
    private final int address;
    private final int netmask;
    private final int mtu;
    private final ArpCache arp;
    private final IpCounters counters = new IpCounters();
    private final IpProtocol[] protocols = new IpProtocol[256];
    private int identification;
    private EchoListener echoListener;

    /**
     * @param port         the Ethernet port (a 21140 driver, emulated or on the shim); stays the caller's to close
     * @param mac          this station's MAC as a 48-bit value (the port must accept frames sent to it)
     * @param address      this host's IPv4 address
     * @param prefixLength the on-link prefix, 1..32: destinations outside it are {@link #NO_ROUTE}
     * @param mtu          the IPv4 MTU, 68..{@code port.maxFrameLength() - 14} ({@link #ETHERNET_MTU} normally)
     * @throws IllegalArgumentException naming the bad argument
     */
    public Ipv4Stack(FramePort port, long mac, int address, int prefixLength, int mtu) {
        this.port = Objects.requireNonNull(port, "port");
        if ((mac & ~BROADCAST_MAC) != 0 || (mac & 0x0100_0000_0000L) != 0) {
            throw new IllegalArgumentException("mac must be a 48-bit unicast address, was 0x" + Long.toHexString(mac));
        }
        if (prefixLength < 1 || prefixLength > 32) {
            throw new IllegalArgumentException("prefixLength must be in [1, 32], was " + prefixLength);
        }
        if (mtu < 68 || mtu > port.maxFrameLength() - ETHERNET_HEADER) {
            throw new IllegalArgumentException("mtu must be in [68, " + (port.maxFrameLength() - ETHERNET_HEADER)
                + "] (the port's largest frame less the Ethernet header), was " + mtu);
        }
        this.mac = mac;
        this.address = address;
        this.netmask = (int) (0xFFFF_FFFFL << (32 - prefixLength));
        this.mtu = mtu;
        this.arp = new ArpCache(16);
        protocols[PROTOCOL_ICMP] = this::onIcmp;
    }

    /**
     * Registers the transport for an IPv4 protocol number (setup-time).
     *
     * @throws IllegalArgumentException for a number outside 0..255, ICMP (the stack's own) or one already taken
     */
    public void register(int protocol, IpProtocol transport) {
        Objects.requireNonNull(transport, "transport");
        if (protocol < 0 || protocol > 255 || protocol == PROTOCOL_ICMP || protocols[protocol] != null) {
            throw new IllegalArgumentException("protocol " + protocol + " is outside 0..255, ICMP or already"
                + " registered");
        }
        protocols[protocol] = transport;
    }

    /** Sets (or with null removes) the listener of ICMP echo replies. */
    public void echoListener(EchoListener listener) {
        this.echoListener = listener;
    }

    public int address() {
        return address;
    }

    public long mac() {
        return mac;
    }

    public int mtu() {
        return mtu;
    }

    public IpCounters counters() {
        return counters;
    }

    // ---------------------------------------------------------------------------------------------------- receive

    /**
     * Takes up to {@code limit} arrived frames from the port and processes each in place, releasing it after.
     *
     * @return the number of frames taken
     */
    public int poll(int limit, long nowNanos) {
        int n = 0;
        while (n < limit) {
            int h = port.poll();
            if (h == FramePort.NONE) {
                break;
            }
            n++;
            try {
                if (port.rxStatus(h) == FrameStatus.OK) {
                    receive(port.rxBuffer(h), port.rxLength(h), nowNanos);
                }
            } finally {
                port.release(h);
            }
        }
        return n;
    }

    /**
     * Processes one Ethernet frame (DA onwards, no FCS) in place: the entry of {@link #poll}, public for tests and
     * for a runner that takes the frames itself. Never throws for any content.
     */
    public void receive(MemorySegment frame, int length, long nowNanos) {
        counters.increment(Counter.RX_FRAMES);
        if (length < ETHERNET_HEADER || length > frame.byteSize()) {
            counters.increment(Counter.RX_TRUNCATED);
            return;
        }
        long da = readMac(frame, 0);
        if (da != mac && da != BROADCAST_MAC) {
            counters.increment(Counter.RX_OTHER_STATION);
            return;
        }
        int type = Short.toUnsignedInt(frame.get(U16, 12));
        if (type == ETHERTYPE_IPV4) {
            receiveIpv4(frame, length, nowNanos);
        } else if (type == ETHERTYPE_ARP) {
            receiveArp(frame, length, nowNanos);
        } else {
            counters.increment(Counter.RX_OTHER_ETHERTYPE);
        }
    }

    private void receiveArp(MemorySegment frame, int length, long now) {
        int a = ETHERNET_HEADER;
        if (length < a + ARP_LENGTH) {
            counters.increment(Counter.RX_TRUNCATED);
            return;
        }
        int op = Short.toUnsignedInt(frame.get(U16, a + 6));
        if (frame.get(U16, a) != 1 || frame.get(U16, a + 2) != ETHERTYPE_IPV4 || frame.get(U8, a + 4) != 6
            || frame.get(U8, a + 5) != 4 || (op != 1 && op != 2)) {
            counters.increment(Counter.ARP_MALFORMED);
            return;
        }
        long senderMac = readMac(frame, a + 8);
        int senderIp = frame.get(U32, a + 14);
        int targetIp = frame.get(U32, a + 24);
        if ((senderMac & 0x0100_0000_0000L) != 0) { // a group address as a sender: never a station
            counters.increment(Counter.ARP_MALFORMED);
            return;
        }
        // RFC 826's packet reception: update a known sender; add it when the packet is for us.
        boolean forUs = targetIp == address;
        if (forUs || arp.contains(senderIp)) {
            arp.learn(senderIp, senderMac, now);
        }
        if (op == 2) {
            counters.increment(Counter.ARP_REPLIES_RECEIVED);
        } else if (!forUs) {
            counters.increment(Counter.ARP_OTHER_TARGET);
        } else if (sendArp(2, senderMac, senderIp)) {
            counters.increment(Counter.ARP_REQUESTS_ANSWERED);
        } else {
            counters.increment(Counter.ARP_REPLY_DROPPED);
        }
    }

    /** Builds and commits an ARP packet; false when no TX buffer was free. */
    private boolean sendArp(int op, long targetMac, int targetIp) {
        int h = port.claim();
        if (h == FramePort.NONE) {
            return false;
        }
        MemorySegment f = port.txBuffer(h);
        writeMac(f, 0, op == 1 ? BROADCAST_MAC : targetMac);
        writeMac(f, 6, mac);
        f.set(U16, 12, (short) ETHERTYPE_ARP);
        int a = ETHERNET_HEADER;
        f.set(U16, a, (short) 1);
        f.set(U16, a + 2, (short) ETHERTYPE_IPV4);
        f.set(U8, a + 4, (byte) 6);
        f.set(U8, a + 5, (byte) 4);
        f.set(U16, a + 6, (short) op);
        writeMac(f, a + 8, mac);
        f.set(U32, a + 14, address);
        writeMac(f, a + 18, op == 1 ? 0 : targetMac);
        f.set(U32, a + 24, targetIp);
        port.commit(h, pad(f, a + ARP_LENGTH));
        return true;
    }

    private void receiveIpv4(MemorySegment frame, int length, long now) {
        int ip = ETHERNET_HEADER;
        if (length < ip + IPV4_HEADER) {
            counters.increment(Counter.RX_TRUNCATED);
            return;
        }
        int versionIhl = frame.get(U8, ip) & 0xFF;
        int headerLength = (versionIhl & 0x0F) * 4;
        int total = Short.toUnsignedInt(frame.get(U16, ip + 2));
        if (versionIhl >>> 4 != 4 || headerLength < IPV4_HEADER || headerLength > total
            || total > length - ip) {
            counters.increment(Counter.IP_BAD_HEADER);
            return;
        }
        if (!InternetChecksum.verifies(InternetChecksum.sum(frame, ip, headerLength, 0))) {
            counters.increment(Counter.IP_BAD_CHECKSUM);
            return;
        }
        int flagsOffset = Short.toUnsignedInt(frame.get(U16, ip + 6));
        if ((flagsOffset & (FLAG_MF | FRAGMENT_OFFSET_MASK)) != 0) {
            counters.increment(Counter.IP_FRAGMENTS);
            return;
        }
        int destination = frame.get(U32, ip + 16);
        if (destination != address && destination != Ipv4Address.BROADCAST
            && destination != (address | ~netmask)) {
            counters.increment(Counter.IP_NOT_FOR_US);
            return;
        }
        IpProtocol transport = protocols[frame.get(U8, ip + 9) & 0xFF];
        if (transport == null) {
            counters.increment(Counter.IP_UNKNOWN_PROTOCOL);
            return;
        }
        counters.increment(Counter.IP_DELIVERED);
        transport.onDatagram(frame, ip + headerLength, total - headerLength, frame.get(U32, ip + 12), destination,
            now);
    }

    private void onIcmp(MemorySegment frame, int offset, int length, int source, int destination, long now) {
        if (length < ICMP_ECHO_HEADER || !InternetChecksum.verifies(InternetChecksum.sum(frame, offset, length, 0))) {
            counters.increment(Counter.ICMP_MALFORMED);
            return;
        }
        int type = frame.get(U8, offset) & 0xFF;
        if (type == ICMP_ECHO_REQUEST && destination == address) { // no answers to broadcast pings (RFC 1122 3.2.2.6)
            replyToEcho(frame, offset, length, source, now);
        } else if (type == ICMP_ECHO_REPLY) {
            counters.increment(Counter.ICMP_ECHO_REPLIES_RECEIVED);
            EchoListener l = echoListener;
            if (l != null) {
                l.onEchoReply(source, Short.toUnsignedInt(frame.get(U16, offset + 4)),
                    Short.toUnsignedInt(frame.get(U16, offset + 6)), frame, offset + ICMP_ECHO_HEADER,
                    length - ICMP_ECHO_HEADER, now);
            }
        } else {
            counters.increment(Counter.ICMP_OTHER);
        }
    }

    private void replyToEcho(MemorySegment frame, int offset, int length, int source, long now) {
        if (length > mtu - IPV4_HEADER) { // a request larger than our MTU would need fragmenting back
            counters.increment(Counter.ICMP_REPLY_DROPPED);
            return;
        }
        int h = claim(source, now);
        if (h < 0) {
            counters.increment(Counter.ICMP_REPLY_DROPPED);
            return;
        }
        MemorySegment f = port.txBuffer(h);
        int o = TRANSPORT_OFFSET;
        f.set(U8, o, (byte) ICMP_ECHO_REPLY);
        f.set(U8, o + 1, (byte) 0);
        f.set(U16, o + 2, (short) 0);
        long sum = InternetChecksum.sum(f, o, 2, 0);
        sum = InternetChecksum.copyAndSum(frame, offset + 4, f, o + 4, length - 4, sum); // id, seq and data
        f.set(U16, o + 2, (short) InternetChecksum.finish(sum));
        send(h, PROTOCOL_ICMP, source, length);
        counters.increment(Counter.ICMP_ECHO_REPLIED);
    }

    /**
     * Sends an ICMP echo request carrying {@code dataLength} bytes of a fixed pattern (byte i = i).
     *
     * @return 0 when sent, or the {@link #claim} status ({@link #NO_BUFFER}, {@link #ARP_PENDING}, {@link #NO_ROUTE})
     * @throws IllegalArgumentException when the data does not fit the MTU or the id/sequence are not 16-bit
     */
    public int ping(int destination, int identifier, int sequence, int dataLength, long nowNanos) {
        if (dataLength < 0 || dataLength > mtu - IPV4_HEADER - ICMP_ECHO_HEADER) {
            throw new IllegalArgumentException("dataLength must be in [0, " + (mtu - IPV4_HEADER - ICMP_ECHO_HEADER)
                + "], was " + dataLength);
        }
        if ((identifier & ~0xFFFF) != 0 || (sequence & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("identifier and sequence must be 16-bit, were " + identifier + ", "
                + sequence);
        }
        int h = claim(destination, nowNanos);
        if (h < 0) {
            return h;
        }
        MemorySegment f = port.txBuffer(h);
        int o = TRANSPORT_OFFSET;
        f.set(U8, o, (byte) ICMP_ECHO_REQUEST);
        f.set(U8, o + 1, (byte) 0);
        f.set(U16, o + 2, (short) 0);
        f.set(U16, o + 4, (short) identifier);
        f.set(U16, o + 6, (short) sequence);
        for (int i = 0; i < dataLength; i++) {
            f.set(U8, o + ICMP_ECHO_HEADER + i, (byte) i);
        }
        int length = ICMP_ECHO_HEADER + dataLength;
        f.set(U16, o + 2, (short) InternetChecksum.finish(InternetChecksum.sum(f, o, length, 0)));
        send(h, PROTOCOL_ICMP, destination, length);
        return 0;
    }

    // ---------------------------------------------------------------------------------------------------- send

    /**
     * Claims a TX frame for {@code destination} with its Ethernet header written; the transport fills
     * {@code [TRANSPORT_OFFSET, ...)} of {@link #txBuffer} and calls {@link #send} (or {@link #abort}).
     *
     * @return a handle, or {@link #NO_BUFFER}, {@link #ARP_PENDING} (a request went out, or one is out) or
     *     {@link #NO_ROUTE}
     */
    public int claim(int destination, long nowNanos) {
        long da;
        if (destination == Ipv4Address.BROADCAST || destination == (address | ~netmask)) {
            da = BROADCAST_MAC;
        } else if ((destination & netmask) != (address & netmask) || destination == address) {
            return NO_ROUTE;
        } else {
            da = arp.lookup(destination, nowNanos);
            if (da == ArpCache.INCOMPLETE) {
                if (arp.requestDue(destination, nowNanos) && sendArp(1, 0, destination)) {
                    counters.increment(Counter.ARP_REQUESTS_SENT);
                }
                return ARP_PENDING;
            }
        }
        int h = port.claim();
        if (h == FramePort.NONE) {
            return NO_BUFFER;
        }
        MemorySegment f = port.txBuffer(h);
        writeMac(f, 0, da);
        writeMac(f, 6, mac);
        f.set(U16, 12, (short) ETHERTYPE_IPV4);
        return h;
    }

    /** @return the claimed frame's whole buffer (the transport writes from {@link #TRANSPORT_OFFSET}) */
    public MemorySegment txBuffer(int handle) {
        return port.txBuffer(handle);
    }

    /**
     * Writes the IPv4 header in front of the transport's {@code transportLength} bytes and commits the frame.
     *
     * @throws IllegalArgumentException when the datagram would exceed the MTU (there is no fragmentation)
     */
    public void send(int handle, int protocol, int destination, int transportLength) {
        int total = IPV4_HEADER + transportLength;
        if (transportLength < 0 || total > mtu) {
            throw new IllegalArgumentException("transportLength must be in [0, " + (mtu - IPV4_HEADER)
                + "] (the MTU less the IPv4 header; no fragmentation), was " + transportLength);
        }
        MemorySegment f = port.txBuffer(handle);
        int ip = ETHERNET_HEADER;
        f.set(U8, ip, (byte) 0x45);
        f.set(U8, ip + 1, (byte) 0);
        f.set(U16, ip + 2, (short) total);
        f.set(U16, ip + 4, (short) identification++);
        f.set(U16, ip + 6, (short) FLAG_DF);
        f.set(U8, ip + 8, (byte) DEFAULT_TTL);
        f.set(U8, ip + 9, (byte) protocol);
        f.set(U16, ip + 10, (short) 0);
        f.set(U32, ip + 12, address);
        f.set(U32, ip + 16, destination);
        f.set(U16, ip + 10, (short) InternetChecksum.finish(InternetChecksum.sum(f, ip, IPV4_HEADER, 0)));
        port.commit(handle, pad(f, ETHERNET_HEADER + total));
        counters.increment(Counter.IP_SENT);
    }

    /** Returns a claimed frame unsent. */
    public void abort(int handle) {
        port.abort(handle);
    }

    /** Zeroes the bytes up to Ethernet's minimum (a reused buffer must not leak old data) and returns the length. */
    private static int pad(MemorySegment f, int length) {
        if (length >= MIN_FRAME) {
            return length;
        }
        for (int i = length; i < MIN_FRAME; i++) {
            f.set(U8, i, (byte) 0);
        }
        return MIN_FRAME;
    }

    static long readMac(MemorySegment s, long offset) {
        return Short.toUnsignedLong(s.get(U16, offset)) << 32 | Integer.toUnsignedLong(s.get(U32, offset + 2));
    }

    static void writeMac(MemorySegment s, long offset, long value) {
        s.set(U16, offset, (short) (value >>> 32));
        s.set(U32, offset + 2, (int) value);
    }
}
