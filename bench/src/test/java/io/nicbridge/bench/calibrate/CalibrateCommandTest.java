package io.nicbridge.bench.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import org.junit.jupiter.api.Test;

/** The calibration command's stamp and default target (running JMH itself is left to {@code ./nic calibrate}). */
class CalibrateCommandTest {
    @Test
    void theMachineStampNamesTheCpuTheOsAndTheJdk() {
        String m = CalibrateCommand.machine();
        assertTrue(m.contains("CPUs available"), m);
        assertTrue(m.contains(System.getProperty("os.name")), m);
        assertTrue(m.contains(Runtime.version().toString()), m);
    }

    @Test
    void byDefaultItRewritesTheCommittedMeasuredTable() {
        assertTrue(CalibrateCommand.DEFAULT_OUT.startsWith("bridge/src/main/resources/io/nicbridge/bridge/cost/"));
        assertTrue(CalibrateCommand.DEFAULT_OUT.endsWith("/" + CostTable.MEASURED_RESOURCE));
        assertEquals("measured", CostTable.measured().name());
    }
}
