package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.sim.sba200.Sba200Trace.Event;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The firmware's trace points: each state change is reported once, in the order it happened, with its detail. */
class Sba200TraceTest {
    record Point(Event event, int endpoint, int value) {
    }

    private static List<Point> traced(CardRig r) {
        List<Point> points = new ArrayList<>();
        r.model.trace((event, endpoint, value) -> points.add(new Point(event, endpoint, value)));
        return points;
    }

    @Test
    void kernelCommandsReportTheirOpcodeAndResult() {
        try (CardRig r = CardRig.inline()) {
            List<Point> points = traced(r);
            UnetEndpoint ep = r.endpoint(4096, 8);
            r.kernel.openChannel(ep, 0, 100, 200);
            List<Integer> commands = points.stream().filter(p -> p.event() == Event.COMMAND_DONE)
                .map(Point::value).toList();
            assertTrue(commands.contains(OP_EP_CREATE << 16), "EP_CREATE done without error: " + points);
            assertTrue(commands.contains(OP_CH_OPEN << 16), "CH_OPEN done without error: " + points);
        }
    }

    @Test
    void aSendIsTracedAsCellsSentThenCompletedAndARejectionWithItsStatus() {
        try (CardRig r = CardRig.inline()) {
            UnetEndpoint ep = r.endpoint(4096, 8);
            int ch = r.kernel.openChannel(ep, 0, 100, 200);
            List<Point> points = traced(r);
            assertEquals(TX_STATUS_SENT, Sba200TransmitTest.postRaw(r, ep, Sba200TransmitTest.w0(100, ch, 1, false),
                0, 100));
            assertEquals(List.of(new Point(Event.TX_CELLS_SENT, ep.id(), 3), new Point(Event.TX_COMPLETED, ep.id(), 0)),
                points);
            points.clear();
            assertEquals(TX_STATUS_BAD_CHANNEL, Sba200TransmitTest.postRaw(r, ep,
                Sba200TransmitTest.w0(16, ch + 1, 1, false), 0, 16));
            assertEquals(List.of(new Point(Event.TX_REJECTED, ep.id(), TX_STATUS_BAD_CHANNEL)), points);
        }
    }

    @Test
    void aReceivedPduIsReservedAtItsFirstCellAndPublishedWithTheEntrysW0() {
        try (CardRig r = CardRig.inline()) {
            UnetEndpoint ep = r.endpoint(64 * 1024, 8);
            int ch = r.kernel.openChannel(ep, 0, 100, 200);
            new Pair.Side(ep, ch).postBuffers(0, 8, 1024);
            List<Point> points = traced(r);
            r.injectAll(r.cellsOf(0, 200, Pair.bytes(300, 1)));
            long d = ep.poll();
            int w0 = ep.receiveQueueSegment().get(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN),
                d + RECV_DESC_W0_OFS);
            assertEquals(List.of(new Point(Event.RX_ENTRY_RESERVED, ep.id(), 200),
                new Point(Event.RX_PUBLISHED, ep.id(), w0)), points);

            points.clear();
            byte[] cell = r.cellsOf(0, 201, Pair.bytes(8, 2)).getFirst(); // no channel receives on VCI 201
            r.injectAll(List.of(cell));
            assertEquals(List.of(new Point(Event.RX_CELL_DROPPED, -1, 201)), points);
        }
    }
}
