package io.nicbridge.protocols.dst;

import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import java.util.List;
import java.util.Map;

/** The cores the simulation tester knows by name ({@code --protocol}). */
public final class SimProtocols {
    private static final Map<String, CoreFactory> BY_NAME = Map.of(
            "gbn", (link, clock, cpu, s) -> new GoBackNCore(link, clock,
                    new GoBackNConfig(s.window(), s.maxMessage(), s.rtoNanos()), cpu));

    private SimProtocols() {
    }

    /** @throws IllegalArgumentException naming the known protocols when {@code name} is not one */
    public static CoreFactory byName(String name) {
        CoreFactory f = BY_NAME.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown protocol '" + name + "'; known: " + names());
        }
        return f;
    }

    public static List<String> names() {
        return BY_NAME.keySet().stream().sorted().toList();
    }
}
