package io.nicbridge.sim.traffic;

/**
 * The cyclic-shift all-to-all pattern (Brewer and Kuszmaul 1994, used in the NIFDY paper's section
 * 4.3): P - 1 phases; in phase p node i sends {@code packetsPerPhase} packets to node (i + p) mod P.
 * With barriers no node starts phase p + 1 before every node has sent all of phase p; without them
 * a node moves on as soon as it has sent its own packets, so fast nodes can catch up with slow ones
 * and two senders pile onto one receiver (the paper's figure 5). Packets are six words in the
 * paper (CMAM / Split-C).
 *
 * @param packetFlits flits per packet
 * @param packetsPerPhase packets each node sends to its partner in each phase
 * @param barriers whether phases are separated by global barriers
 * @param barrierCycles cycles a barrier takes once the last node has sent
 */
public record CyclicShiftTraffic(int packetFlits, int packetsPerPhase, boolean barriers, int barrierCycles) {

    public CyclicShiftTraffic {
        if (packetFlits < 1 || packetsPerPhase < 1 || barrierCycles < 0) {
            throw new IllegalArgumentException("cyclic shift needs packet flits >= 1, packets per phase >= 1, "
                    + "barrier cycles >= 0");
        }
    }

    /** @return the destination of node {@code i} in phase {@code p} (1-based) of a P-node shift */
    public static int partner(int i, int phase, int nodes) {
        return (i + phase) % nodes;
    }

    /**
     * @param completionCycle cycles until the last packet was delivered
     * @param packetsDelivered packets delivered
     * @param maxPendingAtReceiver most packets ever in flight to a single receiver (pile-up)
     * @param completed whether every packet arrived before the cycle limit
     */
    public record Result(long completionCycle, long packetsDelivered, int maxPendingAtReceiver, boolean completed) {
    }

    /** Runs the shift on {@code fabric} (request network) until done or {@code maxCycles}. */
    public Result run(FabricPorts fabric, long maxCycles) {
        int nodes = fabric.nodeCount();
        if (nodes < 2) {
            throw new IllegalArgumentException("cyclic shift needs at least 2 nodes");
        }
        int[] phase = new int[nodes];
        int[] left = new int[nodes];
        int[] pending = new int[nodes];
        long total = (long) nodes * (nodes - 1) * packetsPerPhase;
        for (int n = 0; n < nodes; n++) {
            phase[n] = 1;
            left[n] = packetsPerPhase;
        }
        long delivered = 0;
        int maxPending = 0;
        int globalPhase = 1;
        int doneInPhase = 0;
        long barrierEnds = -1;
        long start = fabric.cycle();
        while (delivered < total && fabric.cycle() - start < maxCycles) {
            long now = fabric.cycle();
            for (int n = 0; n < nodes; n++) {
                if (phase[n] >= nodes || (barriers && (phase[n] > globalPhase || now < barrierEnds))) {
                    continue;
                }
                int dst = partner(n, phase[n], nodes);
                if (fabric.offer(FabricPorts.REQUEST, n, dst, packetFlits, dst)) {
                    maxPending = Math.max(maxPending, ++pending[dst]);
                    if (--left[n] == 0) {
                        phase[n]++;
                        left[n] = packetsPerPhase;
                        doneInPhase++;
                    }
                }
            }
            fabric.step();
            for (int n = 0; n < nodes; n++) {
                while (fabric.poll(FabricPorts.REQUEST, n) != FabricPorts.NO_PACKET) {
                    delivered++;
                    pending[n]--;
                }
            }
            if (barriers && doneInPhase == nodes) {
                doneInPhase = 0;
                globalPhase++;
                barrierEnds = fabric.cycle() + barrierCycles;
            }
        }
        return new Result(fabric.cycle() - start, delivered, maxPending, delivered == total);
    }
}
