package io.nicbridge.bench.jmh;

import io.nicbridge.protocols.core.LoopbackLink;
import io.nicbridge.protocols.ip.Ipv4Address;
import io.nicbridge.protocols.ip.Ipv4Stack;
import io.nicbridge.protocols.ip.Udp;
import io.nicbridge.protocols.ip.UdpPcb;
import io.nicbridge.protocols.ip.UnetIpLink;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * UDP over the U-Net adapter ({@code io.nicbridge.protocols.ip.UnetIpLink}, the channel the route, MTU 9 KB): the
 * user-level stack's per-datagram cost on one thread, two stacks back to back on a {@link LoopbackLink} pair standing
 * in for a U-Net link's channel (no card model, no clock: what is measured is the protocol software alone, as
 * {@code UdpBench} measures it on Ethernet), with the checksum on and off:
 * <ul>
 *   <li>{@code sendAndReceive}: node 0's bytes copied into the frame (the checksum fused with the copy), UDP and IPv4
 *       headers written, committed; node 1 polls it, checks the IPv4 header, finds the pcb in its channel's cache,
 *       checks the UDP checksum in place and hands the datagram to the receiver.</li>
 *   <li>{@code sendAndCopyOut}: the same, node 1's pcb bound with a receive area: the datagram is copied out of the
 *       receive buffer into application memory with the checksum verified in the same pass (paper 7.6).</li>
 * </ul>
 * Must allocate nothing (-prof gc ~0 B/op).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class UnetUdpBench {
    static final int IP_0 = Ipv4Address.parse("10.17.0.1");
    static final int IP_1 = Ipv4Address.parse("10.17.0.2");

    @Param({"64", "4096"})
    public int payload;

    @Param({"true", "false"})
    public boolean checksum;

    private Ipv4Stack a;
    private Ipv4Stack b;
    private UdpPcb pa;
    private MemorySegment message;
    private long received;
    private long now;

    @Setup(Level.Trial)
    public void setUp() {
        LoopbackLink[] links = LoopbackLink.pair(Ipv4Stack.UNET_MTU);
        a = new Ipv4Stack(new UnetIpLink(links[0]).route(IP_1, 1), IP_0, 24, Ipv4Stack.UNET_MTU);
        b = new Ipv4Stack(new UnetIpLink(links[1]).route(IP_0, 0), IP_1, 24, Ipv4Stack.UNET_MTU);
        pa = new Udp(a).bind(5000, (pcb, src, sp, d, off, len, t) -> { }, checksum);
        Udp udpB = new Udp(b);
        udpB.bind(6000, (pcb, src, sp, d, off, len, t) -> received++, checksum);
        udpB.bind(6001, (pcb, src, sp, d, off, len, t) -> received++, checksum, Arena.ofAuto().allocate(9216, 8),
                0, 9216);
        message = Arena.ofAuto().allocate(payload, 8);
    }

    private long roundOnce(int port) {
        if (pa.send(IP_1, port, message, 0, payload, now) != 0) {
            throw new IllegalStateException("no frame buffer on an idle loopback: " + a);
        }
        now += 1_000;
        long before = received;
        b.poll(16, now);
        if (received != before + 1) {
            throw new IllegalStateException("datagram not delivered: " + b);
        }
        return received;
    }

    @Benchmark
    public long sendAndReceive() {
        return roundOnce(6000);
    }

    @Benchmark
    public long sendAndCopyOut() {
        return roundOnce(6001);
    }
}
