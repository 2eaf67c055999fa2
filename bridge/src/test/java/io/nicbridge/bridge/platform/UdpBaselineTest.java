package io.nicbridge.bridge.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.IOException;
import java.time.Duration;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class UdpBaselineTest {
    private static VethPair pair;

    @BeforeAll
    static void createPair() throws IOException {
        Availability availability = VethPair.availability();
        Requirements.assume(Capability.NET, availability.available(), availability.reason());
        pair = VethPair.create();
    }

    @AfterAll
    static void closePair() {
        if (pair != null) {
            pair.close();
        }
    }

    @Test
    void roundTripRecordsEveryMeasuredRoundTripWithAPlausibleTime() throws IOException {
        Histogram rtt = UdpBaseline.roundTrip(pair, 64, 500, 2_000);
        assertEquals(2_000, rtt.getTotalCount());
        assertTrue(rtt.getMinValue() > 0, "RTT > 0");
        // Two kernel UDP stacks and two context switches: well above 1 us, well below a second.
        assertTrue(rtt.getValueAtPercentile(50) > 1_000, "p50 " + rtt.getValueAtPercentile(50) + " ns");
        assertTrue(rtt.getValueAtPercentile(50) < 100_000_000L, "p50 " + rtt.getValueAtPercentile(50) + " ns");
        System.out.printf("kernel UDP RTT 64 B over %s: p50 %.1f us, p99 %.1f us (2000 round trips)%n", pair,
            rtt.getValueAtPercentile(50) / 1e3, rtt.getValueAtPercentile(99) / 1e3);
    }

    @Test
    void largestPayloadThatFitsOneFrameEchoesToo() throws IOException {
        Histogram rtt = UdpBaseline.roundTrip(pair, pair.mtu() - UdpBaseline.IPV4_UDP_HEADERS, 10, 100);
        assertEquals(100, rtt.getTotalCount());
    }

    @Test
    void frameRateCountsWhatArrivedAndNeverMoreThanWasSent() throws IOException {
        UdpBaseline.FrameRate rate = UdpBaseline.frameRate(pair, 64, Duration.ofMillis(300));
        assertTrue(rate.sent() > 0, "sent " + rate.sent());
        assertTrue(rate.received() > 0, "received " + rate.received());
        assertTrue(rate.received() <= rate.sent(), rate.received() + " received of " + rate.sent() + " sent");
        assertTrue(rate.receivedPerSecond() > 0);
        assertTrue(rate.sendNanos() >= 300_000_000L);
        System.out.printf("kernel UDP 64 B one-way: sent %d, received %d, %.0f frames/s at the receiver%n",
            rate.sent(), rate.received(), rate.receivedPerSecond());
    }

    @Test
    void pinnedBusyPollingFloodCountsWhatArrivedAndTheCallerIsUnpinnedAfterwards() throws IOException {
        int counterCpu = CpuAffinity.cpus() > 1 ? 1 : 0;
        UdpBaseline.FrameRate rate = UdpBaseline.frameRate(pair, 64, Duration.ofMillis(200), 0, counterCpu, true);
        assertTrue(rate.received() > 0 && rate.received() <= rate.sent(), rate.received() + " of " + rate.sent());
        assertTrue(rate.receivedPerSecond() > 0);
        // The caller ran pinned to CPU 0 for the flood only: a second pinned flood on another CPU would fail if the
        // affinity had stayed, and the thread may run anywhere again.
        assertEquals(CpuAffinity.cpus(), Runtime.getRuntime().availableProcessors());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
            () -> UdpBaseline.frameRate(pair, 64, Duration.ofMillis(10), CpuAffinity.cpus(), 0, false));
        assertTrue(bad.getMessage().contains("senderCpu"), bad.getMessage());
    }

    @Test
    void payloadThatDoesNotFitOneFrameOrAPairWithoutAddressesIsRefused() throws IOException {
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
            () -> UdpBaseline.roundTrip(pair, pair.mtu() - UdpBaseline.IPV4_UDP_HEADERS + 1, 0, 1));
        assertTrue(big.getMessage().contains("fit one frame"), big.getMessage());
        assertThrows(IllegalArgumentException.class, () -> UdpBaseline.frameRate(pair, 0, Duration.ofMillis(1)));
        assertThrows(IllegalArgumentException.class, () -> UdpBaseline.roundTrip(pair, 64, 0, 0));
        try (VethPair bare = VethPair.builder().ipv4(false).create()) {
            assertThrows(IllegalArgumentException.class, () -> UdpBaseline.roundTrip(bare, 64, 0, 1));
        }
    }
}
