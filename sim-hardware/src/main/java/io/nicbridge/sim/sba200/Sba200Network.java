package io.nicbridge.sim.sba200;

import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.sim.atm.AtmNetworkService;
import io.nicbridge.sim.atm.AtmSwitch;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.Engines;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * An emulated U-Net ATM cluster on one engine: an {@link AtmSwitch} with its {@link AtmNetworkService}, and
 * SBA-200 cards plugged into its ports, each with its {@link UnetKernel}.
 *
 * <pre>
 *   try (Sba200Network net = Sba200Network.create(engine, sw -&gt; sw.ports(2))) {
 *       Sba200Card a = net.addCard("a"), b = net.addCard("b");
 *       Sba200Endpoint ea = net.kernel(a).createEndpoint(segA, 64), eb = net.kernel(b).createEndpoint(segB, 64);
 *       UnetKernel.Connection c = net.connect(a, ea, b, eb);     // channel c.channelA() on ea, c.channelB() on eb
 *   }
 * </pre>
 * Cards get {@link Sba200Timing#I960_25MHZ} unless told otherwise. The engine is the caller's (not closed here).
 * Setup-time API; thread-safe.
 */
public final class Sba200Network implements AutoCloseable {
    private final DeviceEngine engine;
    private final AtmSwitch atmSwitch;
    private final AtmNetworkService network;
    private final List<Sba200Card> cards = new ArrayList<>();
    private final List<UnetKernel> kernels = new ArrayList<>();
    private Sba200Timing timing = Sba200Timing.I960_25MHZ;

    private Sba200Network(DeviceEngine engine, AtmSwitch atmSwitch) {
        this.engine = engine;
        this.atmSwitch = atmSwitch;
        this.network = new AtmNetworkService(atmSwitch);
    }

    /** A network whose switch is configured by {@code switchOptions} (ports, propagation, faults). */
    public static Sba200Network create(DeviceEngine engine, Consumer<AtmSwitch.Builder> switchOptions) {
        Objects.requireNonNull(engine, "engine");
        AtmSwitch.Builder b = AtmSwitch.builder(engine.timeBase());
        switchOptions.accept(b);
        AtmSwitch sw = b.build();
        sw.attach(engine);
        return new Sba200Network(engine, sw);
    }

    /** Timing of cards added from now on (virtual time only). */
    public synchronized Sba200Network timing(Sba200Timing timing) {
        this.timing = Objects.requireNonNull(timing, "timing");
        return this;
    }

    public synchronized Sba200Card addCard(String name) {
        return addCard(name, timing);
    }

    /** A new SBA-200 on the switch's next free port, with its own DMA space and kernel driver. */
    public Sba200Card addCard(String name, Sba200Timing cardTiming) {
        return addCard(name, cardTiming, DeviceSpec.parse("emu:sba200?mode=" + Engines.modeName(engine.mode())),
            () -> { });
    }

    /**
     * As {@link #addCard(String, Sba200Timing)}, for a backend that opened the card from {@code spec}.
     *
     * @param release what else closing the card frees; runs once, after the card is closed
     */
    public synchronized Sba200Card addCard(String name, Sba200Timing cardTiming, DeviceSpec spec, Runnable release) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(cardTiming, "cardTiming");
        for (Sba200Card c : cards) {
            if (c.name().equals(name)) {
                throw new IllegalArgumentException("network already has a card named '" + name + "'");
            }
        }
        Sba200Model model = new Sba200Model(name, engine.timeBase(), Sba200Model.newDmaSpace(name + ".dma"), cardTiming);
        AtmSwitch.Port port = atmSwitch.connect(model);
        model.attach(engine, port.uplink());
        Sba200Card card = new Sba200Card(spec, model, port.number(), release);
        cards.add(card);
        kernels.add(new UnetKernel(card, engine));
        return card;
    }

    /** The kernel driver of {@code card}. */
    public synchronized UnetKernel kernel(Sba200Card card) {
        int i = cards.indexOf(card);
        if (i < 0) {
            throw new IllegalArgumentException(card + " is not a card of this network");
        }
        return kernels.get(i);
    }

    /** Opens a channel between endpoint {@code ea} of card {@code a} and {@code eb} of card {@code b}. */
    public UnetKernel.Connection connect(Sba200Card a, Sba200Endpoint ea, Sba200Card b, Sba200Endpoint eb) {
        return UnetKernel.connect(network, kernel(a), ea, kernel(b), eb);
    }

    public AtmSwitch atmSwitch() {
        return atmSwitch;
    }

    public AtmNetworkService network() {
        return network;
    }

    public DeviceEngine engine() {
        return engine;
    }

    public synchronized List<Sba200Card> cards() {
        return List.copyOf(cards);
    }

    @Override
    public synchronized void close() {
        for (Sba200Card c : cards) {
            c.close();
        }
    }
}
