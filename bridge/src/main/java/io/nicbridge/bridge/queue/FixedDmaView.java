package io.nicbridge.bridge.queue;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * A small fixed table of bus-address regions: the minimal {@link DmaView} for tests, benchmarks and simple card
 * models. Regions are added at setup with {@link #map}; translation is a linear scan of at most
 * {@link #MAX_REGIONS} entries and allocates nothing. The project's full DMA space lives in the memory package.
 */
public final class FixedDmaView implements DmaView {
    public static final int MAX_REGIONS = 16;

    private final long[] bases = new long[MAX_REGIONS];
    private final long[] sizes = new long[MAX_REGIONS];
    private final MemorySegment[] segments = new MemorySegment[MAX_REGIONS];
    private int count;

    /**
     * Registers {@code segment} at bus addresses {@code [busBase, busBase + segment.byteSize())}.
     *
     * @return the region index
     */
    public int map(long busBase, MemorySegment segment) {
        if (segment == null) {
            throw new NullPointerException("segment must not be null");
        }
        long size = segment.byteSize();
        if (busBase < 0 || size > Long.MAX_VALUE - busBase) {
            throw new IllegalArgumentException("bus range 0x" + Long.toHexString(busBase) + " + " + size + " is not representable");
        }
        if (count == MAX_REGIONS) {
            throw new IllegalStateException("at most " + MAX_REGIONS + " regions");
        }
        for (int r = 0; r < count; r++) {
            if (busBase < bases[r] + sizes[r] && bases[r] < busBase + size) {
                throw new IllegalArgumentException("bus range [0x" + Long.toHexString(busBase) + ", 0x"
                        + Long.toHexString(busBase + size) + ") overlaps region " + r);
            }
        }
        bases[count] = busBase;
        sizes[count] = size;
        segments[count] = segment;
        return count++;
    }

    @Override
    public int translate(long busAddress, long length) {
        if (length < 0 || busAddress < 0 || busAddress > Long.MAX_VALUE - length) {
            return BAD_RANGE;
        }
        for (int r = 0; r < count; r++) {
            long rel = busAddress - bases[r];
            if (rel >= 0 && rel < sizes[r]) {
                return length <= sizes[r] - rel ? r : OUT_OF_BOUNDS;
            }
        }
        return NOT_MAPPED;
    }

    @Override
    public MemorySegment region(int region) {
        checkRegion(region);
        return segments[region];
    }

    @Override
    public long offset(int region, long busAddress) {
        checkRegion(region);
        return busAddress - bases[region];
    }

    public int regionCount() {
        return count;
    }

    private void checkRegion(int region) {
        if (region < 0 || region >= count) {
            throw new IndexOutOfBoundsException("region " + region + " is not mapped (" + count + " regions)");
        }
    }

    @Override
    public String toString() {
        return "FixedDmaView" + Arrays.toString(Arrays.copyOf(bases, count));
    }
}
