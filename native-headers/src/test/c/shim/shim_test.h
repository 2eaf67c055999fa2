/*
 * shim_test.h - the smallest test harness for the shim's C tests: CHECK records a failure with file, line and the
 * current test's name and carries on (so one run reports every broken expectation), RUN prints one line per test,
 * and main returns shim_test_summary(), which is non-zero when any check failed. Tests that name themselves another
 * way (a table of cases, a begin() helper) set shim_test_name and shim_test_count themselves.
 */
#ifndef NICBRIDGE_SHIM_TEST_H
#define NICBRIDGE_SHIM_TEST_H

/* Exit status of a test binary that skipped a part for want of a capability (root, CAP_NET_RAW, an interface):
 * its runner script turns it into require_or_skip (../require.sh), so NICBRIDGE_REQUIRE makes it a failure. */
#define SHIM_TEST_SKIPPED 77

#include <stdio.h>

static int shim_test_failures;
static int shim_test_checks;
static int shim_test_count;
/** The test that is running, for failure messages ("" outside any). */
static const char *shim_test_name = "";

#define CHECK(cond)                                                                                                \
    do {                                                                                                           \
        shim_test_checks++;                                                                                        \
        if (!(cond)) {                                                                                             \
            shim_test_failures++;                                                                                  \
            fprintf(stderr, "%s:%d [%s]: CHECK failed: %s\n", __FILE__, __LINE__, shim_test_name, #cond);          \
        }                                                                                                          \
    } while (0)

/* Compares two integers and prints both values, decimal and hex (register bits), when they differ. */
#define CHECK_EQ(actual, expected)                                                                                 \
    do {                                                                                                           \
        long long a_ = (long long)(actual);                                                                        \
        long long e_ = (long long)(expected);                                                                      \
        shim_test_checks++;                                                                                        \
        if (a_ != e_) {                                                                                            \
            shim_test_failures++;                                                                                  \
            fprintf(stderr, "%s:%d [%s]: CHECK_EQ failed: %s == %lld (0x%llx), expected %s == %lld (0x%llx)\n",   \
                    __FILE__, __LINE__, shim_test_name, #actual, a_, (unsigned long long)a_, #expected, e_,        \
                    (unsigned long long)e_);                                                                       \
        }                                                                                                          \
    } while (0)

#define RUN(test)                                                                                                  \
    do {                                                                                                           \
        int before_ = shim_test_failures;                                                                          \
        shim_test_name = #test;                                                                                    \
        test();                                                                                                    \
        shim_test_count++;                                                                                         \
        printf("  %s %s\n", shim_test_failures == before_ ? "ok  " : "FAIL", #test);                               \
        fflush(stdout);                                                                                            \
    } while (0)

static inline int shim_test_summary(const char *suite) {
    printf("%s: %d tests, %d checks, %d failed\n", suite, shim_test_count, shim_test_checks, shim_test_failures);
    return shim_test_failures == 0 ? 0 : 1;
}

#endif
