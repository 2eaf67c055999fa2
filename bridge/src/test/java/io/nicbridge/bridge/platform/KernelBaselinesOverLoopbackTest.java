package io.nicbridge.bridge.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.IOException;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The kernel baselines on a {@link LoopbackPath} (both ends on {@code lo} of one namespace, brought up by it) and
 * {@link TcpBaseline} with its socket buffers set (the U-Net paper's Figure 8 window).
 */
class KernelBaselinesOverLoopbackTest {
    private static VethPair pair;
    private static LoopbackPath lo;

    @BeforeAll
    static void createNamespace() throws IOException {
        Availability availability = VethPair.availability();
        Requirements.assume(Capability.NET, availability.available(), availability.reason());
        pair = VethPair.builder().ipv4(true).create();
        lo = LoopbackPath.in(pair.namespaceA());
    }

    @AfterAll
    static void closePair() {
        if (pair != null) {
            pair.close();
        }
    }

    @Test
    void udpAndTcpRoundTripOverLoopbackInTheNamespace() throws IOException {
        Histogram udp = UdpBaseline.roundTrip(lo, 64, 50, 200, true);
        assertEquals(200, udp.getTotalCount());
        Histogram tcp = new Histogram(3);
        try (TcpBaseline t = TcpBaseline.open(lo, false)) {
            t.roundTrips(64, 50, 200, TcpBaseline.Wait.BLOCK, -1, -1, tcp);
        }
        assertEquals(200, tcp.getTotalCount());
        assertTrue(tcp.getMinValue() > 0 && udp.getMinValue() > 0);
        assertEquals("loopback in " + pair.namespaceA().name(), lo.toString());
    }

    @Test
    void aTcpStreamWithAnEightKilobyteWindowArrivesWhole() throws IOException {
        try (TcpBaseline small = TcpBaseline.open(pair, false, 8192)) {
            assertTrue(small.stream(4096, 500) > 0, "4096 x 500 bytes read by the server");
        }
    }

    @Test
    void aPinnedStreamWithNagleOnAndOffArrivesWholeAndAClosedBaselineRefuses() throws IOException {
        int receiver = CpuAffinity.cpus() > 1 ? 1 : 0;
        TcpBaseline t = TcpBaseline.open(pair, false);
        try (t) {
            t.noDelay(false); // Nagle: 64-byte writes coalesced while one is unacknowledged
            assertTrue(t.stream(64, 2000, TcpBaseline.Wait.BLOCK, 0, receiver) > 0, "every message read, in order");
            t.noDelay(true);
            assertTrue(t.stream(64, 2000, TcpBaseline.Wait.BLOCK, 0, receiver) > 0);
            assertEquals(CpuAffinity.cpus(), Runtime.getRuntime().availableProcessors(), "the caller unpinned again");
        }
        assertThrows(IllegalStateException.class, () -> t.noDelay(true));
    }

    @Test
    void aSocketBufferOutsideItsRangeIsRefusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> TcpBaseline.open(lo, false, 100));
        assertTrue(e.getMessage().contains("socketBuffer"), e.getMessage());
    }
}
