package io.nicbridge.bridge.spi;

import java.util.Objects;

/**
 * Whether a backend can open cards on this machine, and if not, why (e.g. {@code "needs CAP_NET_RAW"}).
 *
 * @param available true when {@link BackendProvider#open} can work here
 * @param reason    empty when available, else a sentence a user can act on
 */
public record Availability(boolean available, String reason) {
    private static final Availability AVAILABLE = new Availability(true, "");

    public Availability {
        Objects.requireNonNull(reason, "reason");
        if (!available && reason.isBlank()) {
            throw new IllegalArgumentException("an unavailable backend must say why");
        }
    }

    /** @return the shared "works here" value */
    public static Availability ok() {
        return AVAILABLE;
    }

    public static Availability unavailable(String reason) {
        return new Availability(false, reason);
    }
}
