package io.nicbridge.protocols.unet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.ip.Ipv4Address;
import io.nicbridge.protocols.ip.Ipv4Stack;
import io.nicbridge.protocols.ip.UnetIpLink;
import io.nicbridge.protocols.ip.tcp.StreamApp;
import io.nicbridge.protocols.ip.tcp.Tcp;
import io.nicbridge.protocols.ip.tcp.TcpCloseReason;
import io.nicbridge.protocols.ip.tcp.TcpConfig;
import io.nicbridge.protocols.ip.tcp.TcpCounters.Counter;
import io.nicbridge.protocols.ip.tcp.TcpState;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testbed.UnetLinkTestbed;
import java.lang.foreign.Arena;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * TCP over a U-Net channel (the paper's section 7.7) on two emulated SBA-200s through the ATM switch, the card engine
 * run inline by the links' polls: the same {@link Tcp} as on Ethernet, over the one {@link Ipv4Stack} on a
 * {@link UnetIpLink} (MTU 9 KB, the channel the route), with the paper's 2048-byte segments. Transfers both ways at
 * once are checked byte for byte, also with the switch dropping cells (a lost cell fails its PDU's AAL5 CRC: the
 * whole segment is lost, Romanov and Floyd's case the paper cites), and every buffer is back where it belongs at the
 * end: the links' transmit buffers, the endpoints' posted receive buffers, the connection slots.
 */
class TcpOverUnetTest {
    static final int IP_A = Ipv4Address.parse("10.17.0.1");
    static final int IP_B = Ipv4Address.parse("10.17.0.2");
    static final int TX_BUFFERS = 8;
    static final int RX_BUFFERS = 24;
    static final int MSS = 2048;
    static final int PORT = 7777;
    /** One poll step of the test's clock: 50 us, about the U-Net round trip the paper measures. */
    static final long STEP_NANOS = 50_000;

    UnetLinkTestbed tb;
    Arena arena;
    Ipv4Stack a;
    Ipv4Stack b;
    Tcp tcpA;
    Tcp tcpB;
    long now;

    void build(FaultPlan toB, FaultPlan toA) {
        tb = UnetLinkTestbed.builder(EngineMode.INLINE).buffers(Ipv4Stack.UNET_MTU, TX_BUFFERS, RX_BUFFERS)
                .switchOptions(sw -> sw.downlinkFaults(1, toB).downlinkFaults(0, toA)).build();
        arena = Arena.ofConfined();
        a = new Ipv4Stack(new UnetIpLink(tb.link(0)).route(IP_B, 1), IP_A, 24, Ipv4Stack.UNET_MTU);
        b = new Ipv4Stack(new UnetIpLink(tb.link(1)).route(IP_A, 0), IP_B, 24, Ipv4Stack.UNET_MTU);
        // The paper's U-Net TCP: 2048-byte segments, a 1 ms timer granularity and an RTO fitted to LAN round trips
        // (section 7.8), no delayed ACK; a short TIME-WAIT so the slots come back within the test.
        TcpConfig config = TcpConfig.defaults().withMss(MSS).withRto(5_000_000L, 2_000_000L, 500_000_000L)
                .withTimeWait(10_000_000L).withMaxRetransmissions(30).withConnections(4);
        tcpA = Tcp.over(a, config, arena);
        tcpB = Tcp.over(b, config.withIssSeed(99), arena);
    }

    @AfterEach
    void tearDown() {
        if (tb != null) {
            tb.close();
            arena.close();
        }
    }

    void step() {
        now += STEP_NANOS;
        a.poll(64, now);
        b.poll(64, now);
        tcpA.poll(now);
        tcpB.poll(now);
    }

    void runUntil(BooleanSupplier done, long limitNanos, String what) {
        long end = now + limitNanos;
        while (!done.getAsBoolean()) {
            if (now > end) {
                throw new AssertionError(what + " did not happen within " + limitNanos / 1_000_000 + " ms: " + tcpA
                        .counters() + " / " + tcpB.counters());
            }
            step();
        }
    }

    /** One connection carrying {@code up} bytes from A to B and {@code down} back, both closing after their data. */
    void transfer(int up, int down, int seed) {
        byte[] upData = StreamApp.pattern(up, seed);
        byte[] downData = StreamApp.pattern(down, seed + 1);
        StreamApp client = new StreamApp().send(upData, true);
        StreamApp server = new StreamApp().send(downData, true);
        tcpB.listen(PORT, server);
        assertNotNull(tcpA.connect(IP_B, PORT, client, now));
        runUntil(() -> client.closed != null && server.closed != null, 60_000_000_000L, up + "/" + down + " B");
        tcpB.unlisten(PORT);
        assertEquals(TcpCloseReason.ORDERLY, client.closed, client.events.toString());
        assertEquals(TcpCloseReason.ORDERLY, server.closed, server.events.toString());
        assertArrayEquals(upData, server.received.toByteArray(), up + " B up");
        assertArrayEquals(downData, client.received.toByteArray(), down + " B down");
        assertTrue(client.endOfStream && server.endOfStream, "both saw the other's FIN");
        assertEquals(MSS, client.connection.mss(), "the paper's 2048-byte segments, not the 9 KB MTU's");
        assertEquals(MSS, server.connection.mss());
        client.connection.release(now);
        server.connection.release(now);
    }

    /** Every buffer back: no connection open, no send in flight, every receive buffer posted, every TX claimable. */
    void assertNoLeak() {
        runUntil(() -> tcpA.poll(now) == 0 && tcpB.poll(now) == 0, 1_000_000_000L, "TIME-WAIT ending");
        for (int i = 0; i < 4; i++) {
            step();
        }
        for (int node = 0; node < 2; node++) {
            assertEquals(RX_BUFFERS, tb.endpoint(node).freeBuffersPosted(), "node " + node + ": receive buffers");
            Link link = tb.link(node);
            int[] held = new int[TX_BUFFERS];
            for (int i = 0; i < TX_BUFFERS; i++) { // a claim collects the completed sends first
                held[i] = link.claim(1 - node);
                assertTrue(held[i] != Link.NONE, "node " + node + ": TX buffer " + i + " of " + TX_BUFFERS);
            }
            assertEquals(0, tb.endpoint(node).sendsInFlight(), "node " + node + ": sends not collected");
            for (int h : held) {
                link.abort(h);
            }
        }
    }

    @Test
    void transfersOfZeroToOneMegabyteEachWayArriveIntactAndCloseInOrder() {
        build(FaultPlan.NONE, FaultPlan.NONE);
        int[][] sizes = {{0, 0}, {1, 0}, {0, 1}, {MSS - 1, MSS}, {MSS + 1, 3 * MSS}, {100_000, 7}, {1 << 20, 1 << 20}};
        int seed = 1;
        for (int[] s : sizes) {
            transfer(s[0], s[1], seed++);
        }
        long data = tcpA.counters().get(Counter.DATA_BYTES_SENT);
        assertTrue(tcpA.counters().get(Counter.SEGMENTS_SENT) >= data / MSS, "segments of at most 2048 bytes");
        assertEquals(0, tcpA.counters().get(Counter.TIMEOUT_RETRANSMISSIONS)
                + tcpB.counters().get(Counter.TIMEOUT_RETRANSMISSIONS), "no loss, no retransmission");
        assertEquals(0, tcpA.counters().malformed() + tcpB.counters().malformed());
        assertEquals(0, a.counters().dropped() + b.counters().dropped(), a.counters() + " / " + b.counters());
        assertNoLeak();
    }

    @Test
    void cellLossOnBothFibresCostsWholeSegmentsWhichTcpRetransmitsUntilEveryByteArrives() {
        // 0.1 % of cells dropped on each downlink: a 2048-byte segment is 44 cells, so about 4 % of full segments
        // fail their AAL5 CRC (or length check) at the receiving card and never reach IP.
        build(FaultPlan.builder().seed(17).drop(0.001).build(), FaultPlan.builder().seed(18).drop(0.001).build());
        transfer(1 << 20, 1 << 20, 40);
        transfer(50_000, 3, 41);
        long retransmitted = 0;
        for (Tcp t : new Tcp[] {tcpA, tcpB}) {
            retransmitted += t.counters().get(Counter.TIMEOUT_RETRANSMISSIONS)
                    + t.counters().get(Counter.FAST_RETRANSMISSIONS);
        }
        long cardErrors = 0;
        for (int node = 0; node < 2; node++) {
            var st = tb.kernel(node).readStatistics();
            cardErrors += st.aal5CrcErrors() + st.lengthErrors();
        }
        assertTrue(cardErrors > 0, "the dropped cells cost whole PDUs at the receiving cards");
        assertTrue(retransmitted > 0, "and TCP retransmitted them");
        assertEquals(0, tcpA.counters().malformed() + tcpB.counters().malformed(), "no damaged segment reached TCP");
        assertNoLeak();
    }

    @Test
    void aSynToAClosedPortIsAnsweredWithRstAndTheConnectionReportsIt() {
        build(FaultPlan.NONE, FaultPlan.NONE);
        StreamApp client = new StreamApp();
        var c = tcpA.connect(IP_B, 81, client, now);
        assertNotNull(c);
        runUntil(() -> client.closed != null, 100_000_000L, "the refusal");
        assertEquals(TcpCloseReason.RESET, client.closed);
        assertEquals(1, tcpB.counters().get(Counter.RESETS_SENT));
        assertEquals(1, tcpB.counters().get(Counter.NO_CONNECTION));
        assertEquals(1, tcpA.counters().get(Counter.RESETS_RECEIVED));
        assertEquals(TcpState.CLOSED, c.state());
        assertEquals(-1, c.write(java.lang.foreign.MemorySegment.ofArray(new byte[1]), 0, 1, now), "closed: -1");
        c.release(now);
        assertNoLeak();
    }
}
