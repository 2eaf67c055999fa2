package io.nicbridge.sim.emu;

import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.bridge.spi.BackendProvider;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.Engines;
import io.nicbridge.sim.ethernet.EthernetMode;
import io.nicbridge.sim.ethernet.EthernetSegment;
import io.nicbridge.sim.sba200.Sba200Timing;
import io.nicbridge.sim.testbed.EmulatedTestbed;
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
 *               [&amp;seed=N][&amp;idle=spin|yield|park|park:NANOS|backoff][&amp;medium=ideal|hub|switched]
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
 *   <li>{@code medium} (21140 only, default {@code ideal}): how the segment shares its medium
 *       ({@link io.nicbridge.sim.ethernet.EthernetMode}); hub and switched need {@code mode=virtual}, the hub's
 *       backoff draws come from {@code seed}. The first card on a segment creates it with its medium; a later card
 *       asking for another medium on the same segment is an error.</li>
 *   <li>{@code ring} (Medusa only, default {@code fddi0}): Medusa cards opened with the same ring name in the same
 *       default testbed are stations of that FDDI ring (they join it when the driver sets CTRL.RING_JOIN).</li>
 * </ul>
 * {@link #testbed(Card)} gives the testbed of a card opened here, e.g. to run a virtual world's time.
 * Any other parameter is an error.
 */
public final class EmuBackendProvider implements BackendProvider {
    public static final String SCHEME = "emu";
    public static final String DEC21140 = "dec21140";
    /** {@code emu:sba200[?mode=..][&switch=NAME][&ports=N][&name=NAME][&seed=N][&idle=..]}: see {@link #sba200Placement}. */
    public static final String SBA200 = "sba200";
    public static final String MEDUSA = "medusa";
    private static final Set<String> SBA200_PARAMS = Set.of("mode", "switch", "ports", "name", "seed", "idle", "card");
    private static final Set<String> PARAMS = Set.of("mode", "wire", "mac", "name", "seed", "idle", "card", "ring",
        "medium");
    private static final String SBA200_NUMBERS = "seed and ports must be whole numbers";

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
        return List.of(DEC21140, SBA200, MEDUSA);
    }

    @Override
    public Availability availability() {
        return Availability.ok();
    }

    @Override
    public List<String> exampleSpecs() {
        return List.of("emu:dec21140", "emu:dec21140?mode=virtual&wire=lab&mac=02-00-00-00-00-01",
            "emu:sba200?mode=virtual&switch=asx0",
            "emu:medusa?mode=virtual&ring=fddi0&mac=02-00-00-00-00-01");
    }

    @Override
    public Card open(DeviceSpec spec) {
        boolean sba200 = SBA200.equals(spec.card());
        if (sba200) {
            checkParams(spec, SBA200_PARAMS, " card 'sba200'");
        } else {
            checkParams(spec, PARAMS, "");
            checkCardOnLink(spec);
        }
        EngineMode mode = Engines.parseMode(spec.param("mode", "inline"));
        long seed;
        try {
            seed = Long.parseLong(spec.param("seed", "0"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("device spec '" + spec + "': " + (sba200 ? SBA200_NUMBERS
                : "seed '" + spec.param("seed", "") + "' is not a whole number"));
        }
        IdleStrategy idle = IdleStrategy.parse(spec.param("idle", "backoff"));
        Placement placement = sba200 ? sba200Placement(spec) : linkPlacement(spec);
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
            String name = spec.param("name", spec.card() + "#" + (number - 1));
            EmulatedTestbed owner = bed;
            Card[] self = new Card[1];
            Card card;
            try {
                card = placement.open(bed, name, number, () -> released(owner, key, self[0]));
            } catch (RuntimeException e) {
                // The card that would have kept a fresh default testbed alive never came: do not leave it behind.
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

    /**
     * What differs between the cards once a spec is validated: how the card is put into its default testbed.
     * Each card kind builds one from its own parameters before the testbed lock is taken.
     */
    @FunctionalInterface
    private interface Placement {
        /**
         * @param number  the card's number in {@code bed}, from 1 (the default MAC's last byte)
         * @param release what closing the card must also run (the default-testbed bookkeeping)
         */
        Card open(EmulatedTestbed bed, String name, int number, Runnable release);
    }

    private static void checkParams(DeviceSpec spec, Set<String> allowed, String which) {
        for (String key : spec.params().keySet()) {
            if (!allowed.contains(key)) {
                throw new IllegalArgumentException("device spec '" + spec + "': backend 'emu'" + which
                    + " has no parameter '" + key + "'; it takes " + allowed);
            }
        }
    }

    /** A 21140 or a Medusa, and without the other's link parameter. */
    private void checkCardOnLink(DeviceSpec spec) {
        if (!DEC21140.equals(spec.card()) && !MEDUSA.equals(spec.card())) {
            throw new IllegalArgumentException("device spec '" + spec + "': backend 'emu' builds " + cards()
                + ", not '" + spec.card() + "'");
        }
        String link = MEDUSA.equals(spec.card()) ? "wire" : "ring";
        if (MEDUSA.equals(spec.card()) && spec.param("medium").isPresent()) {
            link = "medium";
        }
        if (spec.param(link).isPresent()) {
            throw new IllegalArgumentException("device spec '" + spec + "': parameter '" + link + "' does not apply to "
                + spec.card() + (MEDUSA.equals(spec.card()) ? " (a Medusa sits on an FDDI ring: use ring=NAME)"
                : " (a 21140 sits on an Ethernet segment: use wire=NAME)"));
        }
    }

    /** A 21140 on Ethernet segment {@code wire} or a Medusa on FDDI ring {@code ring}, with {@code mac}. */
    private static Placement linkPlacement(DeviceSpec spec) {
        // An explicit mac is checked here, before a default testbed is created for the card.
        Optional<byte[]> mac = spec.param("mac").map(EmulatedTestbed::parseMac);
        if (MEDUSA.equals(spec.card())) {
            String ringName = spec.param("ring", "fddi0");
            return (bed, name, number, release) ->
                bed.medusa(name, bed.fddiRing(ringName), mac.orElseGet(() -> defaultMac(number)), spec, release);
        }
        String wireName = spec.param("wire", "ether0");
        EthernetMode medium = EthernetMode.of(spec.param("medium", EthernetMode.IDEAL.label()));
        return (bed, name, number, release) -> bed.dec21140(name, segment(bed, wireName, medium, spec),
            mac.orElseGet(() -> defaultMac(number)), bed.cardTiming(), spec, release);
    }

    /** The testbed's segment {@code wireName}, created with {@code medium} by its first card. */
    private static EthernetSegment segment(EmulatedTestbed bed, String wireName, EthernetMode medium, DeviceSpec spec) {
        Optional<EthernetSegment> existing = bed.wire(wireName);
        if (existing.isEmpty()) {
            return bed.ethernet(wireName, b -> b.mode(medium).seed(bed.seed()));
        }
        if (existing.get().mode() != medium) {
            throw new IllegalArgumentException("device spec '" + spec + "': segment '" + wireName + "' is "
                + existing.get().mode().label() + ", not " + medium.label());
        }
        return existing.get();
    }

    /** {@code 02-00-00-00-00-NN}: locally administered, NN the card's number in its testbed. */
    private static byte[] defaultMac(int number) {
        return new byte[] {0x02, 0, 0, 0, 0, (byte) number};
    }

    /**
     * Opens an emulated SBA-200 with U-Net firmware on the ATM switch {@code switch} (default {@code asx0}, with
     * {@code ports} ports, default 8, when the first card creates it) of the default testbed of (mode, seed, idle),
     * like {@code dec21140} cards share an Ethernet segment. {@code name} defaults to {@code sba200#N}. The card's
     * one kernel driver is {@code testbed(card).atm(switch).kernel(card)} (never open a second one on it).
     */
    private static Placement sba200Placement(DeviceSpec spec) {
        int ports;
        try {
            ports = Integer.parseInt(spec.param("ports", "8"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("device spec '" + spec + "': " + SBA200_NUMBERS);
        }
        String switchName = spec.param("switch", "asx0");
        return (bed, name, number, release) -> bed.atm(switchName, b -> b.ports(ports))
            .addCard(name, Sba200Timing.I960_25MHZ, spec, release);
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
