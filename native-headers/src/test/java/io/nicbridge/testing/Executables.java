package io.nicbridge.testing;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finds a program the way a shell does: the first executable file of that name in a PATH-style list of folders. */
public final class Executables {
    private Executables() {
    }

    /** @return {@code name} found on this process's {@code PATH}, if any */
    public static Optional<Path> find(String name) {
        return find(name, System.getenv().getOrDefault("PATH", ""));
    }

    /**
     * For a test that runs a program: {@code name} on the PATH, or the test is skipped (failed when {@code need} is
     * required; see {@link Requirements}).
     */
    public static Path require(Capability need, String name) {
        Optional<Path> p = find(name);
        Requirements.assume(need, p.isPresent(), () -> name + " is not on the PATH ("
            + System.getenv().getOrDefault("PATH", "") + ")");
        return p.orElseThrow();
    }

    /** @return {@code name} found in {@code searchPath} (folders separated by {@link File#pathSeparator}), if any */
    public static Optional<Path> find(String name, String searchPath) {
        for (String dir : searchPath.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
