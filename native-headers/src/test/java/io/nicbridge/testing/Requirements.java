package io.nicbridge.testing;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * Skip or fail: the one rule for a test that cannot run on this machine for want of a {@link Capability}.
 *
 * <p>A test that needs something the machine may lack says so, before it does anything else, with one call:
 * <pre>{@code
 * Availability a = VethPair.availability();
 * Requirements.assume(Capability.NET, a.available(), a.reason());
 * Path tshark = Executables.require(Capability.TSHARK, "tshark"); // a program on the PATH, or skip/fail
 * }</pre>
 * Normally that is a JUnit assumption: without the capability the test is <b>skipped</b>, reported as such with the
 * reason. When the environment variable {@value #VARIABLE} names the capability, the same call <b>fails</b> the test
 * with an assertion error that names the capability and the reason. The variable is a comma-separated list of
 * {@link Capability#word() words} ({@code net, shim, tshark, valgrind, libclang, setpriv, chromium, clang-fuzzer}) or
 * {@code all}; CI sets it where every capability is installed (.ci/run, as root on Linux), so a test that silently
 * stops running breaks the build instead of shrinking it. An unknown word is an error, never ignored: while the variable holds one, every
 * {@code assume} fails with that error (a typo must not quietly require nothing).
 *
 * <p>Rules for new tests: never skip for a missing capability with {@code Assumptions.assumeTrue}/{@code abort} (CI
 * cannot turn that into a failure); call {@link #assume} with the matching capability, or add a {@link Capability}
 * (and its word to native-headers/src/test/c/require.sh, which RequirementsTest checks). Assumptions about anything
 * else (a platform a test does not apply to at all) are not capabilities. The C test runners follow the same rule
 * with {@code require_or_skip WORD "reason"} from require.sh.
 *
 * <p>This class lives in native-headers' test sources and reaches bridge, sim-hardware and bench as native-headers'
 * test-jar (test scope), so every module's tests, native-headers' own included, use the same one.
 */
public final class Requirements {
    /** The environment variable that turns skips into failures. */
    public static final String VARIABLE = "NICBRIDGE_REQUIRE";

    private final Set<Capability> required;
    /** Why the variable's value is not valid, or null. */
    private final String error;

    private Requirements(Set<Capability> required, String error) {
        this.required = required;
        this.error = error;
    }

    /**
     * Parses a value of {@value #VARIABLE}: comma-separated capability words or {@code all}, case-insensitive,
     * blanks between commas ignored; null or blank requires nothing.
     *
     * @throws IllegalArgumentException naming the first unknown word and every known one
     */
    public static Requirements parse(String spec) {
        Set<Capability> required = EnumSet.noneOf(Capability.class);
        if (spec != null) {
            for (String word : spec.split(",")) {
                if (word.isBlank()) {
                    continue;
                }
                if (word.trim().equalsIgnoreCase("all")) {
                    required.addAll(EnumSet.allOf(Capability.class));
                } else {
                    try {
                        required.add(Capability.of(word));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(VARIABLE + "=" + spec + ": " + e.getMessage(), e);
                    }
                }
            }
        }
        return new Requirements(required, null);
    }

    /** @return the requirements {@value #VARIABLE} sets for this process (read once) */
    public static Requirements fromEnvironment() {
        return FromEnvironment.INSTANCE;
    }

    private static final class FromEnvironment {
        static final Requirements INSTANCE = read(System.getenv(VARIABLE));

        private static Requirements read(String spec) {
            try {
                return parse(spec);
            } catch (IllegalArgumentException e) {
                return new Requirements(EnumSet.noneOf(Capability.class), e.getMessage());
            }
        }
    }

    /** @return whether a test that lacks {@code c} fails instead of skipping */
    public boolean requires(Capability c) {
        return required.contains(Objects.requireNonNull(c, "capability"));
    }

    /**
     * Returns when {@code available}; otherwise skips the calling test ({@link TestAbortedException}) or, when
     * {@code c} is required, fails it ({@link AssertionFailedError}), naming {@code c} and {@code reason}.
     *
     * @throws AssertionFailedError also when the requirements came from an invalid {@value #VARIABLE}
     */
    public void check(Capability c, boolean available, Supplier<String> reason) {
        Objects.requireNonNull(c, "capability");
        if (error != null) {
            throw new AssertionFailedError(error);
        }
        if (available) {
            return;
        }
        String why = reason.get();
        if (required.contains(c)) {
            throw new AssertionFailedError(VARIABLE + " requires " + c.word() + " (" + c.description()
                + "), but it is not available here: " + why);
        }
        throw new TestAbortedException("skipped, " + c.word() + " not available: " + why + " (" + VARIABLE + "="
            + c.word() + " makes this a failure)");
    }

    /** {@link #check} with the requirements of {@value #VARIABLE}: the call every test that may skip makes. */
    public static void assume(Capability c, boolean available, String reason) {
        fromEnvironment().check(c, available, () -> reason);
    }

    /** As {@link #assume(Capability, boolean, String)}, with the reason built only when needed. */
    public static void assume(Capability c, boolean available, Supplier<String> reason) {
        fromEnvironment().check(c, available, reason);
    }

    @Override
    public String toString() {
        return error != null ? "Requirements[invalid: " + error + "]" : "Requirements" + required;
    }
}
