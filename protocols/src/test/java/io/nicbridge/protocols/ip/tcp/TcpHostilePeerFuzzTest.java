package io.nicbridge.protocols.ip.tcp;

import static io.nicbridge.protocols.ip.tcp.SegmentPipe.A_ADDRESS;
import static io.nicbridge.protocols.ip.tcp.SegmentPipe.B_ADDRESS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.protocols.ip.tcp.TcpCounters.Counter;
import java.lang.foreign.MemorySegment;

/**
 * A hostile peer against a connection in every state, with coverage guidance, through the public API and the wire
 * only. Two TCPs on a {@link SegmentPipe}: the honest client A ({@link StreamApp}, writing its pattern stream) and
 * the target B (listening on port 80, its application writing its own stream, reading, closing or aborting as the
 * script says). Between the honest traffic, which the script may also drop, the script puts forged segments on the
 * wire to B: any flags (CWR and ECE too), sequence and acknowledgment numbers near the connection's own or anywhere,
 * any window, any option bytes up to a 60-byte header, up to 600 bytes of data, sent from A's 4-tuple or another
 * (another port, the listener's SYN path), with the checksum right or, sometimes, wrong. What the forger cannot do is
 * know better than A what A's stream holds: its data is A's stream's bytes at the positions its sequence number
 * claims (a TCP cannot tell forged bytes that are right from A's own). Properties, after every step:
 * <ul>
 *   <li>nothing throws (the applications make no misuse, and no segment content may make the TCP throw);</li>
 *   <li>no counter of either TCP goes back, and each TCP's segments received equal the sum of its outcome counters;</li>
 *   <li>each side's application has received a prefix of what the other side's stream holds: no byte misplaced,
 *       repeated or skipped whatever the forged segments did;</li>
 * </ul>
 * and at the end, after the forger stops, the applications read everything, close and release their connections,
 * and the clock runs through every retransmission, the persist timer, TIME-WAIT and the FIN-WAIT-2 orphan timer:
 * both TCPs have every connection slot back (no leak), and
 * when neither side was reset, aborted or timed out, each received the other's whole stream. Corpus:
 * {@code src/test/resources/io/nicbridge/protocols/ip/tcp/TcpHostilePeerFuzzTestInputs/hostileSegments/}.
 */
class TcpHostilePeerFuzzTest {
    private static final int PORT = 80;
    private static final int A_SEED = 11;
    private static final int B_SEED = 23;
    private static final long MS = 1_000_000L;
    private static final int STEPS = 48;

    /** Fast timers, so that the drain at the end runs through every timer in little virtual time. */
    private static TcpConfig config() {
        return TcpConfig.defaults().withBuffers(2048, 1024).withConnections(4).withRto(3 * MS, MS, 16 * MS)
            .withMaxRetransmissions(6).withTimeWait(20 * MS);
    }

    @FuzzTest(maxDuration = "30s")
    void hostileSegments(FuzzedDataProvider script) {
        try (SegmentPipe pipe = new SegmentPipe(config(), config(), 7)) {
            pipe.delayNanos = 100_000;
            int[] drops = {0};
            pipe.rule = s -> drops[0] > 0 && drops[0]-- > 0;
            StreamApp client = new StreamApp().send(StreamApp.pattern(script.consumeInt(0, 6000), A_SEED),
                script.consumeBoolean());
            StreamApp server = new StreamApp().send(StreamApp.pattern(script.consumeInt(0, 6000), B_SEED), false);
            pipe.b.listen(PORT, new FirstConnection(server));
            TcpConnection a = pipe.a.connect(B_ADDRESS, PORT, client, pipe.now);
            client.connection = a;
            long[][] last = {new long[Counter.values().length], new long[Counter.values().length]};
            boolean attacked = false;
            for (int step = 0; step < STEPS && script.remainingBytes() > 0; step++) {
                switch (script.consumeInt(0, 9)) {
                    case 0, 1 -> pipe.runByEvents(script.consumeInt(1, 40) * 50_000L);
                    case 2, 3, 4 -> {
                        forge(pipe, a, script, true);
                        attacked = true;
                    }
                    case 5 -> forge(pipe, a, script, false);
                    case 6 -> drops[0] = script.consumeInt(0, 3);
                    case 7 -> server.reading = client.reading = script.consumeBoolean();
                    case 8 -> {
                        if (held(server) && server.connection.state() != TcpState.CLOSED) {
                            // B's application writes no more after it closed (a write then is misuse).
                            server.toSend = java.util.Arrays.copyOf(server.toSend, server.sent);
                            if (script.consumeBoolean()) {
                                server.connection.close(pipe.now);
                            } else {
                                server.connection.abort(pipe.now);
                            }
                        }
                    }
                    default -> act(pipe, client, server);
                }
                check(pipe, client, server, last);
            }
            drain(pipe, client, server, last);
            boolean broken = client.closed != null && client.closed != TcpCloseReason.ORDERLY
                || server.closed != null && server.closed != TcpCloseReason.ORDERLY || server.connection == null;
            if (!broken && !attacked) {
                assertEquals(client.toSend.length, server.received.size(), "B received A's whole stream");
                assertEquals(server.sent, client.received.size(), "A received what B wrote");
            }
        }
    }

    /** Puts one forged segment on the wire to B: from A's 4-tuple ({@code onConnection}) or from elsewhere. */
    private static void forge(SegmentPipe pipe, TcpConnection a, FuzzedDataProvider script, boolean onConnection) {
        int aIss = firstSeq(pipe, true);
        int bIss = firstSeq(pipe, false);
        int flags = script.consumeInt(0, 0xFF);
        if (onConnection && !bAnsweredTheRealSyn(pipe, aIss)) {
            // No SYN from A's 4-tuple before B has taken A's own: a blind SYN that B believed would set B's view of
            // A's sequence space, and A's honest bytes would then land elsewhere - TCP's known weakness, not a bug.
            flags &= ~TcpHeader.SYN;
        }
        int seq = script.consumeBoolean() ? aIss + 1 + script.consumeInt(-70_000, 70_000) : script.consumeInt();
        int ack = script.consumeBoolean() ? bIss + 1 + script.consumeInt(-70_000, 70_000) : script.consumeInt();
        int window = script.consumeInt(0, 0xFFFF);
        int optionWords = script.consumeInt(0, 10);
        byte[] options = script.consumeBytes(optionWords * 4);
        int dataLength = script.consumeInt(0, 600);
        int sourcePort = onConnection ? a.localPort() : script.consumeInt(0, 0xFFFF);
        int destinationPort = onConnection || script.consumeBoolean() ? PORT : script.consumeInt(0, 0xFFFF);
        boolean badChecksum = script.consumeInt(0, 15) == 0;

        int header = TcpHeader.LENGTH + optionWords * 4;
        byte[] bytes = new byte[header + dataLength];
        MemorySegment s = MemorySegment.ofArray(bytes);
        TcpHeader.write(s, 0, sourcePort, destinationPort, seq, ack, 0, window, 0);
        s.set(TcpHeader.U8, TcpHeader.DATA_OFFSET, (byte) ((header / 4) << 4));
        s.set(TcpHeader.U8, TcpHeader.FLAGS, (byte) flags);
        System.arraycopy(options, 0, bytes, TcpHeader.LENGTH, options.length);
        // The data A's stream holds at the positions the sequence number claims (a SYN's data follows the SYN).
        long first = Integer.toUnsignedLong(seq + ((flags & TcpHeader.SYN) != 0 ? 1 : 0) - (aIss + 1));
        for (int i = 0; i < dataLength; i++) {
            bytes[header + i] = StreamApp.patternAt(first + i, A_SEED);
        }
        TcpHeader.checksum(s, 0, bytes.length, A_ADDRESS, B_ADDRESS);
        if (badChecksum) {
            bytes[TcpHeader.CHECKSUM] ^= 0x5A;
        }
        pipe.inject(true, bytes);
    }

    /**
     * @return the first sequence number A ({@code fromA}) or B sent (its ISS), from the pipe's log; 0 before any. Forged
     *     data at a wrapped position beyond 2^31 bytes lies outside every window, so a wrong guess is only a miss.
     */
    private static int firstSeq(SegmentPipe pipe, boolean fromA) {
        for (SegmentPipe.Seg s : pipe.log) {
            if (s.fromA() == fromA && s.has(TcpHeader.SYN)) {
                return s.seq();
            }
        }
        return 0;
    }

    private static boolean bAnsweredTheRealSyn(SegmentPipe pipe, int aIss) {
        for (SegmentPipe.Seg s : pipe.log) {
            if (!s.fromA() && s.has(TcpHeader.SYN) && s.has(TcpHeader.ACK) && s.ack() == aIss + 1) {
                return true;
            }
        }
        return false;
    }

    /** @return true while the application holds its connection (it has one and has not released it) */
    private static boolean held(StreamApp app) {
        return app.connection != null && !app.released;
    }

    private static void act(SegmentPipe pipe, StreamApp client, StreamApp server) {
        for (StreamApp app : new StreamApp[] {client, server}) {
            if (held(app)) {
                app.pump(pipe.now);
                app.drain(pipe.now);
            }
        }
    }

    /**
     * B's listener: the first connection it accepts is B's application's; any later one (A's SYN again after a forged
     * RST ended the first, a forged SYN from another port that completed) is released at once.
     */
    private record FirstConnection(StreamApp server) implements TcpHandler {
        private boolean mine(TcpConnection c) {
            return server.connection == c;
        }

        @Override
        public void onEstablished(TcpConnection c, long now) {
            if (server.connection == null) {
                server.onEstablished(c, now);
            } else {
                c.release(now);
            }
        }

        @Override
        public void onReadable(TcpConnection c, long now) {
            if (mine(c)) {
                server.onReadable(c, now);
            }
        }

        @Override
        public void onWritable(TcpConnection c, long now) {
            if (mine(c)) {
                server.onWritable(c, now);
            }
        }

        @Override
        public void onClosed(TcpConnection c, TcpCloseReason reason, long now) {
            if (mine(c)) {
                server.onClosed(c, reason, now);
            }
        }
    }

    private static void check(SegmentPipe pipe, StreamApp client, StreamApp server, long[][] last) {
        Tcp[] tcps = {pipe.a, pipe.b};
        for (int t = 0; t < 2; t++) {
            TcpCounters c = tcps[t].counters();
            for (Counter k : Counter.values()) {
                long v = c.get(k);
                assertTrue(v >= last[t][k.ordinal()], k + " went back from " + last[t][k.ordinal()] + " to " + v);
                last[t][k.ordinal()] = v;
            }
            assertEquals(c.get(Counter.SEGMENTS_RECEIVED), c.outcomes(), "every segment ends in one outcome: " + c);
        }
        assertPrefix(server.received.toByteArray(), A_SEED, "B received from A");
        assertPrefix(client.received.toByteArray(), B_SEED, "A received from B");
    }

    private static void assertPrefix(byte[] received, int seed, String what) {
        for (int i = 0; i < received.length; i++) {
            if (received[i] != StreamApp.patternAt(i, seed)) {
                throw new AssertionError(what + ": byte " + i + " of " + received.length + " is not the stream's");
            }
        }
    }

    /**
     * The forger stops: both applications read, write what is left and close, and release their connections once at
     * the end of the stream (or closed); after a second of that, whatever they still hold is released too (a peer may
     * have vanished). The clock runs through every timer. Then both TCPs must have all their slots back.
     */
    private static void drain(SegmentPipe pipe, StreamApp client, StreamApp server, long[][] last) {
        pipe.rule = s -> false;
        client.reading = true;
        server.reading = true;
        long patience = pipe.now + 1_000 * MS;
        long end = patience + 1_000 * MS;
        while (pipe.now - end < 0) {
            act(pipe, client, server);
            for (StreamApp app : new StreamApp[] {client, server}) {
                if (!held(app)) {
                    continue;
                }
                TcpConnection c = app.connection;
                if (app.sent == app.toSend.length && (c.state() == TcpState.ESTABLISHED
                    || c.state() == TcpState.CLOSE_WAIT)) {
                    c.close(pipe.now);
                }
                // At the end of the peer's stream, but only once its own stream is written: a release closes the
                // connection, and released early it would end the stream short of what the application had to send
                // (the input crash-e8f746bd: A read B's FIN with 15 of its 4111 bytes not yet in its send ring).
                boolean done = app.endOfStream && app.sent == app.toSend.length;
                if (done || c.state() == TcpState.CLOSED || pipe.now - patience >= 0) {
                    c.release(pipe.now);
                    app.released = true;
                }
            }
            if (pipe.a.slotsInUse() == 0 && pipe.b.slotsInUse() == 0) {
                break;
            }
            pipe.runByEvents(MS);
        }
        check(pipe, client, server, last);
        assertEquals(0, pipe.a.slotsInUse(), () -> "A leaks: " + pipe.a.describeSlotsInUse());
        assertEquals(0, pipe.b.slotsInUse(), () -> "B leaks: " + pipe.b.describeSlotsInUse());
    }
}
