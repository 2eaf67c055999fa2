package io.nicbridge.sim.sba200;

import io.nicbridge.bridge.queue.UnetFreeQueue;
import io.nicbridge.bridge.queue.UnetReceiveQueue;
import io.nicbridge.bridge.queue.UnetSendQueue;
import io.nicbridge.sim.atm.AtmSwitch;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.Engines;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/** Test world: two SBA-200s on a 2-port switch, one endpoint each, one channel between them. */
final class Pair implements AutoCloseable {
    static final int SEGMENT = 64 * 1024;

    final Arena arena = Arena.ofShared();
    final DeviceEngine engine;
    final Sba200Network net;
    final Sba200Card a;
    final Sba200Card b;
    final Sba200Endpoint ea;
    final Sba200Endpoint eb;
    final UnetKernel.Connection conn;
    final Side sa;
    final Side sb;

    Pair(EngineMode mode, Sba200Timing timing, Consumer<AtmSwitch.Builder> sw) {
        this(mode, timing, sw, 64);
    }

    Pair(EngineMode mode, Sba200Timing timing, Consumer<AtmSwitch.Builder> sw, int rqLen) {
        engine = Engines.create(mode, 42, mode == EngineMode.THREADED ? new io.nicbridge.sim.engine.BackoffIdle() : null);
        net = Sba200Network.create(engine, sw).timing(timing);
        a = net.addCard("a");
        b = net.addCard("b");
        ea = net.kernel(a).createEndpoint(arena.allocate(SEGMENT, 64), rqLen);
        eb = net.kernel(b).createEndpoint(arena.allocate(SEGMENT, 64), rqLen);
        conn = net.connect(a, ea, b, eb);
        sa = new Side(ea, conn.channelA());
        sb = new Side(eb, conn.channelB());
    }

    static Pair inline() {
        return new Pair(EngineMode.INLINE, Sba200Timing.WIRE_ONLY, s -> s.ports(2));
    }

    VirtualTimeEngine virtual() {
        return (VirtualTimeEngine) engine;
    }

    /** Runs the engine until idle in virtual time; polls it otherwise. */
    void settle() {
        if (engine instanceof VirtualTimeEngine v) {
            v.runUntilIdle();
        } else {
            engine.poll();
        }
    }

    @Override
    public void close() {
        net.close();
        engine.close();
        arena.close();
    }

    /** The process side of one endpoint. */
    static final class Side {
        final Sba200Endpoint ep;
        final int channel;
        final UnetSendQueue sq;
        final UnetFreeQueue fq;
        final UnetReceiveQueue rq;
        final MemorySegment seg;

        Side(Sba200Endpoint ep, int channel) {
            this.ep = ep;
            this.channel = channel;
            this.sq = new UnetSendQueue(ep.page());
            this.fq = new UnetFreeQueue(ep.page());
            this.rq = new UnetReceiveQueue(ep.receiveQueue(), 0, ep.receiveQueueLength(), ep.page());
            this.seg = ep.segment();
        }

        boolean sendInline(byte[] data) {
            MemorySegment src = MemorySegment.ofArray(data);
            boolean ok = sq.offerInline(channel, src, 0, data.length);
            ep.doorbell();
            return ok;
        }

        /** Copies data into the segment at offset and sends it from there as one buffer. */
        boolean send(int offset, byte[] data) {
            MemorySegment.copy(MemorySegment.ofArray(data), 0, seg, offset, data.length);
            boolean ok = sq.offer(channel, offset, data.length);
            ep.doorbell();
            return ok;
        }

        /** Posts n free buffers of size bytes starting at offset. */
        void postBuffers(int offset, int n, int size) {
            for (int i = 0; i < n; i++) {
                if (!fq.offer(offset + i * size, size)) {
                    throw new IllegalStateException("free queue full");
                }
            }
        }

        /** Gathers a received message's bytes (inline or buffers). */
        byte[] payload(long d) {
            int len = rq.length(d);
            byte[] out = new byte[len];
            MemorySegment dst = MemorySegment.ofArray(out);
            if (rq.isInline(d)) {
                rq.copyInline(d, dst, 0, len);
                return out;
            }
            int at = 0;
            for (int i = 0; i < rq.nbufs(d); i++) {
                int bl = rq.bufferLength(d, i);
                MemorySegment.copy(seg, Integer.toUnsignedLong(rq.bufferOffset(d, i)), dst, at, bl);
                at += bl;
            }
            return out;
        }
    }

    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 7);
        }
        return b;
    }
}
