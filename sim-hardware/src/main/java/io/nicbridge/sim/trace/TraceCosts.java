package io.nicbridge.sim.trace;

/**
 * Packet sizes (flits of 32 bits, each packet ending with its checksum flit as in the idempotent
 * paper's network) and local costs (cycles) the trace library charges. The paper gives ACK/CONF
 * packets as four flits; request and reply sizes below are this project's choice:
 * <pre>
 *   load request   header, address, checksum                    3 flits
 *   load reply     header, data, checksum                       3 flits
 *   store          header, address, data, checksum              4 flits
 *   store ack      header, checksum                             2 flits
 *   fork           header, entry point, 2 argument words, checksum   5 flits
 *   join           header, capability, data, checksum           4 flits
 * </pre>
 *
 * @param localReference cycles for a load or store to local memory
 * @param localFork cycles to start a thread on the forking node itself
 * @param localJoin cycles to write another local thread's register
 */
public record TraceCosts(int loadRequestFlits, int loadReplyFlits, int storeFlits, int storeAckFlits, int forkFlits,
                         int joinFlits, int localReference, int localFork, int localJoin) {

    public TraceCosts {
        if (loadRequestFlits < 1 || loadReplyFlits < 1 || storeFlits < 1 || storeAckFlits < 1 || forkFlits < 1
                || joinFlits < 1 || localReference < 0 || localFork < 0 || localJoin < 0) {
            throw new IllegalArgumentException("packet sizes must be >= 1 flit and local costs >= 0 cycles");
        }
    }

    public static TraceCosts defaults() {
        return new TraceCosts(3, 3, 4, 2, 5, 4, 2, 4, 2);
    }
}
