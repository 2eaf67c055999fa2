package io.nicbridge.protocols.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.protocols.dst.ScheduleGenerator;
import io.nicbridge.protocols.dst.SimProtocols;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.protocols.dst.SimTest;
import io.nicbridge.sim.engine.VirtualTimeBase;
import org.junit.jupiter.api.Test;

/**
 * Active Messages under the simulation tester: the message workload stores every message through {@link AmCore}
 * (one or two chunks on the 64-byte medium), replies to half of them, and the faults of a thousand schedules (loss,
 * corruption, duplication, reordering, partitions, slow nodes) must not break exactly-once, per-peer order,
 * integrity, progress or bounded memory. A core that never answers is caught.
 */
class AmSimulationTest {
    private static final SimSettings SETTINGS = SimProtocols.settings("am");

    @Test
    void activeMessagesSurviveAThousandFaultSchedules() {
        SimTest t = new SimTest("am", SimProtocols.byName("am"), SETTINGS, new ScheduleGenerator(SETTINGS),
                VirtualTimeBase::new);
        SimTest.Summary s = t.campaign(1, 1000, null);
        assertTrue(s.passed(), () -> "violation " + s.failure().violation() + " in " + s.failure().schedule()
                + "; shrunk: " + s.shrunk().schedule() + " -> " + s.shrunk().violation());
        assertEquals(1000, s.schedules());
        assertTrue(s.faulted() > 1000, "the schedules must actually fault frames, faulted " + s.faulted());
    }

    @Test
    void negativeControlAStoreHandlerThatNeverRunsIsCaught() {
        // The receiver's application never polls: messages arrive in the channel but no handler runs.
        SimTest t = new SimTest("am", (link, clock, cpu, s) -> new io.nicbridge.protocols.core.ForwardingMessageCore<AmMessageChannel>(
                new AmMessageChannel(link, clock, SimProtocols.am(s), cpu, s.maxMessage())) {
            @Override
            public int deliver(io.nicbridge.protocols.core.MessageHandler handler, int limit) {
                return 0;
            }
        }, SETTINGS, new ScheduleGenerator(SETTINGS), VirtualTimeBase::new);
        SimTest.Summary s = t.campaign(1, 50, null);
        assertFalse(s.passed(), "a node that never dispatches must fail the progress check");
        assertEquals("progress", s.failure().violation().invariant());
    }
}
