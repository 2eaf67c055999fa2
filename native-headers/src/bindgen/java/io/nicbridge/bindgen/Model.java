package io.nicbridge.bindgen;

import java.util.List;

/**
 * What the generator learned from one header: everything the Java side needs, with sizes, offsets and values as
 * clang computed them for this machine's ABI (x86-64 / AArch64 System V: the same as gcc's).
 */
final class Model {

    private Model() {
    }

    /**
     * One contract header.
     *
     * @param fileName  the header's file name, e.g. {@code dec21140.h}
     * @param prefix    the prefix of its names, e.g. {@code DEC21140_}
     * @param sha256    lower-case hex SHA-256 of the header's bytes
     * @param bigEndian {@code 1}/{@code 0} from the {@code <PREFIX>BIG_ENDIAN} marker, or null when the header has none
     *                  (its structs are then in the machine's native order)
     */
    record Header(String fileName, String prefix, String sha256, Integer bigEndian, List<Constant> constants,
                  List<Struct> structs, List<Function> functions) {
    }

    /**
     * An object-like macro with an integer value.
     *
     * @param cName      the macro's name
     * @param bits       the value's two's-complement bits (64 bits)
     * @param negative   true when the C value is below zero (otherwise {@code bits} is read as unsigned)
     * @param bitPattern true when the definition looks like a mask or bit (hex literal, shift or bitwise operator)
     * @param definition the macro body as written, tokens separated by single spaces
     */
    record Constant(String cName, long bits, boolean negative, boolean bitPattern, String definition) {

        /** True when Java can hold the value in an {@code int} (as a signed value or as a 32-bit pattern). */
        boolean fitsInt() {
            return negative ? bits >= Integer.MIN_VALUE : Long.compareUnsigned(bits, 0xFFFF_FFFFL) <= 0;
        }
    }

    /**
     * A struct with a definition in the header.
     *
     * @param cName     how C code names the type: the typedef name when there is one, else {@code struct tag}
     * @param key       clang's canonical spelling of the type, used to resolve nested fields
     * @param size      {@code sizeof}
     * @param alignment {@code _Alignof}
     */
    record Struct(String cName, String key, long size, long alignment, List<Field> fields) {
    }

    /**
     * A field: a scalar, a nested struct, or a one-dimensional array of either.
     *
     * @param name      the C field name
     * @param offset    byte offset in the struct
     * @param size      {@code sizeof} the whole field (all elements of an array)
     * @param scalar    the element's integer type, or null for a nested struct
     * @param structKey the nested struct's {@link Struct#key()}, or null for a scalar
     * @param length    the array length, or -1 when the field is not an array
     * @param cType     the declared type as written (e.g. {@code uint32_t}, {@code uint8_t[6]})
     */
    record Field(String name, long offset, long size, Scalar scalar, String structKey, long length, String cType) {

        boolean isArray() {
            return length >= 0;
        }
    }

    /** A fixed-width integer type: its size in bytes (1, 2, 4 or 8) and signedness. */
    record Scalar(int bytes, boolean signed) {
    }

    /** A function declaration; parameters and result are integers, pointers or void. */
    record Function(String name, CType result, List<Param> params) {
    }

    record Param(String name, CType type) {
    }

    /**
     * A parameter or result type.
     *
     * @param kind     void, integer or pointer
     * @param bytes    size in bytes (0 for void)
     * @param signed   for integers: whether the C type is signed
     * @param spelling the type as declared, e.g. {@code nicshim_t *}
     */
    record CType(Kind kind, int bytes, boolean signed, String spelling) {
        enum Kind { VOID, BOOL, INTEGER, POINTER }
    }
}
