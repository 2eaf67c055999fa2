/**
 * The card-independent frame interface: {@link io.nicbridge.bridge.port.FramePort} (zero-copy
 * claim/commit send, poll/await/release receive, int handles, no allocation per frame),
 * {@link io.nicbridge.bridge.port.PortCounters}, {@link io.nicbridge.bridge.port.FrameStatus}, and
 * {@link io.nicbridge.bridge.port.LoopbackFramePort}, two ports joined back to back in one comm segment.
 */
package io.nicbridge.bridge.port;
