package io.nicbridge.sim.atm;

/**
 * A full-duplex path through the switch between a station on port A and one on port B, as the network service set
 * it up: A transmits on {@code aTxVci} and the switch delivers that to B on {@code bRxVci}; B transmits on
 * {@code bTxVci}, delivered to A on {@code aRxVci}. All on {@code vpi}. These are the tag pair each side's U-Net
 * channel registers with its card (CH_OPEN: VPI, TX VCI, RX VCI).
 */
public record AtmPath(int vpi, int portA, int aTxVci, int aRxVci, int portB, int bTxVci, int bRxVci)
        implements io.nicbridge.bridge.driver.unet.UnetSignalling.Path {
}
