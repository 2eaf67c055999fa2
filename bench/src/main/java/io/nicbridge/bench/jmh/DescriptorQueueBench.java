package io.nicbridge.bench.jmh;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.Direction;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing.ListMode;
import io.nicbridge.bridge.queue.Dec21140DescriptorRing;
import io.nicbridge.bridge.queue.Dec21140DescriptorWalker;
import io.nicbridge.bridge.queue.UnetNiReceiveQueue;
import io.nicbridge.bridge.queue.UnetNiSendQueue;
import io.nicbridge.bridge.queue.UnetReceiveQueue;
import io.nicbridge.bridge.queue.UnetSendQueue;
import io.nicbridge.contract.Dec21140;
import io.nicbridge.contract.Sba200Unet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of one descriptor handoff and return over the queue views of {@code io.nicbridge.bridge.queue}.
 *
 * <ul>
 *   <li>Single thread: one full round trip per op on one core (post, card takes and returns, host reclaims), i.e.
 *       the bookkeeping and ordering cost without cache-line transfers.</li>
 *   <li>Two threads ({@code @Group}): a producer method and a consumer method run concurrently on the same queue;
 *       each call does one step or returns at once when there is nothing to do (no back-off inside JMH's loop),
 *       so the per-method ns/op is the cost of one attempt on that side, including the cross-core traffic.</li>
 * </ul>
 * Every state is allocated in {@code @Setup}; the measured methods must allocate nothing ({@code -prof gc}).
 */
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class DescriptorQueueBench {
    static final long RING_BUS = 0x0010_0000L;
    static final long BUFFER_BUS = 0x0100_0000L;
    static final int RING_SIZE = 128;
    static final int RX_OK = Dec21140.RDES0_FS | Dec21140.RDES0_LS | (64 << Dec21140.RDES0_FL_SHIFT);

    /** A 21140 receive ring (Linux geometry: 128 descriptors, ring mode) with its card-side walker. */
    public static class RingFixture {
        Arena arena;
        Dec21140DescriptorRing ring;
        Dec21140DescriptorWalker walker;

        void open() {
            arena = Arena.ofShared();
            MemorySegment mem = arena.allocate((long) RING_SIZE * Dec21140.DESC_SIZE, 64);
            ring = new Dec21140DescriptorRing(mem, RING_BUS, RING_SIZE, 0, Direction.RECEIVE, ListMode.RING);
            DmaSpace dma = new DmaSpace("21140");
            dma.registerAt("rx-ring", mem, RING_BUS);
            walker = new Dec21140DescriptorWalker(dma);
            walker.setListBase(RING_BUS);
        }

        void close() {
            arena.close();
        }
    }

    /** A U-Net endpoint page with both sides of its send queue, and a receive queue. */
    public static class UnetFixture {
        Arena arena;
        UnetSendQueue user;
        UnetNiSendQueue ni;
        UnetReceiveQueue rqUser;
        UnetNiReceiveQueue rqNi;

        void open() {
            arena = Arena.ofShared();
            MemorySegment page = arena.allocate(Sba200Unet.EP_PAGE_SIZE, 4096);
            MemorySegment rq = arena.allocate((long) Sba200Unet.RQ_LEN_DEFAULT * Sba200Unet.RECV_DESC_SIZE, 64);
            user = new UnetSendQueue(page);
            ni = new UnetNiSendQueue(page);
            rqUser = new UnetReceiveQueue(rq, 0, Sba200Unet.RQ_LEN_DEFAULT, page);
            rqNi = new UnetNiReceiveQueue(rq, 0, Sba200Unet.RQ_LEN_DEFAULT, page);
        }

        void close() {
            arena.close();
        }
    }

    @State(Scope.Thread)
    public static class RingState extends RingFixture {
        @Setup(Level.Trial)
        public void setup() {
            open();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            close();
        }
    }

    @State(Scope.Thread)
    public static class UnetState extends UnetFixture {
        @Setup(Level.Trial)
        public void setup() {
            open();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            close();
        }
    }

    @State(Scope.Group)
    public static class RingGroupState extends RingFixture {
        @Setup(Level.Trial)
        public void setup() {
            open();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            close();
        }
    }

    @State(Scope.Group)
    public static class UnetGroupState extends UnetFixture {
        @Setup(Level.Trial)
        public void setup() {
            open();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            close();
        }
    }

    /**
     * Per-thread count of attempts that did real work (a descriptor posted/reclaimed or taken/returned). JMH
     * reports it next to the per-attempt score, so empty polls and full-queue refusals are visible as the gap
     * between the two.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Handoffs {
        public long handoffs;

        @Setup(Level.Iteration)
        public void reset() {
            handoffs = 0;
        }
    }

    // ------------------------------------------------------------------ one thread, full round trip per op

    /** Host arms an RX descriptor, the card walker takes it, writes status, returns it; the host reclaims it. */
    @Benchmark
    public int dec21140ArmTakeReclaim(RingState s) {
        int posted = s.ring.postReceive(BUFFER_BUS, 1536);
        Dec21140DescriptorWalker w = s.walker;
        int f = w.fetch();
        w.complete(RX_OK);
        w.advance();
        int reclaimed = s.ring.reclaim();
        return posted + f + reclaimed + Dec21140DescriptorRing.frameLength(s.ring.status(reclaimed));
    }

    /** User offers a one-buffer message, the NI polls and completes it, the user collects the completion. */
    @Benchmark
    public int unetSendOfferPoll(UnetState s) {
        s.user.offer(3, 0x1000, 1500);
        long d = s.ni.poll();
        int len = s.ni.length(d) + s.ni.bufferOffset(d, 0);
        s.ni.complete(d, Sba200Unet.TX_STATUS_SENT);
        return len + s.user.pollCompletion();
    }

    /** NI publishes a one-buffer receive descriptor, the user polls, reads and releases it. */
    @Benchmark
    public int unetReceivePublishPoll(UnetState s) {
        long d = s.rqNi.claim();
        s.rqNi.putBuffer(d, 0, 0x2000, 1500);
        s.rqNi.publish(d, 1500, 3, 1, 0);
        long u = s.rqUser.poll();
        int len = s.rqUser.length(u) + s.rqUser.bufferOffset(u, 0);
        s.rqUser.release(u);
        return len;
    }

    // ------------------------------------------------------------------ two threads, one attempt per op

    /** Host side: reclaim one returned descriptor if any, re-arm one if the ring has room. */
    @Benchmark
    @Group("dec21140Ring")
    @GroupThreads(1)
    public int ringHost(RingGroupState s, Handoffs h) {
        int r = s.ring.reclaim();
        int p = s.ring.postReceive(BUFFER_BUS, 1536);
        if (p >= 0) {
            h.handoffs++;
        }
        return r + p;
    }

    /** Card side: take the current descriptor if the card owns it, complete it and move on. */
    @Benchmark
    @Group("dec21140Ring")
    @GroupThreads(1)
    public int ringCard(RingGroupState s, Handoffs h) {
        Dec21140DescriptorWalker w = s.walker;
        if (w.fetch() != Dec21140DescriptorWalker.FETCH_CARD_OWNED) {
            return -1;
        }
        w.complete(RX_OK);
        w.advance();
        h.handoffs++;
        return 0;
    }

    /** User side: collect a completion if any, offer one message if the queue has room. */
    @Benchmark
    @Group("unetSend")
    @GroupThreads(1)
    public int unetUser(UnetGroupState s, Handoffs h) {
        int c = s.user.pollCompletion();
        if (s.user.offer(3, 0x1000, 1500) >= 0) {
            h.handoffs++;
            return c + 1;
        }
        return c;
    }

    /** NI side of the receive queue: publish one message if the next slot is free. */
    @Benchmark
    @Group("unetReceive")
    @GroupThreads(1)
    public long unetRxNi(UnetGroupState s, Handoffs h) {
        long d = s.rqNi.claim();
        if (d < 0) {
            return -1;
        }
        s.rqNi.putBuffer(d, 0, 0x2000, 1500);
        s.rqNi.publish(d, 1500, 3, 1, 0);
        h.handoffs++;
        return d;
    }

    /** User side of the receive queue: consume one message if any. */
    @Benchmark
    @Group("unetReceive")
    @GroupThreads(1)
    public int unetRxUser(UnetGroupState s, Handoffs h) {
        long u = s.rqUser.poll();
        if (u < 0) {
            return -1;
        }
        int len = s.rqUser.length(u) + s.rqUser.bufferOffset(u, 0);
        s.rqUser.release(u);
        h.handoffs++;
        return len;
    }

    /** NI side: consume one posted descriptor if any. */
    @Benchmark
    @Group("unetSend")
    @GroupThreads(1)
    public int unetNi(UnetGroupState s, Handoffs h) {
        long d = s.ni.poll();
        if (d < 0) {
            return -1;
        }
        int len = s.ni.length(d);
        s.ni.complete(d, Sba200Unet.TX_STATUS_SENT);
        h.handoffs++;
        return len;
    }
}
