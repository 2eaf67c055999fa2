package io.nicbridge.bindgen;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The few libclang (C API, {@code clang-c/Index.h}) entry points the generator needs, called through FFM downcalls.
 *
 * <p>libclang passes its handles ({@code CXCursor}, {@code CXType}, {@code CXString}, {@code CXSourceRange}) as small
 * structs <em>by value</em>; the linker handles that when the descriptors use the matching {@link StructLayout}s
 * below. Functions returning such a struct take a {@link java.lang.foreign.SegmentAllocator} as their first
 * argument; every struct is allocated in the {@link Arena} given to the constructor, which the caller closes
 * once the whole header has been read (the generator is a one-shot tool, so nothing here is a hot path).
 *
 * <p>Only the tiny subset of the API used by {@link HeaderReader} is bound, with the same names as in C minus the
 * {@code clang_} prefix.
 */
@SuppressWarnings("restricted") // binding a native library is this class's whole purpose
final class Clang {

    /** Exit status of the generator when libclang cannot be found, so tests can tell "skip" from "failed". */
    static final int EXIT_NO_LIBCLANG = 3;

    static final String INSTALL_HINT = "apt-get install libclang1-14 libclang-common-14-dev";

    // enum CXCursorKind (subset)
    static final int CURSOR_STRUCT_DECL = 2;
    static final int CURSOR_UNION_DECL = 3;
    static final int CURSOR_ENUM_DECL = 5;
    static final int CURSOR_FIELD_DECL = 6;
    static final int CURSOR_FUNCTION_DECL = 8;
    static final int CURSOR_VAR_DECL = 9;
    static final int CURSOR_TYPEDEF_DECL = 20;
    static final int CURSOR_MACRO_DEFINITION = 501;

    // enum CXTypeKind (subset)
    static final int TYPE_VOID = 2;
    static final int TYPE_BOOL = 3;
    static final int TYPE_CHAR_U = 4;
    static final int TYPE_UCHAR = 5;
    static final int TYPE_USHORT = 8;
    static final int TYPE_UINT = 9;
    static final int TYPE_ULONG = 10;
    static final int TYPE_ULONGLONG = 11;
    static final int TYPE_CHAR_S = 13;
    static final int TYPE_SCHAR = 14;
    static final int TYPE_SHORT = 16;
    static final int TYPE_INT = 17;
    static final int TYPE_LONG = 18;
    static final int TYPE_LONGLONG = 19;
    static final int TYPE_POINTER = 101;
    static final int TYPE_RECORD = 105;
    static final int TYPE_ENUM = 106;
    static final int TYPE_CONSTANT_ARRAY = 112;

    // enum CXTokenKind (subset)
    static final int TOKEN_PUNCTUATION = 0;
    static final int TOKEN_LITERAL = 3;

    static final int PARSE_DETAILED_PREPROCESSING_RECORD = 0x01;
    static final int PARSE_SKIP_FUNCTION_BODIES = 0x40;

    static final int EVAL_INT = 1;
    static final int DIAGNOSTIC_ERROR = 3;

    private static final AddressLayout PTR = ValueLayout.ADDRESS;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    /** {@code typedef struct { enum CXCursorKind kind; int xdata; const void *data[3]; } CXCursor;} */
    static final StructLayout CX_CURSOR = MemoryLayout.structLayout(
            INT.withName("kind"), INT.withName("xdata"), MemoryLayout.sequenceLayout(3, PTR).withName("data"));
    /** {@code typedef struct { enum CXTypeKind kind; void *data[2]; } CXType;} */
    static final StructLayout CX_TYPE = MemoryLayout.structLayout(
            INT.withName("kind"), MemoryLayout.paddingLayout(4), MemoryLayout.sequenceLayout(2, PTR).withName("data"));
    /** {@code typedef struct { const void *data; unsigned private_flags; } CXString;} */
    static final StructLayout CX_STRING = MemoryLayout.structLayout(
            PTR.withName("data"), INT.withName("private_flags"), MemoryLayout.paddingLayout(4));
    /** {@code typedef struct { const void *ptr_data[2]; unsigned int_data; } CXSourceLocation;} */
    static final StructLayout CX_SOURCE_LOCATION = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(2, PTR).withName("ptr_data"), INT.withName("int_data"),
            MemoryLayout.paddingLayout(4));
    /** {@code typedef struct { const void *ptr_data[2]; unsigned begin_int_data, end_int_data; } CXSourceRange;} */
    static final StructLayout CX_SOURCE_RANGE = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(2, PTR).withName("ptr_data"), INT.withName("begin_int_data"),
            INT.withName("end_int_data"));
    /** {@code typedef struct { unsigned int_data[4]; void *ptr_data; } CXToken;} */
    static final StructLayout CX_TOKEN = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(4, INT).withName("int_data"), PTR.withName("ptr_data"));
    /** {@code struct CXUnsavedFile { const char *Filename; const char *Contents; unsigned long Length; };} */
    static final StructLayout CX_UNSAVED_FILE = MemoryLayout.structLayout(
            PTR.withName("Filename"), PTR.withName("Contents"), LONG.withName("Length"));

    private static final Linker LINKER = Linker.nativeLinker();

    private final Arena arena;
    private final SymbolLookup lib;
    private final Path resourceDir;

    private final MethodHandle createIndex;
    private final MethodHandle disposeIndex;
    private final MethodHandle parseTranslationUnit2;
    private final MethodHandle disposeTranslationUnit;
    private final MethodHandle getNumDiagnostics;
    private final MethodHandle getDiagnostic;
    private final MethodHandle getDiagnosticSeverity;
    private final MethodHandle formatDiagnostic;
    private final MethodHandle disposeDiagnostic;
    private final MethodHandle getTranslationUnitCursor;
    private final MethodHandle visitChildren;
    private final MethodHandle getCursorKind;
    private final MethodHandle getCursorSpelling;
    private final MethodHandle getCursorType;
    private final MethodHandle getCursorLocation;
    private final MethodHandle getCursorExtent;
    private final MethodHandle locationIsFromMainFile;
    private final MethodHandle isCursorDefinition;
    private final MethodHandle cursorIsMacroFunctionLike;
    private final MethodHandle cursorIsBitField;
    private final MethodHandle cursorGetOffsetOfField;
    private final MethodHandle cursorGetNumArguments;
    private final MethodHandle cursorGetArgument;
    private final MethodHandle getCursorResultType;
    private final MethodHandle getTypedefDeclUnderlyingType;
    private final MethodHandle getCanonicalType;
    private final MethodHandle getTypeSpelling;
    private final MethodHandle typeGetSizeOf;
    private final MethodHandle typeGetAlignOf;
    private final MethodHandle getArrayElementType;
    private final MethodHandle getArraySize;
    private final MethodHandle isFunctionTypeVariadic;
    private final MethodHandle getCString;
    private final MethodHandle disposeString;
    private final MethodHandle tokenize;
    private final MethodHandle disposeTokens;
    private final MethodHandle getTokenKind;
    private final MethodHandle getTokenSpelling;
    private final MethodHandle cursorEvaluate;
    private final MethodHandle evalResultGetKind;
    private final MethodHandle evalResultIsUnsignedInt;
    private final MethodHandle evalResultGetAsUnsigned;
    private final MethodHandle evalResultGetAsLongLong;
    private final MethodHandle evalResultDispose;

    /** Where libclang 14 lives on Debian/Ubuntu; {@code -Dnicbridge.libclang=PATH} overrides. */
    private static final List<String> LIBRARY_CANDIDATES = List.of(
            "/usr/lib/llvm-14/lib/libclang.so.1",
            "/usr/lib/llvm-14/lib/libclang-14.so.1",
            "/usr/lib/x86_64-linux-gnu/libclang-14.so.1",
            "/usr/lib/aarch64-linux-gnu/libclang-14.so.1");

    /** clang's own headers (stddef.h, stdint.h wrapper...); {@code -Dnicbridge.clang.resource.dir=DIR} overrides. */
    private static final List<String> RESOURCE_DIR_CANDIDATES = List.of(
            "/usr/lib/llvm-14/lib/clang/14.0.6",
            "/usr/lib/clang/14.0.6",
            "/usr/lib/llvm-14/lib/clang/14");

    /** Thrown when libclang or its resource headers cannot be found; the message says how to install them. */
    static final class MissingLibclangException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MissingLibclangException(String message) {
            super(message);
        }
    }

    Clang(Arena arena) {
        this.arena = arena;
        Path library = findFile("nicbridge.libclang", LIBRARY_CANDIDATES, "libclang shared library");
        this.resourceDir = findFile("nicbridge.clang.resource.dir", RESOURCE_DIR_CANDIDATES,
                "clang resource include directory (stddef.h, stdint.h)");
        if (!Files.isRegularFile(resourceDir.resolve("include/stddef.h"))) {
            throw new MissingLibclangException("clang resource directory " + resourceDir
                    + " has no include/stddef.h; install it with: " + INSTALL_HINT);
        }
        this.lib = SymbolLookup.libraryLookup(library, arena);

        createIndex = bind("clang_createIndex", FunctionDescriptor.of(PTR, INT, INT));
        disposeIndex = bind("clang_disposeIndex", FunctionDescriptor.ofVoid(PTR));
        parseTranslationUnit2 = bind("clang_parseTranslationUnit2",
                FunctionDescriptor.of(INT, PTR, PTR, PTR, INT, PTR, INT, INT, PTR));
        disposeTranslationUnit = bind("clang_disposeTranslationUnit", FunctionDescriptor.ofVoid(PTR));
        getNumDiagnostics = bind("clang_getNumDiagnostics", FunctionDescriptor.of(INT, PTR));
        getDiagnostic = bind("clang_getDiagnostic", FunctionDescriptor.of(PTR, PTR, INT));
        getDiagnosticSeverity = bind("clang_getDiagnosticSeverity", FunctionDescriptor.of(INT, PTR));
        formatDiagnostic = bind("clang_formatDiagnostic", FunctionDescriptor.of(CX_STRING, PTR, INT));
        disposeDiagnostic = bind("clang_disposeDiagnostic", FunctionDescriptor.ofVoid(PTR));
        getTranslationUnitCursor = bind("clang_getTranslationUnitCursor", FunctionDescriptor.of(CX_CURSOR, PTR));
        visitChildren = bind("clang_visitChildren", FunctionDescriptor.of(INT, CX_CURSOR, PTR, PTR));
        getCursorKind = bind("clang_getCursorKind", FunctionDescriptor.of(INT, CX_CURSOR));
        getCursorSpelling = bind("clang_getCursorSpelling", FunctionDescriptor.of(CX_STRING, CX_CURSOR));
        getCursorType = bind("clang_getCursorType", FunctionDescriptor.of(CX_TYPE, CX_CURSOR));
        getCursorLocation = bind("clang_getCursorLocation", FunctionDescriptor.of(CX_SOURCE_LOCATION, CX_CURSOR));
        getCursorExtent = bind("clang_getCursorExtent", FunctionDescriptor.of(CX_SOURCE_RANGE, CX_CURSOR));
        locationIsFromMainFile = bind("clang_Location_isFromMainFile",
                FunctionDescriptor.of(INT, CX_SOURCE_LOCATION));
        isCursorDefinition = bind("clang_isCursorDefinition", FunctionDescriptor.of(INT, CX_CURSOR));
        cursorIsMacroFunctionLike = bind("clang_Cursor_isMacroFunctionLike", FunctionDescriptor.of(INT, CX_CURSOR));
        cursorIsBitField = bind("clang_Cursor_isBitField", FunctionDescriptor.of(INT, CX_CURSOR));
        cursorGetOffsetOfField = bind("clang_Cursor_getOffsetOfField", FunctionDescriptor.of(LONG, CX_CURSOR));
        cursorGetNumArguments = bind("clang_Cursor_getNumArguments", FunctionDescriptor.of(INT, CX_CURSOR));
        cursorGetArgument = bind("clang_Cursor_getArgument", FunctionDescriptor.of(CX_CURSOR, CX_CURSOR, INT));
        getCursorResultType = bind("clang_getCursorResultType", FunctionDescriptor.of(CX_TYPE, CX_CURSOR));
        getTypedefDeclUnderlyingType = bind("clang_getTypedefDeclUnderlyingType",
                FunctionDescriptor.of(CX_TYPE, CX_CURSOR));
        getCanonicalType = bind("clang_getCanonicalType", FunctionDescriptor.of(CX_TYPE, CX_TYPE));
        getTypeSpelling = bind("clang_getTypeSpelling", FunctionDescriptor.of(CX_STRING, CX_TYPE));
        typeGetSizeOf = bind("clang_Type_getSizeOf", FunctionDescriptor.of(LONG, CX_TYPE));
        typeGetAlignOf = bind("clang_Type_getAlignOf", FunctionDescriptor.of(LONG, CX_TYPE));
        getArrayElementType = bind("clang_getArrayElementType", FunctionDescriptor.of(CX_TYPE, CX_TYPE));
        getArraySize = bind("clang_getArraySize", FunctionDescriptor.of(LONG, CX_TYPE));
        isFunctionTypeVariadic = bind("clang_isFunctionTypeVariadic", FunctionDescriptor.of(INT, CX_TYPE));
        getCString = bind("clang_getCString", FunctionDescriptor.of(PTR, CX_STRING));
        disposeString = bind("clang_disposeString", FunctionDescriptor.ofVoid(CX_STRING));
        tokenize = bind("clang_tokenize", FunctionDescriptor.ofVoid(PTR, CX_SOURCE_RANGE, PTR, PTR));
        disposeTokens = bind("clang_disposeTokens", FunctionDescriptor.ofVoid(PTR, PTR, INT));
        getTokenKind = bind("clang_getTokenKind", FunctionDescriptor.of(INT, CX_TOKEN));
        getTokenSpelling = bind("clang_getTokenSpelling", FunctionDescriptor.of(CX_STRING, PTR, CX_TOKEN));
        cursorEvaluate = bind("clang_Cursor_Evaluate", FunctionDescriptor.of(PTR, CX_CURSOR));
        evalResultGetKind = bind("clang_EvalResult_getKind", FunctionDescriptor.of(INT, PTR));
        evalResultIsUnsignedInt = bind("clang_EvalResult_isUnsignedInt", FunctionDescriptor.of(INT, PTR));
        evalResultGetAsUnsigned = bind("clang_EvalResult_getAsUnsigned", FunctionDescriptor.of(LONG, PTR));
        evalResultGetAsLongLong = bind("clang_EvalResult_getAsLongLong", FunctionDescriptor.of(LONG, PTR));
        evalResultDispose = bind("clang_EvalResult_dispose", FunctionDescriptor.ofVoid(PTR));
    }

    private static Path findFile(String property, List<String> candidates, String what) {
        String override = System.getProperty(property);
        List<String> tried = override != null ? List.of(override) : candidates;
        for (String candidate : tried) {
            if (Files.exists(Path.of(candidate))) {
                return Path.of(candidate);
            }
        }
        throw new MissingLibclangException("BindGen needs libclang 14 but found no " + what + " (looked at "
                + String.join(", ", tried) + "; -D" + property + "=PATH overrides). Install it with: "
                + INSTALL_HINT);
    }

    private MethodHandle bind(String name, FunctionDescriptor descriptor) {
        MemorySegment symbol = lib.find(name).orElseThrow(() -> new MissingLibclangException(
                "libclang has no symbol " + name + "; BindGen needs libclang 14 or newer: " + INSTALL_HINT));
        return LINKER.downcallHandle(symbol, descriptor);
    }

    Path resourceDir() {
        return resourceDir;
    }

    // ------------------------------------------------------------------------------------------ index and units

    /**
     * Creates the index with libclang's crash recovery off. Crash recovery installs signal handlers for SIGSEGV
     * and friends; the JVM raises SIGSEGV on purpose (implicit null checks, safepoint polls), and with clang's
     * handlers in the way such a signal becomes a real crash. libclang reads the variable in
     * {@code clang_createIndex}, so it is set (in this process only) just before.
     */
    MemorySegment createIndex() {
        MethodHandle setenv = LINKER.downcallHandle(LINKER.defaultLookup().find("setenv").orElseThrow(
                () -> new IllegalStateException("the C library has no setenv")), FunctionDescriptor.of(INT, PTR, PTR, INT));
        MemorySegment name = arena.allocateFrom("LIBCLANG_DISABLE_CRASH_RECOVERY");
        MemorySegment value = arena.allocateFrom("1");
        int status = (int) call(() -> (int) setenv.invokeExact(name, value, 1));
        if (status != 0) {
            throw new IllegalStateException("setenv(LIBCLANG_DISABLE_CRASH_RECOVERY) failed");
        }
        return (MemorySegment) call(() -> (MemorySegment) createIndex.invokeExact(0, 0));
    }

    void disposeIndex(MemorySegment index) {
        run(() -> { disposeIndex.invokeExact(index); });
    }

    /**
     * Parses {@code file} (optionally with in-memory contents) and fails with every error diagnostic clang
     * reported, so a header that does not compile can never produce bindings.
     */
    MemorySegment parse(MemorySegment index, String file, String contents, List<String> args, int options) {
        MemorySegment argv = arena.allocate(PTR, Math.max(1, args.size()));
        for (int i = 0; i < args.size(); i++) {
            argv.setAtIndex(PTR, i, arena.allocateFrom(args.get(i)));
        }
        MemorySegment unsaved = MemorySegment.NULL;
        int numUnsaved = 0;
        if (contents != null) {
            byte[] bytes = contents.getBytes(StandardCharsets.UTF_8);
            unsaved = arena.allocate(CX_UNSAVED_FILE);
            unsaved.set(PTR, 0, arena.allocateFrom(file));
            unsaved.set(PTR, 8, arena.allocateFrom(contents));
            unsaved.set(LONG, 16, bytes.length);
            numUnsaved = 1;
        }
        MemorySegment out = arena.allocate(PTR);
        MemorySegment fileName = arena.allocateFrom(file);
        MemorySegment unsavedFiles = unsaved;
        int files = numUnsaved;
        int error = (int) call(() -> (int) parseTranslationUnit2.invokeExact(index, fileName, argv, args.size(),
                unsavedFiles, files, options, out));
        MemorySegment unit = out.get(PTR, 0);
        if (error != 0 || unit.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("libclang could not parse " + file + " (CXErrorCode " + error
                    + ", arguments " + args + ")");
        }
        List<String> errors = errors(unit);
        if (!errors.isEmpty()) {
            disposeTranslationUnit(unit);
            throw new IllegalStateException("clang reports errors in " + file + ":\n  " + String.join("\n  ", errors));
        }
        return unit;
    }

    private List<String> errors(MemorySegment unit) {
        List<String> errors = new ArrayList<>();
        int count = (int) call(() -> (int) getNumDiagnostics.invokeExact(unit));
        for (int i = 0; i < count; i++) {
            int n = i;
            MemorySegment diagnostic = (MemorySegment) call(() -> (MemorySegment) getDiagnostic.invokeExact(unit, n));
            int severity = (int) call(() -> (int) getDiagnosticSeverity.invokeExact(diagnostic));
            if (severity >= DIAGNOSTIC_ERROR) {
                // 0x1 | 0x2 | 0x4: source location, column, option name - the usual compiler message format.
                errors.add(string((MemorySegment) call(
                        () -> (MemorySegment) formatDiagnostic.invokeExact((java.lang.foreign.SegmentAllocator) arena,
                                diagnostic, 0x7))));
            }
            run(() -> { disposeDiagnostic.invokeExact(diagnostic); });
        }
        return errors;
    }

    void disposeTranslationUnit(MemorySegment unit) {
        run(() -> { disposeTranslationUnit.invokeExact(unit); });
    }

    MemorySegment unitCursor(MemorySegment unit) {
        return struct(() -> (MemorySegment) getTranslationUnitCursor.invokeExact(alloc(), unit));
    }

    // ---------------------------------------------------------------------------------------------- cursors

    /** The direct children of {@code parent}, each copied into the arena (clang only lends them to the visitor). */
    List<MemorySegment> children(MemorySegment parent) {
        List<MemorySegment> children = new ArrayList<>();
        ChildCollector collector = new ChildCollector(arena, children);
        MemorySegment stub;
        try {
            MethodHandle visit = MethodHandles.lookup()
                    .findVirtual(ChildCollector.class, "visit",
                            MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class,
                                    MemorySegment.class))
                    .bindTo(collector);
            stub = LINKER.upcallStub(visit, FunctionDescriptor.of(INT, CX_CURSOR, CX_CURSOR, PTR), arena);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build the clang_visitChildren upcall", e);
        }
        run(() -> {
            int ignored = (int) visitChildren.invokeExact(parent, stub, MemorySegment.NULL);
        });
        return children;
    }

    /** The CXCursorVisitor: copies each child (valid only during the call) and asks clang to continue. */
    static final class ChildCollector {
        private static final int CHILD_VISIT_CONTINUE = 1;
        private final Arena arena;
        private final List<MemorySegment> children;

        ChildCollector(Arena arena, List<MemorySegment> children) {
            this.arena = arena;
            this.children = children;
        }

        int visit(MemorySegment cursor, MemorySegment parent, MemorySegment clientData) {
            children.add(arena.allocate(CX_CURSOR).copyFrom(cursor));
            return CHILD_VISIT_CONTINUE;
        }
    }

    int kind(MemorySegment cursor) {
        return (int) call(() -> (int) getCursorKind.invokeExact(cursor));
    }

    String spelling(MemorySegment cursor) {
        return string(struct(() -> (MemorySegment) getCursorSpelling.invokeExact(alloc(), cursor)));
    }

    MemorySegment type(MemorySegment cursor) {
        return struct(() -> (MemorySegment) getCursorType.invokeExact(alloc(), cursor));
    }

    boolean isFromMainFile(MemorySegment cursor) {
        MemorySegment location = struct(() -> (MemorySegment) getCursorLocation.invokeExact(alloc(), cursor));
        return (int) call(() -> (int) locationIsFromMainFile.invokeExact(location)) != 0;
    }

    boolean isDefinition(MemorySegment cursor) {
        return (int) call(() -> (int) isCursorDefinition.invokeExact(cursor)) != 0;
    }

    boolean isMacroFunctionLike(MemorySegment cursor) {
        return (int) call(() -> (int) cursorIsMacroFunctionLike.invokeExact(cursor)) != 0;
    }

    boolean isBitField(MemorySegment cursor) {
        return (int) call(() -> (int) cursorIsBitField.invokeExact(cursor)) != 0;
    }

    /** Offset of a field in its record, in bits. */
    long offsetOfFieldBits(MemorySegment cursor) {
        return (long) call(() -> (long) cursorGetOffsetOfField.invokeExact(cursor));
    }

    int numArguments(MemorySegment cursor) {
        return (int) call(() -> (int) cursorGetNumArguments.invokeExact(cursor));
    }

    MemorySegment argument(MemorySegment cursor, int i) {
        return struct(() -> (MemorySegment) cursorGetArgument.invokeExact(alloc(), cursor, i));
    }

    MemorySegment resultType(MemorySegment cursor) {
        return struct(() -> (MemorySegment) getCursorResultType.invokeExact(alloc(), cursor));
    }

    MemorySegment typedefUnderlyingType(MemorySegment cursor) {
        return struct(() -> (MemorySegment) getTypedefDeclUnderlyingType.invokeExact(alloc(), cursor));
    }

    /** The tokens of a cursor's source range (for a macro definition: its name followed by its body). */
    List<Token> tokens(MemorySegment unit, MemorySegment cursor) {
        MemorySegment range = struct(() -> (MemorySegment) getCursorExtent.invokeExact(alloc(), cursor));
        MemorySegment tokensOut = arena.allocate(PTR);
        MemorySegment countOut = arena.allocate(INT);
        run(() -> { tokenize.invokeExact(unit, range, tokensOut, countOut); });
        int count = countOut.get(INT, 0);
        MemorySegment array = tokensOut.get(PTR, 0).reinterpret(CX_TOKEN.byteSize() * count);
        List<Token> tokens = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            MemorySegment token = array.asSlice(i * CX_TOKEN.byteSize(), CX_TOKEN);
            int kind = (int) call(() -> (int) getTokenKind.invokeExact(token));
            String text = string(struct(() -> (MemorySegment) getTokenSpelling.invokeExact(alloc(), unit, token)));
            tokens.add(new Token(kind, text));
        }
        if (count > 0) {
            run(() -> { disposeTokens.invokeExact(unit, tokensOut.get(PTR, 0), count); });
        }
        return tokens;
    }

    record Token(int kind, String text) {
    }

    /** The value of an integer constant expression (a variable's initializer), or null when clang cannot fold it. */
    EvaluatedInt evaluateInt(MemorySegment cursor) {
        MemorySegment result = (MemorySegment) call(() -> (MemorySegment) cursorEvaluate.invokeExact(cursor));
        if (result.equals(MemorySegment.NULL)) {
            return null;
        }
        try {
            int kind = (int) call(() -> (int) evalResultGetKind.invokeExact(result));
            if (kind != EVAL_INT) {
                return null;
            }
            boolean unsigned = (int) call(() -> (int) evalResultIsUnsignedInt.invokeExact(result)) != 0;
            long bits = unsigned
                    ? (long) call(() -> (long) evalResultGetAsUnsigned.invokeExact(result))
                    : (long) call(() -> (long) evalResultGetAsLongLong.invokeExact(result));
            return new EvaluatedInt(bits, unsigned);
        } finally {
            run(() -> { evalResultDispose.invokeExact(result); });
        }
    }

    /** An evaluated integer: {@code bits} is the two's-complement value, read as unsigned when {@code unsigned}. */
    record EvaluatedInt(long bits, boolean unsigned) {
    }

    // ------------------------------------------------------------------------------------------------ types

    int typeKind(MemorySegment type) {
        return type.get(INT, 0);
    }

    MemorySegment canonical(MemorySegment type) {
        return struct(() -> (MemorySegment) getCanonicalType.invokeExact(alloc(), type));
    }

    String typeSpelling(MemorySegment type) {
        return string(struct(() -> (MemorySegment) getTypeSpelling.invokeExact(alloc(), type)));
    }




    long sizeOf(MemorySegment type) {
        return (long) call(() -> (long) typeGetSizeOf.invokeExact(type));
    }

    long alignOf(MemorySegment type) {
        return (long) call(() -> (long) typeGetAlignOf.invokeExact(type));
    }

    MemorySegment arrayElementType(MemorySegment type) {
        return struct(() -> (MemorySegment) getArrayElementType.invokeExact(alloc(), type));
    }

    long arraySize(MemorySegment type) {
        return (long) call(() -> (long) getArraySize.invokeExact(type));
    }

    boolean isVariadic(MemorySegment functionType) {
        return (int) call(() -> (int) isFunctionTypeVariadic.invokeExact(functionType)) != 0;
    }

    // ---------------------------------------------------------------------------------------------- plumbing

    /** Copies a CXString into a Java string and disposes it. */
    private String string(MemorySegment cxString) {
        MemorySegment chars = (MemorySegment) call(() -> (MemorySegment) getCString.invokeExact(cxString));
        String text = chars.equals(MemorySegment.NULL) ? "" : chars.reinterpret(Long.MAX_VALUE).getString(0);
        run(() -> { disposeString.invokeExact(cxString); });
        return text;
    }

    private java.lang.foreign.SegmentAllocator alloc() {
        return arena;
    }

    @FunctionalInterface
    private interface NativeCall {
        Object call() throws Throwable;
    }

    @FunctionalInterface
    private interface NativeRun {
        void run() throws Throwable;
    }

    private static Object call(NativeCall call) {
        try {
            return call.call();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("libclang call failed", t);
        }
    }

    private static MemorySegment struct(NativeCall call) {
        return (MemorySegment) call(call);
    }

    private static void run(NativeRun run) {
        call(() -> {
            run.run();
            return null;
        });
    }
}
