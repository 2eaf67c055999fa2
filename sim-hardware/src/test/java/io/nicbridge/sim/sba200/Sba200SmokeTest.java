package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.engine.EngineMode;
import org.junit.jupiter.api.Test;

class Sba200SmokeTest {
    @Test
    void inlineSingleCellRoundTrip() {
        try (Pair p = Pair.inline()) {
            byte[] msg = Pair.bytes(32, 1);
            assertTrue(p.sa.sendInline(msg));
            p.settle();
            assertEquals(TX_STATUS_SENT, p.sa.ep.pollSendCompletion());
            long d = p.sb.ep.poll();
            assertTrue(d >= 0, "message received");
            assertTrue(p.sb.ep.isInline(d));
            assertEquals(p.sb.channel, p.sb.ep.channel(d));
            assertArrayEquals(msg, p.sb.payload(d));
            p.sb.ep.releaseKeepBuffers(d);
            assertEquals(1, p.a.model().counter(UG_CNT_CELLS_TX_OFS));
            assertEquals(1, p.b.model().counter(UG_CNT_PDUS_RX_OFS));
        }
    }

    @Test
    void bufferedMessageVirtualTime() {
        try (Pair p = new Pair(EngineMode.VIRTUAL, Sba200Timing.WIRE_ONLY, s -> s.ports(2))) {
            p.sb.postBuffers(0, 8, 1024);
            byte[] msg = Pair.bytes(3000, 5);
            assertTrue(p.sa.send(8192, msg));
            p.settle();
            assertEquals(TX_STATUS_SENT, p.sa.ep.pollSendCompletion());
            long d = p.sb.ep.poll();
            assertTrue(d >= 0);
            assertFalse(p.sb.ep.isError(d), "error code " + p.sb.ep.errorCode(d));
            assertEquals(3, p.sb.ep.bufferCount(d));
            assertArrayEquals(msg, p.sb.payload(d));
        }
    }
}
