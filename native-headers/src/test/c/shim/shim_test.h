/*
 * shim_test.h - the smallest test harness for the shim's C tests: CHECK records a failure with file and line and
 * carries on (so one run reports every broken expectation), RUN prints one line per test, and main returns
 * shim_test_summary(), which is non-zero when any check failed.
 */
#ifndef NICBRIDGE_SHIM_TEST_H
#define NICBRIDGE_SHIM_TEST_H

#include <stdio.h>

static int shim_test_failures;
static int shim_test_checks;
static int shim_test_count;

#define CHECK(cond)                                                                                                \
    do {                                                                                                           \
        shim_test_checks++;                                                                                        \
        if (!(cond)) {                                                                                             \
            shim_test_failures++;                                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                               \
        }                                                                                                          \
    } while (0)

/* Compares two integers and prints both values when they differ. */
#define CHECK_EQ(actual, expected)                                                                                 \
    do {                                                                                                           \
        long long a_ = (long long)(actual);                                                                        \
        long long e_ = (long long)(expected);                                                                      \
        shim_test_checks++;                                                                                        \
        if (a_ != e_) {                                                                                            \
            shim_test_failures++;                                                                                  \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__,       \
                    #actual, a_, #expected, e_);                                                                   \
        }                                                                                                          \
    } while (0)

#define RUN(test)                                                                                                  \
    do {                                                                                                           \
        int before_ = shim_test_failures;                                                                          \
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
