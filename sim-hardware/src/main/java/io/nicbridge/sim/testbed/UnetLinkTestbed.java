package io.nicbridge.sim.testbed;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.driver.unet.UnetLink;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.sim.atm.AtmSwitch;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.Engines;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.sba200.Sba200Card;
import io.nicbridge.sim.sba200.Sba200Network;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * N emulated SBA-200s on one ATM switch as N {@link UnetLink}s, the medium a protocol core runs over: each card
 * has one endpoint, and every pair of endpoints one duplex channel, set up the privileged way (the network service
 * allocates the VCIs and programs the switch, each host's kernel driver registers its side with CH_OPEN). Node i's
 * link names node j by the channel to j.
 *
 * <pre>
 *   node 0: card 0, endpoint 0, channels to 1..N-1 --+
 *   node 1: card 1, endpoint 0, channels to 0, 2.. --+-- [ATM switch, one port per card] (faults per port)
 *   ...                                             --+
 * </pre>
 *
 * How each engine mode drives the cards: in virtual time the cards' events are the {@link VirtualTimeBase}'s (a
 * runner shares it: {@link #virtualTimeBase()}), and each link gets a writable probe on it; inline, each link's poll
 * polls the engine (no card threads); threaded, the card threads work on their own. Setup-time object; close it to
 * free everything.
 */
public final class UnetLinkTestbed implements AutoCloseable {
    private final DeviceEngine engine;
    private final Sba200Network network;
    private final Sba200Card[] cards;
    private final CommSegment[] segments;
    private final UnetEndpoint[] endpoints;
    private final UnetLink[] links;
    private final long linkArea;

    private UnetLinkTestbed(Builder o) {
        int n = o.nodes;
        this.engine = Engines.create(Engines.modeName(o.mode), o.seed, o.idle);
        cards = new Sba200Card[n];
        segments = new CommSegment[n];
        endpoints = new UnetEndpoint[n];
        links = new UnetLink[n];
        Sba200Network net = null;
        try {
            net = Sba200Network.create(engine, sw -> {
                sw.ports(n);
                o.switchOptions.accept(sw);
            }).timing(o.timing);
            this.network = net;
            long area = (long) ((o.mtu + 63) & -64) * (o.txBuffers + o.rxBuffers);
            this.linkArea = area;
            int[][] channels = new int[n][n];
            for (int i = 0; i < n; i++) {
                cards[i] = net.addCard("card" + i);
                segments[i] = CommSegment.allocate("node" + i + " segment", area + o.extraSegment);
                endpoints[i] = net.kernel(cards[i]).createEndpoint(0, segments[i], o.rqLen);
            }
            for (int i = 0; i < n; i++) {
                for (int j = i + 1; j < n; j++) {
                    UnetKernelDriver.Connection c = net.connect(cards[i], endpoints[i], cards[j], endpoints[j]);
                    channels[i][j] = c.channelA();
                    channels[j][i] = c.channelB();
                }
            }
            for (int i = 0; i < n; i++) {
                UnetLink l = new UnetLink("unet" + i, endpoints[i], i, channels[i], 0, o.mtu, o.txBuffers, o.rxBuffers);
                if (engine instanceof VirtualTimeEngine v) {
                    l.writableProbe(v.timeBase(), o.probeNanos);
                } else if (o.mode == EngineMode.INLINE) {
                    l.progress(engine::poll);
                }
                links[i] = l;
            }
            if (o.watchdogNanos > 0) {
                if (!(engine instanceof VirtualTimeEngine v)) {
                    throw new IllegalStateException("watchdog(" + o.watchdogNanos + ") on the virtual clock needs"
                            + " EngineMode.VIRTUAL; in real time install UnetKernelDriver.watchdog on the node's"
                            + " scheduler");
                }
                for (Sba200Card c : cards) {
                    net.kernel(c).watchdog(v.timeBase(), o.watchdogNanos);
                }
            }
        } catch (RuntimeException e) {
            closeAll(net);
            throw e;
        }
    }

    /**
     * @return the bytes each link takes from the start of its endpoint's segment (64-byte aligned): what lies beyond,
     *     {@link Builder#extraSegment} bytes, is the application's (e.g. its shared send buffers)
     */
    public long linkArea() {
        return linkArea;
    }

    public static Builder builder(EngineMode mode) {
        return new Builder(mode);
    }

    /** @return node {@code i}'s link */
    public UnetLink link(int i) {
        return links[i];
    }

    /** @return every node's link, in node order (a runner's input) */
    public UnetLink[] links() {
        return links.clone();
    }

    public int nodes() {
        return links.length;
    }

    public DeviceEngine engine() {
        return engine;
    }

    /** The world's clock and scheduler, which a virtual-time runner shares; an exception in real time. */
    public VirtualTimeBase virtualTimeBase() {
        if (engine instanceof VirtualTimeEngine v) {
            return v.timeBase();
        }
        throw new IllegalStateException("the testbed runs in " + Engines.modeName(engine.mode()) + " mode");
    }

    /** The engine's time base as a bridge scheduler (virtual or real). */
    public Scheduler scheduler() {
        return engine.timeBase();
    }

    public Sba200Network network() {
        return network;
    }

    public Sba200Card card(int i) {
        return cards[i];
    }

    public UnetEndpoint endpoint(int i) {
        return endpoints[i];
    }

    /** Node {@code i}'s kernel driver. */
    public UnetKernelDriver kernel(int i) {
        return network.kernel(cards[i]);
    }

    /**
     * Injects a card reset into node {@code i}'s SBA-200: its i960 firmware restarts and forgets every endpoint and
     * channel ({@link io.nicbridge.sim.sba200.Sba200Model#hardwareReset}); the node's kernel driver finds it with its
     * firmware watchdog ({@link Builder#watchdog}) and re-creates them. In virtual time call it from the world's
     * thread (a timer, or between runs).
     */
    public void resetCard(int i) {
        cards[i].hardwareReset();
    }

    @Override
    public void close() {
        closeAll(network);
    }

    private void closeAll(Sba200Network net) {
        for (UnetLink l : links) {
            if (l != null) {
                l.close();
            }
        }
        if (net != null) {
            net.close(); // kernel drivers first (destroying the endpoints), then the cards
        }
        engine.close();
        for (CommSegment s : segments) {
            if (s != null) {
                s.close();
            }
        }
    }

    public static final class Builder {
        private final EngineMode mode;
        private int nodes = 2;
        private long seed = 1;
        private String idle = "backoff";
        private Sba200Timing timing = Sba200Timing.I960_25MHZ;
        private int rqLen = 64;
        private int mtu = 256;
        private long extraSegment;
        private int txBuffers = 16;
        private int rxBuffers = 48;
        private long probeNanos = 20_000;
        private Consumer<AtmSwitch.Builder> switchOptions = sw -> { };
        private long watchdogNanos;

        private Builder(EngineMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
        }

        /** Nodes, one card each: 2 .. 32. */
        public Builder nodes(int nodes) {
            if (nodes < 2 || nodes > 32) {
                throw new IllegalArgumentException("nodes must be in [2, 32], was " + nodes);
            }
            this.nodes = nodes;
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Threaded engines: the card threads' idle strategy ({@code spin}, {@code yield}, {@code park}, {@code backoff}). */
        public Builder idle(String idle) {
            this.idle = Objects.requireNonNull(idle, "idle");
            return this;
        }

        public Builder timing(Sba200Timing timing) {
            this.timing = Objects.requireNonNull(timing, "timing");
            return this;
        }

        public Builder receiveQueue(int rqLen) {
            this.rqLen = rqLen;
            return this;
        }

        /** Bytes of each endpoint's segment beyond the link's buffers, from {@link #linkArea()} on (default 0). */
        public Builder extraSegment(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("extraSegment must be >= 0, was " + bytes);
            }
            this.extraSegment = bytes;
            return this;
        }

        /** The links' mtu, TX buffers and receive buffers (see {@link UnetLink}). */
        public Builder buffers(int mtu, int txBuffers, int rxBuffers) {
            this.mtu = mtu;
            this.txBuffers = txBuffers;
            this.rxBuffers = rxBuffers;
            return this;
        }

        /** Virtual time: the links' writable probe interval. */
        public Builder probeNanos(long nanos) {
            this.probeNanos = nanos;
            return this;
        }

        /** Extra switch options (faults per port, propagation); the testbed sets one port per node. */
        public Builder switchOptions(Consumer<AtmSwitch.Builder> options) {
            this.switchOptions = Objects.requireNonNull(options, "options");
            return this;
        }

        /**
         * Installs every kernel driver's firmware watchdog ({@link UnetKernelDriver#watchdog}) on the virtual clock
         * with this period, so card resets ({@link #resetCard}) are found and recovered from. Virtual mode only. The
         * world then never runs idle (the check is periodic).
         */
        public Builder watchdog(long periodNanos) {
            if (periodNanos <= 0) {
                throw new IllegalArgumentException("watchdog periodNanos must be > 0, was " + periodNanos);
            }
            this.watchdogNanos = periodNanos;
            return this;
        }

        public UnetLinkTestbed build() {
            return new UnetLinkTestbed(this);
        }
    }
}
