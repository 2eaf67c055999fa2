package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.driver.unet.UnetCommandException;
import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.sim.engine.EngineMode;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: the contract's limits (sba200_unet.h: MAX_ENDPOINTS, RQ_LEN_MIN..RQ_LEN_MAX, SQ_LEN, MAX_CHANNELS) hold
 * exactly at the limit and refuse one beyond it, on the emulated card through the kernel driver. (MAX_BUFS = 6 per
 * PDU is covered at and beyond the limit by Sba200TransmitTest and Sba200ReceiveTest, INLINE_MAX = 40 by
 * Sba200ReceiveTest's inline tests.)
 */
class Sba200ContractLimitsTest {
    @Test
    void everyEndpointUpToMaxEndpointsAndNotOneMore() {
        try (CardRig r = CardRig.inline()) {
            for (int e = 0; e < MAX_ENDPOINTS; e++) {
                assertEquals(e, r.endpoint(4096, RQ_LEN_MIN).id());
            }
            assertThrows(IllegalStateException.class, () -> r.endpoint(4096, RQ_LEN_MIN));
            assertEquals(CMD_ERR_BAD_ENDPOINT, (r.kernel.execute(OP_EP_DESTROY, MAX_ENDPOINTS, 0, 0, 0, 0, 0)
                & CMD_ERROR_MASK) >>> CMD_ERROR_SHIFT, "the card knows no endpoint MAX_ENDPOINTS");
        }
    }

    @Test
    void receiveQueueLengthsFromMinToMax() {
        try (CardRig r = CardRig.inline()) {
            assertEquals(RQ_LEN_MIN, r.endpoint(4096, RQ_LEN_MIN).receiveQueueLength());
            assertEquals(RQ_LEN_MAX, r.endpoint(4096, RQ_LEN_MAX).receiveQueueLength());
            assertThrows(IllegalArgumentException.class, () -> r.endpoint(4096, RQ_LEN_MAX * 2));
            UnetCommandException below = assertThrows(UnetCommandException.class,
                () -> r.endpoint(4096, RQ_LEN_MIN / 2));
            assertEquals(CMD_ERR_BAD_RQ, below.errorCode());
        }
    }

    @Test
    void sqLenSendsInFlightThenBackPressure() {
        try (CardRig r = new CardRig(EngineMode.VIRTUAL, Sba200Timing.WIRE_ONLY)) {
            UnetEndpoint ep = r.endpoint(4096, 8);
            int ch = r.kernel.openChannel(ep, 0, 100, 200);
            for (int i = 0; i < SQ_LEN; i++) {
                assertTrue(ep.sendInline(ch, ep.segment(), 0, 8), "send " + i);
            }
            assertFalse(ep.sendInline(ch, ep.segment(), 0, 8), "SQ_LEN in flight: back-pressure, not an exception");
            r.settle();
            assertTrue(ep.sendInline(ch, ep.segment(), 0, 8), "room again once the card completed them");
        }
    }

    @Test
    void channelsUpToMaxChannels() {
        try (CardRig r = CardRig.inline()) {
            UnetEndpoint ep = r.endpoint(4096, 8);
            r.kernel.openChannel(ep, MAX_CHANNELS - 1, 0, 100, 200);
            assertTrue(ep.isChannelOpen(MAX_CHANNELS - 1));
            UnetCommandException beyond = assertThrows(UnetCommandException.class,
                () -> r.kernel.openChannel(ep, MAX_CHANNELS, 0, 101, 201));
            assertEquals(CMD_ERR_BAD_CHANNEL, beyond.errorCode());
        }
    }
}
