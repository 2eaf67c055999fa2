package io.nicbridge.protocols.runner;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.core.ProtocolCore;

/**
 * One node as every runner drives it: its link, core, CPU and application, and the dispatch of each event to them.
 * {@link NodeRunner} and {@link ThreadPerNodeRunner} differ only in how a node learns that its link has work and on
 * which thread it runs; everything from there on is here, once:
 * <ul>
 *   <li><b>link</b>: poll it with the core as handler ({@code onFrame}, {@code onWritable}), at most
 *       {@link #POLL_BATCH} frames per event, one {@link CostItem#HANDLER_DISPATCH} per event; then the
 *       application; then re-arm;</li>
 *   <li><b>deadline</b>: one timer, armed at the core's {@link ProtocolCore#nextDeadline()} (plus the node's
 *       {@link NodeSlowness}) after every event, {@link CostItem#TIMER_ARM} / {@link CostItem#TIMER_CANCEL} per
 *       change; when it fires, one dispatch, {@code onTimer}, the application, re-arm. A core still asking for a
 *       passed deadline after {@code onTimer} would spin its node: refused with an {@link IllegalStateException};</li>
 *   <li><b>busy CPU</b> (virtual time only; a real-time {@link HostCpu} is never busy): an event due while the CPU
 *       still works off its charges is moved to {@link HostCpu#busyUntil()}.</li>
 * </ul>
 * How the link's work arrives is one of two {@link Wakeup}s:
 * <ul>
 *   <li>{@link Wakeup#INTERRUPT} ({@link NodeRunner}, everything on the scheduler's one thread): the link's readiness
 *       notification is the node's interrupt ({@link CostItem#INTERRUPT}, later ones coalesced until the poll) and
 *       arms an {@code io} timer after the node's slowness; that event is a dispatch whether or not frames wait, and
 *       a full batch re-interrupts so the other nodes get their turn first;</li>
 *   <li>{@link Wakeup#POLLED} ({@link ThreadPerNodeRunner}, one event loop per node): the runner polls
 *       {@link #pollLink()} every loop pass and lets the readiness notification (from any thread) only wake the
 *       loop; a poll that finds nothing is no dispatch.</li>
 * </ul>
 * Confined to the scheduler's thread (the node's loop thread in real time). Nothing allocates per event.
 */
final class NodeDispatch implements RunnerNode {
    /** Frames one link event hands to the core at most, so one busy node cannot starve the others of events. */
    static final int POLL_BATCH = 16;

    static final int KIND_IO = 1;
    static final int KIND_TIMER = 2;
    static final int KIND_APP = 3;

    /** How the runner learns that the node's link has work. */
    enum Wakeup { INTERRUPT, POLLED }

    /** Told of every dispatch, by kind ({@link #KIND_IO}, {@link #KIND_TIMER}, {@link #KIND_APP}). */
    @FunctionalInterface
    interface Trace {
        Trace NONE = (node, kind) -> { };

        void dispatched(int node, int kind);
    }

    private final int id;
    private final Link link;
    private final HostCpu cpu;
    private final ProtocolCore core;
    private final NodeApplication application;
    private final Scheduler clock;
    private final NodeSlowness slowness;
    private final Trace trace;
    private final Timer io;       // INTERRUPT only
    private final Timer deadline;
    private boolean stopped;

    /**
     * Creates the node's timers on {@code clock} ({@code io} first, for {@link Wakeup#INTERRUPT}) and, for
     * {@link Wakeup#INTERRUPT}, takes the link's readiness notification; a {@link Wakeup#POLLED} runner sets its own.
     */
    NodeDispatch(int id, Link link, HostCpu cpu, ProtocolCore core, NodeApplication application, Scheduler clock,
                 NodeSlowness slowness, Trace trace, Wakeup wakeup) {
        this.id = id;
        this.link = link;
        this.cpu = cpu;
        this.core = core;
        this.application = application;
        this.clock = clock;
        this.slowness = slowness;
        this.trace = trace;
        this.io = wakeup == Wakeup.INTERRUPT ? clock.newTimer("node" + id + ".io", this::serviceInterrupt) : null;
        this.deadline = clock.newTimer("node" + id + ".deadline", this::serviceTimer);
        if (wakeup == Wakeup.INTERRUPT) {
            link.readinessListener(this::interrupt);
        }
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

    HostCpu cpu() {
        return cpu;
    }

    /** {@inheritDoc} Also traced, as {@link #KIND_APP}. */
    @Override
    public void applicationActed() {
        trace.dispatched(id, KIND_APP);
        rearm();
    }

    /** Runs the application once (a real-time node's start), then arms the deadline it may have caused. */
    void runApplication() {
        application.afterEvent(this);
        rearm();
    }

    /**
     * {@link Wakeup#POLLED}: one poll of the link; a dispatch (charged, the application run) only when it handed the
     * core frames. Re-arms either way: {@code onWritable} may have sent and so started a retransmission deadline.
     *
     * @return frames handed to the core
     */
    int pollLink() {
        int n = link.poll(core, POLL_BATCH);
        if (n > 0) {
            cpu.charge(CostItem.HANDLER_DISPATCH);
            application.afterEvent(this);
        }
        rearm();
        return n;
    }

    /**
     * Stops driving the node: cancels its timers and ignores later readiness (a world being torn down no longer
     * reaches the core or its closed link). Idempotent.
     */
    void stop() {
        stopped = true;
        if (io != null) {
            io.cancel();
        }
        deadline.cancel();
    }

    /** {@link Wakeup#INTERRUPT}: the link's readiness notification. Later ones before the poll are coalesced. */
    private void interrupt() {
        if (!stopped && !io.isArmed()) {
            long now = clock.nanoTime();
            cpu.charge(CostItem.INTERRUPT);
            long at = now + slowness.delayNanos(id, now);
            io.armAt(cpu.busyAfter(at) ? cpu.busyUntil() : at);
        }
    }

    /** {@link Wakeup#INTERRUPT}: the io timer: a dispatch of the link, frames or not. */
    private void serviceInterrupt() {
        if (deferredWhileBusy(io)) {
            return;
        }
        trace.dispatched(id, KIND_IO);
        cpu.charge(CostItem.HANDLER_DISPATCH);
        int n = link.poll(core, POLL_BATCH);
        if (n == POLL_BATCH) {
            interrupt(); // more may be waiting: come back after the other nodes had their turn
        }
        application.afterEvent(this);
        rearm();
    }

    private void serviceTimer() {
        if (deferredWhileBusy(deadline)) {
            return;
        }
        long now = clock.nanoTime(); // before onTimer: every deadline up to here is the core's to handle now
        trace.dispatched(id, KIND_TIMER);
        cpu.charge(CostItem.HANDLER_DISPATCH);
        core.onTimer();
        long next = core.nextDeadline();
        if (next != ProtocolCore.NO_DEADLINE && next - now <= 0) {
            throw new IllegalStateException("node " + id + ": core " + core + " still asks for deadline " + next
                    + " after its timer ran at " + now + "; it would spin");
        }
        application.afterEvent(this);
        rearm();
    }

    /** @return true when the CPU is still busy at the timer's due time, after moving the timer to when it is free */
    private boolean deferredWhileBusy(Timer timer) {
        if (cpu.busyAfter(clock.nanoTime())) {
            timer.armAt(cpu.busyUntil());
            return true;
        }
        return false;
    }

    private void rearm() {
        if (stopped) {
            return;
        }
        long d = core.nextDeadline();
        if (d == ProtocolCore.NO_DEADLINE) {
            if (deadline.isArmed()) {
                cpu.charge(CostItem.TIMER_CANCEL);
                deadline.cancel();
            }
            return;
        }
        long due = d + slowness.delayNanos(id, d);
        if (!deadline.isArmed() || deadline.deadline() != due) {
            cpu.charge(CostItem.TIMER_ARM);
            deadline.armAt(due);
        }
    }

    @Override
    public String toString() {
        return "node " + id + " on " + link.name();
    }
}
