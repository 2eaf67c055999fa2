package io.nicbridge.bindgen;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** How C names become Java names. */
final class Names {

    /** Header base names whose Java class is not simply their CamelCase (nicshim reads better as NicShim). */
    private static final Map<String, String> HEADER_CLASS_OVERRIDES = Map.of("nicshim", "NicShim");

    private static final Set<String> JAVA_KEYWORDS = Set.of("abstract", "assert", "boolean", "break", "byte", "case",
            "catch", "char", "class", "const", "continue", "default", "do", "double", "else", "enum", "extends",
            "final", "finally", "float", "for", "goto", "if", "implements", "import", "instanceof", "int",
            "interface", "long", "native", "new", "package", "private", "protected", "public", "return", "short",
            "static", "strictfp", "super", "switch", "synchronized", "this", "throw", "throws", "transient", "try",
            "void", "volatile", "while", "true", "false", "null", "var", "record", "yield", "sealed", "permits",
            "_");

    private Names() {
    }

    /** {@code dec21140.h} -> {@code Dec21140}, {@code sba200_unet.h} -> {@code Sba200Unet}. */
    static String headerClass(String fileName) {
        String base = baseName(fileName);
        return HEADER_CLASS_OVERRIDES.getOrDefault(base, camel(base, true));
    }

    /** {@code dec21140.h} -> {@code dec21140}. */
    static String baseName(String fileName) {
        return fileName.endsWith(".h") ? fileName.substring(0, fileName.length() - 2) : fileName;
    }

    /**
     * {@code dec21140_desc_t} -> {@code Dec21140Desc}; {@code struct medusa_bte} -> {@code MedusaBte}; a name that
     * starts with its header's base name starts with the header's class name ({@code nicshim_info_t} ->
     * {@code NicShimInfo}).
     */
    static String structClass(String cName, String headerFileName) {
        String name = cName.startsWith("struct ") ? cName.substring("struct ".length()) : cName;
        if (name.endsWith("_t")) {
            name = name.substring(0, name.length() - 2);
        }
        String base = baseName(headerFileName);
        if (name.startsWith(base + "_")) {
            return headerClass(headerFileName) + camel(name.substring(base.length() + 1), true);
        }
        return camel(name, true);
    }

    /** {@code buf_addr} -> {@code bufAddr}, avoiding Java keywords. */
    static String member(String cName) {
        String name = camel(cName, false);
        return JAVA_KEYWORDS.contains(name) ? name + "_" : name;
    }

    /** {@code buf_addr} -> {@code BUF_ADDR}; {@code bufAddr} -> {@code BUF_ADDR}. */
    static String upper(String cName) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < cName.length(); i++) {
            char c = cName.charAt(i);
            if (Character.isUpperCase(c) && i > 0 && Character.isLowerCase(cName.charAt(i - 1))) {
                out.append('_');
            }
            out.append(Character.toUpperCase(c));
        }
        return out.toString();
    }

    /** A macro's Java constant name: the header prefix stripped, kept valid as an identifier. */
    static String constant(String macro, String prefix) {
        String name = macro.startsWith(prefix) && macro.length() > prefix.length()
                ? macro.substring(prefix.length()) : macro;
        return Character.isDigit(name.charAt(0)) ? "_" + name : name;
    }

    /** A function's Java method name: {@code nicshim_open_ring} -> {@code openRing} for prefix {@code nicshim_}. */
    static String function(String cName, String prefix) {
        String lowerPrefix = prefix.toLowerCase(Locale.ROOT);
        String name = cName.startsWith(lowerPrefix) && cName.length() > lowerPrefix.length()
                ? cName.substring(lowerPrefix.length()) : cName;
        return member(name);
    }

    private static String camel(String snake, boolean capitalizeFirst) {
        StringBuilder out = new StringBuilder();
        boolean upperNext = capitalizeFirst;
        for (int i = 0; i < snake.length(); i++) {
            char c = snake.charAt(i);
            if (c == '_') {
                upperNext = !out.isEmpty() || capitalizeFirst;
                continue;
            }
            out.append(upperNext ? Character.toUpperCase(c) : c);
            upperNext = false;
        }
        return out.toString();
    }
}
