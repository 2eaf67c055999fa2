package io.nicbridge.bridge.regs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.idle.BusySpinIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WordAccessTest {
    @Test
    void bigEndianWordsLandAsBigEndianBytes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ram = arena.allocate(64, 8);
            WordAccess be = new WordAccess(ram, ByteOrder.BIG_ENDIAN);
            be.putInt(0, 0xCAFEBABE);
            be.putIntRelease(4, 0x01020304);
            be.putIntOpaque(8, 0x0A0B0C0D);
            be.putIntVolatile(12, 0x7F000001);
            assertEquals((byte) 0xCA, ram.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(0x01, ram.get(ValueLayout.JAVA_BYTE, 4));
            assertEquals(0x0A, ram.get(ValueLayout.JAVA_BYTE, 8));
            assertEquals(0x7F, ram.get(ValueLayout.JAVA_BYTE, 12));
            assertEquals(0xCAFEBABE, be.getIntAcquire(0));
            assertEquals(0x01020304, be.getIntVolatile(4));
            assertEquals(0x0A0B0C0D, be.getIntOpaque(8));
            assertEquals(0x7F000001, be.getInt(12));
            assertEquals(0x0100007F, new WordAccess().wrap(ram, ByteOrder.LITTLE_ENDIAN).getInt(12));
            assertEquals(0x01020304, be.getAndAddInt(4, 0x100));
            assertEquals(0x01020404, be.getInt(4));
            assertTrue(be.compareAndSetInt(4, 0x01020404, -1));
            assertEquals(ByteOrder.BIG_ENDIAN, be.order());
        }
    }

    @Test
    void badOffsetsAreRejectedByTheSegment() {
        try (Arena arena = Arena.ofConfined()) {
            WordAccess w = new WordAccess(arena.allocate(16, 8), ByteOrder.BIG_ENDIAN);
            assertThrows(IndexOutOfBoundsException.class, () -> w.getInt(16));
            assertThrows(IndexOutOfBoundsException.class, () -> w.putIntRelease(-4, 0));
            assertThrows(IllegalArgumentException.class, () -> w.getIntAcquire(2));
        }
    }

    /** Payload with plain stores, ownership word with release; the reader acquires the word first. */
    @Test
    void releaseAcquireHandoffPublishesThePayload() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment slots = arena.allocate(8 * 1024, 64);
            WordAccess writer = new WordAccess(slots, ByteOrder.BIG_ENDIAN);
            WordAccess reader = new WordAccess(slots, ByteOrder.BIG_ENDIAN);
            int rounds = 200_000;
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread consumer = new Thread(() -> {
                try {
                    IdleStrategy idle = new BusySpinIdle(100);
                    for (int seq = 1; seq <= rounds; seq++) {
                        long slot = (seq & 1023) * 8L;
                        idle.reset();
                        while (reader.getIntAcquire(slot) != seq) {
                            idle.idle();
                        }
                        int payload = reader.getInt(slot + 4);
                        if (payload != seq * 31) {
                            throw new AssertionError("slot " + slot + " seq " + seq + " payload " + payload);
                        }
                        reader.putIntRelease(slot, -seq); // hand the slot back
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            consumer.start();
            IdleStrategy idle = new BusySpinIdle(100);
            for (int seq = 1; seq <= rounds; seq++) {
                long slot = (seq & 1023) * 8L;
                int prev = seq - 1024;
                idle.reset();
                while (prev > 0 && writer.getIntAcquire(slot) != -prev) {
                    if (failure.get() != null) {
                        break;
                    }
                    idle.idle();
                }
                writer.putInt(slot + 4, seq * 31);
                writer.putIntRelease(slot, seq);
            }
            consumer.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
        }
    }
}
