package io.nicbridge.sim.ethernet;

import static io.nicbridge.sim.testing.TestFrames.fcsOk;
import static io.nicbridge.sim.testing.TestFrames.frame;
import static io.nicbridge.sim.testing.TestFrames.mac;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.InlineEngine;
import io.nicbridge.sim.engine.RealTimeBase;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testing.TestFrames.Recorder;
import io.nicbridge.sim.testing.ThreadAllocations;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The segment on the team's engines: VirtualTimeEngine, RealTimeBase timers, concurrent stations. */
class EthernetSegmentEngineTest {
    static final byte[] A = mac(0x02, 0, 0, 0, 0, 0xA);
    static final byte[] B = mac(0x02, 0, 0, 0, 0, 0xB);

    @TempDir
    Path dir;

    /**
     * Ping-pong in virtual time with a station that answers the instant a frame arrives: the answer
     * defers behind the request's inter-frame gap. RTT(64 B) = 6720 + (72 x 80 + 500) = 12 980 ns.
     */
    @Test
    void pingPongRoundTripInVirtualTime() {
        try (VirtualTimeEngine engine = new VirtualTimeEngine(1)) {
            EthernetSegment wire = EthernetSegment.builder(engine.timeBase()).build();
            Recorder ra = new Recorder(engine.timeBase());
            WirePort pa = wire.attach("a", ra);
            byte[] pong = frame(A, B, 0x88B5, 2, 64);
            WirePort[] pb = new WirePort[1];
            pb[0] = wire.attach("b", (f, off, len) -> pb[0].transmit(MemorySegment.ofArray(pong), 0, pong.length));
            byte[] ping = frame(B, A, 0x88B5, 1, 64);
            assertEquals(6_720, pa.transmit(MemorySegment.ofArray(ping), 0, ping.length));
            engine.runUntilIdle();
            assertEquals(List.of(12_980L), ra.times);
            assertEquals(1, wire.deferrals(), "the answer waited for the request's IFG");
            // an answer later than the IFG does not defer: leg = 72 x 80 + 500 = 6260 ns each way
        }
    }

    @Test
    void virtualEngineSameSeedSameArrivals() {
        List<Long> first = arrivals(7);
        assertEquals(first, arrivals(7));
        assertTrue(!first.equals(arrivals(8)));
    }

    private static List<Long> arrivals(long seed) {
        try (VirtualTimeEngine engine = new VirtualTimeEngine(seed)) {
            FaultPlan plan = FaultPlan.builder().seed(seed).delay(0.3, 0, 50_000).drop(0.1).build();
            EthernetSegment wire = EthernetSegment.builder(engine.timeBase()).faults(plan).build();
            Recorder rb = new Recorder(engine.timeBase());
            WirePort pa = wire.attach("a", new Recorder(engine.timeBase()));
            wire.attach("b", rb);
            for (int i = 1; i <= 200; i++) {
                byte[] f = frame(B, A, 0x88B5, i, 64 + i);
                engine.runFor(pa.transmit(MemorySegment.ofArray(f), 0, f.length));
            }
            engine.runUntilIdle();
            List<Long> out = new ArrayList<>(rb.times);
            out.addAll(rb.seqs().stream().map(Integer::longValue).toList());
            return out;
        }
    }

    @Test
    void realTimeDelayFiresWhenTheEnginePollsItsTimers() throws Exception {
        try (InlineEngine engine = new InlineEngine(new RealTimeBase())) {
            EthernetSegment wire = EthernetSegment.builder(engine.timeBase())
                    .faults(FaultPlan.builder().delayFrame(1, 2_000_000).build()).build();
            Recorder rb = new Recorder(engine.timeBase());
            WirePort pa = wire.attach("a", new Recorder(engine.timeBase()));
            wire.attach("b", rb);
            byte[] f = frame(B, A, 0x88B5, 1, 64);
            long t0 = System.nanoTime();
            pa.transmit(MemorySegment.ofArray(f), 0, f.length);
            assertEquals(0, rb.count(), "delayed, not delivered synchronously");
            assertEquals(1, wire.inFlight());
            long deadline = t0 + TimeUnit.SECONDS.toNanos(10);
            while (rb.count() == 0 && System.nanoTime() < deadline) {
                engine.poll();
                LockSupport.parkNanos(100_000);
            }
            assertEquals(1, rb.count());
            assertTrue(rb.times.get(0) - t0 >= 2_000_000, "arrived after the delay");
            assertEquals(0, wire.inFlight());
            assertEquals(1, wire.faultCount(FaultKind.DELAY));
        }
    }

    /**
     * Three stations transmitting at once from their own threads (a threaded engine's situation):
     * every receiver gets every frame of the others; with faults, the counters account for all.
     */
    @Test
    void concurrentStationsInRealTimeLoseNothingUnaccounted() throws Exception {
        for (FaultPlan plan : List.of(FaultPlan.NONE,
                FaultPlan.builder().seed(3).drop(0.05).duplicate(0.05).corrupt(0.05).reorder(0.05).build())) {
            RealTimeBase rt = new RealTimeBase();
            EthernetSegment wire = EthernetSegment.builder(rt).faults(plan).build();
            int stations = 3;
            int perStation = 20_000;
            AtomicLong[] got = new AtomicLong[stations];
            AtomicLong bad = new AtomicLong();
            WirePort[] ports = new WirePort[stations];
            for (int s = 0; s < stations; s++) {
                AtomicLong g = got[s] = new AtomicLong();
                ports[s] = wire.attach("s" + s, (f, off, len) -> {
                    g.incrementAndGet();
                    byte[] copy = f.asSlice(off, len).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                    if (!fcsOk(copy)) {
                        bad.incrementAndGet();
                    }
                });
            }
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int s = 0; s < stations; s++) {
                WirePort p = ports[s];
                byte[] src = mac(0x02, 0, 0, 0, 1, s);
                Thread t = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    byte[] f = frame(B, src, 0x88B5, 0, 64);
                    MemorySegment seg = MemorySegment.ofArray(f);
                    for (int i = 0; i < perStation; i++) {
                        p.transmit(seg, 0, f.length);
                    }
                });
                t.start();
                threads.add(t);
            }
            go.countDown();
            for (Thread t : threads) {
                t.join(60_000);
            }
            long frames = (long) stations * perStation;
            assertEquals(frames, wire.frames());
            long held = wire.holdsFrame() ? 1 : 0;
            long delivered = frames - wire.faultCount(FaultKind.DROP) + wire.faultCount(FaultKind.DUPLICATE) - held;
            assertEquals(delivered * (stations - 1), wire.deliveries(), plan.toString());
            long sum = 0;
            for (AtomicLong g : got) {
                sum += g.get();
            }
            assertEquals(wire.deliveries(), sum);
            assertEquals(wire.faultCount(FaultKind.CORRUPT) * (stations - 1), bad.get());
            assertEquals(held, wire.inFlight());
            wire.close();
        }
    }

    /** The transmit, fault, timer and capture path allocates nothing per frame. */
    @Test
    void virtualTimeTransmitWithFaultsAndCaptureAllocatesNothing() throws Exception {
        try (VirtualTimeEngine engine = new VirtualTimeEngine(1);
                PcapWriter pcap = PcapWriter.builder(dir.resolve("alloc.pcap"), engine.timeBase()).open()) {
            FaultPlan plan = FaultPlan.builder().seed(1)
                    .drop(0.02).duplicate(0.02).reorder(0.02).delay(0.02, 0, 20_000).corrupt(0.02).build();
            EthernetSegment wire = EthernetSegment.builder(engine.timeBase()).faults(plan).capture(pcap).build();
            byte[] sink = new byte[2048];
            MemorySegment sinkSeg = MemorySegment.ofArray(sink);
            long[] received = new long[1];
            WirePort pa = wire.attach("a", (f, off, len) -> { });
            wire.attach("b", (f, off, len) -> {
                MemorySegment.copy(f, off, sinkSeg, 0, len);
                received[0]++;
            });
            byte[] f = frame(B, A, 0x88B5, 1, 1518);
            MemorySegment seg = MemorySegment.ofArray(f);
            long bytes = ThreadAllocations.measure(() -> {
                for (int i = 0; i < 20_000; i++) {
                    engine.runFor(pa.transmit(seg, 0, 64 + (i % 1455)));
                }
                engine.runUntilIdle();
            });
            assertTrue(bytes < 1024, "20k frames through faults and capture allocated " + bytes + " bytes");
            assertTrue(received[0] > 100_000);
        }
    }

    @Test
    void realTimeCleanPathAllocatesNothing() {
        RealTimeBase rt = new RealTimeBase();
        EthernetSegment wire = EthernetSegment.builder(rt).build();
        long[] received = new long[1];
        WirePort pa = wire.attach("a", (f, off, len) -> { });
        wire.attach("b", (f, off, len) -> received[0]++);
        byte[] f = frame(B, A, 0x88B5, 1, 64);
        MemorySegment seg = MemorySegment.ofArray(f);
        long bytes = ThreadAllocations.measure(() -> {
            for (int i = 0; i < 100_000; i++) {
                pa.transmit(seg, 0, f.length);
            }
        });
        assertTrue(bytes < 1024, "100k real-time transmits allocated " + bytes + " bytes");
        assertEquals(600_000, received[0]);
    }
}
