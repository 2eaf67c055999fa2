package io.nicbridge.protocols.ip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

class InternetChecksumTest {
    /** RFC 1071 section 3's worked example: the words 0001 f203 f4f5 f6f7 sum to ddf2 (folded). */
    @Test
    void rfc1071Example() {
        MemorySegment s = MemorySegment.ofArray(new byte[] {0x00, 0x01, (byte) 0xf2, 0x03, (byte) 0xf4, (byte) 0xf5,
            (byte) 0xf6, (byte) 0xf7});
        assertEquals(0xddf2, InternetChecksum.fold(InternetChecksum.sum(s, 0, 8, 0)));
        assertEquals(0x220d, InternetChecksum.finish(InternetChecksum.sum(s, 0, 8, 0)));
    }

    /** A real IPv4 header (from a capture): its checksum field b861 verifies, and recomputing it gives b861. */
    @Test
    void ipv4HeaderFromACapture() {
        byte[] h = hex("450000730000400040 11b861c0a80001c0a800c7".replace(" ", ""));
        MemorySegment s = MemorySegment.ofArray(h);
        assertTrue(InternetChecksum.verifies(InternetChecksum.sum(s, 0, 20, 0)));
        h[10] = 0;
        h[11] = 0;
        assertEquals(0xb861, InternetChecksum.finish(InternetChecksum.sum(s, 0, 20, 0)));
    }

    /** Every length and start offset 0..7 against the textbook 16-bit loop; copyAndSum copies and sums the same. */
    @Test
    void matchesTheTextbookLoopAtEveryLengthAndOffset() {
        Random r = new Random(17);
        byte[] src = new byte[300];
        r.nextBytes(src);
        MemorySegment s = MemorySegment.ofArray(src);
        for (int off = 0; off < 8; off++) {
            for (int len = 0; len <= 200; len++) {
                long reference = 0;
                for (int i = 0; i < len; i += 2) {
                    int hi = src[off + i] & 0xFF;
                    int lo = i + 1 < len ? src[off + i + 1] & 0xFF : 0;
                    reference += hi << 8 | lo;
                }
                int expected = InternetChecksum.fold(reference);
                assertEquals(expected, InternetChecksum.fold(InternetChecksum.sum(s, off, len, 0)), "len " + len);
                byte[] dst = new byte[len + 16];
                long copied = InternetChecksum.copyAndSum(s, off, MemorySegment.ofArray(dst), 3, len, 0);
                assertEquals(expected, InternetChecksum.fold(copied), "copyAndSum len " + len);
                for (int i = 0; i < len; i++) {
                    assertEquals(src[off + i], dst[3 + i]);
                }
            }
        }
    }

    static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }
}
