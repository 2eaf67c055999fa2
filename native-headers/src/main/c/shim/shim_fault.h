/*
 * shim_fault.h - the fault injector's decisions (fault.c): one seeded generator per direction that says, frame by
 * frame, whether the link drops, duplicates, reorders or corrupts it (nicshim.h, "Fault injection"). Pure
 * arithmetic, no I/O and no lock of its own: the platform (nicshim.c) calls it under the state lock and applies the
 * decisions to the frames it moves; the C test (src/test/c/shim/fault_test.c) calls it alone.
 */
#ifndef NICBRIDGE_SHIM_FAULT_H
#define NICBRIDGE_SHIM_FAULT_H

#include <stdint.h>

#include "nicshim.h"

typedef enum shim_fault_kind {
    SHIM_FAULT_NONE = 0,
    SHIM_FAULT_DROP,
    SHIM_FAULT_DUPLICATE,
    SHIM_FAULT_REORDER,
    SHIM_FAULT_CORRUPT,
} shim_fault_kind_t;

/** One direction's injector. Zero-initialised = off. */
typedef struct shim_fault_dir {
    int on;
    uint64_t state; /* splitmix64 */
    /* Cumulative thresholds in ppm: a draw u in [0, 1000000) below drop is a drop, below duplicate a duplicate ... */
    uint32_t drop;
    uint32_t duplicate;
    uint32_t reorder;
    uint32_t corrupt;
} shim_fault_dir_t;

/**
 * NICSHIM_OK when `faults` is a valid configuration for nicshim_set_faults (NULL is: off); NICSHIM_ERR_ABI for a
 * wrong size, NICSHIM_ERR_INVALID for unknown direction bits or probabilities summing past NICSHIM_FAULT_PPM_ONE.
 */
int32_t shim_fault_check(const nicshim_faults_t *faults);

/**
 * Sets up direction `direction` (NICSHIM_FAULT_RX or NICSHIM_FAULT_TX) from a checked configuration: on when that
 * direction's bit is set and some probability is non-zero. The two directions draw from different streams of the
 * same seed.
 */
void shim_fault_init(shim_fault_dir_t *dir, const nicshim_faults_t *faults, uint32_t direction);

/** The next frame's fate (always SHIM_FAULT_NONE while off, without a draw). */
shim_fault_kind_t shim_fault_next(shim_fault_dir_t *dir);

/** Which byte of a frame of `len` (> 0) bytes a corruption inverts: in [14, len), or in [0, len) when len <= 14. */
uint32_t shim_fault_corrupt_at(shim_fault_dir_t *dir, uint32_t len);

#endif
