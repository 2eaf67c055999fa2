package io.nicbridge.sim.fabric;

/**
 * What the fabric does with a packet that cannot advance.
 *
 * <ul>
 *   <li>{@link #BUFFERED}: lossless; the packet waits and back-pressure propagates by credits. Deadlock freedom
 *       comes from the topology's routing (dimension order, dateline VCs, up/down trees, unidirectional
 *       butterflies) and from the separate request/reply VC classes.</li>
 *   <li>{@link #DROP_WHEN_BLOCKED}: the idempotent-messaging paper's lossy network. A head flit that has been
 *       eligible to leave a router for more than {@link FabricConfig#dropTimeoutCycles()} cycles without leaving
 *       (no free output VC, no credit, or lost switch arbitration) is dropped: the packet is marked dead, and its
 *       flits are discarded as they reach the front of that VC (the rest of the worm drains into the bit bucket,
 *       returning credits). Body flits are never the cause of a drop. A packet therefore waits at most
 *       {@code routerDelay + dropTimeout} cycles per router, which bounds its time in the network. Packets carry
 *       one extra checksum flit (the tail) when {@link FabricConfig#checksumFlit()} is set.</li>
 * </ul>
 */
public enum Discipline {
    BUFFERED,
    DROP_WHEN_BLOCKED
}
