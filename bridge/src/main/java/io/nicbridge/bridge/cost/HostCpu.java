package io.nicbridge.bridge.cost;

import io.nicbridge.bridge.time.Clock;
import io.nicbridge.bridge.time.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One simulated node's CPU: the meter that the node's runner, protocol core and link framing charge their work to,
 * priced by a {@link CostTable}.
 *
 * <ul>
 *   <li><b>Virtual time</b> ({@link #on} a virtual scheduler): every charge makes the CPU busy for what the table
 *       says, starting when it is next free ({@code max(now, busyUntil)}). A runner starts the node's next handler
 *       no earlier than {@link #busyUntil()}, and a framing stamps a frame it sends with {@link #now()}, the time
 *       the CPU has reached in the current handler, so that host work delays both.</li>
 *   <li><b>Real time</b>: the real CPU pays for the work as it does it; a charge only counts the units and what the
 *       table would have priced them at, and {@link #busyUntil()} never holds anything back.</li>
 * </ul>
 *
 * <p>Prices are picoseconds (a byte copy is tens of them); the busy time is kept in nanoseconds plus a picosecond
 * carry, and {@link #busyUntil()} rounds up to the next whole nanosecond. Work charged while the CPU is idle starts at
 * the clock's present and drops any carry.
 *
 * <p>Single-threaded: only the node's own thread charges (in virtual time, the scheduler's thread). A charge reads
 * the clock and adds to a few array slots: it allocates nothing.
 */
public final class HostCpu {
    private final String name;
    private final CostTable table;
    private final Clock clock;
    private final Scheduler scheduler;
    private final boolean virtual;
    private final long[] price;
    private final long[] units;
    private final long[] picos;
    private final List<Operation> operations = new ArrayList<>();
    private long busyNanos = Long.MIN_VALUE;
    private long carryPicos;

    private HostCpu(String name, CostTable table, Clock clock, Scheduler scheduler, boolean virtual) {
        this.name = Objects.requireNonNull(name, "name");
        this.table = Objects.requireNonNull(table, "table");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.scheduler = scheduler;
        this.virtual = virtual;
        int n = CostItem.all().length;
        price = new long[n];
        for (CostItem item : CostItem.all()) {
            price[item.ordinal()] = table.picos(item);
        }
        units = new long[n];
        picos = new long[n];
    }

    /** @return a CPU on {@code scheduler}'s clock: delaying work when the scheduler is virtual, counting otherwise */
    public static HostCpu on(Scheduler scheduler, CostTable table, String name) {
        Objects.requireNonNull(scheduler, "scheduler");
        return new HostCpu(name, table, scheduler, scheduler, scheduler.isVirtual());
    }

    /**
     * @return a CPU that charges nothing: the zero table, on the real clock, never delaying; what a link charges
     *     until it is given its node's CPU ({@code Link.hostCpu})
     */
    public static HostCpu uncharged(String name) {
        return new HostCpu(name, CostTable.zero(), System::nanoTime, null, false);
    }

    /** @return one CPU per node ({@code node0 .. node<n-1>}), all on {@code scheduler} and priced by {@code table} */
    public static HostCpu[] forNodes(int nodes, CostTable table, Scheduler scheduler) {
        if (nodes < 1) {
            throw new IllegalArgumentException("nodes must be >= 1, was " + nodes);
        }
        HostCpu[] cpus = new HostCpu[nodes];
        for (int i = 0; i < nodes; i++) {
            cpus[i] = on(scheduler, table, "node" + i);
        }
        return cpus;
    }

    /** Charges one unit of {@code item} (one call, one interrupt). */
    public void charge(CostItem item) {
        charge(item, 1);
    }

    /**
     * Charges {@code count} units of {@code item} (bytes copied or checksummed, words moved by PIO, calls).
     *
     * @throws IllegalArgumentException when count is negative
     */
    public void charge(CostItem item, long count) {
        if (count < 0) {
            throw new IllegalArgumentException(name + ": " + item.label() + " count must be >= 0, was " + count);
        }
        int i = item.ordinal();
        long cost = price[i] * count;
        units[i] += count;
        picos[i] += cost;
        spend(cost);
    }

    /**
     * @return the protocol operation {@code name} on this CPU, priced once now from the table (0 in the zero table),
     *     for the core to {@link Operation#charge()} on its hot path; the same object for the same name
     * @throws IllegalArgumentException when the table does not price the operation
     */
    public Operation operation(String name) {
        Objects.requireNonNull(name, "name");
        for (Operation op : operations) {
            if (op.name.equals(name)) {
                return op;
            }
        }
        Operation op = new Operation(name, table.operationPicos(name));
        operations.add(op);
        return op;
    }

    /** Adds {@code cost} picoseconds of work: in virtual time after what is already charged. */
    private void spend(long cost) {
        if (virtual) {
            long now = clock.nanoTime();
            if (busyNanos < now) { // idle until now: the work starts now
                busyNanos = now;
                carryPicos = 0;
            }
            long total = carryPicos + cost;
            busyNanos += total / 1_000;
            carryPicos = total % 1_000;
        }
    }

    /**
     * @return in virtual time, the first whole nanosecond at which everything charged so far is done (it may lie in
     *     the past: then the CPU is idle); in real time {@link Long#MIN_VALUE}
     */
    public long busyUntil() {
        if (!virtual || busyNanos == Long.MIN_VALUE) {
            return Long.MIN_VALUE;
        }
        return carryPicos == 0 ? busyNanos : busyNanos + 1;
    }

    /** @return true when the CPU still has charged work to finish after {@code time} (never in real time) */
    public boolean busyAfter(long time) {
        return busyUntil() > time;
    }

    /**
     * @return the time the node's work has reached: the clock, or later while the CPU works off its charges (in
     *     virtual time); what a framing stamps on a frame it hands to the medium
     */
    public long now() {
        long now = clock.nanoTime();
        long busy = busyUntil();
        return busy > now ? busy : now;
    }

    /** @return true when charges delay the node (virtual time), false when they are only counted (real time) */
    public boolean delays() {
        return virtual;
    }

    public String name() {
        return name;
    }

    public CostTable table() {
        return table;
    }

    /**
     * @return the scheduler whose clock this CPU runs on, for work that must wait for the CPU (a framing's doorbell
     *     rung at {@link #now()}); null for an {@link #uncharged} CPU, which never delays
     */
    public Scheduler scheduler() {
        return scheduler;
    }

    /** @return units of {@code item} charged so far */
    public long units(CostItem item) {
        return units[item.ordinal()];
    }

    /** @return picoseconds charged for {@code item} so far */
    public long picos(CostItem item) {
        return picos[item.ordinal()];
    }

    /** @return picoseconds charged for all items and operations so far */
    public long totalPicos() {
        long sum = 0;
        for (long p : picos) {
            sum += p;
        }
        for (Operation op : operations) {
            sum += op.calls * op.picosPerCall;
        }
        return sum;
    }

    /** @return a one-line account: the total and each item charged (units and time) */
    public String summary() {
        StringBuilder sb = new StringBuilder(name).append(": ").append(CostTable.formatPicos(totalPicos()))
                .append(virtual ? " of host work" : " of host work by the table (real time: not delayed)");
        for (CostItem item : CostItem.all()) {
            if (units[item.ordinal()] > 0) {
                sb.append(", ").append(item.label()).append(' ').append(units[item.ordinal()]).append(' ')
                        .append(item.unit().label()).append(units[item.ordinal()] == 1 ? "" : "s").append(" = ")
                        .append(CostTable.formatPicos(picos[item.ordinal()]));
            }
        }
        for (Operation op : operations) {
            if (op.calls > 0) {
                sb.append(", ").append(op.name).append(' ').append(op.calls).append(op.calls == 1 ? " call" : " calls")
                        .append(" = ").append(CostTable.formatPicos(op.calls * op.picosPerCall));
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "host CPU " + summary();
    }

    /**
     * A named piece of a protocol core's own work on this CPU (e.g. the careful protocol's "shrink window"), priced
     * per call by the table ({@link CostTable#operationPicos}); resolved once at setup, so charging it allocates
     * nothing and looks nothing up.
     */
    public final class Operation {
        private final String name;
        private final long picosPerCall;
        private long calls;

        private Operation(String name, long picosPerCall) {
            this.name = name;
            this.picosPerCall = picosPerCall;
        }

        /** Charges one call of the operation to the CPU. */
        public void charge() {
            calls++;
            spend(picosPerCall);
        }

        public String name() {
            return name;
        }

        public long picosPerCall() {
            return picosPerCall;
        }

        /** @return calls charged so far */
        public long calls() {
            return calls;
        }
    }
}
