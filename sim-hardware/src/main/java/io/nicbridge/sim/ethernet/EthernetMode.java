package io.nicbridge.sim.ethernet;

import java.util.Arrays;
import java.util.Locale;

/**
 * How an {@link EthernetSegment} shares its medium, chosen at construction.
 *
 * <ul>
 *   <li>{@link #IDEAL}: the collision-free shared medium (stations defer, never collide); the default, and the only
 *       mode in real time.
 *   <li>{@link #HUB}: half-duplex CSMA/CD on a shared 100BASE-TX repeater hub (IEEE 802.3 clause 4, clause 27
 *       repeater): carrier sense and deference, collisions within the propagation window, jam, truncated binary
 *       exponential backoff, excessive-collision abort after 16 attempts, late collisions. Virtual time only.
 *   <li>{@link #SWITCHED}: a store-and-forward learning switch, every station on its own full-duplex link (no
 *       collisions, IEEE 802.3 clause 4.2.3.2.6 / 802.1D forwarding), each output port with a finite buffer whose
 *       overflow is tail-dropped and counted per port. Virtual time only.
 * </ul>
 */
public enum EthernetMode {
    IDEAL,
    HUB,
    SWITCHED;

    /** @return the lower-case name used in configs and on command lines ({@code ideal}, {@code hub}, {@code switched}) */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param label {@code ideal}, {@code hub} or {@code switched} (any case)
     * @throws IllegalArgumentException naming the known modes
     */
    public static EthernetMode of(String label) {
        for (EthernetMode m : values()) {
            if (m.label().equalsIgnoreCase(label)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown Ethernet mode '" + label + "'; known: "
                + Arrays.stream(values()).map(EthernetMode::label).toList());
    }
}
