package io.nicbridge.bridge.spi;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry of backends found with {@link ServiceLoader}, and the one way to open a card from a spec
 * string.
 */
public final class Backends {
    private static final Logger LOG = LoggerFactory.getLogger(Backends.class);

    private Backends() {
    }

    /**
     * @return every {@link BackendProvider} on the class path, sorted by scheme
     * @throws IllegalStateException when two providers claim the same scheme
     */
    public static List<BackendProvider> providers() {
        List<BackendProvider> found = new ArrayList<>();
        ServiceLoader.load(BackendProvider.class).forEach(found::add);
        found.sort(Comparator.comparing(BackendProvider::scheme));
        Map<String, BackendProvider> byScheme = new HashMap<>();
        for (BackendProvider p : found) {
            BackendProvider previous = byScheme.putIfAbsent(p.scheme(), p);
            if (previous != null) {
                throw new IllegalStateException("two backends claim scheme '" + p.scheme() + "': "
                    + previous.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        return List.copyOf(found);
    }

    /** @return the provider for {@code scheme}, if any */
    public static Optional<BackendProvider> provider(String scheme) {
        return providers().stream().filter(p -> p.scheme().equals(scheme)).findFirst();
    }

    /** @return example specs of every available backend, e.g. {@code [emu:dec21140, emu:sba200]} */
    public static List<String> availableSpecs() {
        List<String> specs = new ArrayList<>();
        for (BackendProvider p : providers()) {
            if (p.availability().available()) {
                specs.addAll(p.exampleSpecs());
            }
        }
        return specs;
    }

    /** Parses {@code spec} and opens it; see {@link #open(DeviceSpec)}. */
    public static Card open(String spec) {
        return open(DeviceSpec.parse(spec));
    }

    /**
     * Opens the card {@code spec} names.
     *
     * @throws IllegalArgumentException for an unknown scheme or card, listing the specs that would work
     * @throws IllegalStateException    when the backend exists but is not available here, with its reason
     */
    public static Card open(DeviceSpec spec) {
        List<BackendProvider> all = providers();
        BackendProvider provider = all.stream().filter(p -> p.scheme().equals(spec.scheme())).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("unknown backend scheme '" + spec.scheme()
                + "' in device spec '" + spec + "'; " + listing(all)));
        if (!provider.cards().contains(spec.card())) {
            throw new IllegalArgumentException("backend '" + provider.scheme() + "' has no card '" + spec.card()
                + "' (device spec '" + spec + "'); it builds " + provider.cards() + "; " + listing(all));
        }
        Availability availability = provider.availability();
        if (!availability.available()) {
            throw new IllegalStateException("backend '" + provider.scheme() + "' is not available here: "
                + availability.reason() + " (device spec '" + spec + "')");
        }
        Card card = provider.open(spec);
        LOG.info("opened card {} from '{}'", card.name(), spec);
        return card;
    }

    private static String listing(List<BackendProvider> all) {
        if (all.isEmpty()) {
            return "no backends are installed (none registered as " + BackendProvider.class.getName()
                + " services)";
        }
        List<String> lines = new ArrayList<>();
        for (BackendProvider p : all) {
            Availability a = p.availability();
            for (String example : p.exampleSpecs()) {
                lines.add(a.available() ? example : example + " (unavailable: " + a.reason() + ")");
            }
        }
        return "available specs: " + String.join(", ", lines);
    }
}
