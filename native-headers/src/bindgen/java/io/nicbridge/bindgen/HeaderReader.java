package io.nicbridge.bindgen;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads one contract header with libclang and turns it into a {@link Model.Header}.
 *
 * <p>Two passes, both done by clang so that nothing is guessed:
 * <ol>
 *   <li>The header is parsed on its own with the detailed preprocessing record, which lists its macro
 *       definitions, structs, typedefs and function declarations. Struct sizes and field offsets come from
 *       clang's record layout ({@code clang_Type_getSizeOf}, {@code clang_Cursor_getOffsetOfField}).</li>
 *   <li>The values of the object-like macros are computed by parsing a synthetic translation unit that includes
 *       the header and declares {@code static const __typeof__((NAME)) nb__NAME = (NAME);} for each macro, and
 *       folding each initializer with {@code clang_Cursor_Evaluate}. The {@code __typeof__} keeps the macro's own
 *       C type, so an unsigned {@code 0x80000000u} and a signed {@code -1} come back as what they are.</li>
 * </ol>
 * Function-like macros and empty macros (include guards) are skipped; so is anything not defined in the header
 * itself (stdint.h's macros and types).
 */
final class HeaderReader {

    private static final String EVAL_PREFIX = "nb__";
    private static final Set<String> BITWISE_PUNCTUATION = Set.of("<<", ">>", "|", "&", "~", "^");

    private final Clang clang;
    private final MemorySegment index;
    private final Path includeDir;
    private final List<String> warnings;

    HeaderReader(Clang clang, MemorySegment index, Path includeDir, List<String> warnings) {
        this.clang = clang;
        this.index = index;
        this.includeDir = includeDir;
        this.warnings = warnings;
    }

    private List<String> compilerArgs() {
        return List.of("-x", "c", "-std=c11", "-I" + includeDir, "-resource-dir", clang.resourceDir().toString());
    }

    Model.Header read(Path header) throws IOException {
        String fileName = header.getFileName().toString();
        String base = fileName.substring(0, fileName.length() - 2);
        String prefix = base.toUpperCase(Locale.ROOT) + "_";
        String sha256 = sha256(Files.readAllBytes(header));

        MemorySegment unit = clang.parse(index, header.toString(), null, compilerArgs(),
                Clang.PARSE_DETAILED_PREPROCESSING_RECORD | Clang.PARSE_SKIP_FUNCTION_BODIES);
        List<MacroDefinition> macros = new ArrayList<>();
        Map<String, String> typedefNames = new LinkedHashMap<>();
        List<MemorySegment> structCursors = new ArrayList<>();
        List<Model.Function> functions = new ArrayList<>();
        try {
            for (MemorySegment cursor : clang.children(clang.unitCursor(unit))) {
                if (!clang.isFromMainFile(cursor)) {
                    continue;
                }
                int kind = clang.kind(cursor);
                String name = clang.spelling(cursor);
                switch (kind) {
                    case Clang.CURSOR_MACRO_DEFINITION -> {
                        MacroDefinition macro = macro(unit, cursor, name);
                        if (macro != null) {
                            macros.add(macro);
                        }
                    }
                    case Clang.CURSOR_STRUCT_DECL -> {
                        if (clang.isDefinition(cursor)) {
                            structCursors.add(cursor);
                        }
                    }
                    case Clang.CURSOR_TYPEDEF_DECL -> {
                        MemorySegment underlying = clang.canonical(clang.typedefUnderlyingType(cursor));
                        if (clang.typeKind(underlying) == Clang.TYPE_RECORD) {
                            // The first typedef of a struct names its Java class; a later alias would only confuse.
                            typedefNames.putIfAbsent(clang.typeSpelling(underlying), name);
                        }
                    }
                    case Clang.CURSOR_FUNCTION_DECL -> functions.add(function(cursor, name));
                    case Clang.CURSOR_UNION_DECL -> throw new IllegalStateException(
                            fileName + ": union " + name + " is not supported by the contract conventions");
                    case Clang.CURSOR_ENUM_DECL, Clang.CURSOR_VAR_DECL -> warnings.add(fileName + ": ignoring "
                            + (kind == Clang.CURSOR_ENUM_DECL ? "enum " : "variable ") + name
                            + " (contracts use #define constants)");
                    default -> {
                        // Inclusion directives, macro expansions: nothing to bind.
                    }
                }
            }
            List<Model.Struct> structs = new ArrayList<>();
            for (MemorySegment cursor : structCursors) {
                structs.add(struct(fileName, cursor, typedefNames));
            }
            List<Model.Constant> constants = evaluate(fileName, macros);
            Integer bigEndian = null;
            for (Model.Constant constant : constants) {
                if (constant.cName().equals(prefix + "BIG_ENDIAN")) {
                    if (constant.negative() || Long.compareUnsigned(constant.bits(), 1) > 0) {
                        throw new IllegalStateException(fileName + ": " + constant.cName() + " must be 0 or 1, is "
                                + constant.definition());
                    }
                    bigEndian = (int) constant.bits();
                }
            }
            for (Model.Constant constant : constants) {
                if (!constant.cName().startsWith(prefix)) {
                    warnings.add(fileName + ": macro " + constant.cName() + " lacks the prefix " + prefix
                            + "; its Java name keeps the full name");
                }
            }
            return new Model.Header(fileName, prefix, sha256, bigEndian, constants, structs, functions);
        } finally {
            clang.disposeTranslationUnit(unit);
        }
    }

    private record MacroDefinition(String name, String body, boolean bitPattern) {
    }

    private MacroDefinition macro(MemorySegment unit, MemorySegment cursor, String name) {
        if (clang.isMacroFunctionLike(cursor)) {
            return null;
        }
        List<Clang.Token> tokens = clang.tokens(unit, cursor);
        if (tokens.size() <= 1) {
            return null; // include guard or flag macro without a value
        }
        List<Clang.Token> body = tokens.subList(1, tokens.size());
        boolean bitPattern = false;
        StringBuilder text = new StringBuilder();
        String previous = null;
        for (Clang.Token token : body) {
            if (previous != null && spaceBetween(previous, token.text())) {
                text.append(' ');
            }
            text.append(token.text());
            boolean unaryMinus = token.text().equals("-")
                    && (previous == null || OPERATORS_BEFORE_UNARY.contains(previous));
            previous = unaryMinus ? "(" : token.text();
            String lower = token.text().toLowerCase(Locale.ROOT);
            if ((token.kind() == Clang.TOKEN_LITERAL && lower.startsWith("0x"))
                    || (token.kind() == Clang.TOKEN_PUNCTUATION && BITWISE_PUNCTUATION.contains(token.text()))) {
                bitPattern = true;
            }
        }
        if (body.size() == 1 && body.getFirst().kind() == Clang.TOKEN_LITERAL
                && body.getFirst().text().startsWith("\"")) {
            warnings.add("ignoring string macro " + name + " = " + text);
            return null;
        }
        return new MacroDefinition(name, text.toString(), bitPattern);
    }

    /** Operators after which a minus sign is unary (then written without a space before its operand). */
    private static final Set<String> OPERATORS_BEFORE_UNARY = Set.of("(", "+", "-", "*", "/", "%", "<<", ">>", "|",
            "&", "^", "~", "!", "<", ">", "<=", ">=", "==", "!=", "&&", "||", "?", ":", ",");

    /** Spacing for showing a macro body in Javadoc: {@code (1u << 31)}, {@code (-5)}. */
    private static boolean spaceBetween(String previous, String next) {
        return !previous.equals("(") && !previous.equals("~") && !previous.equals("!") && !next.equals(")");
    }

    /** Folds every macro in one synthetic translation unit (see the class comment). */
    private List<Model.Constant> evaluate(String fileName, List<MacroDefinition> macros) {
        if (macros.isEmpty()) {
            return List.of();
        }
        StringBuilder source = new StringBuilder("#include \"" + fileName + "\"\n");
        for (MacroDefinition macro : macros) {
            source.append("static const __typeof__((").append(macro.name()).append(")) ").append(EVAL_PREFIX)
                    .append(macro.name()).append(" = (").append(macro.name()).append(");\n");
        }
        String syntheticFile = includeDir.resolve("__bindgen_values_of_" + fileName + ".c").toString();
        MemorySegment unit;
        try {
            unit = clang.parse(index, syntheticFile, source.toString(), compilerArgs(), 0);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(fileName + ": some object-like macro is not an integer constant"
                    + " expression (the contract conventions require that):\n" + e.getMessage(), e);
        }
        try {
            Map<String, Clang.EvaluatedInt> values = new LinkedHashMap<>();
            for (MemorySegment cursor : clang.children(clang.unitCursor(unit))) {
                if (clang.kind(cursor) == Clang.CURSOR_VAR_DECL && clang.isFromMainFile(cursor)) {
                    String name = clang.spelling(cursor);
                    if (name.startsWith(EVAL_PREFIX)) {
                        values.put(name.substring(EVAL_PREFIX.length()), clang.evaluateInt(cursor));
                    }
                }
            }
            List<Model.Constant> constants = new ArrayList<>();
            for (MacroDefinition macro : macros) {
                Clang.EvaluatedInt value = values.get(macro.name());
                if (value == null) {
                    throw new IllegalStateException(fileName + ": clang could not fold " + macro.name() + " = "
                            + macro.body() + " to an integer constant");
                }
                boolean negative = !value.unsigned() && value.bits() < 0;
                constants.add(new Model.Constant(macro.name(), value.bits(), negative, macro.bitPattern() && !negative,
                        macro.body()));
            }
            return constants;
        } finally {
            clang.disposeTranslationUnit(unit);
        }
    }

    private Model.Struct struct(String fileName, MemorySegment cursor, Map<String, String> typedefNames) {
        MemorySegment type = clang.canonical(clang.type(cursor));
        String key = clang.typeSpelling(type);
        String cName = typedefNames.getOrDefault(key, key);
        List<Model.Field> fields = new ArrayList<>();
        for (MemorySegment child : clang.children(cursor)) {
            int kind = clang.kind(child);
            if (kind == Clang.CURSOR_STRUCT_DECL || kind == Clang.CURSOR_UNION_DECL) {
                throw new IllegalStateException(fileName + ": " + cName
                        + " defines a struct or union inside itself; define nested structs at file scope");
            }
            if (kind != Clang.CURSOR_FIELD_DECL) {
                continue;
            }
            String name = clang.spelling(child);
            String where = fileName + ": " + cName + "." + name;
            if (clang.isBitField(child)) {
                throw new IllegalStateException(where + " is a bit-field; the contract conventions allow none");
            }
            long offsetBits = clang.offsetOfFieldBits(child);
            if (offsetBits < 0 || offsetBits % 8 != 0) {
                throw new IllegalStateException(where + ": clang reports no byte offset (" + offsetBits + ")");
            }
            MemorySegment declared = clang.type(child);
            MemorySegment fieldType = clang.canonical(declared);
            long size = clang.sizeOf(fieldType);
            long length = -1;
            MemorySegment element = fieldType;
            if (clang.typeKind(fieldType) == Clang.TYPE_CONSTANT_ARRAY) {
                length = clang.arraySize(fieldType);
                element = clang.canonical(clang.arrayElementType(fieldType));
            }
            Model.Scalar scalar = null;
            String structKey = null;
            int elementKind = clang.typeKind(element);
            if (elementKind == Clang.TYPE_RECORD) {
                structKey = clang.typeSpelling(element);
            } else {
                scalar = scalar(element);
                if (scalar == null) {
                    throw new IllegalStateException(where + " has type " + clang.typeSpelling(declared)
                            + "; fields must be fixed-width integers, named structs or 1-D arrays of them");
                }
            }
            fields.add(new Model.Field(name, offsetBits / 8, size, scalar, structKey, length,
                    clang.typeSpelling(declared)));
        }
        return new Model.Struct(cName, key, clang.sizeOf(type), clang.alignOf(type), fields);
    }

    private Model.Scalar scalar(MemorySegment canonicalType) {
        return switch (clang.typeKind(canonicalType)) {
            case Clang.TYPE_CHAR_U, Clang.TYPE_UCHAR, Clang.TYPE_USHORT, Clang.TYPE_UINT, Clang.TYPE_ULONG,
                 Clang.TYPE_ULONGLONG -> new Model.Scalar((int) clang.sizeOf(canonicalType), false);
            case Clang.TYPE_CHAR_S, Clang.TYPE_SCHAR, Clang.TYPE_SHORT, Clang.TYPE_INT, Clang.TYPE_LONG,
                 Clang.TYPE_LONGLONG -> new Model.Scalar((int) clang.sizeOf(canonicalType), true);
            default -> null;
        };
    }

    private Model.Function function(MemorySegment cursor, String name) {
        if (clang.isVariadic(clang.type(cursor))) {
            throw new IllegalStateException("function " + name + " is variadic; the shim API must not be");
        }
        Model.CType result = cType(name + " result", clang.resultType(cursor));
        List<Model.Param> params = new ArrayList<>();
        int count = clang.numArguments(cursor);
        for (int i = 0; i < count; i++) {
            MemorySegment argument = clang.argument(cursor, i);
            String paramName = clang.spelling(argument);
            if (paramName.isEmpty()) {
                paramName = "arg" + i;
            }
            Model.CType type = cType(name + " parameter " + paramName, clang.type(argument));
            if (type.kind() == Model.CType.Kind.VOID) {
                throw new IllegalStateException(name + ": parameter " + paramName + " has type void");
            }
            params.add(new Model.Param(paramName, type));
        }
        return new Model.Function(name, result, params);
    }

    private Model.CType cType(String what, MemorySegment declared) {
        String spelling = clang.typeSpelling(declared);
        MemorySegment canonical = clang.canonical(declared);
        int kind = clang.typeKind(canonical);
        if (kind == Clang.TYPE_VOID) {
            return new Model.CType(Model.CType.Kind.VOID, 0, false, spelling);
        }
        if (kind == Clang.TYPE_BOOL) {
            return new Model.CType(Model.CType.Kind.BOOL, 1, false, spelling);
        }
        if (kind == Clang.TYPE_POINTER) {
            return new Model.CType(Model.CType.Kind.POINTER, (int) clang.sizeOf(canonical), false, spelling);
        }
        if (kind == Clang.TYPE_ENUM) {
            return new Model.CType(Model.CType.Kind.INTEGER, (int) clang.sizeOf(canonical), true, spelling);
        }
        Model.Scalar scalar = scalar(canonical);
        if (scalar == null) {
            throw new IllegalStateException(what + " has type " + spelling
                    + "; the shim API may use only integers, pointers and void");
        }
        return new Model.CType(Model.CType.Kind.INTEGER, scalar.bytes(), scalar.signed(), spelling);
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
