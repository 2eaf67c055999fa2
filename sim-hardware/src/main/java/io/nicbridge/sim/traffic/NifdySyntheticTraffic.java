package io.nicbridge.sim.traffic;

import java.util.SplittableRandom;

/**
 * The NIFDY paper's synthetic workloads (section 4.1): phases separated by barriers; in a phase each
 * sending node sends its packets (100 to 300) as fast as it can, as messages of consecutive packets
 * to one random destination, choosing a new destination and length at the end of each message. No
 * node starts the next phase until every sending node has finished the current one (here: its port
 * has accepted all its packets; the barrier then takes {@code barrierCycles}). The metric is
 * packets delivered in a fixed number of cycles (the paper: 1,000,000).
 * <pre>
 *   heavy  every node sends every phase; message length uniform in 1..5 packets
 *   light  each node sends in a phase with probability 0.33; message lengths 1..5, 10 and 20
 *          (most messages short, most packets in long messages); nodes enter non-responsive
 *          periods, triggered pseudo-randomly and independently, in which they neither send nor
 *          pull packets from the network interface
 * </pre>
 * The paper does not give the light length weights nor the non-responsive parameters; the
 * {@link #light} values are this project's choice, stated there. Each node has dedicated random
 * streams (participation and packet count; destinations and lengths; non-responsiveness), so the
 * same bursts are generated whatever network or NIFDY configuration runs them.
 *
 * @param packetFlits packet size (the paper: 8 words including the header)
 * @param minPackets fewest packets a sending node sends per phase
 * @param maxPackets most packets a sending node sends per phase
 * @param sendProbability probability that a node sends in a phase
 * @param lengths message lengths in packets
 * @param weights probability of each length (sum 1)
 * @param silenceProbability per-cycle probability that a responsive node becomes non-responsive
 * @param silenceMin shortest non-responsive period (cycles)
 * @param silenceMax longest non-responsive period (cycles)
 * @param barrierCycles cycles a barrier takes once the last sender has finished
 */
public record NifdySyntheticTraffic(String name, int packetFlits, int minPackets, int maxPackets,
                                    double sendProbability, int[] lengths, double[] weights,
                                    double silenceProbability, int silenceMin, int silenceMax, int barrierCycles) {

    public NifdySyntheticTraffic {
        if (packetFlits < 1 || minPackets < 1 || maxPackets < minPackets || lengths.length == 0
                || lengths.length != weights.length || !(sendProbability > 0 && sendProbability <= 1)
                || silenceProbability < 0 || silenceMin < 0 || silenceMax < silenceMin || barrierCycles < 0) {
            throw new IllegalArgumentException("bad NIFDY synthetic traffic parameters for '" + name + "'");
        }
        double sum = 0;
        for (int i = 0; i < lengths.length; i++) {
            if (lengths[i] < 1 || weights[i] < 0) {
                throw new IllegalArgumentException("message lengths must be >= 1 and weights >= 0");
            }
            sum += weights[i];
        }
        if (Math.abs(sum - 1.0) > 1e-9) {
            throw new IllegalArgumentException("message length weights must sum to 1, got " + sum);
        }
        lengths = lengths.clone();
        weights = weights.clone();
    }

    /** The heavy pattern: everyone sends, lengths uniform 1..5, no silences. */
    public static NifdySyntheticTraffic heavy(int packetFlits) {
        return new NifdySyntheticTraffic("heavy", packetFlits, 100, 300, 1.0, new int[] {1, 2, 3, 4, 5},
                new double[] {0.2, 0.2, 0.2, 0.2, 0.2}, 0.0, 0, 0, 0);
    }

    /**
     * The light pattern. Our choices where the paper gives none: lengths 1,2,3,4,5,10,20 with weights
     * .32,.20,.12,.10,.08,.12,.06 (82 % of messages have at most 5 packets, yet 56 % of packets travel
     * in 10- and 20-packet messages); a node turns non-responsive with probability 1/2000 per cycle
     * for 200 to 1000 cycles.
     */
    public static NifdySyntheticTraffic light(int packetFlits) {
        return new NifdySyntheticTraffic("light", packetFlits, 100, 300, 0.33, new int[] {1, 2, 3, 4, 5, 10, 20},
                new double[] {0.32, 0.20, 0.12, 0.10, 0.08, 0.12, 0.06}, 1.0 / 2000, 200, 1000, 0);
    }

    /** @return the mean message length in packets */
    public double meanMessageLength() {
        double m = 0;
        for (int i = 0; i < lengths.length; i++) {
            m += lengths[i] * weights[i];
        }
        return m;
    }

    /**
     * What a run measured.
     *
     * @param packetsDelivered packets delivered within the run (the paper's metric)
     * @param packetsSent packets accepted by the ports
     * @param packetsDropped packets the network dropped
     * @param phasesCompleted phases every sender finished
     * @param cycles cycles run
     * @param meanLatency mean cycles from a packet's acceptance by its port to its delivery
     */
    public record Result(long packetsDelivered, long packetsSent, long packetsDropped, int phasesCompleted,
                         long cycles, double meanLatency) {
    }

    /** Runs the workload on {@code fabric} (request network) for {@code cycles} cycles. */
    public Result run(FabricPorts fabric, long cycles, long seed) {
        int nodes = fabric.nodeCount();
        if (nodes < 2) {
            throw new IllegalArgumentException("NIFDY synthetic traffic needs at least 2 nodes");
        }
        SplittableRandom[] phaseRandom = LoadTest.nodeRandoms(seed, nodes);
        SplittableRandom[] messageRandom = LoadTest.nodeRandoms(seed ^ 0x9E3779B97F4A7C15L, nodes);
        SplittableRandom[] silenceRandom = LoadTest.nodeRandoms(seed ^ 0xC2B2AE3D27D4EB4FL, nodes);
        int[] left = new int[nodes];          // packets still to send this phase
        int[] messageLeft = new int[nodes];   // packets still to send in the current message
        int[] messageDst = new int[nodes];
        long[] silentUntil = new long[nodes];
        long[] sentAt = new long[Integer.highestOneBit(Math.max(1 << 16, nodes * 256))];
        long[] counters = new long[3];        // delivered, dropped, latency sum
        fabric.dropListener((net, tag) -> counters[1]++);
        long start = fabric.cycle();
        long sent = 0;
        int phases = 0;
        int sending = startPhase(phaseRandom, left, messageLeft);
        long phaseStartsAt = start;
        long seq = 0;
        while (fabric.cycle() - start < cycles) {
            long now = fabric.cycle();
            boolean inPhase = now >= phaseStartsAt;
            for (int n = 0; n < nodes; n++) {
                if (silentUntil[n] != 0) {
                    if (now < silentUntil[n]) {
                        continue;
                    }
                    silentUntil[n] = 0;
                    fabric.receiving(n, true);
                }
                if (silenceProbability > 0 && silenceRandom[n].nextDouble() < silenceProbability) {
                    silentUntil[n] = now + silenceMin + silenceRandom[n].nextInt(silenceMax - silenceMin + 1);
                    fabric.receiving(n, false);
                    continue;
                }
                if (!inPhase || left[n] == 0) {
                    continue;
                }
                if (messageLeft[n] == 0) {
                    SplittableRandom r = messageRandom[n];
                    int d = r.nextInt(nodes - 1);
                    messageDst[n] = d >= n ? d + 1 : d;
                    messageLeft[n] = Math.min(left[n], drawLength(r));
                }
                long tag = seq & (sentAt.length - 1);
                if (fabric.offer(FabricPorts.REQUEST, n, messageDst[n], packetFlits, tag)) {
                    sentAt[(int) tag] = now;
                    seq++;
                    sent++;
                    messageLeft[n]--;
                    if (--left[n] == 0) {
                        sending--;
                    }
                }
            }
            fabric.step();
            long after = fabric.cycle();
            for (int n = 0; n < nodes; n++) {
                long tag;
                while ((tag = fabric.poll(FabricPorts.REQUEST, n)) != FabricPorts.NO_PACKET) {
                    counters[0]++;
                    counters[2] += after - sentAt[(int) tag];
                }
            }
            if (inPhase && sending == 0) {
                phases++;
                sending = startPhase(phaseRandom, left, messageLeft);
                phaseStartsAt = after + barrierCycles;
            }
        }
        for (int n = 0; n < nodes; n++) {
            if (silentUntil[n] != 0) {
                fabric.receiving(n, true);
            }
        }
        return new Result(counters[0], sent, counters[1], phases, fabric.cycle() - start,
                counters[0] == 0 ? 0.0 : (double) counters[2] / counters[0]);
    }

    private int startPhase(SplittableRandom[] phaseRandom, int[] left, int[] messageLeft) {
        int sending = 0;
        for (int n = 0; n < left.length; n++) {
            SplittableRandom r = phaseRandom[n];
            boolean sends = r.nextDouble() < sendProbability;
            int count = minPackets + r.nextInt(maxPackets - minPackets + 1);
            left[n] = sends ? count : 0;
            messageLeft[n] = 0;
            if (sends) {
                sending++;
            }
        }
        return sending == 0 ? startPhase(phaseRandom, left, messageLeft) : sending;
    }

    private int drawLength(SplittableRandom r) {
        double u = r.nextDouble();
        double acc = 0;
        for (int i = 0; i < lengths.length; i++) {
            acc += weights[i];
            if (u < acc) {
                return lengths[i];
            }
        }
        return lengths[lengths.length - 1];
    }
}
