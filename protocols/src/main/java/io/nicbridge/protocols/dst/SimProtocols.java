package io.nicbridge.protocols.dst;

import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.pupa.PupaConfig;
import io.nicbridge.protocols.pupa.PupaCore;
import java.util.List;
import java.util.Map;

/** The cores the simulation tester knows by name ({@code --protocol}). */
public final class SimProtocols {
    private static final Map<String, CoreFactory> BY_NAME = Map.of(
            "gbn", (link, clock, cpu, s) -> new GoBackNCore(link, clock,
                    new GoBackNConfig(s.window(), s.maxMessage(), s.rtoNanos()), cpu),
            "pupa", (link, clock, cpu, s) -> new PupaCore(link, clock, pupa(s), cpu));

    private SimProtocols() {
    }

    /**
     * Pupa in the tester's world: the paper's buffers and algorithms, its timers scaled to the world's RTO (ACK timer
     * half an RTO, as the paper's 10 ms timer is shorter than its timeout; packing delay a tenth of one), and the software frame
     * check on, because the in-memory medium delivers the bytes it corrupts (a card's FCS would drop them).
     */
    public static PupaConfig pupa(SimSettings s) {
        return PupaConfig.defaults().withMaxMessage(s.maxMessage())
                .withTimers(s.rtoNanos(), s.rtoNanos() / 2, s.rtoNanos() / 10).withFrameCheck(true);
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
