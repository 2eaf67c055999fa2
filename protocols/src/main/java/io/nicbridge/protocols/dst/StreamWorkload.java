package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.ip.tcp.Tcp;
import io.nicbridge.protocols.ip.tcp.TcpCloseReason;
import io.nicbridge.protocols.ip.tcp.TcpConnection;
import io.nicbridge.protocols.ip.tcp.TcpHandler;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.RunnerNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * The workload of a {@link TcpNode} world: byte streams over TCP connections, checked against TCP's promise.
 *
 * <h2>The streams</h2>
 * Each node {@code k} opens one connection (the "client" end) to a peer drawn from the seed (the "server" end, which
 * listens on {@link TcpNode#PORT}), at a seeded time in the first eighth of the load span. Both ends write a stream:
 * {@code messagesPerNode} chunks of 1 to {@code maxMessage} bytes each, at seeded times over the load span (a chunk
 * the send ring cannot take whole is written as the ring frees). An end closes its sending direction once its last
 * chunk is written; both close independently, so the schedules hold active, passive and simultaneous closes. Byte
 * {@code i} of stream {@code s} (stream {@code 2k} client to server, {@code 2k + 1} back) is {@link #byteAt(int, long)}
 * , a hash of both, so a byte lost, repeated, moved or altered is seen at the next position read.
 *
 * <h2>The readers</h2>
 * Each end reads at most a seeded budget of 64 to 4096 bytes per event and comes back after a pause of a few frame
 * times when more is waiting: a slow application, so receive windows fill, close to zero and reopen.
 *
 * <h2>The oracle</h2>
 * <ul>
 *   <li>{@code integrity}: every byte read is the stream's byte at that position; no connection is accepted that no
 *       node opened;</li>
 *   <li>{@code exactly-once}: no reader gets more bytes than its stream has;</li>
 *   <li>{@code orderly-close}: both ends of every connection reach CLOSED as {@link TcpCloseReason#ORDERLY} (no RST,
 *       no time-out, no abort ends a connection of the workload) having read their whole stream and its end;</li>
 *   <li>progress, bounded memory, no leak (every connection slot free again after the closes): the world's
 *       ({@link SimulationRun}).</li>
 * </ul>
 * A delivery, for the world's count, is one byte read and checked or one end closed orderly: {@link #total()} is the
 * bytes of every stream plus two per connection.
 */
final class StreamWorkload implements Workload {
    /** How long a reader that left bytes waiting pauses before it reads again. */
    static final long READ_PAUSE_NANOS = 50_000;

    private final Scheduler scheduler;
    private final Verdict verdict;
    private final int nodes;
    private final int chunks;
    /** Per connection k: its server node (its client is node k), when it opens. */
    private final int[] server;
    private final long[] connectAt;
    /** Per stream s: chunk lengths and times, bytes in all, the reader's budget per event. */
    private final int[][] chunkLength;
    private final long[][] chunkAt;
    private final long[] streamBytes;
    private final int[] readBudget;
    /** Per stream s: the writer's next chunk and bytes of it written, bytes written, bytes read, end of stream seen. */
    private final int[] nextChunk;
    private final int[] chunkWritten;
    private final long[] written;
    private final long[] read;
    private final boolean[] endSeen;
    private final boolean[] closeCalled;
    /** Per end e (2k the client, 2k + 1 the server): its connection while held, closed orderly. */
    private final TcpConnection[] end;
    private final boolean[] closedOrderly;
    private final MemorySegment scratch;
    private final Timer[] appTimer;
    private final long total;
    private NodeRunner runner;
    private long offered;
    private long delivered;

    StreamWorkload(Schedule schedule, SimSettings settings, Scheduler scheduler, Verdict verdict) {
        this.scheduler = scheduler;
        this.verdict = verdict;
        this.nodes = schedule.nodes();
        this.chunks = schedule.messagesPerNode();
        SplittableRandom r = new SplittableRandom(schedule.seed() * 0x9E3779B97F4A7C15L + nodes * 131L + chunks);
        long span = settings.loadSpanNanos();
        server = new int[nodes];
        connectAt = new long[nodes];
        int streams = 2 * nodes;
        chunkLength = new int[streams][chunks];
        chunkAt = new long[streams][chunks];
        streamBytes = new long[streams];
        readBudget = new int[streams];
        long sum = 2L * nodes;
        for (int k = 0; k < nodes; k++) {
            int d = r.nextInt(nodes - 1);
            server[k] = d >= k ? d + 1 : d;
            connectAt[k] = r.nextLong(span / 8 + 1);
        }
        for (int s = 0; s < streams; s++) {
            long t = connectAt[s / 2];
            for (int j = 0; j < chunks; j++) {
                chunkLength[s][j] = 1 + r.nextInt(settings.maxMessage());
                t += r.nextLong(2 * span / Math.max(1, chunks) + 1);
                chunkAt[s][j] = Math.min(t, span);
                streamBytes[s] += chunkLength[s][j];
            }
            readBudget[s] = 64 + r.nextInt(4096 - 64 + 1);
            sum += streamBytes[s];
        }
        total = sum;
        nextChunk = new int[streams];
        chunkWritten = new int[streams];
        written = new long[streams];
        read = new long[streams];
        endSeen = new boolean[streams];
        closeCalled = new boolean[streams];
        end = new TcpConnection[streams];
        closedOrderly = new boolean[streams];
        scratch = MemorySegment.ofArray(new byte[Math.max(settings.maxMessage(), 4096)]);
        appTimer = new Timer[nodes];
    }

    /**
     * @return byte {@code position} of stream {@code stream}: the top byte of a SplitMix64-style mix of both, so
     *     neighbouring bytes and the same position of two streams differ unpredictably
     */
    static byte byteAt(int stream, long position) {
        long z = (position + 1) * 0x9E37_79B9_7F4A_7C15L + stream * 0xD1B5_4A32_D192_ED03L;
        z = (z ^ (z >>> 31)) * 0xBF58_476D_1CE4_E5B9L;
        return (byte) (z >>> 56);
    }

    @Override
    public void start(NodeRunner runner) {
        this.runner = runner;
        for (int i = 0; i < nodes; i++) {
            int node = i;
            tcp(node).listen(TcpNode.PORT, new Listener(node));
            appTimer[i] = scheduler.newTimer("app" + i + ".stream", () -> {
                act(node);
                runner.node(node).applicationActed();
            });
            appTimer[i].armAt(connectAt[i]);
        }
    }

    @Override
    public void stop() {
        for (Timer t : appTimer) {
            if (t != null) {
                t.cancel();
            }
        }
    }

    @Override
    public int total() {
        return (int) Math.min(Integer.MAX_VALUE, total);
    }

    @Override
    public int delivered() {
        return (int) Math.min(Integer.MAX_VALUE, delivered);
    }

    /** @return bytes the TCPs accepted from the writers so far */
    @Override
    public int offered() {
        return (int) Math.min(Integer.MAX_VALUE, offered);
    }

    /**
     * True until every byte is read and every end closed: the load span (a few ms) is far inside the progress bound,
     * so even a pause between two chunks with nothing in flight never looks like a stall.
     */
    @Override
    public boolean outstanding(long now) {
        return delivered < total;
    }

    @Override
    public long reportedByCores() {
        return 0;
    }

    @Override
    public void afterEvent(RunnerNode node) {
        act(node.id());
    }

    private Tcp tcp(int node) {
        return ((TcpNode) runner.node(node).core()).tcp();
    }

    /** Everything node {@code node}'s application does now: connect, write due chunks, close, read; re-arms its timer. */
    private void act(int node) {
        if (verdict.failed()) {
            return;
        }
        long now = scheduler.nanoTime();
        long next = Long.MAX_VALUE;
        if (end[2 * node] == null && !closedOrderly[2 * node]) {
            if (now >= connectAt[node]) {
                end[2 * node] = tcp(node).connect(TcpNode.address(server[node]), TcpNode.PORT, new Client(node), now);
                if (end[2 * node] == null) {
                    verdict.fail("orderly-close", "node " + node + " has no free connection slot to connect");
                    return;
                }
                verdict.progressed();
            } else {
                next = connectAt[node];
            }
        }
        for (int e = 0; e < 2 * nodes && !verdict.failed(); e++) {
            boolean mine = e % 2 == 0 ? e / 2 == node : server[e / 2] == node;
            TcpConnection c = end[e];
            if (!mine || c == null) {
                continue;
            }
            next = Math.min(next, write(e, c, now));
            if (end[e] == c && readSome(e, c, now)) { // unless the write's events closed and released it
                next = Math.min(next, now + READ_PAUSE_NANOS);
            }
        }
        Timer t = appTimer[node];
        if (next != Long.MAX_VALUE && !verdict.failed() && (!t.isArmed() || t.deadline() > next)) {
            t.armAt(Math.max(next, now + 1));
        }
    }

    /**
     * Writes end {@code e}'s due chunks (its stream is stream {@code e}) and closes once all are written.
     *
     * @return when its next chunk is due, or {@link Long#MAX_VALUE}
     */
    private long write(int e, TcpConnection c, long now) {
        if (!c.state().synchronized_()) {
            return Long.MAX_VALUE; // the handshake's end is an event: afterEvent comes back
        }
        while (nextChunk[e] < chunks && chunkAt[e][nextChunk[e]] <= now) {
            int left = chunkLength[e][nextChunk[e]] - chunkWritten[e];
            for (int b = 0; b < left; b++) {
                scratch.set(ValueLayout.JAVA_BYTE, b, byteAt(e, written[e] + b));
            }
            int n = c.write(scratch, 0, left, now);
            if (n < 0) {
                return Long.MAX_VALUE; // closed: onClosed judged it
            }
            written[e] += n;
            offered += n;
            if (n > 0) {
                verdict.progressed();
            }
            if (n < left) {
                chunkWritten[e] += n;
                return Long.MAX_VALUE; // the ring is full: the peer's ACK is an event, afterEvent comes back
            }
            chunkWritten[e] = 0;
            nextChunk[e]++;
        }
        if (nextChunk[e] < chunks) {
            return chunkAt[e][nextChunk[e]];
        }
        if (!closeCalled[e]) {
            closeCalled[e] = true;
            c.close(now);
        }
        return Long.MAX_VALUE;
    }

    /**
     * Reads up to the reader's budget from end {@code e} (stream {@code e ^ 1} arrives there) and checks it.
     *
     * @return true when bytes are still waiting
     */
    private boolean readSome(int e, TcpConnection c, long now) {
        int s = e ^ 1;
        int budget = readBudget[s];
        while (budget > 0 && !verdict.failed()) {
            int n = c.read(scratch, 0, Math.min(budget, (int) scratch.byteSize()), now);
            if (n < 0) {
                endOfStream(e, c);
                return false;
            }
            if (n == 0) {
                return false;
            }
            check(s, n, c);
            budget -= n;
        }
        return c.readable() > 0;
    }

    private void check(int s, int n, TcpConnection c) {
        if (read[s] + n > streamBytes[s]) {
            verdict.fail("exactly-once", "stream " + s + " (" + describe(s) + ") delivered " + (read[s] + n)
                    + " bytes, more than the " + streamBytes[s] + " written, on " + c);
            return;
        }
        for (int b = 0; b < n; b++) {
            if (scratch.get(ValueLayout.JAVA_BYTE, b) != byteAt(s, read[s] + b)) {
                verdict.fail("integrity", "stream " + s + " (" + describe(s) + ") byte " + (read[s] + b)
                        + " differs from what was written, on " + c);
                return;
            }
        }
        read[s] += n;
        delivered += n;
        verdict.progressed();
    }

    private void endOfStream(int e, TcpConnection c) {
        int s = e ^ 1;
        if (endSeen[s]) {
            return;
        }
        endSeen[s] = true;
        if (read[s] != streamBytes[s]) {
            verdict.fail("orderly-close", "stream " + s + " (" + describe(s) + ") ended after " + read[s] + " of "
                    + streamBytes[s] + " bytes, on " + c);
        }
    }

    /** Judges the close of end {@code e}: orderly, with the whole stream read. Releases the connection. */
    private void closed(int e, TcpConnection c, TcpCloseReason reason, long now) {
        if (reason != TcpCloseReason.ORDERLY) {
            verdict.fail("orderly-close", describe(e) + " end " + c + " closed by " + reason + " after reading "
                    + read[e ^ 1] + " of " + streamBytes[e ^ 1] + " bytes and writing " + written[e] + " of "
                    + streamBytes[e]);
        } else {
            long before;
            do { // the rest of the stream, budget by budget, up to its end (a budget may run out just before it)
                before = read[e ^ 1];
                readSome(e, c, now);
            } while (!endSeen[e ^ 1] && !verdict.failed() && read[e ^ 1] != before);
            if (!endSeen[e ^ 1] && !verdict.failed()) {
                verdict.fail("orderly-close", describe(e ^ 1) + ": " + c + " closed orderly without the end of"
                        + " stream after " + read[e ^ 1] + " of " + streamBytes[e ^ 1] + " bytes");
            }
            if (!verdict.failed() && written[e] != streamBytes[e]) {
                verdict.fail("orderly-close", describe(e) + " end " + c + " closed with " + written[e] + " of "
                        + streamBytes[e] + " bytes written");
            }
            if (!verdict.failed()) {
                closedOrderly[e] = true;
                delivered++;
                verdict.progressed();
            }
        }
        end[e] = null;
        c.release(now);
    }

    private String describe(int stream) {
        int k = stream / 2;
        return stream % 2 == 0 ? "node " + k + " to node " + server[k] : "node " + server[k] + " to node " + k;
    }

    /** The events of client end 2k (node k's connection). */
    private final class Client implements TcpHandler {
        private final int k;

        Client(int k) {
            this.k = k;
        }

        @Override
        public void onClosed(TcpConnection connection, TcpCloseReason reason, long nowNanos) {
            closed(2 * k, connection, reason, nowNanos);
        }
    }

    /** Node {@code node}'s listener: matches an accepted connection to the client that opened it. */
    private final class Listener implements TcpHandler {
        private final int node;

        Listener(int node) {
            this.node = node;
        }

        @Override
        public void onEstablished(TcpConnection connection, long nowNanos) {
            int k = TcpNode.node(connection.remoteAddress());
            TcpConnection client = k >= 0 && k < nodes ? clientOf(k) : null;
            if (client == null || server[k] != node || end[2 * k + 1] != null || closedOrderly[2 * k + 1]
                    || client.localPort() != connection.remotePort()) {
                verdict.fail("integrity", "node " + node + " accepted " + connection + ", which no node opened");
                return;
            }
            end[2 * k + 1] = connection;
            verdict.progressed();
        }

        @Override
        public void onClosed(TcpConnection connection, TcpCloseReason reason, long nowNanos) {
            int k = TcpNode.node(connection.remoteAddress());
            if (k >= 0 && k < nodes && end[2 * k + 1] == connection) {
                closed(2 * k + 1, connection, reason, nowNanos);
            } else {
                connection.release(nowNanos);
            }
        }
    }

    private TcpConnection clientOf(int k) {
        return end[2 * k];
    }
}
