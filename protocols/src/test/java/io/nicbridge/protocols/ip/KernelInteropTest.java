package io.nicbridge.protocols.ip;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nicbridge.protocols.ip.IpCounters.Counter;
import io.nicbridge.protocols.ip.kernel.KernelLink;
import io.nicbridge.protocols.ip.kernel.KernelPeer;
import io.nicbridge.sim.backends.ShimTulipPair;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Our user-level IPv4/ICMP/UDP stack on the native shim's 21140 at one end of a veth pair (namespace A, whose kernel
 * has no IPv4 address, so only our stack answers for A's address), and the Linux kernel at the other end
 * (namespace B, 10.X.Y.2/30): the {@link KernelLink} fixture, shared with the TCP tests. The kernel pings us, we ping the kernel, and UDP datagrams go both ways with a
 * kernel socket (python3), checked byte for byte on both sides, with our checksum on and off. tshark captures B's
 * end throughout and must find no malformed packet and no bad checksum on what our stack sent. Skipped with the
 * reason where the shim, namespaces, python3 or tshark are missing.
 */
class KernelInteropTest {
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** Sends {@code n} echo requests through the kernel's raw ICMP socket; exit 0 when every reply matches. */
    static final String PING = """
        import os, socket, struct, sys, time
        dst, n = sys.argv[1], int(sys.argv[2])
        def cs(b):
            if len(b) % 2: b += b'\\0'
            t = sum(struct.unpack('!%dH' % (len(b) // 2), b))
            while t >> 16: t = (t & 0xffff) + (t >> 16)
            return ~t & 0xffff
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        s.settimeout(3)
        ident, ok = os.getpid() & 0xffff, 0
        for seq in range(n):
            data = bytes((seq + i) & 0xff for i in range(56 + seq * 100))
            c = cs(struct.pack('!BBHHH', 8, 0, 0, ident, seq) + data)
            s.sendto(struct.pack('!BBHHH', 8, 0, c, ident, seq) + data, (dst, 0))
            end = time.time() + 3
            while time.time() < end:
                try: p, a = s.recvfrom(4096)
                except socket.timeout: break
                icmp = p[(p[0] & 15) * 4:]
                if a[0] == dst and icmp[0] == 0 and struct.unpack('!HH', icmp[4:8]) == (ident, seq) \\
                        and cs(icmp) == 0 and icmp[8:] == data:
                    ok += 1
                    break
        print('replies', ok, 'of', n)
        sys.exit(0 if ok == n else 1)
        """;

    /** A kernel UDP client: each datagram must come back from our echo port byte for byte. */
    static final String UDP_CLIENT = """
        import socket, sys
        dst, port = sys.argv[1], int(sys.argv[2])
        sizes = [0, 1, 2, 3, 17, 100, 1000, 1471, 1472]
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(3)
        ok = 0
        for i, n in enumerate(sizes):
            data = bytes((i * 7 + j * 13) & 0xff for j in range(n))
            s.sendto(data, (dst, port))
            try: r, a = s.recvfrom(2048)
            except socket.timeout: print('timeout at', n); continue
            if r == data and a == (dst, port): ok += 1
            else: print('mismatch at', n)
        print('echoed', ok, 'of', len(sizes))
        sys.exit(0 if ok == len(sizes) else 1)
        """;

    /** A kernel UDP server: checks each datagram against the pattern and echoes it. */
    static final String UDP_SERVER = """
        import socket, sys
        port, count = int(sys.argv[1]), int(sys.argv[2])
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(('0.0.0.0', port))
        s.settimeout(20)
        print('ready', flush=True)
        good = 0
        for i in range(count):
            r, a = s.recvfrom(2048)
            if r == bytes((i * 5 + j * 3) & 0xff for j in range(len(r))): good += 1
            else: print('mismatch', i)
            s.sendto(r, a)
        print('received', good, 'of', count)
        sys.exit(0 if good == count else 1)
        """;

    private KernelLink link;
    private Ipv4Stack stack;
    private Udp udp;
    private int kernelAddress;
    private String kernelNamespace;

    @BeforeEach
    void setUp() throws Exception {
        ShimTulipPair.assumeAvailable();
        assumeTrue(onPath("python3"), "python3 is not on PATH (the kernel-side peer)");
        // veth offloads the UDP checksum by default: the kernel leaves only the pseudo-header sum in the field
        // (CHECKSUM_PARTIAL) and a raw socket on the other end sees the datagram unfinished, which our stack would
        // rightly count as a bad checksum. A real NIC fills the sum in; the link makes B's kernel do it in software.
        assumeTrue(onPath("ethtool"), "ethtool is not on PATH (to turn off B's checksum offload)");
        link = KernelLink.open(KernelLink.DEFAULT_BACKEND);
        stack = link.stack();
        kernelAddress = link.kernelAddress();
        kernelNamespace = link.kernelNamespace();
        udp = new Udp(stack);
    }

    @AfterEach
    void tearDown() {
        if (link != null) {
            link.close();
        }
    }

    @Test
    void theKernelPingsUsAndWePingTheKernelAndUdpGoesBothWays() throws Exception {
        boolean tshark = onPath("tshark");
        Path pcap = Files.createTempFile("nicbridge-ip-", ".pcapng");
        pcap.toFile().deleteOnExit();
        KernelPeer capture = null;
        try {
            if (tshark) {
                Files.delete(pcap);
                capture = link.exec("tshark", "-q", "-i", link.kernelInterface(), "-w", pcap.toString());
                KernelPeer c = capture;
                pollUntil(() -> Files.exists(pcap) || !c.alive(), "tshark to start capturing: " + c.output());
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            }
            kernelPingsUs();
            wePingTheKernel();
            kernelUdpClientGetsItsDatagramsEchoed(true);
            kernelUdpClientGetsItsDatagramsEchoed(false);
            ourUdpClientTalksToAKernelServer(true);
            ourUdpClientTalksToAKernelServer(false);
            assertEquals(0, stack.counters().malformed(), stack.counters().toString());
            if (capture != null) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
                capture.stop();
                checkCapture(pcap);
            }
        } finally {
            if (capture != null) {
                capture.close();
            }
            Files.deleteIfExists(pcap);
        }
    }

    private void kernelPingsUs() throws Exception {
        long before = stack.counters().get(Counter.ICMP_ECHO_REPLIED);
        try (KernelPeer ping = KernelPeer.python(kernelNamespace, PING, Ipv4Address.toString(stack.address()), "5")) {
            pollUntil(() -> !ping.alive(), "the kernel's pings");
            assertEquals(0, ping.exitCode(), ping.output());
        }
        assertEquals(5, stack.counters().get(Counter.ICMP_ECHO_REPLIED) - before, stack.counters().toString());
    }

    private void wePingTheKernel() {
        List<Integer> replies = new ArrayList<>();
        stack.echoListener((src, id, seq, data, off, len, t) -> {
            boolean pattern = len == 100;
            for (int i = 0; i < len && pattern; i++) {
                pattern = data.get(java.lang.foreign.ValueLayout.JAVA_BYTE, off + i) == (byte) i;
            }
            if (src == kernelAddress && id == 0x1717 && pattern) {
                replies.add(seq);
            }
        });
        for (int seq = 0; seq < 5; seq++) {
            int s = seq;
            pollUntil(() -> stack.ping(kernelAddress, 0x1717, s, 100, System.nanoTime()) == 0, "ping " + seq + " sent");
            pollUntil(() -> replies.size() > s, "the kernel's echo reply " + seq);
        }
        assertEquals(List.of(0, 1, 2, 3, 4), replies);
        stack.echoListener(null);
    }

    private void kernelUdpClientGetsItsDatagramsEchoed(boolean checksum) throws Exception {
        int port = checksum ? 7000 : 7001;
        UdpPcb echo = udp.bind(port, (pcb, src, sp, d, off, len, t) -> {
            int rc = pcb.send(src, sp, d, off, len, t);
            assertEquals(0, rc, "echo send status");
        }, checksum);
        try (KernelPeer client = KernelPeer.python(kernelNamespace, UDP_CLIENT,
                Ipv4Address.toString(stack.address()), Integer.toString(port))) {
            pollUntil(() -> !client.alive(), "the kernel UDP client");
            assertEquals(0, client.exitCode(), client.output() + stack.counters());
        }
        assertEquals(9, echo.received());
        assertEquals(9, echo.sent());
        udp.unbind(echo);
    }

    private void ourUdpClientTalksToAKernelServer(boolean checksum) throws Exception {
        int serverPort = 7100;
        int count = 6;
        int[] sizes = {0, 1, 33, 512, 1471, 1472};
        List<byte[]> echoes = new ArrayList<>();
        UdpPcb client = udp.bind(checksum ? 7200 : 7201, (pcb, src, sp, d, off, len, t) -> {
            if (src == kernelAddress && sp == serverPort) {
                echoes.add(Ipv4StackTest.copy(d, off, len));
            }
        }, checksum);
        try (KernelPeer server = KernelPeer.python(kernelNamespace, UDP_SERVER, Integer.toString(serverPort),
                Integer.toString(count))) {
            pollUntil(() -> server.output().contains("ready") || !server.alive(), "the kernel UDP server");
            for (int i = 0; i < count; i++) {
                byte[] data = new byte[sizes[i]];
                for (int j = 0; j < data.length; j++) {
                    data[j] = (byte) (i * 5 + j * 3);
                }
                MemorySegment m = MemorySegment.ofArray(data);
                pollUntil(() -> client.send(kernelAddress, serverPort, m, 0, data.length, System.nanoTime()) == 0,
                    "datagram " + i + " sent");
                int n = i;
                pollUntil(() -> echoes.size() > n, "echo " + i + " from the kernel; server said: " + server.output());
                assertArrayEquals(data, echoes.get(i), "datagram " + i);
            }
            pollUntil(() -> !server.alive(), "the kernel UDP server to finish");
            assertEquals(0, server.exitCode(), server.output());
        }
        udp.unbind(client);
    }

    private void checkCapture(Path pcap) throws Exception {
        String ours = "ip.src==" + Ipv4Address.toString(stack.address());
        String decoded = tshark(pcap, "frame");
        assertTrue(decoded.lines().count() > 50, "the capture has our traffic: " + decoded);
        assertEquals("", tshark(pcap, "_ws.malformed || _ws.expert.severity == error"), "malformed or error packets");
        assertEquals("", tshark(pcap, ours + " && (ip.checksum.status == 0 || udp.checksum.status == 0"
            + " || icmp.checksum.status == 0)"), "bad checksums on what our stack sent");
        assertTrue(tshark(pcap, ours + " && udp.checksum.status == 1").lines().count() >= 15,
            "UDP checksums from our stack that tshark verified good (status 1)");
        assertTrue(tshark(pcap, "arp.opcode == 2 && arp.src.proto_ipv4 == " + Ipv4Address.toString(stack.address()))
            .lines().count() >= 1, "our ARP reply decodes");
    }

    private static String tshark(Path pcap, String filter) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("tshark", "-r", pcap.toString(), "-o", "ip.check_checksum:TRUE",
            "-o", "udp.check_checksum:TRUE", "-Y", filter)
            .redirectError(ProcessBuilder.Redirect.DISCARD) // "Running as user root ..." is no packet
            .start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertEquals(0, p.waitFor(), "tshark -Y '" + filter + "': " + out);
        return out;
    }

    /** Polls the stack (backing off when idle) until the condition holds; fails after the timeout. */
    private void pollUntil(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + what + "; " + stack.counters());
            }
            if (stack.poll(16, System.nanoTime()) == 0) {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

}
