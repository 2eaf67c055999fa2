package io.nicbridge.sim.fabric.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fabric.Discipline;
import io.nicbridge.sim.fabric.DropReason;
import io.nicbridge.sim.fabric.FabricConfig;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.Topologies;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class FabricLinksTest {
    private static final long END = 10_000_000;

    /** A 4x4 mesh with links on all 16 nodes, in virtual time, zero cost table. */
    private static final class World {
        final VirtualTimeBase time = new VirtualTimeBase(1);
        final Network network;
        final HostCpu[] cpus;
        final FabricLinks medium;
        final Received got = new Received();

        World(FabricConfig fabric, FabricLinks.Config links) {
            this(fabric, links, 16);
        }

        World(FabricConfig fabric, FabricLinks.Config links, int linkNodes) {
            this(fabric, links, linkNodes, CostTable.zero());
        }

        World(FabricConfig fabric, FabricLinks.Config links, int linkNodes, CostTable table) {
            network = new Network(Topologies.mesh(4, 4), fabric, 5);
            cpus = HostCpu.forNodes(linkNodes, table, time);
            medium = new FabricLinks(network, time, cpus, links);
        }

        int send(int from, int to, int length, int salt) {
            Link l = medium.link(from);
            int h = l.claim(to);
            if (h == Link.NONE) {
                return h;
            }
            MemorySegment b = l.txBuffer(h);
            for (int i = 0; i < length; i++) {
                b.set(ValueLayout.JAVA_BYTE, i, (byte) (salt + i * 7));
            }
            l.commit(h, length);
            return h;
        }
    }

    /** Records the last frame and every onWritable. */
    private static final class Received implements LinkHandler {
        int frames;
        int writables;
        int lastPeer;
        int lastHandle;
        byte[] last = new byte[0];
        boolean release = true;

        @Override
        public void onFrame(Link link, int rxHandle) {
            frames++;
            lastPeer = link.rxPeer(rxHandle);
            lastHandle = rxHandle;
            last = link.rxBuffer(rxHandle).asSlice(0, link.rxLength(rxHandle)).toArray(ValueLayout.JAVA_BYTE);
            if (release) {
                link.release(rxHandle);
            }
        }

        @Override
        public void onWritable(Link link) {
            writables++;
        }
    }

    @Test
    void aFrameCarriesItsBytesAcrossTheMeshAsFlitsOfTheConfiguredWidthAndTheFabricThenSleeps() {
        World w = new World(FabricConfig.defaults(), FabricLinks.Config.defaults());
        int[] ready = new int[1];
        w.medium.link(15).readinessListener(() -> ready[0]++);
        assertNotEquals(Link.NONE, w.send(0, 15, 101, 3));
        w.time.runUntil(() -> ready[0] > 0, END);
        assertEquals(1, ready[0]);
        assertEquals(1, w.medium.link(15).poll(w.got, 16));
        assertEquals(0, w.got.lastPeer);
        assertEquals(101, w.got.last.length);
        for (int i = 0; i < 101; i++) {
            assertEquals((byte) (3 + i * 7), w.got.last[i], "byte " + i);
        }
        // (101 + 4 framing bytes) * 8 / 32-bit flits = 27 flits; buffered mode adds no checksum flit
        assertEquals(27, w.medium.payloadFlits(101));
        assertEquals(27, w.network.flitsInjected());
        assertEquals(1, w.medium.framesDelivered());
        // zero-load latency of 6 hops with 1-cycle links and routers, then the fabric goes quiet: no timer armed
        w.time.runUntilIdle();
        long cycles = w.medium.cyclesStepped();
        assertTrue(cycles >= 6 * 2 + 27 && cycles < 60, "cycles stepped " + cycles);
        assertEquals(cycles, w.network.cycle());
        assertEquals(0, w.time.pendingEvents(), "an idle fabric arms nothing");
        assertEquals(0, w.time.nanoTime() % FabricLinks.CM5_CYCLE_NANOS, "cycles run on the 25 ns grid");
        assertEquals(101, w.medium.link(0).counters().txBytes());
        assertEquals(101, w.medium.link(15).counters().rxBytes());
    }

    @Test
    void hostWorkIsChargedPerFrameAndPerByteAndDelaysTheSend() {
        World w = new World(FabricConfig.defaults(), FabricLinks.Config.defaults());
        w.send(0, 1, 100, 0);
        w.time.runUntilIdle();
        w.medium.link(1).poll(w.got, 16);
        HostCpu s = w.cpus[0];
        HostCpu r = w.cpus[1];
        assertEquals(1, s.units(CostItem.DESCRIPTOR_RECLAIM));
        assertEquals(1, s.units(CostItem.DESCRIPTOR_POST));
        assertEquals(100, s.units(CostItem.COPY));
        assertEquals(1, r.units(CostItem.DESCRIPTOR_RECLAIM));
        assertEquals(1, r.units(CostItem.DESCRIPTOR_POST));
        assertEquals(100, r.units(CostItem.COPY));
    }

    /** @return the virtual time at which a 100-byte frame from node 0 reaches node 15, host work priced by table */
    private static long arrival(CostTable table) {
        World w = new World(FabricConfig.defaults(), FabricLinks.Config.defaults(), 16, table);
        long[] at = {-1};
        w.medium.link(15).readinessListener(() -> at[0] = w.time.nanoTime());
        w.send(0, 15, 100, 0);
        w.time.runUntilIdle();
        return at[0];
    }

    @Test
    void theSendLeavesWhenTheSendersCpuHasCopiedItIntoTheNi() {
        java.util.Map<CostItem, Long> prices = new java.util.EnumMap<>(CostItem.class);
        for (CostItem item : CostItem.values()) {
            prices.put(item, 0L);
        }
        prices.put(CostItem.COPY, 1_000L); // 1 ns per byte: the 100-byte commit keeps the CPU busy 100 ns
        CostTable copyOnly = CostTable.of("copy-only", "test", "none", "2026-11-24", prices, java.util.Map.of());
        long wireOnly = arrival(CostTable.zero());
        assertTrue(wireOnly > 0);
        assertEquals(wireOnly + 100, arrival(copyOnly), "the frame entered the NI 100 ns (4 cycles) later");
    }

    @Test
    void aFullNiQueueRefusesTheClaimPerClassAndOnWritableFollows() {
        World w = new World(FabricConfig.defaults().withInjectQueuePackets(2), FabricLinks.Config.defaults());
        Link l = w.medium.link(0);
        int[] ready = new int[1];
        l.readinessListener(() -> ready[0]++);
        assertNotEquals(Link.NONE, w.send(0, 3, 200, 0));
        assertNotEquals(Link.NONE, w.send(0, 3, 200, 0));
        assertEquals(Link.NONE, l.claim(3), "two requests fill a 2-packet NI queue");
        assertEquals(1, l.counters().txBackPressure());
        PacketClasses classes = l.capability(PacketClasses.class);
        int reply = classes.claim(3, Network.REPLY);
        assertNotEquals(Link.NONE, reply, "the reply queue is its own");
        l.abort(reply);
        l.poll(w.got, 16);
        assertEquals(0, w.got.writables, "nothing has left yet");
        w.time.runUntil(() -> ready[0] > 0, END);
        assertEquals(1, ready[0], "told once that the link is writable");
        l.poll(w.got, 16);
        assertEquals(1, w.got.writables);
        assertNotEquals(Link.NONE, l.claim(3));
    }

    @Test
    void aFullPayloadStoreRefusesTheClaimUntilAPacketIsDelivered() {
        World w = new World(FabricConfig.defaults(), new FabricLinks.Config(64, 2, 8, 25));
        w.send(0, 1, 64, 0);
        w.send(0, 1, 64, 0);
        assertEquals(Link.NONE, w.medium.link(0).claim(2));
        w.time.runUntilIdle();
        w.medium.link(0).poll(w.got, 16);
        assertEquals(1, w.got.writables);
        assertNotEquals(Link.NONE, w.medium.link(0).claim(2));
    }

    @Test
    void aReplyFrameArrivesMarkedAsReply() {
        World w = new World(FabricConfig.defaults(), FabricLinks.Config.defaults());
        Link l = w.medium.link(2);
        int h = l.capability(PacketClasses.class).claim(7, Network.REPLY);
        l.txBuffer(h).set(ValueLayout.JAVA_BYTE, 0, (byte) 42);
        l.commit(h, 1);
        w.time.runUntilIdle();
        Link r = w.medium.link(7);
        int[] cls = {-1};
        r.poll(new LinkHandler() {
            @Override
            public void onFrame(Link link, int rxHandle) {
                cls[0] = link.capability(PacketClasses.class).rxClass(rxHandle);
                link.release(rxHandle);
            }

            @Override
            public void onWritable(Link link) {
            }
        }, 4);
        assertEquals(Network.REPLY, cls[0]);
    }

    @Test
    void dropsOnBlockAreInvisibleToTheSenderAndCountedByTheMedium() {
        World w = new World(FabricConfig.defaults().withBufferDepth(2).withDiscipline(Discipline.DROP_WHEN_BLOCKED),
                new FabricLinks.Config(64, 16, 64, 25));
        int[] senders = {0, 2, 3, 4, 5, 8, 9, 13};
        for (int i = 0; i < 5; i++) {
            for (int s : senders) {
                assertNotEquals(Link.NONE, w.send(s, 1, 40, i));
            }
        }
        for (int i = 0; i < 50 && w.time.pendingEvents() > 0; i++) {
            w.time.runFor(10_000);
            w.medium.link(1).poll(w.got, 64);
        }
        assertEquals(0, w.time.pendingEvents(), "drained");
        // eight worms converge on node 1's one ejection channel: heads that find it taken die at once (timeout 0)
        assertTrue(w.medium.framesDropped() > 0, "drops: " + w.medium.framesDropped());
        assertEquals(w.medium.framesDropped(), w.medium.drops(DropReason.EJECT_BLOCKED)
                + w.medium.drops(DropReason.HEAD_BLOCKED));
        assertEquals(w.network.packetsDropped(), w.medium.framesDropped());
        assertEquals(40, w.medium.framesDropped() + w.medium.framesDelivered());
        assertEquals(w.medium.framesDelivered(), w.medium.link(1).counters().rxFrames());
        for (int sender : senders) {
            Link s = w.medium.link(sender);
            assertEquals(5, s.counters().txFrames());
            assertEquals(0, s.counters().txDrops() + s.counters().txErrors(), "the sender learns nothing");
            for (int i = 0; i < 16; i++) {
                assertNotEquals(Link.NONE, s.claim(6), "every store slot came back, delivered or dropped");
            }
        }
    }

    @Test
    void aReceiverHoldingAllItsSlotsBacksTheFabricUpUntilItReleases() {
        World w = new World(FabricConfig.defaults(), new FabricLinks.Config(64, 16, 1, 25));
        w.got.release = false;
        w.send(0, 1, 64, 1);
        w.send(0, 1, 64, 2);
        w.time.runFor(100_000);
        Link r = w.medium.link(1);
        assertEquals(1, r.poll(w.got, 16));
        assertEquals(1, w.got.last[0]);
        assertFalse(w.network.idle(), "the second frame waits in the fabric");
        assertEquals(0, r.poll(w.got, 16));
        r.release(w.got.lastHandle);
        w.time.runFor(100_000);
        assertEquals(1, r.poll(w.got, 16));
        assertEquals(2, w.got.last[0]);
        assertEquals(0, r.counters().rxDrops(), "nothing lost: the buffered fabric waited");
    }

    @Test
    void misuseIsRefusedAndChangesNothing() {
        World w = new World(FabricConfig.defaults(), FabricLinks.Config.defaults());
        Link l = w.medium.link(4);
        assertFalse(l.canBroadcast());
        assertEquals(16, l.peers());
        assertEquals(4, l.self());
        assertThrows(IllegalArgumentException.class, () -> l.claim(4), "self");
        assertThrows(IllegalArgumentException.class, () -> l.claim(16), "beyond the link nodes");
        assertThrows(IllegalArgumentException.class, () -> l.claim(-1));
        assertThrows(IllegalArgumentException.class, () -> l.claim(Link.BROADCAST), "no broadcast");
        assertThrows(IllegalArgumentException.class, () -> l.capability(PacketClasses.class).claim(1, 2), "class");
        assertThrows(IllegalStateException.class, () -> l.txBuffer(0), "never claimed");
        assertThrows(IllegalStateException.class, () -> l.commit(0, 1));
        assertThrows(IllegalStateException.class, () -> l.release(0), "no frame held");
        assertThrows(IllegalStateException.class, () -> l.rxPeer(0));
        int h = l.claim(5);
        assertThrows(IllegalArgumentException.class, () -> l.commit(h, 0));
        assertThrows(IllegalArgumentException.class, () -> l.commit(h, 257));
        assertEquals(0, l.counters().txFrames(), "a refused commit sends nothing");
        l.commit(h, 256);
        assertThrows(IllegalStateException.class, () -> l.commit(h, 1), "already committed");
        assertThrows(IllegalStateException.class, () -> l.abort(h));
        int a = l.claim(5);
        l.abort(a);
        assertThrows(IllegalStateException.class, () -> l.commit(a, 1), "aborted");
        w.time.runUntilIdle();
        Link r = w.medium.link(5);
        w.got.release = false;
        assertEquals(1, r.poll(w.got, 4));
        r.release(w.got.lastHandle);
        assertThrows(IllegalStateException.class, () -> r.release(w.got.lastHandle), "released twice");
        l.close();
        assertThrows(IllegalStateException.class, () -> l.claim(5));
        assertThrows(IllegalStateException.class, () -> l.poll(w.got, 1));
        assertEquals("fabric4", l.name());
        assertEquals(256, l.mtu());
        assertEquals(1, l.counters().txFrames());
        assertSame(null, l.capability(String.class));
        assertThrows(IllegalArgumentException.class,
                () -> new FabricLinks(w.network, w.time, HostCpu.forNodes(17, CostTable.zero(), w.time),
                        FabricLinks.Config.defaults()), "more link nodes than fabric nodes");
        assertThrows(IllegalArgumentException.class, () -> new FabricLinks.Config(256, 4, 4, 0));
    }

    @Test
    void nodesBeyondTheLinksAreFreeAndForeignPacketsAreCountedNotDelivered() {
        World w = new World(FabricConfig.defaults(), FabricLinks.Config.defaults(), 8);
        assertEquals(8, w.medium.link(0).peers());
        w.network.port(12).inject(3, 4, Network.REQUEST, 0, 77);
        w.send(0, 3, 10, 0);
        w.time.runUntilIdle();
        w.network.drain(100); // the foreign packet was injected outside the medium's cycles
        assertEquals(1, w.medium.foreignPackets());
        assertEquals(1, w.medium.link(3).poll(w.got, 16));
        assertEquals(0, w.got.lastPeer);
    }

    @Test
    void aFrameAndItsReplyAllocateNothingOnceWarm() {
        World w = new World(FabricConfig.defaults(), FabricLinks.Config.defaults());
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long me = Thread.currentThread().threadId();
        Link a = w.medium.link(0);
        Link b = w.medium.link(9);
        LinkHandler releasing = new LinkHandler() {
            @Override
            public void onFrame(Link link, int rxHandle) {
                link.release(rxHandle);
            }

            @Override
            public void onWritable(Link link) {
            }
        };
        for (int round = 0; round < 2; round++) {
            long before = threads.getThreadAllocatedBytes(me);
            for (int i = 0; i < 2_000; i++) {
                w.send(0, 9, 64, i);
                w.time.runUntilIdle();
                b.poll(releasing, 4);
                w.send(9, 0, 16, i);
                w.time.runUntilIdle();
                a.poll(releasing, 4);
            }
            long allocated = threads.getThreadAllocatedBytes(me) - before;
            if (round == 1) {
                assertTrue(allocated < 4096, "2000 round trips allocated " + allocated + " bytes");
            }
        }
    }
}
