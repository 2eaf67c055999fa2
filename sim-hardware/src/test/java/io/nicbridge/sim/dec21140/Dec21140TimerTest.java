package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * CSR11: count + CON, ticking 81.92 us with CSR6.PS (100 Mb/s), 204.8 us without; expiry raises GTE, an abnormal
 * source (docs/hardware-facts.md A.3).
 */
class Dec21140TimerTest {
    private final CardHarness h = new CardHarness(true, Dec21140Timing.ZERO);

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void oneShotExpirySetsGteWhichIsAbnormal() {
        h.write(CSR6, CSR6_MBO | CSR6_PS);
        h.write(CSR7, CSR7_GTM | CSR7_AIM);
        h.write(CSR11, LINUX_CSR11_RX_REFILL);
        long period = LINUX_CSR11_RX_REFILL * Dec21140Model.GP_TICK_100MB_NANOS;
        h.time.advance(period / 2);
        assertEquals(LINUX_CSR11_RX_REFILL / 2, h.read(CSR11) & CSR11_TIM_MASK);
        assertEquals(0, h.read(CSR5) & CSR5_GTE);
        h.time.advance(period - period / 2);
        assertEquals(CSR5_GTE | CSR5_AIS, h.read(CSR5) & (CSR5_GTE | CSR5_NIS | CSR5_AIS));
        assertTrue(h.card.interrupt().isAsserted());
        assertEquals(0, h.read(CSR11) & CSR11_TIM_MASK);
        h.write(CSR5, CSR5_GTE);
        h.time.advance(10 * period);
        assertEquals(0, h.read(CSR5) & CSR5_GTE, "one shot");
        assertEquals(1, h.card.counters().gpTimerExpiries());
    }

    @Test
    void continuousModeReloads() {
        h.write(CSR11, CSR11_CON | 3);
        long period = 3 * Dec21140Model.GP_TICK_10MB_NANOS;
        h.time.advance(period);
        assertEquals(CSR5_GTE, h.read(CSR5) & CSR5_GTE);
        h.write(CSR5, CSR5_GTE);
        h.time.advance(period);
        assertEquals(CSR5_GTE, h.read(CSR5) & CSR5_GTE);
        assertEquals(2, h.card.counters().gpTimerExpiries());
        h.write(CSR11, 0);
        h.time.advance(5 * period);
        assertEquals(2, h.card.counters().gpTimerExpiries(), "count 0 stops it");
    }

    /**
     * Linux's too-much-work path (interrupt.c): with TI and RI pending it masks them and the normal summary,
     * CSR7 = ((~csr5) &amp; 0x0001ebef) | AbnormalIntr | TimerInt, and arms CSR11 = 0x12. The timer must assert the
     * line through AIS, or the masked sources never come back. On a model with GTE under NIS it stays low.
     */
    @Test
    void linuxMitigationTimerInterruptsThroughTheAbnormalSummary() {
        h.write(CSR6, CSR6_MBO | CSR6_PS);
        int pending = CSR5_TI | CSR5_RI | CSR5_NIS;
        h.write(CSR7, ((~pending) & LINUX_VALID_INTRS) | CSR7_AIM | CSR7_GTM);
        assertEquals(0, h.read(CSR7) & (CSR7_NIM | CSR7_TIM | CSR7_RIM), "normal summary and TI/RI masked");
        h.write(CSR11, LINUX_CSR11_MITIGATION);
        h.time.advance(LINUX_CSR11_MITIGATION * Dec21140Model.GP_TICK_100MB_NANOS);
        assertEquals(CSR5_GTE | CSR5_AIS, h.read(CSR5) & (CSR5_GTE | CSR5_NIS | CSR5_AIS));
        assertTrue(h.card.interrupt().isAsserted(), "the timer interrupts with only AIS enabled");
        // Linux's abnormal clear 0x0800F7BA leaves bit 11; its acknowledge of everything pending clears GTE
        h.write(CSR5, LINUX_CSR5_ABNORMAL_CLEAR);
        assertEquals(CSR5_GTE | CSR5_AIS, h.read(CSR5) & (CSR5_GTE | CSR5_AIS));
        h.write(CSR5, h.read(CSR5) & LINUX_CSR5_ACK_MASK);
        assertEquals(0, h.read(CSR5) & (CSR5_GTE | CSR5_AIS));
        assertFalse(h.card.interrupt().isAsserted());
    }
}
