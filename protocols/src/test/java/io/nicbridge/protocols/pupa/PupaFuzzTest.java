package io.nicbridge.protocols.pupa;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.core.HostileLink;
import io.nicbridge.protocols.core.HostileTraffic;

/**
 * The Pupa core, through its public API only, against frames of any bytes from two hostile peers mixed with its own
 * traffic; the properties are {@link HostileTraffic}'s, plus {@link PupaCore#leaks()} once nothing was offered.
 * Corpus: {@code src/test/resources/io/nicbridge/protocols/pupa/PupaFuzzTestInputs/}.
 */
class PupaFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void hostileFrames(FuzzedDataProvider script) {
        HostileLink link = new HostileLink(3, 1498, script.consumeBoolean());
        PupaConfig config = PupaConfig.defaults();
        new HostileTraffic(link, clock -> new PupaCore(link, clock::getAsLong, config, HostCpu.uncharged("fuzz")),
                2 * config.rtoNanos()).run(script, 200);
    }
}
