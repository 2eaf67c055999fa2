package io.nicbridge.protocols.dst;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.protocols.traditional.TraditionalCore;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The simulation tester driving C* cores ({@link CStarWorkload}): the traditional core, and a broken variant. */
class CStarSimulationTest {
    private static final SimSettings SETTINGS = SimSettings.cstar();
    private static final EnumSet<ScheduleGenerator.Family> FRAME_FAULTS = EnumSet.of(ScheduleGenerator.Family.DROP,
            ScheduleGenerator.Family.DUPLICATE, ScheduleGenerator.Family.REORDER, ScheduleGenerator.Family.CORRUPT);

    private static SimTest tester(CoreFactory cores, EnumSet<ScheduleGenerator.Family> families) {
        return new SimTest("traditional", cores, SETTINGS, new ScheduleGenerator(SETTINGS, families),
                VirtualTimeBase::new);
    }

    @Test
    void cleanSchedulesCompleteEveryEvent() {
        SimTest t = tester(SimProtocols.byName("traditional"), EnumSet.noneOf(ScheduleGenerator.Family.class));
        for (int seed = 1; seed <= 20; seed++) {
            Schedule s = new Schedule(seed, 2 + seed % 3, 6, List.of());
            SimulationRun.Outcome o = t.run(s);
            assertTrue(o.passed(), () -> s + ": " + o.violation());
            assertEquals(o.messages(), o.delivered());
            assertTrue(o.messages() > 0);
        }
    }

    @Test
    void traditionalSurvivesAThousandDropDuplicateReorderCorruptSchedules() {
        SimTest.Summary s = tester(SimProtocols.byName("traditional"), FRAME_FAULTS).campaign(1, 1000, null);
        assertTrue(s.passed(), () -> "violation " + s.failure().violation() + " in " + s.failure().schedule()
                + "; shrunk: " + s.shrunk().schedule() + " -> " + s.shrunk().violation());
        assertEquals(1000, s.schedules());
        assertTrue(s.faulted() > 1000, "the schedules must actually fault frames, faulted " + s.faulted());
    }

    @Test
    void theSameSeedReplaysTheSameTrace() {
        SimTest t = tester(SimProtocols.byName("traditional"), FRAME_FAULTS);
        ScheduleGenerator g = new ScheduleGenerator(SETTINGS, FRAME_FAULTS);
        SimulationRun.Outcome a = t.run(g.generate(41));
        SimulationRun.Outcome b = t.run(Schedule.parse(g.generate(41).encode()));
        assertEquals(a.traceDigest(), b.traceDigest());
        assertEquals(a.endNanos(), b.endNanos());
    }

    @Test
    void aCoreDeafToRetransmissionRequestsIsCaughtAndShrunkToOneDrop() {
        CoreFactory deaf = (link, clock, cpu, s) -> new DeafTraditional(
                new TraditionalCore(link, clock, cpu, SimProtocols.traditional(s)));
        SimTest t = tester(deaf, FRAME_FAULTS);
        Schedule clean = new Schedule(3, 3, 8, List.of());
        assertTrue(t.run(clean).passed(), "without faults the deaf core works");
        SimTest.Summary s = t.campaign(1, 200, null);
        assertFalse(s.passed(), "a lost fragment is never resent: the campaign must catch it");
        assertNotNull(s.shrunk());
        assertEquals("progress", s.failure().violation().invariant());
        assertFalse(s.shrunk().passed(), "the shrunk schedule still fails");
        assertEquals("progress", s.shrunk().violation().invariant());
        assertTrue(s.shrunk().schedule().faults().size() <= 2, () -> "shrunk to " + s.shrunk().schedule());
        assertTrue(s.shrunk().schedule().size() < s.failure().schedule().size());
        assertTrue(t.replayCommand(s.shrunk().schedule()).contains("--protocol traditional --replay"));
    }

    /**
     * The careful protocol's promise (Guarantee.REPORTS_BROKEN_ASSUMPTIONS): over a medium that breaks its assumption
     * it may fail to deliver, but never silently. A stand-in that reports what it notices missing passes schedules
     * with drops (ended as reported); the same core silent is caught (exactly-once, integrity, completion and
     * progress are checked on it until it reports).
     */
    @Test
    void aCoreThatReportsBrokenAssumptionsPassesAndASilentOneIsCaught() {
        EnumSet<ScheduleGenerator.Family> drops = EnumSet.of(ScheduleGenerator.Family.DROP);
        CoreFactory reporting = (link, clock, cpu, s) -> new DeafTraditional(
                new TraditionalCore(link, clock, cpu, SimProtocols.traditional(s)), true, true);
        CoreFactory silent = (link, clock, cpu, s) -> new DeafTraditional(
                new TraditionalCore(link, clock, cpu, SimProtocols.traditional(s)), true, false);
        SimTest.Summary ok = tester(reporting, drops).campaign(1, 100, null);
        assertTrue(ok.passed(), () -> "violation " + ok.failure().violation() + " in " + ok.failure().schedule());
        SimTest t = tester(reporting, drops);
        long reported = 0;
        ScheduleGenerator g = new ScheduleGenerator(SETTINGS, drops);
        for (long seed = 1; seed <= 100; seed++) {
            reported += t.run(g.generate(seed)).reportedByCores() > 0 ? 1 : 0;
        }
        assertTrue(reported > 0, "some schedules broke the assumption and ended reported");
        SimTest.Summary caught = tester(silent, drops).campaign(1, 100, null);
        assertFalse(caught.passed(), "a silent core that loses fragments must be caught");
        assertEquals("progress", caught.failure().violation().invariant());
        assertEquals(0, caught.failure().reportedByCores());
    }
}
