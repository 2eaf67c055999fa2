package io.nicbridge.sim.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.util.Arrays;

/**
 * Any byte string handed to the pcap reader either parses into records that tile the file exactly, each carrying
 * the bytes it claims, or is refused with an {@link IOException}; nothing else escapes.
 * Corpus: {@code src/test/resources/io/nicbridge/sim/capture/PcapReaderFuzzTestInputs/anyBytes/}.
 */
class PcapReaderFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void anyBytes(byte[] file) {
        PcapReader r;
        try {
            r = PcapReader.parse("fuzz", file);
        } catch (IOException refused) {
            return;
        }
        int at = PcapWriter.FILE_HEADER_BYTES;
        for (PcapReader.Packet p : r.packets()) {
            at += PcapWriter.RECORD_HEADER_BYTES;
            assertArrayEquals(Arrays.copyOfRange(file, at, at + p.data().length), p.data(), "record bytes");
            assertTrue(p.timestampNanos() >= 0, "timestamp " + p.timestampNanos());
            assertTrue(p.originalLength() >= p.data().length,
                    "original length " + p.originalLength() + " below the " + p.data().length + " bytes kept");
            at += p.data().length;
        }
        assertEquals(file.length, at, "the records tile the file");
    }
}
