package io.nicbridge.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The generated accessors put bytes where C puts them, in each header's byte order, without allocating. */
class GeneratedAccessorsTest {

    @Test
    void dec21140DescriptorIsLittleEndian() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ring = arena.allocate(Dec21140Desc.LAYOUT, 4);
            long second = Dec21140Desc.BYTE_SIZE;
            Dec21140Desc.des2(ring, second, 0x11223344);
            Dec21140Desc.des0Release(ring, second, Dec21140.RDES0_OWN);
            assertEquals(0x44, ring.get(ValueLayout.JAVA_BYTE, second + Dec21140Desc.OFFSET_DES2));
            assertEquals((byte) 0x80, ring.get(ValueLayout.JAVA_BYTE, second + 3), "OWN is bit 31 of des0");
            assertEquals(Dec21140.RDES0_OWN, Dec21140Desc.des0Acquire(ring, second));
            assertEquals(0, Dec21140Desc.des0(ring, 0), "first descriptor untouched");
        }
    }

    @Test
    void sba200DescriptorIsBigEndian() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment desc = arena.allocate(Sba200UnetSendDesc.LAYOUT);
            Sba200UnetSendDesc.statusRelease(desc, 0, 0x01020304);
            assertEquals(0x01, desc.get(ValueLayout.JAVA_BYTE, Sba200UnetSendDesc.OFFSET_STATUS));
            assertEquals(0x04, desc.get(ValueLayout.JAVA_BYTE, Sba200UnetSendDesc.OFFSET_STATUS + 3));
            long lastBuf = Sba200UnetSendDesc.bufsBase(0, Sba200UnetSendDesc.BUFS_LENGTH - 1);
            assertEquals(Sba200UnetSendDesc.OFFSET_BUFS + 5 * Sba200UnetBuf.BYTE_SIZE, lastBuf);
            assertThrows(IndexOutOfBoundsException.class,
                    () -> Sba200UnetSendDesc.bufsBase(0, Sba200UnetSendDesc.BUFS_LENGTH));
            Sba200UnetBuf.length(desc, lastBuf, 48);
            assertEquals(48, desc.get(ValueLayout.JAVA_BYTE, lastBuf + Sba200UnetBuf.OFFSET_LENGTH + 3));
        }
    }

    @Test
    void accessOutsideTheSegmentIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = arena.allocate(Dec21140Desc.LAYOUT);
            assertThrows(IndexOutOfBoundsException.class, () -> Dec21140Desc.des3(one, Dec21140Desc.BYTE_SIZE));
            assertThrows(IndexOutOfBoundsException.class, () -> Dec21140Desc.des0(one, -4));
        }
    }

    @Test
    void accessorsDoNotAllocate() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ring = arena.allocate(Dec21140Desc.LAYOUT, 64);
            long sink = spin(ring, 50_000); // warm up: interpreter, C1, C2
            long before = threads.getCurrentThreadAllocatedBytes();
            sink += spin(ring, 200_000);
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertTrue(allocated < 1024, "accessors allocated " + allocated + " bytes in 200k rounds");
            assertTrue(sink != 0);
        }
    }

    private static long spin(MemorySegment ring, int rounds) {
        long sum = 0;
        for (int i = 0; i < rounds; i++) {
            long base = (i & 63) * Dec21140Desc.BYTE_SIZE;
            Dec21140Desc.des1(ring, base, i);
            Dec21140Desc.des0Release(ring, base, Dec21140.RDES0_OWN | i);
            sum += Dec21140Desc.des0Acquire(ring, base) + Dec21140Desc.des1(ring, base);
            Sba200UnetBuf.length(ring, base, i);
            sum += Sba200UnetBuf.length(ring, base);
        }
        return sum;
    }
}
