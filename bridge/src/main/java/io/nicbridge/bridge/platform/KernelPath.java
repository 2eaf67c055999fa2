package io.nicbridge.bridge.platform;

import java.net.Inet4Address;

/**
 * Where the kernel baselines ({@link UdpBaseline}, {@link TcpBaseline}) run: a client socket at address A in namespace
 * A talking to a server socket at address B in namespace B. A {@link VethPair} is one (a real link between two
 * namespaces); {@link LoopbackPath} is the other (both sockets on {@code lo} of one namespace: the kernel's stack with
 * no device in the path, the U-Net paper's "kernel over loopback").
 */
public interface KernelPath {
    NetworkNamespace namespaceA();

    NetworkNamespace namespaceB();

    /** @return the interface on B's side, for thread names */
    String interfaceB();

    /** @return whether the two ends have IPv4 addresses */
    boolean hasIpv4();

    /** @throws IllegalStateException when the path has no IPv4 addresses */
    Inet4Address addressA();

    /** @throws IllegalStateException when the path has no IPv4 addresses */
    Inet4Address addressB();

    /** @return the IP MTU of the path */
    int mtu();

    boolean isClosed();
}
