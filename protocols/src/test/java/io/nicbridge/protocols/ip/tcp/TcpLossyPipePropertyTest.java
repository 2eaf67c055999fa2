package io.nicbridge.protocols.ip.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/**
 * TCP's promise under a hostile pipe: for any seed, loss, duplication and reordering rate and transfer sizes, every
 * byte written on either side arrives exactly once and in order, both FINs are delivered, and both connections
 * close in order. Two cores over {@link SegmentPipe} in virtual time (1 ms one-way delay), with rings from 8 KiB to
 * 256 KiB (window shifts 0 to 3) and each side offering window scaling and SACK or not.
 */
class TcpLossyPipePropertyTest {
    @Property(tries = 100)
    void everyByteArrivesOnceAndInOrderBothWays(@ForAll long seed,
                                                @ForAll @DoubleRange(min = 0, max = 0.15) double loss,
                                                @ForAll @DoubleRange(min = 0, max = 0.2) double duplication,
                                                @ForAll @DoubleRange(min = 0, max = 0.3) double reordering,
                                                @ForAll @IntRange(min = 0, max = 60_000) int up,
                                                @ForAll @IntRange(min = 0, max = 60_000) int down,
                                                @ForAll @IntRange(min = 13, max = 18) int ringLog2,
                                                @ForAll boolean optionsA,
                                                @ForAll boolean optionsB,
                                                @ForAll boolean ackAtPollA,
                                                @ForAll boolean ackAtPollB) {
        // TIME-WAIT well above the largest RTO: a FIN retransmitted after a lost last ACK must still find the
        // connection (each retransmission restarts TIME-WAIT), or the peer's RST is the right answer.
        TcpConfig config = SegmentPipe.testConfig().withIssSeed(seed).withRto(20_000_000L, 10_000_000L,
            1_000_000_000L).withTimeWait(10_000_000_000L).withMaxRetransmissions(30)
            .withBuffers(1 << ringLog2, 1 << ringLog2);
        TcpConfig a = config.withWindowScaling(optionsA).withSack(optionsA).withAckAtPoll(ackAtPollA);
        TcpConfig b = config.withIssSeed(~seed).withWindowScaling(optionsB).withSack(optionsB)
            .withAckAtPoll(ackAtPollB);
        try (SegmentPipe pipe = new SegmentPipe(a, b, seed)) {
            pipe.delayNanos = 1_000_000L;
            pipe.loss = loss;
            pipe.duplication = duplication;
            pipe.reordering = reordering;
            byte[] upData = StreamApp.pattern(up, (int) seed);
            byte[] downData = StreamApp.pattern(down, (int) (seed >>> 8));
            StreamApp client = new StreamApp().send(upData, true);
            StreamApp server = new StreamApp().send(downData, true);
            pipe.b.listen(80, server);
            assertNotNull(pipe.a.connect(SegmentPipe.B_ADDRESS, 80, client, pipe.now));
            pipe.runUntil(() -> client.closed != null && server.closed != null, 600_000_000_000L,
                "both sides closed");
            assertEquals(TcpCloseReason.ORDERLY, client.closed, client.events.toString());
            assertEquals(TcpCloseReason.ORDERLY, server.closed, server.events.toString());
            assertArrayEquals(upData, server.received.toByteArray());
            assertArrayEquals(downData, client.received.toByteArray());
            assertEquals(0, pipe.a.counters().malformed() + pipe.b.counters().malformed());
        }
    }
}
