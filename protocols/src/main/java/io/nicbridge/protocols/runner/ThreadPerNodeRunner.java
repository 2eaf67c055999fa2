package io.nicbridge.protocols.runner;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Clock;
import io.nicbridge.bridge.time.EventLoop;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.core.ProtocolCore;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * The real-time runner: one {@link EventLoop} thread per node, so nodes run truly in parallel over a medium whose
 * links may be driven from other threads (an emulated card's engine thread, the native shim). Each node's core,
 * link calls, timer and application run only on its own loop thread:
 * <ul>
 *   <li>the loop polls the node's link every pass (a {@link EventLoop.Source}); the link's readiness listener only
 *       calls {@link EventLoop#wakeup()}, which is safe from any thread, so a parked loop wakes at once;</li>
 *   <li>one loop timer is armed at the core's {@link ProtocolCore#nextDeadline()} after every event;</li>
 *   <li>the application runs after each pass that handed the core frames, after each timer, and once at start.</li>
 * </ul>
 * An idle loop backs off (spin, yield, then park until the next deadline, at most {@code maxParkNanos}), so a
 * quiet node costs no core; on a link without readiness signals {@code maxParkNanos} bounds the receive latency.
 */
public final class ThreadPerNodeRunner implements AutoCloseable {
    private static final int POLL_BATCH = 16;

    private final Node[] nodes;

    /**
     * @param links        one link per node (node i = links[i], whose {@code self()} must be i)
     * @param cores        builds node i's core from its link and its loop (the core's clock); runs on the caller
     * @param maxParkNanos the longest an idle node parks before polling its link again (> 0)
     */
    public ThreadPerNodeRunner(String name, Link[] links, BiFunction<Link, Clock, ? extends ProtocolCore> cores,
                               NodeApplication application, long maxParkNanos) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(links, "links");
        Objects.requireNonNull(cores, "cores");
        Objects.requireNonNull(application, "application");
        nodes = new Node[links.length];
        for (int i = 0; i < links.length; i++) {
            if (links[i].self() != i) {
                throw new IllegalArgumentException("links[" + i + "] is peer " + links[i].self() + ", not " + i);
            }
            EventLoop loop = new EventLoop(name + "-node" + i, maxParkNanos);
            nodes[i] = new Node(i, links[i], Objects.requireNonNull(cores.apply(links[i], loop), "core of node " + i),
                    application, loop);
        }
    }

    /** Starts every node's loop thread; each runs its application once first. */
    public void start() {
        for (Node n : nodes) {
            n.loop.start();
        }
    }

    public int nodeCount() {
        return nodes.length;
    }

    /** @return node {@code i} (read its core's counters from other threads only as diagnostics) */
    public RunnerNode node(int i) {
        return nodes[i];
    }

    /** Stops every loop and waits for its thread. */
    @Override
    public void close() {
        for (Node n : nodes) {
            n.loop.close();
        }
    }

    private static final class Node implements RunnerNode {
        private final int id;
        private final Link link;
        private final ProtocolCore core;
        private final NodeApplication application;
        private final EventLoop loop;
        private final Timer deadline;

        Node(int id, Link link, ProtocolCore core, NodeApplication application, EventLoop loop) {
            this.id = id;
            this.link = link;
            this.core = core;
            this.application = application;
            this.loop = loop;
            this.deadline = loop.newTimer("node" + id + ".deadline", this::serviceTimer);
            Timer start = loop.newTimer("node" + id + ".start", this::serviceApplication);
            start.armAfter(0);
            link.readinessListener(loop::wakeup);
            loop.addSource(this::serviceLink);
        }

        @Override
        public int id() {
            return id;
        }

        @Override
        public Link link() {
            return link;
        }

        @Override
        public ProtocolCore core() {
            return core;
        }

        @Override
        public void applicationActed() {
            rearm();
        }

        private int serviceLink() {
            int n = link.poll(core, POLL_BATCH);
            if (n > 0) {
                application.afterEvent(this);
            }
            rearm(); // onWritable may have sent and armed a retransmission deadline even when n == 0
            return n;
        }

        private void serviceTimer() {
            long now = loop.nanoTime(); // before onTimer: every deadline up to here is the core's to handle now
            core.onTimer();
            if (core.nextDeadline() != ProtocolCore.NO_DEADLINE && core.nextDeadline() - now <= 0) {
                throw new IllegalStateException("node " + id + ": core " + core + " still asks for deadline "
                        + core.nextDeadline() + " after its timer ran at " + now + "; it would spin");
            }
            serviceApplication();
        }

        private void serviceApplication() {
            application.afterEvent(this);
            rearm();
        }

        private void rearm() {
            long d = core.nextDeadline();
            if (d == ProtocolCore.NO_DEADLINE) {
                deadline.cancel();
            } else if (!deadline.isArmed() || deadline.deadline() != d) {
                deadline.armAt(d);
            }
        }
    }
}
