package io.nicbridge.sim.diff;

import java.util.ArrayList;
import java.util.List;

/**
 * The text of a differential-test scenario as the generators write it: one operation a line, its words separated by
 * one space, read the same way by the Java runner and the C runner.
 */
final class ScenarioLines {
    private final List<String> lines = new ArrayList<>();

    /** Appends one operation: the words' {@code toString()}s joined by single spaces. */
    void op(Object... words) {
        StringBuilder b = new StringBuilder();
        for (Object w : words) {
            if (!b.isEmpty()) {
                b.append(' ');
            }
            b.append(w);
        }
        lines.add(b.toString());
    }

    /** Appends a line the caller built. */
    void add(String line) {
        lines.add(line);
    }

    List<String> lines() {
        return lines;
    }

    /** The scenario's word for the bus address of memory offset {@code offset} ("@" + offset). */
    static String at(long offset) {
        return "@" + offset;
    }
}
