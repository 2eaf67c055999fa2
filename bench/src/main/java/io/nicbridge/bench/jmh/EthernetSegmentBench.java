package io.nicbridge.bench.jmh;

import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.RealTimeBase;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import io.nicbridge.sim.ethernet.EthernetMode;
import io.nicbridge.sim.ethernet.EthernetSegment;
import io.nicbridge.sim.ethernet.TransmitListener;
import io.nicbridge.sim.ethernet.WirePort;
import io.nicbridge.sim.fault.FaultPlan;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One frame across an {@link EthernetSegment} from station a to station b, whose sink copies it into
 * its own buffer (what a card's receive FIFO does):
 * <ul>
 *   <li>{@code realTime}: synchronous delivery from the sender's memory;
 *   <li>{@code virtualTime}: copy into an in-flight slot, arm its timer, run the event at arrival;
 *   <li>{@code virtualTimeFaultsCapture}: the same with a seeded fault plan (5% each of drop,
 *       duplicate, reorder, delay, corrupt) and pcap capture to /dev/null;
 *   <li>{@code hub}: the half-duplex CSMA/CD hub, one station alone: transmit (PENDING), the contention timer, the
 *       arrival, the MAC timer telling the listener;
 *   <li>{@code hubContended}: two stations transmit at once each time, so every frame pair collides, backs off and
 *       gets through (per pair: one collision resolution, backoff draws, deferral, two arrivals); the figure is per
 *       pair of frames;
 *   <li>{@code switched}: the store-and-forward switch: across the sender's link into the switch, learned port,
 *       output buffer, across the output link.
 * </ul>
 * All must allocate nothing (-prof gc: ~0 B/op).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class EthernetSegmentBench {
    @Param({"64", "1518"})
    public int length;

    private final byte[] received = new byte[2048];
    private final MemorySegment receivedSegment = MemorySegment.ofArray(received);
    private MemorySegment frame;
    private long count;

    private WirePort realA;
    private VirtualTimeEngine virtualEngine;
    private WirePort virtualA;
    private VirtualTimeEngine faultEngine;
    private WirePort faultA;
    private PcapWriter pcap;
    private VirtualTimeEngine hubEngine;
    private WirePort hubA;
    private VirtualTimeEngine contendedEngine;
    private WirePort contendedA;
    private WirePort contendedB;
    private VirtualTimeEngine switchEngine;
    private WirePort switchA;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        byte[] f = new byte[length];
        for (int i = 0; i < 6; i++) {
            f[i] = (byte) 0xFF;
        }
        f[12] = (byte) 0x88;
        f[13] = (byte) 0xB5;
        frame = MemorySegment.ofArray(f);

        EthernetSegment real = EthernetSegment.builder(new RealTimeBase()).name("bench-rt").build();
        realA = real.attach("a", (s, off, len) -> { });
        real.attach("b", this::receive);

        virtualEngine = new VirtualTimeEngine(1);
        EthernetSegment virtual = EthernetSegment.builder(virtualEngine.timeBase()).name("bench-vt").build();
        virtualA = virtual.attach("a", (s, off, len) -> { });
        virtual.attach("b", this::receive);

        faultEngine = new VirtualTimeEngine(1);
        pcap = PcapWriter.builder(Path.of("/dev/null"), faultEngine.timeBase()).open();
        FaultPlan plan = FaultPlan.builder().seed(1)
                .drop(0.05).duplicate(0.05).reorder(0.05).delay(0.05, 0, 10_000).corrupt(0.05).build();
        EthernetSegment faulty = EthernetSegment.builder(faultEngine.timeBase()).name("bench-faults")
                .faults(plan).capture(pcap).build();
        faultA = faulty.attach("a", (s, off, len) -> { });
        faulty.attach("b", this::receive);

        hubEngine = new VirtualTimeEngine(1);
        EthernetSegment hub = EthernetSegment.builder(hubEngine.timeBase()).name("bench-hub")
                .mode(EthernetMode.HUB).build();
        hubA = hub.attach("a", (s, off, len) -> { }, TransmitListener.NONE);
        hub.attach("b", this::receive, TransmitListener.NONE);

        contendedEngine = new VirtualTimeEngine(1);
        EthernetSegment contended = EthernetSegment.builder(contendedEngine.timeBase()).name("bench-hub2")
                .mode(EthernetMode.HUB).seed(1).build();
        contendedA = contended.attach("a", this::receive, TransmitListener.NONE);
        contendedB = contended.attach("b", this::receive, TransmitListener.NONE);

        switchEngine = new VirtualTimeEngine(1);
        EthernetSegment sw = EthernetSegment.builder(switchEngine.timeBase()).name("bench-switch")
                .mode(EthernetMode.SWITCHED).build();
        switchA = sw.attach("a", (s, off, len) -> { });
        sw.attach("b", this::receive);
    }

    private void receive(MemorySegment s, long offset, int len) {
        MemorySegment.copy(s, offset, receivedSegment, 0, len);
        count++;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        virtualEngine.close();
        faultEngine.close();
        hubEngine.close();
        contendedEngine.close();
        switchEngine.close();
        pcap.close();
    }

    @Benchmark
    public long realTime() {
        realA.transmit(frame, 0, length);
        return count;
    }

    @Benchmark
    public long virtualTime() {
        virtualEngine.runFor(virtualA.transmit(frame, 0, length));
        return count;
    }

    @Benchmark
    public long virtualTimeFaultsCapture() {
        faultEngine.runFor(faultA.transmit(frame, 0, length));
        return count;
    }

    @Benchmark
    public long hub() {
        hubA.transmit(frame, 0, length);
        hubEngine.runUntilIdle();
        return count;
    }

    @Benchmark
    public long hubContended() {
        contendedA.transmit(frame, 0, length);
        contendedB.transmit(frame, 0, length);
        contendedEngine.runUntilIdle();
        return count;
    }

    @Benchmark
    public long switched() {
        switchA.transmit(frame, 0, length);
        switchEngine.runUntilIdle();
        return count;
    }
}
