package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.bridge.time.VirtualScheduler;
import io.nicbridge.protocols.core.BufferAudit;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.RunnerNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

/**
 * Runs one {@link Schedule} against a core in a fresh virtual world (a {@link SimMedium} of the schedule's nodes,
 * a {@link NodeRunner}, the schedule's faults) and checks the invariants of the guarantees the core
 * declares:
 * <ul>
 *   <li>{@code exactly-once}: no message is delivered twice ({@link Guarantee#EXACTLY_ONCE});</li>
 *   <li>{@code per-peer-order}: each receiver gets each sender's messages in offer order, with no gap
 *       ({@link Guarantee#PER_PEER_ORDER}; a gap means a lost or overtaken message);</li>
 *   <li>{@code progress}: while a message is outstanding, something is delivered within the progress bound after
 *       the last fault, offer or delivery, and the run ends with every message delivered
 *       ({@link Guarantee#PROGRESS});</li>
 *   <li>{@code bounded-memory}: after every event a core holds at most its declared capacity
 *       ({@link Guarantee#BOUNDED_MEMORY});</li>
 *   <li>{@code integrity} (always): a delivered message is the one offered, byte for byte, to the right node;</li>
 *   <li>{@code crash} (always): the core threw;</li>
 *   <li>{@code no-leak} (cores that are a {@link BufferAudit}): once everything is delivered, the run goes on for up
 *       to the progress bound until every core's buffers are back ({@link BufferAudit#leaks()} null).</li>
 * </ul>
 * The first violation ends the run. Messages carry their source, destination and per-pair number in their first 8
 * bytes and a pattern derived from them after, so the receiver checks them without a table:
 * <pre>
 *   0        2        4                8
 *   | source | dest   | number (u32)   | pattern: byte i = source*31 + dest*17 + number*7 + i |
 * </pre>
 */
public final class SimulationRun {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * What one run found.
     *
     * @param violation   the first broken promise, or null
     * @param traceDigest the runner's digest of every dispatch: equal for equal runs
     * @param endNanos    when the run ended: the last delivery's event, or later while a node's CPU was still busy
     *                    with host work charged by then
     * @param hostCost    the runner's host-cost account (table and per-node charges)
     * @param medium      the medium's name and counters ({@link SimMedium#describe()})
     */
    public record Outcome(Schedule schedule, Violation violation, long traceDigest, long dispatches,
                          long framesCarried, long framesFaulted, int messages, int delivered, long endNanos,
                          long rxDrops, String hostCost, String medium) {
        public boolean passed() {
            return violation == null;
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

    private static final class World implements NodeApplication, MessageHandler {
        private final Schedule schedule;
        private final SimSettings settings;
        private final VirtualScheduler scheduler;
        private final ScheduleFaults faults;
        private final SimMedium medium;
        private final NodeRunner runner;
        private final int nodes;
        private final int perNode;
        private final int total;
        private final int[][] destination;
        private final int[][] number;
        private final long[][] availableAt;
        private final int[] nextToOffer;
        private final Timer[] offerTimer;
        private final int[][] expected;
        private final MemorySegment message;
        private Set<Guarantee> guarantees;
        private int receiver;
        private int offered;
        private int delivered;
        private long lastProgress;
        private Violation violation;

        World(Schedule schedule, SimSettings settings, CoreFactory cores, SimMedium medium) {
            this.schedule = schedule;
            this.settings = settings;
            this.medium = medium;
            this.scheduler = medium.scheduler();
            this.nodes = schedule.nodes();
            this.perNode = schedule.messagesPerNode();
            this.total = nodes * perNode;
            faults = new ScheduleFaults(schedule);
            HostCpu[] cpus = medium.cpus();
            Link[] links = new Link[nodes];
            for (int i = 0; i < nodes; i++) {
                links[i] = medium.link(i);
            }
            destination = new int[nodes][perNode];
            number = new int[nodes][perNode];
            availableAt = new long[nodes][perNode];
            int[][] counts = new int[nodes][nodes];
            SplittableRandom r = new SplittableRandom(schedule.seed() * 0x9E3779B97F4A7C15L + nodes * 31L + perNode);
            for (int i = 0; i < nodes; i++) {
                long t = 0;
                for (int k = 0; k < perNode; k++) {
                    int d = r.nextInt(nodes - 1);
                    d = d >= i ? d + 1 : d;
                    destination[i][k] = d;
                    number[i][k] = counts[i][d]++;
                    t += r.nextLong(2 * settings.loadSpanNanos() / Math.max(1, perNode) + 1);
                    availableAt[i][k] = Math.min(t, settings.loadSpanNanos());
                }
            }
            nextToOffer = new int[nodes];
            expected = new int[nodes][nodes];
            message = MemorySegment.ofArray(new byte[settings.maxMessage()]);
            offerTimer = new Timer[nodes];
            runner = new NodeRunner(scheduler, links, cpus, (link, clock, cpu) -> cores.create(link, clock, cpu,
                    settings), this, faults);
            for (int i = 0; i < nodes; i++) {
                int node = i;
                offerTimer[i] = scheduler.newTimer("app" + i + ".offer", () -> {
                    offerAvailable(node);
                    runner.node(node).applicationActed();
                });
                if (perNode > 0) {
                    offerTimer[i].armAt(availableAt[i][0]);
                }
            }
            guarantees = runner.node(0).core().guarantees();
        }

        Outcome run() {
            boolean ended;
            try {
                ended = scheduler.runUntil(this::finished, Long.MAX_VALUE);
                if (!ended && violation == null) {
                    fail("progress", "stalled: no event left, " + delivered + " of " + total
                            + " messages delivered (" + offered + " offered)");
                }
                if (violation == null && delivered == total) {
                    audit();
                }
            } catch (RuntimeException e) {
                fail("crash", e.toString());
            }
            if (violation != null && !declares(violation.invariant())) {
                violation = null; // a promise the core does not make is not checked
            }
            long rxDrops = 0;
            for (int i = 0; i < nodes; i++) {
                rxDrops += medium.link(i).counters().rxDrops();
            }
            Outcome outcome = new Outcome(schedule, violation, runner.traceDigest(), runner.dispatches(),
                    medium.framesCarried(), medium.framesFaulted(), total, delivered, runner.workEndNanos(), rxDrops,
                    runner.costSummary(), medium.describe());
            runner.stop(); // the medium's close may run events of its own: they must not reach the cores
            for (Timer t : offerTimer) {
                t.cancel();
            }
            return outcome;
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
            return switch (invariant) {
                case "exactly-once" -> guarantees.contains(Guarantee.EXACTLY_ONCE);
                case "per-peer-order" -> guarantees.contains(Guarantee.PER_PEER_ORDER);
                case "progress" -> guarantees.contains(Guarantee.PROGRESS);
                case "bounded-memory" -> guarantees.contains(Guarantee.BOUNDED_MEMORY);
                default -> true;
            };
        }

        private boolean finished() {
            if (violation != null || delivered == total) {
                return true;
            }
            if (runner.dispatches() > settings.maxEvents()) {
                fail("progress", "runaway: " + runner.dispatches() + " events, " + delivered + " of " + total
                        + " delivered");
                return true;
            }
            long now = scheduler.nanoTime();
            long quiet = Math.max(lastProgress, Math.max(medium.lastFaultNanos(), faults.lastSlowNanos()));
            if (now - quiet > settings.progressBoundNanos() && outstanding(now)) {
                fail("progress", "nothing delivered for " + (now - quiet) + " ns after the last fault, offer or"
                        + " delivery (bound " + settings.progressBoundNanos() + " ns): " + delivered + " of " + total
                        + " delivered, " + offered + " offered");
                return true;
            }
            return false;
        }

        private boolean outstanding(long now) {
            if (offered > delivered) {
                return true;
            }
            for (int i = 0; i < nodes; i++) {
                if (nextToOffer[i] < perNode && availableAt[i][nextToOffer[i]] <= now) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void afterEvent(RunnerNode node) {
            MessageCore core = (MessageCore) node.core();
            receiver = node.id();
            core.deliver(this, Integer.MAX_VALUE);
            offerAvailable(node.id());
            if (core.bufferedMessages() > core.bufferCapacity()) {
                fail("bounded-memory", "node " + node.id() + " holds " + core.bufferedMessages()
                        + " messages, more than its capacity " + core.bufferCapacity());
            }
        }

        private void offerAvailable(int i) {
            MessageCore core = (MessageCore) runner.node(i).core();
            long now = scheduler.nanoTime();
            while (nextToOffer[i] < perNode && availableAt[i][nextToOffer[i]] <= now) {
                int k = nextToOffer[i];
                int d = destination[i][k];
                int n = number[i][k];
                int length = lengthOf(i, d, n);
                compose(i, d, n, length);
                if (core.offer(d, message, 0, length) == MessageChannel.BACK_PRESSURE) {
                    return; // retried after the node's next event
                }
                nextToOffer[i] = k + 1;
                offered++;
                lastProgress = now;
            }
            if (nextToOffer[i] < perNode && !offerTimer[i].isArmed()) {
                offerTimer[i].armAt(Math.max(now, availableAt[i][nextToOffer[i]]));
            }
        }

        private int lengthOf(int src, int dst, int n) {
            int span = settings.maxMessage() - 8 + 1;
            return 8 + Math.floorMod((src * 7919 + dst * 104729 + n * 31 + (int) schedule.seed()), span);
        }

        private void compose(int src, int dst, int n, int length) {
            message.set(U16, 0, (short) src);
            message.set(U16, 2, (short) dst);
            message.set(U32, 4, n);
            for (int b = 8; b < length; b++) {
                message.set(ValueLayout.JAVA_BYTE, b, (byte) (src * 31 + dst * 17 + n * 7 + b));
            }
        }

        @Override
        public void onMessage(int peer, MemorySegment data, long offset, int length) {
            if (violation != null) {
                return;
            }
            if (length < 8) {
                fail("integrity", "node " + receiver + " got a " + length + "-byte message from " + peer);
                return;
            }
            int src = Short.toUnsignedInt(data.get(U16, offset));
            int dst = Short.toUnsignedInt(data.get(U16, offset + 2));
            int n = data.get(U32, offset + 4);
            if (src != peer || dst != receiver) {
                fail("integrity", "node " + receiver + " got a message from " + peer + " that says " + src + " -> "
                        + dst);
                return;
            }
            int want = expected[src][dst];
            if (n < want) {
                fail("exactly-once", "node " + dst + " got message #" + n + " from " + src + " again (next due #"
                        + want + ")");
                return;
            }
            if (n > want) {
                fail("per-peer-order", "node " + dst + " got message #" + n + " from " + src + " while #" + want
                        + " was due (lost or overtaken)");
                return;
            }
            if (length != lengthOf(src, dst, n)) {
                fail("integrity", "message #" + n + " " + src + " -> " + dst + " is " + length + " bytes, was "
                        + lengthOf(src, dst, n));
                return;
            }
            for (int b = 8; b < length; b++) {
                if (data.get(ValueLayout.JAVA_BYTE, offset + b) != (byte) (src * 31 + dst * 17 + n * 7 + b)) {
                    fail("integrity", "message #" + n + " " + src + " -> " + dst + " differs at byte " + b);
                    return;
                }
            }
            expected[src][dst] = want + 1;
            delivered++;
            lastProgress = scheduler.nanoTime();
        }

        private void fail(String invariant, String detail) {
            if (violation == null) {
                violation = new Violation(invariant, detail, scheduler.nanoTime());
            }
        }
    }
}
