package io.nicbridge.protocols.unet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.unet.UnetGather;
import io.nicbridge.bridge.driver.unet.UnetLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.shim.XskUnetEndpoint;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.contract.NicShim;
import io.nicbridge.protocols.ip.Ipv4Address;
import io.nicbridge.protocols.ip.Ipv4Stack;
import io.nicbridge.protocols.ip.Udp;
import io.nicbridge.protocols.ip.UdpPcb;
import io.nicbridge.protocols.ip.UnetIpLink;
import io.nicbridge.protocols.ip.tcp.StreamApp;
import io.nicbridge.protocols.ip.tcp.Tcp;
import io.nicbridge.protocols.ip.tcp.TcpCloseReason;
import io.nicbridge.protocols.ip.tcp.TcpConfig;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * U-Net UDP and TCP on the direct-access endpoint ({@link XskUnetEndpoint}: the U-Net queues are an AF_XDP socket's
 * rings, no card model): the same {@link UnetLink}, {@link UnetIpLink}, {@link Ipv4Stack}, {@link Udp} and
 * {@link Tcp} as on the SBA-200 and the shim's card, at the two ends of a veth pair. One thread drives both ends
 * (there is no card thread to wait for); datagrams of every kind (inline, one buffer, the largest) and TCP streams
 * both ways arrive byte for byte. Skipped with the reason without root, namespaces or AF_XDP; required under
 * {@code NICBRIDGE_REQUIRE=net,shim}.
 */
class IpOverDirectUnetEthernetTest {
    static final int IP_A = Ipv4Address.parse("10.17.1.1");
    static final int IP_B = Ipv4Address.parse("10.17.1.2");
    static final int CHANNEL = 0;
    static final int VCI_A_TO_B = 120;
    static final int VCI_B_TO_A = 121;
    static final int CHUNK = NicShim.DEFAULT_FRAME_SIZE;
    static final int TX_BUFFERS = 32;
    static final int RX_BUFFERS = 64;
    /** The link's buffers, then room the endpoint needs: at least the RX ring's chunks. */
    static final long SEGMENT = (long) NicShim.DEFAULT_RING_FRAMES * CHUNK;
    static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    VethPair veth;
    XskUnetEndpoint[] eps = new XskUnetEndpoint[2];
    UnetLink[] links = new UnetLink[2];
    Ipv4Stack a;
    Ipv4Stack b;
    Arena arena;

    @BeforeEach
    void setUp() throws Exception {
        Availability shim = new ShimBackendProvider().availability();
        Requirements.assume(Capability.SHIM, shim.available(), shim::reason);
        Availability net = VethPair.availability();
        Requirements.assume(Capability.NET, net.available(), net::reason);
        Availability xdp = ShimBackendProvider.xdpAvailability();
        Requirements.assume(Capability.SHIM, xdp.available(), xdp::reason);
        veth = VethPair.builder().ipv4(false).create();
        String[] ifs = {veth.interfaceA(), veth.interfaceB()};
        String[] nss = {veth.namespaceA().name(), veth.namespaceB().name()};
        String[] peers = {veth.macB().toString().replace(':', '-'), veth.macA().toString().replace(':', '-')};
        int mtu = veth.mtu() - NicShim.UNET_TAG_SIZE;
        Ipv4Stack[] stacks = new Ipv4Stack[2];
        for (int i = 0; i < 2; i++) {
            eps[i] = ShimBackendProvider.openUnetEndpoint("shim:afxdp?if=" + ifs[i] + "&card=unet-direct&netns="
                + nss[i] + "&peer=" + peers[i], SEGMENT);
            eps[i].openChannel(CHANNEL, 0, i == 0 ? VCI_A_TO_B : VCI_B_TO_A, i == 0 ? VCI_B_TO_A : VCI_A_TO_B);
            links[i] = new UnetLink("direct-" + i, eps[i], i, new int[] {CHANNEL, CHANNEL}, 0, mtu, TX_BUFFERS,
                RX_BUFFERS);
            UnetIpLink ip = new UnetIpLink(links[i]).route(i == 0 ? IP_B : IP_A, 1 - i);
            stacks[i] = new Ipv4Stack(ip, i == 0 ? IP_A : IP_B, 24, mtu);
        }
        a = stacks[0];
        b = stacks[1];
        arena = Arena.ofConfined();
    }

    @AfterEach
    void tearDown() {
        for (int i = 0; i < 2; i++) {
            if (links[i] != null) {
                links[i].close();
            }
            if (eps[i] != null) {
                eps[i].close();
            }
        }
        if (arena != null) {
            arena.close();
        }
        if (veth != null) {
            veth.close();
        }
    }

    static byte[] pattern(int length, int seed) {
        byte[] m = new byte[length];
        for (int i = 0; i < length; i++) {
            m[i] = (byte) (i * 31 + seed);
        }
        return m;
    }

    /** Steps both stacks until {@code done}, waiting on B's socket (the endpoint's own wait) when neither found any. */
    void runUntil(BooleanSupplier done, Tcp... tcps) throws InterruptedException {
        long end = System.nanoTime() + LIMIT_NANOS;
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < end, "timed out: " + links[0] + " / " + links[1]);
            long now = System.nanoTime();
            int n = a.poll(64, now) + b.poll(64, now);
            for (Tcp t : tcps) {
                t.poll(now);
            }
            if (n == 0) {
                links[1].awaitFrame(TimeUnit.MICROSECONDS.toNanos(100));
            }
        }
    }

    @Test
    void udpDatagramsInlineBufferedAndOfTheLargestSizeArriveByteForByteBothWays() throws Exception {
        assertNull(links[0].capability(UnetGather.class), "a TX entry is one address: no gather send");
        Udp udpA = new Udp(a);
        Udp udpB = new Udp(b);
        List<byte[]> echoed = new ArrayList<>();
        UdpPcb pa = udpA.bind(5000, (pcb, src, sp, d, off, len, t) ->
            echoed.add(d.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE)), true);
        udpB.bind(6000, (pcb, src, sp, d, off, len, t) -> {
            assertEquals(IP_A, src);
            assertEquals(0, pcb.send(src, sp, d, off, len, t)); // the echo: B to A
        }, true);
        int max = udpA.maxPayload();
        assertEquals(veth.mtu() - NicShim.UNET_TAG_SIZE - 28, max, "the link's MTU less IP and UDP headers");
        // 0..12 B: 28..40-byte IP datagrams, inline sends and inline receives (no buffer); the rest in one buffer.
        int[] sizes = {0, 1, 12, 13, 100, 1000, max};
        for (int len : sizes) {
            byte[] msg = pattern(len, len);
            int before = echoed.size();
            assertEquals(0, pa.send(IP_B, 6000, MemorySegment.ofArray(msg), 0, len, System.nanoTime()));
            runUntil(() -> echoed.size() > before);
            assertArrayEquals(msg, echoed.get(before), len + " B there and back");
        }
        assertEquals(0, a.counters().dropped() + b.counters().dropped(), a.counters() + " / " + b.counters());
        assertEquals(0, links[0].counters().rxErrors() + links[1].counters().rxErrors());
        assertEquals(0, links[0].counters().rxDrops() + links[1].counters().rxDrops());
    }

    @Test
    void tcpStreamsBothWaysArriveIntactAndCloseInOrder() throws Exception {
        TcpConfig config = TcpConfig.defaults().withConnections(4).withTimeWait(10_000_000L);
        Tcp tcpA = Tcp.over(a, config, arena);
        Tcp tcpB = Tcp.over(b, config.withIssSeed(7), arena);
        int[][] sizes = {{1, 0}, {100_000, 3}, {1 << 20, 1 << 20}};
        int seed = 1;
        for (int[] s : sizes) {
            byte[] up = StreamApp.pattern(s[0], seed);
            byte[] down = StreamApp.pattern(s[1], seed + 1);
            StreamApp client = new StreamApp().send(up, true);
            StreamApp server = new StreamApp().send(down, true);
            tcpB.listen(7000 + seed, server);
            assertNotNull(tcpA.connect(IP_B, 7000 + seed, client, System.nanoTime()));
            runUntil(() -> client.closed != null && server.closed != null, tcpA, tcpB);
            assertEquals(TcpCloseReason.ORDERLY, client.closed, client.events.toString());
            assertEquals(TcpCloseReason.ORDERLY, server.closed, server.events.toString());
            assertArrayEquals(up, server.received.toByteArray(), s[0] + " B up");
            assertArrayEquals(down, client.received.toByteArray(), s[1] + " B down");
            assertEquals(veth.mtu() - NicShim.UNET_TAG_SIZE - 40, client.connection.mss(), "MSS from the MTU");
            client.connection.release(System.nanoTime());
            server.connection.release(System.nanoTime());
            seed += 2;
        }
        assertEquals(0, tcpA.counters().malformed() + tcpB.counters().malformed());
        Link l = links[0];
        assertEquals(0, l.counters().rxErrors() + links[1].counters().rxErrors(), l + " / " + links[1]);
    }
}
