package io.nicbridge.bridge.driver.unet;

/**
 * The network's side of channel set-up (U-Net paper section 3.2: "the operating system service ... assists the
 * application in determining the correct tag to use based on a specification of the destination process and the
 * route between the two nodes"): route discovery, switch programming and tag allocation. A network implements it
 * (the emulated ATM switch's service in sim-hardware); {@link UnetKernelDriver#connect} uses it and registers the
 * resulting tags with each card. Setup-time; implementations are thread-safe.
 */
public interface UnetSignalling {
    /**
     * A duplex path between the cards of two drivers: side A transmits on {@code aTxVci}, which the network delivers
     * to B on {@code bRxVci}; B transmits on {@code bTxVci}, delivered to A on {@code aRxVci}; all on {@code vpi}.
     */
    interface Path {
        int vpi();

        int aTxVci();

        int aRxVci();

        int bTxVci();

        int bRxVci();
    }

    /**
     * Sets up a path between the card driven by {@code a} and the card driven by {@code b} (the same driver gives
     * a loop through the network).
     *
     * @throws IllegalArgumentException when a driver's card is not attached to this network
     * @throws IllegalStateException    when the network has no free tags left
     */
    Path connect(UnetKernelDriver a, UnetKernelDriver b);

    /**
     * Tears {@code path} down and frees its tags.
     *
     * @throws IllegalArgumentException when {@code path} is not one this service set up and has not torn down yet
     *                                  (its tags may belong to another path by now)
     */
    void disconnect(Path path);
}
