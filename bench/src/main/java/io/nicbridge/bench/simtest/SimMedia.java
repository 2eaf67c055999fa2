package io.nicbridge.bench.simtest;

import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.util.List;

/**
 * The media {@code nic simtest --medium} knows: the harness's in-memory reference medium and the card media, which
 * live here because bench is the module that sees both the harness (protocols) and the emulated cards
 * (sim-hardware). A further medium is one more {@link CardSimMedium.Hardware} class and one line here.
 */
public final class SimMedia {
    private static final List<SimMedium.Factory> ALL = List.of(SimMedium.inMemory(VirtualTimeBase::new),
            EthernetSimMedium.FACTORY, FddiSimMedium.FACTORY, AtmSimMedium.FACTORY, FabricSimMedium.FACTORY,
            EthernetSimMedium.HUB_FACTORY);

    private SimMedia() {
    }

    /**
     * @param name a medium of {@link #names()}, or {@code fabric:FILE} for the fabric of a {@code configs/fabric}
     *             config
     * @throws IllegalArgumentException naming the known media when {@code name} is not one
     */
    public static SimMedium.Factory byName(String name) {
        if (name.startsWith("fabric:")) {
            return FabricSimMedium.fromConfig(name);
        }
        for (SimMedium.Factory f : ALL) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown medium '" + name + "'; known: " + names());
    }

    public static List<String> names() {
        return ALL.stream().map(SimMedium.Factory::name).toList();
    }
}
