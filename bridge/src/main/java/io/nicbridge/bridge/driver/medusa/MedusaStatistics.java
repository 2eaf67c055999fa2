package io.nicbridge.bridge.driver.medusa;

import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.contract.Medusa;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A Medusa driver's statistics: its own counters (kept by the driver, opaque stores, no locked instruction on
 * the hot path) plus a view of the card's eight counter registers (0x40..0x5C, read on demand).
 *
 * <pre>
 *   card counters (C.2, read-only, 32-bit, wrap)     driver counters (64-bit)
 *   0x40 frames TX      0x50 ring re-inits            TX_FRAMES, TX_BYTES, TX_BACK_PRESSURE, TX_DONE, TX_ERRORS,
 *   0x44 frames RX      0x54 tokens seen              TX_BROADCASTS, TX_FORWARDS, PIO_BYTES_IN, PIO_BYTES_OUT,
 *   0x48 FCS errors     0x58 RX truncated [P]         RX_FRAMES, RX_BYTES, RX_FCS_ERRORS, RX_TRUNCATED,
 *   0x4C no-buf drops   0x5C TX errors    [P]         RX_COPY_OUTS, RX_BAD_FIFO_ENTRIES, TX_BAD_FIFO_ENTRIES, ...
 * </pre>
 */
public final class MedusaStatistics {
    /** The driver's counters. */
    public enum Counter {
        /** Frames pushed into TX_FIFO (sends, commits and forwards). */
        TX_FRAMES,
        /** Frame bytes (FC..INFO) pushed into TX_FIFO. */
        TX_BYTES,
        /** claim/send found no host-owned transmit buffer, even after reclaiming TXDONE. */
        TX_BACK_PRESSURE,
        /** TXDONE entries reclaimed. */
        TX_DONE,
        /** TXDONE entries with the ERROR bit. */
        TX_ERRORS,
        /** Frames sent to the broadcast address. */
        TX_BROADCASTS,
        /** Received buffers transmitted again in place (no copy). */
        TX_FORWARDS,
        /** Bytes the host copied into buffer RAM by PIO. */
        PIO_BYTES_IN,
        /** Bytes the host copied out of buffer RAM by PIO. */
        PIO_BYTES_OUT,
        /** Frames popped from RX_FIFO and handed to the application. */
        RX_FRAMES,
        /** Bytes (LEN) of those frames. */
        RX_BYTES,
        /** Received frames whose STAT said FCS_ERR. */
        RX_FCS_ERRORS,
        /** Received frames stored TRUNCATED. */
        RX_TRUNCATED,
        /** Received frames with another non-DONE STAT code (E indicator, ...). */
        RX_OTHER_ERRORS,
        /**
         * Received frames whose LEN no frame has (shorter than the MAC header, or longer than the configuration
         * receives: a card's fault): LENGTH_ERROR, the length cut to what the buffer holds.
         */
        RX_BAD_LENGTHS,
        /** Received frames copied out to host memory. */
        RX_COPY_OUTS,
        /** RX_FIFO entries naming a buffer the card did not own (card misbehaviour): counted and ignored. */
        RX_BAD_FIFO_ENTRIES,
        /** TXDONE entries naming a buffer that was not in transmission: counted and ignored. */
        TX_BAD_FIFO_ENTRIES,
        /** Buffers pushed back into FREE_FIFO. */
        FREE_PUSHES,
        /** Interrupt acknowledgements that found ISR bits set. */
        INTERRUPTS,
        /** RX_DROP_NOBUF seen in ISR (the card had no free buffer for a frame). */
        RX_NOBUF_EVENTS,
        /** RING_CHANGE seen in ISR. */
        RING_CHANGES,
        /** Transmit watchdog expiries: a frame was queued and no TXDONE came for the watchdog's timeout. */
        TX_TIMEOUTS,
        /** Card resets the watchdog found (CTRL no longer holds RX_EN/TX_EN/RING_JOIN) and re-initialised from. */
        CARD_RESETS,
        /** Transmit buffers re-queued into TX_FIFO after a card reset (the reset forgot them, unsent). */
        TX_REQUEUED
    }

    /** The card's counter registers, in register order. */
    public enum CardCounter {
        FRAMES_TX(Medusa.REG_CNT_FRAMES_TX),
        FRAMES_RX(Medusa.REG_CNT_FRAMES_RX),
        FCS_ERRORS(Medusa.REG_CNT_FCS_ERRORS),
        NOBUF_DROPS(Medusa.REG_CNT_NOBUF_DROPS),
        RING_REINITS(Medusa.REG_CNT_RING_REINITS),
        TOKENS_SEEN(Medusa.REG_CNT_TOKENS_SEEN),
        RX_TRUNCATED(Medusa.REG_CNT_RX_TRUNCATED),
        TX_ERRORS(Medusa.REG_CNT_TX_ERRORS);

        private final int register;

        CardCounter(int register) {
            this.register = register;
        }

        /** @return the register offset from the start of the register block */
        public int register() {
            return register;
        }
    }

    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final Counter[] COUNTERS = Counter.values();
    private static final CardCounter[] CARD_COUNTERS = CardCounter.values();

    private final long[] counts = new long[COUNTERS.length];
    private final Registers registers;
    private final int registerBase;

    MedusaStatistics(Registers registers, int registerBase) {
        this.registers = registers;
        this.registerBase = registerBase;
    }

    void increment(Counter c) {
        add(c, 1);
    }

    void add(Counter c, long delta) {
        int i = c.ordinal();
        COUNTS.setOpaque(counts, i, (long) COUNTS.getOpaque(counts, i) + delta);
    }

    /** @return a driver counter (any thread; eventually the latest value) */
    public long get(Counter c) {
        return (long) COUNTS.getOpaque(counts, c.ordinal());
    }

    /** @return the card's counter register, unsigned 32-bit (it wraps) */
    public long card(CardCounter c) {
        return registers.read(registerBase + c.register()) & 0xFFFF_FFFFL;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("driver{");
        for (Counter c : COUNTERS) {
            long v = get(c);
            if (v != 0) {
                sb.append(c.name().toLowerCase(java.util.Locale.ROOT)).append('=').append(v).append(' ');
            }
        }
        sb.append("} card{");
        for (CardCounter c : CARD_COUNTERS) {
            sb.append(c.name().toLowerCase(java.util.Locale.ROOT)).append('=').append(card(c)).append(' ');
        }
        return sb.append('}').toString();
    }
}
