package io.nicbridge.protocols.pupa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.core.LoopbackLink;
import io.nicbridge.protocols.core.MessageChannel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The benchmarking view runs what it says, batch after batch, without the core refusing or drifting off the path it
 * measures; the names cover every operation the core charges, each in exactly one Table 2 component; and a message's
 * path charges the operations its documentation lists.
 */
class PupaOperationsTest {
    private static final int ROUNDS = 3;
    private static final int B = PupaOperations.BATCH;

    @Test
    void everyOperationAndPathRunsBatchAfterBatch() {
        PupaOperations o = new PupaOperations();
        for (int r = 0; r < ROUNDS; r++) {
            o.headerBuild();
            o.prepareEnqueues();
            for (int i = 0; i < B; i++) {
                o.fifoEnqueue();
            }
            o.preparePoolAllocs();
            for (int i = 0; i < B; i++) {
                o.poolAlloc();
            }
            o.pack();
            assertEquals(0, o.headerOut(), "a first transmission that asks for no acknowledgement");
            o.control();
            assertTrue(o.multicastPack() > 0);
            assertFalse(o.multicastEntry(), "a first transmission that asks for no acknowledgement");
            o.retransmit();
            o.ackTimer();
            o.prepareAcks();
            for (int i = 0; i < B; i++) {
                o.ackProcess(i);
            }
            o.prepareNack();
            o.nackProcess();
            o.creditProcess();
            assertTrue(o.frameParse());
            assertTrue(o.multicastFind() > 0, "node 1's entry found");
            o.prepareHeaderIns();
            for (int i = 0; i < B; i++) {
                o.headerIn();
            }
            o.prepareMbufHolds();
            for (int i = 0; i < B; i++) {
                o.mbufHold(i);
            }
            o.prepareMbufReleases();
            for (int i = 0; i < B; i++) {
                assertEquals(i, o.mbufRelease(i), "each held buffer's last message gives the buffer back");
            }
            o.preparePoolFrees();
            for (int i = 0; i < B; i++) {
                o.poolFree(i);
            }
            o.prepareDequeues();
            for (int i = 0; i < B; i++) {
                assertEquals(4, o.fifoDequeue());
            }
            assertEquals(4, o.reassemble());
        }
    }

    @Test
    void acceptSeesTheExpectedMessage() {
        PupaOperations o = new PupaOperations();
        assertEquals(0, o.accept(), "in order, with room");
    }

    @Test
    void thePathsDeliverEveryMessageAndAnswerAcksAndNacks() {
        PupaOperations o = new PupaOperations();
        long before = o.delivered();
        for (int r = 0; r < ROUNDS; r++) {
            for (int size : new int[] {PupaOperations.SMALL, PupaOperations.SECONDARY, PupaOperations.CARD_BUFFER}) {
                o.prepareSends();
                for (int i = 0; i < B; i++) {
                    assertEquals(MessageChannel.OK, o.sendPath(size, i));
                }
                o.prepareReceives(size);
                for (int i = 0; i < B; i++) {
                    assertEquals(1, o.receivePath(), () -> size + " B: one message delivered per frame: " + o);
                }
            }
        }
        assertEquals(before + 2L * ROUNDS * 3 * B, o.delivered(), "the send batches reach the receiver too");
        PupaOperations acks = new PupaOperations(); // these discard data frames: a view of their own
        for (int r = 0; r < ROUNDS; r++) {
            acks.prepareAckPath();
            for (int i = 0; i < B; i++) {
                assertEquals(1, acks.ackPath());
            }
            acks.prepareNackPath();
            for (int i = 0; i < B; i++) {
                assertEquals(1, acks.nackPath());
            }
        }
        assertTrue(acks.toString().contains("nacks " + ROUNDS * B + ","), acks::toString);
    }

    @Test
    void thePathsAllocateNothing() {
        PupaOperations o = new PupaOperations();
        Runnable round = () -> {
            o.prepareReceives(PupaOperations.CARD_BUFFER);
            for (int i = 0; i < B; i++) {
                o.receivePath();
            }
        };
        for (int i = 0; i < 2_000; i++) {
            round.run();
        }
        long before = allocated();
        for (int i = 0; i < 1_000; i++) {
            round.run();
        }
        long bytes = allocated() - before;
        assertTrue(bytes < 1024, 1_000 * B + " messages sent and received allocated " + bytes + " bytes");
    }

    @Test
    void everyOperationIsInExactlyOneComponentAndTheCoreChargesThemAll() {
        assertEquals(PupaOperations.ALL.size(), new HashSet<>(PupaOperations.ALL).size());
        assertTrue(PupaOperations.ALL.containsAll(PupaOperations.PROTOCOL));
        assertTrue(PupaOperations.ALL.containsAll(PupaOperations.BUFFER_AND_HEADER));
        for (String op : PupaOperations.PROTOCOL) {
            assertFalse(PupaOperations.BUFFER_AND_HEADER.contains(op), op);
        }
        // a table pricing only these names is enough for the core: it charges no other operation
        Map<String, Long> prices = new HashMap<>();
        PupaOperations.ALL.forEach(op -> prices.put(op, 1_000L));
        CostTable table = CostTable.parse("name = t\ncommand = test\nmachine = test\ndate = now\n"
                + "handler-dispatch.ps-per-call = 0\ntimer-arm.ps-per-call = 0\ntimer-cancel.ps-per-call = 0\n"
                + "table-lookup.ps-per-call = 0\ndescriptor-post.ps-per-call = 0\n"
                + "descriptor-reclaim.ps-per-call = 0\ncopy.ps-per-byte = 0\nchecksum.ps-per-byte = 0\n"
                + "pio-word.ps-per-word = 0\ninterrupt.ps-per-interrupt = 0\n", "test").withOperations(prices, Map.of());
        Link[] links = LoopbackLink.pair(1500);
        HostCpu cpu = HostCpu.on(new VirtualTimeBase(1), table, "priced");
        PupaCore core = new PupaCore(links[0], () -> 0, PupaConfig.defaults(), cpu); // refused if a name lacked
        assertEquals(MessageChannel.OK, core.send(1, Arena.ofAuto().allocate(8), 0, 8, 0, true));
        assertEquals(4_000, cpu.totalPicos(), "fifo-enqueue, header-build, pack and header-out; nothing else");
        Link[] broadcast = LoopbackLink.pair(1500, true);
        HostCpu mcpu = HostCpu.on(new VirtualTimeBase(1), table, "priced multicast");
        PupaCore mcore = new PupaCore(broadcast[0], () -> 0, PupaConfig.defaults(), mcpu);
        assertEquals(MessageChannel.OK, mcore.multicast(0b10, Arena.ofAuto().allocate(8), 0, 8, 0));
        assertEquals(4_000, mcpu.totalPicos(), "fifo-enqueue, header-build, multicast-entry and -pack; nothing else");
        assertEquals(1, mcore.counters().multicastFrames());
    }

    /** A message on each receive path charges the operations of that path once (the table in the class doc). */
    @Test
    void eachPathChargesItsOperations() {
        for (int size : new int[] {PupaOperations.SMALL, PupaOperations.SECONDARY, PupaOperations.CARD_BUFFER}) {
            Link[] links = LoopbackLink.pair(1500);
            HostCpu[] cpus = {HostCpu.uncharged("0"), HostCpu.uncharged("1")};
            PupaCore a = new PupaCore(links[0], () -> 0, PupaConfig.defaults(), cpus[0]);
            PupaCore b = new PupaCore(links[1], () -> 0, PupaConfig.defaults(), cpus[1]);
            MemorySegment m = Arena.ofAuto().allocate(size);
            assertEquals(MessageChannel.OK, a.send(1, m, 0, size, 1, true));
            links[1].poll(b, 1);
            assertEquals(1, b.deliver((p, d, o, l) -> { }, 1));
            int pool = size < PupaWire.INLINE_LIMIT ? 0 : (size + 511) / 512; // send-pool buffers of 512 B
            boolean secondary = size >= PupaWire.INLINE_LIMIT && size <= PupaConfig.defaults().receiveBufferSize();
            assertCalls(cpus[0], PupaOperations.FIFO_ENQUEUE, 1, PupaOperations.HEADER_BUILD, 1,
                    PupaOperations.POOL_ALLOC, pool, PupaOperations.PACK, 1, PupaOperations.HEADER_OUT, 1);
            assertCalls(cpus[1], PupaOperations.FRAME_PARSE, 1, PupaOperations.CREDIT_PROCESS, 1,
                    PupaOperations.ACCEPT, 1, PupaOperations.HEADER_IN, 1, PupaOperations.POOL_ALLOC,
                    secondary ? 1 : 0, PupaOperations.POOL_FREE, secondary ? 1 : 0, PupaOperations.MBUF_HOLD,
                    size > PupaConfig.defaults().receiveBufferSize() ? 1 : 0, PupaOperations.FIFO_DEQUEUE, 1);
        }
    }

    private static void assertCalls(HostCpu cpu, Object... nameAndCalls) {
        for (int i = 0; i < nameAndCalls.length; i += 2) {
            String op = (String) nameAndCalls[i];
            assertEquals(((Integer) nameAndCalls[i + 1]).longValue(), cpu.operation(op).calls(), cpu.name() + " " + op);
        }
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
