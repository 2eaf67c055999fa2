package io.nicbridge.bridge.spi;

import java.util.List;

/**
 * A backend: turns a {@link DeviceSpec} into a live {@link Card}. Found with {@link java.util.ServiceLoader}
 * (list implementations in {@code META-INF/services/io.nicbridge.bridge.spi.BackendProvider}); selected
 * by the spec's scheme, e.g. {@code emu:dec21140} or {@code shim:afpacket?if=veth0&card=dec21140}.
 */
public interface BackendProvider {
    /** @return the spec scheme this backend serves, e.g. {@code "emu"}; lower case, unique */
    String scheme();

    /** @return the card models it can build, e.g. {@code [dec21140, sba200, medusa]} */
    List<String> cards();

    /** @return whether it works on this machine, with a reason when not */
    Availability availability();

    /**
     * Example specs for users and error messages; by default {@code scheme:card} for every card.
     * Backends whose specs need parameters override this, e.g. {@code shim:afpacket?if=<iface>&card=dec21140}.
     */
    default List<String> exampleSpecs() {
        return cards().stream().map(card -> scheme() + ":" + card).toList();
    }

    /**
     * Opens a card. The spec's scheme is this provider's and its {@link DeviceSpec#card()} one of
     * {@link #cards()} ({@link Backends#open} checks both first).
     *
     * @throws IllegalArgumentException for parameters this backend does not understand or accept
     */
    Card open(DeviceSpec spec);
}
