package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.fddi.FddiFcs;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The PIO checksum accumulator and the receive checksum unit against a reference ones'-complement sum. */
class MedusaChecksumTest {
    EmulatedTestbed bed;
    MedusaHost h;

    @BeforeEach
    void setUp() {
        bed = EmulatedTestbed.create(EngineMode.INLINE, 0);
        h = new MedusaHost(bed.medusa("m", bed.fddiRing("fddi0"), MedusaHost.mac(1)));
    }

    @AfterEach
    void tearDown() {
        bed.close();
    }

    /** Reference: RFC 1071 sum of 16-bit words, byte at an even address high, folded; written the slow way. */
    static int reference(long[] laneSums) {
        long s = 0;
        for (long v : laneSums) {
            s += v;
            s = (s & 0xFFFF) + (s >>> 16);
        }
        return (int) ((s & 0xFFFF) + (s >>> 16)) & 0xFFFF;
    }

    @Test
    void everyKindOfPioAccessFeedsTheAccumulatorLikeAReferenceSum() {
        SplittableRandom rnd = new SplittableRandom(42);
        long[] lanes = new long[20_000];
        int k = 0;
        byte[] scratch = new byte[300];
        MemorySegment src = MemorySegment.ofArray(scratch);
        for (int i = 0; i < 4000; i++) {
            int kind = rnd.nextInt(8);
            int addr = rnd.nextInt(MedusaBufferRam.SIZE - 400);
            switch (kind) {
                case 0 -> { int b = rnd.nextInt(256); h.ram.writeByte(addr, b); lanes[k++] = laneOf(addr, b); }
                case 1 -> { int b = h.ram.readByte(addr); lanes[k++] = laneOf(addr, b); }
                case 2 -> { addr &= ~1; int v = rnd.nextInt(65536); h.ram.writeShort(addr, v); lanes[k++] = v; }
                case 3 -> { addr &= ~1; lanes[k++] = h.ram.readShort(addr); }
                case 4 -> { addr &= ~3; int v = rnd.nextInt(); h.ram.writeInt(addr, v); lanes[k++] = v >>> 16; lanes[k++] = v & 0xFFFF; }
                case 5 -> { addr &= ~3; int v = h.ram.readInt(addr); lanes[k++] = v >>> 16; lanes[k++] = v & 0xFFFF; }
                case 6 -> {
                    int len = rnd.nextInt(1, 300);
                    rnd.nextBytes(scratch);
                    h.ram.write(addr, src, 0, len);
                    for (int j = 0; j < len; j++) {
                        lanes[k++] = laneOf(addr + j, scratch[j] & 0xFF);
                    }
                }
                default -> {
                    int len = rnd.nextInt(1, 300);
                    h.ram.read(addr, src, 0, len);
                    for (int j = 0; j < len; j++) {
                        lanes[k++] = laneOf(addr + j, scratch[j] & 0xFF);
                    }
                }
            }
            if (k > lanes.length - 700) {
                assertEquals(reference(java.util.Arrays.copyOf(lanes, k)), h.read(REG_PIO_CKSUM), "after access " + i);
                h.write(REG_PIO_CKSUM, 0);
                k = 0;
            }
        }
        assertEquals(reference(java.util.Arrays.copyOf(lanes, k)), h.ram.checksum());
    }

    static long laneOf(int address, int b) {
        return (address & 1) == 0 ? (long) b << 8 : b;
    }

    @Test
    void byteWordAndBulkCopiesOfTheSameDataGiveTheSameSum() {
        byte[] data = new byte[1001];
        new SplittableRandom(1).nextBytes(data);
        MemorySegment src = MemorySegment.ofArray(data);
        h.ram.write(0x4003, src, 0, data.length);
        int bulk = h.ram.checksum();
        h.ram.checksum(0);
        for (int i = 0; i < data.length; i++) {
            h.ram.writeByte(0x6003 + i, data[i]);
        }
        assertEquals(bulk, h.ram.checksum());
        h.ram.checksum(0);
        h.ram.read(0x6003, src, 0, data.length);
        assertEquals(bulk, h.ram.checksum(), "reading it back sums the same");
    }

    @Test
    void wordAccessThroughTheRegisterWindowFeedsTheAccumulatorButRawSegmentAccessDoesNot() {
        h.regs.write(0x2000, 0x1234_5678);
        assertEquals(0x1234 + 0x5678, h.read(REG_PIO_CKSUM));
        assertEquals(0x1234_5678, h.regs.read(0x2000));
        assertEquals(2 * (0x1234 + 0x5678), h.read(REG_PIO_CKSUM));
        h.ram.segment().set(ValueLayout.JAVA_INT, 0x3000, 0x7777_7777);
        h.ram.segment().get(ValueLayout.JAVA_INT, 0x3000);
        assertEquals(2 * (0x1234 + 0x5678), h.read(REG_PIO_CKSUM), "raw segment access bypasses it");
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, MedusaBufferRam.SIZE, MedusaBufferRam.SIZE - 2})
    void accessesOutsideBufferRamThrowWithoutTouchingMemory(int address) {
        assertThrows(IllegalArgumentException.class, () -> h.ram.writeInt(address, 1));
        assertThrows(IllegalArgumentException.class, () -> h.ram.readInt(address));
        assertThrows(IllegalArgumentException.class,
            () -> h.ram.write(address, MemorySegment.ofArray(new byte[8]), 0, 8));
        assertEquals(0, h.ram.checksum());
    }

    @Test
    void misalignedHalfwordAndWordAccessesThrow() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> h.ram.writeInt(2, 1));
        assertTrue(e.getMessage().contains("not aligned"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> h.ram.readShort(1));
        assertThrows(IllegalArgumentException.class, () -> MedusaBufferRam.bufferOffset(128));
        assertEquals(127 * BUF_SIZE, MedusaBufferRam.bufferOffset(127));
    }

    @ParameterizedTest
    @ValueSource(ints = {21, 13, 0, 14, 200, 1000})
    void receiveChecksumUnitSumsFromRxckStartToLen(int start) {
        h.init(CTRL_RX_EN | CTRL_TX_EN | CTRL_LOOPBACK | CTRL_FRAME_OFS3 | CTRL_RX_CKSUM_EN, 90, 1);
        h.write(REG_RXCK_START, start);
        int len = h.frame(2, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(1), MedusaHost.mac(1), 600, 5);
        h.write(REG_TX_FIFO, 2);
        assertEquals(FIFO_VALID | 90, h.read(REG_RX_FIFO));
        byte[] f = h.frameBytes(90, len);
        long[] lanes = new long[len];
        int k = 0;
        for (int i = start; i < len; i++) {
            lanes[k++] = ((i - start) & 1) == 0 ? (long) (f[i] & 0xFF) << 8 : f[i] & 0xFF;
        }
        int expected = start >= len ? 0 : reference(java.util.Arrays.copyOf(lanes, k));
        assertEquals(expected, h.rxck(90));
    }

    @Test
    void withoutRxCksumEnRxckIsZero() {
        h.init(CTRL_RX_EN | CTRL_TX_EN | CTRL_LOOPBACK | CTRL_FRAME_OFS3, 90, 1);
        h.frame(2, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(1), MedusaHost.mac(1), 100, 5);
        h.write(REG_TX_FIFO, 2);
        assertEquals(FIFO_VALID | 90, h.read(REG_RX_FIFO));
        assertEquals(0, h.rxck(90));
    }

    @Test
    void keepFcsStoresTheFcsAfterInfoAndFrameOffsetZeroMovesTheFrame() {
        h.init(CTRL_RX_EN | CTRL_TX_EN | CTRL_LOOPBACK | CTRL_KEEP_FCS, 91, 1); // FRAME_OFS3 = 0
        int len = h.frame(2, FC_LLC_ASYNC_DEFAULT, MedusaHost.mac(1), MedusaHost.mac(1), 40, 9);
        h.write(REG_TX_FIFO, 2);
        assertEquals(FIFO_VALID | 91, h.read(REG_RX_FIFO));
        assertEquals(len, h.len(91), "LEN never counts the FCS");
        MemorySegment buf = h.ram.segment().asSlice((long) 91 * BUF_SIZE, len + 4);
        assertEquals(FC_LLC_ASYNC_DEFAULT, buf.get(ValueLayout.JAVA_BYTE, 0) & 0xFF, "FC at byte 0");
        assertTrue(FddiFcs.check(buf, 0, len + 4), "the kept FCS matches");
        assertEquals(FddiFcs.compute(buf, 0, len), buf.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(
            java.nio.ByteOrder.BIG_ENDIAN), len));
    }

    @Test
    void fcsIsCrc32MsbFirstWithTheContractCheckValue() {
        byte[] digits = "123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals(FCS_CHECK, FddiFcs.compute(MemorySegment.ofArray(digits), 0, digits.length));
        MemorySegment f = MemorySegment.ofArray(new byte[20]);
        MemorySegment.copy(MemorySegment.ofArray(digits), 0, f, 0, 9);
        assertEquals(13, FddiFcs.append(f, 0, 9));
        assertTrue(FddiFcs.check(f, 0, 13));
        f.set(ValueLayout.JAVA_BYTE, 4, (byte) 0);
        assertFalse(FddiFcs.check(f, 0, 13));
    }
}
