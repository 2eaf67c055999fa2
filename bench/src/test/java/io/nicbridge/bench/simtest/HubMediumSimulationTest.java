package io.nicbridge.bench.simtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.protocols.dst.ScheduleGenerator;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimProtocols;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.protocols.dst.SimTest;
import io.nicbridge.protocols.dst.SimulationRun;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Go-back-N on the {@code ethernet-hub} medium: emulated 21140s on the half-duplex CSMA/CD hub, where collisions
 * (and, rarely, frames lost to 16 of them) are one more fault beside the schedule's own.
 */
class HubMediumSimulationTest {
    private static final SimSettings SETTINGS = SimSettings.defaults();
    private static final Pattern COLLISIONS = Pattern.compile("(\\d+) collisions");

    @Test
    void goBackNSurvivesFaultSchedulesOnTheHubAndTheCardsCollide() {
        SimMedium.Factory hub = SimMedia.byName("ethernet-hub");
        SimTest t = new SimTest("gbn", SimProtocols.byName("gbn"), SETTINGS,
                new ScheduleGenerator(SETTINGS, hub.families()), hub);
        SimTest.Summary s = t.campaign(1, 200, null);
        assertTrue(s.passed(), () -> "violation " + s.failure().violation() + " in " + s.failure().schedule()
                + " (" + s.failure().medium() + ")");
        assertEquals(200, s.schedules());

        ScheduleGenerator g = new ScheduleGenerator(SETTINGS, hub.families());
        long collisions = 0;
        for (long seed = 1; seed <= 20; seed++) {
            SimulationRun.Outcome o = t.run(g.generate(seed));
            assertTrue(o.passed(), o::toString);
            Matcher m = COLLISIONS.matcher(o.medium());
            assertTrue(m.find(), o.medium());
            collisions += Long.parseLong(m.group(1));
        }
        assertTrue(collisions > 0, "two-way go-back-N traffic on a shared hub collides");
        System.out.printf("simtest gbn on ethernet-hub: 200 schedules in %.1f s; %d collisions in schedules 1..20%n",
                s.wallNanos() / 1e9, collisions);
    }
}
