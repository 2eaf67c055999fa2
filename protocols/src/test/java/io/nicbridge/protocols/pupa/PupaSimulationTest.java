package io.nicbridge.protocols.pupa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.protocols.core.BufferAudit;
import io.nicbridge.protocols.dst.CoreFactory;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator;
import io.nicbridge.protocols.dst.SimProtocols;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.protocols.dst.SimTest;
import io.nicbridge.protocols.dst.SimulationRun;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.protocols.core.ForwardingMessageCore;
import org.junit.jupiter.api.Test;

/** Pupa through the simulation tester on its in-memory medium: every fault family, 1000 schedules. */
class PupaSimulationTest {
    private static final SimSettings SETTINGS = SimSettings.defaults();

    private static SimTest tester(CoreFactory cores) {
        return new SimTest("pupa", cores, SETTINGS, new ScheduleGenerator(SETTINGS), VirtualTimeBase::new);
    }

    @Test
    void pupaSurvivesAThousandFaultSchedulesAndLeaksNothing() {
        SimTest.Summary s = tester(SimProtocols.byName("pupa")).campaign(1, 1000, null);
        assertTrue(s.passed(), () -> "violation " + s.failure().violation() + " in " + s.failure().schedule()
                + "; shrunk: " + s.shrunk().schedule().encode() + " -> " + s.shrunk().violation());
        assertEquals(1000, s.schedules());
        assertTrue(s.faulted() > 1000, "the schedules must actually fault frames, faulted " + s.faulted());
    }

    @Test
    void negativeControlPupaWithoutItsTimersIsCaughtAndShrunk() {
        SimTest t = tester((link, clock, cpu, s) -> new ForgetfulPupa(
                new PupaCore(link, clock, SimProtocols.pupa(s), cpu)));
        SimTest.Summary s = t.campaign(1, 1000, null);
        assertFalse(s.passed(), "Pupa that never retransmits must fail some schedule");
        assertFalse(s.shrunk().passed());
        assertEquals(s.failure().violation().invariant(), s.shrunk().violation().invariant());
        assertTrue(s.shrunk().schedule().size() < s.failure().schedule().size(),
                () -> "shrunk " + s.shrunk().schedule() + " is not smaller than " + s.failure().schedule());
        Schedule replayed = Schedule.parse(s.shrunk().schedule().encode());
        assertFalse(t.run(replayed).passed());
        assertTrue(t.replayCommand(replayed).startsWith("./nic simtest --protocol pupa --replay '"));
        assertTrue(tester(SimProtocols.byName("pupa")).run(replayed).passed(), "the real core passes it");
    }

    @Test
    void negativeControlWithoutTheFrameCheckACorruptingMediumBreaksIntegrity() {
        // The paper leaves damage to the card's FCS; the in-memory medium has none, so corrupted bytes get through.
        SimTest t = tester((link, clock, cpu, s) -> new PupaCore(link, clock,
                SimProtocols.pupa(s).withFrameCheck(false), cpu));
        SimTest.Summary s = t.campaign(1, 1000, null);
        assertFalse(s.passed());
        SimulationRun.Outcome shrunk = s.shrunk();
        assertFalse(shrunk.passed());
        assertTrue(shrunk.schedule().size() < s.failure().schedule().size());
        assertTrue(shrunk.schedule().encode().contains("corrupt"), shrunk.schedule().encode());
    }

    @Test
    void negativeControlACoreThatNeverGivesABufferBackFailsTheAudit() {
        SimTest t = tester((link, clock, cpu, s) -> new Hoarding(new PupaCore(link, clock, SimProtocols.pupa(s), cpu)));
        SimulationRun.Outcome o = t.run(new ScheduleGenerator(SETTINGS).generate(3));
        assertFalse(o.passed());
        assertEquals("no-leak", o.violation().invariant(), o.violation()::toString);
        assertTrue(tester(SimProtocols.byName("pupa")).run(o.schedule()).passed());
    }

    /** Test-only: Pupa whose audit always finds a buffer still held, as a core that never gives one back would. */
    private static final class Hoarding extends ForwardingMessageCore<PupaCore> implements BufferAudit {
        Hoarding(PupaCore inner) {
            super(inner);
        }

        @Override
        public String leaks() {
            String l = inner.leaks();
            return l != null ? l : "one send-pool buffer never given back";
        }
    }
}
