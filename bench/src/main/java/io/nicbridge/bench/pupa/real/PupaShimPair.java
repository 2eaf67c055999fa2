package io.nicbridge.bench.pupa.real;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimTulipLinks;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.core.ProtocolCore;
import io.nicbridge.protocols.pupa.PupaConfig;
import io.nicbridge.protocols.pupa.PupaCore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Pupa on two native-shim 21140s at the ends of a {@link VethPair}, one {@link Node} per end, each driven by the thread
 * that calls it (the measuring thread, the echo or sink thread).
 * <pre>
 *   netns A: PupaCore - TulipLink - TulipDriver - shim 21140 - vethA ===== vethB - shim 21140 - ... - PupaCore :netns B
 * </pre>
 * How a node waits is how its card runs ({@link Wait}):
 * <ul>
 *   <li>{@link Wait#BLOCK}: a threaded shim card (its thread sleeps in epoll on the packet socket and raises the
 *       21140's interrupt); the node parks until the interrupt's readiness unparks it or its core's next deadline -
 *       the paper's interrupt-driven receive, with the shim's card thread as the extra hop;</li>
 *   <li>{@link Wait#SPIN}: an inline shim card, run by the node's own thread: it polls the packet ring through the card
 *       ({@code progress}) and the descriptor ring, spinning ({@link Thread#onSpinWait()}) and then yielding, never
 *       sleeping - user-level busy polling.</li>
 * </ul>
 * The runner of the protocol tests ({@code ThreadPerNodeRunner}) cannot give an inline card its thread, so the loop
 * here is its own, and small: poll the link into the core, run the core's due timer, hand the core to the caller.
 * Setup allocates; a node's {@link Node#step()} and {@link Node#idle} do not.
 */
final class PupaShimPair implements AutoCloseable {
    /** How a node waits for its card. */
    enum Wait { BLOCK, SPIN }

    static final int SPINS_BEFORE_YIELD = 64;
    /** A blocked node wakes at least this often (its core's deadline may come sooner). */
    static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Wait wait;
    private final ShimTulipLinks stations;
    private final Node[] nodes = new Node[2];

    PupaShimPair(VethPair veth, Wait wait, PupaConfig config) {
        this.wait = wait;
        stations = ShimTulipLinks.on(veth, wait == Wait.SPIN ? ShimTulipLinks.Mode.INLINE
            : ShimTulipLinks.Mode.THREADED);
        try {
            for (int i = 0; i < 2; i++) {
                TulipLink link = stations.link(i);
                HostCpu cpu = HostCpu.uncharged("pupa-real-node" + i);
                link.hostCpu(cpu);
                nodes[i] = new Node(link, new PupaCore(link, System::nanoTime, config, cpu),
                    wait == Wait.SPIN ? stations.card(i).progress() : null);
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    Node node(int i) {
        return nodes[i];
    }

    Wait waitMode() {
        return wait;
    }

    /** @return the cards' statistics, for the report */
    String cardStatistics() {
        return stations.cardStatistics();
    }

    @Override
    public void close() {
        stations.close();
    }

    /** One end: its core, driven by whichever thread calls {@link #step} and {@link #idle}. */
    static final class Node {
        private final TulipLink link;
        private final PupaCore core;
        private final Runnable cardProgress;
        private volatile Thread waiter;
        private int idle;

        Node(TulipLink link, PupaCore core, Runnable cardProgress) {
            this.link = link;
            this.core = core;
            this.cardProgress = cardProgress;
            link.readinessListener(() -> {
                Thread t = waiter;
                if (t != null) {
                    LockSupport.unpark(t);
                }
            });
        }

        PupaCore core() {
            return core;
        }

        /** Makes the calling thread the one a blocked node's interrupt wakes. */
        void attach() {
            waiter = Thread.currentThread();
        }

        /**
         * Polls the card and the link into the core, runs the core's timer when due, delivers to {@code handler}.
         *
         * @return frames and messages handled (0: nothing happened)
         */
        int step(MessageHandler handler) {
            if (cardProgress != null) {
                cardProgress.run();
            }
            int work = link.poll(core, 16);
            long deadline = core.nextDeadline();
            if (deadline != ProtocolCore.NO_DEADLINE && deadline - System.nanoTime() <= 0) {
                core.onTimer();
                work++;
            }
            work += core.deliver(handler, Integer.MAX_VALUE);
            if (work > 0) {
                idle = 0;
            }
            return work;
        }

        /** Waits a little after a step that did nothing: spin then yield (inline card) or park (threaded card). */
        void idle() {
            if (cardProgress != null) {
                if (++idle < SPINS_BEFORE_YIELD) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
                return;
            }
            long deadline = core.nextDeadline();
            long park = MAX_PARK_NANOS;
            if (deadline != ProtocolCore.NO_DEADLINE) {
                park = Math.max(1, Math.min(park, deadline - System.nanoTime()));
            }
            LockSupport.parkNanos(park);
        }

        @Override
        public String toString() {
            return core.toString();
        }
    }
}
