/**
 * The card-independent {@link io.nicbridge.bridge.link.Link} a protocol core sends and receives through (small
 * integer peers, zero-copy claim/commit send, in-place receive with release, readiness, back-pressure as return
 * values) and the {@link io.nicbridge.bridge.link.LinkHandler} it is driven by. One framing per medium implements
 * it; see {@link io.nicbridge.bridge.link.Link} for how each medium maps onto it. What every implementation shares:
 * the table of received frames the caller holds ({@link io.nicbridge.bridge.link.ReceivedFrames}), the peer table of
 * address-based media ({@link io.nicbridge.bridge.link.PeerTable}), and for card framings the FramePort bookkeeping
 * ({@link io.nicbridge.bridge.link.FramePortLink}) and the doorbell paced by the node's CPU in virtual time
 * ({@link io.nicbridge.bridge.link.CpuPacedTransmits}).
 */
package io.nicbridge.bridge.link;
