package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.ethernet.EthernetSegment;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What Linux's media code reads from the board (docs/hardware-facts.md A.0, A.5, A.9): the PHY's signal detect on
 * the CSR12 general-purpose inputs follows the link, and an MII read answers all ones, since the board has no PHY.
 */
class Dec21140LinkSenseTest {
    private final EmulatedTestbed world = EmulatedTestbed.create(EngineMode.INLINE, 1);
    private final EthernetSegment segment = world.ethernet("segment");
    private final Dec21140Card a = world.dec21140("a", segment, new byte[] {2, 0, 0, 0, 0, 1});
    private final Dec21140Card b = world.dec21140("b", segment, new byte[] {2, 0, 0, 0, 0, 2});

    @AfterEach
    void close() {
        world.close();
    }

    /** Linux's link beat test for our SROM's block (command 0x006D): bit (0x6D &gt;&gt; 1) &amp; 7 = 6, active high. */
    private static boolean linuxSeesLinkBeat(int csr12) {
        int bitnum = (byte) 0x6D;
        return (bitnum < 0) != ((csr12 & (1 << ((bitnum >> 1) & 7))) != 0);
    }

    @Test
    void signalDetectFollowsTheCableAndTheSegment() {
        Registers csr = a.registers();
        // tulip_select_media at startup: the direction (csr12dir | 0x100), then the block's GP data
        csr.write(CSR12, SMC9332_GPIO_DIRECTION | CSR12_GPC);
        csr.write(CSR12, SMC9332_GPIO_INITIAL);
        assertEquals(SMC9332_GPIO_INITIAL | SMC9332_GPIO_SD_100MB | SMC9332_GPIO_SD_10MB, csr.read(CSR12));
        assertEquals(true, linuxSeesLinkBeat(csr.read(CSR12)));
        segment.plug("a", false);
        assertEquals(SMC9332_GPIO_INITIAL, csr.read(CSR12), "unplugged: no signal detect, the outputs unchanged");
        assertEquals(false, linuxSeesLinkBeat(csr.read(CSR12)));
        assertEquals(SMC9332_GPIO_SD_100MB, b.registers().read(CSR12) & SMC9332_GPIO_SD_100MB, "b still has its");
        segment.plug("a", true);
        assertEquals(true, linuxSeesLinkBeat(csr.read(CSR12)));
        segment.link(false);
        assertEquals(false, linuxSeesLinkBeat(csr.read(CSR12)));
        assertEquals(0, b.registers().read(CSR12) & SMC9332_GPIO_SD_100MB, "the segment is down for everyone");
        segment.link(true);
        assertEquals(true, linuxSeesLinkBeat(csr.read(CSR12)));
        csr.write(CSR0, CSR0_SWR);
        assertEquals(true, linuxSeesLinkBeat(csr.read(CSR12)), "a reset does not change what the pins read");
    }

    @Test
    void unpluggedStationNeitherHearsNorIsHeard() {
        java.util.concurrent.atomic.AtomicInteger heardByP = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger heardByQ = new java.util.concurrent.atomic.AtomicInteger();
        var p = segment.attach("p", (f, off, len) -> heardByP.incrementAndGet());
        var q = segment.attach("q", (f, off, len) -> heardByQ.incrementAndGet());
        var frame = java.lang.foreign.MemorySegment.ofArray(new byte[64]); // to nobody's address: the cards filter it
        p.transmit(frame, 0, 64);
        assertEquals(1, heardByQ.get());
        segment.plug("q", false);
        p.transmit(frame, 0, 64);
        assertEquals(1, heardByQ.get(), "an unplugged station hears nothing");
        q.transmit(frame, 0, 64);
        assertEquals(0, heardByP.get(), "and nobody hears it");
        assertEquals(1, segment.drops(EthernetSegment.DropReason.NO_CARRIER));
        segment.plug("q", true);
        q.transmit(frame, 0, 64);
        assertEquals(1, heardByP.get());
    }

    /** Linux's mdio_read, bit-banged through CSR9: 32 ones, start, read, PHY, register; then 19 bits in. */
    private static int mdioRead(Registers csr, int phy, int reg) {
        int cmd = (0xF6 << 10) | (phy << 5) | reg;
        for (int i = 32; i >= 0; i--) { // the preamble of ones
            csr.write(CSR9, CSR9_MDO);
            csr.write(CSR9, CSR9_MDO | CSR9_MDC);
        }
        for (int i = 15; i >= 0; i--) {
            int bit = ((cmd >> i) & 1) != 0 ? CSR9_MDO : 0;
            csr.write(CSR9, bit);
            csr.write(CSR9, bit | CSR9_MDC);
        }
        int value = 0;
        for (int i = 19; i > 0; i--) {
            csr.write(CSR9, CSR9_MII);
            value = (value << 1) | ((csr.read(CSR9) & CSR9_MDI) != 0 ? 1 : 0);
            csr.write(CSR9, CSR9_MII | CSR9_MDC);
        }
        return (value >> 1) & 0xFFFF;
    }

    @Test
    void miiReadWithoutAPhyReturnsAllOnes() {
        for (int phy = 0; phy < 32; phy += 31) {
            assertEquals(0xFFFF, mdioRead(a.registers(), phy, 1), "BMSR of PHY " + phy);
        }
        a.registers().write(CSR9, 0);
        assertEquals(0, a.registers().read(CSR9) & CSR9_MDI, "not listening, not driving: MDI follows MDO (0)");
    }
}
