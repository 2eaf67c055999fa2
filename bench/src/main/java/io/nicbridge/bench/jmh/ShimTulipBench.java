package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.platform.NetworkNamespace;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.shim.ShimCard;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.bridge.spi.Backends;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
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
import org.openjdk.jmh.annotations.Timeout;

/**
 * A round trip over a real veth pair (two network namespaces) on ONE thread, through the native shim and, as the
 * baseline in the same run, through kernel UDP sockets on the same pair:
 * <ul>
 *   <li>{@code shimRoundTrip}: two shim-served 21140s in inline mode with interrupt-driven Tulip drivers. A commits
 *   a frame (the CSR1 doorbell runs the transmit process on this thread: descriptor, DMA, PACKET_MMAP TX ring or
 *   send(), or with {@code transport=afxdp} the XSK TX ring in the UMEM and a sendto kick); B waits on its interrupt line, which runs B's card on this thread (epoll wait on the RX ring, the frame into
 *   B's descriptor, RI); B echoes; A receives the same way. Frames are {@code length} bytes without FCS.</li>
 *   <li>{@code udpRoundTrip}: connected blocking {@link DatagramChannel}s, one per namespace, with the UDP payload
 *   that makes the same Ethernet frame ({@code length - 42}, at least 18): write, read on the other side, write
 *   back, read.</li>
 * </ul>
 * One thread means no scheduler hand-offs in either path: the difference is the per-frame cost of each stack.
 * Both allocate nothing per round trip ({@code -prof gc}). Needs CAP_NET_RAW and namespaces (as root); otherwise
 * setup fails with the reason.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
// A datagram lost on the veth leaves udpRoundTrip's blocking read waiting for ever (it once held a shared machine for
// 20 minutes): JMH interrupts an iteration past this bound, which closes the interruptible channel and fails the run.
@Timeout(time = 60, timeUnit = TimeUnit.SECONDS)
public class ShimTulipBench {
    /** Ethernet II + IPv4 + UDP headers in front of a UDP payload. */
    static final int UDP_FRAME_OVERHEAD = 14 + 20 + 8;

    @Param({"64", "1514"})
    public int length;

    /**
     * The shim's transport: AF_PACKET with one send() per frame or with the PACKET_MMAP TX ring (the backend's
     * {@code tx=}), or AF_XDP ({@code shim:afxdp}: both cards' frames through the XSK rings and their UMEMs).
     */
    @Param({"afpacket-send", "afpacket-ring", "afxdp"})
    public String transport;

    private VethPair veth;
    private ShimCard cardA;
    private ShimCard cardB;
    private TulipDriver a;
    private TulipDriver b;
    private long macA;
    private long macB;
    private DatagramChannel udpA;
    private DatagramChannel udpB;
    private ByteBuffer udpOut;
    private ByteBuffer udpIn;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Availability pair = VethPair.availability();
        if (!pair.available()) {
            throw new IllegalStateException("veth pairs unavailable: " + pair.reason());
        }
        veth = VethPair.create();
        cardA = open(veth.interfaceA(), veth.namespaceA(), transport);
        cardB = open(veth.interfaceB(), veth.namespaceB(), transport);
        a = driver(cardA);
        b = driver(cardB);
        macA = a.stationAddress().value();
        macB = b.stationAddress().value();
        udpA = udp(veth.namespaceA(), new InetSocketAddress(veth.addressA(), 0));
        udpB = udp(veth.namespaceB(), new InetSocketAddress(veth.addressB(), 0));
        udpA.connect(udpB.getLocalAddress());
        udpB.connect(udpA.getLocalAddress());
        int payload = Math.max(18, length - UDP_FRAME_OVERHEAD);
        udpOut = ByteBuffer.allocateDirect(payload);
        udpIn = ByteBuffer.allocateDirect(payload);
    }

    private static ShimCard open(String ifname, NetworkNamespace ns, String transport) {
        String target = switch (transport) {
            case "afpacket-send" -> "afpacket?tx=send&";
            case "afpacket-ring" -> "afpacket?tx=ring&";
            case "afxdp" -> "afxdp?";
            default -> throw new IllegalArgumentException("transport " + transport);
        };
        return (ShimCard) Backends.open("shim:" + target + "if=" + ifname + "&card=dec21140&mode=inline&netns="
            + ns.name());
    }

    private static TulipDriver driver(ShimCard card) {
        TulipDriver d = TulipDriver.open(card, TulipConfig.defaults());
        if (!d.awaitFilterLoaded(TimeUnit.SECONDS.toNanos(5), card.progress())) {
            throw new IllegalStateException(card.name() + ": setup frame not processed");
        }
        return d;
    }

    private static DatagramChannel udp(NetworkNamespace ns, InetSocketAddress local) throws Exception {
        return ns.call(() -> DatagramChannel.open(StandardProtocolFamily.INET).bind(local));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        udpA.close();
        udpB.close();
        a.close();
        b.close();
        cardA.close();
        cardB.close();
        veth.close();
    }

    @Benchmark
    public int shimRoundTrip() throws InterruptedException {
        send(a, macB, macA);
        echo(b, macA, macB);
        return take(a);
    }

    @Benchmark
    public int udpRoundTrip() throws IOException {
        udpOut.clear();
        udpA.write(udpOut);
        udpIn.clear();
        udpB.read(udpIn);
        udpIn.flip();
        udpB.write(udpIn);
        udpOut.clear();
        return udpA.read(udpOut);
    }

    private void send(TulipDriver d, long dst, long src) {
        int h = d.claim();
        if (h == FramePort.NONE) {
            throw new IllegalStateException(d.name() + ": transmit ring full " + d.counters());
        }
        MemorySegment buf = d.txBuffer(h);
        MacAddress.write(dst, buf, 0);
        MacAddress.write(src, buf, 6);
        d.commit(h, length);
    }

    private void echo(TulipDriver d, long dst, long src) throws InterruptedException {
        take(d);
        send(d, dst, src);
    }

    private static int take(TulipDriver d) throws InterruptedException {
        int h = d.await(1, TimeUnit.SECONDS);
        if (h == FramePort.NONE) {
            throw new IllegalStateException(d.name() + ": frame lost " + d.counters());
        }
        int n = d.rxLength(h);
        d.release(h);
        return n;
    }
}
