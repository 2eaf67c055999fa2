package io.nicbridge.sim.testbed;

import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.sim.atm.AtmSwitch;
import io.nicbridge.sim.card.EmulatedCard;
import io.nicbridge.sim.dec21140.Dec21140Card;
import io.nicbridge.sim.dec21140.Dec21140Model;
import io.nicbridge.sim.dec21140.Dec21140Timing;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.Engines;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.ethernet.EthernetSegment;
import io.nicbridge.sim.ethernet.EthernetWire;
import io.nicbridge.sim.fddi.FddiRing;
import io.nicbridge.sim.medusa.MedusaCard;
import io.nicbridge.sim.medusa.MedusaModel;
import io.nicbridge.sim.sba200.Sba200Card;
import io.nicbridge.sim.sba200.Sba200Network;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One emulated world: an engine (inline, threaded or virtual time, with its time base), the Ethernet segments
 * in it, and the cards attached to them. Everything in a testbed shares one clock, so in virtual time the whole
 * testbed is one deterministic simulation.
 *
 * <pre>
 *   try (EmulatedTestbed bed = EmulatedTestbed.create(EngineMode.VIRTUAL, 42)) {
 *       EthernetSegment lab = bed.ethernet("lab", b -&gt; b.propagationNanos(500));
 *       Dec21140Card a = bed.dec21140("a", lab, "02:00:00:00:00:01");
 *       Dec21140Card b = bed.dec21140("b", lab, "02:00:00:00:00:02");
 *       ... drivers on a and b; bed.virtualEngine().runUntil(...) ...
 *   }                                   // closes cards, segments, engine
 * </pre>
 * Cards get {@link Dec21140Timing#PCI_33MHZ} in virtual time unless told otherwise, and no delays in real time.
 * Setup-time API: not for hot paths. Thread-safe (one lock).
 */
public final class EmulatedTestbed implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmulatedTestbed.class);

    private final DeviceEngine engine;
    private final long seed;
    private final Map<String, EthernetSegment> wires = new LinkedHashMap<>();
    private final Map<String, Dec21140Card> cards = new LinkedHashMap<>();
    private final Map<String, Sba200Network> atmNetworks = new LinkedHashMap<>();
    private final Map<String, FddiRing> rings = new LinkedHashMap<>();
    private final Map<String, MedusaCard> medusaCards = new LinkedHashMap<>();
    private Dec21140Timing cardTiming = Dec21140Timing.PCI_33MHZ;
    private boolean closed;

    private EmulatedTestbed(DeviceEngine engine, long seed) {
        this.engine = engine;
        engine.addFailureListener((model, cause) -> failCard(model.name(), cause));
        this.seed = seed;
    }

    /** A testbed on a new engine; threaded engines idle with {@link BackoffIdle}. */
    public static EmulatedTestbed create(EngineMode mode, long seed) {
        return create(mode, seed, new BackoffIdle());
    }

    /**
     * @param seed the virtual-time world's seed (real-time modes ignore it)
     * @param idle the idle strategy of threaded engine threads (others ignore it)
     */
    public static EmulatedTestbed create(EngineMode mode, long seed, IdleStrategy idle) {
        Objects.requireNonNull(mode, "mode");
        return new EmulatedTestbed(Engines.create(mode, seed, mode == EngineMode.THREADED ? idle : null), seed);
    }

    /** A testbed around an engine the caller built; the testbed closes it. */
    public static EmulatedTestbed on(DeviceEngine engine) {
        return new EmulatedTestbed(Objects.requireNonNull(engine, "engine"), 0);
    }

    public EngineMode mode() {
        return engine.mode();
    }

    public DeviceEngine engine() {
        return engine;
    }

    public TimeBase timeBase() {
        return engine.timeBase();
    }

    public long seed() {
        return seed;
    }

    /**
     * @return the virtual-time engine, to run simulated time
     * @throws IllegalStateException when this testbed runs in real time
     */
    public VirtualTimeEngine virtualEngine() {
        if (engine instanceof VirtualTimeEngine v) {
            return v;
        }
        throw new IllegalStateException("testbed runs in " + Engines.modeName(engine.mode())
            + " mode; only a virtual testbed has a virtual-time engine");
    }

    /** The delays that cards created from now on get in virtual time (default {@link Dec21140Timing#PCI_33MHZ}). */
    public synchronized EmulatedTestbed cardTiming(Dec21140Timing timing) {
        this.cardTiming = Objects.requireNonNull(timing, "timing");
        return this;
    }

    public synchronized Dec21140Timing cardTiming() {
        return cardTiming;
    }

    /** The segment called {@code name}, created with default settings if there is none yet. */
    public synchronized EthernetSegment ethernet(String name) {
        return existingOr(wires, name, () -> ethernet(name, b -> { }));
    }

    /**
     * Creates a segment; {@code options} adjusts its builder (propagation, bit rate, faults, capture).
     *
     * @throws IllegalArgumentException when a segment of that name exists
     */
    public synchronized EthernetSegment ethernet(String name, Consumer<EthernetSegment.Builder> options) {
        Objects.requireNonNull(options, "options");
        return addNamed(wires, "an Ethernet segment", name, () -> {
            EthernetSegment.Builder b = EthernetSegment.builder(engine.timeBase()).name(name);
            options.accept(b);
            return b.build();
        });
    }

    /** @return the segment called {@code name}, if any */
    public synchronized Optional<EthernetSegment> wire(String name) {
        return Optional.ofNullable(wires.get(name));
    }

    /** A 21140 named {@code name} on {@code wire}; MAC as text, e.g. {@code 02:00:00:00:00:01}. */
    public Dec21140Card dec21140(String name, EthernetWire wire, String macAddress) {
        return dec21140(name, wire, parseMac(macAddress));
    }

    public Dec21140Card dec21140(String name, EthernetWire wire, byte[] macAddress) {
        return dec21140(name, wire, macAddress, cardTiming());
    }

    /**
     * Creates a 21140, attaches it to this testbed's engine and to {@code wire}.
     *
     * @param virtualTiming the card's delays in virtual time (ignored in real time)
     * @throws IllegalArgumentException when a card of that name exists or the MAC is not 6 bytes
     */
    public Dec21140Card dec21140(String name, EthernetWire wire, byte[] macAddress, Dec21140Timing virtualTiming) {
        return dec21140(name, wire, macAddress, virtualTiming,
            DeviceSpec.parse("emu:dec21140?mode=" + Engines.modeName(engine.mode())), () -> { });
    }

    /**
     * As {@link #dec21140(String, EthernetWire, byte[], Dec21140Timing)}, for a backend that opens cards from specs
     * (the {@code emu} backend): the card reports {@code spec}, and {@code release} runs once after it is closed.
     */
    public synchronized Dec21140Card dec21140(String name, EthernetWire wire, byte[] macAddress,
                                       Dec21140Timing virtualTiming, DeviceSpec spec, Runnable release) {
        Objects.requireNonNull(wire, "wire");
        Dec21140Card card = addCard(cards, name, release, onClose -> {
            Dec21140Model model = new Dec21140Model(name, macAddress, engine.timeBase(), virtualTiming);
            model.attach(engine, wire);
            return new Dec21140Card(spec, model, onClose);
        });
        LOG.debug("testbed ({}): card {} on {} with MAC {}", Engines.modeName(engine.mode()), name, wire,
            formatMac(macAddress));
        return card;
    }

    /**
     * The ATM network called {@code name} (an ATM switch, its network service, and the SBA-200s on its ports),
     * created with {@code switchOptions} (ports, propagation, cell faults) the first time it is asked for.
     */
    public synchronized Sba200Network atm(String name, Consumer<AtmSwitch.Builder> switchOptions) {
        checkOpen();
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(switchOptions, "switchOptions");
        Sba200Network n = atmNetworks.get(name);
        if (n == null) {
            n = Sba200Network.create(engine, b -> switchOptions.accept(b.name(name)));
            atmNetworks.put(name, n);
        }
        return n;
    }

    /** The ATM network called {@code name}, with an 8-port switch if it is new. */
    public Sba200Network atm(String name) {
        return atm(name, b -> b.ports(8));
    }

    /** An emulated SBA-200 with U-Net firmware called {@code name} on the next free port of {@code network}. */
    public Sba200Card sba200(String name, Sba200Network network) {
        checkOpen();
        return network.addCard(name);
    }

    // ------------------------------------------------------------------ FDDI rings and Medusa cards

    /** The FDDI ring called {@code name}, created with default settings if there is none yet. */
    public synchronized FddiRing fddiRing(String name) {
        return existingOr(rings, name, () -> fddiRing(name, b -> { }));
    }

    /**
     * Creates an FDDI ring; {@code options} adjusts its builder (latencies, faults, capture).
     *
     * @throws IllegalArgumentException when a ring of that name exists
     */
    public synchronized FddiRing fddiRing(String name, Consumer<FddiRing.Builder> options) {
        Objects.requireNonNull(options, "options");
        return addNamed(rings, "an FDDI ring", name, () -> {
            FddiRing.Builder b = FddiRing.builder(engine.timeBase()).name(name);
            options.accept(b);
            return b.build();
        });
    }

    /** @return the ring called {@code name}, if any */
    public synchronized Optional<FddiRing> ring(String name) {
        return Optional.ofNullable(rings.get(name));
    }

    /** A Medusa FDDI card named {@code name} on {@code ring}; address as text, e.g. {@code 02:00:00:00:00:01}. */
    public MedusaCard medusa(String name, FddiRing ring, String macAddress) {
        return medusa(name, ring, parseMac(macAddress));
    }

    /**
     * Creates a Medusa, attaches it to this testbed's engine and to {@code ring} (bypassed until the driver sets
     * CTRL.RING_JOIN).
     *
     * @throws IllegalArgumentException when a card of that name exists or the address is not 6 bytes
     */
    public MedusaCard medusa(String name, FddiRing ring, byte[] macAddress) {
        return medusa(name, ring, macAddress, DeviceSpec.parse("emu:medusa?mode=" + Engines.modeName(engine.mode())),
            () -> { });
    }

    /**
     * As {@link #medusa(String, FddiRing, byte[])}, for a backend that opens cards from specs (the {@code emu}
     * backend): the card reports {@code spec}, and {@code release} runs once after it is closed.
     */
    public synchronized MedusaCard medusa(String name, FddiRing ring, byte[] macAddress, DeviceSpec spec,
                                          Runnable release) {
        Objects.requireNonNull(ring, "ring");
        MedusaCard card = addCard(medusaCards, name, release, onClose -> {
            MedusaModel model = new MedusaModel(name, macAddress, engine.timeBase());
            model.attach(engine, ring);
            return new MedusaCard(spec, model, onClose);
        });
        LOG.debug("testbed ({}): Medusa {} on ring {} with address {}", Engines.modeName(engine.mode()), name,
            ring.name(), formatMac(macAddress));
        return card;
    }

    /** @return the open Medusa cards, in creation order */
    public synchronized List<MedusaCard> medusaCards() {
        return List.copyOf(medusaCards.values());
    }

    /** @return the open cards, in creation order */
    public synchronized List<Dec21140Card> cards() {
        return List.copyOf(cards.values());
    }

    /** Closes every card, segment and the engine. Idempotent. */
    @Override
    public void close() {
        List<Dec21140Card> toClose;
        List<EthernetSegment> segments;
        List<Sba200Network> networks;
        List<MedusaCard> medusaToClose;
        List<FddiRing> ringsToClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            networks = new ArrayList<>(atmNetworks.values());
            toClose = new ArrayList<>(cards.values());
            segments = new ArrayList<>(wires.values());
            medusaToClose = new ArrayList<>(medusaCards.values());
            ringsToClose = new ArrayList<>(rings.values());
        }
        for (Dec21140Card c : toClose) {
            c.close();
        }
        for (MedusaCard c : medusaToClose) {
            c.close();
        }
        for (EthernetSegment w : segments) {
            w.close();
        }
        for (Sba200Network n : networks) {
            n.close();
        }
        for (FddiRing r : ringsToClose) {
            r.close();
        }
        engine.close();
    }

    public synchronized boolean isClosed() {
        return closed;
    }

    /**
     * A threaded engine's model stopped on {@code cause}: fail the card of that name, so its drivers throw at their next
     * call. Runs on the dying engine thread; the lock is held only to look the card up (close never holds it while it
     * joins the engine).
     */
    private void failCard(String modelName, Throwable cause) {
        EmulatedCard card;
        List<Sba200Network> networks;
        synchronized (this) {
            card = cards.containsKey(modelName) ? cards.get(modelName) : medusaCards.get(modelName);
            networks = List.copyOf(atmNetworks.values());
        }
        for (int i = 0; card == null && i < networks.size(); i++) {
            for (Sba200Card c : networks.get(i).cards()) {
                if (c.name().equals(modelName)) {
                    card = c;
                }
            }
        }
        if (card != null) {
            card.fail(cause);
        }
    }

    /** @return the entry called {@code name} in {@code registry}, or the one {@code create} adds (lock held) */
    private <T> T existingOr(Map<String, T> registry, String name, Supplier<T> create) {
        checkOpen();
        T t = registry.get(Objects.requireNonNull(name, "name"));
        return t != null ? t : create.get();
    }

    /**
     * Builds a segment or ring and files it under {@code name} (lock held).
     *
     * @param what the kind with its article, for the message: "an FDDI ring"
     * @throws IllegalArgumentException when {@code registry} has that name already
     */
    private <T> T addNamed(Map<String, T> registry, String what, String name, Supplier<T> build) {
        checkOpen();
        Objects.requireNonNull(name, "name");
        if (registry.containsKey(name)) {
            throw new IllegalArgumentException("testbed already has " + what + " named '" + name + "'");
        }
        T t = build.get();
        registry.put(name, t);
        return t;
    }

    /**
     * Builds a card and files it under {@code name} in {@code registry} (lock held); card names are unique across
     * kinds. {@code build} gets what the card must run once it is closed: remove it from the registry, then
     * {@code release}.
     *
     * @throws IllegalArgumentException when a card of that name exists
     */
    private <C extends EmulatedCard> C addCard(Map<String, C> registry, String name, Runnable release,
                                               Function<Runnable, C> build) {
        checkOpen();
        Objects.requireNonNull(name, "name");
        if (cards.containsKey(name) || medusaCards.containsKey(name)) {
            throw new IllegalArgumentException("testbed already has a card named '" + name + "'");
        }
        C card = build.apply(() -> {
            synchronized (this) {
                registry.remove(name);
            }
            release.run();
        });
        registry.put(name, card);
        return card;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("testbed is closed");
        }
    }

    /**
     * Parses a MAC address: six hex bytes separated by ':' or '-' (device specs cannot carry ':'), or 12 hex digits.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static byte[] parseMac(String text) {
        Objects.requireNonNull(text, "text");
        String t = text.trim();
        String[] parts = t.contains(":") ? t.split(":", -1) : t.contains("-") ? t.split("-", -1) : null;
        byte[] mac = new byte[6];
        try {
            if (parts == null) {
                if (t.length() != 12) {
                    throw new IllegalArgumentException("MAC address '" + text
                        + "' must be six hex bytes like 02:00:00:00:00:01, 02-00-00-00-00-01 or 020000000001");
                }
                for (int i = 0; i < 6; i++) {
                    mac[i] = (byte) Integer.parseInt(t.substring(2 * i, 2 * i + 2), 16);
                }
                return mac;
            }
            if (parts.length != 6) {
                throw new IllegalArgumentException("MAC address '" + text + "' has " + parts.length
                    + " parts; it needs six hex bytes like 02:00:00:00:00:01");
            }
            for (int i = 0; i < 6; i++) {
                if (parts[i].isEmpty() || parts[i].length() > 2) {
                    throw new IllegalArgumentException("MAC address '" + text + "': part '" + parts[i]
                        + "' is not one hex byte");
                }
                mac[i] = (byte) Integer.parseInt(parts[i], 16);
            }
            return mac;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("MAC address '" + text + "' contains a non-hex digit");
        }
    }

    /** @return {@code xx:xx:xx:xx:xx:xx}, lower case */
    public static String formatMac(byte[] mac) {
        StringBuilder sb = new StringBuilder(17);
        for (int i = 0; i < mac.length; i++) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(Character.forDigit((mac[i] >>> 4) & 0xF, 16)).append(Character.forDigit(mac[i] & 0xF, 16));
        }
        return sb.toString();
    }

    @Override
    public synchronized String toString() {
        return "EmulatedTestbed[" + Engines.modeName(engine.mode()) + ", wires " + wires.keySet() + ", cards "
            + cards.keySet() + ", rings " + rings.keySet() + ", Medusa cards " + medusaCards.keySet() + "]";
    }
}
