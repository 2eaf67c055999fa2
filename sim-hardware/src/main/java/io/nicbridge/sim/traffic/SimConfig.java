package io.nicbridge.sim.traffic;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * A BookSim-style configuration: flat {@code key = value;} statements with comments, where any key
 * can be overridden afterwards (from the command line: {@code key=value}).
 * <pre>
 *   // fabric                       # comments run to the end of the line ( // or # )
 *   topology = mesh;                identifiers, numbers, "quoted strings"
 *   k = 8;  n = 2;                  several statements on a line
 *   hotspot_nodes = {0, 63};        lists in braces
 * </pre>
 * Keys are case-insensitive identifiers {@code [a-z_][a-z0-9_]*}. A malformed statement is an
 * {@link IllegalArgumentException} naming the source and line. Typed getters convert on demand and
 * name the key in their errors; {@link #requireKnown} rejects keys nobody reads (typos).
 */
public final class SimConfig {
    private final Map<String, String> values = new LinkedHashMap<>();
    private final Map<String, String> origins = new LinkedHashMap<>();

    /** @return an empty configuration */
    public static SimConfig empty() {
        return new SimConfig();
    }

    /** Parses a configuration file. */
    public static SimConfig load(Path file) throws IOException {
        SimConfig c = new SimConfig();
        c.parse0(Files.readString(file), file.toString());
        return c;
    }

    /** Parses configuration text; {@code source} names it in errors. */
    public static SimConfig parse(String text, String source) {
        SimConfig c = new SimConfig();
        c.parse0(text, source);
        return c;
    }

    /** Adds (or replaces) the statements of {@code text}. */
    public SimConfig merge(String text, String source) {
        parse0(text, source);
        return this;
    }

    /**
     * Applies one override of the form {@code key=value} (the value in config syntax, no semicolon
     * needed).
     */
    public SimConfig override(String assignment) {
        int eq = assignment.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("override '" + assignment + "' is not of the form key=value");
        }
        String text = assignment.trim();
        if (!text.endsWith(";")) {
            text = text + ";";
        }
        parse0(text, "override '" + assignment + "'");
        return this;
    }

    /** Sets a key to a raw value (already in config syntax). */
    public SimConfig set(String key, String value) {
        String k = checkKey(key, "set()", 0);
        values.put(k, value);
        origins.put(k, "set()");
        return this;
    }

    public boolean has(String key) {
        return values.containsKey(key.toLowerCase(Locale.ROOT));
    }

    /** @return every key set, in first-set order */
    public Collection<String> keys() {
        return Collections.unmodifiableSet(values.keySet());
    }

    public String getString(String key, String defaultValue) {
        String v = values.get(key.toLowerCase(Locale.ROOT));
        return v == null ? defaultValue : unquote(v);
    }

    public String requireString(String key) {
        String v = values.get(key.toLowerCase(Locale.ROOT));
        if (v == null) {
            throw new IllegalArgumentException("config key '" + key + "' is required but not set");
        }
        return unquote(v);
    }

    public int getInt(String key, int defaultValue) {
        String v = values.get(key.toLowerCase(Locale.ROOT));
        if (v == null) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw bad(key, v, "an integer");
        }
    }

    public long getLong(String key, long defaultValue) {
        String v = values.get(key.toLowerCase(Locale.ROOT));
        if (v == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw bad(key, v, "an integer");
        }
    }

    public double getDouble(String key, double defaultValue) {
        String v = values.get(key.toLowerCase(Locale.ROOT));
        if (v == null) {
            return defaultValue;
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw bad(key, v, "a number");
        }
    }

    public boolean getBoolean(String key, boolean defaultValue) {
        String v = values.get(key.toLowerCase(Locale.ROOT));
        if (v == null) {
            return defaultValue;
        }
        return switch (unquote(v).toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes", "on" -> true;
            case "0", "false", "no", "off" -> false;
            default -> throw bad(key, v, "a boolean (0/1, true/false)");
        };
    }

    public int[] getIntList(String key, int[] defaultValue) {
        String v = values.get(key.toLowerCase(Locale.ROOT));
        if (v == null) {
            return defaultValue;
        }
        List<String> items = listItems(key, v);
        int[] out = new int[items.size()];
        for (int i = 0; i < out.length; i++) {
            try {
                out[i] = Integer.parseInt(items.get(i));
            } catch (NumberFormatException e) {
                throw bad(key, v, "a list of integers like {0, 7}");
            }
        }
        return out;
    }

    public double[] getDoubleList(String key, double[] defaultValue) {
        String v = values.get(key.toLowerCase(Locale.ROOT));
        if (v == null) {
            return defaultValue;
        }
        List<String> items = listItems(key, v);
        double[] out = new double[items.size()];
        for (int i = 0; i < out.length; i++) {
            try {
                out[i] = Double.parseDouble(items.get(i));
            } catch (NumberFormatException e) {
                throw bad(key, v, "a list of numbers like {0.1, 0.2}");
            }
        }
        return out;
    }

    /**
     * @throws IllegalArgumentException naming every key set that is not in {@code known}
     */
    public void requireKnown(Collection<String> known) {
        TreeSet<String> unknown = new TreeSet<>();
        for (String k : values.keySet()) {
            if (!known.contains(k)) {
                unknown.add(k + " (from " + origins.get(k) + ")");
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown config key(s): " + String.join(", ", unknown)
                    + "; known keys: " + String.join(", ", new TreeSet<>(known)));
        }
    }

    /** @return the configuration as text this class parses back to the same values */
    public String render() {
        StringBuilder sb = new StringBuilder();
        values.forEach((k, v) -> sb.append(k).append(" = ").append(v).append(";\n"));
        return sb.toString();
    }

    private IllegalArgumentException bad(String key, String value, String expected) {
        return new IllegalArgumentException("config key '" + key + "' = " + value + " (from "
                + origins.get(key.toLowerCase(Locale.ROOT)) + ") is not " + expected);
    }

    private static List<String> listItems(String key, String v) {
        String s = v.trim();
        if (!s.startsWith("{") || !s.endsWith("}")) {
            // A single value reads as a one-element list.
            return List.of(unquote(s));
        }
        String inner = s.substring(1, s.length() - 1).trim();
        List<String> out = new ArrayList<>();
        if (inner.isEmpty()) {
            return out;
        }
        for (String item : inner.split(",")) {
            String t = item.trim();
            if (t.isEmpty()) {
                throw new IllegalArgumentException("config key '" + key + "' has an empty list item in " + v);
            }
            out.add(unquote(t));
        }
        return out;
    }

    private static String unquote(String v) {
        return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
    }

    private static String checkKey(String key, String source, int line) {
        String k = key.trim().toLowerCase(Locale.ROOT);
        if (!k.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException(source + (line > 0 ? ":" + line : "") + ": '" + key.trim()
                    + "' is not a valid key (letters, digits, underscores)");
        }
        return k;
    }

    /*
     * A small hand-written scanner: comments are stripped outside quotes, then statements are split
     * on ';' outside quotes and braces. Line numbers are those where each statement starts.
     */
    private void parse0(String text, String source) {
        StringBuilder stmt = new StringBuilder();
        int line = 1;
        int stmtLine = 1;
        boolean inQuote = false;
        int braces = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!inQuote && (c == '#' || (c == '/' && i + 1 < text.length() && text.charAt(i + 1) == '/'))) {
                while (i < text.length() && text.charAt(i) != '\n') {
                    i++;
                }
                if (i < text.length()) {
                    line++;
                    stmt.append(' ');
                }
                continue;
            }
            if (c == '\n') {
                line++;
            }
            if (c == '"') {
                inQuote = !inQuote;
            } else if (!inQuote && c == '{') {
                braces++;
            } else if (!inQuote && c == '}') {
                braces--;
                if (braces < 0) {
                    throw new IllegalArgumentException(source + ":" + line + ": unbalanced '}'");
                }
            }
            if (c == ';' && !inQuote && braces == 0) {
                statement(stmt.toString(), source, stmtLine);
                stmt.setLength(0);
                stmtLine = line;
                continue;
            }
            if (stmt.toString().isBlank() && !Character.isWhitespace(c)) {
                stmtLine = line;
            }
            stmt.append(c);
        }
        if (inQuote) {
            throw new IllegalArgumentException(source + ":" + stmtLine + ": unterminated string");
        }
        if (braces != 0) {
            throw new IllegalArgumentException(source + ":" + stmtLine + ": unbalanced '{'");
        }
        if (!stmt.toString().isBlank()) {
            throw new IllegalArgumentException(source + ":" + stmtLine + ": statement '" + stmt.toString().trim()
                    + "' is missing its ';'");
        }
    }

    private void statement(String raw, String source, int line) {
        String s = raw.trim();
        if (s.isEmpty()) {
            return;
        }
        int eq = s.indexOf('=');
        if (eq < 0) {
            throw new IllegalArgumentException(source + ":" + line + ": '" + s + "' is not of the form key = value;");
        }
        String key = checkKey(s.substring(0, eq), source, line);
        String value = s.substring(eq + 1).trim();
        if (value.isEmpty()) {
            throw new IllegalArgumentException(source + ":" + line + ": key '" + key + "' has no value");
        }
        values.put(key, value);
        origins.put(key, source + ":" + line);
    }
}
