/**
 * The card-independent {@link io.nicbridge.bridge.link.Link} a protocol core sends and receives through (small
 * integer peers, zero-copy claim/commit send, in-place receive with release, readiness, back-pressure as return
 * values) and the {@link io.nicbridge.bridge.link.LinkHandler} it is driven by. One framing per medium implements
 * it; see {@link io.nicbridge.bridge.link.Link} for how each medium maps onto it.
 */
package io.nicbridge.bridge.link;
