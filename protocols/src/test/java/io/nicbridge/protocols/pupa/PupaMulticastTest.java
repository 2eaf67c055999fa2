package io.nicbridge.protocols.pupa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.link.ForwardingLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.ethernet.EthernetMode;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * Multicast by Ethernet broadcast: one broadcast frame per fragment reaches every addressed peer, each accepts it
 * under its own sequence number, and per-peer reliability (exactly once, in order, mixed with unicast) survives lost
 * and duplicated frames, on the in-memory medium and on emulated 21140s (ideal segment and the CSMA/CD hub).
 */
class PupaMulticastTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final PupaConfig CONFIG = PupaConfig.defaults();
    private static final int[] SIZES = {4, 31, 64, 128, 200, 1000, 1300, 3000};

    /**
     * Cores on given links; every sender numbers its messages 0, 1, 2, ... (the tag) whatever their destinations,
     * each destination checks it gets exactly the numbers addressed to it, in order, with their bytes.
     */
    static final class World {
        final VirtualTimeBase time;
        final NodeRunner runner;
        final int nodes;
        final int[] nextId;
        final ArrayDeque<Integer>[][] due;
        final List<String> errors = new ArrayList<>();
        long offered;
        long delivered;

        @SuppressWarnings("unchecked")
        World(VirtualTimeBase time, Link[] links, HostCpu[] cpus, PupaConfig config) {
            this.time = time;
            this.nodes = links.length;
            nextId = new int[nodes];
            due = new ArrayDeque[nodes][nodes];
            for (ArrayDeque<Integer>[] row : due) {
                for (int i = 0; i < nodes; i++) {
                    row[i] = new ArrayDeque<>();
                }
            }
            runner = new NodeRunner(time, links, cpus, (link, clock, cpu) -> new PupaCore(link, clock, config, cpu),
                    node -> core(node.id()).deliver((peer, data, off, len) -> check(peer, node.id(), data, off, len),
                            Integer.MAX_VALUE), NodeSlowness.NONE);
        }

        static World inMemory(int nodes, FrameFaults faults) {
            return inMemory(nodes, faults, CONFIG);
        }

        static World inMemory(int nodes, FrameFaults faults, PupaConfig config) {
            return inMemory(nodes, faults, config, (node, link) -> link);
        }

        /** On the in-memory medium, node i's link seen through {@code wrap.apply(i, link)} (a test's filter). */
        static World inMemory(int nodes, FrameFaults faults, PupaConfig config,
                              BiFunction<Integer, Link, Link> wrap) {
            VirtualTimeBase time = new VirtualTimeBase(1);
            HostCpu[] cpus = HostCpu.forNodes(nodes, CostTable.zero(), time);
            InMemoryMedium medium = new InMemoryMedium(time, new InMemoryMedium.Config(nodes, 1498, 8, 16, 2_000,
                    80), faults, cpus);
            Link[] links = new Link[nodes];
            for (int i = 0; i < nodes; i++) {
                links[i] = wrap.apply(i, medium.link(i));
            }
            return new World(time, links, cpus, config);
        }

        PupaCore core(int node) {
            return (PupaCore) runner.node(node).core();
        }

        static byte pattern(int src, int id, int i) {
            return (byte) (src * 31 + id * 7 + i);
        }

        private MemorySegment body(int from, int id, int length) {
            byte[] b = new byte[length];
            for (int i = 0; i < length; i++) {
                b[i] = pattern(from, id, i);
            }
            return MemorySegment.ofArray(b);
        }

        /** Multicasts (mask != 0) or unicasts (to) one message, stepping time while pushed back. */
        void send(int from, long mask, int to, int length) {
            int id = nextId[from];
            MemorySegment b = body(from, id, length);
            for (int spins = 0; ; spins++) {
                int r = mask != 0 ? core(from).multicast(mask, b, 0, length, id)
                        : core(from).send(to, b, 0, length, id, false);
                runner.node(from).applicationActed();
                if (r == MessageChannel.OK) {
                    break;
                }
                if (!time.step() || spins > 1_000_000) {
                    throw new AssertionError("send from " + from + " stuck");
                }
            }
            nextId[from]++;
            long dst = mask != 0 ? mask : 1L << to;
            for (long m = dst; m != 0; m &= m - 1) {
                due[from][Long.numberOfTrailingZeros(m)].add(id);
                offered++;
            }
        }

        long all(int except) {
            return ((1L << nodes) - 1) & ~(1L << except);
        }

        private void check(int peer, int me, MemorySegment data, long off, int len) {
            int id = core(me).lastTag();
            Integer want = due[peer][me].poll();
            if (want == null || want != id) {
                errors.add(peer + "->" + me + ": got #" + id + ", due #" + want);
                return;
            }
            for (int i = 0; i < len; i++) {
                if (data.get(ValueLayout.JAVA_BYTE, off + i) != pattern(peer, id, i)) {
                    errors.add(peer + "->" + me + " #" + id + " differs at byte " + i);
                    break;
                }
            }
            delivered++;
        }

        void drain(long maxNanos) {
            time.runUntil(() -> delivered == offered && leaks() == null, time.nanoTime() + maxNanos);
        }

        String leaks() {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < nodes; i++) {
                String l = core(i).leaks();
                if (l != null) {
                    sb.append("node ").append(i).append(": ").append(l);
                }
            }
            return sb.isEmpty() ? null : sb.toString();
        }

        void assertClean() {
            assertTrue(errors.isEmpty(), () -> errors.subList(0, Math.min(10, errors.size())).toString());
            assertEquals(offered, delivered, () -> "delivered " + delivered + " of " + offered);
            assertNull(leaks(), "every FIFO, pool and held buffer is back");
        }
    }

    private static long fragments(World w, int length) {
        return PupaWire.fragments(length, multicastFragment(w));
    }

    private static int multicastFragment(World w) {
        // a multicast fragment leaves room in the frame for a destination entry per peer (PupaWire)
        return Math.min(PupaWire.MAX_FRAGMENT, 1498 - PupaWire.FRAME_HEADER - PupaWire.MC_HEADER
                - PupaWire.MC_ENTRY * (w.nodes - 1) - PupaWire.MESSAGE_HEADER);
    }

    @Test
    void oneBroadcastFramePerFragmentReachesEveryPeerOnceInOrder() {
        World w = World.inMemory(5, FrameFaults.NONE);
        long expectedFrames = 0;
        for (int round = 0; round < 10; round++) {
            for (int size : SIZES) {
                w.send(0, w.all(0), -1, size);
                expectedFrames += fragments(w, size);
            }
        }
        w.drain(2_000 * MS);
        w.assertClean();
        PupaCounters c = w.core(0).counters();
        assertEquals(10 * SIZES.length, c.multicasts());
        assertEquals(expectedFrames, c.multicastFrames(), c.toString());
        assertEquals(0, c.multicastUnicasts(), "no copy needed a unicast");
        assertEquals(c.packetsSent() - c.ackPacketsSent(), c.multicastFrames(),
                "every data frame node 0 sent was one broadcast: one frame on the wire per multicast fragment");
        assertEquals(expectedFrames, c.messagesSent(), "a multicast counts once as sent");
        for (int n = 1; n < 5; n++) {
            assertEquals(expectedFrames, w.core(n).counters().messagesReceived(), "and once at every receiver");
        }
    }

    /**
     * The host work of a multicast is charged through the named operations as a send's is: per destination its
     * fifo-enqueue and header-build, the shared body's pool-alloc once; on the wire one multicast-pack and a
     * multicast-entry per destination instead of pack and header-out; at each receiver frame-parse, multicast-find,
     * accept, header-in and, delivered, fifo-dequeue; and the shared chain's pool-free once, after the last ACK.
     */
    @Test
    void aMulticastChargesItsNamedOperationsPerDestinationAndPerFrame() {
        World w = World.inMemory(4, FrameFaults.NONE);
        w.send(0, w.all(0), -1, 1000); // one fragment, two 512-byte send-pool buffers, a card buffer at each receiver
        HostCpu sender = w.runner.cpu(0);
        assertCalls(sender, PupaOperations.FIFO_ENQUEUE, 3, PupaOperations.HEADER_BUILD, 3,
                PupaOperations.POOL_ALLOC, 2, PupaOperations.MULTICAST_PACK, 1, PupaOperations.MULTICAST_ENTRY, 3,
                PupaOperations.PACK, 0, PupaOperations.HEADER_OUT, 0);
        w.drain(2_000 * MS);
        w.assertClean();
        assertCalls(sender, PupaOperations.POOL_FREE, 2, PupaOperations.MULTICAST_PACK, 1,
                PupaOperations.HEADER_OUT, 0);
        for (int n = 1; n < 4; n++) {
            assertCalls(w.runner.cpu(n), PupaOperations.MULTICAST_FIND, 1, PupaOperations.ACCEPT, 1,
                    PupaOperations.HEADER_IN, 1, PupaOperations.MBUF_HOLD, 1, PupaOperations.FIFO_DEQUEUE, 1);
        }
    }

    private static void assertCalls(HostCpu cpu, Object... nameAndCalls) {
        for (int i = 0; i < nameAndCalls.length; i += 2) {
            String op = (String) nameAndCalls[i];
            assertEquals(((Integer) nameAndCalls[i + 1]).longValue(), cpu.operation(op).calls(), cpu.name() + " " + op);
        }
    }

    @Test
    void multicastsMixWithUnicastsFromEverySenderInPerPeerOrder() {
        World w = World.inMemory(4, FrameFaults.NONE);
        for (int i = 0; i < 200; i++) {
            int from = i % 4;
            int size = SIZES[i % SIZES.length];
            if (i % 3 == 0) {
                w.send(from, w.all(from), -1, size);
            } else if (i % 3 == 1) {
                w.send(from, (1L << ((from + 1) % 4)) | (1L << ((from + 2) % 4)), -1, size);
            } else {
                w.send(from, 0, (from + 3) % 4, size);
            }
        }
        w.drain(5_000 * MS);
        w.assertClean();
        long ignored = 0;
        for (int n = 0; n < 4; n++) {
            ignored += w.core(n).counters().multicastIgnored();
        }
        assertTrue(ignored > 0, "a node not addressed by a two-peer multicast hears the broadcast and ignores it");
    }

    /**
     * Node 2's link loses the broadcast frames carrying node 2's copies number 5 and 20 of node 0's multicasts (the
     * other destinations get them). Each gap is one pair's loss under the numbered NACKs: the next broadcast shows it
     * to node 2, which NACKs at once - the second time only because the broadcast's entry for node 2 echoes NACK 1,
     * which node 0 acted on (without the echo node 2 would take the frame for one sent before its NACK and wait for
     * the timeout) - and node 0 repairs by unicast to node 2 alone, in DATA frames that echo the NACK's number.
     */
    @Test
    void aLostMulticastCopyIsNackedAtOnceAndRepairedByAUnicastThatEchoesTheNack() {
        int victim = 2;
        LosesCopies[] filter = new LosesCopies[1];
        World w = World.inMemory(4, FrameFaults.NONE, CONFIG, (node, link) -> node != victim ? link
                : (filter[0] = new LosesCopies(link, 5, 20)));
        long start = w.time.nanoTime();
        for (int i = 0; i < 40; i++) {
            w.send(0, w.all(0), -1, 200);
            w.time.runFor(100_000); // one multicast every 100 us
        }
        w.time.runUntil(() -> w.delivered == w.offered, w.time.nanoTime() + 2_000 * MS);
        long took = w.time.nanoTime() - start;
        w.drain(2_000 * MS);
        w.assertClean();
        assertTrue(filter[0].lost[0] && filter[0].lost[1], "both copies were lost");
        PupaCounters sender = w.core(0).counters();
        assertEquals(0, sender.timeouts(), () -> "repaired by NACKs, not by the timeout: " + sender);
        assertEquals(2, sender.validNacks(), () -> "one NACK per lost copy: " + sender);
        assertEquals(1, filter[0].repairEcho[0], "the unicast repair of copy 5 echoes NACK 1");
        assertEquals(2, filter[0].repairEcho[1], "the unicast repair of copy 20 echoes NACK 2");
        assertTrue(took < CONFIG.rtoNanos(), "everything delivered in " + took + " ns, under one timeout");
        assertEquals(0, w.core(1).counters().outOfOrder() + w.core(3).counters().outOfOrder(),
                "the other destinations saw no gap: the repair went to node 2 alone");
        assertEquals(40, sender.multicastFrames(), "every multicast went as one broadcast");
    }

    /**
     * A node's link that loses, once each, the MULTICAST frames carrying this node's copies with the given sequence
     * numbers, and notes the NACK echo of the first DATA frame that brings each of them again (the repair).
     */
    private static final class LosesCopies extends ForwardingLink {
        final int[] seqs;
        final boolean[] lost;
        final int[] repairEcho;
        private LinkHandler downstream;
        private final LinkHandler filter = new LinkHandler() {
            @Override
            public void onFrame(Link link, int rxHandle) {
                MemorySegment f = inner.rxBuffer(rxHandle);
                byte type = f.get(ValueLayout.JAVA_BYTE, PupaWire.OFF_TYPE);
                if (type == PupaWire.MULTICAST) {
                    int k = indexOf(copySeq(f, inner.self()));
                    if (k >= 0 && !lost[k]) {
                        lost[k] = true;
                        inner.release(rxHandle); // this node's copy lost on the way; the others have theirs
                        return;
                    }
                } else if (type == PupaWire.DATA) {
                    int k = indexOf(f.get(PupaWire.U32, PupaWire.FRAME_HEADER + PupaWire.M_SEQ));
                    if (k >= 0 && repairEcho[k] < 0) {
                        repairEcho[k] = PupaWire.u16(f, PupaWire.OFF_NACK);
                    }
                }
                downstream.onFrame(LosesCopies.this, rxHandle);
            }

            @Override
            public void onWritable(Link link) {
                downstream.onWritable(LosesCopies.this);
            }
        };

        LosesCopies(Link inner, int... seqs) {
            super(inner);
            this.seqs = seqs;
            lost = new boolean[seqs.length];
            repairEcho = new int[seqs.length];
            Arrays.fill(repairEcho, -1);
        }

        @Override
        public int poll(LinkHandler handler, int limit) {
            downstream = handler;
            return inner.poll(filter, limit);
        }

        private int indexOf(int seq) {
            for (int i = 0; i < seqs.length; i++) {
                if (seqs[i] == seq) {
                    return i;
                }
            }
            return -1;
        }

        /** In a MULTICAST frame, node {@code node}'s sequence number, or -1 when the frame does not address it. */
        private static int copySeq(MemorySegment f, int node) {
            int n = PupaWire.u16(f, PupaWire.FRAME_HEADER);
            for (int i = 0; i < n; i++) {
                long at = PupaWire.FRAME_HEADER + PupaWire.MC_HEADER + (long) PupaWire.MC_ENTRY * i;
                if (PupaWire.u8(f, at + PupaWire.MC_NODE) == node) {
                    return f.get(PupaWire.U32, at + PupaWire.MC_SEQ);
                }
            }
            return -1;
        }
    }

    @Test
    void lostAndDuplicatedBroadcastsAreRepairedPerPeer() {
        FrameFaults faults = (i, s, d, now, fate) -> {
            if (i % 11 == 5) {
                fate.drop = true;
            } else if (i % 13 == 7) {
                fate.duplicateAfterNanos = 30_000;
            }
        };
        World w = World.inMemory(4, faults);
        for (int i = 0; i < 300; i++) {
            int from = i % 3;
            if (i % 2 == 0) {
                w.send(from, w.all(from), -1, SIZES[i % SIZES.length]);
            } else {
                w.send(from, 0, 3, 40 + i);
            }
        }
        w.drain(20_000 * MS);
        w.assertClean();
        long rexmit = 0;
        long duplicates = 0;
        for (int n = 0; n < 4; n++) {
            rexmit += w.core(n).counters().messagesRetransmitted();
            duplicates += w.core(n).counters().duplicates();
        }
        assertTrue(rexmit > 0 && duplicates > 0, "the faults bit: rexmit " + rexmit + ", duplicates " + duplicates);
    }

    @Test
    void reorderedAndCorruptedBroadcastsToo() {
        FrameFaults faults = (i, s, d, now, fate) -> {
            if (i % 9 == 4) {
                fate.extraDelayNanos = 400_000; // overtaken by the next frames: out of order at the receivers
            } else if (i % 17 == 8) {
                fate.corruptOffset = 40;
            }
        };
        World w = World.inMemory(4, faults, CONFIG.withFrameCheck(true));
        for (int i = 0; i < 300; i++) {
            int from = i % 4;
            w.send(from, i % 3 == 0 ? 0 : w.all(from), (from + 1) % 4, SIZES[i % SIZES.length]);
        }
        w.drain(20_000 * MS);
        w.assertClean();
        long outOfOrder = 0;
        long corrupt = 0;
        for (int n = 0; n < 4; n++) {
            outOfOrder += w.core(n).counters().outOfOrder();
            corrupt += w.core(n).counters().corrupt();
        }
        assertTrue(outOfOrder > 0 && corrupt > 0, "the faults bit: out of order " + outOfOrder + ", corrupt "
                + corrupt);
    }

    @Test
    void aHundredSeededFaultSchedulesLoseDuplicateOrReorderNothing() {
        for (long seed = 1; seed <= 100; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            int nodes = 3 + r.nextInt(4);
            double drop = r.nextDouble(0.15);
            double duplicate = r.nextDouble(0.1);
            double delay = r.nextDouble(0.2);
            double corrupt = r.nextDouble(0.05);
            long faultSeed = r.nextLong();
            FrameFaults faults = (i, s, d, now, fate) -> {
                SplittableRandom f = new SplittableRandom(faultSeed ^ (i * 0x9e3779b97f4a7c15L));
                double x = f.nextDouble();
                if (x < drop) {
                    fate.drop = true;
                } else if (x < drop + duplicate) {
                    fate.duplicateAfterNanos = f.nextLong(1, 200_000);
                } else if (x < drop + duplicate + delay) {
                    fate.extraDelayNanos = f.nextLong(1, 500_000);
                } else if (x < drop + duplicate + delay + corrupt) {
                    fate.corruptOffset = f.nextInt(0, 60);
                }
            };
            World w = World.inMemory(nodes, faults, CONFIG.withFrameCheck(true));
            for (int i = 0; i < 60; i++) {
                int from = r.nextInt(nodes);
                long mask = r.nextLong(1, 1L << nodes) & w.all(from);
                int size = r.nextInt(0, 3000);
                if (mask == 0 || r.nextInt(4) == 0) {
                    w.send(from, 0, (from + 1 + r.nextInt(nodes - 1)) % nodes, size);
                } else {
                    w.send(from, mask, -1, size);
                }
            }
            w.drain(60_000 * MS);
            long s = seed;
            assertTrue(w.errors.isEmpty(), () -> "seed " + s + ": " + w.errors.subList(0, Math.min(5,
                    w.errors.size())));
            assertEquals(w.offered, w.delivered, () -> "seed " + s + ": delivered " + w.delivered + " of "
                    + w.offered + "; " + w.leaks());
            assertNull(w.leaks(), () -> "seed " + s);
        }
    }

    private static World tulips(TulipTestbed bed, int nodes) {
        bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
        List<MacAddress> macs = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            macs.add(TulipTestbed.mac(i));
        }
        Link[] links = new Link[nodes];
        for (int i = 0; i < nodes; i++) {
            links[i] = new TulipLink(bed.driver(i), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE);
        }
        return new World(bed.virtualTime(), links, HostCpu.forNodes(nodes, CostTable.zero(), bed.virtualTime()),
                CONFIG);
    }

    @Test
    void onEmulated21140sOnTheHubOneFramePerMulticastWhenNothingIsLost() {
        try (TulipTestbed bed = TulipTestbed.builder().nodes(4).mode(EngineMode.VIRTUAL).medium(EthernetMode.HUB)
                .seed(5).build()) {
            World w = tulips(bed, 4);
            long expectedFrames = 0;
            for (int round = 0; round < 10; round++) {
                for (int size : SIZES) {
                    w.send(0, w.all(0), -1, size);
                    expectedFrames += fragments(w, size);
                }
            }
            w.drain(5_000 * MS);
            w.assertClean();
            PupaCounters c = w.core(0).counters();
            assertEquals(0, c.messagesRetransmitted(), "nothing was lost: " + c);
            assertEquals(expectedFrames, c.multicastFrames(), c.toString());
            assertEquals(c.packetsSent() - c.ackPacketsSent(), c.multicastFrames(), c.toString());
            assertEquals(c.packetsSent(), w.runner.node(0).link().counters().txFrames(),
                    "the link sent exactly the frames the core committed");
        }
    }

    @Test
    void onEmulated21140sALossySegmentIsRepairedPerPeer() {
        try (TulipTestbed bed = TulipTestbed.builder().nodes(4).mode(EngineMode.VIRTUAL).seed(6)
                .faults(FaultPlan.builder().seed(3).drop(0.05).duplicate(0.03).corrupt(0.02).build()).build()) {
            World w = tulips(bed, 4);
            for (int i = 0; i < 200; i++) {
                int from = i % 4;
                if (i % 2 == 0) {
                    w.send(from, w.all(from), -1, SIZES[i % SIZES.length]);
                } else {
                    w.send(from, 0, (from + 1) % 4, SIZES[(i + 3) % SIZES.length]);
                }
            }
            w.drain(20_000 * MS);
            w.assertClean();
            long rexmit = 0;
            for (int n = 0; n < 4; n++) {
                rexmit += w.core(n).counters().messagesRetransmitted();
            }
            assertTrue(rexmit > 0, "the segment lost frames and Pupa resent them");
        }
    }

    @Test
    void badDestinationSetsAndLengthsAreRefusedNamingTheArgument() {
        World w = World.inMemory(3, FrameFaults.NONE);
        PupaCore c = w.core(0);
        MemorySegment b = MemorySegment.ofArray(new byte[c.maxMulticast() + 1]);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> c.multicast(0, b, 0, 4, 0)).getMessage()
                .contains("destinations"));
        assertThrows(IllegalArgumentException.class, () -> c.multicast(0b1, b, 0, 4, 0), "itself");
        assertThrows(IllegalArgumentException.class, () -> c.multicast(0b1000, b, 0, 4, 0), "beyond the peers");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> c.multicast(0b110, b, 0, c.maxMulticast() + 1,
                0)).getMessage().contains("length"));
        assertEquals(0, c.counters().packetsSent(), "a refused call sends nothing");
    }
}
