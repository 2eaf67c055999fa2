package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The one list parser of {@code --sizes}, {@code --nodes} and {@code --words}. */
class SizeListTest {
    @Test
    void numbersWithBlanksAroundThemAreParsedInOrder() {
        assertArrayEquals(new int[] {2, 4, 8}, SizeList.parse("--nodes", "2, 4 ,8"));
        assertArrayEquals(new int[] {-1, 0, 1514}, SizeList.parse("--sizes", "-1,0,1514"), "ranges are the"
            + " experiment's to check");
    }

    @Test
    void anythingElseNamesTheOptionAndTheElement() {
        assertEquals("--words must be a comma-separated list of numbers, was '1,x': 'x' is not a number",
            assertThrows(IllegalArgumentException.class, () -> SizeList.parse("--words", "1,x")).getMessage());
        assertEquals("--sizes must be a comma-separated list of numbers, was '64,': '' is not a number",
            assertThrows(IllegalArgumentException.class, () -> SizeList.parse("--sizes", "64,")).getMessage());
        assertEquals("--nodes needs a comma-separated list of numbers, got nothing",
            assertThrows(IllegalArgumentException.class, () -> SizeList.parse("--nodes", " ")).getMessage());
    }
}
