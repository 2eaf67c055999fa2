package io.nicbridge.protocols.cards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.medusa.MedusaLink;
import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.gbn.GoBackNWire;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testbed.TulipTestbed;
import io.nicbridge.sim.testbed.UnetLinkTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The host cost model on the emulated cards, in virtual time: one 32-byte go-back-N message from node 0 to node 1
 * over a 21140 Ethernet segment, a Medusa FDDI ring and two SBA-200s on the ATM switch. With the {@code zero}
 * table the run is the run of a link that charges nothing (the wire-only timing of before, event for event); with
 * {@code measured} the frame reaches the receiving host later by exactly the sender's host work before its doorbell,
 * and the message is delivered after exactly the receiver's interrupt and host work, both summed here item by item
 * from the table as the runner, the core and the card's framing charge them.
 */
class CardHostCostTest {
    private static final int MESSAGE = 32;
    private static final int HEADER = GoBackNWire.HEADER;
    private static final int FRAME = HEADER + MESSAGE;
    /** Header bytes in front of the CRC field, which the core's CRC covers with the payload (GoBackNWire). */
    private static final int CRC_COVERED = 12;

    /** A card medium of two nodes on a virtual clock. */
    interface Medium extends AutoCloseable {
        VirtualTimeBase time();

        Link[] links();

        /**
         * @return how much the wire's delay of one frame may depend on when it is sent: 0 for a segment or switch
         *     that is idle, up to one idle token rotation on an FDDI ring (the wait for the token)
         */
        default long wireJitterNanos() {
            return 0;
        }

        @Override
        void close();
    }

    /** One run: node 0 offers one message at {@code t0}; node 1 delivers it. */
    record Run(long jitter, long t0, long doorbell, long arrival, long delivered, long end, long digest, String costs, long[] units0,
               long[] units1) {
    }

    enum Mode { UNCHARGED, ZERO, MEASURED }

    static Run run(Medium m, Mode mode) {
        try (m) {
            VirtualTimeBase time = m.time();
            CostTable table = mode == Mode.MEASURED ? CostTable.measured() : CostTable.zero();
            Link[] raw = m.links();
            ObservedLink[] links = {new ObservedLink(raw[0], time, mode == Mode.UNCHARGED),
                    new ObservedLink(raw[1], time, mode == Mode.UNCHARGED)};
            HostCpu[] cpus = HostCpu.forNodes(2, table, time);
            long[] delivered = {-1};
            NodeApplication app = node -> {
                if (node.id() == 1) {
                    ((GoBackNCore) node.core()).deliver((peer, data, off, len) -> delivered[0] = cpus[1].now(),
                            Integer.MAX_VALUE);
                }
            };
            NodeRunner runner = new NodeRunner(time, links, cpus, (link, clock, cpu) -> new GoBackNCore(link, clock,
                    new GoBackNConfig(4, MESSAGE, TimeUnit.MILLISECONDS.toNanos(5)), cpu), app, NodeSlowness.NONE);
            long t0 = time.nanoTime();
            links[1].watchFrom(t0);
            MemorySegment message = MemorySegment.ofArray(new byte[MESSAGE]);
            message.set(ValueLayout.JAVA_INT_UNALIGNED, 0, 42);
            Timer offer = time.newTimer("app0.offer", () -> {
                assertEquals(MessageChannel.OK, ((GoBackNCore) runner.node(0).core()).offer(1, message, 0, MESSAGE));
                runner.node(0).applicationActed();
            });
            offer.armAt(t0);
            assertTrue(time.runUntil(() -> delivered[0] >= 0 && ((GoBackNCore) runner.node(0).core()).inFlight(1) == 0, t0 + TimeUnit.MILLISECONDS.toNanos(50)),
                    "message delivered and acknowledged");
            String costs = runner.costSummary();
            System.out.println(costs); // every card run prints the table it used
            runner.stop();
            return new Run(m.wireJitterNanos(), t0, links[0].firstDoorbell(), links[1].firstSignal(), delivered[0], runner.workEndNanos(), runner.traceDigest(),
                    costs, units(cpus[0]), units(cpus[1]));
        }
    }

    private static long[] units(HostCpu cpu) {
        long[] u = new long[CostItem.values().length];
        for (CostItem item : CostItem.values()) {
            u[item.ordinal()] = cpu.units(item);
        }
        return u;
    }

    /** Picoseconds to the next whole nanosecond, as a CPU's busy time is rounded. */
    private static long ceilNanos(long picos) {
        return (picos + 999) / 1_000;
    }

    /** What the framing charges beyond the generic descriptor work: per medium. */
    interface Framing {
        /** Host work of one commit of {@code payload} link bytes (after the core's copy into the buffer). */
        long commit(CostTable t, int payload);

        /** Host work of taking one frame of {@code payload} link bytes from the card and looking up its sender. */
        long receive(CostTable t, int payload);

        /** Host work of giving a received frame of {@code payload} link bytes back. */
        long release(CostTable t, int payload);
    }

    /**
     * Checks one card medium: zero = uncharged exactly; measured = zero shifted by the sender's work, then the
     * receiver's interrupt and work, item by item.
     */
    static void check(java.util.function.Supplier<Medium> media, Framing f) {
        Run uncharged = run(media.get(), Mode.UNCHARGED);
        Run zero = run(media.get(), Mode.ZERO);
        Run measured = run(media.get(), Mode.MEASURED);
        assertTrue(zero.costs().startsWith("host cost table zero"), zero.costs());
        assertTrue(measured.costs().startsWith("host cost table measured ("), measured.costs());

        assertEquals(uncharged.delivered() - uncharged.t0(), zero.delivered() - zero.t0(), "zero: delivery as before");
        assertEquals(uncharged.end() - uncharged.t0(), zero.end() - zero.t0(), "zero: end as before");
        assertEquals(uncharged.digest(), zero.digest(), "zero: the same trace, event for event");
        assertTrue(zero.arrival() > zero.t0() && zero.delivered() >= zero.arrival(), zero.toString());

        CostTable t = CostTable.measured();
        long copy = t.picos(CostItem.COPY);
        long crc = t.picos(CostItem.CHECKSUM);
        long reclaim = t.picos(CostItem.DESCRIPTOR_RECLAIM);
        // Node 0 at t0: offer copies the message in; the send claims a buffer (framing: reclaim), copies the message
        // into the frame, checksums header and payload, copies the frame into the link buffer, commits (framing).
        long send = copy * MESSAGE + reclaim + copy * MESSAGE + crc * (CRC_COVERED + MESSAGE) + copy * FRAME
                + f.commit(t, FRAME);
        assertEquals(zero.t0(), zero.doorbell(), "zero: the doorbell rings at once");
        assertEquals(measured.t0() + ceilNanos(send), measured.doorbell(),
                "the doorbell rings after exactly node 0's host work");
        long wireZero = zero.arrival() - zero.doorbell();
        long wireMeasured = measured.arrival() - measured.doorbell();
        long jitter = measured.jitter();
        if (jitter == 0) {
            assertEquals(wireZero, wireMeasured, "the frame reaches node 1 later by exactly node 0's host work");
        } else {
            assertTrue(Math.abs(wireMeasured - wireZero) <= jitter, "wire " + wireMeasured + " ns against " + wireZero
                    + " ns with the zero table: more than the token's " + jitter + " ns");
        }
        // Node 1: the interrupt, then the dispatch: poll (framing), the core copies the frame out, release (framing),
        // checksum, copy into the receive ring, then the ACK (claim, checksum of the header, copy, commit), delivery.
        long handlerStart = ceilNanos(measured.arrival() * 1_000 + t.picos(CostItem.INTERRUPT));
        long receive = t.picos(CostItem.HANDLER_DISPATCH) + f.receive(t, FRAME) + copy * FRAME + f.release(t, FRAME)
                + crc * (CRC_COVERED + MESSAGE) + copy * MESSAGE
                + reclaim + crc * CRC_COVERED + copy * HEADER + f.commit(t, HEADER);
        assertEquals(handlerStart + ceilNanos(receive), measured.delivered(),
                "delivered after exactly node 1's interrupt and host work");
        assertTrue(measured.delivered() - measured.t0() > zero.delivered() - zero.t0(), "host work delays delivery");
        assertTrue(measured.units0()[CostItem.DESCRIPTOR_POST.ordinal()] > 0
                && measured.units1()[CostItem.TABLE_LOOKUP.ordinal()] > 0, "the framing charged its descriptors");
    }

    // ------------------------------------------------------------------ the cards

    @Test
    void tulipEthernet() {
        check(() -> new Medium() {
            final TulipTestbed bed = TulipTestbed.builder().mode(EngineMode.VIRTUAL).seed(3).faults(FaultPlan.NONE)
                    .build();
            {
                bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            }

            @Override
            public VirtualTimeBase time() {
                return bed.virtualTime();
            }

            @Override
            public Link[] links() {
                List<MacAddress> macs = List.of(TulipTestbed.mac(0), TulipTestbed.mac(1));
                return new Link[] {new TulipLink(bed.driver(0), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE),
                        new TulipLink(bed.driver(1), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE)};
            }

            @Override
            public void close() {
                bed.close();
            }
        }, new Framing() {
            // the chip DMAs: the 16-byte Ethernet header written, one descriptor each way, the SA looked up
            @Override
            public long commit(CostTable t, int payload) {
                return t.picos(CostItem.COPY) * TulipLink.HEADER + t.picos(CostItem.DESCRIPTOR_POST);
            }

            @Override
            public long receive(CostTable t, int payload) {
                return t.picos(CostItem.DESCRIPTOR_RECLAIM) + t.picos(CostItem.TABLE_LOOKUP);
            }

            @Override
            public long release(CostTable t, int payload) {
                return t.picos(CostItem.DESCRIPTOR_POST);
            }
        });
    }

    @Test
    void medusaFddi() {
        check(() -> new Medium() {
            final MedusaRing ring = new MedusaRing(2, EngineMode.VIRTUAL, 3, FaultPlan.NONE);

            @Override
            public VirtualTimeBase time() {
                return ring.virtualTime();
            }

            @Override
            public Link[] links() {
                return ring.links();
            }

            @Override
            public long wireJitterNanos() {
                return ring.ring.idleRotationNanos();
            }

            @Override
            public void close() {
                ring.close();
            }
        }, new Framing() {
            // no DMA: every byte crosses the bus by PIO, 4 bytes a word; each copy also clears and reads PIO_CKSUM
            @Override
            public long commit(CostTable t, int payload) {
                return t.picos(CostItem.COPY) * MedusaLink.HEADER
                        + t.picos(CostItem.PIO_WORD) * (words(MedusaLink.HEADER + payload)
                        + MedusaLink.CHECKSUM_REGISTER_WORDS)
                        + t.picos(CostItem.DESCRIPTOR_POST);
            }

            @Override
            public long receive(CostTable t, int payload) {
                return t.picos(CostItem.DESCRIPTOR_RECLAIM) + t.picos(CostItem.TABLE_LOOKUP)
                        + t.picos(CostItem.PIO_WORD) * words(MedusaLink.HEADER + payload);
            }

            @Override
            public long release(CostTable t, int payload) {
                return t.picos(CostItem.DESCRIPTOR_POST);
            }
        });
    }

    @Test
    void sba200Atm() {
        check(() -> new Medium() {
            final UnetLinkTestbed tb = UnetLinkTestbed.builder(EngineMode.VIRTUAL).nodes(2).seed(3)
                    .buffers(256, 16, 48).build();

            @Override
            public VirtualTimeBase time() {
                return tb.virtualTimeBase();
            }

            @Override
            public Link[] links() {
                return tb.links();
            }

            @Override
            public void close() {
                tb.close();
            }
        }, new Framing() {
            // the card DMAs buffer messages; up to 40 bytes go inline, copied into the descriptor by the host
            @Override
            public long commit(CostTable t, int payload) {
                return (payload <= io.nicbridge.contract.Sba200Unet.INLINE_MAX ? t.picos(CostItem.COPY) * payload : 0)
                        + t.picos(CostItem.DESCRIPTOR_POST);
            }

            @Override
            public long receive(CostTable t, int payload) {
                return t.picos(CostItem.DESCRIPTOR_RECLAIM) + t.picos(CostItem.TABLE_LOOKUP);
            }

            @Override
            public long release(CostTable t, int payload) {
                // the receive descriptor back, and a buffer message's one buffer to the free queue
                return t.picos(CostItem.DESCRIPTOR_POST)
                        * (payload <= io.nicbridge.contract.Sba200Unet.INLINE_MAX ? 1 : 2);
            }
        });
    }

    private static long words(int bytes) {
        return (bytes + 3) / 4;
    }
}
