package io.nicbridge.protocols.gbn;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.core.HostileLink;
import io.nicbridge.protocols.core.HostileTraffic;
import java.util.zip.CRC32C;

/**
 * The go-back-N core against frames of any bytes from two hostile peers mixed with its own traffic, half of them with
 * the right CRC-32C so the fuzzer gets past the integrity check to sequence and acknowledgement handling; the
 * properties are {@link HostileTraffic}'s. Corpus: {@code src/test/resources/io/nicbridge/protocols/gbn/GoBackNFuzzTestInputs/}.
 */
class GoBackNFuzzTest {
    private static final long RTO = 1_000_000;

    @FuzzTest(maxDuration = "30s")
    void hostileFrames(FuzzedDataProvider script) {
        HostileLink link = new HostileLink(3, 256, false);
        GoBackNConfig config = new GoBackNConfig(4, 256 - GoBackNWire.HEADER, RTO, script.consumeBoolean() ? RTO / 4 : 0);
        new HostileTraffic(link, clock -> new GoBackNCore(link, clock::getAsLong, config, HostCpu.uncharged("fuzz")),
                2 * RTO, GoBackNFuzzTest::seal).run(script, 200);
    }

    /** Writes the CRC-32C the header's length asks for (cut to the frame), so a forged frame passes the check. */
    static byte[] seal(byte[] frame) {
        if (frame.length < GoBackNWire.HEADER) {
            return frame;
        }
        int length = Math.min(((frame[GoBackNWire.OFF_LENGTH] & 0xFF) << 8) | (frame[GoBackNWire.OFF_LENGTH + 1] & 0xFF),
                frame.length - GoBackNWire.HEADER);
        int crc = GoBackNWire.crc(new CRC32C(), frame, length);
        for (int i = 0; i < 4; i++) {
            frame[GoBackNWire.OFF_CRC + i] = (byte) (crc >>> (24 - 8 * i));
        }
        return frame;
    }
}
