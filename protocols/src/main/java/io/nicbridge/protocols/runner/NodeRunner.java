package io.nicbridge.protocols.runner;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.protocols.core.ProtocolCore;
import java.util.Objects;

/**
 * Runs N protocol cores, one per node, on one bridge {@link Scheduler}: every node is driven by two timers of that
 * scheduler, so the cores, the medium and the applications all run on the scheduler's one thread.
 * <ul>
 *   <li>On a {@link io.nicbridge.bridge.time.VirtualScheduler} this is the <b>virtual-time runner</b>: the whole
 *       world is one discrete-event simulation on one deterministic clock, and the same seed gives the same trace
 *       ({@link #traceDigest()}).</li>
 *   <li>On an {@link io.nicbridge.bridge.time.EventLoop} it runs the same cores in real time on the loop's thread,
 *       over a medium whose events fire on that thread too (the in-memory medium on the same loop). A link whose
 *       readiness is signalled from another thread (a card's engine thread, the shim) needs a runner that hands it
 *       over through the loop's {@code wakeup()}: the one-thread-per-node real-time runner, not this one.</li>
 * </ul>
 * Per node ({@code NodeDispatch}, the per-node part both runners share, in its interrupt mode):
 * <ul>
 *   <li>{@code io}: armed (after the node's {@link NodeSlowness} delay) when the node's link says it is ready; it
 *       polls the link with the core as handler ({@code onFrame}, {@code onWritable});</li>
 *   <li>{@code deadline}: armed at the core's {@link io.nicbridge.protocols.core.ProtocolCore#nextDeadline()} after
 *       every event; it calls {@code onTimer}.</li>
 * </ul>
 * After each event the node's {@link NodeApplication} runs, then the deadline timer is re-armed. The runner keeps a
 * digest of every dispatch (time, node, kind) so that two runs can be compared for determinism. Nothing allocates
 * per event.
 *
 * <p><b>Host cost.</b> Every node is a CPU ({@link HostCpu}, shared with its core and its link's framing). The node
 * charges {@link CostItem#HANDLER_DISPATCH} per event it hands the core, {@link CostItem#TIMER_ARM} /
 * {@link CostItem#TIMER_CANCEL} per change of the core's deadline timer, and {@link CostItem#INTERRUPT} per readiness
 * notification that wakes the node. In virtual time a node whose CPU is still busy handles nothing before
 * {@link HostCpu#busyUntil()}: an event due earlier is moved there (and traced when it runs), so the node's arrivals
 * wait in its link's receive buffers meanwhile. With the {@code zero} table no CPU is ever busy and the run is the
 * wire-only run, event for event.
 */
public final class NodeRunner {
    private final Scheduler scheduler;
    private final NodeDispatch[] nodes;
    private final HostCpu[] cpus;
    private long digest = 0xcbf29ce484222325L;
    private long dispatches;

    /**
     * @param links one link per node, in node order (node i = links[i], whose {@code self()} must be i)
     * @param cpus  one CPU per node, in node order, on {@code scheduler}; each is handed to its node's link
     *              ({@link Link#hostCpu}), so the runner, the core and the framing charge the same one
     * @param cores builds node i's core from its link, the scheduler (the core's clock) and its CPU
     */
    public NodeRunner(Scheduler scheduler, Link[] links, HostCpu[] cpus, CoreBuilder cores,
                      NodeApplication application, NodeSlowness slowness) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        Objects.requireNonNull(links, "links");
        Objects.requireNonNull(cpus, "cpus");
        Objects.requireNonNull(cores, "cores");
        Objects.requireNonNull(application, "application");
        Objects.requireNonNull(slowness, "slowness");
        if (cpus.length != links.length) {
            throw new IllegalArgumentException("cpus: one per node wanted, " + links.length + ", got " + cpus.length);
        }
        this.cpus = cpus.clone();
        nodes = new NodeDispatch[links.length];
        for (int i = 0; i < links.length; i++) {
            if (links[i].self() != i) {
                throw new IllegalArgumentException("links[" + i + "] is peer " + links[i].self() + ", not " + i);
            }
            HostCpu cpu = Objects.requireNonNull(cpus[i], "cpus[" + i + "]");
            links[i].hostCpu(cpu);
            ProtocolCore core = Objects.requireNonNull(cores.build(links[i], scheduler, cpu), "core of node " + i);
            nodes[i] = new NodeDispatch(i, links[i], cpu, core, application, scheduler, slowness, this::traced,
                    NodeDispatch.Wakeup.INTERRUPT);
        }
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    public int nodeCount() {
        return nodes.length;
    }

    public RunnerNode node(int i) {
        return nodes[i];
    }

    /**
     * Polls every node's link once, handing what it has to the node's core (then the node's application, and re-arms
     * its deadline), besides the readiness notifications: for a link whose endpoint announces arrivals on no thread
     * this runner's scheduler runs (a direct-access AF_XDP endpoint is told only by its own blocking wait). A real-time
     * loop calls it every pass (e.g. as an {@link io.nicbridge.bridge.time.EventLoop} source). Not traced: in real
     * time there is no trace to compare. Scheduler's thread; allocation-free.
     *
     * @return frames handed to the cores
     */
    public int pollLinks() {
        int n = 0;
        for (NodeDispatch d : nodes) {
            n += d.pollLink();
        }
        return n;
    }

    /** @return a digest of every dispatch so far (time, node, kind): equal digests = equal traces */
    public long traceDigest() {
        return digest;
    }

    /** @return events dispatched to cores so far */
    public long dispatches() {
        return dispatches;
    }

    /** @return node {@code i}'s CPU */
    public HostCpu cpu(int i) {
        return cpus[i];
    }

    /**
     * @return the time the last work of any node ends: the scheduler's clock, or later while a CPU is still busy with
     *     what it was charged (the completion time of a run that has gone idle)
     */
    public long workEndNanos() {
        long end = scheduler.nanoTime();
        for (HostCpu c : cpus) {
            end = Math.max(end, c.busyUntil());
        }
        return end;
    }

    /**
     * @return the run's host-cost account: the table (name, source, prices) on the first line, then what each node's
     *     CPU was charged
     */
    public String costSummary() {
        StringBuilder sb = new StringBuilder(cpus.length == 0 ? "no nodes" : cpus[0].table().describe());
        for (HostCpu c : cpus) {
            if (c.table() != cpus[0].table()) {
                sb.append("\n  ").append(c.name()).append(" priced by ").append(c.table().describe());
            }
            sb.append("\n  ").append(c.summary());
        }
        return sb.toString();
    }

    private void traced(int node, int kind) {
        long now = scheduler.nanoTime();
        dispatches++;
        long h = digest;
        h = (h ^ now) * 0x100000001b3L;
        h = (h ^ ((long) node << 8 | kind)) * 0x100000001b3L;
        digest = h;
    }

    /**
     * Stops driving the nodes: cancels their timers and ignores later readiness, so a world being torn down (a card
     * medium's close may still run events of its own, e.g. a U-Net endpoint's destruction in virtual time) no longer
     * reaches the cores or their closed links. Idempotent; the runner cannot be restarted.
     */
    public void stop() {
        for (NodeDispatch n : nodes) {
            n.stop();
        }
    }
}
