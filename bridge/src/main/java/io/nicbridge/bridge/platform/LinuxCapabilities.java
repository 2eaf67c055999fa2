package io.nicbridge.bridge.platform;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What this Linux host lets the process do that matters to nicbridge: raw packet sockets for the
 * native driver shim, network namespaces for real-network tests.
 *
 * <p>Capabilities are read from {@code /proc/self/status} ({@code CapEff}, a hex bit set whose bit
 * numbers are those of {@code linux/capability.h}). Whether namespaces work is not something the
 * capability bits can tell (a container may drop the syscall), so {@link #probeNetworkNamespaces()}
 * really creates and deletes one ({@link VethPair#availability()} goes further and builds a whole pair).
 */
public final class LinuxCapabilities {
    /** {@code CAP_NET_ADMIN}: creating and configuring interfaces (veth pairs, addresses, MTU). */
    public static final int CAP_NET_ADMIN = 12;
    /** {@code CAP_NET_RAW}: AF_PACKET sockets. */
    public static final int CAP_NET_RAW = 13;
    /** {@code CAP_IPC_LOCK}: mlock beyond RLIMIT_MEMLOCK. */
    public static final int CAP_IPC_LOCK = 14;
    /** {@code CAP_SYS_ADMIN}: creating network namespaces. */
    public static final int CAP_SYS_ADMIN = 21;

    private LinuxCapabilities() {
    }

    /**
     * Parses the effective capability set of this process.
     *
     * @return the {@code CapEff} bits, or 0 when {@code /proc/self/status} is not there (not Linux)
     */
    public static long effectiveCapabilities() {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) {
            return 0;
        }
        try {
            return parseCapEff(Files.readAllLines(status));
        } catch (IOException e) {
            return 0;
        }
    }

    static long parseCapEff(List<String> statusLines) {
        for (String line : statusLines) {
            if (line.startsWith("CapEff:")) {
                return Long.parseUnsignedLong(line.substring("CapEff:".length()).trim(), 16);
            }
        }
        return 0;
    }

    /** Whether the effective set holds the capability numbered {@code cap}. */
    public static boolean has(int cap) {
        return (effectiveCapabilities() & (1L << cap)) != 0;
    }

    /** Outcome of trying something the host may refuse, with the reason when it did. */
    public record Probe(boolean permitted, String detail) {
    }

    /**
     * Creates a uniquely named network namespace with {@code ip netns add} and deletes it again.
     * Cleanup runs whatever happens; the name carries the pid so parallel probes never collide.
     */
    public static Probe probeNetworkNamespaces() {
        String name = "nicbridge-probe-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 1_000_000;
        try {
            IpCommand.Result add = IpCommand.run("netns", "add", name);
            if (!add.ok()) {
                return new Probe(false, "ip netns add failed: " + add.output().strip());
            }
            IpCommand.Result del = IpCommand.run("netns", "del", name);
            if (!del.ok()) {
                return new Probe(false, "ip netns del failed: " + del.output().strip());
            }
            return new Probe(true, "ip netns add/del works");
        } catch (IOException e) {
            return new Probe(false, "cannot run ip (install iproute2): " + e.getMessage());
        }
    }
}
