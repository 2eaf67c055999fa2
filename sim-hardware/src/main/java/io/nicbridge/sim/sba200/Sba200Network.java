package io.nicbridge.sim.sba200;

import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.driver.unet.UnetSignalling;
import io.nicbridge.sim.atm.AtmNetworkService;
import io.nicbridge.sim.atm.AtmPath;
import io.nicbridge.sim.atm.AtmSwitch;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.Engines;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An emulated U-Net ATM cluster on one engine: an {@link AtmSwitch} with its {@link AtmNetworkService}, and
 * SBA-200 cards plugged into its ports, each driven by exactly one bridge {@link UnetKernelDriver} (opened here, on
 * the card's board RAM and BCR, with the engine as its progress hook). The network is also the drivers'
 * {@link UnetSignalling}: it maps a driver to its card's switch port and asks the network service for the path.
 *
 * <pre>
 *   try (Sba200Network net = Sba200Network.create(engine, sw -&gt; sw.ports(2))) {
 *       Sba200Card a = net.addCard("a"), b = net.addCard("b");
 *       UnetEndpoint ea = net.kernel(a).createEndpoint(segA, 64), eb = net.kernel(b).createEndpoint(segB, 64);
 *       UnetKernelDriver.Connection c = net.connect(a, ea, b, eb);   // channel c.channelA() on ea, c.channelB() on eb
 *   }
 * </pre>
 * Cards get {@link Sba200Timing#I960_25MHZ} unless told otherwise. The engine is the caller's (not closed here).
 * Setup-time API; thread-safe.
 */
public final class Sba200Network implements UnetSignalling, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Sba200Network.class);

    private final DeviceEngine engine;
    private final AtmSwitch atmSwitch;
    private final AtmNetworkService network;
    private final List<Sba200Card> cards = new ArrayList<>();
    private final List<UnetKernelDriver> kernels = new ArrayList<>();
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

    /**
     * What a host driver runs while it waits for a card on {@code engine}: an inline engine's poll (the card works
     * on the waiting thread), one event of a virtual engine (so a kernel command completes in simulated time, after
     * the card's poll latency), nothing for a threaded engine (its card threads work; the driver backs off).
     */
    public static Runnable driverProgress(DeviceEngine engine) {
        return engine instanceof VirtualTimeEngine v ? v::step : engine::poll;
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
        Sba200Model model = new Sba200Model(name, engine.timeBase(), Sba200Model.newDmaSpace(name + ".dma"),
            cardTiming);
        AtmSwitch.Port port = atmSwitch.connect(model);
        model.attach(engine, port.uplink());
        Sba200Card card = new Sba200Card(spec, model, port.number(), release);
        UnetKernelDriver kernel;
        try {
            kernel = UnetKernelDriver.open(card, card.bcr(), driverProgress(engine));
            if (engine instanceof VirtualTimeEngine) {
                kernel.timeOn(engine.timeBase()); // timeouts in virtual time (issue 16)
            }
        } catch (RuntimeException e) {
            card.close();
            throw e;
        }
        cards.add(card);
        kernels.add(kernel);
        return card;
    }

    /** The kernel driver of {@code card}: the only one that may drive it. */
    public synchronized UnetKernelDriver kernel(Sba200Card card) {
        int i = cards.indexOf(card);
        if (i < 0) {
            throw new IllegalArgumentException(card + " is not a card of this network");
        }
        return kernels.get(i);
    }

    /** Opens a channel between endpoint {@code ea} of card {@code a} and {@code eb} of card {@code b}. */
    public UnetKernelDriver.Connection connect(Sba200Card a, UnetEndpoint ea, Sba200Card b, UnetEndpoint eb) {
        return UnetKernelDriver.connect(this, kernel(a), ea, kernel(b), eb);
    }

    /** {@link UnetSignalling}: the path between the switch ports of the two drivers' cards. */
    @Override
    public AtmPath connect(UnetKernelDriver a, UnetKernelDriver b) {
        return network.connect(portOf(a), portOf(b));
    }

    @Override
    public void disconnect(Path path) {
        if (!(path instanceof AtmPath p)) {
            throw new IllegalArgumentException(path + " is not a path of switch " + atmSwitch.name());
        }
        network.disconnect(p);
    }

    private synchronized int portOf(UnetKernelDriver kernel) {
        int i = kernels.indexOf(Objects.requireNonNull(kernel, "kernel"));
        if (i < 0) {
            throw new IllegalArgumentException(kernel.name() + " drives no card of switch " + atmSwitch.name());
        }
        return cards.get(i).port();
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

    /** Closes every kernel driver (destroying its endpoints), then every card. */
    @Override
    public synchronized void close() {
        for (UnetKernelDriver k : kernels) {
            try {
                k.close();
            } catch (RuntimeException e) {
                LOG.warn("{}: {}", k.name(), e.toString()); // e.g. its card was closed first; the card goes below
            }
        }
        for (Sba200Card c : cards) {
            c.close();
        }
    }
}
