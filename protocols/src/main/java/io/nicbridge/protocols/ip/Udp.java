package io.nicbridge.protocols.ip;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.ip.IpCounters.Counter;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * UDP (RFC 768) over an {@link Ipv4Stack}, as U-Net's UDP has it (paper 7.6), on either link:
 * <ul>
 *   <li><b>Demultiplexing</b>: one {@link UdpPcb} per bound port in a direct table, and in front of it a pcb cache per
 *       incoming channel (Partridge and Pink's "A Faster UDP", the paper's [23]): a U-Net channel carries the traffic
 *       of one peer application, so the pcb its last datagram went to is almost always the next one's - a hit costs
 *       one compare, no table. On Ethernet (no channel) the table alone.</li>
 *   <li><b>The checksum</b>, optional per pcb on send and checked on receive whenever the sender put one in, computed
 *       in the same pass as a copy: on send while the data is copied into the frame
 *       ({@link InternetChecksum#copyAndSum}), on receive - for a pcb {@linkplain #bind(int, UdpReceiver, boolean,
 *       MemorySegment, long, int) bound with a receive area} - while the datagram is copied out of the communication
 *       segment into the application's memory, so the data is read once. A pcb bound without one sees the datagram in
 *       place in the receive buffer (after a checksum pass of its own).</li>
 *   <li><b>Scatter-gather send</b> ({@link UdpPcb#sendBlocks}): a datagram whose data are blocks of a
 *       {@link SharedBuffers} pool; over U-Net the card gathers them after the headers with no copy, each block
 *       referenced until the card has read it; on Ethernet they are copied into the frame.</li>
 * </ul>
 * Malformed datagrams (length under 8 or past the IP payload, a bad checksum), datagrams too long for their pcb's
 * receive area and datagrams to unbound ports are dropped and counted.
 */
public final class Udp {
    public static final int HEADER = 8;
    private static final int PORTS = 65536;
    /** Channels a pcb cache is kept for (a U-Net endpoint's: {@code MAX_CHANNELS}). */
    static final int CACHED_CHANNELS = 64;

    private final Ipv4Stack ip;
    private final IpCounters counters;
    private final UdpPcb[] pcbs = new UdpPcb[PORTS];
    private final UdpPcb[] channelCache = new UdpPcb[CACHED_CHANNELS];
    private long cacheHits;
    private long cacheMisses;

    /** Registers itself with {@code ip} for protocol 17. */
    public Udp(Ipv4Stack ip) {
        this.ip = Objects.requireNonNull(ip, "ip");
        this.counters = ip.counters();
        ip.register(Ipv4Stack.PROTOCOL_UDP, this::onDatagram);
    }

    /**
     * Binds a port (setup-time); its receiver sees each datagram in place in the link's receive buffer.
     *
     * @param checksum whether datagrams sent from this port carry the checksum
     * @throws IllegalArgumentException for a port outside 1..65535 or one already bound
     */
    public UdpPcb bind(int port, UdpReceiver receiver, boolean checksum) {
        return bind(port, receiver, checksum, null, 0, 0);
    }

    /**
     * Binds a port whose datagrams are copied out of the receive buffer into the application's
     * {@code area[offset, offset + capacity)}, the checksum verified in the same pass; the receiver is then handed
     * {@code area} with the datagram at {@code offset}. A datagram whose checksum fails is not delivered (the area
     * holds its bytes, which nobody is told of); one longer than {@code capacity} is dropped as {@code UDP_TOO_LONG}.
     *
     * @throws IllegalArgumentException for a port outside 1..65535, one already bound, or an area range outside
     *                                  {@code area}
     */
    public UdpPcb bind(int port, UdpReceiver receiver, boolean checksum, MemorySegment area, long offset,
                       int capacity) {
        Objects.requireNonNull(receiver, "receiver");
        checkPort("port", port);
        if (area != null) {
            if (capacity < 1) {
                throw new IllegalArgumentException("capacity must be >= 1, was " + capacity);
            }
            Objects.checkFromIndexSize(offset, capacity, area.byteSize());
            if (offset > Integer.MAX_VALUE - capacity) {
                throw new IllegalArgumentException("the receive area must lie in the first 2 GiB of its segment (the"
                    + " receiver is handed an int offset), was at " + offset);
            }
        }
        if (pcbs[port] != null) {
            throw new IllegalArgumentException("UDP port " + port + " is already bound");
        }
        UdpPcb pcb = new UdpPcb(this, port, receiver, checksum, area, offset, capacity);
        pcbs[port] = pcb;
        return pcb;
    }

    /** Unbinds a pcb's port; datagrams to it are counted as {@link Counter#UDP_NO_PORT} from now on. */
    public void unbind(UdpPcb pcb) {
        if (pcbs[pcb.port()] == pcb) {
            pcbs[pcb.port()] = null;
            for (int c = 0; c < CACHED_CHANNELS; c++) {
                if (channelCache[c] == pcb) {
                    channelCache[c] = null;
                }
            }
        }
    }

    /** @return the most data bytes one datagram carries (MTU less the IPv4 and UDP headers) */
    public int maxPayload() {
        return ip.mtu() - Ipv4Stack.IPV4_HEADER - HEADER;
    }

    /** @return datagrams whose pcb came from their channel's cache */
    public long pcbCacheHits() {
        return cacheHits;
    }

    /** @return datagrams that came on a channel whose cache held another pcb (or none): the table was looked up */
    public long pcbCacheMisses() {
        return cacheMisses;
    }

    private static void checkPort(String name, int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(name + " must be in [1, 65535], was " + port);
        }
    }

    private void checkSend(int destinationPort, int length) {
        checkPort("destinationPort", destinationPort);
        if (length < 0 || length > maxPayload()) {
            throw new IllegalArgumentException("length must be in [0, " + maxPayload() + "] (no fragmentation), was "
                + length);
        }
    }

    /** Writes the UDP header at {@code u}; the checksum field 0 (filled in later, or "none"). */
    private static void header(MemorySegment f, int u, int sourcePort, int destinationPort, int udpLength) {
        f.set(Ipv4Stack.U16, u, (short) sourcePort);
        f.set(Ipv4Stack.U16, u + 2, (short) destinationPort);
        f.set(Ipv4Stack.U16, u + 4, (short) udpLength);
        f.set(Ipv4Stack.U16, u + 6, (short) 0);
    }

    /** Stores a finished checksum; a computed 0 is sent as all ones, since 0 means "no checksum" (RFC 768). */
    private static void storeChecksum(MemorySegment f, int u, long sum) {
        int c = InternetChecksum.finish(sum);
        f.set(Ipv4Stack.U16, u + 6, (short) (c == 0 ? 0xFFFF : c));
    }

    int send(UdpPcb pcb, int destination, int destinationPort, MemorySegment data, long offset, int length,
             long now) {
        checkSend(destinationPort, length);
        Objects.checkFromIndexSize(offset, length, data.byteSize());
        int h = ip.claim(destination, now);
        if (h < 0) {
            return h;
        }
        HostCpu cpu = ip.cpu();
        MemorySegment f = ip.txBuffer(h);
        int u = ip.transportOffset();
        int udpLength = HEADER + length;
        header(f, u, pcb.port(), destinationPort, udpLength);
        cpu.charge(CostItem.COPY, length);
        if (pcb.checksums()) {
            long sum = InternetChecksum.pseudoHeader(ip.address(), destination, Ipv4Stack.PROTOCOL_UDP, udpLength);
            sum = InternetChecksum.sum(f, u, HEADER, sum);
            sum = InternetChecksum.copyAndSum(data, offset, f, u + HEADER, length, sum);
            storeChecksum(f, u, sum);
            cpu.charge(CostItem.CHECKSUM, udpLength);
        } else {
            MemorySegment.copy(data, offset, f, u + HEADER, length);
        }
        ip.send(h, Ipv4Stack.PROTOCOL_UDP, destination, udpLength);
        pcb.sent++;
        counters.increment(Counter.UDP_SENT);
        return 0;
    }

    /**
     * The scatter-gather send: the data are {@code lengths[i]} bytes from the start of block {@code blocks[i]} of
     * {@code pool}, for {@code i < count}, in order.
     */
    int sendBlocks(UdpPcb pcb, int destination, int destinationPort, SharedBuffers pool, int[] blocks,
                   int[] lengths, int count, long now) {
        Objects.requireNonNull(pool, "pool");
        if (count < 1 || count > blocks.length || count > lengths.length) {
            throw new IllegalArgumentException("count must be in [1, " + Math.min(blocks.length, lengths.length)
                + "] (the arrays' length), was " + count);
        }
        int length = 0;
        for (int i = 0; i < count; i++) {
            pool.checkLength(blocks[i], lengths[i]);
            if (pool.referenceCount(blocks[i]) == 0) {
                throw new IllegalStateException(pool + ": block " + blocks[i] + " is free (send it while holding a"
                    + " reference)");
            }
            length += lengths[i];
        }
        checkSend(destinationPort, length);
        int limit = ip.link().gatherLimit(pool);
        if (limit > 0 && count > limit) {
            throw new IllegalArgumentException("count must be at most " + limit + " (the blocks one send descriptor"
                + " gathers after the headers), was " + count);
        }
        int h = ip.claim(destination, now);
        if (h < 0) {
            return h;
        }
        HostCpu cpu = ip.cpu();
        MemorySegment f = ip.txBuffer(h);
        int u = ip.transportOffset();
        int udpLength = HEADER + length;
        header(f, u, pcb.port(), destinationPort, udpLength);
        long sum = pcb.checksums()
            ? InternetChecksum.sum(f, u, HEADER,
                InternetChecksum.pseudoHeader(ip.address(), destination, Ipv4Stack.PROTOCOL_UDP, udpLength))
            : 0;
        boolean odd = false;
        int at = u + HEADER;
        for (int i = 0; i < count; i++) {
            MemorySegment block = pool.buffer(blocks[i]);
            int n = lengths[i];
            if (limit > 0) {
                if (pcb.checksums()) {
                    sum += InternetChecksum.sumAt(block, 0, n, odd);
                }
                ip.link().attach(h, pool, blocks[i], n); // the card gathers it: no copy
            } else if (pcb.checksums()) {
                sum += InternetChecksum.sumAt(block, 0, n, odd);
                MemorySegment.copy(block, 0, f, at, n);
                cpu.charge(CostItem.COPY, n);
            } else {
                MemorySegment.copy(block, 0, f, at, n);
                cpu.charge(CostItem.COPY, n);
            }
            at += n;
            odd ^= (n & 1) != 0;
        }
        if (pcb.checksums()) {
            storeChecksum(f, u, sum);
            cpu.charge(CostItem.CHECKSUM, udpLength);
        }
        ip.sendGathered(h, Ipv4Stack.PROTOCOL_UDP, destination, udpLength, limit > 0 ? length : 0);
        pcb.sent++;
        counters.increment(Counter.UDP_SENT);
        return 0;
    }

    private void onDatagram(MemorySegment frame, int offset, int length, int source, int destination, long now) {
        HostCpu cpu = ip.cpu();
        if (length < HEADER) {
            counters.increment(Counter.UDP_BAD_LENGTH);
            return;
        }
        int udpLength = Short.toUnsignedInt(frame.get(Ipv4Stack.U16, offset + 4));
        if (udpLength < HEADER || udpLength > length) {
            counters.increment(Counter.UDP_BAD_LENGTH);
            return;
        }
        int port = Short.toUnsignedInt(frame.get(Ipv4Stack.U16, offset + 2));
        UdpPcb pcb = lookup(port);
        boolean checked = frame.get(Ipv4Stack.U16, offset + 6) != 0;
        int dataLength = udpLength - HEADER;
        if (pcb != null && pcb.area() != null) {
            if (dataLength > pcb.capacity()) {
                counters.increment(Counter.UDP_TOO_LONG);
                return;
            }
            // The copy out of the communication segment with the checksum in the same pass (paper 7.6).
            cpu.charge(CostItem.COPY, dataLength);
            if (checked) {
                long sum = InternetChecksum.pseudoHeader(source, destination, Ipv4Stack.PROTOCOL_UDP, udpLength);
                sum = InternetChecksum.sum(frame, offset, HEADER, sum);
                sum = InternetChecksum.copyAndSum(frame, offset + HEADER, pcb.area(), pcb.areaOffset(), dataLength,
                    sum);
                cpu.charge(CostItem.CHECKSUM, udpLength);
                if (!InternetChecksum.verifies(sum)) {
                    counters.increment(Counter.UDP_BAD_CHECKSUM);
                    return;
                }
            } else {
                MemorySegment.copy(frame, offset + HEADER, pcb.area(), pcb.areaOffset(), dataLength);
            }
            deliver(pcb, source, frame, offset, pcb.area(), pcb.areaOffset(), dataLength, now);
            return;
        }
        if (checked) {
            long sum = InternetChecksum.pseudoHeader(source, destination, Ipv4Stack.PROTOCOL_UDP, udpLength);
            cpu.charge(CostItem.CHECKSUM, udpLength);
            if (!InternetChecksum.verifies(InternetChecksum.sum(frame, offset, udpLength, sum))) {
                counters.increment(Counter.UDP_BAD_CHECKSUM);
                return;
            }
        }
        if (pcb == null) {
            counters.increment(Counter.UDP_NO_PORT);
            return;
        }
        deliver(pcb, source, frame, offset, frame, offset + HEADER, dataLength, now);
    }

    private void deliver(UdpPcb pcb, int source, MemorySegment frame, int offset, MemorySegment data, long at,
                         int length, long now) {
        pcb.received++;
        counters.increment(Counter.UDP_DELIVERED);
        ip.cpu().charge(CostItem.HANDLER_DISPATCH);
        pcb.receiver().onDatagram(pcb, source, Short.toUnsignedInt(frame.get(Ipv4Stack.U16, offset)), data,
            (int) at, length, now);
    }

    /** The pcb of {@code port}: from the arrival channel's cache when it holds it, else the table (and cached). */
    private UdpPcb lookup(int port) {
        int channel = ip.arrivalChannel();
        if (channel >= 0 && channel < CACHED_CHANNELS) {
            UdpPcb cached = channelCache[channel];
            if (cached != null && cached.port() == port) {
                cacheHits++;
                return cached;
            }
            cacheMisses++;
            ip.cpu().charge(CostItem.TABLE_LOOKUP);
            UdpPcb pcb = pcbs[port];
            if (pcb != null) {
                channelCache[channel] = pcb;
            }
            return pcb;
        }
        ip.cpu().charge(CostItem.TABLE_LOOKUP);
        return pcbs[port];
    }
}
