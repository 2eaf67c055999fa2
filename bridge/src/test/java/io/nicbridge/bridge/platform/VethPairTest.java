package io.nicbridge.bridge.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class VethPairTest {
    @BeforeEach
    void requireNamespaces() {
        Availability a = VethPair.availability();
        Requirements.assume(Capability.NET, a.available(), a.reason());
    }

    @Test
    void attachingToAnExistingLinkReadsItsEndsAndLeavesItInPlace() throws Exception {
        try (VethPair built = VethPair.builder().mtu(1400).create()) {
            String nsA = built.namespaceA().name();
            String nsB = built.namespaceB().name();
            try (VethPair attached = VethPair.attach(nsA, built.interfaceA(), nsB, built.interfaceB())) {
                assertEquals(built.macA(), attached.macA());
                assertEquals(built.macB(), attached.macB());
                assertEquals(1400, attached.mtu());
                assertTrue(attached.hasIpv4());
                assertEquals(built.addressA(), attached.addressA());
                assertEquals(built.addressB(), attached.addressB());
                assertEquals(nsA, attached.namespaceA().name());
                assertTrue(attached.toString().startsWith("existing link " + nsA + "/" + built.interfaceA()),
                    attached.toString());
            }
            assertTrue(NetworkNamespace.exists(nsA) && NetworkNamespace.exists(nsB), "close() left them alone");
            IOException missing = assertThrows(IOException.class,
                () -> VethPair.attach(nsA, built.interfaceA(), nsB + "-none", built.interfaceB()));
            assertTrue(missing.getMessage().contains("no network namespace '" + nsB + "-none'"), missing.getMessage());
            IpCommand.check("-n", nsB, "link", "set", "dev", built.interfaceB(), "down");
            IOException down = assertThrows(IOException.class,
                () -> VethPair.attach(nsA, built.interfaceA(), nsB, built.interfaceB()));
            assertTrue(down.getMessage().contains("is not up"), down.getMessage());
        }
        try (VethPair bare = VethPair.builder().ipv4(false).create();
             VethPair attached = VethPair.attach(bare.namespaceA().name(), bare.interfaceA(),
                 bare.namespaceB().name(), bare.interfaceB())) {
            assertFalse(attached.hasIpv4(), "no addresses on the ends: no IPv4");
        }
    }

    @Test
    void twoPairsHaveDistinctNamesAndAddressesAndLeaveNothingBehind() throws Exception {
        List<String> namespaces;
        try (VethPair one = VethPair.create(); VethPair two = VethPair.create()) {
            namespaces = List.of(one.namespaceA().name(), one.namespaceB().name(), two.namespaceA().name(),
                two.namespaceB().name());
            Set<String> names = new HashSet<>(namespaces);
            names.addAll(List.of(one.interfaceA(), one.interfaceB(), two.interfaceA(), two.interfaceB()));
            assertEquals(8, names.size(), "every namespace and interface name is unique: " + names);
            for (String ifname : List.of(one.interfaceA(), one.interfaceB(), two.interfaceA(), two.interfaceB())) {
                assertTrue(ifname.length() <= VethPair.MAX_INTERFACE_NAME, ifname);
                assertTrue(ifname.contains(Long.toString(ProcessHandle.current().pid()))
                    || ifname.contains(Long.toString(ProcessHandle.current().pid(), 36)), ifname);
            }
            Set<String> addresses = new HashSet<>();
            for (VethPair p : List.of(one, two)) {
                addresses.add(p.addressA().getHostAddress());
                addresses.add(p.addressB().getHostAddress());
                byte[] a = p.addressA().getAddress();
                byte[] b = p.addressB().getAddress();
                assertEquals(1, a[3]);
                assertEquals(2, b[3]);
                assertEquals(10, a[0]);
                assertEquals(List.of(a[1], a[2]), List.of(b[1], b[2]), "both ends in one /30");
                assertNotEquals(p.macA(), p.macB());
                for (String ns : List.of(p.namespaceA().name(), p.namespaceB().name())) {
                    assertTrue(Files.exists(NetworkNamespace.NETNS_DIR.resolve(ns)), ns);
                }
            }
            assertEquals(4, addresses.size(), "addresses unique across pairs: " + addresses);
        }
        for (String ns : namespaces) {
            assertFalse(NetworkNamespace.exists(ns), ns + " deleted by close()");
        }
        String all = IpCommand.check("netns", "list");
        for (String ns : namespaces) {
            assertFalse(all.contains(ns), "ip netns list still shows " + ns + ": " + all);
        }
    }

    @Test
    void endsAreUpWithIpv6DisabledTheRequestedMtuAndTheirAddresses() throws Exception {
        try (VethPair pair = VethPair.builder().mtu(9000).create()) {
            assertEquals(9000, pair.mtu());
            String a = IpCommand.check("-n", pair.namespaceA().name(), "-o", "addr", "show", "dev", pair.interfaceA());
            assertTrue(a.contains("inet " + pair.addressA().getHostAddress() + "/30"), a);
            assertFalse(a.contains("inet6"), "no IPv6 address (no link-local either): " + a);
            String linkB = IpCommand.check("-n", pair.namespaceB().name(), "-o", "link", "show", "dev",
                pair.interfaceB());
            assertTrue(linkB.contains("mtu 9000"), linkB);
            assertTrue(linkB.contains("state UP"), linkB);
            assertTrue(linkB.toLowerCase().contains(pair.macB().toString().toLowerCase()), linkB + " vs " + pair.macB());
            if (Files.exists(Path.of("/proc/sys/net/ipv6"))) {
                String sysctl = pair.namespaceB().call(() -> Files.readString(
                    Path.of("/proc/sys/net/ipv6/conf", pair.interfaceB(), "disable_ipv6")).strip());
                assertEquals("1", sysctl, "disable_ipv6 inside namespace B");
            }
            // The interface is not visible in the root namespace at all.
            assertFalse(Files.exists(Path.of("/sys/class/net", pair.interfaceA())));
        }
    }

    @Test
    void pairWithoutAddressesSaysSoWhenAskedForOne() throws Exception {
        try (VethPair pair = VethPair.builder().ipv4(false).create()) {
            assertFalse(pair.hasIpv4());
            IllegalStateException e = assertThrows(IllegalStateException.class, pair::addressA);
            assertTrue(e.getMessage().contains("without IPv4"), e.getMessage());
        }
    }

    @Test
    void failureHalfWayRemovesWhatWasBuiltAndCloseNeverThrows() throws Exception {
        for (String failAt : List.of("namespaces", "link", "configure")) {
            Set<String> before = ourNamespaces();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> VethPair.builder().afterStep(step -> {
                    if (step.equals(failAt)) {
                        throw new IllegalStateException("injected failure after " + step);
                    }
                }).create());
            assertEquals("injected failure after " + failAt, e.getMessage());
            assertEquals(before, ourNamespaces(), "nothing left after a failure at " + failAt);
        }
        VethPair pair = VethPair.create();
        pair.close();
        pair.close();
        assertTrue(pair.isClosed());
    }

    @Test
    void badMtuIsRefusedUpFront() {
        assertThrows(IllegalArgumentException.class, () -> VethPair.builder().mtu(67));
        assertThrows(IllegalArgumentException.class, () -> VethPair.builder().mtu(65536));
    }

    private static Set<String> ourNamespaces() throws IOException {
        String pid = Long.toString(ProcessHandle.current().pid());
        try (Stream<Path> files = Files.list(NetworkNamespace.NETNS_DIR)) {
            Set<String> names = new HashSet<>();
            files.map(p -> p.getFileName().toString()).filter(n -> n.contains(pid)).forEach(names::add);
            return names;
        }
    }
}
