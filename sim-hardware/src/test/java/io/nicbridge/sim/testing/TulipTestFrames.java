package io.nicbridge.sim.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * The test frames of the Tulip conformance tests: EtherType 0x88B5, a sequence number at byte 14 and a pattern
 * derived from it after that, so a receiver can check every byte of a frame it did not see being sent.
 */
public final class TulipTestFrames {
    public static final ValueLayout.OfInt SEQ = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    public static final long TIMEOUT = TimeUnit.SECONDS.toNanos(5);

    private TulipTestFrames() {
    }

    /** Composes a frame to {@code dst} with {@code seq} at byte 14 and a pattern after it; false on back-pressure. */
    public static boolean send(FramePort p, MacAddress src, long dst, int seq, int length) {
        int h = p.claim();
        if (h == FramePort.NONE) {
            return false;
        }
        MemorySegment b = p.txBuffer(h);
        MacAddress.write(dst, b, 0);
        src.writeTo(b, 6);
        b.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12, (short) 0x88B5);
        b.set(SEQ, 14, seq);
        for (int i = 18; i < length; i++) {
            b.set(ValueLayout.JAVA_BYTE, i, (byte) (seq + i));
        }
        p.commit(h, length);
        return true;
    }

    /** The next received frame's handle; fails the test after {@link #TIMEOUT}. */
    public static int receive(FramePort p) throws InterruptedException {
        int h = p.await(TIMEOUT, TimeUnit.NANOSECONDS);
        assertNotEquals(FramePort.NONE, h, p.name() + ": no frame within the timeout");
        return h;
    }

    /** Checks a received frame is {@link #send}'s frame {@code seq} of {@code length} bytes, intact. */
    public static void checkFrame(FramePort p, int h, int seq, int length) {
        assertEquals(FrameStatus.OK, p.rxStatus(h), FrameStatus.describe(p.rxStatus(h)));
        assertEquals(length, p.rxLength(h));
        MemorySegment b = p.rxBuffer(h);
        assertEquals(seq, b.get(SEQ, 14));
        for (int i = 18; i < length; i++) {
            assertEquals((byte) (seq + i), b.get(ValueLayout.JAVA_BYTE, i), "byte " + i);
        }
    }
}
