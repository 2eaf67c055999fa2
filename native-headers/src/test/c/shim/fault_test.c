/*
 * fault_test.c - the fault injector's decisions alone (src/main/c/shim/fault.c): the configuration checks, no fault
 * and no draw while off, the rates of each fault within binomial bounds for fixed seeds, the same sequence for the
 * same seed (and a different one for another seed or the other direction), probabilities that add up to one, and
 * where a corruption lands.
 */
#include "shim_fault.h"
#include "shim_test.h"

#include <math.h>
#include <string.h>

#define DRAWS 1000000u

static nicshim_faults_t config(uint32_t directions, uint64_t seed, uint32_t drop, uint32_t dup, uint32_t reorder,
                               uint32_t corrupt) {
    nicshim_faults_t f = {.size = sizeof(f), .directions = directions, .seed = seed, .drop_ppm = drop,
                          .duplicate_ppm = dup, .reorder_ppm = reorder, .corrupt_ppm = corrupt};
    return f;
}

static void test_config_checked(void) {
    CHECK_EQ(shim_fault_check(NULL), NICSHIM_OK);
    nicshim_faults_t f = config(NICSHIM_FAULT_RX | NICSHIM_FAULT_TX, 1, 250000, 250000, 250000, 250000);
    CHECK_EQ(shim_fault_check(&f), NICSHIM_OK); /* exactly one: every frame suffers a fault */
    f.corrupt_ppm++;
    CHECK_EQ(shim_fault_check(&f), NICSHIM_ERR_INVALID);
    f = config(NICSHIM_FAULT_RX, 1, 0xFFFFFFFFu, 0xFFFFFFFFu, 2, 0); /* the sum must not wrap into range */
    CHECK_EQ(shim_fault_check(&f), NICSHIM_ERR_INVALID);
    f = config(4, 1, 10, 0, 0, 0);
    CHECK_EQ(shim_fault_check(&f), NICSHIM_ERR_INVALID);
    f = config(NICSHIM_FAULT_TX, 1, 10, 0, 0, 0);
    f.size = 24;
    CHECK_EQ(shim_fault_check(&f), NICSHIM_ERR_ABI);
}

static void test_off_means_no_fault(void) {
    shim_fault_dir_t d;
    shim_fault_init(&d, NULL, NICSHIM_FAULT_RX);
    CHECK(!d.on);
    nicshim_faults_t f = config(NICSHIM_FAULT_TX, 5, 500000, 500000, 0, 0); /* TX only */
    shim_fault_init(&d, &f, NICSHIM_FAULT_RX);
    CHECK(!d.on);
    f = config(NICSHIM_FAULT_RX | NICSHIM_FAULT_TX, 5, 0, 0, 0, 0); /* all probabilities zero */
    shim_fault_init(&d, &f, NICSHIM_FAULT_RX);
    CHECK(!d.on);
    uint32_t faults = 0;
    for (uint32_t i = 0; i < DRAWS; i++) {
        faults += shim_fault_next(&d) != SHIM_FAULT_NONE;
    }
    CHECK_EQ(faults, 0);
}

/** Counts of each kind over DRAWS frames. */
static void count(shim_fault_dir_t *d, uint32_t out[5]) {
    memset(out, 0, 5 * sizeof(out[0]));
    for (uint32_t i = 0; i < DRAWS; i++) {
        out[shim_fault_next(d)]++;
    }
}

/** `n` of DRAWS within 5 standard deviations of the binomial mean for probability `ppm` (a false alarm once in
 * ~3.5 million; the seeds are fixed anyway, so the test is deterministic). */
static void check_binomial(uint32_t n, uint32_t ppm) {
    double p = ppm / 1e6;
    double mean = DRAWS * p;
    double sd = sqrt(DRAWS * p * (1 - p));
    if (fabs(n - mean) > 5 * sd) {
        fprintf(stderr, "  %u of %u draws at %u ppm: mean %.0f, sd %.1f\n", n, DRAWS, ppm, mean, sd);
        CHECK(0);
    } else {
        CHECK(1);
    }
}

static void test_rates_within_binomial_bounds(void) {
    static const uint64_t seeds[] = {0, 7, 100, 0xDEADBEEFCAFEull};
    for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
        for (uint32_t dir = NICSHIM_FAULT_RX; dir <= NICSHIM_FAULT_TX; dir <<= 1) {
            nicshim_faults_t f = config(dir, seeds[s], 5000, 10000, 2000, 50000);
            shim_fault_dir_t d;
            shim_fault_init(&d, &f, dir);
            CHECK(d.on);
            uint32_t n[5];
            count(&d, n);
            check_binomial(n[SHIM_FAULT_DROP], 5000);
            check_binomial(n[SHIM_FAULT_DUPLICATE], 10000);
            check_binomial(n[SHIM_FAULT_REORDER], 2000);
            check_binomial(n[SHIM_FAULT_CORRUPT], 50000);
            CHECK_EQ(n[0] + n[1] + n[2] + n[3] + n[4], DRAWS);
        }
    }
    /* One kind at a time, small and large. */
    static const uint32_t ppms[] = {1, 100, 500000, 999999};
    for (size_t i = 0; i < sizeof(ppms) / sizeof(ppms[0]); i++) {
        nicshim_faults_t f = config(NICSHIM_FAULT_RX, 42, ppms[i], 0, 0, 0);
        shim_fault_dir_t d;
        shim_fault_init(&d, &f, NICSHIM_FAULT_RX);
        uint32_t n[5];
        count(&d, n);
        check_binomial(n[SHIM_FAULT_DROP], ppms[i]);
        CHECK_EQ(n[SHIM_FAULT_DUPLICATE] + n[SHIM_FAULT_REORDER] + n[SHIM_FAULT_CORRUPT], 0);
    }
}

static void test_probability_one_is_every_frame(void) {
    nicshim_faults_t f = config(NICSHIM_FAULT_TX, 3, 0, 0, NICSHIM_FAULT_PPM_ONE, 0);
    shim_fault_dir_t d;
    shim_fault_init(&d, &f, NICSHIM_FAULT_TX);
    uint32_t n[5];
    count(&d, n);
    CHECK_EQ(n[SHIM_FAULT_REORDER], DRAWS);
}

static void test_same_seed_same_sequence(void) {
    nicshim_faults_t f = config(NICSHIM_FAULT_RX | NICSHIM_FAULT_TX, 7, 100000, 100000, 100000, 100000);
    shim_fault_dir_t a, b, other_dir, other_seed;
    shim_fault_init(&a, &f, NICSHIM_FAULT_RX);
    shim_fault_init(&b, &f, NICSHIM_FAULT_RX);
    shim_fault_init(&other_dir, &f, NICSHIM_FAULT_TX);
    nicshim_faults_t g = f;
    g.seed = 8;
    shim_fault_init(&other_seed, &g, NICSHIM_FAULT_RX);
    uint32_t same = 0, same_dir = 0, same_seed = 0;
    for (uint32_t i = 0; i < 10000; i++) {
        shim_fault_kind_t k = shim_fault_next(&a);
        same += k == shim_fault_next(&b);
        same_dir += k == shim_fault_next(&other_dir);
        same_seed += k == shim_fault_next(&other_seed);
    }
    CHECK_EQ(same, 10000);
    /* Independent streams agree where both say NONE (0.6^2) or the same fault (4 * 0.1^2): 40 % of the time. */
    CHECK(same_dir < 4500);
    CHECK(same_seed < 4500);
    /* Re-initialising restarts the sequence. */
    shim_fault_init(&b, &f, NICSHIM_FAULT_RX);
    shim_fault_init(&a, &f, NICSHIM_FAULT_RX);
    for (uint32_t i = 0; i < 1000; i++) {
        CHECK_EQ(shim_fault_next(&a), shim_fault_next(&b));
    }
}

static void test_corruption_lands_after_the_ethernet_header(void) {
    nicshim_faults_t f = config(NICSHIM_FAULT_RX, 9, 0, 0, 0, NICSHIM_FAULT_PPM_ONE);
    shim_fault_dir_t d;
    shim_fault_init(&d, &f, NICSHIM_FAULT_RX);
    uint32_t hits[60] = {0};
    for (uint32_t i = 0; i < 100000; i++) {
        uint32_t at = shim_fault_corrupt_at(&d, 60);
        CHECK(at >= 14 && at < 60);
        if (at < 60) {
            hits[at]++;
        }
    }
    for (uint32_t i = 14; i < 60; i++) {
        CHECK(hits[i] > 1500); /* every payload byte is hit, about 2174 times each */
    }
    for (uint32_t len = 1; len <= 14; len++) { /* a runt: any byte */
        CHECK(shim_fault_corrupt_at(&d, len) < len);
    }
}

int main(void) {
    printf("fault_test\n");
    RUN(test_config_checked);
    RUN(test_off_means_no_fault);
    RUN(test_rates_within_binomial_bounds);
    RUN(test_probability_one_is_every_frame);
    RUN(test_same_seed_same_sequence);
    RUN(test_corruption_lands_after_the_ethernet_header);
    return shim_test_summary("fault_test");
}
