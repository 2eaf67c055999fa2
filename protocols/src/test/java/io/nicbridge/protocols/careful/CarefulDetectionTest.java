package io.nicbridge.protocols.careful;

import io.nicbridge.protocols.dst.CStarWorkload;

import static io.nicbridge.protocols.dst.CStarWorkload.Pattern.CROWD;
import static io.nicbridge.protocols.dst.CStarWorkload.Pattern.RING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.sim.FrameFate;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The careful protocol trusts the ring, so it must notice when the ring breaks that trust: a dropped, duplicated or
 * corrupted frame, a frame from a stranger. Each is counted in {@code violations()} and nothing wrong reaches the
 * application (the workload checks every byte and every status, and that no fragment is delivered twice).
 */
class CarefulDetectionTest {
    static final long SECOND = 1_000_000_000L;

    /** Applies {@code fault} to the n-th frame node {@code from} commits (0-based, data or update). */
    static FrameFaults nthFrameOf(int from, int n, Consumer<FrameFate> fault) {
        int[] count = {0};
        return (index, source, destination, now, fate) -> {
            if (source == from && count[0]++ == n) {
                fault.accept(fate);
            }
        };
    }

    static CarefulWorld world(FrameFaults faults, CStarWorkload app) {
        return new CarefulWorld(11, CarefulConfig.defaults().withReceiveBuffers(16).withEventSlots(16)
                .withHostBuffers(32), faults, app);
    }

    @Test
    void aDroppedFrameIsReportedAsAGapAndNothingWrongIsDelivered() {
        CStarWorkload app = new CStarWorkload(2, 20, 2, 16, 1, CStarWorkload.all(RING, 20), false);
        CarefulWorld w = world(nthFrameOf(0, 5, f -> f.drop = true), app);
        assertFalse(w.run(SECOND), "the lost fragment never arrives: its event cannot complete");
        assertEquals(1, w.medium.faultDrops());
        assertEquals(1, w.violations(CarefulViolation.GAP), w::state);
        assertEquals(1, w.violations(), "the gap is all that went wrong");
        assertEquals(0, w.app.errors(), () -> w.app.firstError());
        assertTrue(w.app.deliveredTotal() > 0);
    }

    @Test
    void aLostBroadcastShowsAtTheSendersNextFrame() {
        CStarWorkload app = new CStarWorkload(3, 10, 1, 16, 2, CStarWorkload.all(CROWD, 10), true);
        CarefulWorld w = world(nthFrameOf(1, 2, f -> f.drop = true), app);
        assertFalse(w.run(SECOND));
        assertTrue(w.violations(CarefulViolation.GAP) >= 2, "both receivers of the lost broadcast notice: " + w.state());
        assertEquals(0, w.app.errors(), () -> w.app.firstError());
    }

    @Test
    void aDuplicatedFrameIsReportedAndDeliveredOnce() {
        CStarWorkload app = new CStarWorkload(2, 20, 2, 16, 1, CStarWorkload.all(RING, 20), false);
        CarefulWorld w = world(nthFrameOf(0, 5, f -> f.duplicateAfterNanos = 3_000), app);
        assertTrue(w.run(SECOND), w::state);
        assertEquals(1, w.violations(CarefulViolation.DUPLICATE));
        assertEquals(1, w.violations());
        assertEquals(0, w.app.errors(), () -> w.app.firstError());
        assertEquals(w.app.expectedTotal(), w.app.deliveredTotal(), "every fragment once, the copy dropped");
    }

    @Test
    void aCorruptedPayloadFailsTheChecksumAndIsNotDelivered() {
        CStarWorkload app = new CStarWorkload(2, 20, 2, 16, 1, CStarWorkload.all(RING, 20), false);
        CarefulWorld w = world(nthFrameOf(0, 5, f -> f.corruptOffset = CarefulWire.HEADER + 7), app);
        assertFalse(w.run(SECOND), "the damaged fragment is lost to the application");
        assertEquals(1, w.violations(CarefulViolation.BAD_CHECKSUM), w::state);
        assertEquals(1, w.violations(CarefulViolation.GAP), "and its absence shows at the next frame");
        assertEquals(0, w.app.errors(), () -> w.app.firstError());
    }

    @Test
    void aCorruptedHeaderFailsTheChecksumToo() {
        CStarWorkload app = new CStarWorkload(2, 20, 2, 16, 1, CStarWorkload.all(RING, 20), false);
        CarefulWorld w = world(nthFrameOf(0, 5, f -> {
            f.corruptOffset = CarefulWire.OFF_EVENT + 3;
            f.corruptMask = 4;
        }), app);
        assertFalse(w.run(SECOND));
        assertEquals(1, w.violations(CarefulViolation.BAD_CHECKSUM), w::state);
        assertEquals(0, w.app.errors(), () -> w.app.firstError());
    }

    @Test
    void framesFromStrangersAndOtherProtocolsAreReported() {
        VirtualTimeBase vt = new VirtualTimeBase(1);
        HostCpu[] cpus = HostCpu.forNodes(3, CostTable.zero(), vt);
        InMemoryMedium m = new InMemoryMedium(vt, new InMemoryMedium.Config(3, 100, 4, 16, 0, 0), FrameFaults.NONE,
                cpus);
        CarefulConfig cfg = CarefulConfig.defaults().withReceiveBuffers(8).withEventSlots(4).withClusterNodes(2);
        CarefulCore c0 = new CarefulCore(m.link(0), cfg, cpus[0]);
        CarefulCore c1 = new CarefulCore(m.link(1), cfg, cpus[1]);
        MemorySegment b = MemorySegment.ofArray(new byte[16]);
        // node 2 is not in the 2-node cluster: a well-formed careful frame from it is from a stranger
        CarefulCore stranger = new CarefulCore(m.link(2), CarefulConfig.defaults().withReceiveBuffers(8)
                .withEventSlots(4), cpus[2]);
        assertEquals(CStarNetwork.OK, stranger.send(0, 0, b, 0, 16, CStarNetwork.LAST_FRAG));
        // and, from a member, a frame of another protocol on the same medium and a runt
        Link raw = m.link(1);
        int h = raw.claim(0);
        raw.txBuffer(h).fill((byte) 0x45);
        raw.commit(h, 30);
        h = raw.claim(0);
        raw.commit(h, 3); // a runt
        vt.runUntilIdle();
        m.link(0).poll(c0, 16);
        assertEquals(1, c0.violations(CarefulViolation.UNKNOWN_PEER));
        assertEquals(2, c0.violations(CarefulViolation.MALFORMED));
        assertEquals(3, c0.violations());
        assertEquals(0, c0.bufferedMessages(), "nothing filed");
        // node 1's frames still go through
        assertEquals(CStarNetwork.OK, c1.send(0, 0, b, 0, 16, CStarNetwork.LAST_FRAG));
        vt.runUntilIdle();
        m.link(0).poll(c0, 16);
        int[] got = {-1};
        assertEquals(CStarNetwork.EVENT_DONE, c0.receive(CStarNetwork.ANY, 0, (src, e, st, d, o, l) -> got[0] = src));
        assertEquals(1, got[0]);
    }

    @Test
    void aSenderBeyondItsWindowIsReported() {
        VirtualTimeBase vt = new VirtualTimeBase(1);
        HostCpu[] cpus = HostCpu.forNodes(2, CostTable.zero(), vt);
        InMemoryMedium m = new InMemoryMedium(vt, new InMemoryMedium.Config(2, 100, 16, 16, 0, 0), FrameFaults.NONE,
                cpus);
        CarefulCore c0 = new CarefulCore(m.link(0), CarefulConfig.defaults().withReceiveBuffers(4).withEventSlots(4)
                .withHostBuffers(0), cpus[0]);
        // node 1 believes in a bigger window than node 0 gives (R = 16 instead of 4)
        CarefulCore c1 = new CarefulCore(m.link(1), CarefulConfig.defaults().withReceiveBuffers(16)
                .withEventSlots(4), cpus[1]);
        MemorySegment b = MemorySegment.ofArray(new byte[8]);
        for (int i = 0; i < 4; i++) {
            assertEquals(CStarNetwork.OK, c1.send(0, 0, b, 0, 8, 0));
        }
        vt.runUntilIdle();
        m.link(0).poll(c0, 16);
        assertEquals(2, c0.violations(CarefulViolation.WINDOW_OVERRUN), "frames 3 and 4 exceed the window of 2");
    }

    @Test
    void receiveBuffersAreReadInPlace() {
        CStarWorkload app = new CStarWorkload(2, 4, 1, 16, 0, CStarWorkload.all(RING, 4), false);
        CarefulWorld w = world(FrameFaults.NONE, app);
        assertTrue(w.run(SECOND));
        assertEquals(0, w.violations());
        for (CarefulCore c : w.cores) {
            assertEquals(0, c.copyOuts(), "nothing copied while buffers are plentiful");
        }
    }
}
