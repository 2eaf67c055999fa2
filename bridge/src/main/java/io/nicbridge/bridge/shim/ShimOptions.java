package io.nicbridge.bridge.shim;

import io.nicbridge.contract.NicShim;
import io.nicbridge.contract.NicShimOptions;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * {@code nicshim_options_t} as a Java value: PACKET_MMAP ring geometry, the per-poll budget, interface flags and the
 * U-Net-over-Ethernet tag type and peer. Zero means "the library's default" for every numeric field.
 *
 * @param flags         {@code NicShim.OPT_*}
 * @param rxRingFrames  PACKET_MMAP RX ring frames (power of two; 0 = 256)
 * @param txRingFrames  PACKET_MMAP TX ring frames (power of two; 0 = 256)
 * @param frameSize     PACKET_MMAP frame size (multiple of 16; 0 = 2048)
 * @param pollBudget    frames moved per direction per poll (0 = 64)
 * @param unetEthertype U-Net tag EtherType (0 = 0x88B5)
 * @param unetPeerMac   U-Net destination MAC, 6 bytes (all zero = broadcast)
 */
public record ShimOptions(int flags, int rxRingFrames, int txRingFrames, int frameSize, int pollBudget,
                          int unetEthertype, byte[] unetPeerMac) {
    /** All defaults. */
    public static final ShimOptions DEFAULTS = new ShimOptions(0, 0, 0, 0, 0, 0, new byte[6]);

    public ShimOptions {
        Objects.requireNonNull(unetPeerMac, "unetPeerMac");
        if (unetPeerMac.length != 6) {
            throw new IllegalArgumentException("the U-Net peer MAC must have 6 bytes, had " + unetPeerMac.length);
        }
        if ((flags & ~NicShim.OPT_ALL) != 0) {
            throw new IllegalArgumentException("unknown shim option flags 0x" + Integer.toHexString(flags));
        }
        if (unetEthertype < 0 || unetEthertype > 0xFFFF) {
            throw new IllegalArgumentException("EtherType must fit 16 bits, was " + unetEthertype);
        }
        unetPeerMac = unetPeerMac.clone();
    }

    @Override
    public byte[] unetPeerMac() {
        return unetPeerMac.clone();
    }

    /** Fills a {@code nicshim_options_t}. */
    void writeTo(MemorySegment o) {
        o.fill((byte) 0);
        NicShimOptions.size(o, 0, (int) NicShimOptions.BYTE_SIZE);
        NicShimOptions.flags(o, 0, flags);
        NicShimOptions.rxRingFrames(o, 0, rxRingFrames);
        NicShimOptions.txRingFrames(o, 0, txRingFrames);
        NicShimOptions.frameSize(o, 0, frameSize);
        NicShimOptions.pollBudget(o, 0, pollBudget);
        NicShimOptions.unetEthertype(o, 0, unetEthertype);
        for (int i = 0; i < 6; i++) {
            NicShimOptions.unetDstMac(o, 0, i, unetPeerMac[i] & 0xFF);
        }
    }
}
