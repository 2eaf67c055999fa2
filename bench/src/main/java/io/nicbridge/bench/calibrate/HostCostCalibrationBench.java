package io.nicbridge.bench.calibrate;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.time.EventLoop;
import io.nicbridge.bridge.time.Timer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The measurements behind the {@code measured} host cost table ({@link CalibrateCommand} runs them and derives each
 * item by the rule it names): each benchmark does one piece of host work the way this build does it. Per-byte and
 * per-word items are measured at two sizes so that the per-call overhead drops out of the slope.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HostCostCalibrationBench {
    /** Small and large sizes of the per-byte slopes: a minimum-size frame payload and an Ethernet MTU. */
    static final int SMALL = 64;
    static final int LARGE = 1500;
    static final int WORDS_SMALL = SMALL / 4;
    static final int WORDS_LARGE = LARGE / 4;
    private static final int TIMERS = 16;
    private static final int DESCRIPTORS = 64;
    private static final int DESCRIPTOR_BYTES = 16;
    private static final int OWN = 0x8000_0000;
    private static final VarHandle OWNERSHIP = ValueLayout.JAVA_INT.varHandle();
    private static final ValueLayout.OfInt BE_WORD = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Arena arena;
    private EventLoop loop;
    private Timer moved;
    private Timer cancelled;
    private long armBase;
    private int flip;
    private long[] addresses;
    private int lookupIndex;
    private MemorySegment ring;
    private int postIndex;
    private int reclaimIndex;
    private MemorySegment src;
    private MemorySegment dst;
    private byte[] crcData;
    private final CRC32C crc = new CRC32C();
    private MemorySegment window;
    private Thread ponger;
    private volatile int pingSeq;
    private volatile int pongSeq;
    private volatile boolean stop;
    private Thread benchThread;
    private long handled;

    /** The handler the dispatch benchmark calls: counts, like a core that found nothing to do. */
    private final class CountingHandler implements LinkHandler {
        @Override
        public void onFrame(Link link, int rxHandle) {
            handled++;
        }

        @Override
        public void onWritable(Link link) {
            handled++;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        loop = new EventLoop("calibrate", TimeUnit.MILLISECONDS.toNanos(1));
        LinkHandler handler = new CountingHandler();
        loop.addSource(() -> {
            handler.onWritable(null);
            return 1;
        });
        long far = System.nanoTime() + TimeUnit.DAYS.toNanos(1);
        for (int i = 0; i < TIMERS; i++) {
            loop.newTimer("background" + i, () -> { }).armAt(far + i * 1_000L);
        }
        moved = loop.newTimer("moved", () -> { });
        cancelled = loop.newTimer("cancelled", () -> { });
        armBase = far + 7_500L;
        addresses = new long[64];
        for (int i = 0; i < addresses.length; i++) {
            addresses[i] = 0x0000_0200_0000_0000L + i * 0x0101_0101L; // 48-bit MACs, sorted
        }
        ring = arena.allocate((long) DESCRIPTORS * DESCRIPTOR_BYTES, 16);
        for (int i = 0; i < DESCRIPTORS; i++) {
            ring.set(ValueLayout.JAVA_INT, (long) i * DESCRIPTOR_BYTES + 4, 60 << 16); // status: a 60-byte frame
        }
        src = arena.allocate(LARGE, 64);
        dst = arena.allocate(LARGE, 64);
        crcData = new byte[LARGE];
        Arrays.fill(crcData, (byte) 0x5a);
        window = arena.allocate(LARGE, 64);
        benchThread = Thread.currentThread();
        ponger = Thread.ofPlatform().name("calibrate-ponger").daemon(true).start(this::pong);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        stop = true;
        LockSupport.unpark(ponger);
        ponger.join(10_000);
        arena.close();
    }

    /** handler-dispatch: one event-loop pass that reads the clock, finds no due timer and calls one handler. */
    @Benchmark
    public int dispatch() {
        return loop.runOnce();
    }

    /** timer-arm: re-arm one timer in a heap of 17 (it moves between two places). */
    @Benchmark
    public boolean timerArm() {
        moved.armAt(armBase + ((flip ^= 1) == 0 ? -6_000L : 6_000L));
        return moved.isArmed();
    }

    /** timer-arm + timer-cancel: arm a disarmed timer into the heap, then cancel it. */
    @Benchmark
    public boolean timerArmCancel() {
        cancelled.armAt(armBase + ((flip ^= 1) == 0 ? -6_000L : 6_000L));
        cancelled.cancel();
        return cancelled.isArmed();
    }

    /** table-lookup: a binary search of a 64-entry sorted address table (source address to peer). */
    @Benchmark
    public int tableLookup() {
        int i = lookupIndex = (lookupIndex + 37) & 63;
        return Arrays.binarySearch(addresses, addresses[i]);
    }

    /** descriptor-post: buffer address and length words, then the ownership word with release semantics. */
    @Benchmark
    public void descriptorPost() {
        long at = (long) (postIndex = (postIndex + 1) & (DESCRIPTORS - 1)) * DESCRIPTOR_BYTES;
        ring.set(ValueLayout.JAVA_INT, at + 8, 0x1000 + postIndex);
        ring.set(ValueLayout.JAVA_INT, at + 12, LARGE);
        OWNERSHIP.setRelease(ring, at, OWN);
    }

    /** descriptor-reclaim: the ownership word with acquire semantics, then status and length; hand the slot on. */
    @Benchmark
    public int descriptorReclaim() {
        long at = (long) (reclaimIndex = (reclaimIndex + 1) & (DESCRIPTORS - 1)) * DESCRIPTOR_BYTES;
        int own = (int) OWNERSHIP.getAcquire(ring, at + 0);
        int status = ring.get(ValueLayout.JAVA_INT, at + 4);
        ring.set(ValueLayout.JAVA_INT, at, 0);
        return (own & OWN) == 0 ? status >>> 16 : -1;
    }

    @Benchmark
    public MemorySegment copySmall() {
        MemorySegment.copy(src, 0, dst, 0, SMALL);
        return dst;
    }

    @Benchmark
    public MemorySegment copyLarge() {
        MemorySegment.copy(src, 0, dst, 0, LARGE);
        return dst;
    }

    @Benchmark
    public long checksumSmall() {
        crc.reset();
        crc.update(crcData, 0, SMALL);
        return crc.getValue();
    }

    @Benchmark
    public long checksumLarge() {
        crc.reset();
        crc.update(crcData, 0, LARGE);
        return crc.getValue();
    }

    @Benchmark
    public MemorySegment pioSmall() {
        return pio(WORDS_SMALL);
    }

    @Benchmark
    public MemorySegment pioLarge() {
        return pio(WORDS_LARGE);
    }

    /** Big-endian word stores into a card window, one by one, as a PIO copy loop does. */
    private MemorySegment pio(int words) {
        MemorySegment w = window;
        for (int i = 0; i < words; i++) {
            w.set(BE_WORD, (long) i * 4, i);
        }
        return w;
    }

    /**
     * interrupt: a round trip of wake-ups between this thread and a parked one (unpark, the other thread runs and
     * unparks back); one interrupt is half of it. Waits spin briefly, then park, as the event loop does.
     */
    @Benchmark
    public int interruptRoundTrip() {
        int seq = pingSeq + 1;
        pingSeq = seq;
        LockSupport.unpark(ponger);
        int spins = 0;
        while (pongSeq != seq) {
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(this, 1_000_000);
            }
        }
        return seq;
    }

    private void pong() {
        int seen = 0;
        while (!stop) {
            int seq = pingSeq;
            if (seq != seen) {
                seen = seq;
                pongSeq = seq;
                LockSupport.unpark(benchThread);
            } else {
                LockSupport.parkNanos(this, 1_000_000);
            }
        }
    }

    /** @return handler calls so far (keeps the dispatch benchmark's handler observable) */
    public long handled() {
        return handled;
    }
}
