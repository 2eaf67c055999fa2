package io.nicbridge.bench.simtest;
import io.nicbridge.protocols.dst.*;
import org.junit.jupiter.api.Test;
class TmpRateTest {
    @Test void rate() throws Exception {
        SimSettings s = SimSettings.defaults();
        StringBuilder b = new StringBuilder();
        for (String m : new String[] {"memory", "ethernet", "fddi"}) {
            SimMedium.Factory f = SimMedia.byName(m);
            SimTest t = new SimTest("gbn", SimProtocols.byName("gbn"), s, new ScheduleGenerator(s, f.families()), f);
            SimTest.Summary sum = t.campaign(1, 100, null);
            b.append(m).append(' ').append(sum.passed()).append(' ').append(sum.schedulesPerSecond()).append(' ')
             .append(sum.faulted()).append(' ').append(sum.failure() == null ? "" : sum.failure().violation() + " " + sum.failure().schedule() + " " + sum.failure().medium()).append('\n');
        }
        java.nio.file.Files.writeString(java.nio.file.Path.of("/tmp/dstmedia-rate"), b);
    }
}
