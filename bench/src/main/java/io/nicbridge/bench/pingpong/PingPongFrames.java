package io.nicbridge.bench.pingpong;

import static io.nicbridge.contract.Dec21140.ETH_ADDR_LEN;
import static io.nicbridge.contract.Dec21140.ETH_HEADER_LEN;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The ping-pong frame, composed in place in a port's TX buffer:
 * <pre>
 *   0      6      12    14        18
 *   | dst  | src  | 88B5 | seq u32 | pattern ... up to size
 * </pre>
 * EtherType 0x88B5 is IEEE's "local experimental" type. Only the first 18 bytes are written per frame; the rest of
 * the buffer is sent as it is.
 */
public final class PingPongFrames {
    /** IEEE 802 local experimental EtherType. */
    public static final int ETHERTYPE = 0x88B5;
    static final long SEQ_OFFSET = ETH_HEADER_LEN;
    /** The smallest size the ping-pong uses: header plus sequence number. */
    public static final int MIN_SIZE = ETH_HEADER_LEN + 4;
    /** Probes are minimum-size Ethernet frames (60 bytes without FCS), so no MAC pads them on the way. */
    static final int MIN_PROBE_SIZE = io.nicbridge.contract.Dec21140.ETH_MIN_FRAME_NOFCS;
    private static final ValueLayout.OfInt SEQ = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort TYPE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private PingPongFrames() {
    }

    /**
     * Claims, composes and commits one frame.
     *
     * @return false on back-pressure (no TX buffer free): nothing was sent
     */
    public static boolean send(FramePort port, long dst, long src, int seq, int size) {
        int h = port.claim();
        if (h == FramePort.NONE) {
            return false;
        }
        MemorySegment b = port.txBuffer(h);
        MacAddress.write(dst, b, 0);
        MacAddress.write(src, b, ETH_ADDR_LEN);
        b.set(TYPE, 2L * ETH_ADDR_LEN, (short) ETHERTYPE);
        b.set(SEQ, SEQ_OFFSET, seq);
        port.commit(h, size);
        return true;
    }

    /** @return whether a received frame is a good frame of another EtherType (not ours to check) */
    static boolean isOtherProtocol(FramePort port, int handle) {
        return port.rxStatus(handle) == FrameStatus.OK && port.rxLength(handle) >= ETH_HEADER_LEN
            && (port.rxBuffer(handle).get(TYPE, 2L * ETH_ADDR_LEN) & 0xFFFF) != ETHERTYPE;
    }

    /** @return whether a received frame is a good echo of a probe ({@link PingPongLoops#PROBE_SEQ}) */
    static boolean isProbeEcho(FramePort port, int handle) {
        MemorySegment b = port.rxBuffer(handle);
        return port.rxStatus(handle) == FrameStatus.OK && port.rxLength(handle) == MIN_PROBE_SIZE
            && (b.get(TYPE, 2L * ETH_ADDR_LEN) & 0xFFFF) == ETHERTYPE && b.get(SEQ, SEQ_OFFSET) == PingPongLoops.PROBE_SEQ;
    }

    /**
     * Checks a received frame and returns its sequence number; the caller releases it.
     *
     * @throws IllegalStateException when the frame is damaged or not a ping-pong frame of the expected size
     */
    public static int check(FramePort port, int handle, int size) {
        int status = port.rxStatus(handle);
        int length = port.rxLength(handle);
        MemorySegment b = port.rxBuffer(handle);
        if (status != FrameStatus.OK || length != size
            || (b.get(TYPE, 2L * ETH_ADDR_LEN) & 0xFFFF) != ETHERTYPE) {
            throw new IllegalStateException(port.name() + ": bad ping-pong frame: status "
                + FrameStatus.describe(status) + ", length " + length + " (expected " + size + ")");
        }
        return b.get(SEQ, SEQ_OFFSET);
    }
}
