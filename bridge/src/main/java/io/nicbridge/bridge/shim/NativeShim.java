package io.nicbridge.bridge.shim;

import io.nicbridge.contract.NicShim;
import io.nicbridge.contract.NicShimInfo;
import io.nicbridge.contract.NicShimOptions;
import io.nicbridge.contract.NicShimStats;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One open {@code nicshim_t}: the typed Java face of {@code nicshim.h}. Every method maps to one C call and turns a
 * negative return into a {@link ShimException} naming the call, except the hot ones ({@link #kick}, {@link #poll},
 * {@link #regWrite}, {@link #regRead}) whose failures can only come from a closed or misused shim and are still
 * checked, but without building a message unless they fail.
 *
 * <p>Threads (ABI 1.1): every method but {@link #close()} may be called from any thread; the shim serialises card
 * work internally. {@link #regRead} needs a 4-byte out-parameter in native memory: each thread gets its own, made
 * once, so the call allocates nothing.
 */
public final class NativeShim implements AutoCloseable {
    private final String ifname;
    private final MemorySegment handle;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment statsBuffer;
    private final AtomicBoolean closed = new AtomicBoolean();
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
        live();
        check(NicShim.attachWindow(handle, range, window, window.byteSize()), "nicshim_attach_window", range);
    }

    /** @return the shim's region id */
    public int addDmaRegion(long busBase, MemorySegment host) {
        live();
        int id = NicShim.addDmaRegion(handle, busBase, host, host.byteSize());
        check(id, "nicshim_add_dma_region(0x" + Long.toHexString(busBase) + ")", 0);
        return id;
    }

    /** @return 0, or {@code NicShim.ERR_STATE} when the shim is running (the caller decides what to do) */
    public int removeDmaRegion(int id) {
        live();
        int rc = NicShim.removeDmaRegion(handle, id);
        if (rc < 0 && rc != NicShim.ERR_STATE) {
            check(rc, "nicshim_remove_dma_region", id);
        }
        return rc;
    }

    public void regWrite(int range, int offset, int value) {
        live();
        int rc = NicShim.regWrite(handle, range, offset, value);
        if (rc < 0) {
            check(rc, "nicshim_reg_write(range " + range + ", 0x" + Integer.toHexString(offset) + ")", 0);
        }
    }

    public int regRead(int range, int offset) {
        live();
        MemorySegment out = readBuffer.get();
        int rc = NicShim.regRead(handle, range, offset, out);
        if (rc < 0) {
            check(rc, "nicshim_reg_read(range " + range + ", 0x" + Integer.toHexString(offset) + ")", 0);
        }
        return out.get(ValueLayout.JAVA_INT, 0);
    }

    public void start() {
        live();
        check(NicShim.start(handle), "nicshim_start", 0);
    }

    public void stop() {
        live();
        check(NicShim.stop(handle), "nicshim_stop", 0);
    }

    /** Rings the doorbell(s) {@code what} ({@code NicShim.KICK_*}); never blocks. */
    public void kick(int what) {
        live();
        int rc = NicShim.kick(handle, what);
        if (rc < 0) {
            check(rc, "nicshim_kick", 0);
        }
    }

    /**
     * Does pending card work, waiting up to {@code timeoutNanos} (0..1 s) for some.
     *
     * @return the {@code NicShim.EV_*} bits that occurred
     */
    public int poll(long timeoutNanos) {
        live();
        int rc = NicShim.poll(handle, timeoutNanos);
        if (rc < 0) {
            check(rc, "nicshim_poll", 0);
        }
        return rc;
    }

    /** Copies the statistics into {@code into} (a {@link ShimStatistics}); allocation-free. */
    public ShimStatistics statistics(ShimStatistics into) {
        live();
        synchronized (statsBuffer) {
            check(NicShim.getStats(handle, statsBuffer), "nicshim_get_stats", 0);
            into.load(statsBuffer);
        }
        return into;
    }

    public ShimStatistics statistics() {
        return statistics(new ShimStatistics());
    }

    /** @return the interface's identity and state */
    public ShimInterfaceInfo info() {
        live();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(NicShimInfo.LAYOUT);
            check(NicShim.getInfo(handle, out), "nicshim_get_info", 0);
            byte[] mac = out.asSlice(NicShimInfo.OFFSET_MAC, 6).toArray(ValueLayout.JAVA_BYTE);
            return new ShimInterfaceInfo(ifname, NicShimInfo.cardKind(out, 0), NicShimInfo.ifindex(out, 0),
                NicShimInfo.mtu(out, 0), NicShimInfo.flags(out, 0), mac);
        }
    }

    /** Stops and frees the shim; the memory it was given is left alone. Must not race other calls. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            NicShim.close(handle);
            arena.close();
        }
    }

    public boolean isClosed() {
        return closed.get();
    }

    /** The handle is freed by close: a call after it must not reach C (a use after free), so it throws here. */
    private void live() {
        if (closed.get()) {
            throw new IllegalStateException("native shim on " + ifname + " is closed");
        }
    }

    private void check(int rc, String what, int arg) {
        if (rc < 0) {
            throw new ShimException(what + (arg != 0 ? " [" + arg + "]" : "") + " on " + ifname, rc);
        }
    }

    @Override
    public String toString() {
        return "NativeShim[" + ifname + (closed.get() ? ", closed" : "") + "]";
    }
}
