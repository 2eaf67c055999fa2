package io.nicbridge.bridge.driver.tulip;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The driver's statistics, counted the way Linux's tulip driver counts them: transmit errors from TDES0 of each
 * reclaimed frame, receive errors from RDES0, missed frames from CSR8 (cleared on read, so accumulated here) and
 * chip events from CSR5. Frame and byte totals are in {@link io.nicbridge.bridge.port.PortCounters}.
 *
 * <p>Updated only on rare paths (errors, interrupts, CSR8 reads), so each update is an atomic add and any thread
 * may update or read; the per-frame fast path never touches this class when a frame is good.
 */
public final class TulipStatistics {
    /** What is counted. */
    public enum Counter {
        /** TDES0 ES set (any transmit error). */
        TX_ERRORS,
        /** TDES0 &amp; 0x4104: jabber timeout, excessive collisions, link fail. */
        TX_ABORTED,
        /** TDES0 &amp; 0x0C00: no carrier or loss of carrier. */
        TX_CARRIER,
        /** TDES0 &amp; 0x0200: late collision (Linux's {@code tx_window_errors}). */
        TX_WINDOW,
        /** TDES0 &amp; 0x0002: underflow. */
        TX_FIFO,
        /** TDES0 &amp; 0x0080 in half duplex: heartbeat fail. */
        TX_HEARTBEAT,
        /** Sum of TDES0 collision counts ((status &gt;&gt; 3) &amp; 15) of good frames. */
        TX_COLLISIONS,
        /**
         * TDES0 EC: frames abandoned after 16 collisions on a half-duplex hub (Linux folds them into
         * {@link #TX_ABORTED}; counted apart as well, so a busy hub's losses show by themselves).
         */
        TX_EXCESSIVE_COLLISIONS,
        /** Setup frames the chip has processed. */
        SETUP_FRAMES,
        /**
         * Frames that failed Linux's accept test {@code (RDES0 & }{@link io.nicbridge.contract.Dec21140#LINUX_RX_ACCEPT_MASK
         * LINUX_RX_ACCEPT_MASK}{@code ) == }{@link io.nicbridge.contract.Dec21140#LINUX_RX_ACCEPT_VALUE LINUX_RX_ACCEPT_VALUE}.
         */
        RX_ERRORS,
        /** RDES0 CE. */
        RX_CRC_ERRORS,
        /** RF, TL, length bits 29:27, FL - 4 over 1518, or a frame spread over several descriptors. */
        RX_LENGTH_ERRORS,
        /** RDES0 DB (dribbling bit). */
        RX_FRAME_ERRORS,
        /** RDES0 OF (FIFO overflow). */
        RX_FIFO_ERRORS,
        /** RDES0 DE: the frame was truncated because the next descriptor was host-owned. */
        RX_TRUNCATED,
        /** RDES0 CS or RW. */
        RX_OTHER_ERRORS,
        /** CSR8 missed-frame counter (frames lost for want of a descriptor), accumulated. */
        RX_MISSED,
        /** CSR8 FIFO-overflow counter, accumulated. */
        RX_FIFO_OVERFLOWS,
        /** CSR5 RU seen: the receive process suspended for want of a descriptor. */
        RX_SUSPENDS,
        /** CSR5 FBE seen (fatal bus error). */
        BUS_ERRORS,
        /** CSR5 readings with an interrupt source set, acknowledged by the driver. */
        INTERRUPTS,
        /** CSR2 writes (receive poll demands after a refill). */
        RX_POLL_DEMANDS,
        /**
         * Transmit watchdog expiries (Linux's {@code tulip_tx_timeout}): a frame was in flight and no transmit
         * descriptor came back for the watchdog's timeout.
         */
        TX_TIMEOUTS,
        /**
         * Card resets the watchdog found (CSR6 no longer has the SR/ST the driver wrote: the chip went through a
         * reset the driver did not ask for) and recovered from by re-initialising the chip.
         */
        CARD_RESETS,
        /** Frames the chip had received and handed back before a reset but the host had not polled yet: lost. */
        RX_LOST_IN_RESET,
        /**
         * Descriptor handoffs the chip broke: OWN set on a receive descriptor the host held (a chip only ever clears
         * OWN). The driver takes the descriptor back and re-arms it as the host asked.
         */
        CARD_PROTOCOL_VIOLATIONS;

        private static final Counter[] ALL = values();
    }

    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(long[].class);
    private final long[] values = new long[Counter.ALL.length];

    /** Adds {@code delta} (no-op for 0). */
    public void add(Counter c, long delta) {
        if (delta != 0) {
            SLOTS.getAndAdd(values, c.ordinal(), delta);
        }
    }

    public void increment(Counter c) {
        SLOTS.getAndAdd(values, c.ordinal(), 1L);
    }

    public long get(Counter c) {
        return (long) SLOTS.getVolatile(values, c.ordinal());
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("TulipStatistics[");
        boolean first = true;
        for (Counter c : Counter.ALL) {
            long v = get(c);
            if (v != 0) {
                if (!first) {
                    sb.append(", ");
                }
                first = false;
                sb.append(c.name().toLowerCase(java.util.Locale.ROOT)).append(' ').append(v);
            }
        }
        return sb.append(']').toString();
    }
}
