package io.nicbridge.protocols.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

/**
 * Drives one {@link MessageCore} (node 0 of a {@link HostileLink}) with a script the fuzzer writes: frames of any
 * bytes from any peer, the application's offers, polls, deliveries and the passing of time, in any order. Whatever
 * the script, the core must
 * <ul>
 *   <li>throw nothing (frames and timers have no documented exception; offers here are always legal),</li>
 *   <li>answer an offer with {@link MessageChannel#OK} or {@link MessageChannel#BACK_PRESSURE},</li>
 *   <li>deliver only messages of {@code [0, maxMessage()]} bytes within the segment it hands up, from a real peer,</li>
 *   <li>never hold more messages than its {@link ProtocolCore#bufferCapacity()},</li>
 *   <li>after {@link ProtocolCore#onTimer()}, ask for a deadline in the future,</li>
 *   <li>give back every received frame once its messages are taken and its timers have run ({@link #drain}),</li>
 *   <li>when it is a {@link BufferAudit} and the application never had an offer accepted, hold no buffer then.</li>
 * </ul>
 */
public final class HostileTraffic {
    private final HostileLink link;
    private final UnaryOperator<byte[]> seal;
    private final MessageCore core;
    private final long[] now = {1};
    private final long step;
    private final MemorySegment message;
    private final MessageHandler check;
    private long delivered;
    private long accepted;

    /**
     * @param link    the link the core sits on
     * @param newCore builds the core on that link, reading time from the supplier
     * @param step    the longest time step the script may take (e.g. twice the retransmission timeout)
     */
    public HostileTraffic(HostileLink link, Function<LongSupplier, MessageCore> newCore, long step) {
        this(link, newCore, step, UnaryOperator.identity());
    }

    /**
     * @param seal makes the fuzzer's bytes pass the core's integrity check (e.g. writes the right CRC), applied to
     *             the frames the script marks, so the fuzzer reaches the state machine behind that check
     */
    public HostileTraffic(HostileLink link, Function<LongSupplier, MessageCore> newCore, long step,
                          UnaryOperator<byte[]> seal) {
        this.seal = seal;
        this.link = link;
        this.core = newCore.apply(() -> now[0]);
        this.step = step;
        this.message = Arena.ofAuto().allocate(Math.max(1, core.maxMessage()), 8);
        this.check = (peer, data, offset, length) -> {
            delivered++;
            assertTrue(peer > 0 && peer < link.peers(), "delivered from peer " + peer);
            assertTrue(length >= 0 && length <= core.maxMessage(),
                    "delivered " + length + " bytes, maxMessage " + core.maxMessage());
            assertTrue(offset >= 0 && offset + length <= data.byteSize(),
                    "delivered [" + offset + ", +" + length + ") of a " + data.byteSize() + "-byte segment");
        };
    }

    /** @return the core under test */
    public MessageCore core() {
        return core;
    }

    /** Runs the fuzzer's script, then {@link #drain}. */
    public void run(FuzzedDataProvider script, int maxSteps) {
        for (int i = 0; i < maxSteps && script.remainingBytes() > 0; i++) {
            switch (script.consumeInt(0, 4)) {
                case 0 -> {
                    int from = script.consumeInt(1, link.peers() - 1);
                    boolean sealed = script.consumeBoolean();
                    byte[] frame = script.consumeBytes(script.consumeInt(0, link.mtu()));
                    link.inject(from, sealed ? seal.apply(frame) : frame);
                }
                case 1 -> offer(script.consumeInt(1, link.peers() - 1), script.consumeInt(0, core.maxMessage()));
                case 2 -> link.poll(core, 64);
                case 3 -> advance(script.consumeLong(0, step));
                default -> core.deliver(check, 64);
            }
            assertTrue(core.bufferedMessages() <= core.bufferCapacity(),
                    core.bufferedMessages() + " messages held, capacity " + core.bufferCapacity());
        }
        drain();
    }

    private void offer(int peer, int length) {
        int r = core.offer(peer, message, 0, length);
        if (r == MessageChannel.OK) {
            accepted++;
        } else if (r != MessageChannel.BACK_PRESSURE) {
            fail("offer returned " + r);
        }
    }

    private void advance(long nanos) {
        now[0] += nanos;
        if (core.nextDeadline() <= now[0]) {
            core.onTimer();
            long next = core.nextDeadline();
            assertTrue(next > now[0], "after onTimer at " + now[0] + " the core asks for " + next);
        }
    }

    /**
     * Hands up every frame still queued, takes every message, lets the timers run out, and checks that the core
     * holds no received frame any more.
     */
    public void drain() {
        for (int round = 0; round < 8; round++) {
            link.poll(core, Integer.MAX_VALUE);
            while (core.deliver(check, 64) > 0) {
                // take everything
            }
            advance(step);
        }
        assertEquals(0, link.held(), "receive frames the core never gave back");
        if (accepted == 0 && core instanceof BufferAudit audit) {
            assertNull(audit.leaks(), "buffers held after hostile frames alone");
        }
    }

    /** @return messages delivered so far */
    public long delivered() {
        return delivered;
    }
}
