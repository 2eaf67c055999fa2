package io.nicbridge.bench.reproduce;

import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimLibrary;
import io.nicbridge.bridge.spi.Availability;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Something of the machine's an experiment needs beyond a JVM: without it the experiment is listed in the report as
 * "not run" with the reason, never silently left out.
 */
public enum Need {
    /** Network namespaces, veth pairs and raw packet sockets (root, iproute2). */
    NET("network namespaces and veth pairs"),
    /** The native driver shim, libnicshim.so, loadable here. */
    SHIM("the native driver shim libnicshim.so"),
    /** A second JVM for JMH's forks: the {@code java} launcher of the running JDK. */
    JVM_FORK("a JDK launcher to fork JMH's benchmark JVMs");

    private final String description;

    Need(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }

    /** @return whether this machine offers it, and why not */
    public Availability check() {
        return switch (this) {
            case NET -> VethPair.availability();
            case SHIM -> ShimLibrary.availability();
            case JVM_FORK -> {
                Path java = Path.of(System.getProperty("java.home"), "bin", "java");
                yield Files.isExecutable(java) ? Availability.ok()
                        : Availability.unavailable("no executable " + java + " to fork JMH's benchmark JVMs");
            }
        };
    }
}
