package io.nicbridge.protocols.ip;

import static io.nicbridge.protocols.ip.Ipv4Stack.U16;
import static io.nicbridge.protocols.ip.Ipv4Stack.U32;
import static io.nicbridge.protocols.ip.Ipv4Stack.U8;

import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import io.nicbridge.protocols.ip.IpCounters.Counter;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * IPv4 on one Ethernet: the {@link IpLink} of a card's {@link FramePort} (the 21140, emulated or on the shim) - Ethernet
 * II framing and ARP (RFC 826) with a small cache, so that the kernel across a real link is a neighbour like any other.
 *
 * <pre>
 *  Ethernet II                     ARP (Ethernet/IPv4, 28 bytes after the Ethernet header)
 *  0      6      12    14          0     2     4  5  6     8      14     18     24     28
 *  +------+------+-----+----       +-----+-----+--+--+-----+------+------+------+------+
 *  | DA   | SA   |type | ...       |htype|ptype|hl|pl| op  | SHA  | SPA  | THA  | TPA  |
 *  +------+------+-----+----       +-----+-----+--+--+-----+------+------+------+------+
 *                0x0800 IPv4          1   0x800 6  4  1 req, 2 reply
 *                0x0806 ARP
 * </pre>
 * A {@link #claim} for a neighbour whose MAC is unknown sends an ARP request (at most one per retry interval) and
 * returns {@link Ipv4Stack#ARP_PENDING}; a destination off the on-link prefix is {@link Ipv4Stack#NO_ROUTE} (no
 * gateway, no forwarding). Received frames for another station or of another ethertype are dropped and counted in the
 * stack's {@link IpCounters}. There is no scatter-gather here: {@link #gatherLimit} is 0 and the transports copy.
 */
public final class EthernetIpLink implements IpLink {
    public static final int ETHERTYPE_IPV4 = 0x0800;
    public static final int ETHERTYPE_ARP = 0x0806;
    public static final int HEADER = 14;
    /** Ethernet's minimum frame without the FCS; shorter frames are padded with zeros. */
    public static final int MIN_FRAME = 60;
    static final long BROADCAST_MAC = 0xFFFF_FFFF_FFFFL;
    private static final int ARP_LENGTH = 28;

    private final FramePort port;
    private final long mac;
    private final ArpCache arp = new ArpCache(16);
    private Ipv4Stack stack;
    private IpCounters counters;

    /**
     * @param port the Ethernet port; stays the caller's to close
     * @param mac  this station's MAC as a 48-bit unicast value (the port must accept frames sent to it)
     * @throws IllegalArgumentException naming the bad argument
     */
    public EthernetIpLink(FramePort port, long mac) {
        this.port = Objects.requireNonNull(port, "port");
        if ((mac & ~BROADCAST_MAC) != 0 || (mac & 0x0100_0000_0000L) != 0) {
            throw new IllegalArgumentException("mac must be a 48-bit unicast address, was 0x" + Long.toHexString(mac));
        }
        this.mac = mac;
    }

    @Override
    public void attach(Ipv4Stack stack) {
        if (this.stack != null) {
            throw new IllegalStateException("this Ethernet link serves a stack already");
        }
        this.stack = stack;
        this.counters = stack.counters();
    }

    @Override
    public int header() {
        return HEADER;
    }

    @Override
    public int maxDatagram() {
        return port.maxFrameLength() - HEADER;
    }

    @Override
    public long mac() {
        return mac;
    }

    // ---------------------------------------------------------------------------------------------------- send

    @Override
    public int claim(int destination, long nowNanos) {
        int address = stack.address();
        int netmask = stack.netmask();
        long da;
        if (destination == Ipv4Address.BROADCAST || destination == (address | ~netmask)) {
            da = BROADCAST_MAC;
        } else if ((destination & netmask) != (address & netmask) || destination == address) {
            return Ipv4Stack.NO_ROUTE;
        } else {
            da = arp.lookup(destination, nowNanos);
            if (da == ArpCache.INCOMPLETE) {
                if (arp.requestDue(destination, nowNanos) && sendArp(1, 0, destination)) {
                    counters.increment(Counter.ARP_REQUESTS_SENT);
                }
                return Ipv4Stack.ARP_PENDING;
            }
        }
        int h = port.claim();
        if (h == FramePort.NONE) {
            return Ipv4Stack.NO_BUFFER;
        }
        MemorySegment f = port.txBuffer(h);
        writeMac(f, 0, da);
        writeMac(f, 6, mac);
        f.set(U16, 12, (short) ETHERTYPE_IPV4);
        return h;
    }

    @Override
    public MemorySegment txBuffer(int handle) {
        return port.txBuffer(handle);
    }

    @Override
    public void commit(int handle, int headBytes) {
        port.commit(handle, pad(port.txBuffer(handle), headBytes));
    }

    @Override
    public void abort(int handle) {
        port.abort(handle);
    }

    @Override
    public int gatherLimit(SharedBuffers buffers) {
        return 0;
    }

    @Override
    public void attach(int handle, SharedBuffers buffers, int buffer, int length) {
        throw new IllegalStateException(port.name() + ": Ethernet has no scatter-gather send here (gatherLimit 0)");
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

    // ---------------------------------------------------------------------------------------------------- receive

    @Override
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

    @Override
    public void receive(MemorySegment frame, int length, long nowNanos) {
        counters.increment(Counter.RX_FRAMES);
        if (length < HEADER || length > frame.byteSize()) {
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
            stack.deliver(frame, HEADER, length - HEADER, Ipv4Stack.NO_CHANNEL, nowNanos);
        } else if (type == ETHERTYPE_ARP) {
            receiveArp(frame, length, nowNanos);
        } else {
            counters.increment(Counter.RX_OTHER_ETHERTYPE);
        }
    }

    private void receiveArp(MemorySegment frame, int length, long now) {
        int a = HEADER;
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
        boolean forUs = targetIp == stack.address();
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
        int a = HEADER;
        f.set(U16, a, (short) 1);
        f.set(U16, a + 2, (short) ETHERTYPE_IPV4);
        f.set(U8, a + 4, (byte) 6);
        f.set(U8, a + 5, (byte) 4);
        f.set(U16, a + 6, (short) op);
        writeMac(f, a + 8, mac);
        f.set(U32, a + 14, stack.address());
        writeMac(f, a + 18, op == 1 ? 0 : targetMac);
        f.set(U32, a + 24, targetIp);
        port.commit(h, pad(f, a + ARP_LENGTH));
        return true;
    }

    static long readMac(MemorySegment s, long offset) {
        return Short.toUnsignedLong(s.get(U16, offset)) << 32 | Integer.toUnsignedLong(s.get(U32, offset + 2));
    }

    static void writeMac(MemorySegment s, long offset, long value) {
        s.set(U16, offset, (short) (value >>> 32));
        s.set(U32, offset + 2, (int) value);
    }

    @Override
    public String toString() {
        return "Ethernet " + port.name();
    }
}
