package io.nicbridge.protocols.ip.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A program run in a network namespace ({@code ip netns exec}) - the kernel's side of a {@link KernelLink}: curl,
 * python3, tshark - while the caller's thread keeps polling its stack: its output (stdout and stderr merged) is
 * collected by a reader thread, so the caller never blocks on it.
 */
public final class KernelPeer implements AutoCloseable {
    private final Process process;
    private final StringBuffer output = new StringBuffer();
    private final Thread reader;

    public KernelPeer(String namespace, String... command) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        cmd.addAll(List.of(command));
        process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        reader = Thread.ofPlatform().daemon().name("kernel-peer").start(() -> {
            try (InputStream in = process.getInputStream()) {
                byte[] b = new byte[4096];
                for (int n; (n = in.read(b)) > 0; ) {
                    output.append(new String(b, 0, n, StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                output.append("\n[reader: ").append(e.getMessage()).append(']');
            }
        });
    }

    /** Runs a python3 program given as text (argv[1..] = args) in the namespace. */
    public static KernelPeer python(String namespace, String program, String... args) throws IOException {
        Path file = Files.createTempFile("nicbridge-ip-", ".py");
        Files.writeString(file, program);
        file.toFile().deleteOnExit();
        List<String> cmd = new ArrayList<>(List.of("python3", file.toString()));
        cmd.addAll(List.of(args));
        return new KernelPeer(namespace, cmd.toArray(String[]::new));
    }

    public boolean alive() {
        return process.isAlive();
    }

    public String output() {
        return output.toString();
    }

    public int exitCode() throws InterruptedException {
        int rc = process.waitFor();
        reader.join(2_000);
        return rc;
    }

    /** Sends SIGTERM (tshark then finishes its capture file) and waits for the exit. */
    public int stop() throws InterruptedException {
        process.destroy();
        return exitCode();
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
