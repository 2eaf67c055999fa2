package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.port.LoopbackFramePort;
import io.nicbridge.protocols.ip.Ipv4Address;
import io.nicbridge.protocols.ip.Ipv4Stack;
import io.nicbridge.protocols.ip.Udp;
import io.nicbridge.protocols.ip.UdpPcb;
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
 * The user-level UDP/IPv4 stack's per-datagram cost ({@code io.nicbridge.protocols.ip}), on one thread, two stacks
 * back to back on a zero-copy {@link LoopbackFramePort} pair (ARP resolved at setup), with the UDP checksum on and
 * off and two payload sizes (64 B, and 1472 B = a full 1500-byte Ethernet MTU):
 * <ul>
 *   <li>{@code send}: the application's bytes copied into the TX frame (checksum fused with the copy), UDP, IPv4 and
 *       Ethernet headers written, committed; the receiving port's frame released unread.</li>
 *   <li>{@code receive}: a prepared frame parsed in place (Ethernet, IPv4 header checksum, UDP length and checksum,
 *       port demultiplexing) and handed to the pcb's receiver.</li>
 *   <li>{@code sendAndReceive}: both, through the port pair.</li>
 * </ul>
 * Must allocate nothing (-prof gc ~0 B/op).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class UdpBench {
    private static final int IP_A = Ipv4Address.parse("10.9.0.1");
    private static final int IP_B = Ipv4Address.parse("10.9.0.2");

    @Param({"true", "false"})
    public boolean checksum;

    @Param({"64", "1472"})
    public int size;

    private CommSegment comm;
    private LoopbackFramePort.Pair pair;
    private Ipv4Stack a;
    private Ipv4Stack b;
    private UdpPcb sender;
    private Arena arena;
    private MemorySegment data;
    private MemorySegment frame;
    private int frameLength;
    private long received;

    @Setup(Level.Trial)
    public void setUp() {
        comm = CommSegment.allocate("udp-bench", LoopbackFramePort.requiredBytes(16, 1514));
        pair = LoopbackFramePort.pair("udp-bench", comm, 16, 1514);
        a = new Ipv4Stack(pair.a(), 0x02_00_00_00_00_0AL, IP_A, 24, Ipv4Stack.ETHERNET_MTU);
        b = new Ipv4Stack(pair.b(), 0x02_00_00_00_00_0BL, IP_B, 24, Ipv4Stack.ETHERNET_MTU);
        sender = new Udp(a).bind(5000, (pcb, src, sp, d, off, len, t) -> { }, checksum);
        new Udp(b).bind(6000, (pcb, src, sp, d, off, len, t) -> received += len, checksum);
        arena = Arena.ofShared();
        data = arena.allocate(size, 8);
        for (int i = 0; i < size; i++) {
            data.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        }
        for (int i = 0; i < 3 && sender.send(IP_B, 6000, data, 0, size, 0) != 0; i++) { // ARP both ways
            b.poll(16, 0);
            a.poll(16, 0);
        }
        b.poll(16, 0);
        if (sender.send(IP_B, 6000, data, 0, size, 0) != 0) {
            throw new IllegalStateException("ARP did not resolve: " + a.counters());
        }
        int h = pair.b().poll();
        frameLength = pair.b().rxLength(h);
        frame = arena.allocate(1514, 8);
        MemorySegment.copy(pair.b().rxBuffer(h), 0, frame, 0, frameLength);
        pair.b().release(h);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (b.counters().dropped() != 0) {
            throw new IllegalStateException("the benchmark dropped datagrams: " + b.counters());
        }
        pair.close();
        comm.close();
        arena.close();
    }

    @Benchmark
    public int send() {
        int rc = sender.send(IP_B, 6000, data, 0, size, 0);
        int h = pair.b().poll();
        pair.b().release(h);
        return rc;
    }

    @Benchmark
    public long receive() {
        b.receive(frame, frameLength, 0);
        return received;
    }

    @Benchmark
    public long sendAndReceive() {
        sender.send(IP_B, 6000, data, 0, size, 0);
        b.poll(1, 0);
        return received;
    }
}
