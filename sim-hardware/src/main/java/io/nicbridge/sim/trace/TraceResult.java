package io.nicbridge.sim.trace;

/**
 * The outcome of running a {@link BlockTrace} on a network.
 *
 * @param completionCycle the cycle the last block finished (the program's execution time)
 * @param completed whether every block ran (false when packets were dropped or the cycle limit hit)
 * @param blocksActivated blocks that ran
 * @param blockCount blocks in the trace
 * @param requestPackets packets delivered on the request network
 * @param replyPackets packets delivered on the reply network
 * @param droppedPackets packets the network dropped (their target blocks never run)
 * @param flitsDelivered flits delivered over both networks
 * @param wallNanos wall-clock time of the simulation
 */
public record TraceResult(long completionCycle, boolean completed, int blocksActivated, int blockCount,
                          long requestPackets, long replyPackets, long droppedPackets, long flitsDelivered,
                          long wallNanos) {
}
