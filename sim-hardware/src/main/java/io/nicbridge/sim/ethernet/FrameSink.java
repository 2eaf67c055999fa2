package io.nicbridge.sim.ethernet;

import java.lang.foreign.MemorySegment;

/**
 * The receiving side of a station on a wire: a card's PHY and receive FIFO.
 *
 * <p>The bytes are the frame as it crossed the wire: destination address through FCS, without
 * preamble and SFD. A frame that a fault corrupted arrives with a wrong FCS, which is how the card
 * notices (21140: RDES0 CE). The sink must copy what it keeps before returning; it may be called
 * from any thread (threaded engines), so it hands the frame to its card through a thread-safe FIFO
 * and kicks the card's {@link io.nicbridge.sim.engine.WorkSignal}.
 */
@FunctionalInterface
public interface FrameSink {
    void frameArrived(MemorySegment frame, long offset, int length);

    /**
     * The station's carrier went ({@code false}: its cable was unplugged or the segment went down) or came back. A
     * card shows it where its driver looks for link (the 21140: the PHY's signal-detect pins in CSR12). Any thread;
     * the default ignores it.
     */
    default void carrier(boolean up) {
    }
}
