package io.nicbridge.bench.unet;

import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.driver.unet.UnetLink;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.time.EventLoop;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.sba200.Sba200Timing;
import io.nicbridge.sim.testbed.UnetLinkTestbed;
import java.util.function.BooleanSupplier;

/**
 * The clock and the medium a two-node U-Net run ({@link UamRuns}, {@link UdpRuns}, {@link TcpRuns}) runs on. The run
 * itself - cores, node runner, application - is the same on all three:
 * <ul>
 *   <li>{@link #VIRTUAL}: two emulated SBA-200s through the ATM switch, the cards, the switch and both hosts in one
 *       discrete-event simulation; the host work is charged to each node's CPU by the cost table, and every figure is
 *       simulated time;</li>
 *   <li>{@link #REAL_ONE_THREAD}: the same emulated cards on the real clock, run inline, and both nodes' runners and
 *       applications on the calling thread: one {@link EventLoop} whose every pass runs the card engine (so the
 *       cards' readiness signals arrive on the loop's thread), then the nodes' due events. The real CPU pays for the
 *       host work (the cost table only counts); every figure is wall-clock time, this machine's and its load's;</li>
 *   <li>{@link #ethernet}: U-Net over Ethernet - two native-shim SBA-200 contracts at the two ends of a veth pair,
 *       their card work done inline by the same one-thread event loop ({@link UnetEthernetMedium}); wall-clock time
 *       again, now with the kernel's veth between the two cards.</li>
 * </ul>
 */
public abstract class Timebase {
    public static final Timebase VIRTUAL = new Emulated("virtual", EngineMode.VIRTUAL);
    public static final Timebase REAL_ONE_THREAD = new Emulated("real time on one thread", EngineMode.INLINE);

    private final String name;

    Timebase(String name) {
        this.name = name;
    }

    /**
     * U-Net over Ethernet on {@code veth}: every run opens two fresh inline shim SBA-200s on its two ends and closes
     * them after. The veth pair stays the caller's; its MTU bounds the largest PDU (one PDU per frame).
     */
    public static Timebase ethernet(VethPair veth) {
        return new UnetEthernetMedium(veth, false);
    }

    /**
     * U-Net over Ethernet on {@code veth} with direct-access endpoints ({@link io.nicbridge.bridge.shim.XskUnetEndpoint}:
     * the AF_XDP socket's rings are the U-Net queues, no card model), the same frames on the wire. A link's MTU is
     * what one 4096-byte UMEM chunk carries ({@link UnetEthernetMedium#DIRECT_MAX_PDU}) when a run asks for more.
     */
    public static Timebase ethernetDirect(VethPair veth) {
        return new UnetEthernetMedium(veth, true);
    }

    /**
     * Opens the two-node medium of one run: two links (node 0 and 1) with buffers of {@code bufferBytes} and a
     * scheduler on which their readiness arrives.
     *
     * @param receiveQueue each endpoint's receive queue
     */
    abstract Medium open(Sba200Timing timing, int bufferBytes, int txBuffers, int rxBuffers, int receiveQueue);

    @Override
    public String toString() {
        return name;
    }

    /** Frames a node's receiving end dropped, {@code counted} in all, {@code where} item by item. */
    record Drops(long counted, String where) {
        /** The card's own drop counters, read through its U-Net kernel driver. */
        static Drops ofCard(UnetKernelDriver kernel) {
            var st = kernel.readStatistics();
            return new Drops(st.dropFifoOverflow() + st.dropNoFreeBuffer() + st.dropReceiveQueueFull()
                    + st.aal5CrcErrors(), String.format(java.util.Locale.ROOT, "receiving card: cell FIFO overflow %d,"
                    + " no free buffer %d, receive queue full %d, CRC %d", st.dropFifoOverflow(),
                    st.dropNoFreeBuffer(), st.dropReceiveQueueFull(), st.aal5CrcErrors()));
        }
    }

    /** One run's two links, its scheduler and how to run it until a condition holds; closed after the run. */
    abstract static class Medium implements AutoCloseable {
        final Scheduler scheduler;

        Medium(Scheduler scheduler) {
            this.scheduler = scheduler;
        }

        /** @return node 0's and node 1's link */
        abstract UnetLink[] links();

        /** @return what node {@code i}'s receiving end dropped so far, counted where it dropped it */
        abstract Drops receiveDrops(int i);

        /**
         * Runs the world until {@code done} or for {@code limitNanos} of its time.
         *
         * @return whether {@code done} held
         */
        abstract boolean runUntil(BooleanSupplier done, long limitNanos);

        /** @return the longest a run may take on this medium before it counts as lost, nanoseconds of its clock */
        abstract long limitNanos();

        /** The run's node runner, once built: a medium whose links signal no readiness polls them through it. */
        void attach(NodeRunner runner) {
        }

        @Override
        public abstract void close();
    }

    /**
     * Runs {@code loop} until {@code done} or {@code limitNanos} of wall-clock time: a pass that found work resets the
     * backoff; after 64 passes with none the thread yields (other threads, the card engine's or the kernel's, get in).
     */
    static boolean runLoop(EventLoop loop, BooleanSupplier done, long limitNanos) {
        long end = System.nanoTime() + limitNanos;
        int idle = 0;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                return false;
            }
            if (loop.runOnce() > 0) {
                idle = 0;
            } else if (++idle > 64) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
        return true;
    }

    /** The emulated SBA-200s through the ATM switch ({@link UnetLinkTestbed}), in virtual or real time. */
    private static final class Emulated extends Timebase {
        /** A run that has not finished after this much of its time has lost a message. */
        private static final long LIMIT_NANOS = 30_000_000_000L;
        private final EngineMode mode;

        Emulated(String name, EngineMode mode) {
            super(name);
            this.mode = mode;
        }

        @Override
        Medium open(Sba200Timing timing, int bufferBytes, int txBuffers, int rxBuffers, int receiveQueue) {
            UnetLinkTestbed tb = UnetLinkTestbed.builder(mode).timing(timing).buffers(bufferBytes, txBuffers, rxBuffers)
                    .receiveQueue(receiveQueue).build();
            if (mode == EngineMode.VIRTUAL) {
                VirtualTimeBase v = tb.virtualTimeBase();
                return new TestbedMedium(tb, v, null);
            }
            EventLoop loop = new EventLoop("unet-one-thread", 1_000_000L);
            loop.addSource(tb.engine()::poll);
            for (var link : tb.links()) { // a refused claim looks again every 20 us (the card signals no completion)
                link.writableProbe(loop, 20_000L);
            }
            return new TestbedMedium(tb, loop, loop);
        }

        private static final class TestbedMedium extends Medium {
            private final UnetLinkTestbed tb;
            private final EventLoop loop;

            TestbedMedium(UnetLinkTestbed tb, Scheduler scheduler, EventLoop loop) {
                super(scheduler);
                this.tb = tb;
                this.loop = loop;
            }

            @Override
            UnetLink[] links() {
                return tb.links();
            }

            @Override
            Drops receiveDrops(int i) {
                return Drops.ofCard(tb.kernel(i));
            }

            @Override
            boolean runUntil(BooleanSupplier done, long limitNanos) {
                if (loop == null) {
                    VirtualTimeBase v = (VirtualTimeBase) scheduler;
                    return v.runUntil(done, v.nanoTime() + limitNanos);
                }
                return runLoop(loop, done, limitNanos);
            }

            @Override
            long limitNanos() {
                return LIMIT_NANOS;
            }

            @Override
            public void close() {
                tb.close();
                if (loop != null) {
                    loop.close();
                }
            }
        }
    }
}
