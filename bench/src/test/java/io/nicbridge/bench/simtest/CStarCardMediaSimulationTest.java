package io.nicbridge.bench.simtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.careful.CarefulViolation;
import io.nicbridge.protocols.core.ProtocolCore;
import io.nicbridge.protocols.dst.CoreFactory;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimProtocols;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.protocols.dst.SimTest;
import io.nicbridge.protocols.dst.SimulationRun;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The two C* cores of the careful-protocols paper, traditional and careful, with the harness's one C* workload on the
 * card media (emulated 21140s on Ethernet through TulipLink, emulated Medusas on an FDDI ring through MedusaLink,
 * emulated SBA-200s on an ATM switch through UnetLink) and on the MPP fabric (a 4x4 mesh, FabricLinks); U-Net and the
 * fabric have no broadcast, so there a broadcast is P-1 unicasts. In virtual time: fault-free schedules complete with
 * zero violations on all four; with every fault family the medium expresses,
 * card resets included on the cards, the traditional core keeps exactly-once and progress and the careful one fails
 * nowhere silently (a reset of its card is itself reported).
 */
class CStarCardMediaSimulationTest {
    private static SimTest tester(String protocol, String medium, boolean faults) {
        SimSettings settings = SimProtocols.settings(protocol);
        SimMedium.Factory media = SimMedia.byName(medium);
        return new SimTest(protocol, SimProtocols.byName(protocol), settings, new ScheduleGenerator(settings,
                faults ? media.families() : EnumSet.noneOf(ScheduleGenerator.Family.class)), media);
    }

    @ParameterizedTest
    @CsvSource({"traditional, ethernet", "careful, ethernet", "traditional, fddi", "careful, fddi",
        "traditional, atm", "careful, atm", "traditional, fabric", "careful, fabric"})
    void faultFreeSchedulesCompleteOnTheCards(String protocol, String medium) {
        SimTest.Summary s = tester(protocol, medium, false).campaign(1, 40, null);
        assertTrue(s.passed(), () -> protocol + " on " + medium + ": " + s.failure().violation() + " in "
                + s.failure().schedule() + " (" + s.failure().medium() + ")");
        assertEquals(0, s.reported(), "a clean medium breaks no assumption");
        assertEquals(0, s.undetectable());
    }

    @ParameterizedTest
    @CsvSource({"traditional, ethernet", "careful, ethernet", "traditional, fddi", "careful, fddi",
        "traditional, atm", "careful, atm", "traditional, fabric", "careful, fabric"})
    void faultSchedulesWithCardResetsFailNowhereSilently(String protocol, String medium) {
        SimTest.Summary s = tester(protocol, medium, true).campaign(1, 150, null);
        assertTrue(s.passed(), () -> protocol + " on " + medium + ": " + s.failure().violation() + " in "
                + s.failure().schedule() + " (" + s.failure().medium() + "); shrunk: " + s.shrunk().schedule()
                + " -> " + s.shrunk().violation());
        if (protocol.equals("careful")) {
            assertTrue(s.reported() > 0, "the card media's faults break the careful protocol's assumption, reported");
        } else {
            assertEquals(0, s.reported() + s.undetectable(), "the traditional core recovers, it reports nothing");
        }
        System.out.printf("simtest %s on %s: 150 fault schedules with resets, %d reported, %d trailing losses,"
                + " 0 silent%n", protocol, medium, s.reported(), s.undetectable());
    }

    /**
     * The schedule that stalled the traditional core: node 0's card reset lost frames, the nodes waited out the loss
     * on their timeouts, and node 1, holding fragments of later events in its 21140's receive ring, stopped receiving
     * when the chip came round the ring to one of them (777 frames missed). Fragments are now copied out at once on a
     * link that receives in order, and the run completes.
     */
    @Test
    void theTraditionalCoreRecoversFromTheResetThatStalledItOnTheEthernet() {
        SimulationRun.Outcome o = SimulationRun.run(Schedule.parse("42/4/13/reset@0:256131"),
                SimProtocols.settings("traditional"), SimProtocols.byName("traditional"), SimMedia.byName("ethernet"));
        assertTrue(o.passed(), () -> o.violation() + " (" + o.medium() + ")");
        assertEquals(o.messages(), o.delivered());
        assertTrue(o.medium().contains("1 card resets"), o.medium());
    }

    /**
     * A reset early on: the reset card was receiving the first broadcasts of its peer, which has nothing more to send
     * it (a trailing loss, if only gaps counted). The careful core reads its link's reset count and reports the reset
     * itself, on the three cards: the 21140 and the Medusa, whose drivers re-open the chip, and the SBA-200, whose
     * i960 firmware restarts and whose kernel driver re-creates the endpoint (its UnetLink counts the restart; before
     * that this schedule ended as an unreported trailing loss on atm).
     */
    @ParameterizedTest
    @CsvSource({"ethernet", "fddi", "atm"})
    void theCarefulCoreReportsItsCardsReset(String medium) {
        List<ProtocolCore> cores = new ArrayList<>();
        CoreFactory careful = SimProtocols.byName("careful");
        CoreFactory keeping = (link, clock, cpu, s) -> {
            ProtocolCore c = careful.create(link, clock, cpu, s);
            cores.add(c);
            return c;
        };
        SimulationRun.Outcome o = SimulationRun.run(Schedule.parse("33/2/2/reset@1:11390"),
                SimProtocols.settings("careful"), keeping, SimMedia.byName(medium));
        assertTrue(o.passed(), () -> o.violation() + " (" + o.medium() + ")");
        assertTrue(o.reported(), () -> "the reset was not reported: " + o.medium());
        assertEquals(1, ((CarefulCore) cores.get(1)).violations(CarefulViolation.CARD_RESET), "the reset card's node");
        assertEquals(0, ((CarefulCore) cores.get(0)).violations(CarefulViolation.CARD_RESET), "the other node");
    }
}
