package io.nicbridge.protocols.traditional;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.core.HostileCStarTraffic;
import io.nicbridge.protocols.core.HostileLink;

/**
 * The traditional C* network layer against frames of any bytes from three hostile peers mixed with its own sends and
 * receives; the properties are {@link HostileCStarTraffic}'s.
 * Corpus: {@code src/test/resources/io/nicbridge/protocols/traditional/TraditionalFuzzTestInputs/}.
 */
class TraditionalFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void hostileFrames(FuzzedDataProvider script) {
        HostileLink link = new HostileLink(4, 256, false);
        long[] now = {1};
        TraditionalConfig config = Cluster.config();
        new HostileCStarTraffic(link, new TraditionalCore(link, () -> now[0], HostCpu.uncharged("fuzz"), config), now,
                2 * config.timeoutNanos()).run(script, 200);
    }
}
