package io.nicbridge.bench.simtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.protocols.dst.ScheduleGenerator;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimProtocols;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.protocols.dst.SimTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * TCP over IPv4 ({@code dst.TcpNode}) through the DST harness on the emulated cards: IP in the 21140 framing on an
 * Ethernet segment, in AAL5 PDUs on the SBA-200's U-Net channels through an ATM switch, on the Medusa FDDI ring and on
 * the MPP fabric, every fault family each medium expresses (card resets included where there is a card to reset),
 * with the stream oracle and the no-leak audit after every schedule; also with {@code TcpConfig.ackAtPoll}, the
 * U-Net real-time stacks' setting.
 */
class TcpCardMediaSimulationTest {
    private static final SimSettings SETTINGS = SimProtocols.settings("tcp");

    @ParameterizedTest
    @CsvSource({"tcp, ethernet, 60", "tcp, atm, 15", "tcp, fddi, 15", "tcp, fabric, 15",
        "tcp-ack-at-poll, ethernet, 30", "tcp-ack-at-poll, atm, 15"})
    void tcpKeepsItsPromiseOnTheEmulatedMedia(String protocol, String medium, int seeds) {
        SimMedium.Factory media = SimMedia.byName(medium);
        SimTest t = new SimTest(protocol, SimProtocols.byName(protocol), SETTINGS,
                new ScheduleGenerator(SETTINGS, media.families()), media);
        SimTest.Summary s = t.campaign(1, seeds, null);
        assertTrue(s.passed(), () -> "violation " + s.failure().violation() + " in " + s.failure().schedule().encode()
                + " (" + s.failure().medium() + "); shrunk: " + s.shrunk().schedule().encode() + " -> "
                + s.shrunk().violation());
        assertEquals(seeds, s.schedules());
        assertTrue(s.faulted() > seeds, "the medium must actually fault frames, faulted " + s.faulted());
        System.out.printf("simtest %s on %s: %d schedules in %.1f s = %.0f schedules/s, %d frames faulted%n", protocol,
                medium, seeds, s.wallNanos() / 1e9, s.schedulesPerSecond(), s.faulted());
    }
}
