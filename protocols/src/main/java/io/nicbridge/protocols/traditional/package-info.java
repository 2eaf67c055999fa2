/**
 * The traditional protocol of the C* network layer (Mosberger, Turner and Peterson, TR 94-14, section 5.2 and
 * Appendix A) as a sans-I/O core: {@link io.nicbridge.protocols.traditional.TraditionalCore} implements
 * {@link io.nicbridge.protocols.cstar.CStarNetwork} over any {@link io.nicbridge.bridge.link.Link} (frames:
 * {@link io.nicbridge.protocols.traditional.TraditionalWire}), with the receive side the careful protocol shares
 * ({@link io.nicbridge.protocols.cstar.EventInbox}). Its Appendix A operations are charged to the node's CPU as
 * {@code traditional.<name>}: decide-ack-flag, fill-fragment-descriptor, set-ack-mask, get-tx-event-slot,
 * push-fragment-descriptor, collect-tx-buffers, check-bitset (send); maintain-buffer-counter, fragment-priority,
 * check-copy-out, implicit-ack, check-fragment-number, check-explicit-ack, check-retransmission, check-all-to-all,
 * check-complete (interrupt).
 */
package io.nicbridge.protocols.traditional;
