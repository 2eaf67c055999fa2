package io.nicbridge.bench.jmh;

import static io.nicbridge.contract.Sba200Unet.INLINE_MAX;

import io.nicbridge.bridge.platform.NetworkNamespace;
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
 * A U-Net round trip between two direct-access endpoints ({@link XskUnetEndpoint}: the endpoint's queues are the
 * AF_XDP rings) on a veth pair, on ONE thread: A sends ({@code length} bytes: the message is copied behind its header
 * into a transmit chunk, put on TX, and the kernel kicked), B waits in {@code await} (ppoll on its socket), takes the
 * message in place and sends it back, A takes the echo. Per round trip: two sends, two receives, two kicks, the
 * completions reaped. {@code -prof gc} shows what the path allocates (nothing). Needs root; otherwise setup fails with
 * the reason.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class XskUnetBench {
    static final int CHANNEL = 0;

    @Param({"40", "1492"})
    public int length;

    private VethPair veth;
    private XskUnetEndpoint a;
    private XskUnetEndpoint b;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Availability xdp = ShimBackendProvider.xdpAvailability();
        Availability pair = VethPair.availability();
        if (!pair.available() || !xdp.available()) {
            throw new IllegalStateException("needs veth pairs and AF_XDP: " + (pair.available() ? xdp : pair).reason());
        }
        veth = VethPair.builder().ipv4(false).create();
        a = open(veth.interfaceA(), veth.namespaceA(), veth.macB().toString(), 130, 131);
        b = open(veth.interfaceB(), veth.namespaceB(), veth.macA().toString(), 131, 130);
    }

    private static XskUnetEndpoint open(String ifname, NetworkNamespace ns, String peer, int txVci, int rxVci) {
        XskUnetEndpoint ep = ShimBackendProvider.openUnetEndpoint("shim:afxdp?if=" + ifname + "&card="
            + ShimBackendProvider.CARD_UNET_DIRECT + "&netns=" + ns.name() + "&peer=" + peer.replace(':', '-'),
            1024 * 1024);
        ep.openChannel(CHANNEL, 0, txVci, rxVci);
        ep.postReceiveBuffers(512 * 1024, 256, 2048);
        return ep;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        a.close();
        b.close();
        veth.close();
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

    private void send(XskUnetEndpoint ep) {
        boolean sent = length <= INLINE_MAX ? ep.sendInline(CHANNEL, ep.segment(), 0, length)
            : ep.send(CHANNEL, 0, length);
        if (!sent) {
            throw new IllegalStateException(ep + ": send queue full");
        }
        ep.reapSends();
    }

    private static long take(XskUnetEndpoint ep) throws InterruptedException {
        long d = ep.await(1, TimeUnit.SECONDS);
        if (d < 0) {
            throw new IllegalStateException(ep + ": message lost");
        }
        return d;
    }
}
