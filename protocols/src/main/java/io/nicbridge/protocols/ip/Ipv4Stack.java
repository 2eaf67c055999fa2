package io.nicbridge.protocols.ip;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.protocols.ip.IpCounters.Counter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * The user-level IPv4 host of the U-Net paper's section 7.5, one stack on either of two media through its
 * {@link IpLink} adapter: Ethernet ({@link EthernetIpLink}: the 21140's {@link FramePort}, ARP, MTU 1500) or a U-Net
 * endpoint's channels ({@link UnetIpLink}: the channel is the route, MTU 9 KB, scatter-gather). IPv4 (RFC 791) with
 * liberal receive, no forwarding and no send-side fragmentation, ICMP echo (RFC 792: answers pings, sends them), and
 * a protocol demultiplexer to the transports ({@link IpProtocol}: UDP, TCP beside it). Sans-I/O in the runtime's
 * sense: the stack owns no thread and no clock; the caller's thread calls {@link #poll} with its time, and every
 * frame is parsed and built in place in the link's buffers. Nothing allocates per frame. Malformed input is dropped
 * and counted in {@link #counters()}, never thrown.
 *
 * <h2>Datagram layouts (all fields big-endian), at {@link IpLink#header()} of a frame</h2>
 * <pre>
 *  IPv4 header
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
 * Liberal receive (RFC 1122 1.2.2): any TOS, TTL, identification and DF; options are skipped; link padding after
 * the IPv4 total length is ignored. What is dropped and counted: a frame too short for its headers, a version other
 * than 4, a header length under 20 or past the total length (options overrunning the header), a total length past
 * the frame, a bad header checksum, fragments (no reassembly), datagrams for another address (no forwarding) and
 * protocols nobody registered.
 *
 * <h2>Send</h2>
 * A transport {@link #claim}s a frame for a destination (the link finds the route: a MAC by ARP, or a U-Net
 * channel), writes its header and data from {@link #transportOffset()} in {@link #txBuffer}, and {@link #send}s it
 * (the stack writes the IPv4 header and commits). {@link #claim} returns a negative status instead of a handle as
 * back-pressure: {@link #NO_BUFFER} (the link's buffers are all in flight), {@link #ARP_PENDING} (Ethernet: an ARP
 * request is out; claim again later) or {@link #NO_ROUTE} (Ethernet: off the on-link prefix, no gateway; U-Net: no
 * channel to that address).
 *
 * <h2>Host cost</h2>
 * Given its node's CPU ({@link #hostCpu}), the stack and its transports charge their work per
 * {@link io.nicbridge.bridge.cost}: each IPv4 header summed ({@code CHECKSUM}, 20 bytes) on either side, each
 * route or port lookup ({@code TABLE_LOOKUP}), each transport's bytes copied and summed, each upcall into an
 * application ({@code HANDLER_DISPATCH}).
 *
 * <h2>Threads</h2>
 * One thread calls everything (the link's one sender and one receiver).
 */
public final class Ipv4Stack {
    public static final int ETHERTYPE_IPV4 = EthernetIpLink.ETHERTYPE_IPV4;
    public static final int ETHERTYPE_ARP = EthernetIpLink.ETHERTYPE_ARP;
    public static final int PROTOCOL_ICMP = 1;
    public static final int PROTOCOL_TCP = 6;
    public static final int PROTOCOL_UDP = 17;
    public static final int ETHERNET_HEADER = EthernetIpLink.HEADER;
    public static final int IPV4_HEADER = 20;
    /**
     * Where a transport's header starts in a frame a stack on Ethernet sends (it sends no IP options); on any link,
     * {@link #transportOffset()}.
     */
    public static final int TRANSPORT_OFFSET = ETHERNET_HEADER + IPV4_HEADER;
    /** Ethernet's minimum frame without the FCS; shorter frames are padded with zeros. */
    public static final int MIN_FRAME = EthernetIpLink.MIN_FRAME;
    /** The standard Ethernet IPv4 MTU. */
    public static final int ETHERNET_MTU = 1500;
    /** IP over U-Net's MTU (U-Net paper 7.5: "IP over U-Net exports an MTU of 9Kbytes"). */
    public static final int UNET_MTU = 9 * 1024;

    public static final int NO_BUFFER = -1;
    public static final int ARP_PENDING = -2;
    public static final int NO_ROUTE = -3;
    /** The arrival channel of a datagram that came over a medium without channels (Ethernet). */
    public static final int NO_CHANNEL = -1;

    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;

    private static final int ICMP_ECHO_HEADER = 8;
    private static final int ICMP_ECHO_REPLY = 0;
    private static final int ICMP_ECHO_REQUEST = 8;
    private static final int DEFAULT_TTL = 64;
    private static final int FLAG_DF = 0x4000;
    private static final int FLAG_MF = 0x2000;
    private static final int FRAGMENT_OFFSET_MASK = 0x1FFF;

    private final IpLink link;
    private final int address;
    private final int netmask;
    private final int mtu;
    private final int ip;
    private final IpCounters counters = new IpCounters();
    private final IpProtocol[] protocols = new IpProtocol[256];
    private int identification;
    private EchoListener echoListener;
    private int arrivalChannel = NO_CHANNEL;
    private HostCpu cpu = HostCpu.uncharged("ipv4");

    /**
     * A stack on an Ethernet port: {@code new Ipv4Stack(new EthernetIpLink(port, mac), ...)}.
     *
     * @param port         the Ethernet port (a 21140 driver, emulated or on the shim); stays the caller's to close
     * @param mac          this station's MAC as a 48-bit value (the port must accept frames sent to it)
     * @param address      this host's IPv4 address
     * @param prefixLength the on-link prefix, 1..32: destinations outside it are {@link #NO_ROUTE}
     * @param mtu          the IPv4 MTU, 68..{@code port.maxFrameLength() - 14} ({@link #ETHERNET_MTU} normally)
     * @throws IllegalArgumentException naming the bad argument
     */
    public Ipv4Stack(FramePort port, long mac, int address, int prefixLength, int mtu) {
        this(new EthernetIpLink(port, mac), address, prefixLength, mtu);
    }

    /**
     * @param link         the link adapter (used by this stack only)
     * @param address      this host's IPv4 address
     * @param prefixLength the on-link prefix, 1..32 (for Ethernet's routes and directed broadcasts)
     * @param mtu          the IPv4 MTU, 68..{@code link.maxDatagram()}: {@link #ETHERNET_MTU}, {@link #UNET_MTU}
     * @throws IllegalArgumentException naming the bad argument
     */
    public Ipv4Stack(IpLink link, int address, int prefixLength, int mtu) {
        this.link = Objects.requireNonNull(link, "link");
        if (prefixLength < 1 || prefixLength > 32) {
            throw new IllegalArgumentException("prefixLength must be in [1, 32], was " + prefixLength);
        }
        if (mtu < 68 || mtu > link.maxDatagram()) {
            throw new IllegalArgumentException("mtu must be in [68, " + link.maxDatagram() + "] (the link's largest"
                + " datagram), was " + mtu);
        }
        this.address = address;
        this.netmask = (int) (0xFFFF_FFFFL << (32 - prefixLength));
        this.mtu = mtu;
        this.ip = link.header();
        protocols[PROTOCOL_ICMP] = this::onIcmp;
        link.attach(this);
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

    /**
     * Gives the stack its node's CPU: from now on it and its transports charge their work to it (see the class
     * comment). Setup-time; a stack never given one charges nothing.
     */
    public void hostCpu(HostCpu cpu) {
        this.cpu = Objects.requireNonNull(cpu, "cpu");
    }

    /** @return the CPU the stack and its transports charge */
    public HostCpu cpu() {
        return cpu;
    }

    public int address() {
        return address;
    }

    int netmask() {
        return netmask;
    }

    /** @return this station's MAC, or 0 on a link without one (U-Net) */
    public long mac() {
        return link.mac();
    }

    public int mtu() {
        return mtu;
    }

    public IpLink link() {
        return link;
    }

    /** @return where a transport's header starts in {@link #txBuffer} and in a received frame without IP options */
    public int transportOffset() {
        return ip + IPV4_HEADER;
    }

    /**
     * @return the channel the datagram being delivered came in on (a U-Net channel's peer number), or
     *     {@link #NO_CHANNEL}; valid during an {@link IpProtocol#onDatagram} call (U-Net 7.5: "the U-Net demultiplex
     *     information is passed on to the transport module to possibly assist in destination selection")
     */
    public int arrivalChannel() {
        return arrivalChannel;
    }

    public IpCounters counters() {
        return counters;
    }

    // ---------------------------------------------------------------------------------------------------- receive

    /**
     * Takes up to {@code limit} arrived frames from the link and processes each in place, releasing it after.
     *
     * @return the number of frames taken
     */
    public int poll(int limit, long nowNanos) {
        return link.poll(limit, nowNanos);
    }

    /**
     * Processes one frame of the link's medium (on Ethernet: DA onwards, no FCS) in place: the entry of
     * {@link #poll}, public for tests and for a runner that takes the frames itself. Never throws for any content.
     */
    public void receive(MemorySegment frame, int length, long nowNanos) {
        link.receive(frame, length, nowNanos);
    }

    /**
     * One IPv4 datagram from the link: {@code frame[ipOffset, ipOffset + length)}, {@code length} the bytes the frame
     * has from the IPv4 header on (padding included). Checks the header and hands the payload to its transport.
     */
    void deliver(MemorySegment frame, int ipOffset, int length, int channel, long now) {
        int o = ipOffset;
        if (length < IPV4_HEADER) {
            counters.increment(Counter.RX_TRUNCATED);
            return;
        }
        int versionIhl = frame.get(U8, o) & 0xFF;
        int headerLength = (versionIhl & 0x0F) * 4;
        int total = Short.toUnsignedInt(frame.get(U16, o + 2));
        if (versionIhl >>> 4 != 4 || headerLength < IPV4_HEADER || headerLength > total || total > length) {
            counters.increment(Counter.IP_BAD_HEADER);
            return;
        }
        cpu.charge(CostItem.CHECKSUM, headerLength);
        if (!InternetChecksum.verifies(InternetChecksum.sum(frame, o, headerLength, 0))) {
            counters.increment(Counter.IP_BAD_CHECKSUM);
            return;
        }
        int flagsOffset = Short.toUnsignedInt(frame.get(U16, o + 6));
        if ((flagsOffset & (FLAG_MF | FRAGMENT_OFFSET_MASK)) != 0) {
            counters.increment(Counter.IP_FRAGMENTS);
            return;
        }
        int destination = frame.get(U32, o + 16);
        if (destination != address && destination != Ipv4Address.BROADCAST
            && destination != (address | ~netmask)) {
            counters.increment(Counter.IP_NOT_FOR_US);
            return;
        }
        IpProtocol transport = protocols[frame.get(U8, o + 9) & 0xFF];
        if (transport == null) {
            counters.increment(Counter.IP_UNKNOWN_PROTOCOL);
            return;
        }
        counters.increment(Counter.IP_DELIVERED);
        arrivalChannel = channel;
        try {
            transport.onDatagram(frame, o + headerLength, total - headerLength, frame.get(U32, o + 12), destination,
                now);
        } finally {
            arrivalChannel = NO_CHANNEL;
        }
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
        MemorySegment f = link.txBuffer(h);
        int o = transportOffset();
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
        MemorySegment f = link.txBuffer(h);
        int o = transportOffset();
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
     * Claims a TX frame for {@code destination} with its link header written; the transport fills
     * {@code [transportOffset(), ...)} of {@link #txBuffer} and calls {@link #send} (or {@link #abort}).
     *
     * @return a handle, or {@link #NO_BUFFER}, {@link #ARP_PENDING} (a request went out, or one is out) or
     *     {@link #NO_ROUTE}
     */
    public int claim(int destination, long nowNanos) {
        cpu.charge(CostItem.TABLE_LOOKUP); // the route: an ARP cache entry or a U-Net channel
        return link.claim(destination, nowNanos);
    }

    /** @return the claimed frame's whole buffer (the transport writes from {@link #transportOffset()}) */
    public MemorySegment txBuffer(int handle) {
        return link.txBuffer(handle);
    }

    /**
     * Writes the IPv4 header in front of the transport's {@code transportLength} bytes and commits the frame.
     *
     * @throws IllegalArgumentException when the datagram would exceed the MTU (there is no fragmentation)
     */
    public void send(int handle, int protocol, int destination, int transportLength) {
        sendGathered(handle, protocol, destination, transportLength, 0);
    }

    /**
     * {@link #send} of a datagram whose last {@code attachedLength} transport bytes are blocks attached to the frame
     * ({@link IpLink#attach}) and the rest in the buffer.
     */
    void sendGathered(int handle, int protocol, int destination, int transportLength, int attachedLength) {
        int total = IPV4_HEADER + transportLength;
        if (transportLength < 0 || total > mtu) {
            throw new IllegalArgumentException("transportLength must be in [0, " + (mtu - IPV4_HEADER)
                + "] (the MTU less the IPv4 header; no fragmentation), was " + transportLength);
        }
        MemorySegment f = link.txBuffer(handle);
        int o = ip;
        f.set(U8, o, (byte) 0x45);
        f.set(U8, o + 1, (byte) 0);
        f.set(U16, o + 2, (short) total);
        f.set(U16, o + 4, (short) identification++);
        f.set(U16, o + 6, (short) FLAG_DF);
        f.set(U8, o + 8, (byte) DEFAULT_TTL);
        f.set(U8, o + 9, (byte) protocol);
        f.set(U16, o + 10, (short) 0);
        f.set(U32, o + 12, address);
        f.set(U32, o + 16, destination);
        f.set(U16, o + 10, (short) InternetChecksum.finish(InternetChecksum.sum(f, o, IPV4_HEADER, 0)));
        cpu.charge(CostItem.CHECKSUM, IPV4_HEADER);
        link.commit(handle, ip + total - attachedLength);
        counters.increment(Counter.IP_SENT);
    }

    /** Returns a claimed frame unsent. */
    public void abort(int handle) {
        link.abort(handle);
    }

    @Override
    public String toString() {
        return "IPv4 " + Ipv4Address.toString(address) + " on " + link + ": " + counters;
    }
}
