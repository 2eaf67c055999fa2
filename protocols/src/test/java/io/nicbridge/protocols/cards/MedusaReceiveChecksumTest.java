package io.nicbridge.protocols.cards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.medusa.MedusaConfig;
import io.nicbridge.bridge.driver.medusa.MedusaLink;
import io.nicbridge.bridge.driver.medusa.MedusaReceiveChecksum;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.protocols.dst.CStarWorkload;
import io.nicbridge.protocols.careful.CarefulConfig;
import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.careful.CarefulWire;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fault.FaultPlan;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Medusa's receive checksum (RXCK, docs/hardware-facts.md C.2) through {@link MedusaReceiveChecksum}: the card's
 * sum equals the host's over the same payload bytes (either lane parity of RXCK_START), and the careful core uses it,
 * so per received frame the host sums only the header bytes before RXCK_START - nothing summed twice, nothing
 * unsummed.
 */
class MedusaReceiveChecksumTest {
    @ParameterizedTest
    @ValueSource(ints = {21, 22, 13})
    void theCardsSumIsTheHostsSumOfTheCoveredPayload(int rxckStart) {
        try (MedusaRing ring = new MedusaRing(2, EngineMode.VIRTUAL, 5, FaultPlan.NONE,
                b -> b.receiveChecksumStart(rxckStart))) {
            Link[] links = ring.links();
            MedusaReceiveChecksum card = links[1].capability(MedusaReceiveChecksum.class);
            assertNotNull(card);
            assertEquals(rxckStart - MedusaLink.HEADER, card.coveredFrom());
            for (int length : new int[] {card.coveredFrom() + 1, 57, 400, 1001}) {
                int h = links[0].claim(1);
                MemorySegment f = links[0].txBuffer(h);
                for (int i = 0; i < length; i++) {
                    f.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 37 + length));
                }
                links[0].commit(h, length);
                ring.virtualTime().runUntilIdle();
                int[] got = new int[2];
                assertEquals(1, links[1].poll(new LinkHandler() {
                    @Override
                    public void onFrame(Link l, int rx) {
                    got[0] = card.payloadSum(rx);
                    MemorySegment in = l.rxBuffer(rx);
                    long sum = 0;
                    for (int i = card.coveredFrom(); i < l.rxLength(rx); i++) {
                        int b = in.get(ValueLayout.JAVA_BYTE, i) & 0xFF;
                        sum += (i & 1) == 0 ? b << 8 : b; // payload lanes: an even offset is the high byte
                    }
                    got[1] = fold(sum);
                    l.release(rx);
                    }

                    @Override
                    public void onWritable(Link l) {
                    }
                }, 1));
                assertEquals(got[1], got[0], "length " + length + ", RXCK_START " + rxckStart);
                assertThrows(IllegalStateException.class, () -> card.payloadSum(0), "a handle not held is refused");
            }
        }
    }

    @Test
    void offeredOnlyWhenTheCardSumsFromThePayloadOn() {
        try (MedusaRing off = new MedusaRing(2, EngineMode.VIRTUAL, 5, FaultPlan.NONE, b -> b.receiveChecksum(false));
             MedusaRing inHeader = new MedusaRing(2, EngineMode.VIRTUAL, 5, FaultPlan.NONE,
                     b -> b.receiveChecksumStart(7))) {
            assertNull(off.links()[0].capability(MedusaReceiveChecksum.class));
            assertNull(inHeader.links()[0].capability(MedusaReceiveChecksum.class), "RXCK_START inside DA/SA");
        }
    }

    /**
     * Two Medusas exchanging 400-byte fragments: with RXCK the careful core's CHECKSUM units are the 20-byte header
     * of every frame sent (single copy: the card sums the payload) plus 8 bytes of every frame received; without it
     * they are the header sent plus the whole frame received. Each received frame costs one PIO word more with RXCK.
     */
    @Test
    void theCarefulCoreSumsOnlyWhatTheCardDoesNot() {
        Count with = exchange(b -> b);
        Count without = exchange(b -> b.receiveChecksum(false));
        long covered = MedusaConfig.builder().build().receiveChecksumStart() - MedusaLink.HEADER;
        assertEquals(CarefulWire.HEADER * with.frames() + covered * with.frames(), with.checksumUnits(), with::toString);
        assertEquals(CarefulWire.HEADER * without.frames() + CarefulWire.HEADER * without.frames()
                + 400L * without.dataFrames(), without.checksumUnits(), without::toString);
        assertTrue(with.frames() > 100, with::toString);
    }

    record Count(long frames, long dataFrames, long checksumUnits) {
    }

    private static Count exchange(UnaryOperator<MedusaConfig.Builder> config) {
        try (MedusaRing ring = new MedusaRing(2, EngineMode.VIRTUAL, 7, FaultPlan.NONE, config)) {
            VirtualTimeBase vt = ring.virtualTime();
            CarefulCore[] cores = new CarefulCore[2];
            HostCpu[] cpus = HostCpu.forNodes(2, CostTable.zero(), vt);
            CStarWorkload app = new CStarWorkload(2, 40, 3, 400, 2, CStarWorkload.all(CStarWorkload.Pattern.RING, 40),
                    true);
            NodeRunner runner = new NodeRunner(vt, ring.links(), cpus, (l, s, cpu) -> cores[l.self()] =
                    new CarefulCore(l, CarefulConfig.defaults().withReceiveBuffers(56).withEventSlots(64), cpu), app,
                    NodeSlowness.NONE);
            app.start(vt, runner);
            assertTrue(vt.runUntil(app::isDone, vt.nanoTime() + TimeUnit.SECONDS.toNanos(10)), app::progress);
            assertEquals(0, app.errors(), () -> app.firstError());
            long frames = 0;
            long data = 0;
            for (CarefulCore c : cores) {
                assertEquals(0, c.violations());
                frames += c.dataFramesSent() + c.updateFramesSent();
                data += c.dataFramesSent();
            }
            return new Count(frames, data, cpus[0].units(CostItem.CHECKSUM) + cpus[1].units(CostItem.CHECKSUM));
        }
    }

    private static int fold(long sum) {
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }
}
