package io.nicbridge.bridge.driver.tulip;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.contract.Dec21140SetupFrame;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

class TulipSetupFrameTest {
    static final MacAddress STATION = MacAddress.parse("02:00:00:aa:bb:cc");

    static MemorySegment frame() {
        return MemorySegment.ofArray(new int[SETUP_FRAME_LONGWORDS]);
    }

    static long entry(MemorySegment f, int slot) {
        long v = 0;
        int[] at = {SETUP_PERFECT_MAC0_OFS, SETUP_PERFECT_MAC1_OFS, SETUP_PERFECT_MAC2_OFS, SETUP_PERFECT_MAC3_OFS,
            SETUP_PERFECT_MAC4_OFS, SETUP_PERFECT_MAC5_OFS};
        for (int k : at) {
            v = v << 8 | (f.get(ValueLayout.JAVA_BYTE, (long) slot * SETUP_PERFECT_ENTRY_SIZE + k) & 0xFF);
        }
        return v;
    }

    @Test
    void perfectFrameHoldsMulticastThenBroadcastThenStationInSlot15() {
        MemorySegment f = frame();
        MacAddress m0 = MacAddress.parse("01:00:5e:00:00:01");
        MacAddress m1 = MacAddress.parse("33:33:00:00:00:01");
        TulipSetupFrame.writePerfect(f, 0, STATION, List.of(m0, m1));
        assertEquals(m0.value(), entry(f, 0));
        assertEquals(m1.value(), entry(f, 1));
        for (int s = 2; s < 15; s++) {
            assertEquals(MacAddress.BROADCAST.value(), entry(f, s), "slot " + s);
        }
        assertEquals(STATION.value(), entry(f, SETUP_PERFECT_STATION_SLOT));
        for (int lw = 0; lw < SETUP_FRAME_LONGWORDS; lw++) { // each 16-bit half written twice
            int v = Dec21140SetupFrame.lw(f, 0, lw);
            assertEquals(v & 0xFFFF, v >>> 16, "longword " + lw);
        }
    }

    @Test
    void perfectRejectsMoreThan14Multicast() {
        List<MacAddress> many = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            many.add(MacAddress.of(0x0100_5E00_0000L + i));
        }
        assertThrows(IllegalArgumentException.class, () -> TulipSetupFrame.writePerfect(frame(), 0, STATION, many));
    }

    @Test
    void hashIndexIsTheUncomplementedReflectedCrc() {
        assertEquals(SETUP_HASH_BROADCAST_INDEX, TulipSetupFrame.hashIndex(MacAddress.BROADCAST.value()));
        for (long a : new long[] {0x0100_5E00_0001L, 0x3333_0000_0001L, 0x0100_5E7F_FFFAL}) {
            CRC32 crc = new CRC32();
            crc.update(MacAddress.of(a).toBytes());
            assertEquals((int) (~crc.getValue() & SETUP_HASH_INDEX_MASK), TulipSetupFrame.hashIndex(a));
        }
    }

    @Test
    void hashFrameSetsBroadcastAndEveryMulticastBitAndStationAtLongword39() {
        MemorySegment f = frame();
        List<MacAddress> many = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            many.add(MacAddress.of(0x0100_5E00_0000L + i));
        }
        TulipSetupFrame.writeHash(f, 0, STATION, many);
        int[] expectedBits = new int[512];
        expectedBits[255] = 1;
        for (MacAddress m : many) {
            expectedBits[TulipSetupFrame.hashIndex(m.value())] = 1;
        }
        for (int i = 0; i < 512; i++) {
            int lw = Dec21140SetupFrame.lw(f, 0, i >>> 4);
            assertEquals(expectedBits[i], lw >>> (i & 15) & 1, "bit " + i);
        }
        long phys = 0;
        for (int k = 0; k < 3; k++) {
            int half = Dec21140SetupFrame.lw(f, 0, SETUP_HASH_PHYS_LW + k) & 0xFFFF;
            phys = phys << 16 | (half & 0xFF) << 8 | half >>> 8;
        }
        assertEquals(STATION.value(), phys);
        assertEquals(SETUP_HASH_PHYS_OFS, SETUP_HASH_PHYS_LW * 4);
        assertTrue(TulipSetupFrame.fitsPerfect(14));
    }
}
