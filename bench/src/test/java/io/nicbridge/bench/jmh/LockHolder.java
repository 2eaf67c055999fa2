package io.nicbridge.bench.jmh;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Another process holding a JMH lock file, as a JMH run in another JVM does: {@link #start} runs this class's
 * {@code main} in a child JVM, which takes the lock, says {@code held} and keeps it until its standard input closes.
 */
public final class LockHolder implements AutoCloseable {
    private final Process process;

    private LockHolder(Process process) {
        this.process = process;
    }

    /** Starts the child and returns once it holds {@code lock}. */
    public static LockHolder start(Path lock) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(javaLauncher(), "-cp", System.getProperty("java.class.path"),
                LockHolder.class.getName(), lock.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = in.readLine();
        if (!"held".equals(line)) {
            p.destroyForcibly();
            throw new IOException("the lock holder did not take " + lock + ": " + line);
        }
        return new LockHolder(p);
    }

    /** @return the {@code java} of the running JDK */
    public static String javaLauncher() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Lets the lock go: closes the child's input and waits for it. */
    @Override
    public void close() throws IOException {
        process.getOutputStream().close();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) throws IOException {
        try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
            System.out.println("held");
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold until the parent closes our input
            }
        }
    }
}
