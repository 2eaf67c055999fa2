package io.nicbridge.sim.fabric;

/**
 * How a router forwards a packet's flits.
 *
 * <ul>
 *   <li>{@link #WORMHOLE}: the head may take an output virtual channel as soon as that channel is free; the
 *       body follows flit by flit as credits allow, so one packet may be spread over many routers.</li>
 *   <li>{@link #VIRTUAL_CUT_THROUGH}: the head takes an output virtual channel only when the downstream buffer
 *       has credits for the whole packet, so a blocked packet always collapses into a single buffer.</li>
 *   <li>{@link #STORE_AND_FORWARD}: like cut-through, and in addition the head leaves a router only after the
 *       tail has arrived there (the NIFDY paper's store-and-forward fat tree: latency (L + 1) per hop).</li>
 * </ul>
 * Cut-through and store-and-forward need a buffer depth of at least the longest packet.
 */
public enum Switching {
    WORMHOLE,
    VIRTUAL_CUT_THROUGH,
    STORE_AND_FORWARD
}
