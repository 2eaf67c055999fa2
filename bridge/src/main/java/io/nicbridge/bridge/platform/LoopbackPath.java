package io.nicbridge.bridge.platform;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * Both ends of a kernel baseline on the loopback interface of one namespace: 127.0.0.1 to 127.0.0.1, no device, no
 * softirq from a driver - the kernel's protocol stack alone, which the U-Net paper sets beside U-Net (Figures 7-9's
 * kernel curves). {@link #in} brings {@code lo} up (a new namespace starts with it down); the path lives as long as
 * its namespace.
 */
public final class LoopbackPath implements KernelPath {
    /** {@code lo}'s MTU on Linux. */
    public static final int MTU = 65536;
    private static final Inet4Address LOCALHOST;

    static {
        try {
            LOCALHOST = (Inet4Address) InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final NetworkNamespace namespace;

    private LoopbackPath(NetworkNamespace namespace) {
        this.namespace = namespace;
    }

    /**
     * @throws IOException when {@code ip link set lo up} fails in the namespace
     */
    public static LoopbackPath in(NetworkNamespace namespace) throws IOException {
        Objects.requireNonNull(namespace, "namespace");
        IpCommand.check("-n", namespace.name(), "link", "set", "dev", "lo", "up");
        return new LoopbackPath(namespace);
    }

    @Override
    public NetworkNamespace namespaceA() {
        return namespace;
    }

    @Override
    public NetworkNamespace namespaceB() {
        return namespace;
    }

    @Override
    public String interfaceB() {
        return "lo";
    }

    @Override
    public boolean hasIpv4() {
        return true;
    }

    @Override
    public Inet4Address addressA() {
        return LOCALHOST;
    }

    @Override
    public Inet4Address addressB() {
        return LOCALHOST;
    }

    @Override
    public int mtu() {
        return MTU;
    }

    @Override
    public boolean isClosed() {
        return false;
    }

    @Override
    public String toString() {
        return "loopback in " + namespace.name();
    }
}
