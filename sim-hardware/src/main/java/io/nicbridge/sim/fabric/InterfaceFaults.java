package io.nicbridge.sim.fabric;

import io.nicbridge.sim.fault.FaultInjector;
import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.fault.FaultPlan;
import java.util.Arrays;
import java.util.Objects;

/**
 * Fault injection at the nodes' network interfaces, on the receive side: each node's NI may follow its own
 * {@link FaultPlan} ({@link Network#interfaceFaults(int, FaultPlan)}), numbering the packets whose tail it consumes
 * from 1, in arrival order. The NI applies each {@link FaultKind} to the packet the way the hardware would see it:
 * <ul>
 *   <li>DROP: the NI discards the packet ({@link DropReason#NI_FAULT}); the sender never learns of it, as with a
 *       packet the drop-mode fabric discards;</li>
 *   <li>CORRUPT: the packet arrives with a bit inverted, so the NI's check of it fails (the CM-5 data network
 *       checks a CRC per packet, the NIFDY drop-mode fabric a checksum flit) and it is discarded
 *       ({@link DropReason#NI_CHECKSUM}); the fabric carries no data bytes to invert, so the bit itself is not
 *       modelled;</li>
 *   <li>DUPLICATE: the endpoint gets the packet twice in a row; {@link PacketRecord#copyFollows()} is true on the
 *       first of the two;</li>
 *   <li>REORDER: the NI holds the packet and hands it over right after the next packet that reaches this NI (a held
 *       packet that no further packet follows is never handed over, as {@link FaultKind#REORDER} says);</li>
 *   <li>DELAY: the NI holds the packet for the fault's parameter, which here counts <b>network cycles</b> (the
 *       fabric has no other time; a medium that thinks in nanoseconds converts with its cycle period).</li>
 * </ul>
 * A held packet keeps its packet handle until handed over; {@link Network#idle()} is false while a delayed packet
 * waits (the fabric must keep stepping to release it), not while a reordered one does (only another packet can
 * release it). Held packets are handed over in order of their due cycle, then of their arrival.
 *
 * <p>Single simulation thread, like the {@link Network}. Nothing is allocated per packet once the delay queue has
 * grown to the load's peak.
 */
public final class InterfaceFaults {
    private final Network network;
    private final FaultInjector[] injectors;
    private final int[] reordered;  // per node: the packet handle held for reorder, -1 none
    private int[] delayedPkt = new int[8];
    private int[] delayedNode = new int[8];
    private long[] delayedDue = new long[8];
    private int delayedCount;
    private long discarded;

    InterfaceFaults(Network network, int nodes) {
        this.network = network;
        this.injectors = new FaultInjector[nodes];
        this.reordered = new int[nodes];
        Arrays.fill(reordered, -1);
    }

    void plan(int node, FaultPlan plan) {
        injectors[node] = Objects.requireNonNull(plan, "plan").isNone() ? null : plan.newInjector();
    }

    /** @return node {@code node}'s injector (its counts by kind), or null when its NI has no plan */
    public FaultInjector injector(int node) {
        return injectors[node];
    }

    /** @return faults injected at every NI, all kinds */
    public long injected() {
        long sum = 0;
        for (FaultInjector f : injectors) {
            sum += f == null ? 0 : f.injected();
        }
        return sum;
    }

    /** @return faults of {@code kind} injected at every NI */
    public long count(FaultKind kind) {
        long sum = 0;
        for (FaultInjector f : injectors) {
            sum += f == null ? 0 : f.count(kind);
        }
        return sum;
    }

    /** @return packets the NIs discarded (dropped or failed their check) */
    public long discarded() {
        return discarded;
    }

    /** @return packets held by a delay, waiting for their cycle */
    public int delayed() {
        return delayedCount;
    }

    /** @return packets held by a reorder, waiting for the next packet at their NI */
    public int reordered() {
        int n = 0;
        for (int h : reordered) {
            n += h >= 0 ? 1 : 0;
        }
        return n;
    }

    /** The tail of packet {@code pkt} reached node {@code node}'s NI: decide its fault and hand it over or not. */
    void arrived(int node, int pkt, long now) {
        FaultInjector f = injectors[node];
        if (f == null) {
            network.handOver(node, pkt, false, now);
            return;
        }
        int held = reordered[node];
        switch (f.next(network.length(pkt))) {
            case NONE -> network.handOver(node, pkt, false, now);
            case DROP -> discard(pkt, DropReason.NI_FAULT, now);
            case CORRUPT -> discard(pkt, DropReason.NI_CHECKSUM, now);
            case DUPLICATE -> {
                network.handOver(node, pkt, true, now);
                network.handOver(node, pkt, false, now);
            }
            case DELAY -> delay(node, pkt, now + f.delayNanos());
            case REORDER -> {
                reordered[node] = pkt;
                if (held >= 0) {
                    network.handOver(node, held, false, now); // released in the new one's place
                }
                return;
            }
        }
        if (held >= 0) {
            reordered[node] = -1;
            network.handOver(node, held, false, now);
        }
    }

    private void discard(int pkt, DropReason reason, long now) {
        discarded++;
        network.discardAtInterface(pkt, reason, now);
    }

    private void delay(int node, int pkt, long due) {
        if (delayedCount == delayedPkt.length) {
            delayedPkt = Arrays.copyOf(delayedPkt, delayedCount * 2);
            delayedNode = Arrays.copyOf(delayedNode, delayedCount * 2);
            delayedDue = Arrays.copyOf(delayedDue, delayedCount * 2);
        }
        int i = delayedCount++;
        // keep the queue sorted by due cycle, arrival order among equals
        while (i > 0 && delayedDue[i - 1] > due) {
            delayedPkt[i] = delayedPkt[i - 1];
            delayedNode[i] = delayedNode[i - 1];
            delayedDue[i] = delayedDue[i - 1];
            i--;
        }
        delayedPkt[i] = pkt;
        delayedNode[i] = node;
        delayedDue[i] = due;
    }

    /** Hands over the delayed packets due by {@code now}. */
    void releaseDue(long now) {
        int n = 0;
        while (n < delayedCount && delayedDue[n] <= now) {
            network.handOver(delayedNode[n], delayedPkt[n], false, now);
            n++;
        }
        if (n > 0) {
            System.arraycopy(delayedPkt, n, delayedPkt, 0, delayedCount - n);
            System.arraycopy(delayedNode, n, delayedNode, 0, delayedCount - n);
            System.arraycopy(delayedDue, n, delayedDue, 0, delayedCount - n);
            delayedCount -= n;
        }
    }
}
