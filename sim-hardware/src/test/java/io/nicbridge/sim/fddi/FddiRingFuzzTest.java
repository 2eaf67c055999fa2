package io.nicbridge.sim.fddi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.contract.Medusa;
import io.nicbridge.sim.engine.RealTimeBase;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fault.FaultPlan;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The FDDI ring itself (timed-token MAC, claim, parked token, frames in flight, fault layer), not through a card:
 * two to five scripted stations with any address and T_Req bid join, leave and ask for the token at any time, also
 * from inside the ring's callbacks (a MAC that leaves while a frame passes it, asks for the token while its own
 * frame returns), and send frames of any length and bytes; the ring may drop and corrupt frames, and runs in
 * virtual or in real time. The ring parses nothing of a frame but its length, so each frame carries its serial
 * number in the source-address bytes (which the fault layer leaves alone) and the oracle follows every frame:
 * <ul>
 *   <li>no exception escapes the ring (nor the station callbacks, which assert inside);</li>
 *   <li>a station never sees its own frame pass, and sees any frame at most once;</li>
 *   <li>what passes a station is, byte for byte, what its sender gave, or that with one bit inverted after the MAC
 *       header and then a failing FCS (CORRUPT); a dropped frame passes nobody;</li>
 *   <li>every frame the ring pulled comes back to its sender exactly once, with the indicators the stations it
 *       passed set and no others; after the ring is drained none is missing;</li>
 *   <li>the ring's counters never go back, its frame and byte counts are what the stations gave, and its state and
 *       TTRT are what the claim rules allow.</li>
 * </ul>
 * Corpus: {@code src/test/resources/io/nicbridge/sim/fddi/FddiRingFuzzTestInputs/hostileStations/}.
 */
class FddiRingFuzzTest {
    private static final int SERIAL_AT = Medusa.FRAME_SA_OFS;
    private static final int MIN_FRAME = FddiRing.MAC_HEADER_BYTES + FddiFcs.LENGTH;

    @FuzzTest(maxDuration = "30s")
    void hostileStations(FuzzedDataProvider script) {
        boolean virtual = script.consumeBoolean();
        TimeBase time = virtual ? new VirtualTimeBase(1) : new RealTimeBase();
        int maxFrame = script.consumeInt(MIN_FRAME + 4, 4500);
        FaultPlan faults = script.consumeBoolean() ? FaultPlan.NONE
            : FaultPlan.builder().seed(script.consumeLong()).drop(script.consumeInt(0, 30) / 100.0)
                .corrupt(script.consumeInt(0, 30) / 100.0).build();
        World w = new World(time, FddiRing.builder(time).maxFrameBytes(maxFrame).faults(faults).build(), maxFrame);
        int n = script.consumeInt(2, 5);
        for (int i = 0; i < n; i++) {
            w.add(new Station(w, i, script.consumeLong() & 0xFFFF_FFFF_FFFFL, script.consumeLong()));
        }
        try (FddiRing ring = w.ring) {
            for (int step = 0; step < 64 && script.remainingBytes() > 0; step++) {
                Station st = w.stations[script.consumeInt(0, n - 1)];
                switch (script.consumeInt(0, 6)) {
                    case 0 -> st.port.join();
                    case 1 -> st.port.leave();
                    case 2 -> {
                        int length = script.consumeInt(MIN_FRAME - FddiFcs.LENGTH, maxFrame - FddiFcs.LENGTH);
                        st.queue(script.consumeBytes(length), length);
                        st.port.requestToken();
                    }
                    case 3 -> st.reentry = script.consumeInt(0, 4); // what it does from inside its next callback
                    case 4 -> st.port.updateIdleTokens();
                    default -> w.run(script.consumeLong(0, 20_000_000));
                }
                w.checkCounters();
            }
            for (Station st : w.stations) {
                st.reentry = 0;
            }
            w.drain();
            w.checkCounters();
        }
    }

    /** The ring, its stations and the book of every frame pulled. */
    private static final class World {
        final TimeBase time;
        final FddiRing ring;
        final int maxFrame;
        Station[] stations = new Station[0];
        final Map<Integer, Sent> sent = new HashMap<>();
        int nextSerial = 1;
        long pulledBytes;
        final long[] last = new long[8];

        World(TimeBase time, FddiRing ring, int maxFrame) {
            this.time = time;
            this.ring = ring;
            this.maxFrame = maxFrame;
        }

        void add(Station st) {
            stations = Arrays.copyOf(stations, stations.length + 1);
            stations[stations.length - 1] = st;
            st.port = ring.attach(st);
        }

        void run(long nanos) {
            if (time instanceof VirtualTimeBase v) {
                v.runFor(nanos);
            }
        }

        /** Lets every frame in flight come home: in virtual time the world runs until it is idle (a parked token). */
        void drain() {
            if (time instanceof VirtualTimeBase v) {
                for (Station st : stations) {
                    st.port.leave(); // nobody asks for the token any more, so the world goes idle
                }
                v.runUntilIdle(10_000_000);
            }
            for (Sent s : sent.values()) {
                assertTrue(s.returned, () -> "frame " + s.serial + " from station " + s.source + " never came back");
            }
            assertEquals(sent.size(), ring.frames(), "frames the ring counts against frames the stations gave");
            assertEquals(pulledBytes, ring.bytes(), "bytes the ring counts against bytes the stations gave");
        }

        void checkCounters() {
            long[] now = {ring.frames(), ring.bytes(), ring.claims(), ring.tokenPasses(), ring.rotations(),
                ring.lateTokens(), ring.lostFrames(), ring.corruptedFrames()};
            for (int i = 0; i < now.length; i++) {
                assertTrue(now[i] >= last[i], "ring counter " + i + " went from " + last[i] + " to " + now[i]);
            }
            System.arraycopy(now, 0, last, 0, now.length);
            int state = ring.state();
            assertTrue(state == FddiRing.STATE_ISOLATED || state == FddiRing.STATE_CLAIM
                || state == FddiRing.STATE_OPERATIONAL, "ring state " + state);
            if (state == FddiRing.STATE_OPERATIONAL) {
                long ttrt = ring.ttrtNanos();
                assertTrue(ttrt >= Math.min(ring.ttrtFloorNanos(ring.memberCount()), FddiRing.T_MAX_NANOS)
                    && ttrt <= FddiRing.T_MAX_NANOS, "TTRT " + ttrt + " outside [floor, T_Max]");
            }
            assertTrue(ring.lostFrames() + ring.corruptedFrames() <= ring.frames(), "more faults than frames");
        }
    }

    /** One frame pulled from a station: its bytes (FC .. FCS) and the indicators the stations it passed set. */
    private static final class Sent {
        final int serial;
        final int source;
        final byte[] bytes;
        final boolean[] seenBy;
        int fs;
        boolean returned;

        Sent(int serial, int source, byte[] bytes, int stations) {
            this.serial = serial;
            this.source = source;
            this.bytes = bytes;
            this.seenBy = new boolean[stations];
        }
    }

    /** A scripted station: queued frames, and one re-entrant port call to make from inside a callback. */
    private static final class Station implements FddiMac {
        final World w;
        final int index;
        final long address;
        final long bid;
        final ArrayDeque<byte[]> frames = new ArrayDeque<>();
        FddiRingPort port;
        int reentry;

        Station(World w, int index, long address, long bid) {
            this.w = w;
            this.index = index;
            this.address = address;
            this.bid = bid;
        }

        void queue(byte[] body, int length) {
            frames.add(Arrays.copyOf(body, length)); // the fuzzer may run out of bytes: zeros then
        }

        /** The port call a callback makes once (then forgets): leave, join, ask for the token, count idle tokens. */
        private void reenter() {
            int what = reentry;
            reentry = 0;
            switch (what) {
                case 1 -> port.leave();
                case 2 -> port.join();
                case 3 -> port.requestToken();
                case 4 -> port.updateIdleTokens();
                default -> { }
            }
        }

        @Override
        public String name() {
            return "s" + index;
        }

        @Override
        public long address() {
            return address;
        }

        @Override
        public long requestedTtrtNanos() {
            return bid;
        }

        @Override
        public long pullFrame(MemorySegment frame, int capacity) {
            assertEquals(w.maxFrame, capacity, "capacity offered to " + name());
            byte[] body = frames.poll();
            if (body == null) {
                return NO_FRAME;
            }
            int serial = w.nextSerial++;
            for (int i = 0; i < 4; i++) {
                body[SERIAL_AT + i] = (byte) (serial >>> (24 - 8 * i));
            }
            MemorySegment.copy(MemorySegment.ofArray(body), 0, frame, 0, body.length);
            int withFcs = FddiFcs.append(frame, 0, body.length);
            byte[] copy = new byte[withFcs];
            MemorySegment.copy(frame, ValueLayout.JAVA_BYTE, 0, copy, 0, withFcs);
            w.sent.put(serial, new Sent(serial, index, copy, w.stations.length));
            w.pulledBytes += withFcs;
            return (long) serial << 32 | withFcs;
        }

        @Override
        public int frameArrived(MemorySegment frame, int lengthWithFcs, int fsIn) {
            assertTrue(lengthWithFcs >= MIN_FRAME && lengthWithFcs <= w.maxFrame, "length " + lengthWithFcs);
            assertEquals(0, fsIn & ~(FS_E | FS_A | FS_C), "indicators " + fsIn);
            int serial = frame.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), SERIAL_AT);
            Sent s = w.sent.get(serial);
            if (s == null) {
                fail(name() + " saw frame " + serial + ", which no station gave");
            }
            assertTrue(s.source != index, name() + " saw its own frame " + serial + " pass");
            assertTrue(!s.seenBy[index], name() + " saw frame " + serial + " twice");
            assertTrue(!s.returned, name() + " saw frame " + serial + " after it went home");
            assertEquals(s.bytes.length, lengthWithFcs, "length of frame " + serial);
            assertEquals(s.fs & fsIn, fsIn, "frame " + serial + " arrived with indicators nobody set");
            s.seenBy[index] = true;
            byte[] got = new byte[lengthWithFcs];
            MemorySegment.copy(frame, ValueLayout.JAVA_BYTE, 0, got, 0, lengthWithFcs);
            int differing = 0;
            for (int i = 0; i < got.length; i++) {
                if (got[i] != s.bytes[i]) {
                    assertTrue(i >= FddiRing.MAC_HEADER_BYTES, "frame " + serial + " changed in its MAC header");
                    differing += Integer.bitCount((got[i] ^ s.bytes[i]) & 0xFF);
                }
            }
            assertTrue(differing <= 1, "frame " + serial + " arrived with " + differing + " bits changed");
            boolean fcsOk = FddiFcs.check(frame, 0, lengthWithFcs);
            assertEquals(differing == 0, fcsOk, "FCS check of frame " + serial + " with " + differing + " bits changed");
            int fs = fcsOk ? FS_A | FS_C : FS_E;
            s.fs |= fs;
            reenter();
            return fs;
        }

        @Override
        public void frameReturned(int tag, int fs) {
            Sent s = w.sent.get(tag);
            if (s == null) {
                fail(name() + " got back frame " + tag + ", which it never gave");
            }
            assertEquals(index, s.source, "frame " + tag + " went home to the wrong station");
            assertTrue(!s.returned, "frame " + tag + " came back twice");
            assertEquals(s.fs, fs, "indicators of frame " + tag + " against those the stations it passed set");
            s.returned = true;
            reenter();
        }

        @Override
        public void ringStateChanged(int state, long ttrtNanos) {
            assertTrue(ttrtNanos >= 0, "TTRT " + ttrtNanos);
        }

        @Override
        public void tokensSeen(long count) {
            assertTrue(count > 0, "tokens seen " + count);
            reenter();
        }
    }
}
