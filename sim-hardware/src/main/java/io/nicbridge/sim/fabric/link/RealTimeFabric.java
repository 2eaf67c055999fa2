package io.nicbridge.sim.fabric.link;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.port.PortCounters;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.sim.engine.DeviceModel;
import io.nicbridge.sim.engine.RealTimeBase;
import io.nicbridge.sim.engine.ThreadedEngine;
import io.nicbridge.sim.fabric.DropReason;
import io.nicbridge.sim.fabric.Network;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The MPP fabric in real time: a {@link Network} stepped by its own thread, paced to the wall clock, with one
 * {@link FabricLinks} link per node that other threads (a one-thread-per-node runner's node loops) call at will.
 * The threaded mode of the emulated cards, applied to the fabric: the fabric is a {@link DeviceModel} on a
 * {@link ThreadedEngine}, and its cycle timer is a timer of that engine's {@link RealTimeBase}, which the engine
 * thread polls every pass and, between cycles, idles towards with the engine's {@link IdleStrategy}.
 *
 * <h2>Pacing</h2>
 * A cycle is due at every grid point {@code k * cycleNanos} of {@link System#nanoTime()} while something is queued
 * or in flight (an idle fabric arms nothing and its thread parks). When one step takes longer than
 * {@code cycleNanos} (a 4x4 mesh needs a few microseconds per cycle on this project's machine against the CM-5's
 * 25 ns) the fabric <b>runs as fast as it can</b>: cycles follow each other back to back, each counts for the grid
 * point it started in, and the points missed meanwhile are skipped, never caught up in a burst. Its simulated time
 * then runs slower than wall time: a packet takes as many cycles as in virtual time, and each cycle lasts as long as
 * stepping it takes. {@link #nanosPerCycle()} tells the rate achieved.
 *
 * <h2>Threads</h2>
 * The network, the links' tables and the medium's counters are guarded by one lock: the engine thread holds it for
 * each cycle (the timer action), a node thread for each call it makes on its link (a {@link Link#poll} holds it
 * while the handler runs, since the handler sends). So the fabric and the links are single-threaded as
 * {@link FabricLinks} requires, whatever thread calls; what one side wrote is visible to the other after the lock.
 * The lock is fair: a node thread waiting for its link gets it at the end of the current cycle, even when the fabric
 * steps back to back (an unfair lock would let the fabric thread take it again before the woken node thread runs).
 * A link's readiness listener runs on the engine thread, inside the cycle that made the link ready; it must only
 * hand over (e.g. an event loop's {@code wakeup()}). A poll takes the lock only after such a notification (or a
 * full batch, or an abort, which may make a refused link writable again): the idle polls of a spinning node loop
 * cost a volatile read, not a turn at the fabric's lock. Nothing allocates per call or per cycle except what the
 * lock itself does when a thread has to queue for it ({@link ReentrantLock} allocates a wait node per contended
 * acquisition).
 *
 * <h2>Host cost</h2>
 * Each link node gets a {@link HostCpu} on the real clock, priced by the given table: in real time charges are only
 * counted ({@link HostCpu} is charged under the lock, by the node's calls).
 *
 * <p>Lifecycle: build, attach the experiment's own endpoints to the other nodes of the network, then {@link #start()};
 * {@link #close()} stops the engine thread. Statistics read while the fabric runs are diagnostics; after
 * {@link #close()} they are exact.
 */
public final class RealTimeFabric implements DeviceModel, AutoCloseable {
    private final ReentrantLock lock = new ReentrantLock(true);
    private final RealTimeBase time = new RealTimeBase();
    private final ThreadedEngine engine;
    private final HostCpu[] cpus;
    private final FabricLinks medium;
    private final GuardedLink[] links;
    private long startNanos;
    private long stopNanos;
    private boolean started;
    private boolean stopped;

    /**
     * @param network   the fabric, stepped from {@link #start()} on by the engine thread only
     * @param linkNodes nodes {@code 0 .. linkNodes-1} get a link (2 .. network.nodes())
     * @param costs     prices the link work each node's CPU counts
     * @param config    frames, buffers and the cycle period (the pace)
     * @param idle      how the fabric thread waits between cycles and while the fabric is idle (each engine
     *                  thread takes a copy); a backing-off strategy keeps an idle fabric from holding a core
     */
    public RealTimeFabric(Network network, int linkNodes, CostTable costs, FabricLinks.Config config,
                          IdleStrategy idle) {
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(costs, "costs");
        Objects.requireNonNull(idle, "idle");
        if (linkNodes < 2 || linkNodes > network.nodes()) {
            throw new IllegalArgumentException("linkNodes must be in [2, " + network.nodes() + "], was " + linkNodes);
        }
        engine = new ThreadedEngine(time, idle, ThreadedEngine.DEFAULT_JOIN_TIMEOUT_NANOS);
        cpus = HostCpu.forNodes(linkNodes, costs, time);
        medium = new FabricLinks(network, new GuardedScheduler(), cpus, config);
        links = new GuardedLink[linkNodes];
        for (int i = 0; i < linkNodes; i++) {
            links[i] = new GuardedLink(medium.link(i));
        }
    }

    /** Starts the fabric thread. Attach the experiment's own endpoints before. Once only. */
    public void start() {
        lock.lock();
        try {
            if (started) {
                throw new IllegalStateException("real-time fabric already started");
            }
            started = true;
            startNanos = time.nanoTime();
        } finally {
            lock.unlock();
        }
        engine.attach(this);
        engine.start();
    }

    /** Stops the fabric thread and waits for it; frames in flight stay where they are. Idempotent. */
    @Override
    public void close() {
        engine.close();
        lock.lock();
        try {
            if (started && !stopped) {
                stopped = true;
                stopNanos = time.nanoTime();
            }
        } finally {
            lock.unlock();
        }
    }

    /** @return node {@code node}'s link: safe to call from any one thread at a time (a node's own thread) */
    public Link link(int node) {
        return links[Objects.checkIndex(node, links.length)];
    }

    /** @return every link, in node order (a runner's input) */
    public Link[] links() {
        return java.util.Arrays.copyOf(links, links.length, Link[].class);
    }

    /** @return node {@code node}'s CPU, which its link's work is counted on */
    public HostCpu cpu(int node) {
        return cpus[Objects.checkIndex(node, cpus.length)];
    }

    /** @return the exception that stopped the fabric thread (a cycle threw), or null */
    public Throwable failure() {
        return engine.failure();
    }

    /** @return network cycles stepped so far */
    public long cyclesStepped() {
        return locked(medium::cyclesStepped);
    }

    /** @return frames the drop-on-block fabric discarded (invisible to the senders) */
    public long framesDropped() {
        return locked(medium::framesDropped);
    }

    /** @return frames discarded for {@code reason} */
    public long drops(DropReason reason) {
        return locked(() -> medium.drops(reason));
    }

    /** @return packets of the experiment's own traffic that reached link nodes (counted, not delivered) */
    public long foreignPackets() {
        return locked(medium::foreignPackets);
    }

    /**
     * @return wall-clock nanoseconds per stepped cycle from {@link #start()} to now (or to {@link #close()}): the
     *     configured {@code cycleNanos} when the fabric kept pace, more when it ran as fast as it could (only
     *     meaningful for a fabric kept busy; an idle fabric steps nothing while the wall clock runs)
     */
    public double nanosPerCycle() {
        lock.lock();
        try {
            long end = stopped ? stopNanos : time.nanoTime();
            long cycles = medium.cyclesStepped();
            return cycles == 0 ? Double.NaN : (double) (end - startNanos) / cycles;
        } finally {
            lock.unlock();
        }
    }

    /** {@inheritDoc} "fabric": the engine thread's name. */
    @Override
    public String name() {
        return "fabric";
    }

    /**
     * Nothing untimed: all of the fabric's work is its cycle timer, which the engine thread polls every pass. The
     * model is what gives the fabric an engine thread of its own.
     */
    @Override
    public int service() {
        return 0;
    }

    /** @return {@code counter} read under the lock (the fabric thread writes it) */
    private long locked(java.util.function.LongSupplier counter) {
        lock.lock();
        try {
            return counter.getAsLong();
        } finally {
            lock.unlock();
        }
    }

    /** The engine's real time, with every timer action (the fabric's cycle) run under the lock. */
    private final class GuardedScheduler implements Scheduler {
        @Override
        public long nanoTime() {
            return time.nanoTime();
        }

        @Override
        public boolean isVirtual() {
            return false;
        }

        @Override
        public Timer newTimer(String name, Runnable action) {
            Objects.requireNonNull(action, "action");
            return time.newTimer(name, () -> {
                lock.lock();
                try {
                    action.run();
                } finally {
                    lock.unlock();
                }
            });
        }
    }

    /** A node's {@link FabricLinks} link with every call made under the lock; handlers see this link. */
    private final class GuardedLink implements Link, PacketClasses, LinkHandler {
        private final Link inner;
        private final PacketClasses innerClasses;
        private LinkHandler handler; // the poll in progress's handler (node thread, under the lock)
        private volatile Runnable listener;
        /**
         * Set when a poll may find work: by the inner link's readiness notification (fabric thread, under the lock),
         * after a full batch and after an abort; cleared under the lock before the inner poll, so a notification
         * after that sets it again.
         */
        private volatile boolean mayHaveWork = true;

        GuardedLink(Link inner) {
            this.inner = inner;
            this.innerClasses = inner.capability(PacketClasses.class);
            inner.readinessListener(this::ready);
        }

        private void ready() {
            mayHaveWork = true;
            Runnable l = listener;
            if (l != null) {
                l.run();
            }
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public void hostCpu(HostCpu cpu) {
            lock.lock();
            try {
                inner.hostCpu(cpu);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public int self() {
            return inner.self();
        }

        @Override
        public int peers() {
            return inner.peers();
        }

        @Override
        public int mtu() {
            return inner.mtu();
        }

        @Override
        public boolean canBroadcast() {
            return inner.canBroadcast();
        }

        @Override
        public int claim(int peer) {
            lock.lock();
            try {
                return inner.claim(peer);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public int claim(int peer, int packetClass) {
            lock.lock();
            try {
                return innerClasses.claim(peer, packetClass);
            } finally {
                lock.unlock();
            }
        }

        /** The slot is the caller's from claim to commit: filling it needs no lock, handing it over does. */
        @Override
        public MemorySegment txBuffer(int txHandle) {
            lock.lock();
            try {
                return inner.txBuffer(txHandle);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void commit(int txHandle, int length) {
            lock.lock();
            try {
                inner.commit(txHandle, length);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void abort(int txHandle) {
            lock.lock();
            try {
                inner.abort(txHandle);
                mayHaveWork = true; // a freed slot may end a refusal: the next poll checks for onWritable
            } finally {
                lock.unlock();
            }
        }

        @Override
        public int poll(LinkHandler h, int limit) {
            Objects.requireNonNull(h, "handler");
            if (!mayHaveWork) {
                return 0;
            }
            lock.lock();
            try {
                mayHaveWork = false;
                handler = h;
                int n = inner.poll(this, limit);
                if (n == limit) {
                    mayHaveWork = true; // more may be queued
                }
                return n;
            } finally {
                handler = null;
                lock.unlock();
            }
        }

        /** The inner link's callback during {@link #poll}: handed on with this link as the source. */
        @Override
        public void onFrame(Link from, int rxHandle) {
            handler.onFrame(this, rxHandle);
        }

        @Override
        public void onWritable(Link from) {
            handler.onWritable(this);
        }

        @Override
        public int rxPeer(int rxHandle) {
            lock.lock();
            try {
                return inner.rxPeer(rxHandle);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public int rxClass(int rxHandle) {
            lock.lock();
            try {
                return innerClasses.rxClass(rxHandle);
            } finally {
                lock.unlock();
            }
        }

        /** A held frame is the caller's until release: reading it needs no lock, handing it back does. */
        @Override
        public MemorySegment rxBuffer(int rxHandle) {
            lock.lock();
            try {
                return inner.rxBuffer(rxHandle);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public int rxLength(int rxHandle) {
            lock.lock();
            try {
                return inner.rxLength(rxHandle);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void release(int rxHandle) {
            lock.lock();
            try {
                inner.release(rxHandle);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void readinessListener(Runnable listener) {
            this.listener = listener;
        }

        @Override
        public <C> C capability(Class<C> type) {
            return type == PacketClasses.class ? type.cast(this) : null;
        }

        /** Counted under the lock by the node's calls and the fabric's deliveries: exact only once both stopped. */
        @Override
        public PortCounters counters() {
            return inner.counters();
        }

        @Override
        public void close() {
            lock.lock();
            try {
                inner.close();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public String toString() {
            lock.lock();
            try {
                return inner.toString();
            } finally {
                lock.unlock();
            }
        }
    }
}
