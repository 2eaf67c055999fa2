package io.nicbridge.bridge.driver.medusa;

/**
 * The receive half of the Medusa's checksum unit, reached through {@code link.capability(MedusaReceiveChecksum.class)}
 * of a {@link MedusaLink}: the card sums every received frame from RXCK_START to its end while it stores it, and
 * leaves the folded sum in the buffer's status entry (RXCK, {@code docs/hardware-facts.md} C.2), so the host verifies
 * a payload checksum without a pass over the bytes of its own - it sums only the bytes before RXCK_START, and pays
 * one PIO read of the status word.
 *
 * <pre>
 *   payload:  [0, coveredFrom())             [coveredFrom(), length)
 *             the host sums these itself     the card's RXCK: payloadSum(h)
 * </pre>
 * Offered only while the driver's receive checksum is on and RXCK_START lies at or after the payload (not inside the
 * FDDI MAC header), otherwise {@code capability} answers null and the host sums the whole payload.
 */
public interface MedusaReceiveChecksum {
    /** @return the first payload byte the card's receive checksum covers (RXCK_START less FC, DA and SA) */
    int coveredFrom();

    /**
     * @param rxHandle a received frame the caller holds
     * @return the card's folded 16-bit ones'-complement sum of payload bytes {@code [coveredFrom(), length)}, in the
     *     lanes of the payload (the byte at an even payload offset is a halfword's high byte), 0 for a payload that
     *     ends before {@code coveredFrom()}; charged as one PIO word (the status entry's RXCK read)
     * @throws IllegalStateException when the caller does not hold {@code rxHandle}
     */
    int payloadSum(int rxHandle);
}
