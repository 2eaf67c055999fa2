package io.nicbridge.protocols.gbn;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Clock;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.core.MessageCore;
import io.nicbridge.protocols.core.MessageHandler;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Negative control, test-only: a go-back-N receiver that accepts whatever DATA frame comes next (out of order, or a
 * duplicate) as if it were the one expected. It renumbers each intact DATA frame to the next sequence number of its
 * sender before the real core sees it, so the core's own checks pass. The simulation tester must catch the broken
 * order or the duplicate.
 */
public final class GullibleGoBackN implements MessageCore {
    private final GoBackNCore inner;
    private final int[] next;
    private final CRC32C crc = new CRC32C();
    private final byte[] frame;

    public GullibleGoBackN(Link link, Clock clock, GoBackNConfig config, HostCpu cpu) {
        inner = new GoBackNCore(link, clock, config, cpu);
        next = new int[link.peers()];
        frame = new byte[link.mtu()];
    }

    @Override
    public void onFrame(Link link, int h) {
        int length = link.rxLength(h);
        MemorySegment buf = link.rxBuffer(h);
        if (length >= GoBackNWire.HEADER && buf.get(ValueLayout.JAVA_BYTE, GoBackNWire.OFF_TYPE) == GoBackNWire.DATA) {
            MemorySegment copy = MemorySegment.ofArray(frame);
            MemorySegment.copy(buf, 0, copy, 0, length);
            int payload = length - GoBackNWire.HEADER;
            if (copy.get(GoBackNWire.U32, GoBackNWire.OFF_CRC) == GoBackNWire.crc(crc, frame, payload)) {
                int peer = link.rxPeer(h);
                buf.set(GoBackNWire.U32, GoBackNWire.OFF_SEQ, next[peer]++);
                MemorySegment.copy(buf, 0, copy, 0, length);
                buf.set(GoBackNWire.U32, GoBackNWire.OFF_CRC, GoBackNWire.crc(crc, frame, payload));
            }
        }
        inner.onFrame(link, h);
    }

    @Override
    public void onWritable(Link link) {
        inner.onWritable(link);
    }

    @Override
    public void onTimer() {
        inner.onTimer();
    }

    @Override
    public long nextDeadline() {
        return inner.nextDeadline();
    }

    @Override
    public Set<Guarantee> guarantees() {
        return inner.guarantees();
    }

    @Override
    public int bufferedMessages() {
        return inner.bufferedMessages();
    }

    @Override
    public int bufferCapacity() {
        return inner.bufferCapacity();
    }

    @Override
    public int offer(int peer, MemorySegment src, long offset, int length) {
        return inner.offer(peer, src, offset, length);
    }

    @Override
    public int deliver(MessageHandler handler, int limit) {
        return inner.deliver(handler, limit);
    }

    @Override
    public int maxMessage() {
        return inner.maxMessage();
    }
}
