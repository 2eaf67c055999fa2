/*
 * fault.c - the fault injector's decisions (shim_fault.h). Each direction has a splitmix64 generator: a 64-bit
 * counter advanced by the golden-ratio increment and mixed by two multiply-xorshift rounds, which passes BigCrush, has
 * a period of 2^64 and costs a few cycles per frame. One draw per frame, mapped onto [0, 1000000) by a multiply
 * (no modulo bias worth a ppm), picks at most one fault from the cumulative thresholds, so the rates are exactly the
 * configured probabilities and a seed replays the same decisions for the same frames.
 */
#include "shim_fault.h"

#include <stddef.h>

#define SHIM_FAULT_GOLDEN 0x9E3779B97F4A7C15ull
#define SHIM_ETH_HLEN 14u

static uint64_t shim_fault_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t shim_fault_draw(shim_fault_dir_t *dir) {
    dir->state += SHIM_FAULT_GOLDEN;
    return shim_fault_mix(dir->state);
}

int32_t shim_fault_check(const nicshim_faults_t *faults) {
    if (faults == NULL) {
        return NICSHIM_OK;
    }
    if (faults->size != sizeof(nicshim_faults_t)) {
        return NICSHIM_ERR_ABI;
    }
    if ((faults->directions & ~NICSHIM_FAULT_DIRECTIONS) != 0) {
        return NICSHIM_ERR_INVALID;
    }
    uint64_t sum = (uint64_t)faults->drop_ppm + faults->duplicate_ppm + faults->reorder_ppm + faults->corrupt_ppm;
    return sum > NICSHIM_FAULT_PPM_ONE ? NICSHIM_ERR_INVALID : NICSHIM_OK;
}

void shim_fault_init(shim_fault_dir_t *dir, const nicshim_faults_t *faults, uint32_t direction) {
    *dir = (shim_fault_dir_t){0};
    if (faults == NULL || (faults->directions & direction) == 0) {
        return;
    }
    dir->drop = faults->drop_ppm;
    dir->duplicate = dir->drop + faults->duplicate_ppm;
    dir->reorder = dir->duplicate + faults->reorder_ppm;
    dir->corrupt = dir->reorder + faults->corrupt_ppm;
    dir->on = dir->corrupt != 0;
    /* Different streams per direction: the seed mixed with the direction bit, so RX and TX are not in lockstep. */
    dir->state = shim_fault_mix(faults->seed ^ shim_fault_mix((uint64_t)direction * SHIM_FAULT_GOLDEN));
}

shim_fault_kind_t shim_fault_next(shim_fault_dir_t *dir) {
    if (!dir->on) {
        return SHIM_FAULT_NONE;
    }
    uint32_t u = (uint32_t)(((shim_fault_draw(dir) >> 32) * NICSHIM_FAULT_PPM_ONE) >> 32);
    if (u < dir->drop) {
        return SHIM_FAULT_DROP;
    }
    if (u < dir->duplicate) {
        return SHIM_FAULT_DUPLICATE;
    }
    if (u < dir->reorder) {
        return SHIM_FAULT_REORDER;
    }
    return u < dir->corrupt ? SHIM_FAULT_CORRUPT : SHIM_FAULT_NONE;
}

uint32_t shim_fault_corrupt_at(shim_fault_dir_t *dir, uint32_t len) {
    uint32_t from = len > SHIM_ETH_HLEN ? SHIM_ETH_HLEN : 0;
    uint32_t span = len - from;
    return from + (uint32_t)(((shim_fault_draw(dir) >> 32) * span) >> 32);
}
