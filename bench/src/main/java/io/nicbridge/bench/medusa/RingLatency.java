package io.nicbridge.bench.medusa;

import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.contract.Medusa;
import io.nicbridge.sim.engine.SimTimer;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The careful-protocols paper's latency test (section 6.1) in virtual time: "The P nodes in the cluster are
 * regarded as being connected in a ring fashion. A single message is sent around this ring. Measuring the time it
 * takes to travel around the ring and normalizing this time to P then gives the time for a single hop."
 *
 * <p>"No processing" shape, as in the paper's left columns: node 0 sends the message once by single copy (PIO
 * into an on-board buffer); every node then passes the received buffer on in place ({@link MedusaDriver#forward},
 * no copy - "the message data does not get accessed at all, except by the network adaptor"), and node 0 starts
 * the next round the same way. All nodes are interrupt driven; their handlers run on the scheduler thread. By
 * default host software takes no virtual time, so what remains is the card and the ring. With a host reaction
 * time {@code h > 0} each node passes the message on {@code h} ns after its receive interrupt (a virtual-time
 * timer stands for the protocol stack's work): the token, which followed the frame, has then moved on and must come
 * round again, which is the token-rotation effect the paper describes ("the latency to acquire a token increases
 * with the number of stations in the ring").
 */
final class RingLatency {
    private final VirtualTimeBase time;
    private final List<MedusaDriver> nodes;
    private final RingMessages messages = new RingMessages();
    private int words;
    private int roundsWanted;
    private int rounds;
    private int hops;
    private long measureFrom;
    private long lastArrival;
    private int warmup;
    private RuntimeException failure;
    private final long hostNanos;
    private final SimTimer[] reaction;
    private final int[] held;

    RingLatency(VirtualTimeBase time, List<MedusaDriver> nodes) {
        this(time, nodes, 0);
    }

    /** @param hostNanos each node's reaction time from receive interrupt to passing the message on, ns (0..1 s) */
    RingLatency(VirtualTimeBase time, List<MedusaDriver> nodes, long hostNanos) {
        if (nodes.size() < 2) {
            throw new IllegalArgumentException("the ring latency test needs at least 2 nodes, got " + nodes.size());
        }
        if (hostNanos < 0 || hostNanos > 1_000_000_000L) {
            throw new IllegalArgumentException("host reaction time must be in [0, 1 s], was " + hostNanos + " ns");
        }
        this.time = time;
        this.nodes = nodes;
        this.hostNanos = hostNanos;
        this.reaction = new SimTimer[nodes.size()];
        this.held = new int[nodes.size()];
        for (int i = 0; i < nodes.size(); i++) {
            int index = i;
            held[i] = FramePort.NONE;
            reaction[i] = time.newTimer("host-" + i, () -> passOn(index));
        }
    }

    /**
     * @return the mean simulated time per hop, ns, over {@code measured} rounds after {@code warmupRounds}
     */
    double run(int words, int warmupRounds, int measured) {
        this.words = words;
        this.warmup = warmupRounds;
        this.roundsWanted = warmupRounds + measured;
        this.rounds = 0;
        this.hops = 0;
        this.failure = null;
        int p = nodes.size();
        for (int i = 0; i < p; i++) {
            int index = i;
            nodes.get(i).onInterrupt((d, isr) -> onInterrupt(index, d));
        }
        MemorySegment payload = MemorySegment.ofArray(new byte[4 * words]);
        for (int i = 0; i < payload.byteSize(); i++) {
            payload.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        long start = time.nanoTime();
        measureFrom = warmupRounds == 0 ? start : -1;
        if (messages.send(nodes.get(0), address(1), RingMessages.DATA, 0, 0, payload, words) == FramePort.NONE) {
            throw new IllegalStateException(nodes.get(0).name() + ": no transmit buffer for the first message");
        }
        time.runUntilIdle();
        long end = time.nanoTime();
        for (MedusaDriver d : nodes) {
            d.onInterrupt(null);
        }
        if (failure != null) {
            throw failure;
        }
        if (rounds != roundsWanted) {
            throw new IllegalStateException("the ring went idle after " + rounds + " of " + roundsWanted
                + " rounds (" + hops + " hops): the message was lost; node 0 " + nodes.get(0).statistics());
        }
        return (double) (lastArrival - measureFrom) / ((long) measured * p);
    }

    private long address(int index) {
        return nodes.get(index % nodes.size()).stationAddress();
    }

    private void onInterrupt(int index, MedusaDriver d) {
        try {
            d.reclaim(); // TXDONE: a forwarded buffer goes back into the FREE FIFO, a sent one to the pool
            for (int h = d.poll(); h != FramePort.NONE; h = d.poll()) {
                if (RingMessages.type(d, h) != RingMessages.DATA || RingMessages.words(d, h) != words
                    || d.rxLength(h) != RingMessages.frameLength(words)) {
                    throw new IllegalStateException(d.name() + ": unexpected frame of " + d.rxLength(h) + " bytes");
                }
                hops++;
                if (index == 0) {
                    rounds++;
                    long now = time.nanoTime();
                    if (rounds == warmup) {
                        measureFrom = now;
                    }
                    lastArrival = now;
                    if (rounds >= roundsWanted) {
                        d.release(h);
                        continue;
                    }
                }
                if (hostNanos == 0) {
                    d.forward(h, address(index + 1));
                } else {
                    held[index] = h;
                    reaction[index].armAfter(hostNanos);
                }
            }
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            }
        }
    }

    /** The host reaction timer of node {@code index} fired: the message goes on to the next node. */
    private void passOn(int index) {
        try {
            int h = held[index];
            held[index] = FramePort.NONE;
            nodes.get(index).forward(h, address(index + 1));
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            }
        }
    }

    /** Bits on the fibre per hop that the paper's 10 ns/bit slope counts: FC .. FCS = 52 + 4 x words bytes. */
    static long paperBits(int words) {
        return 8L * (RingMessages.PAPER_HEADER_BYTES + 4L * words);
    }

    static int frameBytesWithFcs(int words) {
        return RingMessages.frameLength(words) + Medusa.FDDI_FCS_LEN;
    }
}
