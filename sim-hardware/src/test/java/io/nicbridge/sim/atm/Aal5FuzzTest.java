package io.nicbridge.sim.atm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The ATM layer's framing directly, not through a card: AAL5 segmentation framing and its CRC, the cell header and
 * its HEC, under any payload and any header fields.
 * <ul>
 *   <li>{@link Aal5}: a framed PDU of any payload is whole cells with a zero pad and the right LEN, UU, CPI and a CRC
 *       that checks; the CRC equals an independent bit-at-a-time CRC-32/BZIP2 and is the same fed in any two
 *       pieces (what the card's reassembly does cell by cell); flipping any one bit of the PDU makes the check
 *       fail; the trailer readers read any 48 bytes; a payload length out of range is refused with
 *       {@link IllegalArgumentException}.</li>
 *   <li>{@link AtmCells}: a header built of any fields reads back the fields masked to their widths, a written header
 *       reads back and its HEC checks, and any one-bit error in the five header bytes (HEC included) fails the check.</li>
 * </ul>
 * The reassembly itself lives in the SBA-200 firmware model and is fuzzed by {@code Sba200FuzzTest}.
 * Corpus: {@code src/test/resources/io/nicbridge/sim/atm/Aal5FuzzTestInputs/framingAndCells/}.
 */
class Aal5FuzzTest {
    @FuzzTest(maxDuration = "30s")
    void framingAndCells(FuzzedDataProvider data) {
        cellHeader(data);
        int uu = data.consumeInt(0, 255);
        int split = data.consumeInt(0, Integer.MAX_VALUE);
        int flip = data.consumeInt(0, Integer.MAX_VALUE);
        byte[] payload = data.consumeBytes(4096);
        int length = payload.length;
        MemorySegment pdu = MemorySegment.ofArray(new byte[Aal5.cells(length) * AtmCells.PAYLOAD_SIZE + 8]);
        pdu.fill((byte) 0xA5); // the pad must be written, not found
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, pdu, 4, length);
        int total = Aal5.frame(pdu, 4, length, uu);

        assertEquals(0, total % AtmCells.PAYLOAD_SIZE, "PDU of whole cells");
        assertEquals(Aal5.cells(length) * AtmCells.PAYLOAD_SIZE, total);
        assertTrue(Aal5.pad(length) >= 0 && Aal5.pad(length) < AtmCells.PAYLOAD_SIZE, "pad " + Aal5.pad(length));
        for (int i = 0; i < Aal5.pad(length); i++) {
            assertEquals(0, pdu.get(ValueLayout.JAVA_BYTE, 4 + length + i), "pad byte " + i);
        }
        long last = 4 + total - AtmCells.PAYLOAD_SIZE;
        assertEquals(length, Aal5.trailerLength(pdu, last));
        assertEquals(uu, Aal5.trailerUu(pdu, last));
        assertEquals(0, Aal5.trailerCpi(pdu, last));
        int crc = Aal5.crc(pdu, 4, total - 4);
        assertEquals(crc, Aal5.trailerCrc(pdu, last), "trailer CRC");
        assertEquals(referenceCrc(pdu, 4, total - 4), crc, "CRC against a bit-at-a-time CRC-32/BZIP2");
        int at = split % (total - 4 + 1);
        int pieces = Aal5.crcFinish(Aal5.crcUpdate(Aal5.crcUpdate(Aal5.CRC_INIT, pdu, 4, at), pdu, 4 + at,
            total - 4 - at));
        assertEquals(crc, pieces, "CRC fed in two pieces split at " + at);

        int bit = flip % (total * 8);
        byte b = pdu.get(ValueLayout.JAVA_BYTE, 4 + bit / 8);
        pdu.set(ValueLayout.JAVA_BYTE, 4 + bit / 8, (byte) (b ^ (1 << (bit % 8))));
        assertFalse(Aal5.crc(pdu, 4, total - 4) == Aal5.trailerCrc(pdu, last), "bit " + bit + " flipped, CRC still checks");

        // the trailer readers on any 48 bytes
        MemorySegment any = MemorySegment.ofArray(Arrays.copyOf(payload, AtmCells.PAYLOAD_SIZE));
        assertTrue(Aal5.trailerLength(any, 0) >= 0 && Aal5.trailerLength(any, 0) <= 0xFFFF);
        assertTrue(Aal5.trailerUu(any, 0) <= 0xFF && Aal5.trailerCpi(any, 0) <= 0xFF);
        Aal5.trailerCrc(any, 0);
        int bad = data.consumeBoolean() ? -1 - data.consumeInt(0, Integer.MAX_VALUE - 1)
            : Aal5.MAX_PAYLOAD + 1 + data.consumeInt(0, 1 << 20);
        assertThrows(IllegalArgumentException.class, () -> Aal5.frame(pdu, 0, bad, 0));
    }

    /** A header of any fields, written and read back, then one bit of it flipped. */
    private static void cellHeader(FuzzedDataProvider data) {
        int vpi = data.consumeInt();
        int vci = data.consumeInt();
        int pti = data.consumeInt();
        int clp = data.consumeInt();
        int h = AtmCells.header(vpi, vci, pti, clp);
        assertEquals(vpi & 0xFF, AtmCells.vpi(h));
        assertEquals(vci & 0xFFFF, AtmCells.vci(h));
        assertEquals(pti & 7, AtmCells.pti(h));
        assertEquals(clp & 1, AtmCells.clp(h));
        assertEquals(0, AtmCells.gfc(h));
        MemorySegment cell = MemorySegment.ofArray(new byte[AtmCells.CELL_SIZE]);
        int raw = data.consumeInt();
        AtmCells.writeHeader(cell, 0, raw);
        assertEquals(raw, AtmCells.readHeader(cell, 0));
        assertTrue(AtmCells.hecOk(cell, 0));
        assertEquals(AtmCells.isNonUser(raw), (AtmCells.pti(raw) & 4) != 0);
        assertTrue(!AtmCells.isLastOfPdu(raw) || !AtmCells.isNonUser(raw), "an OAM cell ends no PDU");
        int bit = data.consumeInt(0, 39);
        cell.set(ValueLayout.JAVA_BYTE, bit / 8, (byte) (cell.get(ValueLayout.JAVA_BYTE, bit / 8) ^ (1 << (bit % 8))));
        assertFalse(AtmCells.hecOk(cell, 0), "header bit " + bit + " flipped, HEC still checks");
    }

    /** CRC-32/BZIP2 one bit at a time, straight from the definition: the oracle for the table-driven one. */
    private static int referenceCrc(MemorySegment data, long offset, long length) {
        int crc = 0xFFFF_FFFF;
        for (long i = 0; i < length; i++) {
            crc ^= (data.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFF) << 24;
            for (int k = 0; k < 8; k++) {
                crc = crc < 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1;
            }
        }
        return ~crc;
    }
}
