package io.nicbridge.bench.simtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.protocols.dst.CoreFactory;
import io.nicbridge.protocols.dst.ForgetfulGoBackN;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimProtocols;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.protocols.dst.SimTest;
import io.nicbridge.protocols.dst.SimulationRun;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.gbn.GullibleGoBackN;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The go-back-N core through the DST harness on the card media: emulated 21140s on an Ethernet segment and emulated
 * Medusas on an FDDI ring, emulated SBA-200s on an ATM switch, and the MPP fabric (a 4x4 mesh); the schedule's
 * faults injected by the medium's own sim.fault plans (the fabric's at its network interfaces).
 */
class CardMediaSimulationTest {
    private static final SimSettings SETTINGS = SimSettings.defaults();
    private static final CoreFactory FORGETFUL = (link, clock, cpu, s) -> new ForgetfulGoBackN(
            new GoBackNCore(link, clock, new GoBackNConfig(s.window(), s.maxMessage(), s.rtoNanos()), cpu));
    private static final CoreFactory GULLIBLE = (link, clock, cpu, s) -> new GullibleGoBackN(link, clock,
            new GoBackNConfig(s.window(), s.maxMessage(), s.rtoNanos()), cpu);

    private static SimTest tester(String medium, CoreFactory cores) {
        SimMedium.Factory media = SimMedia.byName(medium);
        return new SimTest("gbn", cores, SETTINGS, new ScheduleGenerator(SETTINGS, media.families()), media);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ethernet", "fddi", "atm", "fabric"})
    void goBackNSurvivesAThousandFaultSchedulesOnTheCards(String medium) {
        SimTest.Summary s = tester(medium, SimProtocols.byName("gbn")).campaign(1, 1000, null);
        assertTrue(s.passed(), () -> medium + ": violation " + s.failure().violation() + " in " + s.failure().schedule()
                + " (" + s.failure().medium() + "); shrunk: " + s.shrunk().schedule() + " -> "
                + s.shrunk().violation());
        assertEquals(1000, s.schedules());
        assertTrue(s.faulted() > 1000, () -> medium + ": the medium must actually fault frames, faulted "
                + s.faulted());
        System.out.printf("simtest gbn on %s: 1000 schedules in %.1f s = %.0f schedules/s, %d frames faulted%n",
                medium, s.wallNanos() / 1e9, s.schedulesPerSecond(), s.faulted());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ethernet", "fddi", "atm", "fabric"})
    void theSameSeedReplaysTheSameTraceOnTheCards(String medium) {
        SimTest t = tester(medium, SimProtocols.byName("gbn"));
        ScheduleGenerator g = new ScheduleGenerator(SETTINGS, SimMedia.byName(medium).families());
        SimulationRun.Outcome a = t.run(g.generate(77));
        SimulationRun.Outcome b = t.run(Schedule.parse(g.generate(77).encode()));
        SimulationRun.Outcome c = t.run(g.generate(78));
        assertTrue(a.passed(), a::toString);
        assertEquals(a.traceDigest(), b.traceDigest());
        assertEquals(a.dispatches(), b.dispatches());
        assertEquals(a.endNanos(), b.endNanos());
        assertEquals(a.framesCarried(), b.framesCarried());
        assertNotEquals(a.traceDigest(), c.traceDigest());
    }

    @Test
    void aDroppedFrameOnTheWireReachesTheCoreAsALossItMustRetransmit() {
        // The first frame on the segment (a data frame) is dropped: the core retransmits it, the segment counted the
        // fault, and a core without a retransmission timer stalls.
        Schedule s = Schedule.parse("5/2/6/drop@0:0");
        SimulationRun.Outcome o = tester("ethernet", SimProtocols.byName("gbn")).run(s);
        assertTrue(o.passed(), o::toString);
        assertEquals(1, o.framesFaulted(), o.medium());
        SimulationRun.Outcome forgetful = tester("ethernet", FORGETFUL).run(s);
        assertEquals("progress", forgetful.violation().invariant(), forgetful::toString);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ethernet", "fddi", "atm", "fabric"})
    void aPartitionCutsTheSidesUntilItHealsAndTheCoreCatchesUp(String medium) {
        // Node 0 alone on one side for 1 ms from the start: everything between it and the others is cut, then heals.
        Schedule s = Schedule.parse("3/3/8/partition@0:1000000:1");
        SimulationRun.Outcome o = tester(medium, SimProtocols.byName("gbn")).run(s);
        assertTrue(o.passed(), o::toString);
        assertEquals(24, o.delivered());
        assertTrue(o.framesFaulted() > 0, o.medium());
        assertTrue(o.medium().contains("frames cut by partitions")
                && !o.medium().matches(".*[^0-9]0 frames cut by partitions.*"), o.medium());
        assertTrue(o.endNanos() > 1_000_000, "nothing crosses before the heal, ended at " + o.endNanos());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ethernet", "fddi", "atm"})
    void aCardResetMidStreamIsFoundByTheDriverAndTheCoreDeliversEverything(String medium) {
        // Node 1's card is reset 300 us into the load (frames in flight and the card's rings are lost); its driver's
        // watchdog finds the reset through the card's registers and re-initialises it; go-back-N resends.
        Schedule s = Schedule.parse("11/3/16/reset@1:300000");
        SimulationRun.Outcome o = tester(medium, SimProtocols.byName("gbn")).run(s);
        assertTrue(o.passed(), o::toString);
        assertEquals(3 * 16, o.delivered());
        assertTrue(o.medium().contains("1 card resets"), o.medium());
        assertTrue(SimMedia.byName(medium).families().contains(ScheduleGenerator.Family.RESET));
    }

    @Test
    void aResetNodeThatOnlyReceivesIsFoundOnEthernet() {
        // Found by the 10^3 campaign (shrunk): node 1's chip is reset when it has nothing left to send; only the
        // Tulip watchdog's periodic CSR6 check finds it (before, the others retransmitted to it for ever: 40 of 42).
        Schedule s = Schedule.parse("162/3/14/reset@1:1814064");
        SimulationRun.Outcome o = tester("ethernet", SimProtocols.byName("gbn")).run(s);
        assertTrue(o.passed(), o::toString);
        assertEquals(42, o.delivered());
    }

    @Test
    void aSendBetweenAFirmwareRestartAndTheKernelsCheckIsLostNotACrashOnAtm() {
        // Found by the 10^3 campaign (shrunk): node 0's 33rd send met the page its firmware had wiped before the
        // kernel's check ("send queue full after a successful claim"); and a second restart during the kernel's replay
        // left the replay waiting for ever.
        for (String schedule : List.of("8/3/15/reset@0:1691732,slow@0:608423:2193947:276675",
                "68/2/1/reset@0:478964,reset@0:563104")) {
            SimulationRun.Outcome o = tester("atm", SimProtocols.byName("gbn")).run(Schedule.parse(schedule));
            assertTrue(o.passed(), o::toString);
            assertEquals(o.schedule().nodes() * o.schedule().messagesPerNode(), o.delivered(), schedule);
        }
    }

    @Test
    void mediaWithoutACardRefuseAReset() {
        Schedule s = Schedule.parse("11/3/16/reset@1:300000");
        for (String medium : List.of("memory", "fabric")) {
            assertFalse(SimMedia.byName(medium).families().contains(ScheduleGenerator.Family.RESET), medium);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> tester(medium, SimProtocols.byName("gbn")).run(s), medium);
            assertTrue(e.getMessage().contains("reset"), e.getMessage());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ethernet", "fddi", "atm", "fabric"})
    void negativeControlAForgetfulCoreIsCaughtAndShrunkOnTheCards(String medium) {
        SimTest t = tester(medium, FORGETFUL);
        SimTest.Summary s = t.campaign(1, 200, null);
        assertFalse(s.passed(), "a core that never retransmits must fail some schedule on " + medium);
        assertEquals("progress", s.failure().violation().invariant());
        assertEquals("progress", s.shrunk().violation().invariant());
        assertTrue(s.shrunk().schedule().size() < s.failure().schedule().size(),
                () -> "shrunk " + s.shrunk().schedule() + " is not smaller than " + s.failure().schedule());
        assertFalse(t.run(Schedule.parse(s.shrunk().schedule().encode())).passed(), "the shrunk schedule replays");
        assertTrue(t.replayCommand(s.shrunk().schedule()).contains("--medium " + medium));
    }

    @ParameterizedTest
    @ValueSource(strings = {"ethernet", "fabric"})
    void negativeControlAReceiverThatAcceptsAnyFrameIsCaught(String medium) {
        SimTest t = tester(medium, GULLIBLE);
        SimTest.Summary s = t.campaign(1, 200, null);
        assertFalse(s.passed(), "a receiver that takes out-of-order and duplicate frames must fail on " + medium);
        String invariant = s.failure().violation().invariant();
        assertTrue(invariant.equals("per-peer-order") || invariant.equals("exactly-once"), s.failure().toString());
        assertEquals(invariant, s.shrunk().violation().invariant());
        assertTrue(s.shrunk().schedule().size() <= s.failure().schedule().size());
        assertTrue(tester(medium, SimProtocols.byName("gbn")).run(s.shrunk().schedule()).passed());
    }

    @Test
    void eachFrameFaultLandsAtTheFabricsNetworkInterfaceAndTheCoreRepairsIt() {
        // 2 nodes, so frame f is packet f/2+1 arriving at node f%2: node 0's NI drops its first packet, node 1's
        // duplicates its first, holds back its second past the third, delays its fourth and fails its fifth's check.
        Schedule s = Schedule.parse("5/2/10/drop@0:0,duplicate@1:0,reorder@3:0,delay@7:30000,corrupt@9:0");
        SimulationRun.Outcome o = tester("fabric", SimProtocols.byName("gbn")).run(s);
        assertTrue(o.passed(), o::toString);
        assertEquals(20, o.delivered());
        assertEquals(5, o.framesFaulted(), o.medium());
        assertTrue(o.medium().contains("drop 1 duplicate 1 reorder 1 delay 1 corrupt 1"), o.medium());
        SimulationRun.Outcome forgetful = tester("fabric", FORGETFUL).run(Schedule.parse("5/2/6/drop@0:0"));
        assertEquals("progress", forgetful.violation().invariant(), forgetful::toString);
    }

    @Test
    void aFabricConfigFileIsAMediumToo() {
        SimMedium.Factory torus = SimMedia.byName("fabric:../configs/fabric/torus8x8.cfg");
        assertEquals("fabric:../configs/fabric/torus8x8.cfg", torus.name());
        SimTest t = new SimTest("gbn", SimProtocols.byName("gbn"), SETTINGS,
                new ScheduleGenerator(SETTINGS, torus.families()), torus);
        SimTest.Summary s = t.campaign(1, 20, null);
        assertTrue(s.passed(), () -> s.failure().toString());
        assertTrue(t.replayCommand(Schedule.parse("1/2/1/")).contains("--medium fabric:../configs/fabric/torus8x8.cfg"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SimMedia.byName("fabric:no/such.cfg"));
        assertTrue(e.getMessage().contains("no/such.cfg"), e.getMessage());
    }

    @Test
    void aFaultTheMediumCannotExpressIsRefusedNotIgnored() {
        // FDDI neither duplicates, reorders nor delays.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> tester("fddi", SimProtocols.byName("gbn")).run(Schedule.parse("1/2/4/duplicate@3:100")));
        assertTrue(e.getMessage().contains("fddi") && e.getMessage().contains("duplicate@3:100"), e.getMessage());
        SimMedium.Factory fddi = SimMedia.byName("fddi");
        IllegalArgumentException g = assertThrows(IllegalArgumentException.class, () -> new SimTest("gbn",
                SimProtocols.byName("gbn"), SETTINGS, new ScheduleGenerator(SETTINGS), fddi));
        assertTrue(g.getMessage().contains("REORDER"), g.getMessage());
        assertEquals(EnumSet.of(ScheduleGenerator.Family.DROP, ScheduleGenerator.Family.CORRUPT,
                ScheduleGenerator.Family.PARTITION, ScheduleGenerator.Family.SLOW, ScheduleGenerator.Family.RESET),
                fddi.families());
        assertThrows(IllegalArgumentException.class, () -> SimMedia.byName("token-bus"));
        assertEquals(List.of("memory", "ethernet", "fddi", "atm", "fabric", "ethernet-hub"), SimMedia.names());
    }
}
