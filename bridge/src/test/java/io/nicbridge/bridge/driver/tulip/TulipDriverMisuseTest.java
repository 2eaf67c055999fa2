package io.nicbridge.bridge.driver.tulip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.port.FramePort;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Regressions found by sim-hardware's MisuseFuzzTest, on a card that loops every frame back. */
class TulipDriverMisuseTest {
    private static TulipDriver open() {
        TestTulip card = TestTulip.selfLoop(MacAddress.parse("02:00:00:00:00:07"));
        return TulipDriver.open(card, TulipConfig.builder().interruptMode(InterruptMode.POLLING).rxRingSize(16)
            .txRingSize(8).build());
    }

    /**
     * Before: a TX handle claimed before close still passed the handle check after it (txBuffer handed out freed
     * memory, commit wrote a descriptor into it), and poll read the freed ring: FFM's "already closed" at best. Now
     * every handle dies with the port and each call says the port is closed.
     */
    @Test
    void handlesHeldAtCloseAreVoidAndPollSaysClosed() {
        TulipDriver d = open();
        int claimed = d.claim();
        int h = d.claim();
        MacAddress.write(0x0200_0000_0007L, d.txBuffer(h), 0);
        d.commit(h, 64);
        int held = d.poll();
        assertNotEquals(FramePort.NONE, held);
        d.close();
        for (Runnable call : new Runnable[] {() -> d.txBuffer(claimed), () -> d.commit(claimed, 64),
            () -> d.abort(claimed), () -> d.rxBuffer(held), () -> d.rxLength(held), () -> d.release(held),
            () -> d.rxDescriptorStatus(held), d::poll, d::claim}) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call::run);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
        assertThrows(IllegalStateException.class, () -> d.await(1, TimeUnit.MILLISECONDS));
        assertEquals(1, d.counters().txFrames());
        assertEquals(1, d.counters().rxFrames());
    }

    @Test
    void aRejectedCommitLeavesTheHandleClaimedAndTheCountersAlone() {
        try (TulipDriver d = open()) {
            int h = d.claim();
            for (int bad : new int[] {0, -1, Integer.MIN_VALUE, TulipDriver.MAX_FRAME + 1}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.commit(h, bad));
                assertTrue(e.getMessage().contains("" + bad), e.getMessage());
            }
            assertEquals(0, d.counters().txFrames());
            MacAddress.write(0x0200_0000_0007L, d.txBuffer(h), 0);
            d.commit(h, 64);
            assertEquals(1, d.counters().txFrames());
            assertThrows(IllegalStateException.class, () -> d.commit(h, 64), "committed twice");
        }
    }
}
