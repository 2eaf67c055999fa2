package io.nicbridge.bench.unet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Active Messages reports' verdicts are backed by their exit codes, both ways. */
class UamReportChecksTest {
    @Test
    void latencyPassesWithTheMeasuredTableAndFailsTheTargetWhenHandlerDispatchIsMadeSlow() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = UamReport.latency(new PrintStream(bytes, true, StandardCharsets.UTF_8), new int[] {16, 256}, 1, 2,
                Sba200Timing.I960_25MHZ, CostTable.measured());
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(ExitCodes.OK, code, text);
        assertTrue(text.contains("anchor check: UAM single-cell RTT within 15 %"), text);
        // Only the Active Messages layer looks its handlers up in a table: price that at 5 us and UAM's round trip
        // (two dispatches) falls out of the 15 % target, so the command must say so with exit code 1.
        Map<CostItem, Long> prices = new EnumMap<>(CostItem.class);
        for (CostItem item : CostItem.values()) {
            prices.put(item, 0L);
        }
        prices.put(CostItem.TABLE_LOOKUP, 5_000_000L);
        CostTable slow = CostTable.of("slow-dispatch", "test", "none", "2026-11-24T00:00:00Z", prices, Map.of());
        bytes.reset();
        code = UamReport.latency(new PrintStream(bytes, true, StandardCharsets.UTF_8), new int[] {16, 256}, 1, 2,
                Sba200Timing.I960_25MHZ, slow);
        text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CHECK_FAILED, code, text);
        assertTrue(text.contains("raw U-Net's on the same card, mode and cost table") && text.contains("-> FAIL"), text);
    }

    @Test
    void bandwidthShowsTheDipAndTheAnchorsAndRefusesBadSizes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = UamReport.bandwidth(new PrintStream(bytes, true, StandardCharsets.UTF_8),
                new int[] {2048, 4096, 4160, 4164}, Sba200Timing.I960_25MHZ, CostTable.measured());
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(ExitCodes.OK, code, text);
        assertTrue(text.contains("model self-check: the dip at 4164 B") && text.contains("Split-C store"), text);
        assertThrows(IllegalArgumentException.class, () -> UamReport.bandwidth(System.out, new int[] {0},
                Sba200Timing.I960_25MHZ, CostTable.measured()));
    }
}
