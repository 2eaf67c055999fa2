package io.nicbridge.bridge.shim;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.CardFailedException;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.bridge.spi.InterruptLine;
import io.nicbridge.contract.NicShim;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A card served by the native shim over a real Linux interface: the same {@link Card} contract as the emulated
 * cards, so drivers run on it unchanged.
 *
 * <pre>
 *   driver --- registers() --&gt; window in pinned native memory, shared with the shim (nicshim_attach_window)
 *                               hooked words --&gt; nicshim_reg_read / reg_write; doorbells --&gt; nicshim_kick
 *          --- dma() -------&gt; DmaSpace; every (un)mapping is mirrored into the shim (nicshim_add_dma_region),
 *                               which translates and bounds-checks every bus address itself
 *          &lt;-- interrupt() ---  driven from the card's level after each poll and each hooked write
 *   card work (nicshim_poll): THREADED - a card thread blocks in the shim's own wait (epoll on the socket and
 *                                        the kick eventfd) and does the work when a frame or kick arrives;
 *                             INLINE   - no card thread: a doorbell does the work on the ringing thread, and a
 *                                        thread waiting on the interrupt line waits inside the shim instead of
 *                                        parking, so an arriving frame wakes the thread that handles it.
 * </pre>
 *
 * <p>INLINE needs a driver that waits on the interrupt line (or calls {@link #progress()}): a driver that only
 * polls descriptors in memory never gives the card a thread, and frames stay in the kernel's ring.
 *
 * <p>The line: after each poll and each hooked register write the Java line is set to the card's level, read back
 * from its registers under one lock (see {@code syncLine}), so the line follows the card without stale edges.
 *
 * <p>Close may race every other use of the card: threads waiting on the line, pumping, ringing doorbells or
 * reading registers return or throw {@link IllegalStateException}, and every later call throws it. The shim's
 * native memory is freed only after every call has left it ({@link NativeShim#closeAndDrain()}); the register
 * windows, which the shim reads and writes, are freed only after the shim. If a thread does not leave the shim in
 * time, both are leaked (and logged) instead of freed under it.
 *
 * <p>A card thread that stops on a shim error fails the card ({@link InterruptLine#fail}): waits on the line throw
 * {@link CardFailedException} with the shim's error as the cause, instead of timing out.
 */
public final class ShimCard implements Card {
    private static final Logger LOG = LoggerFactory.getLogger(ShimCard.class);
    /** Longest wait of the card thread in one poll; a kick or a frame ends it early. */
    static final long CARD_THREAD_WAIT_NANOS = 100_000_000L;

    /** Who runs the card's work. */
    public enum Mode { THREADED, INLINE }

    private final DeviceSpec spec;
    private final String name;
    private final ShimCardKind kind;
    private final Mode mode;
    private final NativeShim shim;
    private final boolean afXdp;
    private final Arena arena = Arena.ofShared();
    private final Registers[] ranges;
    private final DmaSpace dma;
    private final InterruptLine line;
    private final Map<Long, Integer> regionIds = new HashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong linkRestarts = new AtomicLong();
    private final Thread cardThread;
    private final NamespaceRunner inNamespace;
    private final Runnable progress = this::pollNow;
    private final Object lineLock = new Object();
    private volatile boolean running = true;
    /** INLINE: the thread waiting inside the shim for the line, if any (raises on other threads wake it). */
    private volatile Thread pumper;

    /**
     * Opens the shim on {@code ifname}, sets its fault injection, attaches the windows, starts the link and (THREADED)
     * the card thread.
     *
     * @param inNamespace runs a task in the interface's network namespace (the shim's sockets are created there);
     *                    {@link NamespaceRunner#CURRENT} for the caller's own namespace
     */
    ShimCard(DeviceSpec spec, ShimCardKind kind, Mode mode, String ifname, ShimOptions options, ShimFaults faults,
             NamespaceRunner inNamespace) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.mode = Objects.requireNonNull(mode, "mode");
        this.name = "shim-" + kind.cardName() + "@" + ifname;
        this.inNamespace = Objects.requireNonNull(inNamespace, "inNamespace");
        this.shim = inNamespace.run(() -> NativeShim.open(ifname, kind.code(), options));
        this.afXdp = options != null && options.afXdp();
        try {
            if (afXdp) {
                // The UMEM: every frame of the link lives here, registered with (and pinned by) the kernel at start.
                // Page-aligned as XDP_UMEM_REG demands; freed with the windows, after the shim (and its socket).
                shim.setUmem(arena.allocate(options.umemBytes(), 4096));
            }
            if (faults.enabled()) {
                shim.setFaults(faults); // before start: the shim takes them only while stopped
            }
            this.ranges = new Registers[kind.rangeCount()];
            for (int r = 0; r < ranges.length; r++) {
                MemorySegment window = arena.allocate(kind.rangeSize(r), NicShim.WINDOW_ALIGN);
                shim.attachWindow(r, window);
                ranges[r] = new Registers(name + (ranges.length == 1 ? ".csr" : r == 0 ? ".bcr" : ".ram"), window,
                    kind.byteOrder(), new Hooks(r), kind.hookedOffsets(r));
            }
            this.dma = new DmaSpace(name);
            dma.mappingListener(new Mirror());
            this.line = new InterruptLine(name + ".irq");
            inNamespace.run(() -> {
                shim.start();
                return null;
            });
            if (mode == Mode.THREADED) {
                cardThread = Thread.ofPlatform().daemon().name(name + "-card").unstarted(this::cardLoop);
                cardThread.start();
            } else {
                cardThread = null;
                line.pump(this::pump);
            }
        } catch (RuntimeException | Error e) {
            shim.close();
            arena.close();
            throw e;
        }
        LOG.debug("{}: opened ({} mode) on {}", name, mode, shim.info().macText());
    }

    /** Runs a task in a network namespace (or the caller's own). */
    public interface NamespaceRunner extends AutoCloseable {
        <T> T run(Callable<T> task);

        /** Releases what entering the namespace holds (its thread); the card calls it when it closes. */
        @Override
        default void close() {
        }

        /** The caller's own namespace. */
        NamespaceRunner CURRENT = new NamespaceRunner() {
            @Override
            public <T> T run(Callable<T> task) {
                try {
                    return task.call();
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    // ------------------------------------------------------------------ Card

    @Override
    public String name() {
        return name;
    }

    @Override
    public DeviceSpec spec() {
        return spec;
    }

    /** The driver's window: the CSRs (21140) or the board RAM (SBA-200). */
    @Override
    public Registers registers() {
        return ranges[ranges.length - 1];
    }

    /** SBA-200 only: the Board Control Register range. */
    public Registers bcr() {
        if (kind != ShimCardKind.SBA200) {
            throw new IllegalStateException(name + ": only the SBA-200 has a BCR");
        }
        return ranges[NicShim.RANGE_SBA200_BCR];
    }

    @Override
    public DmaSpace dma() {
        return dma;
    }

    @Override
    public InterruptLine interrupt() {
        return line;
    }

    public ShimCardKind kind() {
        return kind;
    }

    public Mode mode() {
        return mode;
    }

    /** The open shim (statistics, interface info). */
    public NativeShim shim() {
        return shim;
    }

    public ShimStatistics statistics() {
        return shim.statistics();
    }

    /** Whether frames move through AF_XDP ({@code shim:afxdp}) rather than AF_PACKET. */
    public boolean afXdp() {
        return afXdp;
    }

    /** AF_XDP: what the kernel granted (attach and bind modes, program, drops). */
    public XdpInfo xdpInfo() {
        if (!afXdp) {
            throw new IllegalStateException(name + " moves frames through AF_PACKET, not AF_XDP");
        }
        return shim.xdpInfo();
    }

    /** One line for run headers: the transport and, for AF_XDP, the modes obtained. */
    public String transportText() {
        return afXdp ? xdpInfo().describe() : "AF_PACKET PACKET_MMAP";
    }

    /** Times the link had to be restarted because memory the card still used was unmapped (a driver bug). */
    public long linkRestarts() {
        return linkRestarts.get();
    }

    /**
     * Does pending card work on the calling thread without waiting: what a driver that waits for the card runs as
     * its progress hook (e.g. {@code UnetKernelDriver.open(card, bcr, card.progress())}) in INLINE mode.
     */
    public Runnable progress() {
        return progress;
    }

    /**
     * INLINE: waits inside the shim (epoll on the packet socket, the doorbell eventfd and the card's timer) for at most
     * {@code timeoutNanos} until there is card work - a frame arrived, a doorbell, a card timer -, does it on the
     * calling thread and drives the line, whose handler (the driver's interrupt or readiness handler) runs here too.
     * This is the blocking wait of a thread that is its card's interrupt handler: one wake-up per arrival, by the
     * kernel, with no card thread in between. Unlike {@link InterruptLine#await}, it returns after every round of
     * work, also when the handler acknowledged the edge at once (a readiness handler does), so the caller looks at
     * its rings after each wake-up. Allocation-free.
     *
     * @param timeoutNanos the longest wait, {@code 0..}{@link NicShim#POLL_MAX_TIMEOUT_NS} (0: work without waiting)
     * @throws IllegalArgumentException for a timeout outside that range
     * @throws IllegalStateException    for a THREADED card (its own thread does the waiting) or a closed one
     */
    public void waitForWork(long timeoutNanos) {
        if (mode != Mode.INLINE) {
            throw new IllegalStateException(name + ": waitForWork is for INLINE cards; this card's own thread waits");
        }
        if (timeoutNanos < 0 || timeoutNanos > NicShim.POLL_MAX_TIMEOUT_NS) {
            throw new IllegalArgumentException("timeoutNanos must be 0.." + NicShim.POLL_MAX_TIMEOUT_NS + ", was "
                + timeoutNanos);
        }
        pump(timeoutNanos);
    }

    // ------------------------------------------------------------------ card work

    private void cardLoop() {
        while (running) {
            try {
                shim.poll(CARD_THREAD_WAIT_NANOS);
                syncLine();
            } catch (ShimException e) {
                if (running && e.code() == NicShim.ERR_STATE) {
                    // The link is being restarted (see Mirror.unmapped): wait for it, do not die.
                    LockSupport.parkNanos(1_000_000L);
                    continue;
                }
                if (running) {
                    // logged once here; the drivers' next waits and register accesses throw with this cause
                    LOG.error("{}: card thread stops: {}", name, e.getMessage());
                    fail(e);
                }
                return;
            } catch (IllegalStateException e) {
                if (!running) {
                    return; // closed by another thread while this one was inside the shim: the expected way out
                }
                if (shim.isClosed()) {
                    // The shim was closed behind the card's back (ShimCard.shim().close()): every further call would
                    // throw at once, so stop instead of spinning, and fail the card loudly.
                    LOG.error("{}: card thread stops: the native shim was closed while the card was running", name);
                    fail(e);
                    return;
                }
                LOG.error("{}: interrupt handler failed", name, e);
            } catch (RuntimeException e) {
                // A driver's interrupt handler threw in this thread: report it, keep the card alive.
                LOG.error("{}: interrupt handler failed", name, e);
            }
        }
    }

    private void pump(long timeoutNanos) {
        if (!running) {
            throw new IllegalStateException(name + " is closed"); // a waiter must not spin on a pump that cannot work
        }
        Thread self = Thread.currentThread();
        pumper = self;
        try {
            shim.poll(Math.min(timeoutNanos, NicShim.POLL_MAX_TIMEOUT_NS));
        } finally {
            pumper = null;
        }
        syncLine();
    }

    private void pollNow() {
        if (!running) {
            throw new IllegalStateException(name + " is closed");
        }
        shim.poll(0);
        syncLine();
    }

    /** The card can do no more work: waits on its line and accesses to its registers throw with {@code cause}. */
    private void fail(Throwable cause) {
        CardFailedException failure = new CardFailedException(name, cause);
        line.fail(failure);
        for (Registers range : ranges) {
            range.fail(failure);
        }
    }

    /**
     * Sets the line to the card's level, read now. The read and the drive happen under {@link #lineLock}, and so do
     * hooked register writes, so no thread can drive the line from a level read before another thread's acknowledge:
     * the line never shows a stale edge. An interrupt handler runs inside raise() on this thread and may write
     * registers (the lock is re-entrant); another thread's register write waits for it, as with a real device lock.
     */
    private void syncLine() {
        synchronized (lineLock) {
            if (kind.interruptLevel(shim, ranges)) {
                Thread waiting = pumper;
                if (!line.isAsserted() && waiting != null && waiting != Thread.currentThread()) {
                    shim.kick(NicShim.KICK_RX); // end the other thread's wait in the shim: it waits for this edge
                }
                line.raise();
            } else {
                line.lower();
            }
        }
    }

    /** Register hooks: every hooked access goes to the shim, doorbells kick it; then the line follows the card. */
    private final class Hooks implements RegisterSideEffects {
        private final int range;

        Hooks(int range) {
            this.range = range;
        }

        @Override
        public int onRead(int offset, int storedValue) {
            return kind.readHasSideEffects(range, offset) ? shim.regRead(range, offset) : storedValue;
        }

        @Override
        public void onWrite(int offset, int value) {
            int kicks = kind.doorbell(range, offset);
            if (kicks == 0) {
                synchronized (lineLock) { // the write and the level it leads to, as one step (see syncLine)
                    shim.regWrite(range, offset, value);
                    syncLine();
                }
                return;
            }
            if (!kind.doorbellOnly(range, offset)) {
                shim.regWrite(range, offset, value);
            }
            shim.kick(kicks);
            if (mode == Mode.INLINE) {
                pollNow(); // THREADED: the card thread polls, then sets the line
            }
        }
    }

    /** Mirrors the Java DMA table into the shim, which translates bus addresses on its own. */
    private final class Mirror implements DmaSpace.MappingListener {
        @Override
        public void mapped(long busAddress, MemorySegment segment, String label) {
            int id = shim.addDmaRegion(busAddress, segment);
            synchronized (regionIds) {
                regionIds.put(busAddress, id);
            }
        }

        @Override
        public void unmapped(long busAddress, MemorySegment segment) {
            Integer id;
            synchronized (regionIds) {
                id = regionIds.remove(busAddress);
            }
            if (id == null) {
                return;
            }
            if (shim.isClosed()) {
                // Closing: the card stops reaching the region once close has drained the shim; wait for that before
                // the caller frees the memory.
                drainBeforeFree(busAddress);
                return;
            }
            int rc;
            try {
                rc = shim.removeDmaRegion(id);
            } catch (IllegalStateException closedMeanwhile) {
                drainBeforeFree(busAddress);
                return;
            }
            if (rc == NicShim.ERR_STATE) {
                // The card still holds a pointer into the region (a U-Net endpoint not yet destroyed) and the memory
                // may be freed right after this returns: stop the link, remove, restart. Frames the kernel held for
                // the closed sockets are lost, so this is a driver bug worth a warning, not a normal path.
                LOG.warn("{}: DMA region at bus 0x{} was unmapped while the card still used it; restarting the link",
                    name, Long.toHexString(busAddress));
                linkRestarts.incrementAndGet();
                synchronized (ShimCard.this) {
                    try {
                        shim.stop();
                        shim.removeDmaRegion(id);
                        if (running) {
                            inNamespace.run(() -> { // the link's sockets are created in the interface's namespace
                                shim.start();
                                return null;
                            });
                        }
                    } catch (IllegalStateException closedMeanwhile) {
                        if (!shim.isClosed()) {
                            throw closedMeanwhile;
                        }
                        drainBeforeFree(busAddress); // closed by another thread: its drain keeps the card off the region
                    }
                }
            }
        }
    }

    /**
     * Waits until no thread is inside the closing shim, so the card can no longer reach an unmapped region. When a
     * thread stayed inside (the shim is leaked), the region's memory must be leaked too: this throws, and the
     * caller that was about to free it (a driver's close) does not.
     */
    private void drainBeforeFree(long busAddress) {
        if (shim.closeAndDrain() == NativeShim.CloseOutcome.LEAKED) {
            throw new IllegalStateException(name + ": a thread is still inside the native shim, so the DMA region at"
                + " bus 0x" + Long.toHexString(busAddress) + " may still be reached by the card; leak it, do not free it");
        }
    }

    // ------------------------------------------------------------------ close

    /**
     * Closes the shim (which refuses new calls, ends the waits of threads inside it and frees its memory once they
     * have left), stops the card thread, then frees the register windows - unless the shim had to be leaked, when
     * the windows are leaked with it. Safe against any other thread using the card meanwhile. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        running = false;
        line.pump(null);
        // Waiters on the line wake and throw; host register accesses throw before they reach the window or the shim.
        fail(new IllegalStateException(name + " was closed"));
        NativeShim.CloseOutcome outcome = shim.closeAndDrain();
        if (cardThread != null && cardThread != Thread.currentThread()) {
            try {
                cardThread.join(TimeUnit.NANOSECONDS.toMillis(NativeShim.DRAIN_TIMEOUT_NANOS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (outcome == NativeShim.CloseOutcome.FREED) {
            // A Java thread still reading a window now gets IllegalStateException from FFM; the shim is gone.
            arena.close();
        } else {
            LOG.error("{}: register windows leaked with the shim (a thread did not leave it)", name);
        }
        inNamespace.close();
        LOG.debug("{}: closed", name);
    }

    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public String toString() {
        return "ShimCard[" + name + ", " + mode + "]";
    }
}
