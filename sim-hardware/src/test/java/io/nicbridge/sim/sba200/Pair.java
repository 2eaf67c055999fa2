package io.nicbridge.sim.sba200;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.sim.atm.AtmSwitch;
import io.nicbridge.sim.engine.DeviceEngine;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.testbed.UnetApiTestbed;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * Test access to a {@link UnetApiTestbed} (two SBA-200s on a switch, one endpoint each, one channel between them):
 * the cards, each endpoint as a {@link Side} with byte[] helpers, and settling the engine. The world is the
 * testbed's; this class adds only what the card tests reach for.
 */
final class Pair implements AutoCloseable {
    static final int SEGMENT = 64 * 1024;

    final UnetApiTestbed bed;
    final DeviceEngine engine;
    final Sba200Card a;
    final Sba200Card b;
    final Side sa;
    final Side sb;

    Pair(EngineMode mode, Sba200Timing timing, Consumer<AtmSwitch.Builder> sw) {
        this(mode, timing, sw, 64);
    }

    Pair(EngineMode mode, Sba200Timing timing, Consumer<AtmSwitch.Builder> sw, int rqLen) {
        bed = UnetApiTestbed.builder(mode).seed(42).timing(timing).switchOptions(sw).receiveQueue(rqLen)
            .segmentBytes(SEGMENT).build();
        engine = bed.engine();
        a = bed.cardA();
        b = bed.cardB();
        sa = new Side(bed.a(), UnetApiTestbed.CHANNEL);
        sb = new Side(bed.b(), UnetApiTestbed.CHANNEL);
    }

    static Pair inline() {
        return new Pair(EngineMode.INLINE, Sba200Timing.WIRE_ONLY, s -> s.ports(2));
    }

    VirtualTimeEngine virtual() {
        return bed.virtualEngine();
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
        bed.close();
    }

    /** The process side of one endpoint: the bridge's {@link UnetEndpoint} and a few byte[] helpers. */
    static final class Side {
        final UnetEndpoint ep;
        final int channel;
        final MemorySegment seg;

        Side(UnetEndpoint ep, int channel) {
            this.ep = ep;
            this.channel = channel;
            this.seg = ep.segment();
        }

        boolean sendInline(byte[] data) {
            return ep.sendInline(channel, MemorySegment.ofArray(data), 0, data.length);
        }

        /** Copies data into the segment at offset and sends it from there as one buffer. */
        boolean send(int offset, byte[] data) {
            MemorySegment.copy(MemorySegment.ofArray(data), 0, seg, offset, data.length);
            return ep.send(channel, offset, data.length);
        }

        /** Posts n free buffers of size bytes starting at offset (raw entries: the card checks them). */
        void postBuffers(int offset, int n, int size) {
            for (int i = 0; i < n; i++) {
                if (!ep.offerFreeBufferUnchecked(offset + i * size, size)) {
                    throw new IllegalStateException("free queue full");
                }
            }
        }

        /** Gathers a received message's bytes (inline or buffers). */
        byte[] payload(long d) {
            byte[] out = new byte[ep.length(d)];
            ep.copyTo(d, MemorySegment.ofArray(out), 0);
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
