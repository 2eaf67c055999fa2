package io.nicbridge.sim.traffic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class SimConfigTest {
    private static final String TEXT = """
            // an 8x8 mesh
            topology = mesh;   # dimension order
            k = 8; n = 2;
            injection_rate = 0.25;
            hotspot_nodes = {0, 63};
            name = "a ; string // not a comment";
            loads = {0.1,
                     0.2};
            """;

    @Test
    void parsesStatementsCommentsListsAndStrings() {
        SimConfig c = SimConfig.parse(TEXT, "mesh.cfg");
        assertEquals("mesh", c.getString("topology", null));
        assertEquals(8, c.getInt("k", 0));
        assertEquals(2, c.getInt("n", 0));
        assertEquals(0.25, c.getDouble("injection_rate", 0), 0);
        assertArrayEquals(new int[] {0, 63}, c.getIntList("hotspot_nodes", null));
        assertArrayEquals(new double[] {0.1, 0.2}, c.getDoubleList("loads", null));
        assertEquals("a ; string // not a comment", c.getString("name", null));
        assertEquals(7, c.getInt("absent", 7));
        assertFalse(c.has("absent"));
    }

    @Test
    void overridesReplaceFileValues() {
        SimConfig c = SimConfig.parse(TEXT, "mesh.cfg").override("k=4").override("topology = torus;")
                .override("loads={0.5}");
        assertEquals(4, c.getInt("k", 0));
        assertEquals("torus", c.getString("topology", null));
        assertArrayEquals(new double[] {0.5}, c.getDoubleList("loads", null));
        // Rendering parses back to the same values.
        SimConfig again = SimConfig.parse(c.render(), "rendered");
        assertEquals(c.render(), again.render());
    }

    @Test
    void errorsNameTheSourceLineAndKey() {
        IllegalArgumentException missingSemicolon = assertThrows(IllegalArgumentException.class,
                () -> SimConfig.parse("k = 8;\nn = 2\n", "x.cfg"));
        assertTrue(missingSemicolon.getMessage().contains("x.cfg:2"), missingSemicolon.getMessage());
        IllegalArgumentException noEquals = assertThrows(IllegalArgumentException.class,
                () -> SimConfig.parse("k 8;", "x.cfg"));
        assertTrue(noEquals.getMessage().contains("key = value"), noEquals.getMessage());
        IllegalArgumentException badKey = assertThrows(IllegalArgumentException.class,
                () -> SimConfig.parse("8k = 1;", "x.cfg"));
        assertTrue(badKey.getMessage().contains("not a valid key"), badKey.getMessage());
        SimConfig c = SimConfig.parse("k = eight;", "x.cfg");
        IllegalArgumentException notInt = assertThrows(IllegalArgumentException.class, () -> c.getInt("k", 0));
        assertTrue(notInt.getMessage().contains("'k'") && notInt.getMessage().contains("x.cfg:1"),
                notInt.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SimConfig.parse("a = {1, 2;", "x.cfg"));
        assertThrows(IllegalArgumentException.class, () -> SimConfig.parse("a = \"open;", "x.cfg"));
        assertThrows(IllegalArgumentException.class, () -> SimConfig.empty().override("novalue"));
    }

    @Test
    void unknownKeysAreReportedWithTheKnownOnes() {
        SimConfig c = SimConfig.parse("topolgy = mesh; k = 8;", "typo.cfg");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> c.requireKnown(Set.of("topology", "k")));
        assertTrue(e.getMessage().contains("topolgy (from typo.cfg:1)"), e.getMessage());
        SimConfig.parse("topology = mesh;", "ok.cfg").requireKnown(Set.of("topology"));
    }
}
