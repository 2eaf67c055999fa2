package io.nicbridge.bench.unet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bench.verdict.PaperPoints;
import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The UDP-over-U-Net reports' verdicts are backed by their exit codes, both ways, and their rows reach the report. */
class UdpReportChecksTest {
    @Test
    void latencyPrintsTable3sUdpRowBesideRawUnetAndPassesItsSelfChecks() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<String> rows = new ArrayList<>();
        int code = UdpReport.latency(new PrintStream(bytes, true, StandardCharsets.UTF_8), new int[] {4, 256}, 1, 2,
                Sba200Timing.I960_25MHZ, CostTable.measured(),
                (figure, series, x, ours, paper) -> rows.add(figure + "/" + series + "/" + (int) x + "/" + paper));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(ExitCodes.OK, code, text);
        assertTrue(text.contains("UDP, checksum on") && text.contains("138"), text);
        assertTrue(rows.contains("table3-udp-rtt/UDP round trip/4/138.0"), rows.toString());
    }

    @Test
    void bandwidthPassesTable3sAnchorAndFailsItWhenTheChecksumIsMadeSlow() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = UdpReport.bandwidth(new PrintStream(bytes, true, StandardCharsets.UTF_8), new int[] {1024, 4096},
                65_536, Sba200Timing.I960_25MHZ, CostTable.measured(), PaperPoints.NONE);
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(ExitCodes.OK, code, text);
        assertTrue(text.contains("anchor check: UDP bandwidth with 4 KB packets") && text.contains("-> PASS"), text);
        // Price the checksum at 200 ns a byte (a 4 KB datagram: 820 us on each host, beside 260 us of fibre): the
        // hosts become the limit, 4 KB falls out of Table 3's 15 %, and the command must say so with exit code 1.
        Map<CostItem, Long> prices = new EnumMap<>(CostItem.class);
        for (CostItem item : CostItem.values()) {
            prices.put(item, 0L);
        }
        prices.put(CostItem.CHECKSUM, 200_000L);
        CostTable slow = CostTable.of("slow-checksum", "test", "none", "2026-11-24T00:00:00Z", prices, Map.of());
        bytes.reset();
        code = UdpReport.bandwidth(new PrintStream(bytes, true, StandardCharsets.UTF_8), new int[] {4096}, 65_536,
                Sba200Timing.I960_25MHZ, slow, PaperPoints.NONE);
        text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CHECK_FAILED, code, text);
        assertTrue(text.contains("Table 3's 120 Mbit/s") && text.contains("-> FAIL"), text);
        assertThrows(IllegalArgumentException.class, () -> UdpReport.bandwidth(System.out, new int[] {9189}, 65_536,
                Sba200Timing.I960_25MHZ, CostTable.measured(), PaperPoints.NONE));
    }
}
