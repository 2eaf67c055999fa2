package io.nicbridge.bench.unet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.sim.sba200.Sba200Timing;
import org.junit.jupiter.api.Test;

/** TCP over U-Net in virtual time: the runs finish, add up, and the window limits the bandwidth as TCP's must. */
class TcpRunsTest {
    @Test
    void aTcpRoundTripCostsMoreThanUdpsOnTheSameCardAndTableAndIsDeterministic() {
        CostTable costs = CostTable.measured();
        TcpRuns.Rtt tcp = TcpRuns.roundTrip(4, 2, 5, Sba200Timing.I960_25MHZ, costs);
        UdpRuns.Rtt udp = UdpRuns.roundTrip(4, true, 2, 5, Sba200Timing.I960_25MHZ, costs);
        System.out.printf("TCP %d ns, UDP %d ns%n", tcp.min(), udp.min());
        assertTrue(tcp.min() > udp.min(), "TCP " + tcp + " vs UDP " + udp);
        assertEquals(tcp, TcpRuns.roundTrip(4, 2, 5, Sba200Timing.I960_25MHZ, costs), "virtual time repeats");
    }

    @Test
    void aLargerWindowNeverLowersTheBandwidthAndNoneBeatsTheFibre() {
        CostTable costs = CostTable.measured();
        TcpRuns.Stream small = TcpRuns.stream(256 * 1024, 4096, 4096, Sba200Timing.I960_25MHZ, costs);
        TcpRuns.Stream large = TcpRuns.stream(256 * 1024, 4096, 65536, Sba200Timing.I960_25MHZ, costs);
        System.out.printf("4K window %.2f Mbit/s, 64K %.2f Mbit/s (rexmt %d/%d, drops %d/%d)%n", small.mbits(),
                large.mbits(), small.retransmissions(), large.retransmissions(), small.cardDrops(), large.cardDrops());
        assertTrue(large.mbits() >= small.mbits() * 0.98, small + " / " + large);
        assertTrue(large.mbits() < 140, "under the 140 Mbit/s fibre: " + large);
        assertThrows(IllegalArgumentException.class, () -> TcpRuns.config(1024), "a window under one segment");
    }
}
