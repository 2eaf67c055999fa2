package io.nicbridge.sim.backends;

import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimCard;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.sim.dec21140.Dec21140Timing;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.InlineEngine;
import io.nicbridge.sim.engine.ThreadedEngine;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.ethernet.EthernetSegment;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.io.IOException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Two 21140 cards that hear each other, with no driver on them, for {@link LinuxTulip}: on the emulator (inline,
 * threaded or virtual time, one simulated segment) or on the native shim (threaded or inline cards over a veth
 * pair), and the means to let time pass there: {@link #runUntil} waits (virtual time: simulated), calling its
 * condition over and over, which is where the tests run their drivers' interrupt handlers.
 */
abstract class LinuxWorld implements AutoCloseable {
    /** The backends the Linux-sequence scenario runs on. */
    enum Backend {
        EMU_INLINE, EMU_THREADED, EMU_VIRTUAL, SHIM_THREADED, SHIM_INLINE, SHIM_AFXDP_THREADED, SHIM_AFXDP_INLINE;

        LinuxWorld open() {
            return open(Dec21140Timing.PCI_33MHZ);
        }

        /** @param virtualTiming the emulated cards' bus in virtual time (the other backends have their own) */
        LinuxWorld open(Dec21140Timing virtualTiming) {
            return switch (this) {
                case EMU_INLINE -> new Emulated(EngineMode.INLINE, virtualTiming);
                case EMU_THREADED -> new Emulated(EngineMode.THREADED, virtualTiming);
                case EMU_VIRTUAL -> new Emulated(EngineMode.VIRTUAL, virtualTiming);
                case SHIM_THREADED -> {
                    TulipBackend.assumeShim();
                    yield new Shim("threaded");
                }
                case SHIM_INLINE -> {
                    TulipBackend.assumeShim();
                    yield new Shim("inline");
                }
                case SHIM_AFXDP_THREADED -> {
                    TulipBackend.assumeXdp();
                    yield new Shim("afxdp", "threaded");
                }
                case SHIM_AFXDP_INLINE -> {
                    TulipBackend.assumeXdp();
                    yield new Shim("afxdp", "inline");
                }
            };
        }
    }

    abstract Card card(int i);

    /** Whether time is simulated (then waiting costs nothing, and Linux's real delays can be honoured). */
    abstract boolean isVirtual();

    /** Unplugs card {@code i}'s cable ({@code plugged} false), or plugs it back. */
    abstract void plug(int i, boolean plugged);

    /** Lets the cards work once (their threads run by themselves; inline ones are polled here). */
    abstract void idle();

    /**
     * Lets time pass until {@code condition} holds, at most {@code timeoutNanos} (simulated in virtual time).
     *
     * @return whether it holds
     */
    abstract boolean runUntil(BooleanSupplier condition, long timeoutNanos);

    /** Lets {@code nanos} pass, the cards working meanwhile. */
    void pass(long nanos) {
        runUntil(() -> false, nanos);
    }

    @Override
    public abstract void close();

    /** Real time: the condition, then the cards' turn, with a short park so that other threads run. */
    boolean realTimeRunUntil(BooleanSupplier condition, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        int spins = 0;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return condition.getAsBoolean();
            }
            idle();
            if (++spins > 50) {
                LockSupport.parkNanos(20_000);
            } else {
                Thread.onSpinWait();
            }
        }
        return true;
    }

    static final class Emulated extends LinuxWorld {
        private final EmulatedTestbed world;
        private final EthernetSegment segment;
        private final Card[] cards = new Card[2];
        private final EngineMode mode;

        Emulated(EngineMode mode, Dec21140Timing virtualTiming) {
            this.mode = mode;
            this.world = EmulatedTestbed.create(mode, 1);
            world.cardTiming(virtualTiming);
            this.segment = world.ethernet("segment");
            cards[0] = world.dec21140("a", segment, new byte[] {2, 0, 0, 0, 0, 1});
            cards[1] = world.dec21140("b", segment, new byte[] {2, 0, 0, 0, 0, 2});
            if (world.engine() instanceof ThreadedEngine t) {
                t.start();
            }
        }

        @Override
        Card card(int i) {
            return cards[i];
        }

        @Override
        boolean isVirtual() {
            return mode == EngineMode.VIRTUAL;
        }

        @Override
        void plug(int i, boolean plugged) {
            segment.plug(i == 0 ? "a" : "b", plugged);
        }

        @Override
        void idle() {
            if (world.engine() instanceof InlineEngine inline) {
                inline.poll();
            }
        }

        @Override
        boolean runUntil(BooleanSupplier condition, long timeoutNanos) {
            if (!isVirtual()) {
                return realTimeRunUntil(condition, timeoutNanos);
            }
            VirtualTimeBase time = world.virtualEngine().timeBase();
            long deadline = time.nanoTime() + timeoutNanos;
            while (!condition.getAsBoolean()) {
                if (time.pendingEvents() == 0 || time.nextEventTime() > deadline) {
                    time.runUntil(deadline);
                    return condition.getAsBoolean();
                }
                time.step();
            }
            return true;
        }

        @Override
        public void close() {
            world.close();
        }

        @Override
        public String toString() {
            return "emulated " + mode;
        }
    }

    static final class Shim extends LinuxWorld {
        private final VethPair veth;
        private final ShimCard[] cards = new ShimCard[2];
        private final String mode;

        Shim(String mode) {
            this("afpacket", mode);
        }

        Shim(String target, String mode) {
            this.mode = target + "/" + mode;
            try {
                this.veth = VethPair.builder().ipv4(false).create();
            } catch (IOException e) {
                throw new IllegalStateException("cannot create a veth pair: " + e.getMessage(), e);
            }
            try {
                String[] ifs = {veth.interfaceA(), veth.interfaceB()};
                String[] nss = {veth.namespaceA().name(), veth.namespaceB().name()};
                for (int i = 0; i < 2; i++) {
                    cards[i] = (ShimCard) Backends.open("shim:" + target + "?if=" + ifs[i] + "&card=dec21140&netns="
                        + nss[i] + "&mode=" + mode);
                }
            } catch (RuntimeException | Error e) {
                close();
                throw e;
            }
        }

        @Override
        Card card(int i) {
            return cards[i];
        }

        @Override
        boolean isVirtual() {
            return false;
        }

        /** A pulled cable: the other end of the pair goes down, so card {@code i}'s interface loses its carrier. */
        @Override
        void plug(int i, boolean plugged) {
            try {
                veth.setUp(i != 0, plugged);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        void idle() {
            for (ShimCard c : cards) {
                if (c != null && c.mode() == ShimCard.Mode.INLINE) {
                    c.progress().run();
                }
            }
        }

        @Override
        boolean runUntil(BooleanSupplier condition, long timeoutNanos) {
            return realTimeRunUntil(condition, timeoutNanos);
        }

        @Override
        public void close() {
            for (ShimCard c : cards) {
                if (c != null) {
                    c.close();
                }
            }
            veth.close();
        }

        @Override
        public String toString() {
            return "shim " + mode + " on " + veth;
        }
    }
}
