package io.nicbridge.bridge.driver.medusa;

import java.lang.foreign.MemorySegment;

/**
 * The host's programmed-I/O path into a Medusa's buffer RAM: the only way data reaches the card (it has no
 * DMA). Every byte copied through here is also summed by the card's checksum unit into the PIO_CKSUM register
 * (docs/hardware-facts.md C.2: "updated by every host PIO write <b>and</b> read of buffer RAM, big-endian
 * halfword sum"), which is what lets the single-copy stack get the data checksum for free while it copies.
 *
 * <pre>
 *   host memory                         Medusa window (2 MiB, big-endian)
 *   +-----------+   copyToCard          +--------------------------------+ 0x000000
 *   | user data | --------------------> | buffer n at n x 0x2000 (8 KiB) |
 *   +-----------+ &lt;-------------------- |                                |
 *                   copyFromCard        +--------------------------------+ 0x100000
 *                        |              | registers ... PIO_CKSUM (0x3C) | &lt;- sum of every halfword moved
 *                        +------------> +--------------------------------+
 * </pre>
 *
 * <p>The card model (or a native shim) implements this; the driver never writes buffer RAM behind its back
 * except through {@link io.nicbridge.bridge.port.FramePort#txBuffer} slices, which by definition bypass the
 * checksum unit (raw frames). Window offsets are byte offsets from the start of the 2 MiB window and must lie
 * inside buffer RAM; implementations reject anything else with {@link IllegalArgumentException} and must not
 * allocate.
 */
public interface MedusaPio {
    /**
     * Copies {@code length} bytes from host memory into buffer RAM by PIO, adding them to PIO_CKSUM.
     *
     * @param windowOffset first byte in the card window (inside buffer RAM)
     */
    void copyToCard(MemorySegment src, long srcOffset, int windowOffset, int length);

    /**
     * Copies {@code length} bytes out of buffer RAM into host memory by PIO, adding them to PIO_CKSUM.
     *
     * @param windowOffset first byte in the card window (inside buffer RAM)
     */
    void copyFromCard(int windowOffset, MemorySegment dst, long dstOffset, int length);

    /** Writes one byte of buffer RAM by PIO (adds it to PIO_CKSUM in the lane its address selects). */
    void putByte(int windowOffset, byte value);
}
