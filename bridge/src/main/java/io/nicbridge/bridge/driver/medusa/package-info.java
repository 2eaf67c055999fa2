/**
 * The host driver of the HP Medusa FDDI adapter (docs/hardware-facts.md C.2, {@code medusa.h}): {@link
 * io.nicbridge.bridge.driver.medusa.MedusaDriver} implements the card-independent {@link
 * io.nicbridge.bridge.port.FramePort} over the card's 128 on-board buffers, with the single-copy send path
 * (PIO into buffer RAM, checksum by the card's PIO_CKSUM unit), in-place or copy-out receive, in-place forwarding,
 * TXDONE reclaim and an explicit per-buffer ownership table ({@link
 * io.nicbridge.bridge.driver.medusa.MedusaBufferState}). The card reaches buffer RAM only through {@link
 * io.nicbridge.bridge.driver.medusa.MedusaPio}, which the card (emulated or real) provides.
 */
package io.nicbridge.bridge.driver.medusa;
