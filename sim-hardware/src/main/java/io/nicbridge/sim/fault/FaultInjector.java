package io.nicbridge.sim.fault;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * Decides, frame by frame, which fault a link injects, following a {@link FaultPlan}; and counts
 * every decision by kind. Link-independent: it sees only a frame's length, so the Ethernet segment,
 * the ATM switch and the FDDI ring share it, each applying the {@link FaultKind}s its own way.
 *
 * <p>Usage, once per frame offered to the link:
 * <pre>
 *   FaultKind k = injector.next(length, firstCorruptibleByte);
 *   switch (k) { case DELAY -&gt; ... injector.delayNanos() ...;
 *                case CORRUPT -&gt; FaultInjector.flipBit(copy, 0, injector.corruptBit()); ... }
 * </pre>
 * Not thread-safe: the link calls it under its own lock (or from its single thread). Allocates
 * nothing per frame.
 */
public final class FaultInjector {
    private final FaultPlan plan;
    private final SplittableRandom random;
    private final boolean drawing;
    private final long[] counts = new long[FaultKind.count()];
    private final double pDrop;
    private final double pDuplicate;
    private final double pReorder;
    private final double pDelay;
    private final double pCorrupt;
    private long frame;
    private int nextScheduled;
    private long delayNanos;
    private long corruptBit;

    FaultInjector(FaultPlan plan) {
        this.plan = plan;
        this.random = new SplittableRandom(plan.seed());
        this.drawing = plan.hasProbabilities();
        double acc = plan.probability(FaultKind.DROP);
        this.pDrop = acc;
        acc += plan.probability(FaultKind.DUPLICATE);
        this.pDuplicate = acc;
        acc += plan.probability(FaultKind.REORDER);
        this.pReorder = acc;
        acc += plan.probability(FaultKind.DELAY);
        this.pDelay = acc;
        acc += plan.probability(FaultKind.CORRUPT);
        this.pCorrupt = acc;
    }

    public FaultPlan plan() {
        return plan;
    }

    /** Decides the fault of the next frame, which may have any bit corrupted. */
    public FaultKind next(int length) {
        return next(length, 0);
    }

    /**
     * Decides the fault of the next frame offered to the link.
     *
     * @param length the frame's length in bytes (> 0)
     * @param firstCorruptibleByte a seeded corruption inverts a bit at or after this byte, when the
     *     frame is longer (Ethernet passes 12 so that addresses survive and the frame still passes
     *     the receiver's address filter, failing only its FCS check)
     * @return the kind; for DELAY read {@link #delayNanos()}, for CORRUPT {@link #corruptBit()}
     */
    public FaultKind next(int length, int firstCorruptibleByte) {
        if (length <= 0) {
            throw new IllegalArgumentException("frame length must be > 0, was " + length);
        }
        long n = ++frame;
        FaultKind kind;
        if (nextScheduled < plan.scheduledCount() && plan.scheduledFrame(nextScheduled) == n) {
            int i = nextScheduled++;
            kind = plan.scheduledKind(i);
            long param = plan.scheduledParam(i);
            if (kind == FaultKind.DELAY) {
                delayNanos = param;
            } else if (kind == FaultKind.CORRUPT) {
                corruptBit = param == FaultPlan.SEEDED_BIT
                        ? seededBit(length, firstCorruptibleByte)
                        : param % (length * 8L);
            }
        } else if (drawing) {
            double u = random.nextDouble();
            if (u < pDrop) {
                kind = FaultKind.DROP;
            } else if (u < pDuplicate) {
                kind = FaultKind.DUPLICATE;
            } else if (u < pReorder) {
                kind = FaultKind.REORDER;
            } else if (u < pDelay) {
                kind = FaultKind.DELAY;
                delayNanos = plan.delayMinNanos() == plan.delayMaxNanos()
                        ? plan.delayMinNanos()
                        : random.nextLong(plan.delayMinNanos(), plan.delayMaxNanos() + 1);
            } else if (u < pCorrupt) {
                kind = FaultKind.CORRUPT;
                corruptBit = seededBit(length, firstCorruptibleByte);
            } else {
                kind = FaultKind.NONE;
            }
        } else {
            kind = FaultKind.NONE;
        }
        counts[kind.ordinal()]++;
        return kind;
    }

    private long seededBit(int length, int firstCorruptibleByte) {
        long from = length > firstCorruptibleByte && firstCorruptibleByte > 0 ? firstCorruptibleByte * 8L : 0;
        return random.nextLong(from, length * 8L);
    }

    /** @return the extra delay of the frame {@link #next} last returned DELAY for, in ns */
    public long delayNanos() {
        return delayNanos;
    }

    /** @return the bit index (8 x byte + bit, bit 0 least significant) to invert after CORRUPT */
    public long corruptBit() {
        return corruptBit;
    }

    /** @return frames decided so far (the number of the last one) */
    public long frames() {
        return frame;
    }

    /** @return frames that got this kind; {@link FaultKind#NONE} counts the clean ones */
    public long count(FaultKind kind) {
        return counts[kind.ordinal()];
    }

    /** @return faults injected, all kinds but NONE */
    public long injected() {
        return frame - counts[FaultKind.NONE.ordinal()];
    }

    /** Inverts bit {@code bit} (8 x byte + bit, bit 0 least significant) of the frame at {@code offset}. */
    public static void flipBit(MemorySegment frame, long offset, long bit) {
        long at = offset + (bit >>> 3);
        byte b = frame.get(ValueLayout.JAVA_BYTE, at);
        frame.set(ValueLayout.JAVA_BYTE, at, (byte) (b ^ (1 << (bit & 7))));
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("faults[").append(frame).append(" frames");
        for (FaultKind k : FaultKind.values()) {
            if (k != FaultKind.NONE && counts[k.ordinal()] > 0) {
                s.append(", ").append(k.name().toLowerCase(java.util.Locale.ROOT)).append(' ').append(counts[k.ordinal()]);
            }
        }
        return s.append(']').toString();
    }
}
