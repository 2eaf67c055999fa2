package io.nicbridge.bridge.regs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.spi.CardFailedException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RegistersTest {
    private static final int CSR1 = 0x08;  // doorbell (write)
    private static final int CSR5 = 0x28;  // write-1-to-clear status
    private static final int STATS = 0x40; // read-to-clear counter
    private static final int PLAIN = 0x30;

    private Arena arena;
    private MemorySegment window;

    @BeforeEach
    void open() {
        arena = Arena.ofShared();
        window = arena.allocate(128, 8);
    }

    @AfterEach
    void close() {
        arena.close();
    }

    /** Counts every hook call per offset; behaves like a small 21140-style register file. */
    static final class CountingEffects implements RegisterSideEffects {
        final AtomicLongArray reads = new AtomicLongArray(32);
        final AtomicLongArray writes = new AtomicLongArray(32);
        Registers regs;

        @Override
        public int onRead(int offset, int storedValue) {
            reads.incrementAndGet(offset >>> 2);
            if (offset == STATS) {
                return regs.getAndSetRaw(offset, 0);
            }
            return storedValue;
        }

        @Override
        public void onWrite(int offset, int value) {
            writes.incrementAndGet(offset >>> 2);
            if (offset == CSR5) {
                regs.getAndBitwiseAndRaw(offset, ~value);
            } else {
                regs.storeRaw(offset, value);
            }
        }
    }

    private Registers hooked(CountingEffects fx, ByteOrder order) {
        Registers regs = new Registers("test csrs", window, order, fx, CSR1, CSR5, STATS);
        fx.regs = regs;
        return regs;
    }

    @Test
    void byteOrderIsTheWindowsBothWays() {
        Registers le = Registers.plain("le", window, ByteOrder.LITTLE_ENDIAN);
        le.write(0, 0x11223344);
        assertEquals(0x44, window.get(ValueLayout.JAVA_BYTE, 0));
        assertEquals(0x11, window.get(ValueLayout.JAVA_BYTE, 3));
        Registers be = Registers.plain("be", window, ByteOrder.BIG_ENDIAN);
        be.write(4, 0x11223344);
        assertEquals(0x11, window.get(ValueLayout.JAVA_BYTE, 4));
        assertEquals(0x44, window.get(ValueLayout.JAVA_BYTE, 7));
        window.set(ValueLayout.JAVA_BYTE, 8, (byte) 0xA1);
        window.set(ValueLayout.JAVA_BYTE, 9, (byte) 0xB2);
        window.set(ValueLayout.JAVA_BYTE, 10, (byte) 0xC3);
        window.set(ValueLayout.JAVA_BYTE, 11, (byte) 0xD4);
        assertEquals(0xA1B2C3D4, be.readPlain(8));
        assertEquals(0xD4C3B2A1, le.readAcquire(8));
        assertEquals(0xA1B2C3D4, be.readOpaque(8));
        assertEquals(0xD4C3B2A1, le.readVolatile(8));
        be.writeRelease(12, 0x01020304);
        be.writeOpaque(16, 0x05060708);
        be.writePlain(20, 0x090A0B0C);
        assertEquals(0x01, window.get(ValueLayout.JAVA_BYTE, 12));
        assertEquals(0x05, window.get(ValueLayout.JAVA_BYTE, 16));
        assertEquals(0x09, window.get(ValueLayout.JAVA_BYTE, 20));
        assertEquals(0x0C0B0A09, le.loadRaw(20));
    }

    @Test
    void badOffsetsAreHostMisuseWithClearMessages() {
        Registers regs = Registers.plain("dec21140 csrs", window, ByteOrder.LITTLE_ENDIAN);
        IllegalArgumentException odd = assertThrows(IllegalArgumentException.class, () -> regs.read(6));
        assertTrue(odd.getMessage().contains("0x6 is not 4-byte aligned"), odd.getMessage());
        IllegalArgumentException past = assertThrows(IllegalArgumentException.class, () -> regs.write(128, 1));
        assertTrue(past.getMessage().contains("outside the window"), past.getMessage());
        assertThrows(IllegalArgumentException.class, () -> regs.write(-4, 1));
        assertThrows(IllegalArgumentException.class, () -> regs.readAcquire(Integer.MIN_VALUE));
        assertThrows(IllegalArgumentException.class, () -> regs.writeRelease(125, 1));
        assertThrows(IllegalArgumentException.class, () -> regs.storeRaw(2, 1));
        assertEquals(0, regs.read(124), "last word is fine");
    }

    @Test
    void constructionRejectsUnusableWindowsAndHookLists() {
        CountingEffects fx = new CountingEffects();
        assertThrows(IllegalArgumentException.class,
            () -> new Registers("r", window.asSlice(0, 6), ByteOrder.BIG_ENDIAN, null));
        assertThrows(IllegalArgumentException.class,
            () -> new Registers("r", window.asSlice(2, 8), ByteOrder.BIG_ENDIAN, null));
        assertThrows(IllegalArgumentException.class,
            () -> new Registers("r", MemorySegment.ofArray(new byte[16]), ByteOrder.BIG_ENDIAN, null));
        assertThrows(IllegalArgumentException.class,
            () -> new Registers("r", window.asReadOnly(), ByteOrder.BIG_ENDIAN, null));
        assertThrows(IllegalArgumentException.class, () -> new Registers("r", window, ByteOrder.BIG_ENDIAN, null, 4));
        assertThrows(IllegalArgumentException.class, () -> new Registers("r", window, ByteOrder.BIG_ENDIAN, fx, 4, 4));
        assertThrows(IllegalArgumentException.class, () -> new Registers("r", window, ByteOrder.BIG_ENDIAN, fx, 3));
        assertThrows(IllegalArgumentException.class, () -> new Registers("r", window, ByteOrder.BIG_ENDIAN, fx, 128));
        Registers heapInts = new Registers("r", MemorySegment.ofArray(new int[4]), ByteOrder.BIG_ENDIAN, null);
        heapInts.write(12, 5);
        assertEquals(5, heapInts.read(12), "heap windows over int[] are aligned enough");
    }

    @Test
    void hooksSeeEveryAccessOnHookedOffsetsAndNoneElsewhere() {
        CountingEffects fx = new CountingEffects();
        Registers regs = hooked(fx, ByteOrder.LITTLE_ENDIAN);
        assertTrue(regs.isHooked(CSR5));
        assertFalse(regs.isHooked(PLAIN));
        regs.write(PLAIN, 7);
        assertEquals(7, regs.read(PLAIN));
        assertEquals(0, fx.reads.get(PLAIN >>> 2) + fx.writes.get(PLAIN >>> 2), "plain register: no hook");

        // write-1-to-clear: the card raised bits 0, 2 and 6; the host acknowledges 0 and 6
        regs.storeRaw(CSR5, 0b100_0101);
        regs.write(CSR5, 0b100_0001);
        assertEquals(0b100, regs.read(CSR5));
        assertEquals(1, fx.writes.get(CSR5 >>> 2));
        assertEquals(1, fx.reads.get(CSR5 >>> 2));

        // read-to-clear
        regs.getAndBitwiseOrRaw(STATS, 12);
        assertEquals(12, regs.readPlain(STATS));
        assertEquals(0, regs.readAcquire(STATS));
        assertEquals(2, fx.reads.get(STATS >>> 2));

        // doorbell: every mode dispatches once
        regs.writePlain(CSR1, 1);
        regs.writeOpaque(CSR1, 1);
        regs.writeRelease(CSR1, 1);
        regs.writeVolatile(CSR1, 1);
        regs.write(CSR1, 1);
        assertEquals(5, fx.writes.get(CSR1 >>> 2));
        regs.readPlain(CSR1);
        regs.readOpaque(CSR1);
        regs.readAcquire(CSR1);
        regs.readVolatile(CSR1);
        regs.read(CSR1);
        assertEquals(5, fx.reads.get(CSR1 >>> 2));

        // device-side accessors never dispatch
        regs.loadRaw(CSR1);
        regs.storeRaw(CSR1, 0);
        regs.compareAndSetRaw(CSR1, 0, 1);
        assertEquals(5, fx.reads.get(CSR1 >>> 2));
        assertEquals(5, fx.writes.get(CSR1 >>> 2));
    }

    @Test
    void hookedWriteStoresNothingByItself() {
        RegisterSideEffects ignoring = new RegisterSideEffects() {
            @Override
            public int onRead(int offset, int storedValue) {
                return 0xDEAD;
            }

            @Override
            public void onWrite(int offset, int value) {
            }
        };
        Registers regs = new Registers("r", window, ByteOrder.BIG_ENDIAN, ignoring, 0);
        regs.write(0, 99);
        assertEquals(0, regs.loadRaw(0));
        assertEquals(0xDEAD, regs.read(0), "the host sees what the hook returns");
    }

    @Test
    void exactlyOnceDispatchSingleThreadMillion() {
        CountingEffects fx = new CountingEffects();
        Registers regs = hooked(fx, ByteOrder.BIG_ENDIAN);
        for (int i = 0; i < 1_000_000; i++) {
            regs.write(CSR1, i);
            regs.read(CSR1);
            regs.write(PLAIN, i);
        }
        assertEquals(1_000_000, fx.writes.get(CSR1 >>> 2));
        assertEquals(1_000_000, fx.reads.get(CSR1 >>> 2));
        assertEquals(0, fx.writes.get(PLAIN >>> 2));
    }

    @Test
    void exactlyOnceDispatchTwoThreadsMillionEach() throws Exception {
        CountingEffects fx = new CountingEffects();
        Registers regs = hooked(fx, ByteOrder.LITTLE_ENDIAN);
        CyclicBarrier start = new CyclicBarrier(2);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable host = () -> {
            try {
                start.await();
                for (int i = 0; i < 1_000_000; i++) {
                    if ((i & 1) == 0) {
                        regs.writeRelease(CSR1, i);
                    } else {
                        regs.writeVolatile(CSR1, i);
                    }
                    regs.readAcquire(CSR5);
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        };
        Thread a = new Thread(host);
        Thread b = new Thread(host);
        a.start();
        b.start();
        a.join();
        b.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertEquals(2_000_000, fx.writes.get(CSR1 >>> 2));
        assertEquals(2_000_000, fx.reads.get(CSR5 >>> 2));
        assertEquals(0, fx.reads.get(CSR1 >>> 2));
        assertEquals(0, fx.writes.get(CSR5 >>> 2));
    }

    @Test
    void atomicDeviceSideBitOpsWorkInBothOrders() {
        for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            Registers regs = Registers.plain("r", window, order);
            regs.storeRaw(0, 0x0F0F);
            assertEquals(0x0F0F, regs.getAndBitwiseOrRaw(0, 0xF000));
            assertEquals(0xFF0F, regs.getAndBitwiseAndRaw(0, ~0x000F));
            assertEquals(0xFF00, regs.getAndSetRaw(0, 1));
            assertTrue(regs.compareAndSetRaw(0, 1, 2));
            assertFalse(regs.compareAndSetRaw(0, 1, 3));
            assertEquals(2, regs.read(0));
            assertEquals(2, window.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(order), 0));
        }
    }

    /** 100k random offsets: exactly the aligned in-window ones are accepted; the rest throw, touching nothing. */
    @Test
    void randomOffsetsAreAcceptedExactlyWhenAlignedAndInside() {
        CountingEffects fx = new CountingEffects();
        MemorySegment guarded = arena.allocate(256, 8);
        MemorySegment inner = guarded.asSlice(64, 128);
        Registers regs = new Registers("fuzz", inner, ByteOrder.BIG_ENDIAN, fx, CSR1);
        fx.regs = regs;
        java.util.Random random = new java.util.Random(0xC5);
        int accepted = 0;
        for (int n = 0; n < 100_000; n++) {
            int offset = switch (n % 4) {
                case 0 -> random.nextInt();
                case 1 -> random.nextInt(160) - 16;
                case 2 -> Integer.MAX_VALUE - random.nextInt(8);
                default -> Integer.MIN_VALUE + random.nextInt(8);
            };
            boolean valid = offset >= 0 && offset <= 124 && (offset & 3) == 0;
            try {
                regs.write(offset, 0xFFFF_FFFF);
                regs.read(offset);
                if (!valid) {
                    throw new AssertionError("offset " + offset + " was accepted");
                }
                accepted++;
            } catch (IllegalArgumentException e) {
                if (valid) {
                    throw new AssertionError("offset " + offset + " was rejected: " + e.getMessage());
                }
            }
        }
        assertTrue(accepted > 1000);
        for (long i = 0; i < 64; i++) {
            assertEquals(0, guarded.get(ValueLayout.JAVA_BYTE, i), "byte before the window untouched");
            assertEquals(0, guarded.get(ValueLayout.JAVA_BYTE, 192 + i), "byte after the window untouched");
        }
    }

    @Test
    void afterTheCardFailedHostAccessesThrowWithItsCauseAndDeviceAccessesWork() {
        MemorySegment window = MemorySegment.ofArray(new int[4]);
        Registers regs = new Registers("failing.csr", window, ByteOrder.LITTLE_ENDIAN, new RegisterSideEffects() {
            @Override
            public int onRead(int offset, int storedValue) {
                return storedValue;
            }

            @Override
            public void onWrite(int offset, int value) {
                throw new AssertionError("a hook ran on a failed card");
            }
        }, 4);
        regs.write(0, 7);
        RuntimeException cause = new IllegalStateException("model bug");
        regs.fail(new CardFailedException("card#1", cause));
        for (Runnable access : new Runnable[] {() -> regs.read(0), () -> regs.readAcquire(0), () -> regs.readPlain(0),
            () -> regs.readOpaque(0), () -> regs.write(0, 1), () -> regs.writeRelease(4, 1), () -> regs.writePlain(0, 1),
            () -> regs.writeOpaque(0, 1)}) {
            CardFailedException e = assertThrows(CardFailedException.class, access::run);
            assertEquals(cause, e.getCause());
        }
        assertThrows(IllegalArgumentException.class, () -> regs.read(2), "a bad offset is still named first");
        assertEquals(7, regs.loadRaw(0), "the device side keeps working");
        regs.storeRaw(0, 8);
        assertEquals(8, regs.loadRaw(0));
    }
}
