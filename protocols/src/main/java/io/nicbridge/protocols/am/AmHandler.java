package io.nicbridge.protocols.am;

/**
 * An Active Message handler, registered under an index (GAM names a handler by its address; every node registers
 * the same table, as every node of an SPMD program has the same code). It runs inside {@link AmCore#poll}, on the
 * node's thread, to completion; it must not block.
 *
 * <ul>
 *   <li>a request handler gets the request's four arguments and may reply once ({@link AmCore#reply}) to
 *       {@link AmToken#source()}; if it does not, the layer acknowledges the request explicitly;</li>
 *   <li>a reply handler gets the reply's arguments and may not reply (GAM 1.1: reply handlers cannot reply, which
 *       keeps the request and reply networks free of live-lock);</li>
 *   <li>a store handler runs on the destination after the whole block arrived: (address, bytes, argument, 0), the
 *       address in the destination's memory; it is a request handler (it may reply);</li>
 *   <li>a get handler runs on the node that asked, after the whole block arrived: (local address, bytes, argument,
 *       0); it is a reply handler.</li>
 * </ul>
 */
@FunctionalInterface
public interface AmHandler {
    void handle(AmToken token, int a0, int a1, int a2, int a3);
}
