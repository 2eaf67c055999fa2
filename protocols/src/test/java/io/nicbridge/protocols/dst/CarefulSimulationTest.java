package io.nicbridge.protocols.dst;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The careful core ({@code --protocol careful}) in the simulation tester, on the same C* workload as the traditional
 * one: fault-free schedules complete with no violation; under drop, duplicate, reorder and corrupt no schedule fails
 * silently - each one that breaks the ring's promise ends in a violation the core reported, or, when the only break
 * is a trailing loss (nothing later from the sender exposes it; no timers), is classified as such on the cores' own
 * frame counts. A core that hides its reports is caught.
 */
class CarefulSimulationTest {
    private static final SimSettings SETTINGS = SimProtocols.settings("careful");
    private static final EnumSet<ScheduleGenerator.Family> FRAME_FAULTS = EnumSet.of(ScheduleGenerator.Family.DROP,
            ScheduleGenerator.Family.DUPLICATE, ScheduleGenerator.Family.REORDER, ScheduleGenerator.Family.CORRUPT);

    private static SimTest tester(CoreFactory cores, EnumSet<ScheduleGenerator.Family> families) {
        return new SimTest("careful", cores, SETTINGS, new ScheduleGenerator(SETTINGS, families),
                VirtualTimeBase::new);
    }

    @Test
    void theCarefulCoreIsKnownByNameAndPromisesToReport() {
        assertTrue(SimProtocols.names().contains("careful"), SimProtocols.names()::toString);
        Schedule s = new Schedule(1, 3, 4, List.of());
        SimulationRun.Outcome o = tester(SimProtocols.byName("careful"), EnumSet.noneOf(ScheduleGenerator.Family.class))
                .run(s);
        assertTrue(o.passed(), () -> o.violation().toString());
        VirtualTimeBase world = new VirtualTimeBase(1);
        InMemoryMedium medium = new InMemoryMedium(world, new InMemoryMedium.Config(3, 256, 4, 16, 1000, 80),
                FrameFaults.NONE, HostCpu.forNodes(3, CostTable.zero(), world));
        CarefulCore core = new CarefulCore(medium.link(0), SimProtocols.careful(SETTINGS, medium.link(0)),
                HostCpu.uncharged("n0"));
        assertTrue(core.guarantees().contains(Guarantee.REPORTS_BROKEN_ASSUMPTIONS), core.guarantees()::toString);
    }

    @Test
    void faultFreeSchedulesCompleteWithZeroViolations() {
        SimTest t = tester(SimProtocols.byName("careful"), EnumSet.noneOf(ScheduleGenerator.Family.class));
        SimTest.Summary s = t.campaign(1, 200, null);
        assertTrue(s.passed(), () -> "violation " + s.failure().violation() + " in " + s.failure().schedule());
        assertEquals(0, s.reported(), "nothing to report without faults");
        assertEquals(0, s.undetectable());
        for (int seed = 1; seed <= 20; seed++) {
            Schedule sc = new Schedule(seed, 2 + seed % 3, 8, List.of());
            SimulationRun.Outcome o = t.run(sc);
            assertEquals(o.messages(), o.delivered(), sc::toString);
            assertEquals(0, o.reportedByCores(), sc::toString);
        }
    }

    /**
     * 10^3 schedules of drop / duplicate / reorder / corrupt: none fails silently. The figures (from this test's
     * seeds 1..1000): most end reported; the rest are fault-free in effect, or trailing losses; both are counted.
     */
    @Test
    void aThousandFaultSchedulesEndReportedOrAsTrailingLossesNeverSilently() {
        SimTest.Summary s = tester(SimProtocols.byName("careful"), FRAME_FAULTS).campaign(1, 1000, null);
        assertTrue(s.passed(), () -> "silent failure " + s.failure().violation() + " in " + s.failure().schedule()
                + "; shrunk: " + s.shrunk().schedule() + " -> " + s.shrunk().violation());
        assertEquals(1000, s.schedules());
        assertTrue(s.reported() > 500, "most schedules break the assumption and end reported: " + s.reported());
        assertTrue(s.undetectable() < s.reported() / 10, "trailing losses are the exception: " + s.undetectable());
        System.out.printf("careful, 1000 drop/duplicate/reorder/corrupt schedules: %d reported, %d trailing losses"
                + " (undetectable without timers), %d completed, 0 silent%n", s.reported(), s.undetectable(),
                1000 - s.reported() - s.undetectable());
    }

    /** A trailing loss: two nodes, one event, its only frame dropped. Nothing follows it, so nothing can report it. */
    @Test
    void theLastFrameLostIsClassifiedAsATrailingLossNotPassedAsReported() {
        SimTest t = tester(SimProtocols.byName("careful"), FRAME_FAULTS);
        SimulationRun.Outcome o = t.run(Schedule.parse("72/4/1/drop@5:0"));
        assertTrue(o.passed(), () -> o.violation().toString());
        assertTrue(o.undetectable(), o::toString);
        assertFalse(o.reported());
        assertTrue(o.unseenFrames() >= 1);
        assertTrue(o.delivered() < o.messages());
    }

    /** The same core with its reports hidden from the harness: the first break is a silent failure, and caught. */
    @Test
    void aCarefulCoreThatHidesItsReportsIsCaught() {
        CoreFactory hiding = (link, clock, cpu, s) -> new HidingCareful(new CarefulCore(link,
                SimProtocols.careful(s, link), cpu));
        SimTest.Summary s = tester(hiding, FRAME_FAULTS).campaign(1, 100, null);
        assertFalse(s.passed(), "a careful core whose reports nobody sees fails silently");
        assertEquals(0, s.failure().reportedByCores());
    }
}
