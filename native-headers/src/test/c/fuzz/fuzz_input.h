/*
 * fuzz_input.h - the libFuzzer harnesses' reader of their input: a script of operations, each an opcode byte and its
 * arguments, read front to back. Past the end of the input every read returns zeros (so a truncated last operation
 * still runs, with zero arguments) and fuzz_more() turns false, which ends the script.
 *
 * Integers are little-endian in the input. Arguments are taken as they come, never "repaired" into valid values: the
 * point is that the code under test meets what a hostile driver, caller or wire would give it. Where a harness must
 * bound an argument (a length it will copy out of its own buffer), it says so next to the read.
 */
#ifndef NICBRIDGE_FUZZ_INPUT_H
#define NICBRIDGE_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fuzz_input {
    const uint8_t *p;
    size_t left;
} fuzz_input_t;

static inline int fuzz_more(const fuzz_input_t *in) {
    return in->left > 0;
}

/** Copies up to n bytes into out (zero-filling what the input no longer has); returns how many came from the input. */
static inline size_t fuzz_bytes(fuzz_input_t *in, void *out, size_t n) {
    size_t k = n < in->left ? n : in->left;
    memcpy(out, in->p, k);
    memset((uint8_t *)out + k, 0, n - k);
    in->p += k;
    in->left -= k;
    return k;
}

static inline uint8_t fuzz_u8(fuzz_input_t *in) {
    uint8_t b[1];
    fuzz_bytes(in, b, 1);
    return b[0];
}

static inline uint16_t fuzz_u16(fuzz_input_t *in) {
    uint8_t b[2];
    fuzz_bytes(in, b, 2);
    return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t fuzz_u32(fuzz_input_t *in) {
    uint8_t b[4];
    fuzz_bytes(in, b, 4);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint64_t fuzz_u64(fuzz_input_t *in) {
    uint64_t lo = fuzz_u32(in);
    return lo | (uint64_t)fuzz_u32(in) << 32;
}

#endif
