package io.nicbridge.bench.jmh;

import io.nicbridge.protocols.ip.Ipv4Address;
import io.nicbridge.protocols.ip.tcp.SegmentSink;
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
 * The TCP core's fast path ({@code io.nicbridge.protocols.ip.tcp}) on one thread: two {@link Tcp}s with an
 * established connection, joined by an in-memory queue of segment buffers (no IP or Ethernet: the TCP's own cost).
 * One operation: the application writes {@code size} bytes, the sender emits the data segment (header, copy out of
 * the send ring, checksum), the receiver checks and accepts it (checksum, acceptability, copy into the receive ring),
 * its application reads the bytes and its ACK goes back and is processed by the sender (RTT sample, congestion
 * window, send ring freed). Must allocate nothing (-prof gc ~0 B/op).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TcpBench {
    private static final int IP_A = Ipv4Address.parse("10.9.0.1");
    private static final int IP_B = Ipv4Address.parse("10.9.0.2");

    @Param({"64", "1460"})
    public int size;

    private Arena arena;
    private Queue toB;
    private Queue toA;
    private Tcp a;
    private Tcp b;
    private TcpConnection client;
    private MemorySegment data;
    private TcpSink reader;
    private long now = 1_000_000_000L;

    /** A FIFO of preallocated 2 KiB segment buffers: what one TCP sends, the other takes. */
    private static final class Queue implements SegmentSink {
        private static final int SLOTS = 16;
        private final MemorySegment slots;
        private final MemorySegment[] buffers = new MemorySegment[SLOTS];
        private final int[] lengths = new int[SLOTS];
        private int head;
        private int tail;

        Queue(Arena arena) {
            slots = arena.allocate(SLOTS * 2048L, 64);
            for (int i = 0; i < SLOTS; i++) {
                buffers[i] = slots.asSlice(i * 2048L, 2048); // made once: a slice per claim would allocate
            }
        }

        @Override
        public int claim(int destination, long nowNanos) {
            return tail - head == SLOTS ? -1 : tail % SLOTS;
        }

        @Override
        public MemorySegment buffer(int handle) {
            return buffers[handle];
        }

        @Override
        public int offset() {
            return 0;
        }

        @Override
        public int maxSegment() {
            return 1480;
        }

        @Override
        public void send(int handle, int destination, int length) {
            lengths[handle] = length;
            tail++;
        }

        /** Hands every queued segment to {@code to}. */
        int drain(Tcp to, int source, int destination, long now) {
            int n = 0;
            while (head != tail) {
                int h = head % SLOTS;
                to.onSegment(slots, h * 2048, lengths[h], source, destination, now);
                head++;
                n++;
            }
            return n;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        toB = new Queue(arena);
        toA = new Queue(arena);
        TcpConfig config = TcpConfig.defaults().withConnections(1);
        a = new Tcp(toB, IP_A, config, arena);
        b = new Tcp(toA, IP_B, config, arena);
        reader = new TcpSink(arena.allocate(65536, 64));
        b.listen(80, reader);
        client = a.connect(IP_B, 80, new TcpHandler() { }, now);
        for (int i = 0; i < 4; i++) {
            exchange();
        }
        if (client.state() != TcpState.ESTABLISHED || reader.connection == null) {
            throw new IllegalStateException("no connection: " + client + " " + a.counters() + " " + b.counters());
        }
        data = arena.allocate(size, 8);
    }

    private void exchange() {
        now += 10_000;
        toB.drain(b, IP_A, IP_B, now);
        toA.drain(a, IP_B, IP_A, now);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (a.counters().malformed() + b.counters().malformed() != 0 || client.unacknowledged() != 0) {
            throw new IllegalStateException("the benchmark lost data: " + a.counters() + " " + b.counters());
        }
        arena.close();
    }

    @Benchmark
    public long writeSendReceiveAck() {
        client.write(data, 0, size, now);
        exchange();
        return reader.bytes;
    }
}
