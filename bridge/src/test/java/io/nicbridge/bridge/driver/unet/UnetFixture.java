package io.nicbridge.bridge.driver.unet;

import io.nicbridge.bridge.memory.CommSegment;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/** One contract-level card with its kernel driver; endpoints with their own segments; closes everything. */
final class UnetFixture implements AutoCloseable {
    final ContractFirmware card = new ContractFirmware();
    final UnetKernelDriver kernel = card.driver();
    private final List<CommSegment> segments = new ArrayList<>();

    CommSegment segment(String name, long size) {
        CommSegment s = CommSegment.allocate(name, size);
        segments.add(s);
        return s;
    }

    UnetEndpoint endpoint(int id, long segmentSize) {
        return kernel.createEndpoint(id, segment("seg" + id, segmentSize), 16);
    }

    /** Opens a duplex channel pair between two endpoints through the loopback "switch". */
    void connect(UnetEndpoint a, int chanA, UnetEndpoint b, int chanB, int vciAtoB, int vciBtoA) {
        kernel.openChannel(a, chanA, 0, vciAtoB, vciBtoA);
        kernel.openChannel(b, chanB, 0, vciBtoA, vciAtoB);
        card.connect(vciAtoB, vciAtoB);
        card.connect(vciBtoA, vciBtoA);
    }

    static void fill(MemorySegment s, long at, int length, int seed) {
        for (int i = 0; i < length; i++) {
            s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at + i, (byte) (seed + i * 7));
        }
    }

    static byte[] bytes(MemorySegment s, long at, int length) {
        return s.asSlice(at, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    @Override
    public void close() {
        kernel.close();
        for (CommSegment s : segments) {
            s.close();
        }
        card.close();
    }
}
