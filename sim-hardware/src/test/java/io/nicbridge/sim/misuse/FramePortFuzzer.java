package io.nicbridge.sim.misuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Random sequences of valid and invalid calls on a sending and a receiving {@link FramePort}, checked against a model
 * of the handles each side holds and against {@link FramePort}'s misuse contract: an invalid call throws exactly the
 * documented exception and changes nothing; valid traffic keeps flowing; the port counters match the accepted
 * operations (frames committed, frames polled). Every frame carries a sequence number so a duplicate or a frame
 * nobody sent is caught.
 */
final class FramePortFuzzer {
    static final ValueLayout.OfInt SEQ = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final int[] BAD_LENGTHS = {0, -1, Integer.MIN_VALUE};

    /** Writes what makes the receiving port accept a frame (addresses) and says where the sequence number goes. */
    interface Framing {
        /** Fills the header of a frame of {@code length} bytes; the sequence number goes at {@link #seqOffset()}. */
        void header(MemorySegment buffer);

        int seqOffset();

        /** Shortest frame the fuzzer commits (header plus sequence number). */
        int minLength();
    }

    private final String name;
    private final FramePort tx;
    private final FramePort rx;
    private final Framing framing;
    private final Random random;
    private final Set<Integer> claimed = new HashSet<>();
    private final Set<Integer> held = new HashSet<>();
    /** Sequence numbers committed and not yet received. */
    private final Set<Integer> inFlight = new HashSet<>();
    private final long txFramesAtStart;
    private final long rxFramesAtStart;
    private final long rxErrorsAtStart;
    private long commits;
    private long polls;
    private long errorPolls;
    private int nextSeq;
    private long rejected;

    FramePortFuzzer(String name, FramePort tx, FramePort rx, Framing framing, Random random) {
        this.name = name;
        this.tx = tx;
        this.rx = rx;
        this.framing = framing;
        this.random = random;
        this.txFramesAtStart = tx.counters().txFrames();
        this.rxFramesAtStart = rx.counters().rxFrames();
        this.rxErrorsAtStart = rx.counters().rxErrors();
    }

    long rejected() {
        return rejected;
    }

    /** {@code steps} random calls, then the counters and a frame that must still get through. */
    void run(int steps) throws InterruptedException {
        for (int i = 0; i < steps; i++) {
            step();
        }
        checkCounters();
        checkTrafficFlows();
        checkCounters();
    }

    private void step() throws InterruptedException {
        switch (random.nextInt(14)) {
            case 0, 1 -> claim();
            case 2, 3 -> commitValid();
            case 4 -> {
                if (!claimed.isEmpty()) {
                    expectIllegalArgument(this::commitBadLength);
                }
            }
            case 5 -> abortValid();
            case 6 -> expectIllegalState(() -> tx.commit(notClaimed(), framing.minLength()));
            case 7 -> expectIllegalState(() -> tx.txBuffer(notClaimed()));
            case 8 -> expectIllegalState(() -> tx.abort(notClaimed()));
            case 9, 10 -> poll(random.nextInt(4) == 0);
            case 11 -> releaseValid();
            case 12 -> expectIllegalState(() -> rx.release(notHeld()));
            default -> expectIllegalState(() -> {
                int h = notHeld();
                switch (random.nextInt(3)) {
                    case 0 -> rx.rxBuffer(h);
                    case 1 -> rx.rxLength(h);
                    default -> rx.rxStatus(h);
                }
            });
        }
    }

    private void claim() {
        int h = tx.claim();
        if (h != FramePort.NONE) {
            assertTrue(claimed.add(h), name + ": claim returned handle " + h + ", which the caller already holds");
            assertTrue(tx.txBuffer(h).byteSize() >= tx.maxFrameLength(), name + ": txBuffer smaller than the max frame");
        }
    }

    private void commitValid() {
        if (claimed.isEmpty()) {
            claim();
            return;
        }
        int h = any(claimed);
        MemorySegment buffer = tx.txBuffer(h);
        framing.header(buffer);
        int seq = nextSeq++;
        buffer.set(SEQ, framing.seqOffset(), seq);
        int length = framing.minLength() + random.nextInt(Math.min(200, tx.maxFrameLength() - framing.minLength() + 1));
        if (random.nextInt(8) == 0) {
            length = tx.maxFrameLength();
        }
        tx.commit(h, length);
        claimed.remove(h);
        inFlight.add(seq);
        commits++;
    }

    private void commitBadLength() {
        int h = any(claimed);
        int length = random.nextBoolean() ? BAD_LENGTHS[random.nextInt(BAD_LENGTHS.length)]
            : tx.maxFrameLength() + 1 + random.nextInt(1 << 16);
        long before = tx.counters().txFrames();
        try {
            tx.commit(h, length);
        } finally {
            assertEquals(before, tx.counters().txFrames(), name + ": a rejected commit moved txFrames");
        }
    }

    private void abortValid() {
        if (!claimed.isEmpty()) {
            int h = any(claimed);
            tx.abort(h);
            claimed.remove(h);
        }
    }

    private void poll(boolean await) throws InterruptedException {
        int h = await ? rx.await(random.nextInt(2), TimeUnit.MILLISECONDS) : rx.poll();
        if (h == FramePort.NONE) {
            return;
        }
        assertTrue(held.add(h), name + ": poll returned handle " + h + ", which the caller already holds");
        if (rx.rxStatus(h) != FrameStatus.OK) {
            // The card's way of reporting a frame it could not deliver whole (e.g. U-Net: no free buffer while the
            // fuzz held them all): counted in rxErrors, its bytes are not the sender's.
            errorPolls++;
            return;
        }
        polls++;
        int length = rx.rxLength(h);
        assertTrue(length >= framing.minLength() && length <= rx.maxFrameLength(), name + ": length " + length);
        int seq = rx.rxBuffer(h).get(SEQ, framing.seqOffset());
        assertTrue(inFlight.remove(seq), name + ": received sequence number " + seq
            + " was never sent or arrived twice");
    }

    private void releaseValid() {
        if (!held.isEmpty()) {
            int h = any(held);
            rx.release(h);
            held.remove(h);
        }
    }

    /** A handle the sender does not hold: a former one, a negative one, one past any table. */
    private int notClaimed() {
        return notIn(claimed);
    }

    private int notHeld() {
        return notIn(held);
    }

    private int notIn(Set<Integer> holding) {
        for (;;) {
            int h = switch (random.nextInt(4)) {
                case 0 -> -1 - random.nextInt(1000);
                case 1 -> Integer.MAX_VALUE - random.nextInt(10);
                case 2 -> 1 << (16 + random.nextInt(14));
                default -> random.nextInt(256);
            };
            if (!holding.contains(h)) {
                return h;
            }
        }
    }

    private int any(Set<Integer> handles) {
        List<Integer> list = new ArrayList<>(handles);
        return list.get(random.nextInt(list.size()));
    }

    private interface Call {
        void run() throws Exception;
    }

    private void expectIllegalState(Call call) {
        expect(IllegalStateException.class, call);
    }

    private void expectIllegalArgument(Call call) {
        expect(IllegalArgumentException.class, call);
    }

    private void expect(Class<? extends Exception> type, Call call) {
        long tx0 = tx.counters().txFrames();
        long rx0 = rx.counters().rxFrames();
        try {
            call.run();
            fail(name + ": expected " + type.getSimpleName() + ", nothing was thrown");
        } catch (Exception e) {
            if (!type.isInstance(e)) {
                throw new AssertionError(name + ": expected " + type.getSimpleName() + ", got " + e, e);
            }
            assertNotEquals(null, e.getMessage(), name + ": an exception without a message");
        }
        rejected++;
        assertEquals(tx0, tx.counters().txFrames(), name + ": a rejected call moved txFrames");
        assertEquals(rx0, rx.counters().rxFrames(), name + ": a rejected call moved rxFrames");
    }

    private void checkCounters() {
        assertEquals(commits, tx.counters().txFrames() - txFramesAtStart, name + ": txFrames = accepted commits");
        assertEquals(polls, rx.counters().rxFrames() - rxFramesAtStart, name + ": rxFrames = good frames polled");
        assertEquals(errorPolls, rx.counters().rxErrors() - rxErrorsAtStart,
            name + ": rxErrors = frames polled with error status");
    }

    /** After all the misuse: give everything back, send one more frame, and it arrives. */
    private void checkTrafficFlows() throws InterruptedException {
        for (int h : new ArrayList<>(held)) {
            rx.release(h);
        }
        held.clear();
        for (int h : new ArrayList<>(claimed)) {
            tx.abort(h);
        }
        claimed.clear();
        drain(TimeUnit.MILLISECONDS.toNanos(200));
        inFlight.clear(); // what the receiver dropped while it was not polling is the card's to count, not ours
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int h;
        while ((h = tx.claim()) == FramePort.NONE) {
            assertTrue(System.nanoTime() < deadline, name + ": no TX buffer came back");
            Thread.sleep(1);
        }
        claimed.add(h);
        commitValid();
        int marker = nextSeq - 1;
        while (inFlight.contains(marker)) {
            assertTrue(System.nanoTime() < deadline, name + ": the frame sent after the misuse did not arrive");
            int r = rx.await(10, TimeUnit.MILLISECONDS);
            if (r != FramePort.NONE) {
                count(r);
                rx.release(r);
            }
        }
    }

    private void count(int r) {
        if (rx.rxStatus(r) == FrameStatus.OK) {
            polls++;
            inFlight.remove(rx.rxBuffer(r).get(SEQ, framing.seqOffset()));
        } else {
            errorPolls++;
        }
    }

    private void drain(long quietNanos) throws InterruptedException {
        long quietUntil = System.nanoTime() + quietNanos;
        while (System.nanoTime() < quietUntil) {
            int r = rx.await(5, TimeUnit.MILLISECONDS);
            if (r != FramePort.NONE) {
                count(r);
                rx.release(r);
                quietUntil = System.nanoTime() + quietNanos;
            }
        }
    }

    /** After close: every call but name, maxFrameLength, counters and close throws IllegalStateException. */
    static void checkClosed(String name, FramePort port, int maxHandle) throws InterruptedException {
        long tx0 = port.counters().txFrames();
        long rx0 = port.counters().rxFrames();
        List<Call> calls = List.of(port::claim, port::poll, () -> port.await(1, TimeUnit.MILLISECONDS));
        for (Call c : calls) {
            assertClosedThrows(name, c);
        }
        for (int h = -1; h <= maxHandle; h++) {
            int handle = h;
            assertClosedThrows(name, () -> port.txBuffer(handle));
            assertClosedThrows(name, () -> port.commit(handle, 60));
            assertClosedThrows(name, () -> port.abort(handle));
            assertClosedThrows(name, () -> port.rxBuffer(handle));
            assertClosedThrows(name, () -> port.rxLength(handle));
            assertClosedThrows(name, () -> port.rxStatus(handle));
            assertClosedThrows(name, () -> port.release(handle));
        }
        assertFalse(port.name().isEmpty());
        assertTrue(port.maxFrameLength() > 0);
        port.close(); // idempotent
        assertEquals(tx0, port.counters().txFrames(), name + ": calls after close moved txFrames");
        assertEquals(rx0, port.counters().rxFrames(), name + ": calls after close moved rxFrames");
    }

    private static void assertClosedThrows(String name, Call call) {
        try {
            call.run();
            fail(name + ": a call after close returned normally");
        } catch (IllegalStateException expected) {
            // documented
        } catch (Exception e) {
            throw new AssertionError(name + ": a call after close threw " + e + " instead of IllegalStateException", e);
        }
    }
}
