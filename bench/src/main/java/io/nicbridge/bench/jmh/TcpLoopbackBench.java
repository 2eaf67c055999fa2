package io.nicbridge.bench.jmh;

import io.nicbridge.bench.pingpong.TcpLoopbackPingPong;
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
 * The baseline for {@link TulipEmulatedBench}: one round trip of {@code length} bytes over Java TCP on loopback with
 * TCP_NODELAY, blocking sockets, an echo thread on the other end. Run both in the same JMH invocation and compare
 * {@code roundTrip} here with {@code TulipEmulatedBench.roundTrip}.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TcpLoopbackBench {
    @Param({"64", "1514"})
    public int length;

    private TcpLoopbackPingPong tcp;

    @Setup(Level.Trial)
    public void setUp() {
        tcp = new TcpLoopbackPingPong(length);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        tcp.close();
    }

    @Benchmark
    public long roundTrip() {
        return tcp.roundTrip() + tcp.lastByte();
    }
}
