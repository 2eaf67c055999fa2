package io.nicbridge.sim.ethernet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.driver.tulip.TulipStatistics.Counter;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Emulated 21140s with Tulip drivers on the half-duplex hub: collisions as the chip and Linux report them. */
class HubTulipTest {
    static boolean send(TulipDriver d, long destination, int seq) {
        int h = d.claim();
        if (h == FramePort.NONE) {
            return false;
        }
        MemorySegment b = d.txBuffer(h);
        for (int i = 0; i < 6; i++) {
            b.set(ValueLayout.JAVA_BYTE, i, (byte) (destination >>> (40 - 8 * i)));
            b.set(ValueLayout.JAVA_BYTE, 6 + i, (byte) (d.stationAddress().value() >>> (40 - 8 * i)));
        }
        b.set(ValueLayout.JAVA_BYTE, 12, (byte) 0x88);
        b.set(ValueLayout.JAVA_BYTE, 13, (byte) 0xB5);
        b.set(ValueLayout.JAVA_INT_UNALIGNED, 14, seq);
        d.commit(h, 60);
        return true;
    }

    static void reclaim(TulipDriver d) {
        int h = d.claim(); // claim reclaims finished descriptors (and counts their TDES0) first
        if (h != FramePort.NONE) {
            d.abort(h);
        }
    }

    /**
     * Four cards each queue 8 broadcast frames at once. The chips collide, back off and get through; each driver
     * counts the TDES0 collision counts of its good frames (Linux: collisions += (status >> 3) & 15) and 16 lost
     * collisions per EC frame, which together are the hub's count of this station's collisions; every good frame
     * reaches the other three.
     */
    @Test
    void cardsReportTheHubsCollisionsInTdes0AndTheDriversCountThem() {
        int nodes = 4;
        int frames = 8;
        try (TulipTestbed bed = TulipTestbed.builder().nodes(nodes).mode(EngineMode.VIRTUAL).seed(5)
                .medium(EthernetMode.HUB).build()) {
            List<AtomicLong> received = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                AtomicLong got = new AtomicLong();
                received.add(got);
                bed.driver(i).onInterrupt((d, csr5) -> {
                    int h;
                    while ((h = d.poll()) != FramePort.NONE) {
                        got.incrementAndGet();
                        d.release(h);
                    }
                });
            }
            for (int f = 0; f < frames; f++) {
                for (int i = 0; i < nodes; i++) {
                    assertTrue(send(bed.driver(i), 0xFFFF_FFFF_FFFFL, i * 100 + f));
                }
            }
            bed.virtualTime().runUntilIdle();
            EthernetSegment hub = bed.wire();
            long good = 0;
            for (int i = 0; i < nodes; i++) {
                TulipDriver d = bed.driver(i);
                reclaim(d);
                long ec = d.statistics().get(Counter.TX_EXCESSIVE_COLLISIONS);
                assertEquals(hub.collisions("dec21140#" + i),
                        d.statistics().get(Counter.TX_COLLISIONS) + 16 * ec, "node " + i);
                assertEquals(ec, hub.excessiveCollisions("dec21140#" + i));
                assertEquals(0, d.statistics().get(Counter.TX_WINDOW));
                good += frames - ec;
            }
            assertTrue(hub.collisions() > 0, "four cards starting together collide");
            long deliveries = 0;
            for (AtomicLong r : received) {
                deliveries += r.get();
            }
            assertEquals(good * (nodes - 1), deliveries);
        }
    }

    /**
     * With a backoff of 0 slots two cards collide until the 16th attempt: each chip closes the descriptor with
     * ES|EC (the driver counts it as aborted and as excessive collisions), nothing is delivered, and the transmit
     * process goes on: the next frame is sent.
     */
    @Test
    void excessiveCollisionsCloseTheDescriptorWithErrorSummaryAndTheChipGoesOn() {
        try (EmulatedTestbed world = EmulatedTestbed.create(EngineMode.VIRTUAL, 1)) {
            EthernetSegment hub = world.ethernet("hub", b -> b.mode(EthernetMode.HUB).backoff((random, n) -> 0));
            TulipDriver a = TulipDriver.open(world.dec21140("a", hub, TulipTestbed.mac(0).toBytes()),
                    TulipConfig.defaults());
            TulipDriver b = TulipDriver.open(world.dec21140("b", hub, TulipTestbed.mac(1).toBytes()),
                    TulipConfig.defaults());
            AtomicLong atB = new AtomicLong();
            b.onInterrupt((d, csr5) -> {
                int h;
                while ((h = d.poll()) != FramePort.NONE) {
                    atB.incrementAndGet();
                    d.release(h);
                }
            });
            world.virtualEngine().runUntilIdle(); // setup frames
            assertTrue(send(a, b.stationAddress().value(), 1));
            assertTrue(send(b, a.stationAddress().value(), 2));
            world.virtualEngine().runUntilIdle();
            reclaim(a);
            reclaim(b);
            for (TulipDriver d : List.of(a, b)) {
                assertEquals(1, d.statistics().get(Counter.TX_EXCESSIVE_COLLISIONS), d.name());
                assertEquals(1, d.statistics().get(Counter.TX_ABORTED), d.name());
                assertEquals(1, d.statistics().get(Counter.TX_ERRORS), d.name());
                assertEquals(0, d.statistics().get(Counter.TX_COLLISIONS), "Linux counts CC of good frames only");
            }
            assertEquals(0, atB.get());
            assertEquals(2, hub.drops(EthernetSegment.DropReason.EXCESSIVE_COLLISIONS));
            assertTrue(send(a, b.stationAddress().value(), 3));
            world.virtualEngine().runUntilIdle();
            reclaim(a);
            assertEquals(1, atB.get(), "alone on the hub, the next frame goes out");
            assertNotEquals(0, a.counters().txFrames());
            a.close();
            b.close();
        }
    }
}
