package io.nicbridge.protocols.gbn;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.core.HostileLink;
import io.nicbridge.protocols.core.HostileTraffic;

/**
 * The go-back-N core against frames of any bytes from two hostile peers mixed with its own traffic; the properties
 * are {@link HostileTraffic}'s. Corpus: {@code src/test/resources/io/nicbridge/protocols/gbn/GoBackNFuzzTestInputs/}.
 */
class GoBackNFuzzTest {
    private static final long RTO = 1_000_000;

    @FuzzTest(maxDuration = "30s")
    void hostileFrames(FuzzedDataProvider script) {
        HostileLink link = new HostileLink(3, 256, false);
        GoBackNConfig config = new GoBackNConfig(4, 256 - GoBackNWire.HEADER, RTO, script.consumeBoolean() ? RTO / 4 : 0);
        new HostileTraffic(link, clock -> new GoBackNCore(link, clock::getAsLong, config, HostCpu.uncharged("fuzz")),
                2 * RTO).run(script, 200);
    }
}
