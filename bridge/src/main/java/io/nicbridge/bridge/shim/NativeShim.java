package io.nicbridge.bridge.shim;

import io.nicbridge.contract.NicShim;
import io.nicbridge.contract.NicShimFaults;
import io.nicbridge.contract.NicShimInfo;
import io.nicbridge.contract.NicShimOptions;
import io.nicbridge.contract.NicShimStats;
import io.nicbridge.contract.NicShimXdpInfo;
import io.nicbridge.contract.NicShimXskRing;
import java.util.List;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open {@code nicshim_t}: the typed Java face of {@code nicshim.h}. Every method maps to one C call and turns a
 * negative return into a {@link ShimException} naming the call, except the hot ones ({@link #kick}, {@link #poll},
 * {@link #regWrite}, {@link #regRead}) whose failures can only come from a closed or misused shim and are still
 * checked, but without building a message unless they fail.
 *
 * <p>Threads (ABI 1.1): every method may be called from any thread, {@link #close()} included; the shim serialises
 * card work internally. {@link #regRead} needs a 4-byte out-parameter in native memory: each thread gets its own, made
 * once, so the call allocates nothing.
 *
 * <h2>Close while other threads are inside the shim</h2>
 * {@code nicshim_close} frees the handle, so it must not race any other call (nicshim.h). This class enforces that
 * with an in-flight count: every call enters (count + 1, then reads {@code closing}) and leaves (count - 1) around
 * its downcall; {@link #close()} sets {@code closing}, then reads the count. Both sides are volatile accesses, so
 * (Dekker) either the caller sees {@code closing} and refuses with {@link IllegalStateException} before reaching C,
 * or the closer sees the caller and waits for it. The closer first ends every wait inside the shim -
 * {@code nicshim_stop} makes a waiting {@code nicshim_poll} return {@code NICSHIM_ERR_STATE}, and it keeps kicking -
 * then waits up to {@link #DRAIN_TIMEOUT_NANOS} for the count to reach 0, and only then frees the handle. A thread
 * that does not leave in time (it can only be stuck in the kernel) is never freed under: the handle and this object's
 * native memory are leaked and the leak is logged as an error. The cost on every call is one atomic add on entry and
 * one on exit.
 *
 * <pre>
 *   caller:  inFlight += 1 ; if closing { inFlight -= 1 ; throw ISE }  ->  C call  ->  inFlight -= 1
 *   close:   closing = true ; nicshim_stop ; while inFlight &gt; 0 { kick ; park }  ->  nicshim_close (or leak)
 * </pre>
 */
public final class NativeShim implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NativeShim.class);
    /**
     * Longest wait of {@link #close()} for calls inside the shim: twice the longest poll, so even a waiter whose
     * wake-ups were all lost has returned by then.
     */
    public static final long DRAIN_TIMEOUT_NANOS = 2L * NicShim.POLL_MAX_TIMEOUT_NS;
    private static final VarHandle IN_FLIGHT;

    static {
        try {
            IN_FLIGHT = MethodHandles.lookup().findVarHandle(NativeShim.class, "inFlight", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What {@link #close()} did with the native memory. */
    public enum CloseOutcome {
        /** Not closed yet. */
        OPEN,
        /** Every call had left the shim: the handle and its memory were freed. */
        FREED,
        /** A call did not leave the shim within {@link #DRAIN_TIMEOUT_NANOS}: the native memory was leaked, not freed. */
        LEAKED
    }

    private final String ifname;
    private final MemorySegment handle;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment statsBuffer;
    private final Object closeLock = new Object();
    /** Calls between enter() and leave(); see the class comment. */
    private volatile int inFlight;
    /** Set once by close(), before it looks at inFlight; every later enter() refuses. */
    private volatile boolean closing;
    private volatile CloseOutcome outcome = CloseOutcome.OPEN;
    /** AF_XDP: the scope of the ring views handed out since the last start; closed before the rings are unmapped. */
    private Arena ringScope;
    private final ThreadLocal<MemorySegment> readBuffer =
        ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(ValueLayout.JAVA_INT));

    private NativeShim(String ifname, MemorySegment handle) {
        this.ifname = ifname;
        this.handle = handle;
        this.statsBuffer = arena.allocate(NicShimStats.LAYOUT);
    }

    /**
     * Opens a shim serving {@code cardKind} ({@code NicShim.CARD_*}) on interface {@code ifname}. Must run in the
     * network namespace of the interface (the caller's thread's namespace).
     *
     * @param options {@code null} for the defaults
     */
    public static NativeShim open(String ifname, int cardKind, ShimOptions options) {
        ShimLibrary.require();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment name = call.allocateFrom(ifname);
            MemorySegment opts = MemorySegment.NULL;
            if (options != null) {
                opts = call.allocate(NicShimOptions.LAYOUT);
                options.writeTo(opts);
            }
            MemorySegment error = call.allocate(ValueLayout.JAVA_INT);
            MemorySegment h = NicShim.open(name, cardKind, opts, error);
            int code = error.get(ValueLayout.JAVA_INT, 0);
            if (h.equals(MemorySegment.NULL) || code != NicShim.OK) {
                throw new ShimException("nicshim_open(" + ifname + ", card " + cardKind + ")",
                    code == NicShim.OK ? NicShim.ERR_SYSTEM : code);
            }
            return new NativeShim(ifname, h);
        }
    }

    public String interfaceName() {
        return ifname;
    }

    /** Attaches one register range: {@code window} must be native, 8-byte aligned and exactly the range's size. */
    public void attachWindow(int range, MemorySegment window) {
        enter();
        int rc;
        try {
            rc = NicShim.attachWindow(handle, range, window, window.byteSize());
        } finally {
            leave();
        }
        check(rc, "nicshim_attach_window", range);
    }

    /** @return the shim's region id */
    public int addDmaRegion(long busBase, MemorySegment host) {
        enter();
        int id;
        try {
            id = NicShim.addDmaRegion(handle, busBase, host, host.byteSize());
        } finally {
            leave();
        }
        check(id, "nicshim_add_dma_region(0x" + Long.toHexString(busBase) + ")", 0);
        return id;
    }

    /** @return 0, or {@code NicShim.ERR_STATE} when the shim is running (the caller decides what to do) */
    public int removeDmaRegion(int id) {
        enter();
        int rc;
        try {
            rc = NicShim.removeDmaRegion(handle, id);
        } finally {
            leave();
        }
        if (rc < 0 && rc != NicShim.ERR_STATE) {
            check(rc, "nicshim_remove_dma_region", id);
        }
        return rc;
    }

    public void regWrite(int range, int offset, int value) {
        enter();
        int rc;
        try {
            rc = NicShim.regWrite(handle, range, offset, value);
        } finally {
            leave();
        }
        if (rc < 0) {
            check(rc, "nicshim_reg_write(range " + range + ", 0x" + Integer.toHexString(offset) + ")", 0);
        }
    }

    public int regRead(int range, int offset) {
        MemorySegment out = readBuffer.get();
        enter();
        int rc;
        try {
            rc = NicShim.regRead(handle, range, offset, out);
        } finally {
            leave();
        }
        if (rc < 0) {
            check(rc, "nicshim_reg_read(range " + range + ", 0x" + Integer.toHexString(offset) + ")", 0);
        }
        return out.get(ValueLayout.JAVA_INT, 0);
    }

    /**
     * AF_XDP: hands the shim its UMEM ({@code nicshim_set_umem}): native, page-aligned, at least
     * {@link ShimOptions#umemBytes()}, valid until this shim is closed. Only while stopped.
     */
    public void setUmem(MemorySegment umem) {
        enter();
        int rc;
        try {
            rc = NicShim.setUmem(handle, umem, umem.byteSize());
        } finally {
            leave();
        }
        check(rc, "nicshim_set_umem(" + umem.byteSize() + " B at 0x" + Long.toHexString(umem.address()) + ")", 0);
    }

    /**
     * Fault injection ({@code nicshim_set_faults}, ABI 1.4): {@link ShimFaults#NONE} turns it off. Only while stopped;
     * restarts the shim's generators from the seed.
     */
    public void setFaults(ShimFaults faults) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment f = call.allocate(NicShimFaults.LAYOUT);
            faults.writeTo(f);
            enter();
            int rc;
            try {
                rc = NicShim.setFaults(handle, f);
            } finally {
                leave();
            }
            check(rc, "nicshim_set_faults(" + faults + ")", 0);
        }
    }

    /** AF_XDP: the modes obtained, the program id and the socket's XDP_STATISTICS. */
    public XdpInfo xdpInfo() {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(NicShimXdpInfo.LAYOUT);
            getXdpInfo(out);
            return new XdpInfo(NicShimXdpInfo.attachMode(out, 0), NicShimXdpInfo.bindMode(out, 0),
                NicShimXdpInfo.queue(out, 0), NicShimXdpInfo.progId(out, 0), NicShimXdpInfo.chunkSize(out, 0),
                NicShimXdpInfo.flags(out, 0), NicShimXdpInfo.umemBase(out, 0), NicShimXdpInfo.umemLength(out, 0),
                NicShimXdpInfo.rxDropped(out, 0), NicShimXdpInfo.rxRingFull(out, 0),
                NicShimXdpInfo.txInvalidDescs(out, 0));
        }
    }

    /**
     * AF_XDP: the four mapped rings, FILL, RX, TX, COMPLETION, as segments (see {@link XskRing}). Valid until the shim
     * stops; afterwards every access throws {@link IllegalStateException}.
     *
     * @throws IllegalStateException when the shim is not running
     */
    public synchronized List<XskRing> xskRings() {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(NicShimXdpInfo.LAYOUT);
            getXdpInfo(out);
            if ((NicShimXdpInfo.flags(out, 0) & NicShim.XDP_INFO_RUNNING) == 0) {
                throw new IllegalStateException("native shim on " + ifname + ": the AF_XDP rings exist only while it runs");
            }
            if (ringScope == null) {
                ringScope = Arena.ofShared();
            }
            return List.of(ring("fill", out, NicShimXdpInfo.fillBase(0)), ring("rx", out, NicShimXdpInfo.rxBase(0)),
                ring("tx", out, NicShimXdpInfo.txBase(0)), ring("completion", out, NicShimXdpInfo.completionBase(0)));
        }
    }

    private XskRing ring(String name, MemorySegment info, long base) {
        return new XskRing(name, NicShimXskRing.producer(info, base), NicShimXskRing.consumer(info, base),
            NicShimXskRing.flags(info, base), NicShimXskRing.desc(info, base), NicShimXskRing.size(info, base),
            NicShimXskRing.entrySize(info, base), ringScope);
    }

    private void getXdpInfo(MemorySegment out) {
        enter();
        int rc;
        try {
            rc = NicShim.getXdpInfo(handle, out);
        } finally {
            leave();
        }
        check(rc, "nicshim_get_xdp_info", 0);
    }

    /** Ring views die before the mappings do. */
    private synchronized void closeRingViews() {
        if (ringScope != null) {
            ringScope.close();
            ringScope = null;
        }
    }

    public void start() {
        enter();
        int rc;
        try {
            rc = NicShim.start(handle);
        } finally {
            leave();
        }
        check(rc, "nicshim_start", 0);
    }

    public void stop() {
        closeRingViews();
        enter();
        int rc;
        try {
            rc = NicShim.stop(handle);
        } finally {
            leave();
        }
        check(rc, "nicshim_stop", 0);
    }

    /** Rings the doorbell(s) {@code what} ({@code NicShim.KICK_*}); never blocks. */
    public void kick(int what) {
        enter();
        int rc;
        try {
            rc = NicShim.kick(handle, what);
        } finally {
            leave();
        }
        if (rc < 0) {
            check(rc, "nicshim_kick", 0);
        }
    }

    /**
     * Does pending card work, waiting up to {@code timeoutNanos} (0..1 s) for some.
     *
     * @return the {@code NicShim.EV_*} bits that occurred
     * @throws IllegalStateException when the shim is closed, or was closed by another thread during the wait
     */
    public int poll(long timeoutNanos) {
        enter();
        int rc;
        try {
            rc = NicShim.poll(handle, timeoutNanos);
        } finally {
            leave();
        }
        if (rc < 0) {
            check(rc, "nicshim_poll", 0);
        }
        return rc;
    }

    /** Copies the statistics into {@code into} (a {@link ShimStatistics}); allocation-free. */
    public ShimStatistics statistics(ShimStatistics into) {
        enter();
        try {
            synchronized (statsBuffer) {
                check(NicShim.getStats(handle, statsBuffer), "nicshim_get_stats", 0);
                into.load(statsBuffer);
            }
        } finally {
            leave();
        }
        return into;
    }

    public ShimStatistics statistics() {
        return statistics(new ShimStatistics());
    }

    /** @return the interface's identity and state */
    public ShimInterfaceInfo info() {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(NicShimInfo.LAYOUT);
            enter();
            int rc;
            try {
                rc = NicShim.getInfo(handle, out);
            } finally {
                leave();
            }
            check(rc, "nicshim_get_info", 0);
            byte[] mac = out.asSlice(NicShimInfo.OFFSET_MAC, 6).toArray(ValueLayout.JAVA_BYTE);
            return new ShimInterfaceInfo(ifname, NicShimInfo.cardKind(out, 0), NicShimInfo.ifindex(out, 0),
                NicShimInfo.mtu(out, 0), NicShimInfo.flags(out, 0), mac);
        }
    }

    /**
     * Refuses new calls, ends the waits of threads inside the shim, waits (up to {@link #DRAIN_TIMEOUT_NANOS}) until
     * every call has left, then stops and frees the shim; the memory it was given is left alone. Safe to call while
     * other threads are inside any method: those return or throw {@link IllegalStateException}, later calls throw
     * it. When a call does not leave in time, nothing is freed (see {@link CloseOutcome#LEAKED}). Idempotent; a
     * second caller returns when the first has finished.
     *
     * @return what happened to the native memory
     */
    public CloseOutcome closeAndDrain() {
        synchronized (closeLock) {
            if (outcome != CloseOutcome.OPEN) {
                return outcome;
            }
            closing = true; // volatile store, then the volatile reads of inFlight below: see the class comment
            closeRingViews();
            if (inFlight > 0) {
                NicShim.stop(handle); // thread-safe in C: a poll waiting now returns NICSHIM_ERR_STATE at once
                long deadline = System.nanoTime() + DRAIN_TIMEOUT_NANOS;
                while (inFlight > 0 && System.nanoTime() - deadline < 0) {
                    NicShim.kick(handle, NicShim.KICK_ALL); // ends a poll that raced past the stop's wake-up
                    LockSupport.parkNanos(100_000L);
                }
                if (inFlight > 0) {
                    LOG.error("native shim on {}: {} call(s) still inside the shim {} ms after close began; its native"
                        + " memory is leaked rather than freed under them", ifname, inFlight,
                        TimeUnit.NANOSECONDS.toMillis(DRAIN_TIMEOUT_NANOS));
                    outcome = CloseOutcome.LEAKED;
                    return outcome;
                }
            }
            NicShim.close(handle);
            arena.close();
            outcome = CloseOutcome.FREED;
            return outcome;
        }
    }

    /** {@link #closeAndDrain()}, for try-with-resources. */
    @Override
    public void close() {
        closeAndDrain();
    }

    /** @return true from the moment {@link #close()} began: every later call throws {@link IllegalStateException} */
    public boolean isClosed() {
        return closing;
    }

    /** @return what close did with the native memory ({@link CloseOutcome#OPEN} before it finished) */
    public CloseOutcome closeOutcome() {
        return outcome;
    }

    /** Calls (threads) inside the shim right now; for tests and diagnostics. */
    int callsInFlight() {
        return inFlight;
    }

    /**
     * Counts the caller in before it reaches C, or refuses when close has begun: the handle may be freed at any moment
     * after that (a use after free), so the call must not reach C. Pairs with {@link #leave()} in a finally block.
     */
    private void enter() {
        IN_FLIGHT.getAndAdd(this, 1);
        if (closing) {
            IN_FLIGHT.getAndAdd(this, -1);
            throw closedException();
        }
    }

    private void leave() {
        IN_FLIGHT.getAndAdd(this, -1);
    }

    private IllegalStateException closedException() {
        return new IllegalStateException("native shim on " + ifname + " is closed");
    }

    /** A failure while close runs is the close's doing (e.g. the poll it stopped): report the close, not the code. */
    private void check(int rc, String what, int arg) {
        if (rc < 0) {
            String call = what + (arg != 0 ? " [" + arg + "]" : "") + " on " + ifname;
            if (closing) {
                IllegalStateException closed = new IllegalStateException("native shim on " + ifname
                    + " was closed during " + call);
                closed.addSuppressed(new ShimException(call, rc));
                throw closed;
            }
            throw new ShimException(call, rc);
        }
    }

    @Override
    public String toString() {
        return "NativeShim[" + ifname + (closing ? ", closed" : "") + "]";
    }
}
