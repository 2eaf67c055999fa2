package io.nicbridge.protocols.careful;

import io.nicbridge.protocols.dst.CStarWorkload;

import static io.nicbridge.protocols.dst.CStarWorkload.Pattern.CROWD;
import static io.nicbridge.protocols.dst.CStarWorkload.Pattern.ONE_TO_ALL;
import static io.nicbridge.protocols.dst.CStarWorkload.Pattern.RING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.core.ProtocolCore;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The careful core's service and flow control on an in-memory medium in virtual time. */
class CarefulCoreTest {
    static final long SECOND = 1_000_000_000L;

    static CarefulConfig config(int r) {
        return CarefulConfig.defaults().withReceiveBuffers(r).withEventSlots(16).withHostBuffers(4 * r);
    }

    static void assertClean(CarefulWorld w) {
        assertEquals(0, w.app.errors(), () -> w.app.firstError());
        assertEquals(w.app.expectedTotal(), w.app.deliveredTotal());
        assertEquals(0, w.violations(), "a clean medium breaks no assumption");
        for (CarefulCore c : w.cores) {
            assertEquals(0, c.bufferedMessages(), "everything taken");
            assertEquals(ProtocolCore.NO_DEADLINE, c.nextDeadline(), "no timers");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 8})
    void pointToPointAroundTheRing(int p) {
        CStarWorkload app = new CStarWorkload(p, 20, 3, 40, 1, CStarWorkload.all(RING, 20), false);
        CarefulWorld w = new CarefulWorld(1, config(4 * p), FrameFaults.NONE, app);
        assertTrue(w.run(SECOND), w::state);
        assertClean(w);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 8})
    void broadcastFromOneNodePerEvent(int p) {
        CStarWorkload app = new CStarWorkload(p, 16, 4, 24, 2, CStarWorkload.all(ONE_TO_ALL, 16), true);
        CarefulWorld w = new CarefulWorld(2, config(4 * p), FrameFaults.NONE, app);
        assertTrue(w.run(SECOND), w::state);
        assertClean(w);
    }

    /**
     * On a medium without broadcast (the MPP fabric) a broadcast fragment goes as P-1 unicast frames with the same
     * broadcast number and update: the same program completes as cleanly, on P-1 times the broadcast frames.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 4, 8})
    void broadcastAsUnicastsWhereTheMediumHasNone(int p) {
        CarefulWorld ring = new CarefulWorld(2, config(4 * p), FrameFaults.NONE,
                new CStarWorkload(p, 16, 4, 24, 2, CStarWorkload.all(ONE_TO_ALL, 16), true), CostTable.zero(), true);
        CarefulWorld fabric = new CarefulWorld(2, config(4 * p), FrameFaults.NONE,
                new CStarWorkload(p, 16, 4, 24, 2, CStarWorkload.all(ONE_TO_ALL, 16), true), CostTable.zero(), false);
        assertTrue(ring.run(SECOND), ring::state);
        assertTrue(fabric.run(SECOND), fabric::state);
        assertClean(fabric);
        long dataRing = 0;
        long dataFabric = 0;
        for (int i = 0; i < p; i++) {
            dataRing += ring.cores[i].dataFramesSent();
            dataFabric += fabric.cores[i].dataFramesSent();
        }
        assertEquals(dataRing, dataFabric, "one send per fragment either way");
        long updates = 0;
        for (CarefulCore c : fabric.cores) {
            updates += c.updateFramesSent();
        }
        assertEquals(dataFabric * (p - 1) + updates, fabric.medium.framesCarried(),
                "every broadcast fragment is P-1 frames, every update one");
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5, 8})
    void crowdEventsEveryoneToEveryoneAnySource(int p) {
        CStarWorkload app = new CStarWorkload(p, 12, 3, 16, 1, CStarWorkload.all(CROWD, 12), true);
        CarefulWorld w = new CarefulWorld(3, config(2 * p), FrameFaults.NONE, app);
        assertTrue(w.run(SECOND), w::state);
        assertClean(w);
    }

    @Test
    void crowdEventsBySourceInTurn() {
        CStarWorkload app = new CStarWorkload(6, 10, 2, 16, 0, CStarWorkload.all(CROWD, 10), false);
        CarefulWorld w = new CarefulWorld(4, config(24), FrameFaults.NONE, app);
        assertTrue(w.run(SECOND), w::state);
        assertClean(w);
    }

    @Test
    void mixedEventsRunAheadOfTheApplication() {
        CStarWorkload.Pattern[] mix = new CStarWorkload.Pattern[30];
        for (int e = 0; e < mix.length; e++) {
            mix[e] = CStarWorkload.Pattern.values()[e % 3];
        }
        CStarWorkload app = new CStarWorkload(4, 30, 2, 32, 4, mix, true);
        // node 3 consumes only after everyone has sent far ahead
        app.consumeGate = node -> node != 3 || allSentAhead(app);
        CarefulWorld w = new CarefulWorld(5, config(32), FrameFaults.NONE, app);
        assertTrue(w.run(SECOND), w::state);
        assertClean(w);
    }

    private static boolean allSentAhead(CStarWorkload app) {
        return app.sendRefusals() > 0 || app.deliveredTotal() > 40;
    }

    @Test
    void windowsAreStaticFloorRoverPAndUpdatesFlowBack() {
        CStarWorkload app = new CStarWorkload(2, 200, 1, 12, 0, CStarWorkload.all(RING, 200), false);
        CarefulWorld w = new CarefulWorld(6, config(128).withHostBuffers(0), FrameFaults.NONE, app);
        assertEquals(64, w.cores[0].staticWindow(), "floor(128 / 2)");
        assertTrue(w.run(SECOND), w::state);
        assertClean(w);
        for (CarefulCore c : w.cores) {
            assertTrue(c.updatesPiggybacked() > 0, "updates ride on data");
        }
    }

    @Test
    void aOneWayStreamGetsExplicitUpdatesOnceHalfTheWindowIsFreed() {
        // node 0 sends to 1 only; 1 never sends data, so its updates must be explicit frames
        CStarWorkload.Pattern[] p = CStarWorkload.all(ONE_TO_ALL, 1);
        CStarWorkload app = new CStarWorkload(2, 1, 100, 12, 0, p, false);
        CarefulWorld w = new CarefulWorld(7, config(16), FrameFaults.NONE, app);
        assertEquals(8, w.cores[0].staticWindow());
        assertTrue(w.run(SECOND), w::state);
        assertClean(w);
        long updates = w.cores[1].updateFramesSent();
        assertTrue(updates >= 100 / 8 && updates < 100, "at least one update per window, fewer than frames: " + updates);
        assertEquals(0, w.cores[0].updateFramesSent(), "node 0 frees nothing of node 1's");
    }

    @Test
    void floodingWithoutConsumingCompletesThroughCopyOut() {
        // Table 3 in spirit: P = 4 broadcast 10 messages of 8 fragments each before consuming anything
        int p = 4;
        CStarWorkload app = new CStarWorkload(p, 10, 8, 64, 10, CStarWorkload.all(CROWD, 10), true);
        app.consumeGate = app::sentAll;
        CarefulWorld w = new CarefulWorld(8, CarefulConfig.defaults().withEventSlots(16), FrameFaults.NONE, app);
        assertTrue(w.run(10 * SECOND), w::state);
        assertClean(w);
        assertTrue(w.copyOuts() > 0, "frames were copied out of the receive buffers");
        for (CarefulCore c : w.cores) {
            assertTrue(c.bufferedMessages() <= c.bufferCapacity());
        }
    }

    @Test
    void heldFragmentsStayWithinCapacityWhileAConsumerSleeps() {
        int p = 3;
        CStarWorkload app = new CStarWorkload(p, 40, 4, 16, 40, CStarWorkload.all(CROWD, 40), true);
        boolean[] open = {false};
        app.consumeGate = node -> open[0];
        CarefulWorld w = new CarefulWorld(9, config(12).withHostBuffers(30), FrameFaults.NONE, app);
        w.run(SECOND / 10);
        for (CarefulCore c : w.cores) {
            assertTrue(c.bufferedMessages() <= c.bufferCapacity(), c::toString);
            assertTrue(c.heldInPlace() <= 12, "never more frames in place than R");
            assertTrue(c.blockedSends() > 0, "the windows stopped the senders");
        }
        open[0] = true;
        app.poke(w.vt, w.runner);
        assertTrue(w.run(SECOND), w::state);
        assertClean(w);
    }

    @Test
    void hostWorkIsChargedByNamedAppendixAOperations() {
        CostTable table = CostTable.parse("""
                name = test
                command = test
                machine = test
                date = 2026-01-01
                handler-dispatch.ps-per-call = 0
                timer-arm.ps-per-call = 0
                timer-cancel.ps-per-call = 0
                table-lookup.ps-per-call = 0
                descriptor-post.ps-per-call = 0
                descriptor-reclaim.ps-per-call = 0
                copy.ps-per-byte = 0
                checksum.ps-per-byte = 0
                pio-word.ps-per-word = 0
                interrupt.ps-per-interrupt = 0
                op.careful.shrink-window.ps-per-call = 420000
                op.careful.fill-in-window-update.ps-per-call = 420000
                op.careful.process-window-update.ps-per-call = 1040000
                op.careful.track-last-event.ps-per-call = 480000
                op.careful.decrement-sender-window.ps-per-call = 580000
                op.careful.skip-copy-out.ps-per-call = 80000
                """, "test");
        CStarWorkload app = new CStarWorkload(2, 10, 1, CStarWorkload.FRAGMENT_HEADER, 0, CStarWorkload.all(RING, 10), false);
        CarefulWorld w = new CarefulWorld(10, config(8), FrameFaults.NONE, app, table);
        assertTrue(w.run(SECOND), w::state);
        assertClean(w);
        HostCpu cpu = w.cpus[0];
        assertEquals(10, cpu.operation("careful.shrink-window").calls(), "one per data frame sent");
        assertEquals(10, cpu.operation("careful.track-last-event").calls(), "one per data frame received");
        assertEquals(10, cpu.operation("careful.skip-copy-out").calls(), "one per data frame received");
        assertEquals(10, cpu.operation("careful.decrement-sender-window").calls(), "one per data frame received");
        assertEquals(10 + w.cores[1].updateFramesSent(), cpu.operation("careful.process-window-update").calls(),
                "one per frame received, data or update");
        // 151 cycles at 20 ns per exchange of one frame each way, as Appendix A's careful total
        long perFrame = 420_000 + 420_000 + 1_040_000 + 480_000 + 580_000 + 80_000;
        assertEquals(3_020_000, perFrame);
        assertTrue(cpu.totalPicos() >= 10 * perFrame, cpu::summary);
        assertEquals(0, cpu.units(CostItem.PIO_WORD), "no PIO on the in-memory medium");
        assertTrue(cpu.units(CostItem.COPY) >= 40, "the plain send copies the fragment once");
    }

    @Test
    void badArgumentsAreRefusedByName() {
        VirtualTimeBase vt = new VirtualTimeBase(1);
        HostCpu[] cpus = HostCpu.forNodes(4, CostTable.zero(), vt);
        InMemoryMedium m = new InMemoryMedium(vt, new InMemoryMedium.Config(4, 100, 4, 16, 0, 0), FrameFaults.NONE,
                cpus);
        IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
                () -> new CarefulCore(m.link(0), config(7), cpus[0]));
        assertTrue(small.getMessage().contains("2P = 8"), small.getMessage());
        CarefulCore c = new CarefulCore(m.link(0), config(16), cpus[0]);
        MemorySegment b = MemorySegment.ofArray(new byte[200]);
        assertEquals(80, c.maxFragment());
        assertThrows(IllegalArgumentException.class, () -> c.send(0, 0, b, 0, 4, 0), "to itself");
        assertThrows(IllegalArgumentException.class, () -> c.send(4, 0, b, 0, 4, 0));
        assertThrows(IllegalArgumentException.class, () -> c.send(1, 0, b, 0, 81, 0));
        assertThrows(IllegalArgumentException.class, () -> c.send(1, 0, b, 0, 4, 8));
        assertEquals(CStarNetwork.OK, c.send(1, 3, b, 0, 4, CStarNetwork.LAST_FRAG));
        assertThrows(IllegalArgumentException.class, () -> c.send(1, 2, b, 0, 4, 0), "event went back");
        assertThrows(IllegalArgumentException.class, () -> c.send(1, 3, b, 0, 4, 0), "after LAST_FRAG");
        assertEquals(CStarNetwork.OK, c.send(2, 3, b, 0, 4, 0));
        assertThrows(IllegalArgumentException.class, () -> c.send(CStarNetwork.BROADCAST, 3, b, 0, 4, 0),
                "a broadcast after unicasts to some nodes in the same event");
        assertEquals(CStarNetwork.OK, c.send(CStarNetwork.BROADCAST, 4, b, 0, 0, 0), "an empty fragment");
        assertFalse(c.singleCopy(), "the in-memory medium has no single-copy send");
    }
}
