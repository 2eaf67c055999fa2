package io.nicbridge.bridge.platform;

import java.io.IOException;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receive packet steering (RPS) on the two ends of a veth pair: which CPU runs each end's receive processing.
 *
 * <p>Why: a veth has no device of its own. A frame sent on one end is received by the other inside the sender's
 * transmit call ({@code veth_xmit} -> {@code netif_rx} -> the per-CPU backlog, drained by the softirq on the same CPU),
 * so the receiving side's packet-socket copy ({@code tpacket_rcv}), IP and TCP input all run on the <em>sender's</em>
 * CPU. With a CPU mask in the receiving end's {@code rps_cpus}, {@code netif_rx} queues the frame to that CPU's
 * backlog instead and an inter-processor interrupt drains it there - the receiver's CPU, as on two real hosts. It is a
 * property of the link, so every stack over the pair (a packet socket, an AF_PACKET shim card, kernel TCP) gets the
 * same steering. (An XDP program on a veth end receives in that end's NAPI poll, before RPS: AF_XDP is not steered.)
 * <pre>
 *   /sys/class/net/&lt;end&gt;/queues/rx-0/rps_cpus    hex CPU mask; 0 = none (the kernel's default)
 * </pre>
 * The file is read and written through {@code ip netns exec}, which mounts the namespace's own sysfs (the JVM's
 * {@code /sys} shows the root namespace's interfaces only). {@link #close()} restores the masks found before.
 */
public final class ReceiveSteering implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReceiveSteering.class);

    private final VethPair pair;
    private final int cpuA;
    private final int cpuB;
    private final String previousA;
    private final String previousB;
    private boolean closed;

    private ReceiveSteering(VethPair pair, int cpuA, int cpuB, String previousA, String previousB) {
        this.pair = pair;
        this.cpuA = cpuA;
        this.cpuB = cpuB;
        this.previousA = previousA;
        this.previousB = previousB;
    }

    /**
     * Steers end A's receive processing to {@code cpuA} and end B's to {@code cpuB}: with A sending to B, B's input
     * runs on B's CPU and A's (the acknowledgements') on A's. Pin the thread using each end to the same CPU.
     *
     * @throws IllegalArgumentException naming {@code cpuA} or {@code cpuB} when outside {@code [0, cpus)}
     * @throws IOException              when the kernel has no RPS (no rps_cpus file) or refuses the write; the mask
     *                                  already written is restored then
     */
    public static ReceiveSteering rps(VethPair pair, int cpuA, int cpuB) throws IOException {
        Objects.requireNonNull(pair, "pair");
        checkCpu("cpuA", cpuA);
        checkCpu("cpuB", cpuB);
        String previousA = read(pair.namespaceA().name(), pair.interfaceA());
        String previousB = read(pair.namespaceB().name(), pair.interfaceB());
        write(pair.namespaceA().name(), pair.interfaceA(), mask(cpuA));
        try {
            write(pair.namespaceB().name(), pair.interfaceB(), mask(cpuB));
        } catch (IOException | RuntimeException e) {
            restore(pair.namespaceA().name(), pair.interfaceA(), previousA);
            throw e;
        }
        ReceiveSteering steering = new ReceiveSteering(pair, cpuA, cpuB, previousA, previousB);
        LOG.debug("{}", steering);
        return steering;
    }

    private static void checkCpu(String name, int cpu) {
        if (cpu < 0 || cpu >= CpuAffinity.cpus()) {
            throw new IllegalArgumentException(name + " must be in [0, " + CpuAffinity.cpus() + "), was " + cpu);
        }
    }

    /** The hex mask of one CPU, as rps_cpus takes it (comma-separated 32-bit words are also accepted; one suffices). */
    static String mask(int cpu) {
        return new java.math.BigInteger("1").shiftLeft(cpu).toString(16);
    }

    static String path(String ifname) {
        return "/sys/class/net/" + ifname + "/queues/rx-0/rps_cpus";
    }

    /**
     * @return the mask in {@code end}'s rps_cpus, as the kernel prints it (e.g. {@code 0}, {@code 2})
     * @throws IOException saying the kernel has no RPS when the file is missing
     */
    static String read(String namespace, String ifname) throws IOException {
        IpCommand.Result r = IpCommand.run("netns", "exec", namespace, "cat", path(ifname));
        if (!r.ok()) {
            throw new IOException("cannot read " + path(ifname) + " in " + namespace + " (a kernel without"
                + " CONFIG_RPS has no such file): " + r.output().strip());
        }
        return r.output().strip();
    }

    private static void write(String namespace, String ifname, String mask) throws IOException {
        IpCommand.Result r = IpCommand.run("netns", "exec", namespace, "sh", "-c", "printf '%s\\n' \"$1\" > \"$2\"",
            "sh", mask, path(ifname));
        if (!r.ok()) {
            throw new IOException("cannot write " + mask + " to " + path(ifname) + " in " + namespace
                + " (receive steering needs root and a kernel with CONFIG_RPS): " + r.output().strip());
        }
    }

    private static void restore(String namespace, String ifname, String mask) {
        try {
            write(namespace, ifname, mask);
        } catch (IOException e) {
            LOG.warn("could not restore {} in {}: {}", path(ifname), namespace, e.getMessage());
        }
    }

    /** @return the CPU end A's receive processing runs on */
    public int cpuA() {
        return cpuA;
    }

    /** @return the CPU end B's receive processing runs on */
    public int cpuB() {
        return cpuB;
    }

    /** Restores both ends' masks (idempotent, never throws; a pair already closed has nothing left to restore). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (pair.isClosed()) {
            return;
        }
        restore(pair.namespaceA().name(), pair.interfaceA(), previousA);
        restore(pair.namespaceB().name(), pair.interfaceB(), previousB);
    }

    @Override
    public String toString() {
        return "RPS: " + pair.interfaceA() + " rx-0 -> CPU " + cpuA + ", " + pair.interfaceB() + " rx-0 -> CPU " + cpuB
            + " (" + path("<end>") + ")";
    }
}
