package io.nicbridge.bridge.platform;

import java.io.IOException;

/**
 * The child JVM of {@link PlatformProcessTest}.
 * <ul>
 *   <li>{@code leak}: creates a veth pair, prints its namespace names and exits without closing it (the shutdown
 *       hook must remove it).</li>
 *   <li>{@code unprivileged NAME}: run without CAP_SYS_ADMIN/CAP_NET_ADMIN/CAP_NET_RAW; prints the availability
 *       verdict and what entering namespace NAME and opening a raw socket say.</li>
 * </ul>
 */
public final class PlatformChild {
    private PlatformChild() {
    }

    public static void main(String[] args) throws IOException {
        switch (args[0]) {
            case "leak" -> {
                VethPair pair = VethPair.create();
                System.out.println("namespaces " + pair.namespaceA().name() + " " + pair.namespaceB().name());
                System.out.flush();
                System.exit(0);
            }
            case "unprivileged" -> {
                System.out.println("availability " + VethPair.availability());
                try (NetworkNamespace ns = NetworkNamespace.open(args[1])) {
                    System.out.println("entered " + ns);
                } catch (IOException e) {
                    System.out.println("open: " + e.getMessage());
                }
                try (RawPacketSocket socket = RawPacketSocket.open("lo")) {
                    System.out.println("opened " + socket);
                } catch (IOException e) {
                    System.out.println("raw: " + e.getMessage());
                }
            }
            default -> throw new IllegalArgumentException("mode " + args[0]);
        }
    }
}
