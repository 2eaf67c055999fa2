package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** CSR11: count + CON, ticking 81.92 us with CSR6.PS (100 Mb/s), 204.8 us without; expiry raises GTE. */
class Dec21140TimerTest {
    private final CardHarness h = new CardHarness(true, Dec21140Timing.ZERO);

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void oneShotExpirySetsGteWhichIsNormal() {
        h.write(CSR6, CSR6_MBO | CSR6_PS);
        h.write(CSR7, CSR7_GTM | CSR7_NIM);
        h.write(CSR11, LINUX_CSR11_RX_REFILL);
        long period = LINUX_CSR11_RX_REFILL * Dec21140Model.GP_TICK_100MB_NANOS;
        h.time.advance(period / 2);
        assertEquals(LINUX_CSR11_RX_REFILL / 2, h.read(CSR11) & CSR11_TIM_MASK);
        assertEquals(0, h.read(CSR5) & CSR5_GTE);
        h.time.advance(period - period / 2);
        assertEquals(CSR5_GTE | CSR5_NIS, h.read(CSR5) & (CSR5_GTE | CSR5_NIS | CSR5_AIS));
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
}
