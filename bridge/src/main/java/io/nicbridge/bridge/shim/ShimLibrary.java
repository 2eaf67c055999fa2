package io.nicbridge.bridge.shim;

import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.contract.NicShim;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Finds the native shim library ({@code libnicshim.so}) before the generated {@link NicShim} downcalls bind to it,
 * and checks that its ABI is the one the bindings were generated for.
 *
 * <p>Where the library comes from, in order:
 * <ol>
 *   <li>system property {@value NicShim#LIBRARY_PROPERTY}, if set (a path to the {@code .so});</li>
 *   <li>the class-path resource {@value #RESOURCE}: the native-headers module builds the library with gcc in its
 *       compile phase into its classes, so it ships inside the jar (and the shaded benchmarks jar). A resource
 *       that is a plain file (a Maven reactor build) is used where it is; one inside a jar is copied once to a
 *       temporary file that is deleted when the JVM exits;</li>
 *   <li>otherwise {@code java.library.path} and the dynamic linker's own search, as {@link NicShim} does.</li>
 * </ol>
 * {@link #availability()} says why the library cannot be used (no Linux x86-64, not found, wrong ABI) in a
 * sentence a user can act on; nothing here throws at class-load time.
 */
public final class ShimLibrary {
    /** Class-path location of the library the build produced. */
    public static final String RESOURCE = "/native/linux-x86_64/libnicshim.so";

    private static final Availability AVAILABILITY = locate();

    private ShimLibrary() {
    }

    /** @return whether the library was found and has a compatible ABI, and why not */
    public static Availability availability() {
        return AVAILABILITY;
    }

    /**
     * @throws IllegalStateException with {@link #availability()}'s reason when the library cannot be used
     */
    public static void require() {
        if (!AVAILABILITY.available()) {
            throw new IllegalStateException("native shim unavailable: " + AVAILABILITY.reason());
        }
    }

    /** @return the library's ABI version word ({@code major << 16 | minor}) */
    public static int abiVersion() {
        require();
        return NicShim.abiVersion();
    }

    /** Text of a {@code NICSHIM_ERR_*} code, from the library itself. */
    public static String describe(int error) {
        if (!AVAILABILITY.available()) {
            return "error " + error;
        }
        return NicShim.strerror(error).reinterpret(256).getString(0) + " (" + error + ")";
    }

    private static Availability locate() {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.startsWith("Linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return Availability.unavailable("the native shim is built for Linux x86-64; this JVM runs on " + os + " "
                + arch);
        }
        if (System.getProperty(NicShim.LIBRARY_PROPERTY) == null) {
            try {
                Path found = fromClassPath();
                if (found != null) {
                    System.setProperty(NicShim.LIBRARY_PROPERTY, found.toString());
                }
            } catch (UncheckedIOException e) {
                return Availability.unavailable("could not extract " + RESOURCE + " to a temporary file: "
                    + e.getCause().getMessage());
            }
        }
        int abi;
        try {
            abi = NicShim.abiVersion();
        } catch (IllegalStateException e) {
            return Availability.unavailable(e.getMessage());
        }
        int major = (abi & NicShim.ABI_MAJOR_MASK) >>> NicShim.ABI_MAJOR_SHIFT;
        int minor = (abi & NicShim.ABI_MINOR_MASK) >>> NicShim.ABI_MINOR_SHIFT;
        if (major != NicShim.ABI_VERSION_MAJOR || minor < NicShim.ABI_VERSION_MINOR) {
            return Availability.unavailable("the native shim at " + System.getProperty(NicShim.LIBRARY_PROPERTY,
                "java.library.path") + " has ABI " + major + "." + minor + " but these bindings need "
                + NicShim.ABI_VERSION_MAJOR + "." + NicShim.ABI_VERSION_MINOR + " or a later minor; rebuild it with"
                + " ./mvnw -B -pl native-headers package");
        }
        return Availability.ok();
    }

    private static Path fromClassPath() {
        URL url = ShimLibrary.class.getResource(RESOURCE);
        if (url == null) {
            return null;
        }
        if ("file".equals(url.getProtocol())) {
            try {
                return Path.of(url.toURI());
            } catch (URISyntaxException e) {
                throw new IllegalStateException("bad resource URL " + url, e);
            }
        }
        try (InputStream in = url.openStream()) {
            Path dir = Files.createTempDirectory("nicbridge-shim");
            Path lib = dir.resolve("libnicshim.so");
            Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
            lib.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            return lib;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
