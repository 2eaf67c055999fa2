package io.nicbridge.bench.jmh;

import io.nicbridge.protocols.core.LoopbackLink;
import io.nicbridge.protocols.ip.Ipv4Address;
import io.nicbridge.protocols.ip.Ipv4Stack;
import io.nicbridge.protocols.ip.UnetIpLink;
import io.nicbridge.protocols.ip.tcp.Tcp;
import io.nicbridge.protocols.ip.tcp.TcpConfig;
import io.nicbridge.protocols.ip.tcp.TcpConnection;
import io.nicbridge.protocols.ip.tcp.TcpHandler;
import io.nicbridge.protocols.ip.tcp.TcpState;
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
import org.openjdk.jmh.annotations.TearDown;

/**
 * TCP over the U-Net adapter ({@code UnetIpLink}, the channel the route, MTU 9 KB) with the paper's 2048-byte
 * segments: the user-level stack's per-segment cost on one thread, two IPv4 stacks with a {@link Tcp} each back to
 * back on a {@link LoopbackLink} pair standing in for a U-Net channel (no card model, no clock: the protocol software
 * alone, as {@link UnetUdpBench} measures UDP on the same adapter and {@link TcpBench} TCP without IP). One operation
 * on an established connection: the application writes {@code size} bytes (into the send ring), the sender emits the
 * segment (TCP header, copy out of the ring, checksum; IPv4 header, the channel's frame committed), the receiver polls
 * it (IPv4 header check, TCP checksum, connection lookup, acceptability, copy into the receive ring) and its
 * application reads it out; the ACK goes back through both stacks and the sender processes it (RTT sample, window,
 * ring freed). Must allocate nothing (-prof gc ~0 B/op).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class UnetTcpBench {
    static final int IP_0 = Ipv4Address.parse("10.17.0.1");
    static final int IP_1 = Ipv4Address.parse("10.17.0.2");
    static final int MSS = 2048;

    @Param({"64", "2048"})
    public int size;

    private Arena arena;
    private Ipv4Stack a;
    private Ipv4Stack b;
    private Tcp tcpA;
    private Tcp tcpB;
    private TcpConnection client;
    private TcpSink reader;
    private MemorySegment data;
    private long now = 1_000_000_000L;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        LoopbackLink[] links = LoopbackLink.pair(Ipv4Stack.UNET_MTU);
        a = new Ipv4Stack(new UnetIpLink(links[0]).route(IP_1, 1), IP_0, 24, Ipv4Stack.UNET_MTU);
        b = new Ipv4Stack(new UnetIpLink(links[1]).route(IP_0, 0), IP_1, 24, Ipv4Stack.UNET_MTU);
        TcpConfig config = TcpConfig.defaults().withMss(MSS).withConnections(1);
        tcpA = Tcp.over(a, config, arena);
        tcpB = Tcp.over(b, config.withIssSeed(7), arena);
        reader = new TcpSink(arena.allocate(65536, 64));
        tcpB.listen(80, reader);
        client = tcpA.connect(IP_1, 80, new TcpHandler() { }, now);
        for (int i = 0; i < 4; i++) {
            exchange();
        }
        if (client.state() != TcpState.ESTABLISHED || reader.connection == null || client.mss() != MSS) {
            throw new IllegalStateException("no connection with 2048-byte segments: " + client + " "
                    + tcpA.counters() + " " + tcpB.counters());
        }
        data = arena.allocate(size, 8);
    }

    private void exchange() {
        now += 10_000;
        b.poll(16, now);
        a.poll(16, now);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (tcpA.counters().malformed() + tcpB.counters().malformed() != 0 || client.unacknowledged() != 0) {
            throw new IllegalStateException("the benchmark lost data: " + tcpA.counters() + " " + tcpB.counters());
        }
        arena.close();
    }

    @Benchmark
    public long writeSendReceiveAck() {
        if (client.write(data, 0, size, now) != size) {
            throw new IllegalStateException("the send ring is full on an idle connection: " + client);
        }
        exchange();
        return reader.bytes;
    }
}
