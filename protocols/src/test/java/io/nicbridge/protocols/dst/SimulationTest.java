package io.nicbridge.protocols.dst;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.gbn.GullibleGoBackN;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SimulationTest {
    private static final SimSettings SETTINGS = SimSettings.defaults();

    private static SimTest tester(CoreFactory cores) {
        return new SimTest("gbn", cores, SETTINGS, new ScheduleGenerator(SETTINGS), VirtualTimeBase::new);
    }

    @Test
    void goBackNSurvivesAThousandFaultSchedules() {
        SimTest.Summary s = tester(SimProtocols.byName("gbn")).campaign(1, 1000, null);
        assertTrue(s.passed(), () -> "violation " + s.failure().violation() + " in " + s.failure().schedule()
                + "; shrunk: " + s.shrunk().schedule() + " -> " + s.shrunk().violation());
        assertEquals(1000, s.schedules());
        assertTrue(s.faulted() > 1000, "the schedules must actually fault frames, faulted " + s.faulted());
    }

    /** Stop-and-wait (w = 1) to wide windows, down to one transmit and one receive buffer on the medium. */
    @ParameterizedTest
    @CsvSource({"1, 1, 1", "2, 4, 1", "8, 1, 8", "16, 4, 8"})
    void goBackNSurvivesFaultSchedulesAtOtherWindowsAndBufferCounts(int window, int txSlots, int rxSlots) {
        SimSettings s = new SimSettings(window, 48, 200_000, 64, txSlots, rxSlots, 2_000, 80, 2_000_000, 8_000_000,
                2_000_000, CostTable.zero());
        SimTest.Summary sum = new SimTest("gbn", SimProtocols.byName("gbn"), s, new ScheduleGenerator(s),
                VirtualTimeBase::new).campaign(5_000, 250, null);
        assertTrue(sum.passed(), () -> "violation " + sum.failure() + "; shrunk: " + sum.shrunk());
    }

    @Test
    void theSameSeedReplaysTheSameTraceAndOtherSeedsDiffer() {
        SimTest t = tester(SimProtocols.byName("gbn"));
        ScheduleGenerator g = new ScheduleGenerator(SETTINGS);
        SimulationRun.Outcome a = t.run(g.generate(77));
        SimulationRun.Outcome b = t.run(g.generate(77));
        SimulationRun.Outcome c = t.run(Schedule.parse(g.generate(77).encode()));
        SimulationRun.Outcome d = t.run(g.generate(78));
        assertEquals(a.traceDigest(), b.traceDigest());
        assertEquals(a.dispatches(), b.dispatches());
        assertEquals(a.endNanos(), b.endNanos());
        assertEquals(a.traceDigest(), c.traceDigest(), "the encoded schedule replays the same run");
        assertNotEquals(a.traceDigest(), d.traceDigest());
    }

    @Test
    void everyDeclaredInvariantIsExercisedByFaults() {
        // Without faults a schedule is trivially fine; with them the core must actually retransmit.
        SimTest t = tester(SimProtocols.byName("gbn"));
        Schedule clean = new Schedule(5, 3, 20, List.of());
        Schedule lossy = clean.withFaults(List.of(new Fault.FrameFault(Fault.Kind.DROP, 3, 0),
                new Fault.FrameFault(Fault.Kind.CORRUPT, 8, 0x50007), new Fault.FrameFault(Fault.Kind.DUPLICATE, 12, 1000),
                new Fault.Partition(100_000, 900_000, 0b001), new Fault.SlowNode(1, 0, 500_000, 50_000)));
        SimulationRun.Outcome o1 = t.run(clean);
        SimulationRun.Outcome o2 = t.run(lossy);
        assertTrue(o1.passed(), () -> String.valueOf(o1.violation()));
        assertTrue(o2.passed(), () -> String.valueOf(o2.violation()));
        assertEquals(60, o2.delivered());
        assertTrue(o2.framesFaulted() >= 3, "the frame faults acted: " + o2.framesFaulted());
        assertTrue(o2.framesCarried() > o1.framesCarried(), "recovering from the faults takes retransmissions");
    }

    @Test
    void negativeControlAForgetfulCoreIsCaughtAndShrunk() {
        SimTest t = tester((link, clock, cpu, s) -> new ForgetfulGoBackN(
                new GoBackNCore(link, clock, new GoBackNConfig(s.window(), s.maxMessage(), s.rtoNanos()), cpu)));
        SimTest.Summary s = t.campaign(1, 1000, null);
        assertFalse(s.passed(), "a core that never retransmits must fail some schedule");
        assertEquals("progress", s.failure().violation().invariant());
        assertNotNull(s.shrunk());
        assertFalse(s.shrunk().passed(), "the shrunk schedule still fails");
        assertEquals("progress", s.shrunk().violation().invariant());
        assertTrue(s.shrunk().schedule().size() < s.failure().schedule().size(),
                () -> "shrunk " + s.shrunk().schedule() + " is not smaller than " + s.failure().schedule());
        // Replays from its text, as the printed command does.
        Schedule replayed = Schedule.parse(s.shrunk().schedule().encode());
        assertFalse(t.run(replayed).passed());
        assertTrue(t.replayCommand(replayed).startsWith("./nic simtest --protocol gbn --replay '"));
        // The correct core passes the schedule the broken one fails.
        assertTrue(tester(SimProtocols.byName("gbn")).run(replayed).passed());
    }

    @Test
    void negativeControlAReceiverThatAcceptsAnyFrameIsCaughtAndShrunk() {
        SimTest t = tester((link, clock, cpu, s) -> new GullibleGoBackN(link, clock,
                new GoBackNConfig(s.window(), s.maxMessage(), s.rtoNanos()), cpu));
        SimTest.Summary s = t.campaign(1, 1000, null);
        assertFalse(s.passed(), "a receiver that takes out-of-order and duplicate frames must fail some schedule");
        String invariant = s.failure().violation().invariant();
        assertTrue(invariant.equals("per-peer-order") || invariant.equals("exactly-once"), s.failure().toString());
        assertEquals(invariant, s.shrunk().violation().invariant());
        assertTrue(s.shrunk().schedule().size() < s.failure().schedule().size(),
                () -> "shrunk " + s.shrunk().schedule() + " is not smaller than " + s.failure().schedule());
        assertTrue(tester(SimProtocols.byName("gbn")).run(s.shrunk().schedule()).passed());
        // Without faults nothing arrives out of order or twice: it is the faults that expose the bug.
        assertTrue(t.run(s.shrunk().schedule().withFaults(List.of())).passed());
    }

    @Test
    void schedulesRejectBadText() {
        assertThrows(IllegalArgumentException.class, () -> Schedule.parse("1/2/3"));
        assertThrows(IllegalArgumentException.class, () -> Schedule.parse("1/2/3/explode@4:5"));
        assertThrows(IllegalArgumentException.class, () -> Schedule.parse("1/x/3/"));
        assertThrows(IllegalArgumentException.class, () -> Schedule.parse("1/1/3/"));
        assertThrows(IllegalArgumentException.class, () -> SimProtocols.byName("quic"));
        Schedule s = new Schedule(9, 3, 4, List.of(new Fault.FrameFault(Fault.Kind.REORDER, 2, 300),
                new Fault.Partition(1, 2, 5), new Fault.SlowNode(2, 3, 4, 5)));
        assertEquals(s, Schedule.parse(s.encode()));
    }
}
