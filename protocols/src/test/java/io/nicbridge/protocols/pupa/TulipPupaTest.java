package io.nicbridge.protocols.pupa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.link.ForwardingLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Pupa as the paper has it (no software checksum: the 21140's FCS drops damaged frames) over emulated 21140s with Tulip
 * drivers on one Ethernet segment, in virtual time: every body path (primary FIFO, secondary pool, the card's receive
 * buffer, fragments), clean and on a segment that drops, corrupts and duplicates frames; nothing leaks.
 */
class TulipPupaTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final PupaConfig CONFIG = PupaConfig.defaults();
    private static final int[] SIZES = {4, 31, 64, 128, 256, 1024, 1436, 2048, 4096};

    record Run(long digest, long delivered, long retransmitted, long damaged, PupaCounters receiver) {
    }

    static Run run(int nodes, long seed, FaultPlan faults) {
        try (TulipTestbed bed = TulipTestbed.builder().nodes(nodes).mode(EngineMode.VIRTUAL).seed(seed).faults(faults)
                .build()) {
            bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            List<MacAddress> macs = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                macs.add(TulipTestbed.mac(i));
            }
            Link[] links = new Link[nodes];
            for (int i = 0; i < nodes; i++) {
                links[i] = new TulipLink(bed.driver(i), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE);
            }
            PupaWorld w = new PupaWorld(bed.virtualTime(), links, CONFIG);
            for (int round = 0; round < 20; round++) {
                for (int size : SIZES) {
                    for (int from = 0; from < nodes; from++) {
                        w.sendBlocking(from, (from + 1 + round % (nodes - 1)) % nodes, size, size < 256);
                    }
                }
            }
            w.drain(5_000 * MS);
            for (int i = 0; i < nodes; i++) {
                System.out.println("node " + i + ": " + w.core(i).counters() + "; " + links[i]);
            }
            assertEquals(w.offered(), w.delivered, () -> "delivered " + w.delivered + " of " + w.offered());
            assertTrue(w.errors.isEmpty(), () -> w.errors.toString());
            assertNull(w.leaks(), "every FIFO, pool and held card buffer is back");
            long rexmit = 0;
            long damaged = 0;
            for (int i = 0; i < nodes; i++) {
                rexmit += w.core(i).counters().messagesRetransmitted();
                damaged += ((TulipLink) links[i]).framesDamaged();
            }
            return new Run(w.runner.traceDigest(), w.delivered, rexmit, damaged, w.core(1).counters());
        }
    }

    @Test
    void everyBodyPathOverEmulated21140sDeterministically() {
        Run a = run(3, 21, FaultPlan.NONE);
        Run b = run(3, 21, FaultPlan.NONE);
        assertEquals(a.digest(), b.digest(), "same seed, same trace");
        assertEquals(0, a.retransmitted(), "a clean segment needs no retransmission");
        PupaCounters c = a.receiver();
        assertTrue(c.inPrimary() > 0 && c.inSecondary() > 0 && c.inMbuf() > 0, c.toString());
    }

    @Test
    void aLossySegmentIsRepairedAndTheCardsFcsStopsTheDamage() {
        Run a = run(3, 22, FaultPlan.builder().seed(9).drop(0.05).corrupt(0.03).duplicate(0.03).build());
        assertTrue(a.retransmitted() > 0, "retransmitted " + a.retransmitted());
        assertTrue(a.damaged() > 0, "corrupted frames failed the card's CRC and were counted, not delivered");
    }

    /**
     * A fragment held in its link buffer while the rest of its message is lost must not stop the card: the 21140's
     * receive ring is filled in order, so once the other nodes' frames have come round the ring to the held one the
     * driver hands out nothing more - not even the resend that completes the message. Node 0's 2048-byte message to
     * node 1 loses its last fragment (nothing from node 0 follows, so only the timeout resends it) while node 2 sends
     * node 1 far more frames than its 16-entry ring holds: the core moves the waiting fragment out of the ring
     * ({@link PupaCore#spill}) and everything arrives.
     */
    @Test
    void aFragmentWaitingForALostOneDoesNotStopTheReceiveRing() {
        int nodes = 3;
        try (TulipTestbed bed = TulipTestbed.builder().nodes(nodes).mode(EngineMode.VIRTUAL).seed(5)
                .config(i -> TulipConfig.builder().rxRingSize(16).build()).build()) {
            bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            List<MacAddress> macs = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                macs.add(TulipTestbed.mac(i));
            }
            boolean[] dropped = {false};
            Link[] links = new Link[nodes];
            for (int i = 0; i < nodes; i++) {
                Link l = new TulipLink(bed.driver(i), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE);
                links[i] = i != 0 ? l : new ForwardingLink(l) {
                    @Override
                    public void commit(int txHandle, int length) {
                        MemorySegment f = txBuffer(txHandle);
                        if (!dropped[0] && f.get(ValueLayout.JAVA_BYTE, PupaWire.OFF_TYPE) == PupaWire.DATA
                                && f.get(PupaWire.U32, PupaWire.FRAME_HEADER + PupaWire.M_SEQ) == 1) {
                            dropped[0] = true;
                            abort(txHandle); // the message's second and last fragment, lost on the wire
                            return;
                        }
                        super.commit(txHandle, length);
                    }
                };
            }
            PupaWorld w = new PupaWorld(bed.virtualTime(), links, CONFIG.withMbufs(8));
            w.sendBlocking(0, 1, 2048, true);
            for (int i = 0; i < 200; i++) {
                w.sendBlocking(2, 1, 200, true);
            }
            w.drain(2_000 * MS);
            assertTrue(dropped[0]);
            assertEquals(w.offered(), w.delivered, () -> "delivered " + w.delivered + " of " + w.offered() + ": "
                    + w.describe());
            assertTrue(w.errors.isEmpty(), () -> w.errors.toString());
            assertNull(w.leaks());
            assertTrue(w.core(1).counters().spilled() > 0, "the waiting fragment left the ring");
            assertTrue(w.core(0).counters().timeouts() > 0, "the lost last fragment came back by the timeout");
        }
    }
}
