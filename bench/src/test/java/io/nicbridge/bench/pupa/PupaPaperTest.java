package io.nicbridge.bench.pupa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PupaPaperTest {
    @Test
    void tableTwosSoftwareIsReadAtItsSizesAndLinearlyBetween() {
        assertEquals(46 + 4 + 75, PupaPaper.softwareMicros(4), 1e-9);
        assertEquals(46 + 9 + 77, PupaPaper.softwareMicros(32), 1e-9);
        assertEquals(46 + 101 + 93, PupaPaper.softwareMicros(1436), 1e-9);
        assertEquals(125 + 7 * 12.0 / 28, PupaPaper.softwareMicros(16), 1e-9, "between 4 and 32 bytes");
        assertEquals(179 + (214 - 179) * 488.0 / 512, PupaPaper.softwareMicros(1000), 1e-9, "between 512 and 1024");
        assertThrows(IllegalArgumentException.class, () -> PupaPaper.softwareMicros(3));
        assertThrows(IllegalArgumentException.class, () -> PupaPaper.softwareMicros(1437));
    }
}
