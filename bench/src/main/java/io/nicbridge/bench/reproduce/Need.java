package io.nicbridge.bench.reproduce;

import io.nicbridge.bench.jmh.JmhLock;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
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
    JVM_FORK("a JDK launcher to fork JMH's benchmark JVMs"),
    /**
     * JMH's lock free ({@link JmhLock}): while another JMH run holds it, JMH refuses to start, and a run beside it
     * would share the CPUs anyway.
     */
    JMH_LOCK("JMH's lock, which no other JMH run may hold"),
    /** {@code ethtool}, to turn a veth pair's offloads off and on (Debian package ethtool). */
    ETHTOOL("ethtool (Debian package ethtool)"),
    /** AF_XDP sockets with an XSKMAP and an XDP program ({@code shim:afxdp}: CAP_SYS_ADMIN, or CAP_BPF + CAP_NET_ADMIN). */
    AFXDP("AF_XDP sockets and an XDP program (shim:afxdp)");

    private final String description;

    Need(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }

    /** @return whether {@code tool} is an executable on {@code PATH} or in the system folders root's PATH has */
    private static Availability onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin";
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return Availability.ok();
            }
        }
        return Availability.unavailable("no " + tool + " on PATH or in /usr/sbin, /sbin");
    }

    /**
     * @param why what {@link #check()} said
     * @return the report's reason for not running, e.g. {@code needs network namespaces and veth pairs: ...}; for
     *         the JMH lock, the lock's own words: {@code another JMH run holds /tmp/jmh.lock}
     */
    public String unmet(Availability why) {
        return this == JMH_LOCK ? why.reason() : "needs " + description + ": " + why.reason();
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
            case JMH_LOCK -> JmhLock.availability();
            case ETHTOOL -> onPath("ethtool");
            case AFXDP -> ShimBackendProvider.xdpAvailability();
        };
    }
}
