package io.nicbridge.sim.ethernet;

import static io.nicbridge.sim.testing.TestFrames.fcsOk;
import static io.nicbridge.sim.testing.TestFrames.frame;
import static io.nicbridge.sim.testing.TestFrames.mac;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testing.ManualVirtualTime;
import io.nicbridge.sim.testing.TestFrames.Recorder;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/** Properties of the virtual-time segment over arbitrary transmit patterns. */
class EthernetSegmentPropertyTest {
    /** One transmit: which station, how long a frame, how long after the previous transmit. */
    record Tx(int station, int length, long gapNanos) {}

    @Provide
    Arbitrary<List<Tx>> traffic() {
        Arbitrary<Tx> tx = Combinators.combine(
                Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(64, 1518),
                Arbitraries.longs().between(0, 150_000)).as(Tx::new);
        return tx.list().ofMinSize(1).ofMaxSize(60);
    }

    static final class World {
        final ManualVirtualTime vt = new ManualVirtualTime();
        final EthernetSegment wire;
        final Recorder[] rx = new Recorder[4];
        final WirePort[] ports = new WirePort[4];
        final List<byte[]> sent = new ArrayList<>();
        final List<Integer> senders = new ArrayList<>();
        final List<Long> starts = new ArrayList<>();

        World(FaultPlan plan, List<Tx> traffic) {
            wire = EthernetSegment.builder(vt).faults(plan).build();
            for (int s = 0; s < 4; s++) {
                rx[s] = new Recorder(vt);
                ports[s] = wire.attach("s" + s, rx[s]);
            }
            long t = 0;
            long mediumFree = 0;
            int seq = 0;
            for (Tx x : traffic) {
                t += x.gapNanos();
                vt.runUntil(t);
                vt.advanceTo(t);
                byte[] f = frame(mac(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF), mac(2, 0, 0, 0, 0, x.station()), 0x88B5,
                        ++seq, x.length());
                long start = Math.max(t, mediumFree);
                long busy = ports[x.station()].transmit(MemorySegment.ofArray(f), 0, f.length);
                assertEquals(start + (x.length() + 20) * 80L - t, busy, "transmit returns wait + occupancy");
                mediumFree = start + (x.length() + 20) * 80L;
                sent.add(f);
                senders.add(x.station());
                starts.add(start);
            }
            vt.runUntilIdle();
        }
    }

    /** Without faults nothing is lost, duplicated or reordered, and each arrival is on time. */
    @Property(tries = 200)
    void noFaultsEveryStationGetsEveryOtherStationsFramesInOrderOnTime(@ForAll("traffic") List<Tx> traffic) {
        World w = new World(FaultPlan.NONE, traffic);
        for (int s = 0; s < 4; s++) {
            List<byte[]> expected = new ArrayList<>();
            List<Long> times = new ArrayList<>();
            for (int i = 0; i < w.sent.size(); i++) {
                if (w.senders.get(i) != s) {
                    expected.add(w.sent.get(i));
                    times.add(w.starts.get(i) + (w.sent.get(i).length + 8) * 80L + 500);
                }
            }
            assertEquals(expected.size(), w.rx[s].count());
            for (int i = 0; i < expected.size(); i++) {
                assertArrayEquals(expected.get(i), w.rx[s].frames.get(i));
            }
            assertEquals(times, w.rx[s].times);
        }
        assertEquals(3L * traffic.size(), w.wire.deliveries());
        assertEquals(0, w.wire.inFlight());
        long deferred = 0;
        long t = 0;
        for (int i = 0; i < traffic.size(); i++) {
            t += traffic.get(i).gapNanos();
            if (w.starts.get(i) > t) {
                deferred++;
            }
        }
        assertEquals(deferred, w.wire.deferrals());
    }

    /** With any fault mix, every frame is accounted for by the counters. */
    @Property(tries = 200)
    void withFaultsEveryLossShowsInACounter(@ForAll("traffic") List<Tx> traffic, @ForAll long seed,
            @ForAll @DoubleRange(min = 0, max = 0.2) double p, @ForAll @IntRange(min = 0, max = 4) int skip) {
        FaultPlan.Builder b = FaultPlan.builder().seed(seed);
        // each kind at probability p, except one left out to vary the mix
        if (skip != 0) b.drop(p);
        if (skip != 1) b.duplicate(p);
        if (skip != 2) b.reorder(p);
        if (skip != 3) b.delay(p, 0, 300_000);
        if (skip != 4) b.corrupt(p);
        World w = new World(b.build(), traffic);
        long n = traffic.size();
        long held = w.wire.holdsFrame() ? 1 : 0;
        long delivered = n - w.wire.faultCount(FaultKind.DROP) + w.wire.faultCount(FaultKind.DUPLICATE) - held;
        assertEquals(n, w.wire.faultCount(FaultKind.NONE) + w.wire.faultsInjected());
        assertEquals(3 * delivered, w.wire.deliveries());
        long received = 0;
        long bad = 0;
        for (Recorder r : w.rx) {
            received += r.count();
            bad += r.frames.stream().filter(f -> !fcsOk(f)).count();
        }
        assertEquals(w.wire.deliveries(), received);
        assertEquals(3 * w.wire.faultCount(FaultKind.CORRUPT), bad);
        assertEquals(held, w.wire.inFlight());
        assertTrue(w.wire.drops(EthernetSegment.DropReason.POOL_FULL) == 0);
    }
}
