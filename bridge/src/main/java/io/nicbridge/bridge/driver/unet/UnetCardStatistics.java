package io.nicbridge.bridge.driver.unet;

import io.nicbridge.contract.Sba200Unet;
import io.nicbridge.contract.Sba200UnetStats;
import java.lang.foreign.MemorySegment;

/**
 * The firmware's counters as the last {@code GET_STATS} copied them into kernel memory ({@link Sba200UnetStats},
 * 16 big-endian words). Values are unsigned 32-bit counters returned as {@code long}.
 */
public final class UnetCardStatistics {
    private static final java.lang.foreign.ValueLayout.OfInt WORD =
            java.lang.foreign.ValueLayout.JAVA_INT.withOrder(Sba200Unet.BYTE_ORDER);
    private final MemorySegment block;

    UnetCardStatistics(MemorySegment block) {
        this.block = block;
    }

    private long word(long offset) {
        return Integer.toUnsignedLong(block.get(WORD, offset));
    }

    public long cellsTx() {
        return word(Sba200UnetStats.OFFSET_CELLS_TX);
    }

    public long cellsRx() {
        return word(Sba200UnetStats.OFFSET_CELLS_RX);
    }

    public long hecErrors() {
        return word(Sba200UnetStats.OFFSET_HEC_ERRORS);
    }

    public long aal5CrcErrors() {
        return word(Sba200UnetStats.OFFSET_AAL5_CRC_ERRORS);
    }

    public long lengthErrors() {
        return word(Sba200UnetStats.OFFSET_LENGTH_ERRORS);
    }

    public long dropUnknownVci() {
        return word(Sba200UnetStats.OFFSET_DROP_UNKNOWN_VCI);
    }

    public long dropNoFreeBuffer() {
        return word(Sba200UnetStats.OFFSET_DROP_NO_FREE_BUF);
    }

    public long dropReceiveQueueFull() {
        return word(Sba200UnetStats.OFFSET_DROP_RQ_FULL);
    }

    public long pdusTx() {
        return word(Sba200UnetStats.OFFSET_PDUS_TX);
    }

    public long pdusRx() {
        return word(Sba200UnetStats.OFFSET_PDUS_RX);
    }

    public long txRejected() {
        return word(Sba200UnetStats.OFFSET_TX_REJECTED);
    }

    public long dmaErrors() {
        return word(Sba200UnetStats.OFFSET_DMA_ERRORS);
    }

    /** Cells lost because the card's input cell FIFO was full (the i960 fell behind the fibre). */
    public long dropFifoOverflow() {
        return word(Sba200UnetStats.OFFSET_DROP_FIFO_OVERFLOW);
    }

    @Override
    public String toString() {
        return "UnetCardStatistics[cellsTx=" + cellsTx() + ", cellsRx=" + cellsRx() + ", hecErrors=" + hecErrors()
                + ", crcErrors=" + aal5CrcErrors() + ", lengthErrors=" + lengthErrors() + ", dropUnknownVci="
                + dropUnknownVci() + ", dropNoFreeBuf=" + dropNoFreeBuffer() + ", dropRqFull=" + dropReceiveQueueFull()
                + ", pdusTx=" + pdusTx() + ", pdusRx=" + pdusRx() + ", txRejected=" + txRejected() + ", dmaErrors="
                + dmaErrors() + ", dropFifoOverflow=" + dropFifoOverflow() + "]";
    }
}
