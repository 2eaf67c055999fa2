package io.nicbridge.protocols.am;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Clock;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;

/**
 * Active Messages as a {@link MessageCore}, so that the simulation tester's message workload drives the whole of
 * {@link AmCore}: {@link #offer} is a block store of the message into a mailbox of the receiver's memory (one per
 * sender), {@link #deliver} is {@link AmCore#poll}, and the store handler hands the mailbox to the application.
 * Messages longer than a buffer move in several chunks; the store handler replies to every message whose first byte
 * is even (a reply handler counts them) and leaves the others to the explicit acknowledgement, so both ways of
 * answering a request run in every schedule.
 */
public final class AmMessageChannel implements MessageCore {
    static final int STORED = 1;
    static final int REPLIED = 2;

    private final AmCore am;
    private final int maxMessage;
    private final int self;
    private MessageHandler sink;
    private int delivered;
    private long replies;

    /** @param maxMessage the largest message: each node's memory holds one mailbox of this size per node */
    public AmMessageChannel(Link link, Clock clock, AmConfig config, HostCpu cpu, int maxMessage) {
        if (maxMessage < 1 || maxMessage > config.maxTransfer()) {
            throw new IllegalArgumentException("maxMessage must be in [1, " + config.maxTransfer()
                    + "] (w buffers), was " + maxMessage);
        }
        AmConfig sized = new AmConfig(config.window(), config.bufferBytes(), config.rtoNanos(),
                config.ackDelayNanos(), link.peers() * maxMessage);
        this.am = new AmCore(link, clock, sized, cpu);
        this.maxMessage = maxMessage;
        this.self = link.self();
        am.register(STORED, (token, address, nbytes, arg, unused) -> {
            delivered++;
            sink.onMessage(token.source(), am.memory(), address, nbytes);
            if (arg == 0) {
                am.reply(token, REPLIED, address, nbytes, 0, 0);
            }
        });
        am.register(REPLIED, (token, a0, a1, a2, a3) -> replies++);
    }

    @Override
    public int offer(int peer, MemorySegment src, long offset, int length) {
        if (length < 0 || length > maxMessage) {
            throw new IllegalArgumentException("message length must be in [0, " + maxMessage + "], was " + length);
        }
        int replyWanted = length > 0 && (src.get(ValueLayout.JAVA_BYTE, offset) & 1) == 0 ? 0 : 1;
        return am.store(peer, src, offset, self * maxMessage, length, STORED, replyWanted) == AmCore.OK
                ? OK : BACK_PRESSURE;
    }

    @Override
    public int deliver(MessageHandler handler, int limit) {
        sink = handler;
        int before = delivered;
        try {
            am.poll(limit);
        } finally {
            sink = null;
        }
        return delivered - before;
    }

    @Override
    public int maxMessage() {
        return maxMessage;
    }

    /** @return replies this node's stores received */
    public long replies() {
        return replies;
    }

    public AmCore core() {
        return am;
    }

    @Override
    public void onFrame(Link from, int rxHandle) {
        am.onFrame(from, rxHandle);
    }

    @Override
    public void onWritable(Link from) {
        am.onWritable(from);
    }

    @Override
    public void onTimer() {
        am.onTimer();
    }

    @Override
    public long nextDeadline() {
        return am.nextDeadline();
    }

    @Override
    public Set<Guarantee> guarantees() {
        return am.guarantees();
    }

    @Override
    public int bufferedMessages() {
        return am.bufferedMessages();
    }

    @Override
    public int bufferCapacity() {
        return am.bufferCapacity();
    }

    @Override
    public String toString() {
        return "active messages channel: " + am;
    }
}
