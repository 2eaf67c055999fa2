package io.nicbridge.protocols.ip.tcp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Two {@link Tcp}s joined by an in-memory pipe in virtual time: each direction has a one-way delay, seeded random
 * loss, duplication and reordering (extra delay), and a test's own drop rule; every segment sent is logged (decoded)
 * so tests can assert what went on the wire. {@link #run} advances the clock in steps, polling both TCPs and
 * delivering what is due. Test code: it allocates freely.
 */
final class SegmentPipe implements AutoCloseable {
    static final int A_ADDRESS = 0x0A00_0001;
    static final int B_ADDRESS = 0x0A00_0002;
    static final int MTU = 1500;

    /**
     * One logged segment as it left its sender: {@code window} is the field as sent (unscaled), {@code windowShift}
     * the window-scale option's shift (-1 without one), {@code sack} its SACK blocks' edges, left and right in turn.
     */
    record Seg(boolean fromA, int srcPort, int dstPort, int seq, int ack, int flags, int window, int dataLength,
               int mss, int windowShift, boolean sackPermitted, int[] sack, int headerLength, long sentAt) {
        boolean has(int flag) {
            return (flags & flag) != 0;
        }

        @Override
        public String toString() {
            StringBuilder f = new StringBuilder();
            if (has(TcpHeader.SYN)) f.append('S');
            if (has(TcpHeader.FIN)) f.append('F');
            if (has(TcpHeader.RST)) f.append('R');
            if (has(TcpHeader.PSH)) f.append('P');
            if (has(TcpHeader.ACK)) f.append('.');
            return (fromA ? "A>B " : "B>A ") + f + " seq=" + Integer.toUnsignedString(seq) + " ack="
                + Integer.toUnsignedString(ack) + " win=" + window + " len=" + dataLength
                + (sack.length > 0 ? " sack=" + java.util.Arrays.toString(sack) : "") + " @" + sentAt / 1000 + "us";
        }
    }

    /** Decides whether a side's sink refuses a claim (back-pressure: no buffer), asked on every claim. */
    interface ClaimRule {
        boolean refuse(boolean fromA);
    }

    /** Decides whether a segment is lost on the wire (on top of the random faults). */
    interface DropRule {
        boolean drop(Seg s);
    }

    private record InFlight(long at, long order, boolean toB, byte[] bytes) {
    }

    private final Arena arena = Arena.ofConfined();
    final Tcp a;
    final Tcp b;
    final List<Seg> log = new ArrayList<>();
    private final PriorityQueue<InFlight> wire = new PriorityQueue<>((x, y) -> x.at != y.at
        ? Long.compare(x.at, y.at) : Long.compare(x.order, y.order));
    private final SplittableRandom random;
    private final MemorySegment rx = arena.allocate(65536);
    long now = 1_000_000_000L;
    long delayNanos = 50_000;
    double loss;
    double duplication;
    double reordering;
    DropRule rule = s -> false;
    ClaimRule refusal = fromA -> false;
    long refused;
    private long order;
    long delivered;
    long lost;

    SegmentPipe(TcpConfig configA, TcpConfig configB, long seed) {
        random = new SplittableRandom(seed);
        a = new Tcp(new Side(true), A_ADDRESS, configA, arena);
        b = new Tcp(new Side(false), B_ADDRESS, configB, arena);
    }

    /** A fast test configuration: RTO 10 ms floor / 20 ms initial, 8 KiB rings, 100 ms TIME-WAIT. */
    static TcpConfig testConfig() {
        return TcpConfig.defaults().withBuffers(8192, 8192).withRto(20_000_000L, 10_000_000L, 2_000_000_000L)
            .withTimeWait(100_000_000L).withConnections(4);
    }

    /** Advances the clock by {@code nanos} in steps of a tenth of the one-way delay (at least 1 us). */
    void run(long nanos) {
        long end = now + nanos;
        long step = Math.max(1_000, delayNanos / 10);
        while (now - end < 0) {
            now += step;
            deliver();
            a.poll(now);
            b.poll(now);
        }
    }

    /**
     * Advances the clock by {@code nanos} from event to event (a segment due, a TCP's timer) instead of in fixed
     * steps, at least 1 us at a time: the same deliveries and polls where anything happens, far fewer where nothing
     * does (the fuzz tests' long drains).
     */
    void runByEvents(long nanos) {
        long end = now + nanos;
        while (now - end < 0) {
            long next = end;
            if (!wire.isEmpty()) {
                next = Math.min(next, wire.peek().at);
            }
            next = Math.min(next, a.nextDeadline()); // Long.MIN_VALUE while output waits: the next microsecond
            next = Math.min(next, b.nextDeadline());
            now = Math.min(end, Math.max(next, now + 1_000));
            deliver();
            a.poll(now);
            b.poll(now);
        }
    }

    /** Runs until {@code done} holds; fails after {@code limitNanos} of virtual time. */
    void runUntil(java.util.function.BooleanSupplier done, long limitNanos, String what) {
        long end = now + limitNanos;
        while (!done.getAsBoolean()) {
            if (now - end > 0) {
                throw new AssertionError("virtual time ran out waiting for " + what + "\nA " + a.counters() + "\nB "
                    + b.counters() + "\nlast segments: " + log.subList(Math.max(0, log.size() - 20), log.size()));
            }
            run(Math.max(1_000, delayNanos / 10));
        }
    }

    /**
     * Hands over the segments due by now without polling either TCP afterwards: a runner's receive step before the
     * application's turn and the end-of-step poll ({@link TcpConfig#ackAtPoll}).
     */
    void deliverDue() {
        deliver();
    }

    private void deliver() {
        while (!wire.isEmpty() && wire.peek().at - now <= 0) {
            InFlight f = wire.poll();
            MemorySegment.copy(MemorySegment.ofArray(f.bytes), 0, rx, 0, f.bytes.length);
            delivered++;
            if (f.toB) {
                b.onSegment(rx, 0, f.bytes.length, A_ADDRESS, B_ADDRESS, now);
            } else {
                a.onSegment(rx, 0, f.bytes.length, B_ADDRESS, A_ADDRESS, now);
            }
        }
    }

    /** Puts raw segment bytes on the wire towards B (or A), as if the other side had sent them. */
    void inject(boolean toB, byte[] segment) {
        wire.add(new InFlight(now, order++, toB, segment));
    }

    static Seg decode(boolean fromA, MemorySegment s, int at, int length, long now) {
        int header = TcpHeader.headerLength(s, at);
        TcpOptions options = new TcpOptions();
        options.parse(s, at, header);
        int[] sack = new int[2 * options.sackBlocks];
        for (int i = 0; i < options.sackBlocks; i++) {
            sack[2 * i] = options.sackLeft[i];
            sack[2 * i + 1] = options.sackRight[i];
        }
        return new Seg(fromA, Short.toUnsignedInt(s.get(TcpHeader.U16, at)),
            Short.toUnsignedInt(s.get(TcpHeader.U16, at + 2)), s.get(TcpHeader.U32, at + 4),
            s.get(TcpHeader.U32, at + 8), s.get(TcpHeader.U8, at + 13) & 0x3F,
            Short.toUnsignedInt(s.get(TcpHeader.U16, at + 14)), length - header, options.mss, options.windowShift,
            options.sackPermitted, sack, header, now);
    }

    List<Seg> sentBy(boolean fromA) {
        return log.stream().filter(s -> s.fromA == fromA).toList();
    }

    @Override
    public void close() {
        arena.close();
    }

    /** One direction's sink: a buffer per segment, copied onto the wire on send. */
    private final class Side implements SegmentSink {
        private final boolean isA;
        private final MemorySegment buffer = arena.allocate(2048);

        Side(boolean isA) {
            this.isA = isA;
        }

        @Override
        public int claim(int destination, long nowNanos) {
            if (refusal.refuse(isA)) {
                refused++;
                return -1;
            }
            return 0;
        }

        @Override
        public MemorySegment buffer(int handle) {
            return buffer;
        }

        @Override
        public int offset() {
            return 0;
        }

        @Override
        public int maxSegment() {
            return MTU - 20;
        }

        @Override
        public void send(int handle, int destination, int length) {
            Seg s = decode(isA, buffer, 0, length, now);
            log.add(s);
            if (rule.drop(s) || (loss > 0 && random.nextDouble() < loss)) {
                lost++;
                return;
            }
            byte[] bytes = buffer.asSlice(0, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            int copies = duplication > 0 && random.nextDouble() < duplication ? 2 : 1;
            for (int i = 0; i < copies; i++) {
                long extra = reordering > 0 && random.nextDouble() < reordering ? random.nextLong(1, 4 * delayNanos) : 0;
                wire.add(new InFlight(now + delayNanos + extra, order++, isA, bytes));
            }
        }
    }
}
