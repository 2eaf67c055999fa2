package io.nicbridge.protocols.dst;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Simulation runs with the host cost model: zero is the wire-only run of before, measured still keeps every promise. */
class HostCostSimulationTest {
    /**
     * Trace digest, dispatch count and end time of schedules recorded from the runner before the host cost model
     * existed (commit 84049ca, the default settings): with the zero table they must come out identical, event for
     * event.
     */
    @ParameterizedTest
    @CsvSource({
        "false, 1, 29977e1a61ff41e9, 79, 2006640",
        "false, 3, c7758cb78a75d497, 260, 2004960",
        "false, 8, d51c98f0af4682b3, 127, 2006800",
        "true, 1, bd6a656e4a49760d, 183, 4254367",
        "true, 3, c224f33d8694c6bb, 250, 2321064",
        "true, 5, e22fcc771352ae63, 54, 2006640",
        "true, 10, 451601a8839f57fa, 163, 3135628",
        "true, 12, d6ef82b087d14b01, 54, 3265037",
    })
    void theZeroTableReplaysTheWireOnlyRunsOfBefore(boolean faults, long seed, String digest, long dispatches,
                                                    long endNanos) {
        SimSettings s = SimSettings.defaults();
        assertEquals("zero", s.costs().name());
        ScheduleGenerator g = faults ? new ScheduleGenerator(s)
                : new ScheduleGenerator(s, EnumSet.noneOf(ScheduleGenerator.Family.class));
        SimulationRun.Outcome o = new SimTest("gbn", SimProtocols.byName("gbn"), s, g, VirtualTimeBase::new)
                .run(g.generate(seed));
        assertTrue(o.passed(), String.valueOf(o.violation()));
        assertEquals(digest, String.format("%016x", o.traceDigest()));
        assertEquals(dispatches, o.dispatches());
        assertEquals(endNanos, o.endNanos());
    }

    @Test
    void goBackNKeepsItsGuaranteesWithTheMeasuredHostCosts() {
        SimSettings s = SimSettings.defaults().withCosts(CostTable.measured());
        SimTest t = new SimTest("gbn", SimProtocols.byName("gbn"), s, new ScheduleGenerator(s), VirtualTimeBase::new);
        SimTest.Summary sum = t.campaign(1, 300, null);
        assertTrue(sum.passed(), () -> "violation " + sum.failure() + "; shrunk: " + sum.shrunk());
        SimulationRun.Outcome zero = new SimTest("gbn", SimProtocols.byName("gbn"), SimSettings.defaults(),
                new ScheduleGenerator(s), VirtualTimeBase::new).run(new ScheduleGenerator(s).generate(4));
        SimulationRun.Outcome measured = t.run(new ScheduleGenerator(s).generate(4));
        assertTrue(measured.endNanos() > zero.endNanos(), "host work ends the run later");
        assertTrue(measured.hostCost().startsWith("host cost table measured"), measured.hostCost());
    }
}
