package io.nicbridge.bridge.driver.tulip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.TulipConfig.InterruptMode;
import io.nicbridge.bridge.link.TransmitBurst;
import io.nicbridge.bridge.port.FramePort;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link TulipDriver#beginTransmitBurst}: frames committed in a burst are the chip's but wait for one transmit poll
 * demand at the outermost end - the self-looping test card sends only on CSR1, so what it has sent shows when the
 * demand came - and {@link TulipLink} offers the burst as its {@link TransmitBurst} capability.
 */
class TulipTransmitBurstTest {
    private static final MacAddress MAC = MacAddress.parse("02:00:00:00:00:07");

    private final TestTulip card = TestTulip.selfLoop(MAC);

    private TulipDriver open() {
        return TulipDriver.open(card, TulipConfig.builder().interruptMode(InterruptMode.POLLING).rxRingSize(16)
            .txRingSize(8).build());
    }

    private static void send(TulipDriver d, int length) {
        int h = d.claim();
        assertNotEquals(FramePort.NONE, h);
        MacAddress.write(MAC.value(), d.txBuffer(h), 0);
        d.commit(h, length);
    }

    @Test
    void framesOfABurstGoOnOneDemandAtTheOutermostEnd() {
        try (TulipDriver d = open()) {
            long before = card.framesLooped();
            d.beginTransmitBurst();
            send(d, 64);
            d.beginTransmitBurst(); // nested
            send(d, 100);
            d.endTransmitBurst();
            send(d, 200);
            assertEquals(before, card.framesLooped(), "no demand before the outermost end: nothing sent");
            assertEquals(FramePort.NONE, d.poll());
            d.endTransmitBurst();
            assertEquals(before + 3, card.framesLooped(), "one demand at the end: every owned descriptor sent");
            for (int want : new int[] {64, 100, 200}) {
                int h = d.poll();
                assertNotEquals(FramePort.NONE, h);
                assertEquals(want, d.rxLength(h), "in commit order");
                d.release(h);
            }
            send(d, 64); // outside a burst: a demand per commit, as before
            assertEquals(before + 4, card.framesLooped());
        }
    }

    @Test
    void anEmptyBurstWritesNothingAndAnUnmatchedEndIsRefused() {
        try (TulipDriver d = open()) {
            long before = card.framesLooped();
            d.beginTransmitBurst();
            d.endTransmitBurst();
            assertEquals(before, card.framesLooped());
            IllegalStateException e = assertThrows(IllegalStateException.class, d::endTransmitBurst);
            assertTrue(e.getMessage().contains("endTransmitBurst without beginTransmitBurst"), e.getMessage());
        }
    }

    @Test
    void theLinkOffersTheBurstAsACapability() {
        try (TulipDriver d = open(); TulipLink link = new TulipLink(d, List.of(MAC, MacAddress.parse(
                "02:00:00:00:00:08")), TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE)) {
            TransmitBurst burst = link.capability(TransmitBurst.class);
            assertNotEquals(null, burst);
            long before = card.framesLooped();
            burst.begin();
            for (int i = 0; i < 2; i++) {
                int h = link.claim(1);
                link.txBuffer(h).set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) i);
                link.commit(h, 10);
            }
            assertEquals(before, card.framesLooped());
            burst.end();
            assertEquals(before + 2, card.framesLooped());
            assertEquals(null, link.capability(String.class), "other capabilities: none");
        }
    }
}
