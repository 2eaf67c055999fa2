package io.nicbridge.sim.testbed;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.sim.atm.AtmPath;
import io.nicbridge.sim.atm.AtmSwitch;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.Engines;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.sba200.Sba200Card;
import io.nicbridge.sim.sba200.Sba200Network;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Two emulated SBA-200s on an ATM switch, each driven by its one bridge {@link UnetKernelDriver} (the network's,
 * {@link Sba200Network#kernel}), with one endpoint each ({@link #a()}, {@link #b()}) and one duplex channel between
 * them ({@link #CHANNEL} on both sides), set up the privileged way: the network service allocates the VCI pair and
 * programs the switch, then each host's kernel driver registers its side with CH_OPEN
 * ({@link UnetKernelDriver#connect}).
 *
 * <pre>
 *   endpoint a (card a, ep 0) --uplink--&gt; [switch] --downlink--&gt; card b (ep 0) endpoint b
 *                             &lt;-downlink-          &lt;--uplink---
 * </pre>
 *
 * <p>The drivers' progress hook runs the engine: {@code poll()} for inline/threaded engines, one event for a
 * virtual one (so kernel commands complete in simulated time). Setup-time object; close it to free everything.
 */
public final class UnetApiTestbed implements AutoCloseable {
    /** The channel number used on both endpoints. */
    public static final int CHANNEL = 0;

    private final DeviceEngine engine;
    private final Sba200Network network;
    private final Sba200Card cardA;
    private final Sba200Card cardB;
    private final UnetKernelDriver kernelA;
    private final UnetKernelDriver kernelB;
    private final CommSegment segmentA;
    private final CommSegment segmentB;
    private final UnetEndpoint a;
    private final UnetEndpoint b;
    private final AtmPath path;

    private UnetApiTestbed(Builder o) {
        this.engine = Engines.create(Engines.modeName(o.mode), o.seed, o.idle);
        Sba200Network net = null;
        try {
            net = Sba200Network.create(engine, sw -> {
                sw.ports(2);
                o.switchOptions.accept(sw);
            }).timing(o.timing);
            this.network = net;
            this.cardA = net.addCard("a");
            this.cardB = net.addCard("b");
            this.kernelA = net.kernel(cardA);
            this.kernelB = net.kernel(cardB);
            this.segmentA = CommSegment.allocate("a segment", o.segmentBytes);
            this.segmentB = CommSegment.allocate("b segment", o.segmentBytes);
            this.a = kernelA.createEndpoint(0, segmentA, o.rqLen);
            this.b = kernelB.createEndpoint(0, segmentB, o.rqLen);
            UnetKernelDriver.Connection c = net.connect(cardA, a, cardB, b);
            if (c.channelA() != CHANNEL || c.channelB() != CHANNEL) {
                throw new IllegalStateException("fresh endpoints got channels " + c.channelA() + "/" + c.channelB());
            }
            this.path = (AtmPath) c.path();
        } catch (RuntimeException e) {
            if (net != null) {
                net.close();
            }
            engine.close();
            throw e;
        }
    }

    public static Builder builder(EngineMode mode) {
        return new Builder(mode);
    }

    public DeviceEngine engine() {
        return engine;
    }

    /** The virtual engine, or an exception when the testbed runs in real time. */
    public VirtualTimeEngine virtualEngine() {
        if (engine instanceof VirtualTimeEngine v) {
            return v;
        }
        throw new IllegalStateException("the testbed runs in " + Engines.modeName(engine.mode()) + " mode");
    }

    public Sba200Network network() {
        return network;
    }

    public Sba200Card cardA() {
        return cardA;
    }

    public Sba200Card cardB() {
        return cardB;
    }

    public UnetKernelDriver kernelA() {
        return kernelA;
    }

    public UnetKernelDriver kernelB() {
        return kernelB;
    }

    public UnetEndpoint a() {
        return a;
    }

    public UnetEndpoint b() {
        return b;
    }

    public AtmPath path() {
        return path;
    }

    /** Cell time of the fibers, picoseconds. */
    public long cellTimePicos() {
        return network.atmSwitch().uplink(cardA.port()).cellTimePicos();
    }

    /** Propagation of one fiber, nanoseconds. */
    public long propagationNanos() {
        return network.atmSwitch().uplink(cardA.port()).propagationNanos();
    }

    public Sba200Timing timing() {
        return cardA.model().timing();
    }

    @Override
    public void close() {
        network.close(); // the kernel drivers first (destroying the endpoints), then the cards
        engine.close();
        segmentA.close();
        segmentB.close();
    }

    public static final class Builder {
        private final EngineMode mode;
        private long seed = 1;
        private String idle = "backoff";
        private Sba200Timing timing = Sba200Timing.I960_25MHZ;
        private int rqLen = 64;
        private long segmentBytes = 256 * 1024;
        private Consumer<AtmSwitch.Builder> switchOptions = sw -> { };

        private Builder(EngineMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
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

        public Builder segmentBytes(long bytes) {
            this.segmentBytes = bytes;
            return this;
        }

        /** Extra switch options (faults, propagation); the testbed sets two ports. */
        public Builder switchOptions(Consumer<AtmSwitch.Builder> options) {
            this.switchOptions = Objects.requireNonNull(options, "options");
            return this;
        }

        public UnetApiTestbed build() {
            return new UnetApiTestbed(this);
        }
    }
}
