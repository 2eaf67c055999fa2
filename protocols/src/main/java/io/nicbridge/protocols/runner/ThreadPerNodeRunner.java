package io.nicbridge.protocols.runner;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.EventLoop;
import io.nicbridge.bridge.time.Timer;
import java.util.Objects;

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
 *
 * <p>The per-node dispatch is {@link NodeRunner}'s ({@code NodeDispatch}, polled mode). Each node has a
 * {@link HostCpu} on its loop's real clock, charged by the same rules (dispatch, timer arm/cancel; the core and
 * framing charge their own work); in real time the charges are only counted, priced by the given table, since the
 * real CPU pays for the work. Interrupts are not counted here: the readiness listener runs on the medium's thread,
 * and a {@code HostCpu} is charged by its node's thread only.
 */
public final class ThreadPerNodeRunner implements AutoCloseable {
    private final NodeDispatch[] nodes;
    private final EventLoop[] loops;

    /**
     * @param links        one link per node (node i = links[i], whose {@code self()} must be i)
     * @param costs        prices the counted host work
     * @param cores        builds node i's core from its link, its loop (the core's clock) and its CPU; runs on the
     *                     caller
     * @param maxParkNanos the longest an idle node parks before polling its link again (> 0)
     */
    public ThreadPerNodeRunner(String name, Link[] links, CostTable costs, CoreBuilder cores,
                               NodeApplication application, long maxParkNanos) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(links, "links");
        Objects.requireNonNull(costs, "costs");
        Objects.requireNonNull(cores, "cores");
        Objects.requireNonNull(application, "application");
        nodes = new NodeDispatch[links.length];
        loops = new EventLoop[links.length];
        for (int i = 0; i < links.length; i++) {
            if (links[i].self() != i) {
                throw new IllegalArgumentException("links[" + i + "] is peer " + links[i].self() + ", not " + i);
            }
            EventLoop loop = new EventLoop(name + "-node" + i, maxParkNanos);
            HostCpu cpu = HostCpu.on(loop, costs, "node" + i);
            links[i].hostCpu(cpu);
            NodeDispatch node = new NodeDispatch(i, links[i], cpu, Objects.requireNonNull(
                    cores.build(links[i], loop, cpu), "core of node " + i), application, loop, NodeSlowness.NONE,
                    NodeDispatch.Trace.NONE, NodeDispatch.Wakeup.POLLED);
            Timer start = loop.newTimer("node" + i + ".start", node::runApplication);
            start.armAfter(0);
            links[i].readinessListener(loop::wakeup);
            loop.addSource(node::pollLink);
            nodes[i] = node;
            loops[i] = loop;
        }
    }

    /** Starts every node's loop thread; each runs its application once first. */
    public void start() {
        for (EventLoop loop : loops) {
            loop.start();
        }
    }

    public int nodeCount() {
        return nodes.length;
    }

    /** @return node {@code i} (read its core's counters from other threads only as diagnostics) */
    public RunnerNode node(int i) {
        return nodes[i];
    }

    /** @return node {@code i}'s CPU (its counts read from another thread are diagnostics only) */
    public HostCpu cpu(int i) {
        return nodes[i].cpu();
    }

    /** Stops every loop and waits for its thread. */
    @Override
    public void close() {
        for (EventLoop loop : loops) {
            loop.close();
        }
    }
}
