package io.nicbridge.protocols.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

/** The Active Messages core on two nodes of an in-memory medium in virtual time, the application polling after every event. */
class AmCoreTest {
    static final int BUFFER = 64;
    static final long RTO = 100_000;
    static final AmConfig CONFIG = new AmConfig(4, BUFFER, RTO, 10_000, 1024);
    static final int ECHO = 1;
    static final int PONG = 2;
    static final int SILENT = 3;
    static final int STORED = 4;
    static final int GOT = 5;

    static final class World {
        final VirtualTimeBase time = new VirtualTimeBase(1);
        final NodeRunner runner;
        final List<String> events = new ArrayList<>();
        boolean polling = true;

        World(LongPredicate drop, IntFunction<AmConfig> config) {
            HostCpu[] cpus = HostCpu.forNodes(2, CostTable.zero(), time);
            InMemoryMedium medium = new InMemoryMedium(time, new InMemoryMedium.Config(2, CONFIG.linkMtu(), 8, 16,
                    1_000, 80), drop == null ? FrameFaults.NONE : (i, s, d, now, fate) -> fate.drop = drop.test(i),
                    cpus);
            runner = new NodeRunner(time, new Link[] {medium.link(0), medium.link(1)}, cpus, (link, clock, cpu) -> {
                AmCore am = new AmCore(link, clock, config.apply(link.self()), cpu);
                int me = link.self();
                am.register(ECHO, (t, a0, a1, a2, a3) -> {
                    events.add(me + " echo from " + t.source() + ": " + a0 + "," + a1 + "," + a2 + "," + a3);
                    core(me).reply(t, PONG, a0 + 1, a1 + 1, a2 + 1, a3 + 1);
                });
                am.register(PONG, (t, a0, a1, a2, a3) -> events.add(me + " pong from " + t.source() + ": " + a0 + ","
                        + a1 + "," + a2 + "," + a3));
                am.register(SILENT, (t, a0, a1, a2, a3) -> events.add(me + " silent " + a0));
                am.register(STORED, (t, a0, a1, a2, a3) -> events.add(me + " stored " + a0 + "+" + a1 + " arg " + a2));
                am.register(GOT, (t, a0, a1, a2, a3) -> events.add(me + " got " + a0 + "+" + a1 + " arg " + a2));
                return am;
            }, node -> {
                if (polling) {
                    ((AmCore) node.core()).poll();
                }
            }, NodeSlowness.NONE);
        }

        World() {
            this(null, self -> CONFIG);
        }

        AmCore core(int node) {
            return (AmCore) runner.node(node).core();
        }

        void acted(int node) {
            runner.node(node).applicationActed();
        }

        void run() {
            time.runUntilIdle();
        }
    }

    @Test
    void aRequestRunsItsHandlerWhichRepliesAndTheReplyCarriesTheChannelAck() {
        World w = new World();
        assertEquals(AmCore.OK, w.core(0).request(1, ECHO, 1, 2, 3, 4));
        w.acted(0);
        w.run();
        assertEquals(List.of("1 echo from 0: 1,2,3,4", "0 pong from 1: 2,3,4,5"), w.events);
        assertEquals(0, w.core(0).outstanding(1));
        assertEquals(0, w.core(1).counters().acksSent(), "the reply answers the request: no explicit AM ack");
        assertEquals(0, w.core(1).channel().counters().acksSent(), "the reply carried the channel's ack");
        assertEquals(1, w.core(0).channel().counters().acksSent(), "the reply itself is acked when the delay ends");
        assertEquals(0, w.core(0).bufferedMessages() + w.core(1).bufferedMessages(), "every buffer is free again");
    }

    @Test
    void aRequestWithoutAReplyIsAcknowledgedExplicitly() {
        World w = new World();
        w.core(0).request(1, SILENT, 7, 0, 0, 0);
        w.acted(0);
        w.run();
        assertEquals(List.of("1 silent 7"), w.events);
        assertEquals(1, w.core(1).counters().acksSent());
        assertEquals(1, w.core(0).counters().acksReceived());
        assertEquals(0, w.core(0).outstanding(1));
    }

    @Test
    void aReplyHandlerMayNotReplyNorAnyHandlerReplyTwiceOrPoll() {
        World w = new World();
        List<Throwable> refused = new ArrayList<>();
        AmToken[] kept = new AmToken[1];
        w.core(0).register(PONG, (t, a0, a1, a2, a3) -> {
            kept[0] = t;
            refused.add(assertThrows(IllegalStateException.class, () -> w.core(0).reply(t, PONG, 0, 0, 0, 0)));
        });
        w.core(1).register(ECHO, (t, a0, a1, a2, a3) -> {
            w.core(1).reply(t, PONG, 0, 0, 0, 0);
            refused.add(assertThrows(IllegalStateException.class, () -> w.core(1).reply(t, PONG, 0, 0, 0, 0)));
            refused.add(assertThrows(IllegalStateException.class, () -> w.core(1).poll()));
        });
        w.core(0).request(1, ECHO, 0, 0, 0, 0);
        w.acted(0);
        w.run();
        assertEquals(3, refused.size());
        assertTrue(refused.get(0).getMessage().contains("a request handler replies at most once"), refused.toString());
        assertTrue(refused.get(1).getMessage().contains("poll from inside a handler"), refused.toString());
        assertTrue(refused.get(2).getMessage().contains("a reply handler may not reply"), refused.toString());
        IllegalStateException late = assertThrows(IllegalStateException.class,
                () -> w.core(0).reply(kept[0], PONG, 0, 0, 0, 0));
        assertTrue(late.getMessage().contains("outside a handler"), late.getMessage());
        assertEquals(1, w.core(1).counters().repliesSent());
        assertEquals(0, w.core(0).counters().repliesSent());
    }

    @Test
    void wRequestsAwaitingRepliesCloseTheWindowUntilTheReceiverPolls() {
        World w = new World();
        w.polling = false;
        for (int i = 0; i < CONFIG.window(); i++) {
            assertEquals(AmCore.OK, w.core(0).request(1, SILENT, i, 0, 0, 0));
        }
        assertEquals(AmCore.BACK_PRESSURE, w.core(0).request(1, SILENT, 99, 0, 0, 0));
        w.acted(0);
        w.run();
        assertEquals(AmCore.BACK_PRESSURE, w.core(0).request(1, SILENT, 99, 0, 0, 0),
                "delivered is not answered: the credits come back with the answers");
        assertEquals(CONFIG.window(), w.core(1).poll());
        w.acted(1);
        w.run();
        w.core(0).poll();
        assertEquals(0, w.core(0).outstanding(1));
        assertEquals(AmCore.OK, w.core(0).request(1, SILENT, 99, 0, 0, 0));
    }

    @Test
    void aBlockStoreOfSeveralBuffersArrivesWholeAndAGetBringsItBack() {
        World w = new World();
        int n = 3 * BUFFER + 17;
        MemorySegment src = MemorySegment.ofArray(new byte[n + 5]);
        for (int i = 0; i < n + 5; i++) {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 1));
        }
        assertEquals(AmCore.OK, w.core(0).store(1, src, 5, 100, n, STORED, 42));
        w.acted(0);
        w.run();
        assertEquals(List.of("1 stored 100+" + n + " arg 42"), w.events);
        assertEquals(-1, MemorySegment.mismatch(src, 5, 5 + n, w.core(1).memory(), 100, 100 + n));
        assertEquals(4, w.core(0).counters().storeChunksSent());
        assertEquals(4, w.core(1).counters().acksSent(), "three chunks and the store whose handler did not reply");
        assertEquals(AmCore.OK, w.core(0).get(1, 100, 600, n, GOT, 7));
        w.acted(0);
        w.run();
        assertEquals("0 got 600+" + n + " arg 7", w.events.get(1));
        assertEquals(-1, MemorySegment.mismatch(src, 5, 5 + n, w.core(0).memory(), 600, 600 + n));
        assertEquals(1, w.core(0).counters().getsCompleted());
        assertTrue(w.core(0).quiescent() && w.core(1).quiescent());
    }

    @Test
    void misuseIsRefusedWithTheArgumentNamedAndNothingSent() {
        World w = new World();
        AmCore a = w.core(0);
        MemorySegment src = MemorySegment.ofArray(new byte[16]);
        assertThrows(IllegalArgumentException.class, () -> a.request(0, ECHO, 0, 0, 0, 0), "itself");
        assertThrows(IllegalArgumentException.class, () -> a.request(2, ECHO, 0, 0, 0, 0), "no such peer");
        IllegalArgumentException h = assertThrows(IllegalArgumentException.class, () -> a.request(1, 99, 0, 0, 0, 0));
        assertTrue(h.getMessage().contains("handler 99"), h.getMessage());
        assertThrows(IllegalArgumentException.class, () -> a.store(1, src, 0, 1020, 16, STORED, 0), "past memory");
        assertThrows(IllegalArgumentException.class, () -> a.store(1, src, 8, 0, 16, STORED, 0), "past the source");
        assertThrows(IllegalArgumentException.class, () -> a.store(1, src, 0, 0, -1, STORED, 0));
        assertThrows(IllegalArgumentException.class,
                () -> a.get(1, 0, 0, CONFIG.maxTransfer() + 1, GOT, 0), "more than w buffers");
        assertThrows(IllegalArgumentException.class, () -> a.get(1, 0, -4, 4, GOT, 0));
        assertThrows(IllegalArgumentException.class, () -> a.register(256, (t, a0, a1, a2, a3) -> { }));
        assertEquals(0, a.outstanding(1));
        assertEquals(0, a.bufferedMessages());
    }

    @Test
    void aStoreOutsideTheReceiversMemoryIsRefusedThereCountedAndStillAnswered() {
        World w = new World(null, self -> self == 0 ? CONFIG
                : new AmConfig(CONFIG.window(), BUFFER, RTO, 10_000, 256));
        MemorySegment src = MemorySegment.ofArray(new byte[100]);
        assertEquals(AmCore.OK, w.core(0).store(1, src, 0, 500, 100, STORED, 0));
        assertEquals(AmCore.OK, w.core(0).get(1, 900, 0, 8, GOT, 0));
        w.acted(0);
        w.run();
        assertEquals(List.of(), w.events, "no handler ran for a refused transfer");
        assertEquals(3, w.core(1).counters().badAddress(), "two store chunks and the get");
        assertEquals(1, w.core(0).counters().badAddress(), "the get's refusal came back");
        assertTrue(w.core(0).quiescent(), "every chunk was answered: the credits are back");
    }

    @Test
    void lostFramesAreRetransmittedAndEveryHandlerRunsExactlyOnce() {
        World w = new World(i -> i % 5 == 3, self -> CONFIG);
        int total = 200;
        MemorySegment src = MemorySegment.ofArray(new byte[2 * BUFFER]);
        Pusher push = new Pusher(w, total, src);
        push.timer = w.time.newTimer("push", push);
        push.run();
        w.run();
        long echoes = w.events.stream().filter(e -> e.startsWith("1 echo")).count();
        long pongs = w.events.stream().filter(e -> e.startsWith("0 pong")).count();
        long stores = w.events.stream().filter(e -> e.startsWith("1 stored")).count();
        assertEquals(total / 2, echoes);
        assertEquals(total / 2, pongs);
        assertEquals(total / 2, stores);
        for (int k = 0; k < total; k += 2) {
            assertTrue(w.events.contains("0 pong from 1: " + (k + 1) + ",1,1,1"), "pong " + k);
        }
        assertTrue(w.core(0).channel().counters().retransmitted() > 0, w.core(0).toString());
        assertTrue(w.core(0).quiescent());
    }

    /** Node 0's application: alternately a request and a two-chunk store, retried every 5 us while back-pressured. */
    private static final class Pusher implements Runnable {
        final World w;
        final int total;
        final MemorySegment src;
        io.nicbridge.bridge.time.Timer timer;
        int sent;

        Pusher(World w, int total, MemorySegment src) {
            this.w = w;
            this.total = total;
            this.src = src;
        }

        @Override
        public void run() {
            while (sent < total) {
                int r = sent % 2 == 0 ? w.core(0).request(1, ECHO, sent, 0, 0, 0)
                        : w.core(0).store(1, src, 0, 0, BUFFER + 1, STORED, sent);
                if (r != AmCore.OK) {
                    break;
                }
                sent++;
            }
            w.acted(0);
            if (sent < total) {
                timer.armAfter(5_000);
            }
        }
    }
}
