package io.nicbridge.bench.simtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.protocols.dst.CoreFactory;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimProtocols;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.protocols.dst.SimTest;
import io.nicbridge.protocols.pupa.ForgetfulPupa;
import io.nicbridge.protocols.pupa.PupaCore;
import org.junit.jupiter.api.Test;

/**
 * Pupa through the DST harness on emulated 21140s on an Ethernet segment (the paper's card), every fault family the
 * segment expresses, with the no-leak audit after every schedule. Pupa as the paper has it: no software checksum, the
 * card's FCS drops what the wire damaged.
 */
class PupaCardMediaSimulationTest {
    private static final SimSettings SETTINGS = SimSettings.defaults();
    private static final CoreFactory PAPER = (link, clock, cpu, s) -> new PupaCore(link, clock,
            SimProtocols.pupa(s).withFrameCheck(false), cpu);

    private static SimTest tester(CoreFactory cores) {
        SimMedium.Factory media = SimMedia.byName("ethernet");
        return new SimTest("pupa", cores, SETTINGS, new ScheduleGenerator(SETTINGS, media.families()), media);
    }

    @Test
    void pupaSurvivesAThousandFaultSchedulesOnEmulated21140s() {
        SimTest.Summary s = tester(PAPER).campaign(1, 1000, null);
        assertTrue(s.passed(), () -> "violation " + s.failure().violation() + " in " + s.failure().schedule().encode()
                + " (" + s.failure().medium() + "); shrunk: " + s.shrunk().schedule().encode() + " -> "
                + s.shrunk().violation());
        assertEquals(1000, s.schedules());
        assertTrue(s.faulted() > 1000, "the segment must actually fault frames, faulted " + s.faulted());
        System.out.printf("simtest pupa on ethernet: 1000 schedules in %.1f s = %.0f schedules/s, %d frames faulted%n",
                s.wallNanos() / 1e9, s.schedulesPerSecond(), s.faulted());
    }

    @Test
    void theRegisteredPupaPassesTooAndAForgetfulOneIsCaughtAndShrunk() {
        assertTrue(tester(SimProtocols.byName("pupa")).campaign(1, 100, null).passed());
        SimTest t = tester((link, clock, cpu, s) -> new ForgetfulPupa(
                new PupaCore(link, clock, SimProtocols.pupa(s), cpu)));
        SimTest.Summary s = t.campaign(1, 300, null);
        assertFalse(s.passed(), "Pupa without its timers must fail some schedule on the segment");
        assertFalse(s.shrunk().passed());
        assertTrue(s.shrunk().schedule().size() < s.failure().schedule().size());
        assertFalse(t.run(Schedule.parse(s.shrunk().schedule().encode())).passed(), "the shrunk schedule replays");
        assertTrue(t.replayCommand(s.shrunk().schedule()).contains("--protocol pupa --medium ethernet"));
    }
}
