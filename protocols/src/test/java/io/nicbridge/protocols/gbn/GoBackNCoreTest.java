package io.nicbridge.protocols.gbn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.ProtocolCore;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

class GoBackNCoreTest {
    private static final long RTO = 100_000;
    private static final GoBackNConfig CONFIG = new GoBackNConfig(4, 32, RTO);

    /** Three nodes on an in-memory medium; node 2 is a raw link (no core) used to inject frames. */
    private static final class World {
        final VirtualTimeBase time = new VirtualTimeBase(1);
        final InMemoryMedium medium;
        final NodeRunner runner;
        final List<String> received = new ArrayList<>();
        boolean consume = true;

        World(LongPredicate dropFrame) {
            this(dropFrame, CONFIG);
        }

        World(LongPredicate dropFrame, GoBackNConfig config) {
            HostCpu[] cpus = HostCpu.forNodes(3, CostTable.zero(), time);
            medium = new InMemoryMedium(time, new InMemoryMedium.Config(3, 64, 8, 16, 1_000, 80),
                    dropFrame == null ? FrameFaults.NONE : (i, s, d, now, fate) -> fate.drop = dropFrame.test(i), cpus);
            Link[] links = {medium.link(0), medium.link(1)};
            NodeApplication app = node -> {
                if (consume) {
                    core(node.id()).deliver((peer, data, off, len) -> received.add(peer + ">" + node.id() + ":"
                            + data.get(ValueLayout.JAVA_INT_UNALIGNED, off)), Integer.MAX_VALUE);
                }
            };
            runner = new NodeRunner(time, links, java.util.Arrays.copyOf(cpus, 2),
                    (link, clock, cpu) -> new GoBackNCore(link, clock, config, cpu), app, NodeSlowness.NONE);
        }

        GoBackNCore core(int node) {
            return (GoBackNCore) runner.node(node).core();
        }

        int offer(int from, int to, int value) {
            MemorySegment m = MemorySegment.ofArray(new byte[8]);
            m.set(ValueLayout.JAVA_INT_UNALIGNED, 0, value);
            int r = core(from).offer(to, m, 0, 8);
            runner.node(from).applicationActed();
            return r;
        }
    }

    @Test
    void deliversInOrderWithoutRetransmittingOnAPerfectMedium() {
        World w = new World(null);
        List<String> expect = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            while (w.offer(0, 1, i) == MessageChannel.BACK_PRESSURE) {
                w.time.step();
            }
            expect.add("0>1:" + i);
        }
        w.time.runUntilIdle();
        assertEquals(expect, w.received);
        GoBackNCounters c = w.core(0).counters();
        assertEquals(100, c.dataSent());
        assertEquals(0, c.retransmitted());
        assertEquals(0, c.timeouts());
        assertEquals(100, w.core(1).counters().delivered());
        assertTrue(w.core(1).counters().acksSent() > 0);
        assertEquals(0, w.core(0).bufferedMessages());
        assertEquals(ProtocolCore.NO_DEADLINE, w.core(0).nextDeadline());
    }

    @Test
    void delayedAcksWaitForDataToCarryThemAndGoAloneAfterTheDelayOrAtHalfAWindow() {
        World w = new World(null, CONFIG.withAckDelay(20_000));
        w.offer(0, 1, 1);
        w.time.runFor(10_000);
        assertEquals(List.of("0>1:1"), w.received);
        assertEquals(0, w.core(1).counters().acksSent(), "the ack waits for a DATA frame to carry it");
        assertEquals(1, w.core(0).inFlight(1));
        w.time.runUntilIdle();
        assertEquals(1, w.core(1).counters().acksSent(), "the delay expired: an explicit ACK");
        assertEquals(0, w.core(0).inFlight(1));
        w.offer(0, 1, 2);
        w.time.runFor(5_000);
        w.offer(1, 0, 3); // the "reply", within the delay
        w.time.runUntilIdle();
        assertEquals(1, w.core(1).counters().acksSent(), "node 1's DATA carried its ack");
        assertEquals(0, w.core(0).inFlight(1));
        w.offer(0, 1, 4);
        w.offer(0, 1, 5);
        w.time.runFor(8_000);
        assertEquals(2, w.core(1).counters().acksSent(), "w/2 = 2 arrivals unacknowledged: an ACK at once");
        assertThrows(IllegalArgumentException.class, () -> CONFIG.withAckDelay(RTO));
    }

    @Test
    void aLostFrameIsResentAfterTheTimeoutWithEverythingAfterIt() {
        World w = new World(i -> i == 1); // the second frame on the medium: data #1 from node 0
        for (int i = 0; i < 4; i++) {
            assertEquals(MessageChannel.OK, w.offer(0, 1, i));
        }
        w.time.runUntilIdle();
        assertEquals(List.of("0>1:0", "0>1:1", "0>1:2", "0>1:3"), w.received);
        GoBackNCounters c = w.core(0).counters();
        assertEquals(1, c.timeouts());
        assertEquals(3, c.retransmitted(), "go back N: #1, #2 and #3 again");
        assertEquals(2, w.core(1).counters().outOfOrder(), "#2 and #3 arrived before #1 and were dropped");
        assertTrue(w.time.nanoTime() >= RTO);
    }

    @Test
    void backPressureAtTwoWindowsAndASlowReceiverHoldsTheSender() {
        World w = new World(null);
        w.consume = false;
        int accepted = 0;
        while (w.offer(0, 1, accepted) == MessageChannel.OK) {
            accepted++;
        }
        assertEquals(8, accepted, "2w messages queued or in flight per peer");
        assertEquals(4, w.core(0).inFlight(1));
        w.time.runFor(10 * RTO);
        // The receiver holds 2w = 8 undelivered; everything was acknowledged, the sender accepts more.
        assertEquals(8, w.core(1).bufferedMessages());
        for (int i = 8; i < 12; i++) {
            assertEquals(MessageChannel.OK, w.offer(0, 1, i));
        }
        w.time.runFor(3 * RTO);
        assertTrue(w.core(1).counters().receiveOverflow() > 0, "no room at the receiver: dropped, to be resent");
        w.consume = true;
        w.time.runFor(20 * RTO);
        assertEquals(12, w.received.size());
        for (int i = 0; i < 12; i++) {
            assertEquals("0>1:" + i, w.received.get(i));
        }
        assertTrue(w.core(1).bufferedMessages() == 0 && w.core(0).bufferedMessages() == 0);
    }

    @Test
    void malformedAndCorruptFramesAreCountedAndDropped() {
        World w = new World(null);
        Link raw = w.medium.link(2);
        // Too short, bad magic, a length field that disagrees, bad CRC, an ACK with a payload.
        inject(raw, new byte[5]);
        byte[] good = frame(GoBackNWire.DATA, 0, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        byte[] badMagic = good.clone();
        badMagic[0] = 0x48;
        inject(raw, badMagic);
        byte[] badLength = good.clone();
        badLength[3] = 9;
        inject(raw, badLength);
        byte[] badCrc = good.clone();
        badCrc[20] ^= 0x10;
        inject(raw, badCrc);
        byte[] badType = good.clone();
        badType[1] = 7;
        inject(raw, badType);
        w.time.runUntilIdle();
        GoBackNCounters c = w.core(0).counters();
        assertEquals(4, c.malformed());
        assertEquals(1, c.corrupt());
        assertEquals(0, c.delivered());
        // The well-formed frame from node 2 is accepted.
        inject(raw, good);
        w.time.runUntilIdle();
        assertEquals(List.of("2>0:" + MemorySegment.ofArray(new byte[] {1, 2, 3, 4}).get(ValueLayout.JAVA_INT_UNALIGNED, 0)),
                w.received);
    }

    @Test
    void misuseIsRefusedWithTheBadArgument() {
        World w = new World(null);
        MemorySegment m = MemorySegment.ofArray(new byte[64]);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> w.core(0).offer(0, m, 0, 8)).getMessage()
                .contains("peer"));
        assertThrows(IllegalArgumentException.class, () -> w.core(0).offer(7, m, 0, 8));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> w.core(0).offer(1, m, 0, 33)).getMessage()
                .contains("length"));
        assertThrows(IllegalArgumentException.class, () -> new GoBackNConfig(3, 32, RTO));
        assertThrows(IllegalArgumentException.class, () -> new GoBackNConfig(4, 32, 0));
        assertThrows(IllegalArgumentException.class,
                () -> new GoBackNCore(w.medium.link(2), w.time, new GoBackNConfig(4, 60, RTO),
                        HostCpu.on(w.time, CostTable.zero(), "node2")));
        assertEquals(16, CONFIG.buffersPerPeer());
    }

    private static void inject(Link raw, byte[] bytes) {
        int h = raw.claim(0);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, raw.txBuffer(h), 0, bytes.length);
        raw.commit(h, bytes.length);
    }

    private static byte[] frame(byte type, int seq, byte[] payload) {
        byte[] f = new byte[GoBackNWire.HEADER + payload.length];
        MemorySegment s = MemorySegment.ofArray(f);
        GoBackNWire.writeHeader(s, type, payload.length, seq, 0);
        System.arraycopy(payload, 0, f, GoBackNWire.HEADER, payload.length);
        s.set(GoBackNWire.U32, GoBackNWire.OFF_CRC, GoBackNWire.crc(new java.util.zip.CRC32C(), f, payload.length));
        return f;
    }
}
