package io.nicbridge.sim.emu;

import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.bridge.spi.BackendProvider;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.sim.dec21140.Dec21140Card;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.Engines;
import io.nicbridge.sim.engine.IdleStrategy;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code emu} backend: emulated cards in this JVM.
 *
 * <pre>
 *   emu:dec21140[?mode=inline|threaded|virtual][&amp;wire=NAME][&amp;mac=02-00-00-00-00-01][&amp;name=NAME]
 *               [&amp;seed=N][&amp;idle=spin|yield|park|park:NANOS|backoff]
 *   emu:medusa[?mode=...][&amp;ring=NAME][&amp;mac=...][&amp;name=NAME][&amp;seed=N][&amp;idle=...]
 * </pre>
 * <ul>
 *   <li>{@code mode} (default inline): the engine; {@code seed} (default 0) seeds a virtual world,
 *       {@code idle} (default backoff) is the threaded engine's idle strategy.</li>
 *   <li>Every distinct (mode, seed, idle) has one <b>default testbed</b>, created by the first card opened
 *       with it and closed when its last card is closed. Cards opened with the same {@code wire} name (default
 *       {@code ether0}) in the same default testbed share that Ethernet segment, so two {@code open} calls
 *       give two stations that can talk.</li>
 *   <li>{@code mac}: six hex bytes separated by '-' (a spec value cannot hold ':'), or 12 hex digits; default
 *       {@code 02-00-00-00-00-NN} with NN the card's number in its testbed (locally administered).</li>
 *   <li>{@code name}: the card's name (default {@code dec21140#N} / {@code medusa#N}).</li>
 *   <li>{@code ring} (Medusa only, default {@code fddi0}): Medusa cards opened with the same ring name in the same
 *       default testbed are stations of that FDDI ring (they join it when the driver sets CTRL.RING_JOIN).</li>
 * </ul>
 * {@link #testbed(Card)} gives the testbed of a card opened here, e.g. to run a virtual world's time.
 * Any other parameter is an error.
 */
public final class EmuBackendProvider implements BackendProvider {
    public static final String SCHEME = "emu";
    public static final String DEC21140 = "dec21140";
    public static final String MEDUSA = "medusa";
    private static final Set<String> PARAMS = Set.of("mode", "wire", "mac", "name", "seed", "idle", "card", "ring");

    private static final Object LOCK = new Object();
    private static final Map<String, EmulatedTestbed> DEFAULTS = new HashMap<>();
    private static final Map<EmulatedTestbed, Integer> OPEN_CARDS = new IdentityHashMap<>();
    private static final Map<Card, EmulatedTestbed> CARD_TESTBEDS = new IdentityHashMap<>();
    private static final Map<EmulatedTestbed, Integer> NUMBERS = new IdentityHashMap<>();

    /** For {@link java.util.ServiceLoader}. */
    public EmuBackendProvider() {
    }

    @Override
    public String scheme() {
        return SCHEME;
    }

    @Override
    public List<String> cards() {
        return List.of(DEC21140, MEDUSA);
    }

    @Override
    public Availability availability() {
        return Availability.ok();
    }

    @Override
    public List<String> exampleSpecs() {
        return List.of("emu:dec21140", "emu:dec21140?mode=virtual&wire=lab&mac=02-00-00-00-00-01",
            "emu:medusa?mode=virtual&ring=fddi0&mac=02-00-00-00-00-01");
    }

    @Override
    public Card open(DeviceSpec spec) {
        for (String key : spec.params().keySet()) {
            if (!PARAMS.contains(key)) {
                throw new IllegalArgumentException("device spec '" + spec + "': backend 'emu' has no parameter '" + key
                    + "'; it takes " + PARAMS);
            }
        }
        if (!DEC21140.equals(spec.card()) && !MEDUSA.equals(spec.card())) {
            throw new IllegalArgumentException("device spec '" + spec + "': backend 'emu' builds " + cards()
                + ", not '" + spec.card() + "'");
        }
        String link = MEDUSA.equals(spec.card()) ? "wire" : "ring";
        if (spec.param(link).isPresent()) {
            throw new IllegalArgumentException("device spec '" + spec + "': parameter '" + link + "' does not apply to "
                + spec.card() + (MEDUSA.equals(spec.card()) ? " (a Medusa sits on an FDDI ring: use ring=NAME)"
                : " (a 21140 sits on an Ethernet segment: use wire=NAME)"));
        }
        EngineMode mode = Engines.parseMode(spec.param("mode", "inline"));
        long seed;
        try {
            seed = Long.parseLong(spec.param("seed", "0"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("device spec '" + spec + "': seed '" + spec.param("seed", "")
                + "' is not a whole number");
        }
        String idleText = spec.param("idle", "backoff");
        IdleStrategy idle = IdleStrategy.parse(idleText);
        String wireName = spec.param("wire", "ether0");
        String key = Engines.modeName(mode) + "/" + (mode == EngineMode.VIRTUAL ? seed : 0) + "/"
            + (mode == EngineMode.THREADED ? idle.describe() : "-");
        synchronized (LOCK) {
            EmulatedTestbed bed = DEFAULTS.get(key);
            if (bed == null || bed.isClosed()) {
                bed = EmulatedTestbed.create(mode, seed, idle);
                DEFAULTS.put(key, bed);
                NUMBERS.put(bed, 0);
            }
            int number = NUMBERS.merge(bed, 1, Integer::sum);
            boolean medusa = MEDUSA.equals(spec.card());
            String name = spec.param("name", spec.card() + "#" + (number - 1));
            byte[] mac = spec.param("mac").map(EmulatedTestbed::parseMac)
                .orElse(new byte[] {0x02, 0, 0, 0, 0, (byte) number});
            EmulatedTestbed owner = bed;
            Card[] self = new Card[1];
            Card card;
            try {
                card = medusa
                    ? bed.medusa(name, bed.fddiRing(spec.param("ring", "fddi0")), mac, spec,
                        () -> released(owner, key, self[0]))
                    : bed.dec21140(name, bed.ethernet(wireName), mac, bed.cardTiming(), spec,
                        () -> released(owner, key, self[0]));
            } catch (RuntimeException e) {
                if (OPEN_CARDS.getOrDefault(bed, 0) == 0) {
                    closeDefault(bed, key);
                }
                throw e;
            }
            self[0] = card;
            OPEN_CARDS.merge(bed, 1, Integer::sum);
            CARD_TESTBEDS.put(card, bed);
            return card;
        }
    }

    /** @return the testbed a card opened by this backend lives in (its engine, time base and wires) */
    public static Optional<EmulatedTestbed> testbed(Card card) {
        synchronized (LOCK) {
            return Optional.ofNullable(CARD_TESTBEDS.get(card));
        }
    }

    private static void released(EmulatedTestbed bed, String key, Card card) {
        synchronized (LOCK) {
            CARD_TESTBEDS.remove(card);
            int left = OPEN_CARDS.merge(bed, -1, Integer::sum);
            if (left <= 0) {
                closeDefault(bed, key);
            }
        }
    }

    private static void closeDefault(EmulatedTestbed bed, String key) {
        OPEN_CARDS.remove(bed);
        NUMBERS.remove(bed);
        if (DEFAULTS.get(key) == bed) {
            DEFAULTS.remove(key);
        }
        bed.close();
    }
}
