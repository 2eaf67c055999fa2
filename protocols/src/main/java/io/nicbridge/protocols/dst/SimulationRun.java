package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.VirtualScheduler;
import io.nicbridge.protocols.core.BufferAudit;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.ProtocolCore;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.FrameCounts;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongFunction;

/**
 * Runs one {@link Schedule} against a core in a fresh virtual world (a {@link SimMedium} of the schedule's nodes,
 * a {@link NodeRunner}, the schedule's faults) with the workload of the core's API, and checks the invariants of the
 * guarantees the core declares. The workload:
 * <ul>
 *   <li>{@link MessageWorkload} for a {@link MessageCore}: messages between peers, checked for
 *       {@code exactly-once}, {@code per-peer-order} and {@code integrity};</li>
 *   <li>{@link StreamWorkload} for a {@link TcpNode} (IPv4 and TCP): byte streams over TCP connections, checked
 *       for {@code integrity} (every byte read is the one written there), {@code exactly-once} (no more bytes than
 *       written) and {@code orderly-close} (both ends of every connection close orderly, their streams read whole,
 *       no RST, time-out or abort);</li>
 *   <li>{@link CStarWorkload} for a {@link CStarNetwork}: a C* program of point-to-point, broadcast and crowd
 *       events, checked for {@code exactly-once} per fragment, {@code integrity} (nothing delivered that was not
 *       sent to that node), {@code event-completion} (every receive's MORE / NODE_DONE / EVENT_DONE is right).</li>
 * </ul>
 * The world checks, for every core:
 * <ul>
 *   <li>{@code progress}: while something is outstanding, something is delivered within the progress bound after
 *       the last fault, offer or delivery, and the run ends with everything delivered ({@link Guarantee#PROGRESS});
 *       a world that keeps running without delivering (a livelock) fails this bound or the event budget;</li>
 *   <li>{@code bounded-memory}: after every event a core holds at most its declared capacity
 *       ({@link Guarantee#BOUNDED_MEMORY});</li>
 *   <li>{@code crash} (always): the core threw;</li>
 *   <li>{@code no-leak} (cores that are a {@link BufferAudit}): once everything is delivered, the run goes on for up
 *       to the progress bound until every core's buffers are back ({@link BufferAudit#leaks()} null).</li>
 * </ul>
 * A core that promises {@link Guarantee#REPORTS_BROKEN_ASSUMPTIONS} (the careful protocol) is held to exactly-once,
 * integrity, completion and progress as well, but a run in which it reported a broken assumption
 * ({@code CStarNetwork.violations() > 0}) ends there and passes: what it must never do is fail silently. A failed
 * check is excused only when the core had reported before it (a report after wrong data was handed over does not
 * make it right). One outcome is neither: a run that stalls unreported because frames were lost with nothing after
 * them from their sender to their receiver (a trailing loss, which a core without timers cannot see). The run
 * classifies a stall (no event left, or the progress bound run out) as that only on evidence - the medium lost frames, and the cores' {@link FrameCounts} show
 * frames a sender numbered that their receiver never accounted for - and reports it as
 * {@link Outcome#undetectable()}, counted apart by {@link SimTest}; a stall without that evidence is a
 * {@code progress} violation. The first violation ends the run.
 */
public final class SimulationRun {
    /**
     * What one run found.
     *
     * @param violation   the first broken promise, or null
     * @param traceDigest the runner's digest of every dispatch: equal for equal runs
     * @param endNanos    when the run ended: the last delivery's event, or later while a node's CPU was still busy
     *                    with host work charged by then
     * @param hostCost    the runner's host-cost account (table and per-node charges)
     * @param medium      the medium's name and counters ({@link SimMedium#describe()})
     * @param reportedByCores broken assumptions the cores reported ({@code CStarNetwork.violations()}): a core that
     *                    promises {@link Guarantee#REPORTS_BROKEN_ASSUMPTIONS} passes a schedule it could not serve
     *                    when this is above 0
     * @param unseenFrames for a run that stalled unreported after the medium lost frames: the frames senders
     *                    numbered that their receivers never accounted for ({@link FrameCounts}); 0 otherwise
     */
    public record Outcome(Schedule schedule, Violation violation, long traceDigest, long dispatches,
                          long framesCarried, long framesFaulted, int messages, int delivered, long endNanos,
                          long rxDrops, String hostCost, String medium, long reportedByCores, long unseenFrames) {
        /** @return true when no promise the core makes was broken silently (an undetectable trailing loss included) */
        public boolean passed() {
            return violation == null;
        }

        /** @return true when the core reported a broken assumption (and the run ended there) */
        public boolean reported() {
            return reportedByCores > 0;
        }

        /**
         * @return true when the run stalled, unreported, on a trailing loss: frames lost with nothing after them from
         *     their sender to their receiver, which a core without timers cannot detect (see the class comment)
         */
        public boolean undetectable() {
            return unseenFrames > 0;
        }
    }

    private SimulationRun() {
    }

    /**
     * @param worlds makes the virtual scheduler of a world from the schedule's seed (sim-hardware's
     *               {@code VirtualTimeBase::new})
     */
    public static Outcome run(Schedule schedule, SimSettings settings, CoreFactory cores,
                              LongFunction<? extends VirtualScheduler> worlds) {
        return run(schedule, settings, cores, SimMedium.inMemory(worlds));
    }

    /**
     * Runs {@code schedule} on a fresh world of {@code media}, closed afterwards.
     *
     * @throws IllegalArgumentException when the schedule holds a fault the medium cannot express
     */
    public static Outcome run(Schedule schedule, SimSettings settings, CoreFactory cores, SimMedium.Factory media) {
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(cores, "cores");
        media.requireExpressible(schedule);
        try (SimMedium medium = media.open(schedule, settings)) {
            return new World(schedule, settings, cores, medium).run();
        }
    }

    private static final class World implements Verdict {
        private final Schedule schedule;
        private final SimSettings settings;
        private final VirtualScheduler scheduler;
        private final ScheduleFaults faults;
        private final SimMedium medium;
        private final NodeRunner runner;
        private final Workload workload;
        private final int nodes;
        private final Set<Guarantee> guarantees;
        private final boolean reportsBrokenAssumptions;
        private long lastProgress;
        private Violation violation;
        /** what the cores had reported when the violation was recorded */
        private long reportedAtViolation;
        /**
         * The progress bound ran out with messages outstanding: a stall as much as a world without events left (a
         * card driver's watchdog, armed when the schedule resets a card, keeps a stalled world ticking forever).
         */
        private boolean quietTooLong;

        World(Schedule schedule, SimSettings settings, CoreFactory cores, SimMedium medium) {
            this.schedule = schedule;
            this.settings = settings;
            this.medium = medium;
            this.scheduler = medium.scheduler();
            this.nodes = schedule.nodes();
            faults = new ScheduleFaults(schedule);
            HostCpu[] cpus = medium.cpus();
            Link[] links = new Link[nodes];
            for (int i = 0; i < nodes; i++) {
                links[i] = medium.link(i);
            }
            Workload[] chosen = new Workload[1];
            NodeApplication application = node -> {
                chosen[0].afterEvent(node);
                ProtocolCore core = node.core();
                if (core.bufferedMessages() > core.bufferCapacity()) {
                    fail("bounded-memory", "node " + node.id() + " holds " + core.bufferedMessages()
                            + " messages, more than its capacity " + core.bufferCapacity());
                }
            };
            runner = new NodeRunner(scheduler, links, cpus, (link, clock, cpu) -> cores.create(link, clock, cpu,
                    settings), application, faults);
            ProtocolCore first = runner.node(0).core();
            workload = switch (first) {
                case MessageCore m -> new MessageWorkload(schedule, settings, scheduler, this);
                case CStarNetwork c -> new CStarWorkload(schedule, settings, scheduler, this);
                case TcpNode t -> new StreamWorkload(schedule, settings, scheduler, this);
                default -> throw new IllegalArgumentException("core " + first + " offers neither MessageCore nor"
                        + " CStarNetwork nor is a TcpNode: no workload drives it");
            };
            for (int i = 1; i < nodes; i++) {
                if (runner.node(i).core().getClass() != first.getClass()) {
                    throw new IllegalArgumentException("node " + i + "'s core is a " + runner.node(i).core().getClass()
                            + ", node 0's a " + first.getClass() + ": one protocol per world");
                }
            }
            chosen[0] = workload;
            guarantees = first.guarantees();
            reportsBrokenAssumptions = guarantees.contains(Guarantee.REPORTS_BROKEN_ASSUMPTIONS);
            workload.start(runner);
        }

        Outcome run() {
            boolean stalled = false;
            try {
                boolean ended = scheduler.runUntil(this::finished, Long.MAX_VALUE);
                if (!ended && violation == null && !reported()) {
                    stalled = true;
                    fail("progress", "stalled: no event left, " + workload.delivered() + " of " + workload.total()
                            + " delivered (" + workload.offered() + " offered)");
                }
                if (violation == null && workload.delivered() == workload.total()) {
                    audit();
                }
            } catch (RuntimeException e) {
                fail("crash", e.toString());
            }
            long reportedByCores = workload.reportedByCores();
            long unseenFrames = 0;
            if (violation != null && reportsBrokenAssumptions && !violation.invariant().equals("crash")) {
                if (reportedAtViolation > 0) {
                    violation = null; // the core had said its assumption broke: not a silent failure
                } else if ((stalled || quietTooLong) && (medium.framesFaulted() > 0 || rxDropsOfAll() > 0)) {
                    unseenFrames = unseenFrames();
                    if (unseenFrames > 0) {
                        violation = null; // a trailing loss: undetectable without timers, counted apart
                    }
                }
            }
            if (violation != null && !declares(violation.invariant())) {
                violation = null; // a promise the core does not make is not checked
            }
            Outcome outcome = new Outcome(schedule, violation, runner.traceDigest(), runner.dispatches(),
                    medium.framesCarried(), medium.framesFaulted(), workload.total(), workload.delivered(),
                    runner.workEndNanos(), rxDropsOfAll(), runner.costSummary(), medium.describe(), reportedByCores,
                    unseenFrames);
            runner.stop(); // the medium's close may run events of its own: they must not reach the cores
            workload.stop();
            return outcome;
        }

        private long rxDropsOfAll() {
            long rxDrops = 0;
            for (int i = 0; i < nodes; i++) {
                rxDrops += medium.link(i).counters().rxDrops();
            }
            return rxDrops;
        }

        /**
         * @return over every sender s and receiver q, the frames s numbered for q that q never accounted for (0 when
         *     the cores do not count their frames): after a stall, frames lost with nothing after them
         */
        private long unseenFrames() {
            long unseen = 0;
            for (int s = 0; s < nodes; s++) {
                if (!(runner.node(s).core() instanceof FrameCounts sender)) {
                    return 0;
                }
                for (int q = 0; q < nodes; q++) {
                    if (q != s && runner.node(q).core() instanceof FrameCounts receiver) {
                        unseen += Math.max(0, sender.framesNumberedFor(q) - receiver.framesAccountedFrom(s));
                    }
                }
            }
            return unseen;
        }

        /** @return true when a core that promises to report broken assumptions has reported one */
        private boolean reported() {
            return reportsBrokenAssumptions && workload.reportedByCores() > 0;
        }

        /** Lets the acknowledgements drain, then asks every auditing core whether all its buffers are back. */
        private void audit() {
            if (!(runner.node(0).core() instanceof BufferAudit)) {
                return;
            }
            scheduler.runUntil(this::allBuffersBack, scheduler.nanoTime() + settings.progressBoundNanos());
            for (int i = 0; i < nodes; i++) {
                String leaks = ((BufferAudit) runner.node(i).core()).leaks();
                if (leaks != null) {
                    fail("no-leak", "node " + i + " still holds, " + settings.progressBoundNanos()
                            + " ns after the last delivery: " + leaks);
                    return;
                }
            }
        }

        private boolean allBuffersBack() {
            for (int i = 0; i < nodes; i++) {
                if (((BufferAudit) runner.node(i).core()).leaks() != null) {
                    return false;
                }
            }
            return true;
        }

        private boolean declares(String invariant) {
            boolean silent = reportsBrokenAssumptions; // such a core is held to every promise until it reports
            return switch (invariant) {
                case "exactly-once" -> silent || guarantees.contains(Guarantee.EXACTLY_ONCE);
                case "per-peer-order" -> guarantees.contains(Guarantee.PER_PEER_ORDER);
                case "progress" -> silent || guarantees.contains(Guarantee.PROGRESS);
                case "bounded-memory" -> guarantees.contains(Guarantee.BOUNDED_MEMORY);
                default -> true;
            };
        }

        private boolean finished() {
            if (violation != null || workload.delivered() == workload.total() || reported()) {
                return true;
            }
            if (runner.dispatches() > settings.maxEvents()) {
                fail("progress", "runaway: " + runner.dispatches() + " events, " + workload.delivered() + " of "
                        + workload.total() + " delivered");
                return true;
            }
            long now = scheduler.nanoTime();
            long quiet = Math.max(lastProgress, Math.max(medium.lastFaultNanos(), faults.lastSlowNanos()));
            if (now - quiet > settings.progressBoundNanos() && workload.outstanding(now)) {
                quietTooLong = true;
                fail("progress", "nothing delivered for " + (now - quiet) + " ns after the last fault, offer or"
                        + " delivery (bound " + settings.progressBoundNanos() + " ns): " + workload.delivered()
                        + " of " + workload.total() + " delivered, " + workload.offered() + " offered");
                return true;
            }
            return false;
        }

        @Override
        public void progressed() {
            lastProgress = scheduler.nanoTime();
        }

        @Override
        public boolean failed() {
            return violation != null;
        }

        @Override
        public void fail(String invariant, String detail) {
            if (violation == null) {
                violation = new Violation(invariant, detail, scheduler.nanoTime());
                reportedAtViolation = workload == null ? 0 : workload.reportedByCores();
            }
        }
    }
}
