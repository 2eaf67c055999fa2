package io.nicbridge.sim.atm;

import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.contract.Sba200Unet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AtmCellsTest {
    @Test
    void hecExamplesFromTheFactSheet() {
        assertEquals(0x52, AtmCells.hec(0x00000001), "idle cell header 00 00 00 01");
        assertEquals(0x55, AtmCells.hec(0), "all-zero header");
        assertEquals(Sba200Unet.IDLE_CELL_HEC, AtmCells.hec(Sba200Unet.IDLE_CELL_HEADER));
    }

    @Test
    void hecMatchesBitwiseCrc8WithCoset() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(3);
        for (int i = 0; i < 10_000; i++) {
            int h = r.nextInt();
            int c = 0;
            for (int k = 3; k >= 0; k--) {
                c ^= (h >>> (8 * k)) & 0xFF;
                for (int b = 0; b < 8; b++) {
                    c = (c & 0x80) != 0 ? ((c << 1) ^ 0x07) & 0xFF : (c << 1) & 0xFF;
                }
            }
            assertEquals(c ^ 0x55, AtmCells.hec(h));
        }
    }

    @Test
    void headerFieldsRoundTripAndLayout() {
        int h = AtmCells.header(0xA5, 0x1234, 1, 1);
        assertEquals(0, AtmCells.gfc(h));
        assertEquals(0xA5, AtmCells.vpi(h));
        assertEquals(0x1234, AtmCells.vci(h));
        assertEquals(1, AtmCells.pti(h));
        assertEquals(1, AtmCells.clp(h));
        assertTrue(AtmCells.isLastOfPdu(h));
        MemorySegment cell = MemorySegment.ofArray(new byte[53]);
        AtmCells.writeHeader(cell, 0, h);
        byte[] b = cell.toArray(ValueLayout.JAVA_BYTE);
        assertEquals(0x0A, b[0] & 0xFF, "GFC 0, VPI[7:4]");
        assertEquals(0x51, b[1] & 0xFF, "VPI[3:0], VCI[15:12]");
        assertEquals(0x23, b[2] & 0xFF, "VCI[11:4]");
        assertEquals(0x43, b[3] & 0xFF, "VCI[3:0], PTI 001, CLP 1");
        assertTrue(AtmCells.hecOk(cell, 0));
        b[2] ^= 0x10;
        assertFalse(AtmCells.hecOk(MemorySegment.ofArray(b), 0));
        assertFalse(AtmCells.isLastOfPdu(AtmCells.header(0, 40, 0, 0)));
        assertFalse(AtmCells.isLastOfPdu(AtmCells.header(0, 40, 5, 0)), "OAM F5 end-to-end is not AAL5 data");
        assertTrue(AtmCells.isNonUser(AtmCells.header(0, 40, 4, 0)));
    }

    @Test
    void cellTimeAt140Mbps() {
        assertEquals(Sba200Unet.CELL_TIME_PS, AtmCells.cellTimePicos(Sba200Unet.LINK_BPS));
    }

    private static int trailerCrc(byte[] payload) {
        MemorySegment pdu = MemorySegment.ofArray(new byte[Aal5.cells(payload.length) * 48]);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, pdu, 0, payload.length);
        int total = Aal5.frame(pdu, 0, payload.length, 0);
        assertEquals(pdu.byteSize(), total);
        return pdu.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), total - 4);
    }

    @Test
    void aal5CrcTestVectors() {
        assertEquals(0x864D7F99, trailerCrc(new byte[40]), "40 x 0x00");
        byte[] ones = new byte[40];
        java.util.Arrays.fill(ones, (byte) 0xFF);
        assertEquals(0xC55E457A, trailerCrc(ones), "40 x 0xFF");
        byte[] count = new byte[40];
        for (int i = 0; i < 40; i++) {
            count[i] = (byte) (i + 1);
        }
        assertEquals(0xBF671ED0, trailerCrc(count), "0x01..0x28");
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0xFC891918, Aal5.crc(MemorySegment.ofArray(check), 0, check.length), "CRC-32/BZIP2 check");
        assertEquals(Sba200Unet.AAL5_CRC_TV_ZEROS, trailerCrc(new byte[40]));
    }

    @Test
    void incrementalCrcEqualsOneShot() {
        byte[] data = new byte[480];
        new java.util.Random(9).nextBytes(data);
        MemorySegment s = MemorySegment.ofArray(data);
        int c = Aal5.CRC_INIT;
        for (int i = 0; i < 10; i++) {
            c = Aal5.crcUpdate(c, s, i * 48L, 48);
        }
        assertEquals(Aal5.crc(s, 0, 480), Aal5.crcFinish(c));
        assertEquals(Aal5.crc(MemorySegment.ofArray(new byte[7]), 0, 7), Aal5.crcFinish(Aal5.crcUpdateZeros(Aal5.CRC_INIT, 7)));
    }

    @Test
    void cellCountsAndPad() {
        int[][] cases = {{0, 1}, {1, 1}, {40, 1}, {41, 2}, {88, 2}, {89, 3}, {1000, 21}, {65535, 1366}};
        for (int[] c : cases) {
            assertEquals(c[1], Aal5.cells(c[0]), "cells for " + c[0]);
            assertEquals(c[1] * 48 - 8 - c[0], Aal5.pad(c[0]));
        }
        assertEquals(1366, Aal5.MAX_CELLS);
    }

    @Test
    void trailerFields() {
        MemorySegment pdu = MemorySegment.ofArray(new byte[96]);
        pdu.asSlice(0, 50).fill((byte) 0x77);
        int total = Aal5.frame(pdu, 0, 50, 0x3C);
        assertEquals(96, total);
        assertEquals(50, Aal5.trailerLength(pdu, 48));
        assertEquals(0x3C, Aal5.trailerUu(pdu, 48));
        assertEquals(0, Aal5.trailerCpi(pdu, 48));
        assertEquals(0, pdu.get(ValueLayout.JAVA_BYTE, 50), "pad is zero");
        assertEquals(Aal5.crc(pdu, 0, 92), Aal5.trailerCrc(pdu, 48));
        assertThrows(IllegalArgumentException.class, () -> Aal5.frame(pdu, 0, 65536, 0));
    }
}
