package io.nicbridge.protocols.core;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.FragmentHandler;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Drives one C* network layer (node 0 of a {@link HostileLink}) with a script the fuzzer writes: frames of any bytes
 * from any peer, its own sends (events rising, as the API demands), receives of any event from any or one source,
 * polls and the passing of time. Whatever the script, the core must
 * <ul>
 *   <li>throw nothing (the sends here are always legal; frames, receives and timers have no documented exception),</li>
 *   <li>answer a send with {@link CStarNetwork#OK} or {@link CStarNetwork#BACK_PRESSURE} and a receive with one of
 *       its four statuses, the handler called exactly when a fragment was handed over,</li>
 *   <li>hand up only fragments of {@code [0, maxFragment()]} bytes within their segment, from a real peer, of the
 *       event asked for and with the status the receive returned,</li>
 *   <li>never count violations backwards and never hold more messages than its {@link ProtocolCore#bufferCapacity()},</li>
 *   <li>after {@link ProtocolCore#onTimer()}, ask for a deadline in the future.</li>
 * </ul>
 * (Holding arrived frames is not checked: a C* core keeps a fragment until the application asks for its event, and
 * a hostile peer may name events the application never asks for.)
 */
public final class HostileCStarTraffic {
    private final HostileLink link;
    private final CStarNetwork core;
    private final long[] now;
    private final long step;
    private final MemorySegment fragment;
    private int nextEvent;
    /** Nodes sent the last fragment of {@code nextEvent}: they take nothing more of it. */
    private long lastSent;
    private int askedEvent;
    private int askedSource;
    private int handed;
    private int handedStatus;

    /**
     * @param link the link the core sits on
     * @param core the core, reading time from {@code now[0]} (when it reads time at all)
     * @param now  the clock the script advances
     * @param step the longest time step the script may take
     */
    public HostileCStarTraffic(HostileLink link, CStarNetwork core, long[] now, long step) {
        this.link = link;
        this.core = core;
        this.now = now;
        this.step = step;
        this.fragment = Arena.ofAuto().allocate(Math.max(1, core.maxFragment()), 8);
    }

    private final FragmentHandler check = this::onFragment;

    private void onFragment(int src, int event, int status, MemorySegment data, long offset, int length) {
        handed++;
        handedStatus = status;
        assertTrue(src > 0 && src < link.peers(), "fragment from node " + src);
        assertTrue(askedSource == CStarNetwork.ANY || src == askedSource, "asked for node " + askedSource + ", got " + src);
        assertTrue(event == askedEvent, "asked for event " + askedEvent + ", got " + event);
        assertTrue(length >= 0 && length <= core.maxFragment(), "fragment of " + length + " bytes");
        assertTrue(offset >= 0 && offset + length <= data.byteSize(),
                "fragment [" + offset + ", +" + length + ") of a " + data.byteSize() + "-byte segment");
    }

    /** Runs the fuzzer's script. */
    public void run(FuzzedDataProvider script, int maxSteps) {
        long violations = core.violations();
        for (int i = 0; i < maxSteps && script.remainingBytes() > 0; i++) {
            switch (script.consumeInt(0, 4)) {
                case 0 -> link.inject(script.consumeInt(1, link.peers() - 1),
                        script.consumeBytes(script.consumeInt(0, link.mtu())));
                case 1 -> send(script);
                case 2 -> receive(script.consumeBoolean() ? CStarNetwork.ANY : script.consumeInt(1, link.peers() - 1),
                        script.consumeInt(0, 7));
                case 3 -> link.poll(core, 64);
                default -> advance(script.consumeLong(0, step));
            }
            assertTrue(core.violations() >= violations, "violations went back");
            violations = core.violations();
            assertTrue(core.bufferedMessages() <= core.bufferCapacity(),
                    core.bufferedMessages() + " messages held, capacity " + core.bufferCapacity());
        }
    }

    private void send(FuzzedDataProvider script) {
        int dst = script.consumeInt(1, link.peers() - 1);
        int skip = script.consumeInt(0, 2);
        if (skip > 0 || (lastSent & 1L << dst) != 0) {
            nextEvent += Math.max(1, skip);
            lastSent = 0;
        }
        boolean last = script.consumeBoolean();
        int r = core.send(dst, nextEvent, fragment, 0, script.consumeInt(0, core.maxFragment()),
                last ? CStarNetwork.LAST_FRAG : 0);
        if (r == CStarNetwork.OK && last) {
            lastSent |= 1L << dst;
        }
        if (r != CStarNetwork.OK && r != CStarNetwork.BACK_PRESSURE) {
            fail("send returned " + r);
        }
    }

    private void receive(int source, int event) {
        askedSource = source;
        askedEvent = event;
        int before = handed;
        int r = core.receive(source, event, check);
        if (r == CStarNetwork.NOTHING) {
            assertTrue(handed == before, "NOTHING, yet a fragment was handed over");
        } else if (r == CStarNetwork.MORE || r == CStarNetwork.NODE_DONE || r == CStarNetwork.EVENT_DONE) {
            assertTrue(handed == before + 1 && handedStatus == r, "status " + r + " for " + (handed - before)
                    + " fragments handed over with status " + handedStatus);
        } else {
            fail("receive returned " + r);
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
}
