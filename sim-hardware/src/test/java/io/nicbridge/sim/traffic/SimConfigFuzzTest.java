package io.nicbridge.sim.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The fabric configuration parser with any text. It either refuses it with an {@link IllegalArgumentException} (its
 * documented error, naming source and line) or parses it into a configuration that renders to text which parses back
 * to the same keys and values; then every typed getter of every key returns or refuses with an
 * {@link IllegalArgumentException}, nothing else.
 * Corpus (seeded with the repository's fabric configurations):
 * {@code src/test/resources/io/nicbridge/sim/traffic/SimConfigFuzzTestInputs/anyText/}.
 */
class SimConfigFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void anyText(byte[] utf8) {
        String text = new String(utf8, StandardCharsets.UTF_8);
        SimConfig c;
        try {
            c = SimConfig.parse(text, "fuzz");
        } catch (IllegalArgumentException refused) {
            return;
        }
        SimConfig again = SimConfig.parse(c.render(), "rendered");
        List<String> keys = new ArrayList<>(c.keys());
        assertEquals(keys, new ArrayList<>(again.keys()), "keys after render and parse");
        for (String key : keys) {
            assertEquals(c.getString(key, null), again.getString(key, null), "value of " + key);
            getter(() -> c.getInt(key, 0));
            getter(() -> c.getLong(key, 0));
            getter(() -> c.getDouble(key, 0));
            getter(() -> c.getBoolean(key, false));
            getter(() -> c.getIntList(key, null));
            getter(() -> c.getDoubleList(key, null));
        }
    }

    private static void getter(Runnable get) {
        try {
            get.run();
        } catch (IllegalArgumentException refused) {
            // documented: a value of another type, named with its key
        }
    }
}
