package io.nicbridge.bridge.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.platform.RawPacketSocket;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.contract.NicShim;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What is particular to {@code shim:afxdp}: the modes the kernel granted are reported, the four XSK rings are Java
 * segments whose indices move with the traffic (and die with the socket, without touching unmapped memory), the XDP
 * program lives exactly as long as the card - also when the process holding it is killed - and the spec's AF_XDP
 * parameters are checked at the boundary.
 */
class AfXdpShimTest {
    static final long TIMEOUT = TimeUnit.SECONDS.toNanos(5);

    @Test
    void modesAreReportedAndTheRingsAreJavaSegmentsThatMoveWithTheTraffic() throws Exception {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        try (VethPair veth = VethPair.builder().ipv4(false).create();
             Arena arena = Arena.ofConfined();
             RawPacketSocket peer = RawPacketSocket.open(veth.namespaceB(), veth.interfaceB())) {
            ShimCard card = ShimTestSupport.card("afxdp", veth, true, "rx-ring=64&tx-ring=64");
            List<XskRing> rings;
            try (TulipDriver driver = ShimTestSupport.driver(card, TulipConfig.defaults())) {
                XdpInfo info = card.xdpInfo();
                assertTrue(info.running(), info.toString());
                assertEquals("native", info.attachText(), "veth has driver XDP (afxdp-facts §4)");
                assertEquals("copy", info.bindText(), "and no zero-copy");
                assertTrue(info.programId() > 0);
                assertEquals(128L * 2048, info.umemLength(), "one chunk per RX and TX ring entry");
                assertTrue(programOn(veth, true), "the program is attached while the card runs");
                assertTrue(card.transportText().startsWith("AF_XDP queue 0: native XDP"), card.transportText());

                rings = card.shim().xskRings();
                XskRing fill = rings.get(0);
                XskRing rx = rings.get(1);
                assertEquals(64, rx.size());
                assertEquals(16, rx.entrySize());
                assertEquals(8, fill.entrySize());
                assertEquals(64, fill.producer(), "every receive chunk is on FILL before the first frame");
                int rxBefore = rx.consumer();
                MemorySegment buf = arena.allocate(2048, 8);
                for (int i = 0; i < 5; i++) {
                    byte[] f = TulipRealPeerTest.frame(veth.macA(), veth.macB(), 100 + i, i);
                    MemorySegment.copy(f, 0, buf, ValueLayout.JAVA_BYTE, 0, f.length);
                    assertEquals(f.length, peer.send(buf, f.length));
                }
                for (int i = 0; i < 5; i++) {
                    int h = driver.await(TIMEOUT, TimeUnit.NANOSECONDS);
                    assertNotEquals(FramePort.NONE, h, "frame " + i);
                    driver.release(h);
                }
                assertEquals(rxBefore + 5, rx.consumer(), "the shim consumed five RX descriptors");
                assertEquals(rx.producer(), rx.consumer(), "and nothing is left on RX");
                assertEquals(64 + rx.consumer(), fill.producer(), "each chunk went back on FILL");
                long addr = rx.address(rx.consumer() - 1);
                assertEquals(NicShim.XDP_RX_OFFSET, addr % 2048, "RX frames start after the XDP headroom");
                assertTrue(addr < 64L * 2048, "in a receive chunk");
                assertEquals(104, rx.length(rx.consumer() - 1));
            } finally {
                card.close();
            }
            assertThrows(IllegalStateException.class, () -> rings.get(1).producer(),
                "a ring view outlives the socket only as an exception, never as a read of unmapped memory");
            assertFalse(programOn(veth, true), "closing the card detached the program");
        }
    }

    @Test
    void genericModeOnRequestAndZeroCopyRefusedWhereTheDriverHasNone() throws Exception {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        try (VethPair veth = VethPair.builder().ipv4(false).create()) {
            try (ShimCard card = ShimTestSupport.card("afxdp", veth, true, "attach=generic&bind=copy")) {
                assertEquals("generic", card.xdpInfo().attachText());
                assertTrue(programOn(veth, true));
            }
            assertFalse(programOn(veth, true));
            ShimException e = assertThrows(ShimException.class,
                () -> ShimTestSupport.card("afxdp", veth, true, "bind=zerocopy").close());
            assertEquals(NicShim.ERR_XDP_UNSUPPORTED, e.code(), e.getMessage());
            assertFalse(programOn(veth, true), "a failed start leaves nothing attached");
        }
    }

    /** The program is held by a BPF link: a process killed with SIGKILL takes it along, and the next card starts. */
    @Test
    void aKilledProcessLeavesNoProgramBehind() throws Exception {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        try (VethPair veth = VethPair.builder().ipv4(false).create()) {
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                AfXdpChild.class.getName(), veth.namespaceA().name(), veth.interfaceA())
                .redirectErrorStream(true).start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
                String line;
                while ((line = out.readLine()) != null && !line.startsWith("running")) {
                    // the child's log lines, if any
                }
                assertTrue(line != null, "the child opened the card");
                assertTrue(programOn(veth, true), "the child's program is attached");
            } finally {
                child.destroyForcibly(); // SIGKILL: no close, no shutdown hook
                assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            }
            long deadline = System.nanoTime() + TIMEOUT;
            while (programOn(veth, true) && System.nanoTime() < deadline) {
                Thread.sleep(10); // the kernel releases the dead process's files asynchronously
            }
            assertFalse(programOn(veth, true), "the kernel detached the dead process's program");
            try (ShimCard card = ShimTestSupport.card("afxdp", veth, true, "")) {
                assertEquals("native", card.xdpInfo().attachText());
            }
        }
    }

    @Test
    void theSpecsAfXdpParametersAreCheckedAtTheBoundary() {
        String base = "shim:afxdp?if=veth0&card=dec21140&";
        assertMessage(base + "bind=fast", "bind must be auto, copy or zerocopy");
        assertMessage(base + "attach=hw", "attach must be auto, native or generic");
        assertMessage(base + "frame-size=3000", "must be 2048 or 4096");
        assertMessage(base + "tx=send", "unknown parameter 'tx'");
        assertMessage(base + "queue=-1", "queue must be a non-negative number");
        assertMessage("shim:afpacket?if=veth0&card=dec21140&queue=1", "unknown parameter 'queue'");
        assertMessage("shim:afxsk?if=veth0&card=dec21140", "targets are 'afpacket' and 'afxdp'");
    }

    /** Straight to the provider, which checks the spec before it needs the library or any privilege. */
    private static void assertMessage(String spec, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new ShimBackendProvider().open(DeviceSpec.parse(spec)));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    /** Whether {@code ip link} shows an XDP program on end A (true) or B of the pair. */
    static boolean programOn(VethPair veth, boolean a) throws IOException, InterruptedException {
        Process ip = new ProcessBuilder("ip", "-n", (a ? veth.namespaceA() : veth.namespaceB()).name(), "-d", "link",
            "show", "dev", a ? veth.interfaceA() : veth.interfaceB()).redirectErrorStream(true).start();
        String out = new String(ip.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(ip.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, ip.exitValue(), out);
        return out.contains("prog/xdp");
    }
}
