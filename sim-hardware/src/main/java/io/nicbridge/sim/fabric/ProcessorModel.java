package io.nicbridge.sim.fabric;

/**
 * Costs of the node processor in network cycles, used by endpoints through {@link NodePort#send} and
 * {@link NodePort#chargeProcessor(long)}. The NIFDY paper's CM-5 figures (its Table 2) are
 * {@code new ProcessorModel(46, 56, 22)}; its parameter study uses send 40 / receive 60.
 *
 * @param sendOverhead    cycles the processor is busy per packet sent
 * @param receiveOverhead cycles the processor is busy per packet received
 * @param pollEmpty       cycles of a poll that finds nothing
 */
public record ProcessorModel(long sendOverhead, long receiveOverhead, long pollEmpty) {
    /** A processor that costs nothing: packets enter the NI queue at the cycle they are sent. */
    public static final ProcessorModel FREE = new ProcessorModel(0, 0, 0);

    public ProcessorModel {
        if (sendOverhead < 0 || receiveOverhead < 0 || pollEmpty < 0) {
            throw new IllegalArgumentException("processor overheads must be >= 0, got send=" + sendOverhead
                + " receive=" + receiveOverhead + " pollEmpty=" + pollEmpty);
        }
    }
}
