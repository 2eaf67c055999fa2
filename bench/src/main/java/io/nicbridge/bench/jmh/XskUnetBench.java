package io.nicbridge.bench.jmh;

import static io.nicbridge.contract.Sba200Unet.INLINE_MAX;

import io.nicbridge.bench.unet.real.UnetRealPingPong;
import io.nicbridge.bridge.driver.unet.Endpoint;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.shim.XskUnetEndpoint;
import io.nicbridge.bridge.spi.Availability;
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
 * U-Net over AF_XDP on a veth pair, on ONE thread, for the two ways this project puts a U-Net endpoint on the AF_XDP
 * rings ({@code backend}):
 * <ul>
 *   <li>{@code direct}: two direct-access endpoints ({@link XskUnetEndpoint}: the endpoint's queues are the rings);
 *   <li>{@code card}: the shim's SBA-200 card on {@code shim:afxdp} (threaded) under {@code UnetKernelDriver}, the
 *       card model between the endpoint's queues and the rings.
 * </ul>
 * {@code oneWay}: A sends {@code length} bytes (copied behind its header into a transmit chunk, put on TX, the kernel
 * kicked), B waits in {@code await} and takes the message in place, releases it: one frame's send and receive through
 * the rings. {@code roundTrip}: that and the echo back. {@code -prof gc} shows what the path allocates (nothing).
 * Needs root; otherwise setup fails with the reason.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class XskUnetBench {
    static final int CHANNEL = UnetRealPingPong.CHANNEL;

    @Param({"40", "1492"})
    public int length;

    @Param({"direct", "card"})
    public String backend;

    private VethPair veth;
    private UnetRealPingPong.Pair pair;
    private Endpoint a;
    private Endpoint b;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Availability xdp = ShimBackendProvider.xdpAvailability();
        Availability net = VethPair.availability();
        if (!net.available() || !xdp.available()) {
            throw new IllegalStateException("needs veth pairs and AF_XDP: " + (net.available() ? xdp : net).reason());
        }
        veth = VethPair.builder().ipv4(false).create();
        pair = UnetRealPingPong.open(switch (backend) {
            case "direct" -> "direct";
            case "card" -> "afxdp";
            default -> throw new IllegalArgumentException("backend must be direct or card, was " + backend);
        }, veth);
        a = pair.a;
        b = pair.b;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        pair.close();
        veth.close();
    }

    @Benchmark
    public int oneWay() throws InterruptedException {
        send(a);
        long d = take(b);
        int n = b.length(d);
        b.release(d);
        return n;
    }

    @Benchmark
    public int roundTrip() throws InterruptedException {
        send(a);
        long d = take(b);
        b.release(d);
        send(b);
        d = take(a);
        int n = a.length(d);
        a.release(d);
        return n;
    }

    private void send(Endpoint ep) {
        boolean sent = length <= INLINE_MAX ? ep.sendInline(CHANNEL, ep.segment(), 0, length)
            : ep.send(CHANNEL, 0, length);
        if (!sent) {
            throw new IllegalStateException(ep + ": send queue full");
        }
        ep.reapSends();
    }

    private static long take(Endpoint ep) throws InterruptedException {
        long d = ep.await(1, TimeUnit.SECONDS);
        if (d < 0) {
            throw new IllegalStateException(ep + ": message lost");
        }
        return d;
    }
}
