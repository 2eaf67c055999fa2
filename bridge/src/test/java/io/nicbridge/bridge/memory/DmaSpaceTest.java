package io.nicbridge.bridge.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DmaSpaceTest {
    private Arena arena;

    @BeforeEach
    void open() {
        arena = Arena.ofShared();
    }

    @AfterEach
    void close() {
        arena.close();
    }

    private MemorySegment native_(long size) {
        return arena.allocate(size, 4096);
    }

    // ------------------------------------------------------------------ registration

    @Test
    void registerPlacesRegionsPageAlignedBelow4GiBWithGuardGapsAndNeverAtZero() {
        DmaSpace dma = new DmaSpace("t");
        long a = dma.register("a", native_(100));
        long b = dma.register("b", native_(8192));
        long c = dma.register("c", native_(4096));
        assertEquals(DmaSpace.FIRST_BUS_ADDRESS, a);
        assertEquals(0, b % DmaSpace.PAGE);
        assertEquals(0, c % DmaSpace.PAGE);
        assertTrue(b >= a + DmaSpace.PAGE + DmaSpace.GUARD_GAP, "guard gap after a");
        assertTrue(c >= b + 8192 + DmaSpace.GUARD_GAP, "guard gap after b");
        assertTrue(c + 4096 <= 0x1_0000_0000L);
    }

    @Test
    void registerReusesTheHoleLeftByUnregister() {
        DmaSpace dma = new DmaSpace("t");
        long a = dma.register(native_(4096));
        long b = dma.register(native_(4096));
        long c = dma.register(native_(4096));
        dma.unregister(b);
        assertEquals(b, dma.register(native_(4096)), "first fit takes the freed range");
        assertNotEquals(a, c);
    }

    @Test
    void registerRejectsBadSegmentsWithClearMessages() {
        DmaSpace dma = new DmaSpace("t");
        IllegalArgumentException heap = assertThrows(IllegalArgumentException.class,
            () -> dma.register("h", MemorySegment.ofArray(new byte[64])));
        assertTrue(heap.getMessage().contains("Java heap"), heap.getMessage());
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
            () -> dma.register("z", native_(64).asSlice(0, 0)));
        assertTrue(empty.getMessage().contains("zero length"), empty.getMessage());
        IllegalArgumentException ro = assertThrows(IllegalArgumentException.class,
            () -> dma.register("r", native_(64).asReadOnly()));
        assertTrue(ro.getMessage().contains("read-only"), ro.getMessage());
        MemorySegment dead;
        try (Arena a = Arena.ofConfined()) {
            dead = a.allocate(64);
        }
        MemorySegment closed = dead;
        IllegalArgumentException gone = assertThrows(IllegalArgumentException.class, () -> dma.register("c", closed));
        assertTrue(gone.getMessage().contains("closed"), gone.getMessage());
        assertEquals(0, dma.regions().size());
    }

    @Test
    void registerRejectsTooManyRegions() {
        DmaSpace dma = new DmaSpace("t", BusWidth.BITS_32, 3);
        for (int i = 0; i < 3; i++) {
            dma.register(native_(16));
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> dma.register("x", native_(16)));
        assertTrue(e.getMessage().contains("all 3 regions"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new DmaSpace("t", BusWidth.BITS_32, 0));
    }

    @Test
    void registerAtRejectsOverlapsMisalignmentZeroAndRangesBeyondTheBus() {
        DmaSpace dma = new DmaSpace("t");
        dma.registerAt("a", native_(8192), 0x10_0000);
        IllegalArgumentException overlap = assertThrows(IllegalArgumentException.class,
            () -> dma.registerAt("b", native_(4096), 0x10_1000));
        assertTrue(overlap.getMessage().contains("overlaps region 'a'"), overlap.getMessage());
        assertThrows(IllegalArgumentException.class, () -> dma.registerAt("c", native_(8192), 0x0F_F000));
        assertEquals(0x10_2000, dma.registerAt("adjacent", native_(4096), 0x10_2000), "touching is not overlapping");
        assertThrows(IllegalArgumentException.class, () -> dma.registerAt("zero", native_(4096), 0));
        assertThrows(IllegalArgumentException.class, () -> dma.registerAt("odd", native_(4096), 0x20_0800));
        assertThrows(IllegalArgumentException.class, () -> dma.registerAt("neg", native_(4096), -4096));
        IllegalArgumentException wide = assertThrows(IllegalArgumentException.class,
            () -> dma.registerAt("wide", native_(8192), 0xFFFF_F000L));
        assertTrue(wide.getMessage().contains("bus limit"), wide.getMessage());
        assertEquals(0xFFFF_F000L, dma.registerAt("top", native_(4096), 0xFFFF_F000L), "last page fits");
    }

    @Test
    void unregisterOfAnUnknownBaseIsRejected() {
        DmaSpace dma = new DmaSpace("t");
        long a = dma.register("a", native_(4096));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> dma.unregister(a + 4));
        assertTrue(e.getMessage().contains("no region starts at"), e.getMessage());
        dma.unregister(a);
        assertThrows(IllegalArgumentException.class, () -> dma.unregister(a));
    }

    @Test
    void thirtyTwoBitSpaceRunsOutOfRoomWithAClearError() {
        DmaSpace dma = new DmaSpace("t");
        // 4 GiB of address space cannot be backed by real memory here; reserve most of it with registerAt
        // of one page at the top, then ask for a segment that cannot fit anywhere after it.
        dma.registerAt("top", native_(4096), 0xFFFF_F000L);
        MemorySegment big = MemorySegment.ofAddress(native_(4096).address()).reinterpret(0x1_0000_0000L - 0x1_0000L);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> dma.register("big", big));
        assertTrue(e.getMessage().contains("no room"), e.getMessage());
    }

    // ------------------------------------------------------------------ systematic bad (address, length)

    /** Three regions with gaps: [A, A+100), [B, B+4096), [C, C+10000); B/C registered adjacent to test straddling. */
    @Test
    void everyBoundaryOfEveryRegionTranslatesExactly() {
        DmaSpace dma = new DmaSpace("t");
        long[] sizes = {100, 4096, 10_000};
        long[] bases = new long[3];
        MemorySegment[] segs = new MemorySegment[3];
        for (int i = 0; i < 3; i++) {
            segs[i] = native_(sizes[i]);
            bases[i] = dma.register("r" + i, segs[i]);
        }
        for (int i = 0; i < 3; i++) {
            long base = bases[i];
            long size = sizes[i];
            long end = base + size;
            String r = "region " + i;
            assertHit(dma, base, 1, segs[i], 0, r + " first byte");
            assertHit(dma, end - 1, 1, segs[i], size - 1, r + " last byte");
            assertHit(dma, base, size, segs[i], 0, r + " whole region");
            assertHit(dma, base + 1, size - 1, segs[i], 1, r + " up to last byte");
            assertMiss(dma, end, 1, BusError.NO_REGION, r + " one past the end");
            assertMiss(dma, base - 1, 1, BusError.NO_REGION, r + " one before the start");
            assertMiss(dma, base - 1, 2, BusError.NO_REGION, r + " starting in the gap, ending inside");
            assertMiss(dma, base, size + 1, BusError.OUT_OF_REGION, r + " one byte too long");
            assertMiss(dma, end - 1, 2, BusError.OUT_OF_REGION, r + " last byte + 1");
            assertMiss(dma, base, 0, BusError.BAD_LENGTH, r + " zero length");
            assertMiss(dma, base, -1, BusError.BAD_LENGTH, r + " negative length");
            assertMiss(dma, base, Long.MIN_VALUE, BusError.BAD_LENGTH, r + " Long.MIN_VALUE length");
            assertMiss(dma, base, Long.MAX_VALUE, BusError.ADDRESS_WRAP, r + " Long.MAX_VALUE length");
            assertMiss(dma, end - 1, Long.MAX_VALUE, BusError.ADDRESS_WRAP, r + " overflowing bus+len");
            assertMiss(dma, base, 0x1_0000_0000L, BusError.ADDRESS_WRAP, r + " 4 GiB length");
        }
        // gaps between regions: the guard pages and padding belong to nobody
        for (int i = 0; i < 2; i++) {
            long gapStart = bases[i] + sizes[i];
            for (long a = gapStart; a < bases[i + 1]; a += 509) {
                assertMiss(dma, a, 1, BusError.NO_REGION, "gap after region " + i + " at " + a);
            }
        }
        // straddling from one region across the gap into the next
        assertMiss(dma, bases[1] + 4000, bases[2] - bases[1], BusError.OUT_OF_REGION, "straddle 1->2");
        // addresses no one can have
        assertMiss(dma, 0, 1, BusError.NO_REGION, "address 0");
        assertMiss(dma, 0, 4, BusError.NO_REGION, "address 0, one word");
        assertMiss(dma, DmaSpace.FIRST_BUS_ADDRESS - 1, 1, BusError.NO_REGION, "below the first region");
        assertMiss(dma, -1, 1, BusError.ADDRESS_WRAP, "negative address");
        assertMiss(dma, Long.MIN_VALUE, 1, BusError.ADDRESS_WRAP, "Long.MIN_VALUE address");
        assertMiss(dma, Long.MAX_VALUE, 1, BusError.ADDRESS_WRAP, "Long.MAX_VALUE address");
        assertMiss(dma, Long.MAX_VALUE, Long.MAX_VALUE, BusError.ADDRESS_WRAP, "both MAX");
        // 32-bit wrap: ranges crossing or beyond 4 GiB
        assertMiss(dma, 0xFFFF_FFFFL, 1, BusError.NO_REGION, "last 32-bit byte, unmapped");
        assertMiss(dma, 0xFFFF_FFFFL, 2, BusError.ADDRESS_WRAP, "crossing 4 GiB");
        assertMiss(dma, 0xFFFF_FFFCL, 8, BusError.ADDRESS_WRAP, "word pair crossing 4 GiB");
        assertMiss(dma, 0x1_0000_0000L, 1, BusError.ADDRESS_WRAP, "exactly 4 GiB");
        assertMiss(dma, 0x1_0000_0000L + bases[0], 1, BusError.ADDRESS_WRAP, "region alias above 4 GiB");
        // unregistered: every address of a removed region is a bus error, its neighbours unaffected
        dma.unregister(bases[1]);
        assertMiss(dma, bases[1], 1, BusError.NO_REGION, "after unregister: first byte");
        assertMiss(dma, bases[1] + 4095, 1, BusError.NO_REGION, "after unregister: last byte");
        assertHit(dma, bases[2], 1, segs[2], 0, "neighbour still mapped");
        assertHit(dma, bases[0], 100, segs[0], 0, "neighbour still mapped");
    }

    @Test
    void adjacentRegionsStraddleIsAnError() {
        DmaSpace dma = new DmaSpace("t");
        MemorySegment a = native_(4096);
        MemorySegment b = native_(4096);
        dma.registerAt("a", a, 0x20_0000);
        dma.registerAt("b", b, 0x20_1000);
        assertHit(dma, 0x20_0FFC, 4, a, 4092, "last word of a");
        assertHit(dma, 0x20_1000, 4, b, 0, "first word of b");
        assertMiss(dma, 0x20_0FFE, 4, BusError.OUT_OF_REGION, "word straddling a|b");
        assertMiss(dma, 0x20_0000, 8192, BusError.OUT_OF_REGION, "a and b as one range");
    }

    @Test
    void sixtyFourBitSpaceHasNo4GiBLimitButStillChecksOverflow() {
        DmaSpace dma = new DmaSpace("t64", BusWidth.BITS_64, 4);
        MemorySegment s = native_(4096);
        long high = 0x7FFF_FFFF_FFFF_F000L;
        dma.registerAt("high", s, high);
        assertHit(dma, high + 4095, 1, s, 4095, "last byte below 2^63");
        assertMiss(dma, high + 4095, 2, BusError.ADDRESS_WRAP, "crossing 2^63");
        assertMiss(dma, high, Long.MAX_VALUE, BusError.ADDRESS_WRAP, "Long.MAX_VALUE length");
        long low = dma.register("low", native_(64));
        assertEquals(DmaSpace.FIRST_BUS_ADDRESS, low);
        assertMiss(dma, 0x1_0000_0000L, 1, BusError.NO_REGION, "4 GiB is just unmapped here");
    }

    @Test
    void emptySpaceRejectsEverything() {
        DmaSpace dma = new DmaSpace("t");
        assertMiss(dma, DmaSpace.FIRST_BUS_ADDRESS, 1, BusError.NO_REGION, "empty table");
        BusErrorException e = assertThrows(BusErrorException.class, () -> dma.slice(0x1_0000, 4));
        assertTrue(e.getMessage().contains("no regions are registered"), e.getMessage());
    }

    private static void assertHit(DmaSpace dma, long bus, long len, MemorySegment expected, long offset, String what) {
        int r = dma.translate(bus, len);
        assertTrue(r >= 0, what + ": expected a hit, got " + BusError.name(r) + " — " + dma.describe(bus, len));
        assertEquals(expected.address(), dma.region(r).address(), what);
        assertEquals(offset, dma.offset(r, bus), what);
    }

    private static void assertMiss(DmaSpace dma, long bus, long len, int code, String what) {
        long before = dma.busErrors();
        int r = dma.translate(bus, len);
        assertEquals(BusError.name(code), BusError.name(r), what + " (" + dma.describe(bus, len) + ")");
        assertEquals(before + 1, dma.busErrors(), what + ": counted");
        assertEquals(bus, dma.lastErrorAddress(), what);
        assertEquals(len, dma.lastErrorLength(), what);
        assertEquals(code, dma.lastErrorCode(), what);
        BusErrorException e = assertThrows(BusErrorException.class, () -> dma.slice(bus, len), what);
        assertEquals(code, e.code(), what);
        assertTrue(e.getMessage().contains(BusError.name(code)), e.getMessage());
        // accessors report, never throw
        if (len == 4) {
            assertEquals(code, dma.readInt(bus, ByteOrder.LITTLE_ENDIAN), what);
            assertEquals(code, dma.writeInt(bus, 7, ByteOrder.BIG_ENDIAN), what);
        }
        if (len == 8) {
            assertEquals(code, dma.writeLong(bus, 7, ByteOrder.BIG_ENDIAN), what);
        }
        MemorySegment scratch = MemorySegment.ofArray(new byte[16]);
        if (len > 0 && len <= 16) {
            assertEquals(code, dma.copyFromBus(bus, scratch, 0, len), what);
            assertEquals(code, dma.copyToBus(scratch, 0, bus, len), what);
        }
    }

    // ------------------------------------------------------------------ randomized against a reference model

    /** 100k random (bus, len) pairs, biased towards region edges, checked against a linear-scan model. */
    @Test
    void translateAgreesWithAReferenceModelOnRandomInput() {
        long seed = Long.getLong("nicbridge.test.seed", 0x21140L);
        Random random = new Random(seed);
        DmaSpace dma = new DmaSpace("model", BusWidth.BITS_32, 64);
        List<long[]> model = new ArrayList<>(); // {base, end}
        for (int i = 0; i < 24; i++) {
            long size = 1 + random.nextInt(3 * 4096);
            MemorySegment seg = native_(size);
            long base;
            if (i % 3 == 0) {
                base = dma.register("r" + i, seg);
            } else {
                long candidate = (0x100L + random.nextInt(0xFFF00)) * DmaSpace.PAGE;
                try {
                    base = dma.registerAt("r" + i, seg, candidate);
                } catch (IllegalArgumentException overlapOrTooHigh) {
                    continue;
                }
            }
            model.add(new long[] {base, base + size});
        }
        long[][] table = model.toArray(new long[0][]);
        for (int n = 0; n < 100_000; n++) {
            long bus;
            long len;
            long[] pick = table[random.nextInt(table.length)];
            switch (random.nextInt(6)) {
                case 0 -> { // near a start
                    bus = pick[0] + random.nextInt(9) - 4;
                    len = 1 + random.nextInt(64);
                }
                case 1 -> { // near an end
                    bus = pick[1] + random.nextInt(9) - 6;
                    len = 1 + random.nextInt(8);
                }
                case 2 -> { // anywhere in the 32-bit space
                    bus = random.nextLong() & 0xFFFF_FFFFL;
                    len = 1 + random.nextInt(1 << 16);
                }
                case 3 -> { // inside, random length possibly too long
                    bus = pick[0] + (long) (random.nextDouble() * (pick[1] - pick[0]));
                    len = 1 + (long) (random.nextDouble() * (pick[1] - pick[0]) * 1.2);
                }
                case 4 -> { // hostile values
                    long[] evil = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0xFFFF_FFFFL, 0x1_0000_0000L, 1, 4096};
                    bus = random.nextBoolean() ? evil[random.nextInt(evil.length)] : pick[0];
                    len = evil[random.nextInt(evil.length)];
                }
                default -> {
                    bus = random.nextLong();
                    len = random.nextLong();
                }
            }
            int expected = reference(table, bus, len);
            int actual = dma.translate(bus, len);
            if (expected >= 0) {
                assertTrue(actual >= 0, "seed " + seed + " #" + n + ": (" + bus + ", " + len + ") expected hit");
                assertEquals(table[expected][0], dma.regions().base(actual), "seed " + seed + " #" + n);
            } else {
                assertEquals(BusError.name(expected), BusError.name(actual),
                    "seed " + seed + " #" + n + ": (" + bus + ", " + len + ")");
            }
        }
    }

    /** The specification, written the slow obvious way with exact arithmetic. */
    private static int reference(long[][] table, long bus, long len) {
        if (len <= 0) {
            return BusError.BAD_LENGTH;
        }
        java.math.BigInteger last = java.math.BigInteger.valueOf(bus).add(java.math.BigInteger.valueOf(len - 1));
        if (bus < 0 || last.compareTo(java.math.BigInteger.valueOf(0xFFFF_FFFFL)) > 0) {
            return BusError.ADDRESS_WRAP;
        }
        for (int i = 0; i < table.length; i++) {
            if (bus >= table[i][0] && bus < table[i][1]) {
                return bus + len <= table[i][1] ? i : BusError.OUT_OF_REGION;
            }
        }
        return BusError.NO_REGION;
    }

    // ------------------------------------------------------------------ accessors

    @Test
    void wordAndCopyAccessorsReachTheRightBytesInBothByteOrders() {
        DmaSpace dma = new DmaSpace("t");
        MemorySegment seg = native_(256);
        long bus = dma.register(seg);
        assertEquals(0, dma.writeInt(bus + 8, 0x11223344, ByteOrder.BIG_ENDIAN));
        assertEquals(0x11, seg.get(ValueLayout.JAVA_BYTE, 8));
        assertEquals(0x44, seg.get(ValueLayout.JAVA_BYTE, 11));
        assertEquals(0x11223344L, dma.readInt(bus + 8, ByteOrder.BIG_ENDIAN));
        assertEquals(0x44332211L, dma.readInt(bus + 8, ByteOrder.LITTLE_ENDIAN));
        assertEquals(0, dma.writeInt(bus + 13, 0xFFFF_FFFE, ByteOrder.LITTLE_ENDIAN), "plain access may be unaligned");
        assertEquals(0xFFFF_FFFEL, dma.readInt(bus + 13, ByteOrder.LITTLE_ENDIAN), "read is unsigned");
        assertEquals(0, dma.writeIntRelease(bus + 16, 0x80000000, ByteOrder.LITTLE_ENDIAN));
        assertEquals(0x8000_0000L, dma.readIntAcquire(bus + 16, ByteOrder.LITTLE_ENDIAN));
        assertEquals(BusError.MISALIGNED, dma.readIntAcquire(bus + 17, ByteOrder.LITTLE_ENDIAN));
        assertEquals(BusError.MISALIGNED, dma.writeIntRelease(bus + 18, 1, ByteOrder.BIG_ENDIAN));
        assertEquals(BusError.OUT_OF_REGION, dma.readIntAcquire(bus + 254, ByteOrder.BIG_ENDIAN));
        assertEquals(0, dma.writeLong(bus + 40, 0x0102_0304_0506_0708L, ByteOrder.BIG_ENDIAN));
        assertEquals(0x01020304L, dma.readInt(bus + 40, ByteOrder.BIG_ENDIAN), "big-endian: the high word first");
        assertEquals(0x05060708L, dma.readInt(bus + 44, ByteOrder.BIG_ENDIAN));
        assertEquals(0, dma.writeLong(bus + 49, 0x0102_0304_0506_0708L, ByteOrder.LITTLE_ENDIAN), "may be unaligned");
        assertEquals(0x08, seg.get(ValueLayout.JAVA_BYTE, 49));
        assertEquals(0x01, seg.get(ValueLayout.JAVA_BYTE, 56));
        assertEquals(BusError.OUT_OF_REGION, dma.writeLong(bus + 252, -1L, ByteOrder.BIG_ENDIAN));
        assertEquals(0, seg.get(ValueLayout.JAVA_BYTE, 252), "nothing written on a bus error");

        MemorySegment local = MemorySegment.ofArray(new byte[32]);
        for (int i = 0; i < 32; i++) {
            local.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        assertEquals(0, dma.copyToBus(local, 0, bus + 224, 32));
        assertEquals(31, seg.get(ValueLayout.JAVA_BYTE, 255));
        MemorySegment back = MemorySegment.ofArray(new byte[32]);
        assertEquals(0, dma.copyFromBus(bus + 224, back, 0, 32));
        assertEquals(-1, local.mismatch(back));
        assertEquals(BusError.OUT_OF_REGION, dma.copyToBus(local, 0, bus + 225, 32));
        assertEquals(31, seg.get(ValueLayout.JAVA_BYTE, 255), "nothing written on a bus error");
        assertThrows(IndexOutOfBoundsException.class, () -> dma.copyFromBus(bus, back, 16, 32),
            "a bad local range is a caller bug");
    }

    @Test
    void anErrorCodeOrForeignIndexIsRejectedByNameAndLeavesTheCountersAlone() {
        DmaSpace dma = new DmaSpace("misuse");
        long a = dma.register("a", native_(256));
        long b = dma.register("b", native_(512));
        int miss = dma.translate(a - 1, 4);
        assertEquals(BusError.NO_REGION, miss);
        long errors = dma.busErrors();
        long lastAddress = dma.lastErrorAddress();
        int lastCode = dma.lastErrorCode();

        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> dma.region(miss));
        assertTrue(e.getMessage().contains("region index -1") && e.getMessage().contains("NO_REGION")
            && e.getMessage().contains("'misuse'"), e.getMessage());
        e = assertThrows(IndexOutOfBoundsException.class, () -> dma.offset(BusError.OUT_OF_REGION, a));
        assertTrue(e.getMessage().contains("region index -2") && e.getMessage().contains("OUT_OF_REGION"),
            e.getMessage());
        e = assertThrows(IndexOutOfBoundsException.class, () -> dma.region(2));
        assertTrue(e.getMessage().contains("region index 2") && e.getMessage().contains("2 regions"), e.getMessage());
        DmaSpace.Regions table = dma.regions();
        for (int bad : new int[] {Integer.MIN_VALUE, BusError.REGION_CLOSED, -1, 2, Integer.MAX_VALUE}) {
            assertThrows(IndexOutOfBoundsException.class, () -> table.segment(bad));
            assertThrows(IndexOutOfBoundsException.class, () -> table.region(bad));
            assertThrows(IndexOutOfBoundsException.class, () -> table.offset(bad, a));
            assertThrows(IndexOutOfBoundsException.class, () -> table.base(bad));
            assertThrows(IndexOutOfBoundsException.class, () -> table.last(bad));
            assertThrows(IndexOutOfBoundsException.class, () -> table.length(bad));
            assertThrows(IndexOutOfBoundsException.class, () -> table.label(bad));
        }
        int r = dma.translate(b, 512);
        IllegalArgumentException outside = assertThrows(IllegalArgumentException.class, () -> dma.offset(r, a));
        assertTrue(outside.getMessage().contains("bus address 0x" + Long.toHexString(a))
            && outside.getMessage().contains("'b'"), outside.getMessage());
        assertThrows(IllegalArgumentException.class, () -> table.offset(r, b + 512), "one past the end is outside");
        assertEquals(511, table.offset(r, b + 511));

        MemorySegment local = MemorySegment.ofArray(new byte[16]);
        e = assertThrows(IndexOutOfBoundsException.class, () -> dma.copyFromBus(a, local, -1, 4));
        assertTrue(e.getMessage().contains("dst range [-1, +4)"), e.getMessage());
        e = assertThrows(IndexOutOfBoundsException.class, () -> dma.copyToBus(local, 8, 0, 16));
        assertTrue(e.getMessage().contains("src range [8, +16)"), e.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> dma.copyToBus(local, Long.MAX_VALUE, a, 2));
        assertThrows(NullPointerException.class, () -> dma.readInt(a, null));
        assertThrows(NullPointerException.class, () -> dma.writeIntRelease(a, 1, null));
        assertThrows(NullPointerException.class, () -> dma.writeLong(a, 1, null));

        assertEquals(errors, dma.busErrors(), "rejected calls count no bus error");
        assertEquals(lastAddress, dma.lastErrorAddress());
        assertEquals(lastCode, dma.lastErrorCode());
        assertEquals(0, dma.copyToBus(local, 0, a, 16), "the space still works");
        assertEquals(errors, dma.busErrors());
    }

    @Test
    void busAddressOfASliceOfRegisteredMemory() {
        DmaSpace dma = new DmaSpace("t");
        MemorySegment seg = native_(8192);
        long bus = dma.register(seg);
        assertEquals(bus + 1000, dma.busAddress(seg.asSlice(1000, 100)));
        assertEquals(bus, dma.busAddress(seg));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> dma.busAddress(native_(16)));
        assertTrue(e.getMessage().contains("not inside any registered region"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> dma.busAddress(MemorySegment.ofAddress(seg.address() + 8000).reinterpret(200)));
    }

    @Test
    void sliceMessagesArePrecise() {
        DmaSpace dma = new DmaSpace("card");
        long bus = dma.register("rx ring", native_(64));
        BusErrorException e = assertThrows(BusErrorException.class, () -> dma.slice(bus + 60, 8));
        assertTrue(e.getMessage().contains("runs past the end of region 'rx ring'"), e.getMessage());
        assertTrue(e.getMessage().contains("by 4 bytes"), e.getMessage());
        assertEquals(bus + 60, e.busAddress());
        assertEquals(8, e.length());
        assertEquals(8, dma.slice(bus + 56, 8).byteSize());
    }

    @Test
    void aRegionWhoseMemoryWasFreedIsABusErrorNotACrash() {
        DmaSpace dma = new DmaSpace("t");
        Arena own = Arena.ofShared();
        long bus = dma.register(own.allocate(64));
        own.close();
        assertEquals(BusError.REGION_CLOSED, dma.translate(bus, 4));
        assertEquals(BusError.REGION_CLOSED, dma.readInt(bus, ByteOrder.BIG_ENDIAN));
        assertEquals(BusError.REGION_CLOSED, dma.writeLong(bus, 1, ByteOrder.BIG_ENDIAN));
    }

    // ------------------------------------------------------------------ concurrency

    @Test
    void translationRacingWithRegistrationSeesOnlyConsistentTables() throws Exception {
        DmaSpace dma = new DmaSpace("race");
        MemorySegment stable = native_(4096);
        long stableBus = dma.register("stable", stable);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread card = new Thread(() -> {
            try {
                long n = 0;
                while (!stop.get()) {
                    DmaSpace.Regions t = dma.regions();
                    int r = t.translate(stableBus + (n & 4095), 1);
                    if (r < 0 || t.segment(r).address() != stable.address()) {
                        throw new AssertionError("stable region lost: " + BusError.name(r));
                    }
                    int other = t.translate(stableBus + 0x4000 + (n & 0xFFFF), 1);
                    if (other >= 0 && t.offset(other, stableBus + 0x4000 + (n & 0xFFFF)) < 0) {
                        throw new AssertionError("negative offset");
                    }
                    if ((++n & 1023) == 0) {
                        Thread.yield();
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        card.start();
        MemorySegment[] segs = new MemorySegment[8];
        for (int i = 0; i < segs.length; i++) {
            segs[i] = native_(4096 * (i + 1));
        }
        for (int round = 0; round < 2000; round++) {
            long[] buses = new long[segs.length];
            for (int i = 0; i < segs.length; i++) {
                buses[i] = dma.register(segs[i]);
            }
            for (int i = 0; i < segs.length; i++) {
                dma.unregister(buses[i]);
            }
        }
        stop.set(true);
        card.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertEquals(1, dma.regions().size());
    }
}
