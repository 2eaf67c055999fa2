package io.nicbridge.bench.simtest;

import io.nicbridge.bridge.link.ForwardingLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.link.PacketClasses;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A fabric node's link that records every frame its NI hands up to a pcap file (the layout is
 * {@link FabricSimMedium}'s), then passes it on unchanged. The fabric simulates flits, not bytes, so its frames exist
 * only at the links: this is where the medium's capture can see them. Only made for a run with a capture; allocates
 * nothing per frame (one record buffer per link).
 */
final class FabricCaptureLink extends ForwardingLink {
    static final int HEADER_BYTES = 8;
    static final int VERSION = 1;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final PacketClasses classes;
    private final TimeBase time;
    private final PcapWriter capture;
    private final MemorySegment record;
    private final LinkHandler recorder = new LinkHandler() {
        @Override
        public void onFrame(Link link, int rxHandle) {
            record(rxHandle);
            downstream.onFrame(FabricCaptureLink.this, rxHandle);
        }

        @Override
        public void onWritable(Link link) {
            downstream.onWritable(FabricCaptureLink.this);
        }
    };
    private LinkHandler downstream;

    FabricCaptureLink(Link inner, TimeBase time, PcapWriter capture) {
        super(inner);
        this.classes = inner.capability(PacketClasses.class);
        this.time = time;
        this.capture = capture;
        this.record = MemorySegment.ofArray(new byte[HEADER_BYTES + inner.mtu()]);
    }

    private void record(int rx) {
        int length = inner.rxLength(rx);
        record.set(U16, 0, (short) inner.rxPeer(rx));
        record.set(U16, 2, (short) inner.self());
        record.set(ValueLayout.JAVA_BYTE, 4, (byte) (classes == null ? Network.REQUEST : classes.rxClass(rx)));
        record.set(ValueLayout.JAVA_BYTE, 5, (byte) VERSION);
        record.set(U16, 6, (short) length);
        MemorySegment.copy(inner.rxBuffer(rx), 0, record, HEADER_BYTES, length);
        capture.record(time.nanoTime(), record, 0, HEADER_BYTES + length, HEADER_BYTES + length);
    }

    @Override
    public int poll(LinkHandler handler, int limit) {
        downstream = handler;
        return inner.poll(recorder, limit);
    }

    @Override
    public String toString() {
        return inner + " (captured)";
    }
}
