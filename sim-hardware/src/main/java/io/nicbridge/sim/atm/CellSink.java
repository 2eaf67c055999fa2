package io.nicbridge.sim.atm;

import java.lang.foreign.MemorySegment;

/**
 * Where a {@link CellLink} delivers cells: a switch input port or a card's receive FIFO. The cell is
 * {@link AtmCells#CELL_SIZE} bytes (header, HEC, 48-byte payload) at {@code offset}; it belongs to the caller and
 * is valid only during the call, so a sink copies what it keeps. Must not allocate; may be called from the
 * thread of whoever drives the link.
 */
@FunctionalInterface
public interface CellSink {
    void cellArrived(MemorySegment cell, long offset);
}
