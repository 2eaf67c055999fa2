package io.nicbridge.testing;

import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * A child JVM for RequirementsTest: {@code RequirementsProbe WORD} looks for the program named WORD on its PATH the
 * way a test does ({@link Executables#require}, capability WORD) and reports the outcome on stdout and in its exit
 * status: 0 found, 3 skipped, 1 failed (required, or an invalid {@value Requirements#VARIABLE}).
 */
public final class RequirementsProbe {
    private RequirementsProbe() {
    }

    public static void main(String[] args) {
        String word = args[0];
        try {
            System.out.println("FOUND " + Executables.require(Capability.of(word), word));
            System.exit(0);
        } catch (TestAbortedException e) {
            System.out.println("SKIPPED " + e.getMessage());
            System.exit(3);
        } catch (AssertionFailedError e) {
            System.out.println("FAILED " + e.getMessage());
            System.exit(1);
        }
    }
}
