package io.nicbridge.protocols.ip.tcp;

import static io.nicbridge.protocols.ip.tcp.SegmentPipe.A_ADDRESS;
import static io.nicbridge.protocols.ip.tcp.SegmentPipe.B_ADDRESS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.protocols.ip.tcp.SegmentPipe.Seg;
import io.nicbridge.protocols.ip.tcp.TcpCounters.Counter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The state machine's nasty cases, two TCPs over an in-memory pipe in virtual time. */
class TcpConnectionTest {
    private static final int PORT = 80;
    private static final long SECOND = 1_000_000_000L;

    private SegmentPipe pipe;
    private StreamApp client;
    private StreamApp server;
    private TcpConnection c;

    @AfterEach
    void tearDown() {
        if (pipe != null) {
            pipe.close();
        }
    }

    /** A connected pair: A's client to B's listener on port 80. */
    private void connect(TcpConfig a, TcpConfig b) {
        connect(a, b, s -> false);
    }

    private void connect(TcpConfig a, TcpConfig b, SegmentPipe.DropRule rule) {
        pipe = new SegmentPipe(a, b, 42);
        pipe.rule = rule;
        client = new StreamApp();
        server = new StreamApp();
        pipe.b.listen(PORT, server);
        c = pipe.a.connect(B_ADDRESS, PORT, client, pipe.now);
        assertNotNull(c);
    }

    private void connected() {
        pipe.runUntil(() -> server.connection != null && c.state() == TcpState.ESTABLISHED, SECOND, "the handshake");
    }

    private static byte[] bytes(StreamApp app) {
        return app.received.toByteArray();
    }

    @Test
    void threeWayHandshakeOffersTheMssFromTheMtuWindowScaleAndSackPermitted() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        Seg syn = pipe.log.get(0);
        Seg synAck = pipe.log.get(1);
        Seg ack = pipe.log.get(2);
        assertEquals(TcpHeader.SYN, syn.flags(), syn.toString());
        assertEquals(1460, syn.mss());
        assertEquals(0, syn.windowShift(), "an 8 KiB ring needs no shift, but the option lets the peer scale");
        assertTrue(syn.sackPermitted());
        assertEquals(32, syn.headerLength(), "MSS, NOP + window scale, NOP NOP + SACK-permitted");
        assertEquals(0, synAck.windowShift());
        assertTrue(synAck.sackPermitted());
        assertEquals(20, ack.headerLength(), "no option after the SYNs while nothing is out of order");
        assertEquals(TcpHeader.SYN | TcpHeader.ACK, synAck.flags(), synAck.toString());
        assertEquals(syn.seq() + 1, synAck.ack());
        assertEquals(1460, synAck.mss());
        assertEquals(TcpHeader.ACK, ack.flags());
        assertEquals(synAck.seq() + 1, ack.ack());
        assertEquals(8192, ack.window(), "the receive window is the receive ring's free space");
        assertEquals(TcpState.ESTABLISHED, server.connection.state());
        assertEquals(1460, c.mss());
        assertEquals(List.of("established"), client.events);
    }

    @Test
    void configuredMssIsOfferedAndTheSmallerOneIsUsed() {
        connect(SegmentPipe.testConfig().withMss(1024), SegmentPipe.testConfig());
        connected();
        assertEquals(1024, pipe.log.get(0).mss());
        assertEquals(1024, c.mss());
        assertEquals(1024, server.connection.mss());
        client.send(StreamApp.pattern(5000, 1), false).pump(pipe.now);
        pipe.runUntil(() -> server.received.size() == 5000, SECOND, "the data");
        assertTrue(pipe.sentBy(true).stream().allMatch(s -> s.dataLength() <= 1024));
    }

    @Test
    void dataBothWaysAndOrderlyCloseActiveSideInTimeWait() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        byte[] up = StreamApp.pattern(50_000, 1);
        byte[] down = StreamApp.pattern(30_000, 2);
        client.send(up, true).pump(pipe.now);
        server.send(down, false).pump(pipe.now);
        pipe.runUntil(() -> server.endOfStream && client.received.size() == down.length
            && c.state() == TcpState.FIN_WAIT_2, 5 * SECOND, "the data");
        assertArrayEquals(up, bytes(server));
        assertArrayEquals(down, bytes(client));
        assertEquals(TcpState.FIN_WAIT_2, c.state());
        assertEquals(TcpState.CLOSE_WAIT, server.connection.state());
        server.connection.close(pipe.now);
        pipe.runUntil(() -> c.state() == TcpState.TIME_WAIT && server.closed != null, SECOND, "the close");
        assertEquals(TcpCloseReason.ORDERLY, server.closed);
        assertTrue(client.endOfStream);
        pipe.run(150_000_000L); // TIME-WAIT is 100 ms in the test config
        assertEquals(TcpState.CLOSED, c.state());
        assertEquals(TcpCloseReason.ORDERLY, client.closed);
        assertEquals(0, pipe.a.counters().get(Counter.TIMEOUT_RETRANSMISSIONS));
    }

    @Test
    void lostSynIsRetransmittedAfterTheInitialRto() {
        int[] syns = {0};
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig(),
            s -> s.has(TcpHeader.SYN) && !s.has(TcpHeader.ACK) && syns[0]++ == 0);
        connected();
        List<Seg> sent = pipe.sentBy(true);
        assertEquals(TcpHeader.SYN, sent.get(0).flags(), pipe.log.toString());
        assertEquals(TcpHeader.SYN, sent.get(1).flags());
        assertEquals(sent.get(0).seq(), sent.get(1).seq());
        long gap = sent.get(1).sentAt() - sent.get(0).sentAt();
        assertTrue(gap >= 20_000_000L && gap < 21_000_000L, "the second SYN after the 20 ms initial RTO: " + gap);
        assertEquals(1, pipe.a.counters().get(Counter.TIMEOUT_RETRANSMISSIONS));
    }

    @Test
    void lostSynAckIsRetransmittedByTheListener() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        int[] n = {0};
        pipe.rule = s -> s.has(TcpHeader.SYN) && s.has(TcpHeader.ACK) && n[0]++ == 0;
        connected();
        assertTrue(pipe.b.counters().get(Counter.TIMEOUT_RETRANSMISSIONS) >= 1, pipe.b.counters().toString());
    }

    @Test
    void lostFinIsRetransmittedAndBothSidesClose() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        int[] fins = {0};
        pipe.rule = s -> s.fromA() && s.has(TcpHeader.FIN) && fins[0]++ == 0;
        c.close(pipe.now);
        pipe.runUntil(() -> server.endOfStream, SECOND, "the retransmitted FIN");
        assertEquals(2, fins[0]);
        server.connection.close(pipe.now);
        pipe.runUntil(() -> server.closed != null && c.state() == TcpState.TIME_WAIT, SECOND, "the close");
    }

    @Test
    void lostLastAckLeavesTheFinToBeRetransmittedAndAnsweredFromTimeWait() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        c.close(pipe.now);
        pipe.runUntil(() -> server.endOfStream, SECOND, "A's FIN");
        int[] acks = {0};
        // A's ACK of B's FIN is lost once: B retransmits its FIN, A (in TIME-WAIT) ACKs it again.
        pipe.rule = s -> s.fromA() && !s.has(TcpHeader.FIN) && c.state() == TcpState.TIME_WAIT && acks[0]++ == 0;
        server.connection.close(pipe.now);
        pipe.runUntil(() -> server.closed != null, SECOND, "B's close");
        assertEquals(TcpCloseReason.ORDERLY, server.closed);
        assertTrue(acks[0] >= 2, "A acknowledged the FIN twice");
        assertEquals(TcpState.TIME_WAIT, c.state());
    }

    /**
     * Found by the simulation tester ({@code nic simtest --protocol tcp}, seed 4): the ACK of the peer's FIN that the
     * sink refuses (no buffer) as the connection enters TIME-WAIT is sent on the next poll, not left until the peer
     * retransmits its FIN (and never, if TIME-WAIT ends first: the FIN then draws a RST and the peer's close fails).
     */
    @Test
    void theAckOfTheFinRefusedByTheSinkInTimeWaitIsSentOnTheNextPoll() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        c.close(pipe.now);
        pipe.runUntil(() -> server.endOfStream, SECOND, "A's FIN");
        pipe.runUntil(() -> c.state() == TcpState.FIN_WAIT_2, SECOND, "the ACK of A's FIN");
        boolean[] once = {false};
        pipe.refusal = fromA -> fromA && c.state() == TcpState.TIME_WAIT && !once[0] && (once[0] = true);
        server.connection.close(pipe.now);
        pipe.runUntil(() -> server.closed != null, SECOND, "B's close");
        assertEquals(1, pipe.refused, "the sink refused A's ACK once");
        assertEquals(TcpCloseReason.ORDERLY, server.closed);
        assertEquals(1, pipe.sentBy(false).stream().filter(s -> s.has(TcpHeader.FIN)).count(),
            "B's FIN went once: A's ACK came on its next poll, within one RTO");
        assertEquals(TcpState.TIME_WAIT, c.state());
    }

    /**
     * Found by TcpHostilePeerFuzzTest: A closed and released its connection, B acknowledged A's FIN and then vanished
     * without a word (here: B never closes and its segments are lost). A in FIN-WAIT-2 gives the orphan up one TIME-WAIT
     * length later instead of holding the slot for ever.
     */
    @Test
    void anOrphanInFinWait2IsGivenUpAfterOneTimeWaitLength() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        c.close(pipe.now);
        pipe.runUntil(() -> c.state() == TcpState.FIN_WAIT_2, SECOND, "the ACK of A's FIN");
        pipe.rule = s -> !s.fromA();
        c.release(pipe.now);
        long released = pipe.now;
        pipe.runUntil(() -> pipe.a.slotsInUse() == 0, SECOND, "the orphan given up");
        assertTrue(pipe.now - released >= SegmentPipe.testConfig().timeWaitNanos(), "not before one TIME-WAIT length");
        assertEquals(1, pipe.a.counters().get(Counter.CONNECTIONS_TIMED_OUT));
        assertEquals(TcpState.CLOSED, c.state());
    }

    @Test
    void aHeldConnectionMayStayInFinWait2() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        c.close(pipe.now);
        pipe.runUntil(() -> c.state() == TcpState.FIN_WAIT_2, SECOND, "the ACK of A's FIN");
        pipe.run(5 * SegmentPipe.testConfig().timeWaitNanos());
        assertEquals(TcpState.FIN_WAIT_2, c.state(), "the application still holds it: B may yet send (RFC 9293)");
    }

    @Test
    void simultaneousCloseGoesThroughClosingToTimeWaitOnBothSides() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        TcpConnection s = server.connection;
        c.close(pipe.now);
        s.close(pipe.now);
        assertEquals(TcpState.FIN_WAIT_1, c.state());
        assertEquals(TcpState.FIN_WAIT_1, s.state());
        pipe.run(pipe.delayNanos + 1_000); // both FINs arrive before either ACK
        assertEquals(TcpState.CLOSING, c.state());
        assertEquals(TcpState.CLOSING, s.state());
        pipe.runUntil(() -> c.state() == TcpState.TIME_WAIT && s.state() == TcpState.TIME_WAIT, SECOND, "TIME-WAIT");
        pipe.run(200_000_000L);
        assertEquals(TcpCloseReason.ORDERLY, client.closed);
        assertEquals(TcpCloseReason.ORDERLY, server.closed);
    }

    @Test
    void simultaneousOpenWithoutListeners() {
        pipe = new SegmentPipe(SegmentPipe.testConfig(), SegmentPipe.testConfig(), 7);
        StreamApp x = new StreamApp();
        StreamApp y = new StreamApp();
        TcpConnection cx = pipe.a.connect(5000, B_ADDRESS, 6000, x, pipe.now);
        TcpConnection cy = pipe.b.connect(6000, A_ADDRESS, 5000, y, pipe.now);
        pipe.runUntil(() -> cx.state() == TcpState.ESTABLISHED && cy.state() == TcpState.ESTABLISHED, SECOND,
            "the simultaneous open");
        x.connection = cx;
        y.connection = cy;
        x.send(StreamApp.pattern(3000, 3), true).pump(pipe.now);
        pipe.runUntil(() -> y.endOfStream, SECOND, "data after a simultaneous open");
        assertArrayEquals(StreamApp.pattern(3000, 3), bytes(y));
    }

    /**
     * Found by the simulation tester (seed 145546): the persist timer went on after a probe only if something else
     * called the output path; with the probe's answer lost, the sender stalled behind a window that had long opened.
     */
    @Test
    void zeroWindowProbingGoesOnWhenTheAnswersAreLost() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        server.reading = false;
        byte[] data = StreamApp.pattern(20_000, 5);
        client.send(data, true).pump(pipe.now);
        pipe.runUntil(() -> c.sendWindow() == 0 && c.unacknowledged() > 0, SECOND, "the zero window");
        pipe.rule = s -> !s.fromA(); // every answer from B is lost, the window update after the read too
        server.reading = true;
        server.drain(pipe.now);
        long probes = pipe.a.counters().get(Counter.WINDOW_PROBES);
        pipe.run(SECOND);
        assertTrue(pipe.a.counters().get(Counter.WINDOW_PROBES) >= probes + 2,
            "probing went on: " + pipe.a.counters());
        pipe.rule = s -> false;
        pipe.runUntil(() -> server.endOfStream, 10 * SECOND, "the rest of the stream after the next probe");
        assertArrayEquals(data, bytes(server));
    }

    @Test
    void zeroWindowIsProbedUntilTheReceiverReadsAgain() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        server.reading = false;
        byte[] data = StreamApp.pattern(40_000, 4);
        client.send(data, true).pump(pipe.now);
        pipe.run(2 * SECOND);
        assertEquals(0, c.sendWindow(), "B's ring is full");
        assertEquals(8192, server.connection.readable());
        long probes = pipe.a.counters().get(Counter.WINDOW_PROBES);
        assertTrue(probes >= 3, "persist probes were sent: " + pipe.a.counters());
        assertEquals(TcpState.ESTABLISHED, c.state(), "no give-up on a zero window (MUST-37)");
        // The probes (A's bare ACKs once B's window is shut) back off: each gap is at least the one before.
        List<Seg> p = pipe.sentBy(true).stream().filter(s -> s.flags() == TcpHeader.ACK && s.dataLength() == 0
            && s.sentAt() > pipe.now - 2 * SECOND + 100_000_000L).toList();
        assertTrue(p.size() >= 3, p.toString());
        for (int i = 2; i < p.size(); i++) {
            long before = p.get(i - 1).sentAt() - p.get(i - 2).sentAt();
            long gap = p.get(i).sentAt() - p.get(i - 1).sentAt();
            assertTrue(gap >= before, "persist backoff: " + p);
        }
        server.reading = true;
        // Lose B's window updates for 300 ms: only the answer to A's next probe can reopen the window.
        long until = pipe.now + 300_000_000L;
        pipe.rule = s -> !s.fromA() && s.window() > 0 && s.sentAt() < until;
        server.drain(pipe.now);
        pipe.runUntil(() -> server.endOfStream, 30 * SECOND, "the rest of the data");
        assertArrayEquals(data, bytes(server));
        assertTrue(pipe.a.counters().get(Counter.WINDOW_PROBES) > probes);
    }

    @Test
    void duplicatedSegmentsAreDeliveredOnce() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        pipe.duplication = 0.5;
        byte[] data = StreamApp.pattern(100_000, 5);
        client.send(data, true).pump(pipe.now);
        pipe.runUntil(() -> server.endOfStream, 10 * SECOND, "the data");
        assertArrayEquals(data, bytes(server));
        assertTrue(pipe.b.counters().get(Counter.DUPLICATE_SEGMENTS) > 10, pipe.b.counters().toString());
    }

    @Test
    void reorderedSegmentsAreQueuedAheadOfTheGap() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        pipe.reordering = 0.3;
        byte[] data = StreamApp.pattern(100_000, 6);
        client.send(data, true).pump(pipe.now);
        pipe.runUntil(() -> server.endOfStream, 10 * SECOND, "the data");
        assertArrayEquals(data, bytes(server));
        assertTrue(pipe.b.counters().get(Counter.OUT_OF_ORDER_SEGMENTS) > 5, pipe.b.counters().toString());
    }

    @Test
    void oneLostSegmentIsFastRetransmittedOnTheThirdDuplicateAck() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig().withBuffers(65536, 65536));
        connected();
        int[] n = {0};
        pipe.rule = s -> s.fromA() && s.dataLength() > 0 && n[0]++ == 10;
        byte[] data = StreamApp.pattern(60_000, 7);
        client.send(data, false).pump(pipe.now);
        pipe.runUntil(() -> server.received.size() == data.length, 5 * SECOND, "the data");
        assertArrayEquals(data, bytes(server));
        assertEquals(1, pipe.a.counters().get(Counter.FAST_RETRANSMISSIONS), pipe.a.counters().toString());
        assertEquals(0, pipe.a.counters().get(Counter.TIMEOUT_RETRANSMISSIONS), pipe.a.counters().toString());
        assertTrue(pipe.a.counters().get(Counter.DUPLICATE_ACKS_RECEIVED) >= 3);
        assertTrue(c.slowStartThreshold() < Integer.MAX_VALUE, "fast recovery set ssthresh");
    }

    /**
     * RFC 6582 3.2 step 3: a full ACK that acknowledges everything sent leaves the congestion window at
     * min(ssthresh, max(FlightSize, SMSS) + SMSS) - two segments, not one, which a delayed-ACK receiver would sit on.
     */
    @Test
    void recoveryEndingWithNothingInFlightLeavesTwoSegmentsOfWindow() {
        connect(SegmentPipe.testConfig().withBuffers(65536, 65536), SegmentPipe.testConfig().withBuffers(65536,
            65536));
        connected();
        int[] n = {0};
        pipe.rule = s -> s.fromA() && s.dataLength() > 0 && n[0]++ == 14;
        byte[] data = StreamApp.pattern(20 * 1460, 8);
        client.send(data, false).pump(pipe.now);
        pipe.runUntil(() -> server.received.size() == data.length, 5 * SECOND, "the data");
        pipe.run(10_000_000L);
        assertEquals(1, pipe.a.counters().get(Counter.FAST_RETRANSMISSIONS), pipe.a.counters().toString());
        assertEquals(0, c.unacknowledged());
        assertEquals(2 * c.mss(), c.congestionWindow());
    }

    /**
     * A Linux receiver often acknowledges a whole flight with one stretch ACK; when that ACK is lost and the sender has
     * nothing more to send (here: every ACK of the last four segments lost), no duplicate ACK can come. With the RTO's
     * 200 ms floor (the defaults) that stalled the transfer for 200 ms per lost tail (nic tcp interop with 0.5 %
     * drops: 9 such stalls, 2.0 s of a 4.0 s download); the tail loss probe repairs it after max(2 SRTT, 40 ms).
     */
    @Test
    void lostFinalAcksAreRepairedByATailLossProbeNotTheRto() {
        TcpConfig linuxLike = SegmentPipe.testConfig().withBuffers(65536, 65536)
            .withRto(1_000_000_000L, 200_000_000L, 2_000_000_000L);
        connect(linuxLike, linuxLike);
        connected();
        byte[] data = StreamApp.pattern(20_000, 12);
        // B's ACKs of the last four segments (acknowledgment numbers past the fourth-last segment's start) are lost.
        int[] first = {0};
        boolean[] started = {false};
        int[] dropped = {0};
        long[] lostFrom = {0};
        pipe.rule = s -> {
            if (s.fromA()) {
                if (s.dataLength() > 0 && !started[0]) {
                    started[0] = true;
                    first[0] = s.seq();
                }
                return false;
            }
            int end = first[0] + data.length;
            if (started[0] && s.dataLength() == 0 && s.ack() - (end - 4 * 1460) > 0 && lostFrom[0] == 0) {
                lostFrom[0] = s.sentAt();
            }
            if (lostFrom[0] != 0 && s.sentAt() - lostFrom[0] < 1_000_000L) { // that burst of ACKs, not later ones
                dropped[0]++;
                return true;
            }
            return false;
        };
        long start = pipe.now;
        client.send(data, false).pump(pipe.now);
        pipe.runUntil(() -> server.received.size() == data.length && c.unacknowledged() == 0, SECOND,
            "the data and its acknowledgement");
        assertArrayEquals(data, bytes(server));
        assertTrue(dropped[0] >= 4, "the last ACKs were lost: " + dropped[0]);
        assertEquals(1, pipe.a.counters().get(Counter.TAIL_LOSS_PROBES), pipe.a.counters().toString());
        assertEquals(0, pipe.a.counters().get(Counter.TIMEOUT_RETRANSMISSIONS), pipe.a.counters().toString());
        assertTrue(pipe.now - start < 100_000_000L, "acknowledged after the probe (40 ms), not the RTO (200 ms): "
            + (pipe.now - start) / 1000 + " us");
    }

    /** One segment in flight may be held by the peer's delayed ACK: no probe before the RTO then (RFC 8985 7.2). */
    @Test
    void noProbeForASingleSegmentTheRtoComesFirst() {
        TcpConfig linuxLike = SegmentPipe.testConfig().withRto(1_000_000_000L, 200_000_000L, 2_000_000_000L);
        connect(linuxLike, linuxLike);
        connected();
        client.send(StreamApp.pattern(100, 13), false).pump(pipe.now);
        pipe.runUntil(() -> server.received.size() == 100, SECOND, "the first message"); // an RTT sample
        int[] dropped = {0};
        pipe.rule = s -> !s.fromA() && dropped[0]++ == 0; // the ACK of the next segment
        client.send(StreamApp.pattern(100, 14), false).pump(pipe.now);
        pipe.run(150_000_000L);
        assertEquals(0, pipe.a.counters().get(Counter.TAIL_LOSS_PROBES), pipe.a.counters().toString());
        pipe.runUntil(() -> c.unacknowledged() == 0, SECOND, "the RTO's retransmission");
        assertEquals(1, pipe.a.counters().get(Counter.TIMEOUT_RETRANSMISSIONS), pipe.a.counters().toString());
    }

    @Test
    void rttEstimateFollowsThePathAndRtoKeepsItsFloor() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        client.send(StreamApp.pattern(20_000, 8), false).pump(pipe.now);
        pipe.runUntil(() -> server.received.size() == 20_000, SECOND, "the data");
        long srtt = c.smoothedRttNanos();
        assertTrue(srtt >= 100_000 && srtt < 200_000, "SRTT near the 100 us round trip: " + srtt);
        assertEquals(10_000_000L, c.rtoNanos(), "RTO = max(floor, SRTT + max(G, 4 RTTVAR)) = the 10 ms floor");
    }

    @Test
    void slowStartGrowsTheWindowAndATimeoutCollapsesItToOneSegment() {
        TcpConfig big = SegmentPipe.testConfig().withBuffers(65536, 65536);
        connect(big, big);
        connected();
        assertEquals(3 * 1460, c.congestionWindow(), "RFC 5681's initial window for SMSS 1460");
        client.send(StreamApp.pattern(40_000, 9), false).pump(pipe.now);
        pipe.runUntil(() -> server.received.size() == 40_000, SECOND, "the data");
        int grown = c.congestionWindow();
        assertTrue(grown >= 3 * 1460 + 20_000, "slow start added an SMSS per ACK: " + grown);
        // Now the path goes dead for a while: the RTO fires, cwnd drops to one segment.
        pipe.rule = s -> true;
        client.send(StreamApp.pattern(20_000, 10), false).pump(pipe.now);
        pipe.run(15_000_000L);
        assertEquals(1460, c.congestionWindow());
        assertTrue(c.slowStartThreshold() >= 2 * 1460);
        pipe.rule = s -> false;
        pipe.runUntil(() -> server.received.size() == 60_000, 10 * SECOND, "recovery");
    }

    @Test
    void exactResetClosesTheConnection() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        c.abort(pipe.now);
        assertEquals(TcpCloseReason.ABORTED, client.closed);
        pipe.run(1_000_000L);
        assertEquals(TcpCloseReason.RESET, server.closed);
        assertEquals(TcpState.CLOSED, server.connection.state());
        assertEquals(-1, server.connection.read(MemorySegment.ofArray(new byte[10]), 0, 10, pipe.now));
        assertEquals(-1, server.connection.write(MemorySegment.ofArray(new byte[10]), 0, 10, pipe.now));
    }

    @Test
    void inWindowResetNotAtRcvNxtDrawsAChallengeAckAndOutOfWindowResetIsIgnored() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        TcpConnection s = server.connection;
        Seg last = pipe.sentBy(true).getLast();
        int rcvNxt = last.seq(); // A's next sequence number = B's RCV.NXT
        int before = pipe.sentBy(false).size();
        pipe.inject(true, Segments.build(A_ADDRESS, B_ADDRESS, c.localPort(), PORT, rcvNxt + 100, 0, TcpHeader.RST,
            0, new byte[0]));
        pipe.run(10_000);
        assertEquals(TcpState.ESTABLISHED, s.state());
        assertEquals(1, pipe.b.counters().get(Counter.CHALLENGE_ACKS));
        Seg challenge = pipe.sentBy(false).get(before);
        assertEquals(TcpHeader.ACK, challenge.flags());
        assertEquals(rcvNxt, challenge.ack());
        pipe.inject(true, Segments.build(A_ADDRESS, B_ADDRESS, c.localPort(), PORT, rcvNxt + 100_000, 0,
            TcpHeader.RST, 0, new byte[0]));
        pipe.run(10_000);
        assertEquals(TcpState.ESTABLISHED, s.state());
        assertEquals(1, pipe.b.counters().get(Counter.CHALLENGE_ACKS), "an out-of-window RST is dropped silently");
        pipe.inject(true, Segments.build(A_ADDRESS, B_ADDRESS, c.localPort(), PORT, rcvNxt, 0, TcpHeader.RST, 0,
            new byte[0]));
        pipe.run(10_000);
        assertEquals(TcpState.CLOSED, s.state());
        assertEquals(TcpCloseReason.RESET, server.closed);
    }

    /**
     * Out-of-window pure ACKs are answered at most once per 500 ms (Linux's tcp_invalid_ratelimit), or two ends that
     * each find the other's ACKs out of window answer each other forever (nic simtest --protocol tcp-ack-at-poll,
     * seed 264425: a TIME-WAIT against a SYN-RECEIVED opened by an old duplicate SYN filled the link with 87,000
     * ACKs); out-of-window data is answered every time.
     */
    @Test
    void outOfWindowPureAcksAreAnsweredAtMostOncePerHalfSecondAndDataAlways() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        int rcvNxt = pipe.sentBy(true).getLast().seq();
        int ack = pipe.sentBy(false).getLast().seq();
        int before = pipe.sentBy(false).size();
        for (int i = 0; i < 3; i++) {
            pipe.inject(true, Segments.build(A_ADDRESS, B_ADDRESS, c.localPort(), PORT, rcvNxt + 1_000_000, ack,
                TcpHeader.ACK, 1000, new byte[0]));
            pipe.run(10_000_000L);
        }
        assertEquals(1, pipe.sentBy(false).size() - before, "one ACK for three out-of-window ACKs in 30 ms");
        assertEquals(2, pipe.b.counters().get(Counter.OUT_OF_WINDOW_ACKS_SKIPPED));
        Seg answer = pipe.sentBy(false).get(before);
        assertEquals(TcpHeader.ACK, answer.flags());
        assertEquals(rcvNxt, answer.ack());
        for (int i = 0; i < 2; i++) { // old data: its sender needs the ACK, and an ACK draws no data back
            pipe.inject(true, Segments.build(A_ADDRESS, B_ADDRESS, c.localPort(), PORT, rcvNxt - 100, ack,
                TcpHeader.ACK, 1000, new byte[10]));
            pipe.run(1_000_000L);
        }
        assertEquals(3, pipe.sentBy(false).size() - before, "every out-of-window data segment answered");
        pipe.run(SECOND / 2);
        pipe.inject(true, Segments.build(A_ADDRESS, B_ADDRESS, c.localPort(), PORT, rcvNxt + 1_000_000, ack,
            TcpHeader.ACK, 1000, new byte[0]));
        pipe.run(1_000_000L);
        assertEquals(4, pipe.sentBy(false).size() - before, "answered again once 500 ms have passed");
        assertEquals(2, pipe.b.counters().get(Counter.OUT_OF_WINDOW_ACKS_SKIPPED));
        assertEquals(TcpState.ESTABLISHED, server.connection.state());
    }

    @Test
    void synInEstablishedDrawsAChallengeAck() {
        connect(SegmentPipe.testConfig(), SegmentPipe.testConfig());
        connected();
        int rcvNxt = pipe.sentBy(true).getLast().seq();
        pipe.inject(true, Segments.build(A_ADDRESS, B_ADDRESS, c.localPort(), PORT, rcvNxt + 10, 0, TcpHeader.SYN,
            1000, new byte[0]));
        pipe.run(10_000);
        assertEquals(TcpState.ESTABLISHED, server.connection.state());
        assertEquals(1, pipe.b.counters().get(Counter.CHALLENGE_ACKS));
    }

    @Test
    void connectionRefusedByResetInSynSent() {
        pipe = new SegmentPipe(SegmentPipe.testConfig(), SegmentPipe.testConfig(), 1);
        StreamApp app = new StreamApp();
        TcpConnection x = pipe.a.connect(B_ADDRESS, 81, app, pipe.now); // nobody listens on 81
        pipe.run(1_000_000L);
        assertEquals(TcpState.CLOSED, x.state());
        assertEquals(TcpCloseReason.RESET, app.closed);
        Seg rst = pipe.sentBy(false).getFirst();
        assertEquals(TcpHeader.RST | TcpHeader.ACK, rst.flags());
        assertEquals(pipe.sentBy(true).getFirst().seq() + 1, rst.ack());
        assertEquals(1, pipe.b.counters().get(Counter.NO_CONNECTION));
    }

    @Test
    void unreachablePeerTimesOutAfterTheConfiguredRetries() {
        pipe = new SegmentPipe(SegmentPipe.testConfig().withMaxRetransmissions(3), SegmentPipe.testConfig(), 1);
        pipe.rule = s -> true;
        StreamApp app = new StreamApp();
        TcpConnection x = pipe.a.connect(B_ADDRESS, PORT, app, pipe.now);
        pipe.run(20 * SECOND);
        assertEquals(TcpState.CLOSED, x.state());
        assertEquals(TcpCloseReason.TIMED_OUT, app.closed);
        assertEquals(4, pipe.sentBy(true).size(), "the SYN and three retransmissions: " + pipe.log);
        List<Seg> s = pipe.sentBy(true);
        long g1 = s.get(2).sentAt() - s.get(1).sentAt();
        long g0 = s.get(1).sentAt() - s.get(0).sentAt();
        assertTrue(g1 >= 2 * g0 - 1_000_000L, "exponential backoff: " + g0 + " then " + g1);
    }

    @Test
    void delayedAckWhenConfiguredAcksEverySecondSegment() {
        TcpConfig delayed = SegmentPipe.testConfig().withBuffers(65536, 65536).withDelayedAck(5_000_000L);
        connect(SegmentPipe.testConfig().withBuffers(65536, 65536), delayed);
        connected();
        int before = pipe.sentBy(false).size();
        client.send(StreamApp.pattern(1460 * 20, 11), false).pump(pipe.now);
        pipe.runUntil(() -> server.received.size() == 1460 * 20, SECOND, "the data");
        pipe.run(10_000_000L);
        int acks = pipe.sentBy(false).size() - before;
        assertTrue(acks <= 11 && acks >= 10, "one ACK per two segments: " + acks);
    }

    @Test
    void noDelayedAckByDefaultEverySegmentIsAcked() {
        TcpConfig big = SegmentPipe.testConfig().withBuffers(65536, 65536);
        connect(big, big);
        connected();
        int acksBefore = pipe.sentBy(false).size();
        int dataBefore = pipe.sentBy(true).size();
        client.send(StreamApp.pattern(1460 * 20, 12), false).pump(pipe.now);
        pipe.runUntil(() -> server.received.size() == 1460 * 20, SECOND, "the data");
        long dataSegments = pipe.sentBy(true).stream().skip(dataBefore).filter(s -> s.dataLength() > 0).count();
        assertTrue(dataSegments >= 20);
        assertEquals(dataSegments, pipe.sentBy(false).size() - acksBefore, "one ACK per data segment");
    }

    /** Client A's message of {@code length} bytes, delivered to B with no poll after it: B's receive step. */
    private void requestDeliveredWithoutPoll(int length) {
        MemorySegment m = MemorySegment.ofArray(StreamApp.pattern(length, 5));
        assertEquals(length, c.write(m, 0, length, pipe.now));
        pipe.now += pipe.delayNanos;
        pipe.deliverDue();
    }

    @Test
    void ackAtPollLetsTheReplyWrittenInTheSameStepCarryTheAck() {
        TcpConfig config = SegmentPipe.testConfig().withAckAtPoll(true);
        connect(config, config);
        connected();
        int before = pipe.sentBy(false).size();
        requestDeliveredWithoutPoll(4);
        assertEquals(4, server.received.size(), "B's application read the request");
        assertEquals(before, pipe.sentBy(false).size(), "no pure ACK inside onSegment");
        assertEquals(Long.MIN_VALUE, pipe.b.nextDeadline(), "the owed ACK makes B's next poll due at once");

        MemorySegment reply = MemorySegment.ofArray(new byte[] {9, 8, 7, 6});
        assertEquals(4, server.connection.write(reply, 0, 4, pipe.now));
        pipe.b.poll(pipe.now); // the end of the step: nothing left to acknowledge
        List<Seg> sent = pipe.sentBy(false).subList(before, pipe.sentBy(false).size());
        assertEquals(1, sent.size(), "one segment for request and reply: " + sent);
        assertEquals(4, sent.get(0).dataLength());
        assertTrue(sent.get(0).has(TcpHeader.ACK));
        Seg request = pipe.sentBy(true).get(pipe.sentBy(true).size() - 1);
        assertEquals(request.seq() + 4, sent.get(0).ack(), "the reply acknowledges the request");
        assertTrue(pipe.b.nextDeadline() > pipe.now, "nothing owed any more");
    }

    @Test
    void ackAtPollSendsThePureAckAtThePollWhenNoReplyCame() {
        TcpConfig config = SegmentPipe.testConfig().withAckAtPoll(true);
        connect(config, config);
        connected();
        int before = pipe.sentBy(false).size();
        requestDeliveredWithoutPoll(4);
        assertEquals(before, pipe.sentBy(false).size());
        pipe.b.poll(pipe.now);
        List<Seg> sent = pipe.sentBy(false).subList(before, pipe.sentBy(false).size());
        assertEquals(1, sent.size(), "the owed ACK, at the poll: " + sent);
        assertEquals(0, sent.get(0).dataLength());
        Seg request = pipe.sentBy(true).get(pipe.sentBy(true).size() - 1);
        assertEquals(request.seq() + 4, sent.get(0).ack());
        pipe.b.poll(pipe.now + 1_000);
        assertEquals(before + 1, pipe.sentBy(false).size(), "once");
    }

    @Test
    void ackAtPollAcknowledgesTheSecondSegmentAtOnceAsWithoutIt() {
        TcpConfig config = SegmentPipe.testConfig().withAckAtPoll(true);
        connect(config, config);
        connected();
        int before = pipe.sentBy(false).size();
        requestDeliveredWithoutPoll(2 * 1460); // two full segments, one step
        List<Seg> sent = pipe.sentBy(false).subList(before, pipe.sentBy(false).size());
        assertEquals(1, sent.size(), "the second segment drew its ACK inside onSegment: " + sent);
        assertEquals(pipe.sentBy(true).get(pipe.sentBy(true).size() - 1).seq() + 1460, sent.get(0).ack());
        pipe.b.poll(pipe.now);
        assertEquals(before + 1, pipe.sentBy(false).size(), "nothing owed after it");
    }

    @Test
    void withoutAckAtPollOnSegmentAcknowledgesAtOnce() {
        TcpConfig config = SegmentPipe.testConfig();
        connect(config, config);
        connected();
        int before = pipe.sentBy(false).size();
        requestDeliveredWithoutPoll(4);
        assertEquals(before + 1, pipe.sentBy(false).size(), "the pure ACK left inside onSegment");
        assertEquals(0, pipe.sentBy(false).get(before).dataLength());
    }

    /**
     * RFC 7323 2: with 256 KiB rings both SYNs offer shift 3 (256 KiB >> 3 fits 16 bits), their own windows are
     * unscaled, every later window field is the window shifted right by 3, and the sender uses the whole 256 KiB:
     * more than 65535 bytes in flight at once.
     */
    @Test
    void windowScalingLetsTheWindowCoverARingLargerThan64KiB() {
        TcpConfig big = SegmentPipe.testConfig().withBuffers(1 << 18, 1 << 18);
        connect(big, big);
        pipe.delayNanos = 2_000_000L; // a 4 ms round trip: the window, not the pipe, limits the flight
        connected();
        Seg syn = pipe.log.get(0);
        Seg synAck = pipe.log.get(1);
        assertEquals(3, syn.windowShift());
        assertEquals(3, synAck.windowShift());
        assertEquals(65535, synAck.window(), "a SYN's window is not scaled: at most 65535");
        assertEquals(65535, c.sendWindow(), "from the SYN-ACK, unscaled");
        byte[] up = StreamApp.pattern(1_500_000, 21);
        client.send(up, true).pump(pipe.now);
        long maxFlight = 0;
        int maxWindow = 0;
        while (!server.endOfStream) {
            pipe.run(100_000L);
            maxFlight = Math.max(maxFlight, c.unacknowledged());
            maxWindow = Math.max(maxWindow, c.sendWindow());
            assertTrue(pipe.now < 30 * SECOND, "the transfer ends");
        }
        assertArrayEquals(up, bytes(server));
        assertEquals(1 << 18, maxWindow, "B's window fields up to 32768, shifted left by 3: the whole ring");
        assertTrue(maxFlight > 65535, "more in flight than an unscaled window allows: " + maxFlight);
        for (Seg s : pipe.sentBy(false)) {
            if (!s.has(TcpHeader.SYN)) {
                assertTrue(s.window() <= (1 << 18) >> 3, s.toString());
            }
        }
    }

    /** RFC 7323 2.2: a side that does not offer the option gets none back, and neither side scales. */
    @Test
    void noWindowScalingUnlessBothSynsCarryIt() {
        TcpConfig big = SegmentPipe.testConfig().withBuffers(1 << 18, 1 << 18);
        connect(big.withWindowScaling(false), big);
        connected();
        assertEquals(-1, pipe.log.get(0).windowShift());
        assertEquals(-1, pipe.log.get(1).windowShift(), "the SYN-ACK offers only what the SYN did");
        assertEquals(65535, c.sendWindow(), "B's window field, unscaled");
        byte[] up = StreamApp.pattern(300_000, 22);
        client.send(up, true).pump(pipe.now);
        pipe.runUntil(() -> server.endOfStream, 10 * SECOND, "the data");
        assertArrayEquals(up, bytes(server));
        assertTrue(c.unacknowledged() <= 65535);
        assertTrue(server.connection.sendWindow() <= 65535);
    }

    /**
     * RFC 2018: with one data segment lost, every ACK the receiver sends while the out-of-order data waits carries a
     * SACK block from just past the hole to the end of what arrived, growing with each arrival; none once the hole is
     * repaired, none when the sender's SYN did not permit SACK. Segments carrying SACK blocks still fit the MTU.
     */
    @Test
    void acksReportOutOfOrderDataInSackBlocks() {
        for (boolean permitted : new boolean[] {true, false}) {
            int[] dataSegments = {0};
            TcpConfig a = SegmentPipe.testConfig().withBuffers(65536, 65536).withSack(permitted);
            connect(a, SegmentPipe.testConfig().withBuffers(65536, 65536),
                s -> s.fromA() && s.dataLength() > 0 && ++dataSegments[0] == 3);
            connected();
            byte[] up = StreamApp.pattern(40 * 1460, 23);
            byte[] down = StreamApp.pattern(20_000, 24);
            client.send(up, true).pump(pipe.now);
            server.send(down, false).pump(pipe.now);
            pipe.runUntil(() -> server.endOfStream && client.received.size() == down.length, 10 * SECOND, "data");
            assertArrayEquals(up, bytes(server));
            Seg lost = pipe.sentBy(true).stream().filter(s -> s.dataLength() > 0).skip(2).findFirst().orElseThrow();
            int hole = lost.seq() + lost.dataLength();
            List<Seg> withSack = pipe.sentBy(false).stream().filter(s -> s.sack().length > 0).toList();
            if (!permitted) {
                assertEquals(List.of(), withSack);
                pipe.close();
                continue;
            }
            assertTrue(withSack.size() >= 3, "the ACKs after the loss: " + withSack);
            int right = hole;
            for (Seg s : withSack) {
                assertEquals(lost.seq(), s.ack(), "the hole stays at the ACK: " + s);
                assertEquals(hole, s.sack()[0], "the block starts past the hole: " + s);
                assertTrue(s.sack()[1] - right >= 0, "and grows: " + s);
                right = s.sack()[1];
            }
            int end = right;
            Seg repaired = pipe.sentBy(false).stream().filter(s -> s.ack() - end >= 0).findFirst().orElseThrow();
            assertEquals(0, repaired.sack().length, "no block once the hole is filled: " + repaired);
            for (Seg s : pipe.log) {
                assertTrue(s.headerLength() + s.dataLength() <= SegmentPipe.MTU - 20, s.toString());
            }
            pipe.close();
        }
        pipe = null;
    }

    /**
     * With SACK in use, an ACK at SND.UNA whose SACK block reports data held above it is a duplicate ACK even when
     * its window moved (a scaled window follows the receiver's free space): three of them start fast retransmit.
     * Without SACK the same ACKs, each with a new window, are window updates and start nothing.
     */
    @Test
    void duplicateAcksThatSackHeldDataCountWhateverTheirWindow() {
        for (boolean sack : new boolean[] {true, false}) {
            TcpConfig a = SegmentPipe.testConfig().withBuffers(65536, 65536).withSack(sack);
            connect(a, SegmentPipe.testConfig().withBuffers(65536, 65536), s -> s.fromA() && s.dataLength() > 0);
            connected();
            client.send(StreamApp.pattern(10 * 1460, 25), false).pump(pipe.now);
            pipe.run(1_000_000L);
            List<Seg> data = pipe.sentBy(true).stream().filter(s -> s.dataLength() > 0).toList();
            assertEquals(3, data.size(), "the initial window: " + data);
            int bSeq = pipe.log.get(1).seq() + 1;
            int una = data.getFirst().seq();
            for (int i = 1; i <= 3; i++) { // the first segment lost, the others held: SACKed, with a moving window
                Seg held = data.get(Math.min(i, 2));
                pipe.inject(false, Segments.sackAck(B_ADDRESS, A_ADDRESS, PORT, c.localPort(), bSeq, una,
                    30000 - 100 * i, data.get(1).seq(), held.seq() + held.dataLength()));
                pipe.run(100_000L);
            }
            assertEquals(sack ? 1 : 0, pipe.a.counters().get(Counter.FAST_RETRANSMISSIONS), "SACK " + sack);
            assertEquals(sack ? 3 : 0, pipe.a.counters().get(Counter.DUPLICATE_ACKS_RECEIVED), "SACK " + sack);
            pipe.close();
        }
        pipe = null;
    }

    /**
     * A server that answers a request as it reads it sends the answer with the request's ACK and nothing before it:
     * the SYN-ACK already advertised the whole window, so reading the request opens nothing worth a window update.
     * (Before, the SYN's window was not recorded as advertised, the first read took the whole window for an opening
     * and a pure ACK went ahead of the answer - the pure ACK before the response head in a curl download's capture.)
     */
    @Test
    void theFirstReadAfterTheHandshakeSendsNoWindowUpdate() {
        for (boolean serverAnswers : new boolean[] {true, false}) {
            TcpConfig config = SegmentPipe.testConfig().withBuffers(65536, 65536);
            pipe = new SegmentPipe(config, config, 5);
            client = new StreamApp();
            TcpHandler answering = new TcpHandler() {
                private final MemorySegment buffer = Arena.ofAuto().allocate(65536);

                @Override
                public void onReadable(TcpConnection connection, long now) {
                    while (connection.read(buffer, 0, (int) buffer.byteSize(), now) > 0) {
                        if (serverAnswers) {
                            connection.write(buffer, 0, 200, now);
                        }
                    }
                }
            };
            pipe.b.listen(PORT, answering);
            c = pipe.a.connect(B_ADDRESS, PORT, client, pipe.now);
            pipe.run(1_000_000L);
            client.send(StreamApp.pattern(86, 3), false).pump(pipe.now);
            pipe.run(1_000_000L);
            List<Seg> fromServer = pipe.sentBy(false);
            assertEquals(TcpHeader.SYN | TcpHeader.ACK, fromServer.getFirst().flags());
            assertEquals(65535, fromServer.getFirst().window(), "the SYN-ACK offers the whole window");
            assertEquals(2, fromServer.size(), "the SYN-ACK and one segment with the request's ACK: " + fromServer);
            Seg second = fromServer.get(1);
            assertEquals(fromServer.getFirst().ack() + 86, second.ack(), second.toString());
            assertEquals(serverAnswers ? 200 : 0, second.dataLength(), "the answer carries the ACK: " + second);
            pipe.close();
        }
        pipe = null;
    }

    /**
     * tshark's duplicate-ACK rule applied to everything each side sent in clean transfers (no loss, duplication or
     * reordering; refused claims and both read patterns): a pure ACK with the ACK number, window and sequence number
     * of the sender's previous segment is a duplicate ACK, and without a duplicate or out-of-window segment from the
     * peer a TCP has no cause to send one (the capture check of TcpKernelInteropTest flags it).
     */
    @Test
    void cleanTransfersSendNoDuplicateAck() {
        for (int seed = 0; seed < 8; seed++) {
            TcpConfig config = TcpConfig.defaults().withTimeWait(100_000_000L);
            pipe = new SegmentPipe(config, config, seed);
            java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
            double refuse = seed % 2 == 0 ? 0 : 0.3;
            pipe.refusal = fromA -> refuse > 0 && r.nextDouble() < refuse;
            client = new StreamApp();
            server = new StreamApp();
            pipe.b.listen(PORT, server);
            c = pipe.a.connect(B_ADDRESS, PORT, client, pipe.now);
            connected();
            byte[] down = StreamApp.pattern(200_000, seed);
            byte[] up = StreamApp.pattern(seed * 10_000 + 100, seed + 1);
            server.send(down, true).pump(pipe.now);
            client.send(up, true).pump(pipe.now);
            pipe.runUntil(() -> client.endOfStream && server.endOfStream, 20 * SECOND, "both streams");
            assertArrayEquals(down, bytes(client));
            assertArrayEquals(up, bytes(server));
            for (boolean fromA : new boolean[] {true, false}) {
                assertEquals(List.of(), tsharkDuplicateAcks(pipe.sentBy(fromA)), "seed " + seed + (fromA ? " A" : " B"));
            }
            assertEquals(0, pipe.a.counters().get(Counter.DUPLICATE_SEGMENTS) + pipe.b.counters().get(
                Counter.DUPLICATE_SEGMENTS));
            pipe.close();
        }
        pipe = null;
    }

    /** Wireshark's tcp.analysis.duplicate_ack over one sender's segments in order. */
    private static List<Seg> tsharkDuplicateAcks(List<Seg> sent) {
        List<Seg> duplicates = new java.util.ArrayList<>();
        Seg previous = null;
        int nextSeq = 0;
        for (Seg s : sent) {
            boolean control = s.has(TcpHeader.SYN) || s.has(TcpHeader.FIN) || s.has(TcpHeader.RST);
            if (previous != null && s.dataLength() == 0 && !control && s.window() != 0
                && s.window() == previous.window() && s.ack() == previous.ack() && s.seq() == nextSeq) {
                duplicates.add(s);
            }
            int end = s.seq() + s.dataLength() + (s.has(TcpHeader.SYN) || s.has(TcpHeader.FIN) ? 1 : 0);
            if (previous == null || end - nextSeq > 0) {
                nextSeq = end;
            }
            previous = s;
        }
        return duplicates;
    }

    @Test
    void segmentsForNobodyAreAnsweredWithResetsAndResetsAreNot() {
        pipe = new SegmentPipe(SegmentPipe.testConfig(), SegmentPipe.testConfig(), 1);
        pipe.inject(true, Segments.build(A_ADDRESS, B_ADDRESS, 1234, 99, 1000, 5000, TcpHeader.ACK, 100,
            new byte[10]));
        pipe.inject(true, Segments.build(A_ADDRESS, B_ADDRESS, 1234, 99, 1000, 0, TcpHeader.RST, 0, new byte[0]));
        pipe.run(1_000_000L);
        List<Seg> out = pipe.sentBy(false);
        assertEquals(1, out.size(), out.toString());
        assertEquals(TcpHeader.RST, out.getFirst().flags());
        assertEquals(5000, out.getFirst().seq(), "<SEQ=SEG.ACK><CTL=RST>");
    }

    @Test
    void listenerAnswersAStrayAckWithAReset() {
        pipe = new SegmentPipe(SegmentPipe.testConfig(), SegmentPipe.testConfig(), 1);
        pipe.b.listen(PORT, new StreamApp());
        pipe.inject(true, Segments.build(A_ADDRESS, B_ADDRESS, 1234, PORT, 1000, 777, TcpHeader.ACK, 100,
            new byte[0]));
        pipe.run(1_000_000L);
        assertEquals(TcpHeader.RST, pipe.sentBy(false).getFirst().flags());
        assertEquals(777, pipe.sentBy(false).getFirst().seq());
    }

    @Test
    void slotsRunOutAsBackPressureAndComeBackOnRelease() {
        pipe = new SegmentPipe(SegmentPipe.testConfig().withConnections(1), SegmentPipe.testConfig(), 1);
        StreamApp app = new StreamApp();
        TcpConnection x = pipe.a.connect(B_ADDRESS, PORT, app, pipe.now);
        assertNull(pipe.a.connect(B_ADDRESS, PORT, app, pipe.now), "no free slot");
        x.abort(pipe.now);
        assertNull(pipe.a.connect(B_ADDRESS, PORT, app, pipe.now), "closed but not released");
        x.release(pipe.now);
        assertThrows(IllegalStateException.class, () -> x.read(MemorySegment.ofArray(new byte[1]), 0, 1, 0));
        assertNotNull(pipe.a.connect(B_ADDRESS, PORT, app, pipe.now));
    }

    @Test
    void aHalfOpenPassiveConnectionThatTimesOutFreesItsSlot() {
        pipe = new SegmentPipe(SegmentPipe.testConfig(), SegmentPipe.testConfig().withConnections(1)
            .withMaxRetransmissions(2), 1);
        StreamApp app = new StreamApp();
        pipe.b.listen(PORT, app);
        pipe.rule = s -> !s.fromA(); // B's SYN-ACKs never arrive
        pipe.inject(true, Segments.build(A_ADDRESS, B_ADDRESS, 40000, PORT, 1000, 0, TcpHeader.SYN, 1000,
            new byte[0]));
        pipe.run(5 * SECOND);
        assertEquals(3, pipe.sentBy(false).stream().filter(s -> s.has(TcpHeader.SYN)).count(), "SYN-ACK and 2 more");
        assertTrue(app.events.isEmpty(), "the application never heard of it: " + app.events);
        pipe.inject(true, Segments.build(A_ADDRESS, B_ADDRESS, 40001, PORT, 5000, 0, TcpHeader.SYN, 1000,
            new byte[0]));
        pipe.run(1_000_000L);
        assertEquals(0, pipe.b.counters().get(Counter.LISTEN_OVERFLOW), "the slot came back");
    }

    @Test
    void misuseIsRefusedWithTheArgumentNamed() {
        pipe = new SegmentPipe(SegmentPipe.testConfig(), SegmentPipe.testConfig(), 1);
        StreamApp app = new StreamApp();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> pipe.a.connect(B_ADDRESS, 0, app, 0));
        assertTrue(e.getMessage().contains("remotePort"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pipe.a.listen(70000, app));
        TcpConnection x = pipe.a.connect(B_ADDRESS, PORT, app, pipe.now);
        assertThrows(IndexOutOfBoundsException.class, () -> x.write(MemorySegment.ofArray(new byte[4]), 2, 4, 0));
        x.close(pipe.now);
        e = assertThrows(IllegalArgumentException.class, () -> new TcpConfig(0, 1000, 4096, 1, 1_000_000_000L,
            1_000_000L, 2_000_000_000L, 3, 0, 0, 0, true, true));
        assertTrue(e.getMessage().contains("sendBuffer"), e.getMessage());
        try (Arena arena = Arena.ofConfined()) {
            e = assertThrows(IllegalArgumentException.class, () -> new Tcp(new SegmentSinkStub(), 1,
                TcpConfig.defaults().withMss(4000), arena));
            assertTrue(e.getMessage().contains("mss"), e.getMessage());
        }
    }

    /** A sink that carries 1480-byte segments and never sends. */
    private static final class SegmentSinkStub implements SegmentSink {
        @Override
        public int claim(int destination, long nowNanos) {
            return -1;
        }

        @Override
        public MemorySegment buffer(int handle) {
            throw new IllegalStateException();
        }

        @Override
        public int offset() {
            return 0;
        }

        @Override
        public int maxSegment() {
            return 1480;
        }

        @Override
        public void send(int handle, int destination, int length) {
            throw new IllegalStateException();
        }
    }
}
