package io.nicbridge.protocols.careful;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.core.HostileCStarTraffic;
import io.nicbridge.protocols.core.HostileLink;

/**
 * The careful C* network layer against frames of any bytes from three hostile peers mixed with its own sends and
 * receives; the properties are {@link HostileCStarTraffic}'s.
 * Corpus: {@code src/test/resources/io/nicbridge/protocols/careful/CarefulFuzzTestInputs/}.
 */
class CarefulFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void hostileFrames(FuzzedDataProvider script) {
        HostileLink link = new HostileLink(4, 256, false);
        long[] now = {1};
        CarefulConfig config = CarefulConfig.defaults().withReceiveBuffers(16).withEventSlots(8).withHostBuffers(16);
        new HostileCStarTraffic(link, new CarefulCore(link, config, HostCpu.uncharged("fuzz")), now, 1_000_000)
                .run(script, 200);
    }
}
