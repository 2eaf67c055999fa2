package io.nicbridge.bench.cli;

import io.nicbridge.bridge.memory.MemoryLocking;
import io.nicbridge.bridge.platform.LinuxCapabilities;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.bridge.spi.BackendProvider;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.contract.ContractManifest;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code nic info}: what this machine offers nicbridge. Every line is probed now, nothing is
 * assumed: the JDK and whether native access is enabled for this code, the backends that
 * {@link java.util.ServiceLoader} finds and the cards each builds, whether {@code mlock} pins
 * memory here, whether network namespaces can be created, and the tools the build and tests use.
 */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = "Report the JDK, native access, backends and cards, mlock and network-namespace permissions.")
final class InfoCommand implements Callable<Integer> {
    @Option(names = "--no-netns-probe",
            description = "Do not create a network namespace to find out whether it is permitted.")
    private boolean skipNetnsProbe;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        out.println("nicbridge " + new NicCommand.Version().getVersion()[0].replace("nicbridge ", ""));
        section(out, "Java");
        line(out, "runtime", Runtime.version() + " (" + System.getProperty("java.vendor") + ")");
        line(out, "home", System.getProperty("java.home"));
        line(out, "native access", InfoCommand.class.getModule().isNativeAccessEnabled()
                ? "enabled (--enable-native-access=ALL-UNNAMED)"
                : "DISABLED: run with --enable-native-access=ALL-UNNAMED (./nic does)");

        section(out, "Device contracts (generated bindings, checked against gcc on every build)");
        for (ContractManifest.Header h : ContractManifest.HEADERS) {
            line(out, h.fileName(), "sha256 " + h.sha256().substring(0, 16) + "..., "
                    + h.checks().size() + " checked values");
        }

        section(out, "Backends (spec scheme:card)");
        List<BackendProvider> providers = Backends.providers();
        if (providers.isEmpty()) {
            out.println("  none installed: no BackendProvider on the class path");
        }
        for (BackendProvider p : providers) {
            Availability a = p.availability();
            line(out, p.scheme(), (a.available() ? "available" : "unavailable: " + a.reason())
                    + "; cards " + String.join(", ", p.cards()) + "; e.g. " + String.join("  ", p.exampleSpecs()));
        }

        Availability lib = io.nicbridge.bridge.shim.ShimLibrary.availability();
        if (lib.available()) {
            int abi = io.nicbridge.bridge.shim.ShimLibrary.abiVersion();
            line(out, "native shim", "libnicshim.so ABI " + (abi >>> 16) + "." + (abi & 0xFFFF) + " at "
                + System.getProperty(io.nicbridge.contract.NicShim.LIBRARY_PROPERTY, "java.library.path"));
        } else {
            line(out, "native shim", "unavailable: " + lib.reason());
        }
        line(out, "AF_XDP (shim:afxdp)", skipNetnsProbe ? "not probed (--no-netns-probe)" : afXdpProbe());

        section(out, "Host");
        line(out, "memory pinning", MemoryLocking.probe().describe());
        line(out, "CAP_NET_RAW", LinuxCapabilities.has(LinuxCapabilities.CAP_NET_RAW)
                ? "yes (raw packet sockets for the native shim)" : "no (the native shim needs it)");
        line(out, "network namespaces", skipNetnsProbe ? "not probed (--no-netns-probe)"
                : describe(LinuxCapabilities.probeNetworkNamespaces()));
        line(out, "gcc", tool("gcc", "compiles the contract headers and the layout probe"));
        line(out, "libclang", Files.exists(Path.of("/usr/lib/llvm-14/lib/libclang.so.1"))
                ? "found (bindings can be regenerated)"
                : "not found (only needed to regenerate the bindings: apt-get install libclang1-14 libclang-common-14-dev)");
        line(out, "tshark", tool("tshark", "decodes captures in tests"));
        line(out, "valgrind", tool("valgrind", "memcheck of the C code"));
        line(out, "cpus", Runtime.getRuntime().availableProcessors() + " available to the JVM");
        return 0;
    }

    /**
     * What AF_XDP gives here: an AF_XDP 21140 opened for a moment on a fresh veth pair reports the attach and bind
     * modes the kernel granted (a real NIC's driver may grant more: native XDP with zero-copy).
     */
    private static String afXdpProbe() {
        Availability xdp = io.nicbridge.bridge.shim.ShimBackendProvider.xdpAvailability();
        if (!xdp.available()) {
            return "unavailable: " + xdp.reason();
        }
        Availability veth = io.nicbridge.bridge.platform.VethPair.availability();
        if (!veth.available()) {
            return "not probed: no veth pair to try it on (" + veth.reason() + ")";
        }
        try (var pair = io.nicbridge.bridge.platform.VethPair.builder().ipv4(false).create();
             var card = (io.nicbridge.bridge.shim.ShimCard) Backends.open("shim:afxdp?if=" + pair.interfaceA()
                 + "&card=dec21140&netns=" + pair.namespaceA().name())) {
            io.nicbridge.bridge.shim.XdpInfo info = card.xdpInfo();
            return "available; on a veth pair: " + info.attachText() + " XDP, " + info.bindText() + " mode"
                + (info.bindMode() == io.nicbridge.contract.NicShim.XDP_BOUND_COPY
                    ? " (veth has no zero-copy; a NIC whose driver has it binds zero-copy with bind=auto)" : "");
        } catch (java.io.IOException | RuntimeException e) {
            return "unavailable: opening it on a veth pair failed: " + e.getMessage();
        }
    }

    private static String describe(LinuxCapabilities.Probe probe) {
        return (probe.permitted() ? "permitted" : "not permitted") + " (" + probe.detail() + ")";
    }

    private static String tool(String name, String why) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, name))) {
                return Path.of(dir, name) + " (" + why + ")";
            }
        }
        return "not found (" + why + ")";
    }

    private static void section(PrintStream out, String title) {
        out.println();
        out.println(title);
    }

    private static void line(PrintStream out, String key, String value) {
        out.printf("  %-20s %s%n", key, value);
    }
}
