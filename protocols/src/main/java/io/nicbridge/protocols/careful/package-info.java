/**
 * The careful protocol of Mosberger, Turner and Peterson (TR 94-14, section 5.3): the C* network layer
 * ({@link io.nicbridge.protocols.cstar.CStarNetwork}) over a link it trusts to be reliable - static windows, no
 * retransmission, no timers, single-copy sends - that detects and reports whatever breaks that trust.
 * {@link io.nicbridge.protocols.careful.CarefulCore} is the core, {@link io.nicbridge.protocols.careful.CarefulWire}
 * its frame.
 */
package io.nicbridge.protocols.careful;
