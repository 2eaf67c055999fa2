package io.nicbridge.protocols.dst;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.engine.VirtualTimeBase;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class CStarSimulationTest {
    private static final SimSettings SETTINGS = SimSettings.cstar();

    private static SimTest tester(CoreFactory cores, EnumSet<ScheduleGenerator.Family> families) {
        return new SimTest("traditional", cores, SETTINGS, new ScheduleGenerator(SETTINGS, families),
                VirtualTimeBase::new);
    }

    @Test
    void cleanSchedulesComplete() {
        SimTest t = tester(SimProtocols.byName("traditional"), EnumSet.noneOf(ScheduleGenerator.Family.class));
        for (int seed = 1; seed <= 20; seed++) {
            Schedule s = new Schedule(seed, 2 + seed % 3, 6, List.of());
            SimulationRun.Outcome o = t.run(s);
            assertTrue(o.passed(), () -> s + ": " + o.violation());
            assertEquals(o.messages(), o.delivered());
        }
    }
}
