package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.spi.Availability;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;

/**
 * JMH's lock: JMH's {@link Runner} takes a file lock on {@code java.io.tmpdir/jmh.lock} for the whole run and refuses
 * to start while another process (or another runner in this JVM) holds it, so that two benchmark runs never share
 * the CPUs. On this machine several people run JMH; a busy lock is a fact of the machine, not a broken run. Every
 * command that runs JMH in this JVM goes through {@link #run}, which says so with {@link Held}.
 */
public final class JmhLock {
    /** JMH's own switch ({@code -Djmh.ignoreLock=true}): the runner then ignores the lock, and so does this class. */
    static final String IGNORE_PROPERTY = "jmh.ignoreLock";

    private JmhLock() {
    }

    /** @return where JMH's runner takes its lock in this JVM: {@code java.io.tmpdir/jmh.lock}, as JMH computes it */
    public static Path path() {
        return Path.of(System.getProperty("java.io.tmpdir"), "jmh.lock");
    }

    /** @return whether JMH could take its lock now; if not, why: {@code another JMH run holds /tmp/jmh.lock} */
    public static Availability availability() {
        return Boolean.getBoolean(IGNORE_PROPERTY) ? Availability.ok() : availability(path());
    }

    /**
     * Tries the lock at {@code lock} the way JMH takes it (an exclusive lock on the whole file) and lets it go at
     * once.
     *
     * @return ok when nobody holds it; unavailable, naming the file, when a process (this JVM included) does
     */
    public static Availability availability(Path lock) {
        try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            FileLock taken = channel.tryLock();
            if (taken == null) {
                return Availability.unavailable(heldBy(lock));
            }
            taken.release();
            return Availability.ok();
        } catch (OverlappingFileLockException e) {
            return Availability.unavailable(heldBy(lock)); // a runner in this JVM holds it
        } catch (IOException e) {
            return Availability.unavailable("cannot open JMH's lock " + lock + ": " + e.getMessage());
        }
    }

    /**
     * Runs JMH with {@code options}.
     *
     * @throws Held           when another JMH run holds the lock: nothing was measured
     * @throws RunnerException when JMH fails for any other reason
     */
    public static Collection<RunResult> run(Options options) throws Held, RunnerException {
        Availability before = availability();
        if (!before.available()) {
            throw new Held(before.reason());
        }
        try {
            return new Runner(options).run();
        } catch (RunnerException e) {
            // taken between the look above and the runner's own attempt: JMH says so only in its message's words
            Availability now = availability();
            if (!now.available()) {
                throw new Held(now.reason());
            }
            throw e;
        }
    }

    private static String heldBy(Path lock) {
        return "another JMH run holds " + lock;
    }

    /** Another JMH run holds the lock: nothing was measured; try again when it has finished. */
    public static final class Held extends Exception {
        private static final long serialVersionUID = 1L;

        Held(String reason) {
            super(reason);
        }
    }
}
