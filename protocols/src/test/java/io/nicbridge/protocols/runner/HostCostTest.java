package io.nicbridge.protocols.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The host cost model in virtual time: the zero table gives the wire-only timing, the measured table adds exactly
 * what the charges say, and a busy CPU leaves its arrivals queued in the medium's receive buffers, which overflow.
 */
class HostCostTest {
    private static final long LATENCY = 1_000;
    private static final long NANOS_PER_BYTE = 80;
    private static final int MESSAGE = 32;
    private static final int HEADER = 16;

    /** Two go-back-N nodes on an in-memory medium; node 0 offers {@code messages}, one every {@code gap} ns. */
    private static final class World {
        final VirtualTimeBase time = new VirtualTimeBase(1);
        final HostCpu[] cpus;
        final InMemoryMedium medium;
        final NodeRunner runner;
        final List<Integer> received = new ArrayList<>();
        final MemorySegment message = MemorySegment.ofArray(new byte[MESSAGE]);
        long deliveredAt = -1;
        int offered;

        World(CostTable sender, CostTable receiver, int rxSlots, int window, int messages, long gap) {
            cpus = new HostCpu[] {HostCpu.on(time, sender, "node0"), HostCpu.on(time, receiver, "node1")};
            medium = new InMemoryMedium(time, new InMemoryMedium.Config(2, 64, 8, rxSlots, LATENCY, NANOS_PER_BYTE),
                    FrameFaults.NONE, cpus);
            NodeApplication app = node -> {
                if (node.id() == 1) {
                    ((GoBackNCore) node.core()).deliver((peer, data, off, len) -> {
                        received.add(data.get(ValueLayout.JAVA_INT_UNALIGNED, off));
                        deliveredAt = cpus[1].now();
                    }, Integer.MAX_VALUE);
                }
            };
            runner = new NodeRunner(time, new Link[] {medium.link(0), medium.link(1)}, cpus,
                    (link, clock, cpu) -> new GoBackNCore(link, clock, new GoBackNConfig(window, MESSAGE, 1_000_000),
                            cpu), app, NodeSlowness.NONE);
            Timer[] offerTimer = new Timer[1];
            offerTimer[0] = time.newTimer("app0.offer", () -> {
                message.set(ValueLayout.JAVA_INT_UNALIGNED, 0, offered);
                if (((GoBackNCore) runner.node(0).core()).offer(1, message, 0, MESSAGE) == MessageChannel.OK) {
                    offered++;
                }
                runner.node(0).applicationActed();
                if (offered < messages) {
                    offerTimer[0].armAfter(gap);
                }
            });
            offerTimer[0].armAt(0);
        }

        World run() {
            time.runUntilIdle();
            return this;
        }
    }

    private static long price(CostTable t, CostItem item) {
        return t.picos(item);
    }

    /** Picoseconds to the next whole nanosecond, as a CPU's busy time is rounded. */
    private static long ceilNanos(long picos) {
        return (picos + 999) / 1_000;
    }

    @Test
    void withTheZeroTableOneMessageTakesWireTimeOnly() {
        World w = new World(CostTable.zero(), CostTable.zero(), 8, 4, 1, 0).run();
        assertEquals(List.of(0), w.received);
        assertEquals(LATENCY + (HEADER + MESSAGE) * NANOS_PER_BYTE, w.deliveredAt, "DATA on the wire");
        assertEquals(w.deliveredAt + LATENCY + HEADER * NANOS_PER_BYTE, w.runner.workEndNanos(), "then the ACK");
        assertEquals(0, w.cpus[0].totalPicos() + w.cpus[1].totalPicos());
    }

    /**
     * One 32-byte message and its ACK, no faults, priced by the measured table: the delivery and the end of the
     * exchange come later than on the wire alone by exactly the host work on each node's critical path, step by step
     * as the runner, the core and the medium charge it.
     */
    @Test
    void withTheMeasuredTableOneMessageIsLaterByExactlyWhatTheChargesSay() {
        CostTable t = CostTable.measured();
        World zero = new World(CostTable.zero(), CostTable.zero(), 8, 4, 1, 0).run();
        World w = new World(t, t, 8, 4, 1, 0).run();
        assertEquals(List.of(0), w.received);
        long copy = price(t, CostItem.COPY);
        long crc = price(t, CostItem.CHECKSUM);
        long post = price(t, CostItem.DESCRIPTOR_POST);
        long reclaim = price(t, CostItem.DESCRIPTOR_RECLAIM);
        long dispatch = price(t, CostItem.HANDLER_DISPATCH);
        long interrupt = price(t, CostItem.INTERRUPT);
        int frame = HEADER + MESSAGE;
        // Node 0 at t=0: offer copies the message in; the send copies it into the frame, checksums header and payload,
        // copies the frame into the claimed buffer (claim = reclaim, commit = post); the frame leaves then.
        long sendData = copy * MESSAGE + reclaim + copy * MESSAGE + crc * (12 + MESSAGE) + copy * frame + post;
        long dataArrives = ceilNanos(sendData) + LATENCY + frame * NANOS_PER_BYTE;
        // Node 1: the interrupt, then the dispatch: poll (reclaim), copy out, release (post), checksum, copy into the
        // receive ring, then the ACK (claim, checksum of the header, copy, commit); the delivery follows.
        long handlerStart = ceilNanos(dataArrives * 1_000 + interrupt);
        long receive = dispatch + reclaim + copy * frame + post + crc * (12 + MESSAGE) + copy * MESSAGE
                + reclaim + crc * 12 + copy * HEADER + post;
        long delivered = handlerStart + ceilNanos(receive);
        assertEquals(delivered, w.deliveredAt);
        // Node 0: the ACK's interrupt and dispatch, poll, copy out, release, checksum; the timer is cancelled.
        long ackArrives = delivered + LATENCY + HEADER * NANOS_PER_BYTE;
        long ackStart = ceilNanos(ackArrives * 1_000 + interrupt);
        long ackWork = dispatch + reclaim + copy * HEADER + post + crc * 12 + price(t, CostItem.TIMER_CANCEL);
        assertEquals(ackStart + ceilNanos(ackWork), w.runner.workEndNanos());
        assertTrue(w.deliveredAt > zero.deliveredAt, "host work delays the delivery");
        assertNotEquals(zero.runner.traceDigest(), w.runner.traceDigest());
        assertEquals(1, w.cpus[0].units(CostItem.TIMER_ARM));
        assertEquals(1, w.cpus[0].units(CostItem.TIMER_CANCEL));
        assertEquals(2 * MESSAGE + frame + HEADER, w.cpus[0].units(CostItem.COPY));
        assertTrue(w.runner.costSummary().startsWith("host cost table measured ("), w.runner.costSummary());
    }

    /**
     * A receiver whose CPU needs 100 us per dispatch gets a frame every 10 us: while it is busy, arrivals wait in its 4
     * receive buffers, the rest are dropped and counted, and go-back-N's timeouts recover every message in order.
     * With the zero table the same traffic loses nothing.
     */
    @Test
    void aSlowReceiverOverflowsItsReceiveBuffersAndGoBackNRecovers() {
        Map<CostItem, Long> slow = new EnumMap<>(CostItem.class);
        for (CostItem item : CostItem.values()) {
            slow.put(item, 0L);
        }
        slow.put(CostItem.HANDLER_DISPATCH, 100_000_000L);
        CostTable slowCpu = CostTable.of("slow-test", "HostCostTest: 100 us per dispatch", "none", "2026-11-24", slow,
                Map.of());
        int messages = 40;
        World fast = new World(CostTable.zero(), CostTable.zero(), 4, 8, messages, 10_000).run();
        World w = new World(CostTable.zero(), slowCpu, 4, 8, messages, 10_000).run();
        List<Integer> inOrder = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            inOrder.add(i);
        }
        assertEquals(inOrder, fast.received);
        assertEquals(0, fast.medium.link(1).counters().rxDrops());
        assertEquals(inOrder, w.received, "every message once, in order");
        assertTrue(w.medium.link(1).counters().rxDrops() > 0, "the busy receiver's buffers overflowed");
        GoBackNCore sender = (GoBackNCore) w.runner.node(0).core();
        assertTrue(sender.counters().timeouts() > 0 && sender.counters().retransmitted() > 0, sender.toString());
        assertTrue(w.runner.workEndNanos() > fast.runner.workEndNanos());
        assertTrue(w.cpus[1].units(CostItem.HANDLER_DISPATCH) * 100_000 <= w.runner.workEndNanos(),
                "the receiver's dispatches never overlap");
    }
}
