package io.nicbridge.bridge.driver.medusa;

import java.lang.foreign.MemorySegment;

/**
 * The careful protocol's send path on the Medusa, reached through {@code link.capability(MedusaSingleCopy.class)}
 * of a {@link MedusaLink}: the message goes from the application's memory to the card in exactly one copy - the
 * programmed-I/O copy into the claimed on-board buffer - and the card's checksum unit sums it during that copy, so
 * the data checksum costs no pass of its own (careful-protocols paper, sections 4-5: transmit directly out of the
 * application's data, no backup copy; the Medusa has no DMA, so the PIO copy is the one copy).
 *
 * <pre>
 *   int h = link.claim(peer);
 *   int sum = singleCopy.copyPayload(h, HDR, appData, off, n);   // PIO: appData -&gt; card buffer [13 + HDR, ...)
 *   MemorySegment hdr = link.txBuffer(h);                        // write the protocol header, with sum, in
 *   ... hdr[0, HDR) ...                                          //   host memory
 *   link.commit(h, HDR + n);                                     // PIO: FC, DA, SA and hdr[0, HDR) only
 * </pre>
 * After {@code copyPayload} the frame's length is fixed: {@code commit} must be given {@code at + length}.
 * {@code abort} gives the buffer back as usual.
 */
public interface MedusaSingleCopy {
    /**
     * Copies {@code length} bytes of {@code src} by PIO straight into the claimed frame on the card, at payload
     * offset {@code at} (the bytes before it, {@code txBuffer(h)[0, at)}, are the caller's protocol header, copied
     * at commit), while the card's checksum unit sums them. Once per claim.
     *
     * @return the card's folded 16-bit ones'-complement sum of the copied bytes (big-endian halfwords by window
     *     address: with the default frame offset 3 the payload byte {@code at} sits at buffer offset 16 + at, so an
     *     even {@code at} is summed in natural lanes)
     * @throws IllegalStateException    when {@code txHandle} is not claimed through the link, or its payload was
     *                                  copied already
     * @throws IllegalArgumentException when {@code at + length} exceeds the link's mtu, {@code length < 1},
     *                                  {@code at < 0}, or the source range is outside {@code src}
     */
    int copyPayload(int txHandle, int at, MemorySegment src, long srcOffset, int length);
}
