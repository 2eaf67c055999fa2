package io.nicbridge.sim.ethernet;

import static io.nicbridge.sim.testing.TestFrames.frame;
import static io.nicbridge.sim.testing.TestFrames.mac;
import static io.nicbridge.sim.testing.TestFrames.seqOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.capture.PcapReader;
import io.nicbridge.sim.ethernet.TransmitListener.Result;
import io.nicbridge.sim.testing.ManualVirtualTime;
import io.nicbridge.sim.testing.RealTimeForTests;
import io.nicbridge.sim.testing.TestFrames.Recorder;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The half-duplex CSMA/CD hub ({@link EthernetMode#HUB}) at 100 Mb/s, 500 ns propagation (bit time 10 ns). */
class EthernetHubTest {
    static final byte[] BCAST = mac(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF);

    /** A MAC with a queue of frames: it sends the next when the hub says the last one is done. */
    static final class Sender implements TransmitListener {
        final ManualVirtualTime time;
        final List<byte[]> queue = new ArrayList<>();
        final List<Result> results = new ArrayList<>();
        final List<Integer> collisions = new ArrayList<>();
        final List<Long> doneAt = new ArrayList<>();
        WirePort port;
        int next;

        Sender(ManualVirtualTime time) {
            this.time = time;
        }

        void sendNext() {
            if (next < queue.size()) {
                byte[] f = queue.get(next++);
                assertEquals(WirePort.PENDING, port.transmit(MemorySegment.ofArray(f), 0, f.length));
            }
        }

        @Override
        public void transmitDone(Result result, int n) {
            results.add(result);
            collisions.add(n);
            doneAt.add(time.nanoTime());
            sendNext();
        }
    }

    static byte[] stationMac(int i) {
        return mac(0x02, 0, 0, 0, 0, i);
    }

    @Test
    void hubNeedsVirtualTimeAndListeners() {
        try (RealTimeForTests rt = new RealTimeForTests()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> EthernetSegment.builder(rt).mode(EthernetMode.HUB).build());
            assertTrue(e.getMessage().contains("virtual"), e.getMessage());
        }
        ManualVirtualTime time = new ManualVirtualTime();
        try (EthernetSegment hub = EthernetSegment.builder(time).mode(EthernetMode.HUB).build()) {
            assertThrows(IllegalStateException.class, () -> hub.attach("a", new Recorder(time)));
        }
        assertEquals(EthernetMode.HUB, EthernetMode.of("Hub"));
        assertThrows(IllegalArgumentException.class, () -> EthernetMode.of("token-ring"));
    }

    @Test
    void aLoneStationSendsAsOnTheIdealMedium() {
        ManualVirtualTime time = new ManualVirtualTime();
        try (EthernetSegment hub = EthernetSegment.builder(time).mode(EthernetMode.HUB).build()) {
            Sender a = new Sender(time);
            Recorder rb = new Recorder(time);
            a.port = hub.attach("a", new Recorder(time), a);
            hub.attach("b", rb, TransmitListener.NONE);
            a.queue.add(frame(BCAST, stationMac(1), 0x88B5, 1, 64));
            a.sendNext();
            time.runUntilIdle();
            assertEquals(List.of(6260L), rb.times, "(64 + 8) x 80 + 500, as arrivalNanos(64)");
            assertEquals(List.of(Result.SENT), a.results);
            assertEquals(List.of(0), a.collisions);
            assertEquals(List.of(6720L), a.doneAt, "last bit 5760 + IFG 960: occupancyNanos(64)");
            assertEquals(0, hub.collisions());
        }
    }

    /**
     * Model self-check (the hub adds up to its own timing model, hand-computed; not an anchor): A and B start a
     * 64-byte frame at t = 0 and collide. Both hear the other at 500 (propagation), are still in their preamble
     * (64 bit times = 640 ns), so they finish it and jam 32 bit times: each one's signal ends at 960 and is heard
     * at the other end until 1460, so both may start again at 1460 + 960 (IFG) = 2420. With the seed chosen so that
     * A draws r = 0 and B r = 1 after the first collision: A retries at 960, defers to 2420, sends: last bit at
     * 2420 + 72 x 80 = 8180, arrives at B at 8680, A is told at 8180 + 960 = 9140. B retries at 960 + 5120 = 6080,
     * hears A until 8680, defers to 9640, sends: last bit 15400, arrives at A 15900, B told at 16360.
     */
    @Test
    void twoStationCollisionHandComputed() {
        long seed = seedWhereFirstDrawsAre(0, 1);
        ManualVirtualTime time = new ManualVirtualTime();
        try (EthernetSegment hub = EthernetSegment.builder(time).mode(EthernetMode.HUB).seed(seed).build()) {
            Sender a = new Sender(time);
            Sender b = new Sender(time);
            Recorder ra = new Recorder(time);
            Recorder rb = new Recorder(time);
            a.port = hub.attach("a", ra, a);
            b.port = hub.attach("b", rb, b);
            byte[] fa = frame(BCAST, stationMac(1), 0x88B5, 1, 64);
            byte[] fb = frame(BCAST, stationMac(2), 0x88B5, 2, 64);
            a.queue.add(fa);
            b.queue.add(fb);
            a.sendNext();
            b.sendNext();
            time.runUntilIdle();
            assertEquals(List.of(8680L), rb.times);
            assertArrayEquals(fa, rb.frames.get(0));
            assertEquals(List.of(15900L), ra.times);
            assertArrayEquals(fb, ra.frames.get(0));
            assertEquals(List.of(9140L), a.doneAt);
            assertEquals(List.of(16360L), b.doneAt);
            assertEquals(List.of(1), a.collisions);
            assertEquals(List.of(1), b.collisions);
            assertEquals(1, hub.collisions("a"));
            assertEquals(1, hub.collisions("b"));
            assertEquals(2, hub.collisions());
            assertEquals(0, hub.lateCollisions("a") + hub.excessiveCollisions("a"));
        }
    }

    /** The smallest seed whose stations 0 and 1 draw {@code r0} and {@code r1} from [0, 1] first. */
    static long seedWhereFirstDrawsAre(int r0, int r1) {
        for (long seed = 1; ; seed++) {
            if (EthernetSegment.stationRandom(seed, 0).nextInt(2) == r0
                    && EthernetSegment.stationRandom(seed, 1).nextInt(2) == r1) {
                return seed;
            }
        }
    }

    /**
     * The 16-attempt abort, timed by hand (model self-check): with a backoff of always 0 slots two stations collide
     * on every attempt. Each round lasts 2420 ns (collision at +500, preamble done at +640, jam to +960, the
     * other's jam heard until +1460, IFG to +2420); the 16th attempt starts at 15 x 2420 = 36300 and its jam ends
     * at 37260, when both stations are told: excessive collisions, nothing delivered.
     */
    @Test
    void sixteenthCollisionAbandonsTheFrame() {
        ManualVirtualTime time = new ManualVirtualTime();
        try (EthernetSegment hub = EthernetSegment.builder(time).mode(EthernetMode.HUB)
                .backoff((random, n) -> 0).build()) {
            Sender a = new Sender(time);
            Sender b = new Sender(time);
            Recorder ra = new Recorder(time);
            Recorder rb = new Recorder(time);
            a.port = hub.attach("a", ra, a);
            b.port = hub.attach("b", rb, b);
            a.queue.add(frame(BCAST, stationMac(1), 0x88B5, 1, 64));
            b.queue.add(frame(BCAST, stationMac(2), 0x88B5, 2, 64));
            a.sendNext();
            b.sendNext();
            time.runUntilIdle();
            assertEquals(List.of(Result.EXCESSIVE_COLLISIONS), a.results);
            assertEquals(List.of(Result.EXCESSIVE_COLLISIONS), b.results);
            assertEquals(List.of(16), a.collisions);
            assertEquals(List.of(37260L), a.doneAt);
            assertEquals(List.of(37260L), b.doneAt);
            assertEquals(0, ra.count() + rb.count(), "an abandoned frame reaches nobody");
            assertEquals(1, hub.excessiveCollisions("a"));
            assertEquals(1, hub.excessiveCollisions("b"));
            assertEquals(32, hub.collisions());
            assertEquals(2, hub.drops(EthernetSegment.DropReason.EXCESSIVE_COLLISIONS));
        }
    }

    /**
     * A segment out of spec (3000 ns one way: a round trip of 600 bit times, over the 512-bit slot): B starts at
     * 2900, just before A's carrier reaches it. B hears A at 3000, 100 ns into its frame: an ordinary collision, it
     * backs off and later sends. A hears B at 5900, 590 bit times into its frame: late; A jams to 6220 and abandons
     * the frame.
     */
    @Test
    void lateCollisionAbandonsTheFrame() {
        ManualVirtualTime time = new ManualVirtualTime();
        try (EthernetSegment hub = EthernetSegment.builder(time).mode(EthernetMode.HUB).propagationNanos(3000)
                .build()) {
            Sender a = new Sender(time);
            Sender b = new Sender(time);
            Recorder ra = new Recorder(time);
            a.port = hub.attach("a", new Recorder(time), a);
            b.port = hub.attach("b", ra, b);
            a.queue.add(frame(BCAST, stationMac(1), 0x88B5, 1, 64));
            b.queue.add(frame(BCAST, stationMac(2), 0x88B5, 2, 64));
            a.sendNext();
            time.advanceTo(2900);
            b.sendNext();
            time.runUntilIdle();
            assertEquals(List.of(Result.LATE_COLLISION), a.results);
            assertEquals(List.of(1), a.collisions);
            assertEquals(List.of(6220L), a.doneAt);
            assertEquals(List.of(Result.SENT), b.results);
            assertEquals(List.of(1), b.collisions);
            assertEquals(1, hub.lateCollisions("a"));
            assertEquals(0, hub.lateCollisions("b"));
            assertEquals(0, ra.count(), "A's frame never arrives");
        }
    }

    /**
     * Two and ten stations, each with 30 broadcast frames to send back to back: they collide (the ones that defer
     * behind the same frame all start together when it ends), backoff sorts them out, and every frame is either
     * delivered exactly once to every other station or reported abandoned (EC).
     */
    @Test
    void contendingStationsCollideAndEveryFrameIsDeliveredOnceOrReported() {
        for (int stations : new int[] {2, 10}) {
            Run run = contend(stations, 30, 7, null);
            assertTrue(run.hub.collisions() > 0, stations + " stations: collisions happen");
            long sent = 0;
            long excessive = 0;
            for (int i = 0; i < stations; i++) {
                Sender s = run.senders.get(i);
                assertEquals(30, s.results.size(), "every frame reported once");
                for (int f = 0; f < 30; f++) {
                    int seq = i * 1000 + f;
                    long expected = s.results.get(f) == Result.SENT ? 1 : 0;
                    for (int r = 0; r < stations; r++) {
                        if (r != i) {
                            assertEquals(expected, run.received.get(r).getOrDefault(seq, 0).longValue(),
                                    stations + " stations: frame " + seq + " at station " + r);
                        }
                    }
                    sent += expected;
                    excessive += s.results.get(f) == Result.EXCESSIVE_COLLISIONS ? 1 : 0;
                    assertFalse(s.results.get(f) == Result.LATE_COLLISION, "a segment in spec has no late collision");
                }
                assertEquals(run.hub.excessiveCollisions("s" + i),
                        s.results.stream().filter(r -> r == Result.EXCESSIVE_COLLISIONS).count());
            }
            assertEquals(30L * stations, sent + excessive);
            long reported = 0;
            for (Sender s : run.senders) {
                reported += s.collisions.stream().mapToLong(Integer::longValue).sum();
            }
            assertEquals(run.hub.collisions(), reported, "each collision is reported to its station");
        }
    }

    @Test
    void sameSeedSameCaptureAnotherSeedAnother(@TempDir Path dir) throws IOException {
        Path one = dir.resolve("one.pcap");
        Path two = dir.resolve("two.pcap");
        Path other = dir.resolve("other.pcap");
        contend(10, 10, 42, one);
        contend(10, 10, 42, two);
        contend(10, 10, 43, other);
        assertArrayEquals(Files.readAllBytes(one), Files.readAllBytes(two));
        assertFalse(java.util.Arrays.equals(Files.readAllBytes(one), Files.readAllBytes(other)),
                "the backoff draws come from the seed");
        // Collisions show in the capture's timing: back to back, 10 x 10 frames of 64 bytes would take
        // 100 x 6720 ns; the backoff and the collisions' own time stretch that.
        List<PcapReader.Packet> packets = PcapReader.read(one).packets();
        long span = packets.getLast().timestampNanos() - packets.getFirst().timestampNanos();
        assertTrue(span > 99 * 6720L, "span " + span);
    }

    record Run(EthernetSegment hub, List<Sender> senders, List<Map<Integer, Integer>> received) {}

    static Run contend(int stations, int framesEach, long seed, Path capture) {
        ManualVirtualTime time = new ManualVirtualTime();
        EthernetSegment.Builder b = EthernetSegment.builder(time).mode(EthernetMode.HUB).seed(seed);
        if (capture != null) {
            b.capture(capture);
        }
        EthernetSegment hub = b.build();
        List<Sender> senders = new ArrayList<>();
        List<Map<Integer, Integer>> received = new ArrayList<>();
        for (int i = 0; i < stations; i++) {
            Sender s = new Sender(time);
            Map<Integer, Integer> got = new HashMap<>();
            s.port = hub.attach("s" + i, (frame, off, len) -> {
                byte[] copy = frame.asSlice(off, len).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                got.merge(seqOf(copy), 1, Integer::sum);
            }, s);
            for (int f = 0; f < framesEach; f++) {
                s.queue.add(frame(BCAST, stationMac(i + 1), 0x88B5, i * 1000 + f, 64));
            }
            senders.add(s);
            received.add(got);
        }
        for (Sender s : senders) {
            s.sendNext();
        }
        time.runUntilIdle();
        hub.close();
        return new Run(hub, senders, received);
    }
}
