package io.nicbridge.bridge.platform;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs iproute2's {@code ip} as a child process: creating namespaces and veth links is setup work done a few
 * times per test run, and {@code ip} is the tool an administrator would use for it, so its error messages
 * ("RTNETLINK answers: Operation not permitted") reach the user unchanged.
 *
 * <p>The binary is looked up in the usual sbin folders first because a non-login shell (a Maven fork, an IDE)
 * often has no {@code /usr/sbin} on its {@code PATH}.
 */
final class IpCommand {
    private static final long TIMEOUT_SECONDS = 10;
    private static final List<Path> CANDIDATES =
        List.of(Path.of("/usr/sbin/ip"), Path.of("/sbin/ip"), Path.of("/usr/bin/ip"), Path.of("/bin/ip"));

    /** What a command did: exit code (-1 when it timed out or was interrupted) and its merged output. */
    record Result(int exitCode, String output) {
        boolean ok() {
            return exitCode == 0;
        }
    }

    private IpCommand() {
    }

    /** @return the {@code ip} binary to run: the first executable candidate, else plain "ip" from the PATH */
    static String binary() {
        for (Path p : CANDIDATES) {
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return "ip";
    }

    /**
     * Runs {@code ip ARGS...} and waits for it (at most 10 s).
     *
     * @throws IOException when {@code ip} cannot be started at all (not installed)
     */
    static Result run(String... args) throws IOException {
        List<String> command = new ArrayList<>(args.length + 1);
        command.add(binary());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, String.join(" ", command) + " timed out after " + TIMEOUT_SECONDS + " s");
            }
            return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Result(-1, String.join(" ", command) + " interrupted");
        }
    }

    /**
     * Runs {@code ip ARGS...} and insists on success.
     *
     * @return the command's output
     * @throws IOException naming the command and quoting what {@code ip} said when it failed
     */
    static String check(String... args) throws IOException {
        Result r = run(args);
        if (!r.ok()) {
            throw new IOException("ip " + String.join(" ", args) + " failed (exit " + r.exitCode() + "): "
                + r.output().strip());
        }
        return r.output();
    }
}
