package io.nicbridge.bench.pupa.real;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimCard;
import io.nicbridge.bridge.shim.ShimStatistics;
import io.nicbridge.bridge.shim.ShimTulipLinks;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.core.ProtocolCore;
import io.nicbridge.protocols.pupa.PupaConfig;
import io.nicbridge.protocols.pupa.PupaCore;
import java.util.concurrent.TimeUnit;

/**
 * Pupa on two native-shim 21140s at the ends of a {@link VethPair}, one {@link Node} per end, each driven by the thread
 * that calls it (the measuring thread, the echo or sink thread).
 * <pre>
 *   netns A: PupaCore - TulipLink - TulipDriver - shim 21140 - vethA ===== vethB - shim 21140 - ... - PupaCore :netns B
 * </pre>
 * Both cards are inline shim cards ({@link ShimTulipLinks.Mode#INLINE}): the node's own thread does its card's work -
 * the transmit pass on each doorbell, the packet ring on each step - so no card thread stands between the wire and
 * the protocol, as the paper's Pupa ran inside the network interrupt handler. How a node waits ({@link Wait}):
 * <ul>
 *   <li>{@link Wait#BLOCK}: in the kernel, inside the shim ({@link ShimCard#waitForWork}: epoll on the packet socket,
 *       the doorbell eventfd and the card's timer), until a frame arrives or the core's next deadline - one wake-up
 *       per arrival, by the kernel, as a blocking {@code recv} is woken;</li>
 *   <li>{@link Wait#SPIN}: never in the kernel: it polls the packet ring through the card and the descriptor ring,
 *       spinning ({@link Thread#onSpinWait()}) and then yielding, never sleeping - user-level busy polling.</li>
 * </ul>
 * The runner of the protocol tests ({@code ThreadPerNodeRunner}) cannot give an inline card its thread, so the loop
 * here is its own, and small: poll the card and the link into the core, run the core's due timer, hand the core to
 * the caller.
 * Setup allocates; a node's {@link Node#step()} and {@link Node#idle} do not.
 */
final class PupaShimPair implements AutoCloseable {
    /** How a node waits for its card. */
    enum Wait { BLOCK, SPIN }

    /**
     * Looks a spinning node makes ({@link Thread#onSpinWait()} between them) after its last work before it yields on
     * every further look. Counted in looks, not in time: on this 2-CPU machine both nodes are pinned spinners, and the
     * JIT's compiler threads get a CPU mostly when a node yields. A node that spun 50 us (the busy-poll budget of the
     * TCP it is compared with) before yielding was tried and dropped: it leaves them less (README, issue 15's fourth
     * pass). Warm, 64 looks (about 5 us) outlast a node's idle time in a ping-pong (a hop, about 2 us), so a warm
     * node rarely yields.
     */
    static final int SPINS_BEFORE_YIELD = 64;
    /** Looks that found work between two looks at the core's timers ({@link Node#step}). */
    static final int TIMER_LOOKS = 16;
    /**
     * A blocked node wakes at least this often (its core's deadline may come sooner; a frame or a doorbell ends the
     * wait at once): only so that a stopped node notices. A 1 ms cap cost a timer wake-up per millisecond per node.
     */
    static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * Pupa's retransmission timeout in real time: Linux TCP's minimum RTO (200 ms), the stack Pupa is compared with
     * here. The core's 20 ms default took scheduler stalls on a shared, loaded machine for losses - 25 to 98 timeouts
     * (and as many duplicates) per pinned blocking trial of 4 x 2300 round trips at load 17, where TCP resent nothing
     * - and so measured the machine's stalls twice. The paper gives no RTO.
     */
    static final long REAL_TIME_RTO_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    /** @return {@code base} with the {@link #REAL_TIME_RTO_NANOS real-time retransmission timeout} */
    static PupaConfig realTime(PupaConfig base) {
        return base.withTimers(REAL_TIME_RTO_NANOS, base.ackTimerNanos(), base.packDelayNanos());
    }

    private final Wait wait;
    private final ShimTulipLinks stations;
    private final Node[] nodes = new Node[2];

    PupaShimPair(VethPair veth, Wait wait, PupaConfig config, ShimTulipLinks.Transport transport) {
        this.wait = wait;
        stations = ShimTulipLinks.on(veth, ShimTulipLinks.Mode.INLINE, transport, driverConfig(wait));
        try {
            for (int i = 0; i < 2; i++) {
                TulipLink link = stations.link(i);
                HostCpu cpu = HostCpu.uncharged("pupa-real-node" + i);
                link.hostCpu(cpu);
                nodes[i] = new Node(link, new PupaCore(link, System::nanoTime, config, cpu), stations.card(i),
                    wait);
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /**
     * The drivers' configuration for {@code wait}: a blocking node's card raises the 21140's interrupt (CSR7 enables
     * RI/TI/TU...), whose line its wait in the shim ends on and whose handler acknowledges CSR5; a spinning node's
     * driver runs the chip with CSR7 = 0 ({@link TulipConfig.InterruptMode#POLLING}) and reads the descriptors'
     * ownership bits, as Linux masks a NIC's interrupts while it busy-polls. Same rings, same descriptors and
     * CSRs, no interrupt: per hop, the line's edge, its handler and two CSR5 writes into the shim (one on each side
     * of the {@code send()}) are gone, one of them from the receiver's path between a frame's arrival and its answer
     * (README, issue 15's fourth pass, for what that measured).
     */
    static TulipConfig driverConfig(Wait wait) {
        return wait == Wait.SPIN
            ? TulipConfig.defaults().toBuilder().interruptMode(TulipConfig.InterruptMode.POLLING).build()
            : TulipConfig.defaults();
    }

    Node node(int i) {
        return nodes[i];
    }

    /** @return node {@code i}'s driver (its configuration, statistics) */
    TulipDriver driver(int i) {
        return stations.driver(i);
    }

    Wait waitMode() {
        return wait;
    }

    /** @return how the cards move frames, for the report: AF_PACKET, or AF_XDP with the modes the kernel granted */
    String transportText() {
        return stations.card(0).transportText();
    }

    /** @return the cards' statistics, for the report */
    String cardStatistics() {
        return stations.cardStatistics();
    }

    @Override
    public void close() {
        stations.close();
    }

    /** One end: its core and its inline card, driven by whichever thread calls {@link #step} and {@link #idle}. */
    static final class Node {
        private final TulipLink link;
        private final PupaCore core;
        private final ShimCard card;
        private final Runnable cardProgress;
        private final Wait wait;
        private int idle;
        private int busyLooks;
        private long waits;

        Node(TulipLink link, PupaCore core, ShimCard card, Wait wait) {
            this.link = link;
            this.core = core;
            this.card = card;
            this.cardProgress = card.progress();
            this.wait = wait;
            // A blocking node's link needs a readiness listener for the driver to acknowledge the card's interrupt (so
            // that the line can rise again); the card's work runs on this node's thread, which looks at the rings
            // after every wait anyway, so there is nobody to wake. (A spinning node's driver has no line: POLLING.)
            link.readinessListener(() -> { });
        }

        PupaCore core() {
            return core;
        }

        ShimCard card() {
            return card;
        }

        /**
         * Polls the card and the link into the core, runs the core's timer when due, delivers to {@code handler}.
         *
         * @return frames and messages handled (0: nothing happened)
         */
        int step(MessageHandler handler) {
            cardProgress.run();
            int work = link.poll(core, Integer.MAX_VALUE); // everything the card has: one look per wake-up
            work += core.deliver(handler, Integer.MAX_VALUE);
            // The timers after the work, and on a look that had some only every TIMER_LOOKS-th time: the clock's
            // reading (a vDSO call of 20-30 ns here) is not spent between a frame's arrival and the answer the caller
            // sends after this step; a timer is late by at most that many looks (its periods are milliseconds).
            if (work == 0 || ++busyLooks >= TIMER_LOOKS) {
                busyLooks = 0;
                long deadline = core.nextDeadline();
                if (deadline != ProtocolCore.NO_DEADLINE && deadline - System.nanoTime() <= 0) {
                    core.onTimer();
                    work++;
                }
            }
            if (work > 0) {
                idle = 0;
            }
            return work;
        }

        /**
         * Waits a little after a step that did nothing: in the shim until card work or the core's next deadline
         * ({@link Wait#BLOCK}, at most {@link #MAX_PARK_NANOS}), or spin then yield ({@link Wait#SPIN}).
         */
        void idle() {
            waits++;
            if (wait == Wait.SPIN) {
                if (++idle < SPINS_BEFORE_YIELD) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
                return;
            }
            long deadline = core.nextDeadline();
            long timeout = MAX_PARK_NANOS;
            if (deadline != ProtocolCore.NO_DEADLINE) {
                timeout = Math.max(0, Math.min(timeout, deadline - System.nanoTime()));
            }
            card.waitForWork(timeout);
        }

        /** @return how often {@link #idle} was called: blocking, one wait in the kernel (epoll) each */
        long waits() {
            return waits;
        }

        /** @return this node's card's counters (frames, kicks, polls, interrupts) */
        ShimStatistics cardStatistics() {
            return card.statistics();
        }

        @Override
        public String toString() {
            return core.toString();
        }
    }
}
