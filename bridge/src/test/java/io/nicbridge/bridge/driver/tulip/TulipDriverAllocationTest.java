package io.nicbridge.bridge.driver.tulip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.port.FramePort;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The driver's per-frame path (claim, fill, commit, poll, read, release) allocates nothing. */
class TulipDriverAllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void sendAndReceiveAllocateNothingPerFrame() {
        MacAddress mac = MacAddress.parse("02:00:00:00:00:07");
        TestTulip card = TestTulip.selfLoop(mac);
        TulipConfig config = TulipConfig.builder().interruptMode(InterruptMode.POLLING).rxRingSize(16)
            .txRingSize(8).build();
        try (TulipDriver d = TulipDriver.open(card, config)) {
            assertEquals(mac, d.stationAddress());
            long sum = 0;
            for (int round = 0; round < 3; round++) { // warm up, so the JIT has compiled the path
                sum += frames(d, 20_000);
            }
            long before = THREADS.getCurrentThreadAllocatedBytes();
            sum += frames(d, 20_000);
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            // 0 in practice; the slack absorbs a stray JIT/runtime allocation, far below one object per frame
            assertTrue(allocated < 1_000, "driver allocated " + allocated + " bytes over 20000 frames");
            assertEquals(80_000, card.framesLooped());
            assertEquals(80_000, d.counters().rxFrames());
            assertNotEquals(0, sum);
        }
    }

    private static long frames(TulipDriver d, int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            int h = d.claim();
            MemorySegment b = d.txBuffer(h);
            MacAddress.write(0x0200_0000_0007L, b, 0);
            b.set(ValueLayout.JAVA_INT_UNALIGNED, 14, i);
            d.commit(h, 64);
            int r = d.poll();
            if (r == FramePort.NONE) {
                throw new AssertionError("frame " + i + " did not loop back");
            }
            sum += d.rxBuffer(r).get(ValueLayout.JAVA_INT_UNALIGNED, 14) + d.rxLength(r);
            d.release(r);
        }
        return sum;
    }
}
