package io.nicbridge.bridge.shim;

import io.nicbridge.contract.NicShim;
import io.nicbridge.contract.NicShimOptions;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * {@code nicshim_options_t} as a Java value: the backend (AF_PACKET or AF_XDP), ring geometry, the per-poll budget,
 * interface flags, the U-Net-over-Ethernet tag type and peer, and the AF_XDP queue, modes and busy polling. Zero means
 * "the library's default" for every numeric field.
 *
 * @param flags         {@code NicShim.OPT_*}
 * @param rxRingFrames  PACKET_MMAP RX ring frames (power of two; 0 = 256)
 * @param txRingFrames  PACKET_MMAP TX ring frames (power of two; 0 = 256)
 * @param frameSize     PACKET_MMAP frame size (multiple of 16; 0 = 2048)
 * @param pollBudget    frames moved per direction per poll (0 = 64)
 * @param unetEthertype U-Net tag EtherType (0 = 0x88B5)
 * @param unetPeerMac   U-Net destination MAC, 6 bytes (all zero = broadcast)
 * @param backend       {@code NicShim.BACKEND_AF_PACKET} or {@code NicShim.BACKEND_AF_XDP}
 * @param xdpQueue      AF_XDP: the interface queue the socket binds to
 * @param xdpFlags      AF_XDP: {@code NicShim.XDP_BIND_* | NicShim.XDP_ATTACH_*}
 * @param busyPollMicros AF_XDP: SO_BUSY_POLL on the socket (0 = off)
 */
public record ShimOptions(int flags, int rxRingFrames, int txRingFrames, int frameSize, int pollBudget,
                          int unetEthertype, byte[] unetPeerMac, int backend, int xdpQueue, int xdpFlags,
                          int busyPollMicros) {
    /** All defaults. */
    public static final ShimOptions DEFAULTS = new ShimOptions(0, 0, 0, 0, 0, 0, new byte[6]);

    /** AF_PACKET options (the ABI 1.1 fields). */
    public ShimOptions(int flags, int rxRingFrames, int txRingFrames, int frameSize, int pollBudget, int unetEthertype,
                       byte[] unetPeerMac) {
        this(flags, rxRingFrames, txRingFrames, frameSize, pollBudget, unetEthertype, unetPeerMac,
            NicShim.BACKEND_AF_PACKET, 0, 0, 0);
    }

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
        if (backend != NicShim.BACKEND_AF_PACKET && backend != NicShim.BACKEND_AF_XDP) {
            throw new IllegalArgumentException("unknown shim backend " + backend);
        }
        if (backend == NicShim.BACKEND_AF_PACKET && (xdpQueue != 0 || xdpFlags != 0 || busyPollMicros != 0)) {
            throw new IllegalArgumentException("the AF_XDP queue, modes and busy polling need the AF_XDP backend");
        }
        if ((xdpFlags & ~NicShim.XDP_FLAGS_ALL) != 0 || xdpQueue < 0 || busyPollMicros < 0) {
            throw new IllegalArgumentException("bad AF_XDP options: queue " + xdpQueue + ", flags 0x"
                + Integer.toHexString(xdpFlags) + ", busy poll " + busyPollMicros + " us");
        }
        unetPeerMac = unetPeerMac.clone();
    }

    public boolean afXdp() {
        return backend == NicShim.BACKEND_AF_XDP;
    }

    /** AF_XDP: RX (= FILL) ring entries after defaults. */
    public int resolvedRxRingFrames() {
        return rxRingFrames == 0 ? NicShim.DEFAULT_RING_FRAMES : rxRingFrames;
    }

    /** AF_XDP: TX (= COMPLETION) ring entries after defaults. */
    public int resolvedTxRingFrames() {
        return txRingFrames == 0 ? NicShim.DEFAULT_RING_FRAMES : txRingFrames;
    }

    /** AF_XDP: the UMEM chunk size after defaults. */
    public int resolvedFrameSize() {
        return frameSize == 0 ? NicShim.DEFAULT_FRAME_SIZE : frameSize;
    }

    /** AF_XDP: the UMEM the shim needs, one chunk per RX and per TX ring entry (nicshim.h "AF_XDP"). */
    public long umemBytes() {
        return (long) (resolvedRxRingFrames() + resolvedTxRingFrames()) * resolvedFrameSize();
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
        NicShimOptions.backend(o, 0, backend);
        NicShimOptions.xdpQueue(o, 0, xdpQueue);
        NicShimOptions.xdpFlags(o, 0, xdpFlags);
        NicShimOptions.busyPollUs(o, 0, busyPollMicros);
    }
}
