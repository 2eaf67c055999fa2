package io.nicbridge.sim.traffic;

import java.util.SplittableRandom;

/**
 * Measures one offered load on one network by the BookSim method: warm-up, measurement and drain
 * phases made of sample periods.
 * <pre>
 *   warm-up      periods until the period's average latency and accepted rate change by less than
 *                the threshold (or than the sampling noise 2/sqrt(packets), whichever is larger)
 *                from the previous period (unstable after maxWarmupPeriods)
 *   measurement  packets created now are tagged; periods until the window's running average
 *                latency and accepted rate have changed by < threshold for convergedPeriods
 *                consecutive periods (unstable after maxMeasurePeriods)
 *   drain        traffic keeps flowing (untagged) until every tagged packet has left the network
 *                (unstable after maxDrainCycles)
 * </pre>
 * Each node owns an unbounded source queue; a packet is created there by the injection process
 * with a destination from the pattern, and offered to the node's port head-first, one offer per node
 * per cycle. Latency counts from creation. A run with any period's average latency above the
 * threshold is unstable. The random stream of node i is seeded from (seed, i) only, so a seed gives
 * the same packets on every network.
 */
public final class LoadTest {
    private final FabricPorts fabric;
    private final TrafficPattern pattern;
    private final InjectionProcess injection;
    private final int packetFlits;
    private final int network;
    private final MeasurementSettings settings;
    private final int nodes;
    private final SplittableRandom[] random;
    private final PacketTable packets;
    private final IntRingQueues sourceQueues;
    private final long[] windowEjectedFlits;

    private boolean ran;
    private boolean tagging;
    private boolean windowOpen;
    private long outstandingTagged;
    // Per-period accumulators (all packets).
    private long periodPackets;
    private long periodLatencySum;
    private long periodFlits;
    // Measured (tagged) packets.
    private long taggedDelivered;
    private long taggedDropped;
    private double taggedLatencySum;
    private double taggedNetworkLatencySum;
    private double taggedHopsSum;
    private long taggedMaxLatency;
    private long windowCreatedFlits;
    private long windowPackets;
    private long windowLatencySum;
    private long windowFlits;
    private long windowDroppedFlits;
    private long flitHops;

    /**
     * @param seed the seed of every node's random stream
     * @param network the logical network the packets travel on
     */
    public LoadTest(FabricPorts fabric, TrafficPattern pattern, InjectionProcess injection, int packetFlits,
                    int network, long seed, MeasurementSettings settings) {
        if (packetFlits < 1) {
            throw new IllegalArgumentException("packet_size must be >= 1 flit, got " + packetFlits);
        }
        if (network < 0 || network >= fabric.networkCount()) {
            throw new IllegalArgumentException("network " + network + " does not exist; the fabric has "
                    + fabric.networkCount());
        }
        this.fabric = fabric;
        this.pattern = pattern;
        this.injection = injection;
        this.packetFlits = packetFlits;
        this.network = network;
        this.settings = settings;
        this.nodes = fabric.nodeCount();
        this.random = nodeRandoms(seed, nodes);
        this.packets = new PacketTable(nodes * 16);
        this.sourceQueues = new IntRingQueues(nodes, 16);
        this.windowEjectedFlits = new long[nodes];
        fabric.dropListener(this::onDrop);
    }

    /** @return one independent stream per node, a function of (seed, node) only */
    public static SplittableRandom[] nodeRandoms(long seed, int nodes) {
        SplittableRandom[] r = new SplittableRandom[nodes];
        SplittableRandom root = new SplittableRandom(seed);
        for (int i = 0; i < nodes; i++) {
            r[i] = root.split();
        }
        return r;
    }

    /**
     * Runs warm-up, measurement and drain, and reports the measured load point. One run per instance
     * (and per fresh network): the network's state is part of the measurement.
     */
    public LoadResult run() {
        if (ran) {
            throw new IllegalStateException("a LoadTest runs once; build a new one on a fresh network");
        }
        ran = true;
        long start = System.nanoTime();
        long startCycle = fabric.cycle();
        String verdict = "stable";
        boolean stable = true;

        // Warm-up.
        double prevLatency = Double.NaN;
        double prevAccepted = Double.NaN;
        boolean warmed = false;
        for (int p = 0; p < settings.maxWarmupPeriods(); p++) {
            runPeriod();
            double latency = periodLatency();
            double accepted = periodAccepted();
            if (latency > settings.latencyThreshold()) {
                stable = false;
                verdict = "latency " + Math.round(latency) + " > threshold during warm-up";
                break;
            }
            double noise = periodPackets == 0 ? 0.0 : 2.0 / Math.sqrt(periodPackets);
            if (converged(prevLatency, latency, noise) && converged(prevAccepted, accepted, noise)) {
                warmed = true;
                break;
            }
            prevLatency = latency;
            prevAccepted = accepted;
        }
        if (stable && !warmed) {
            stable = false;
            verdict = "warm-up did not converge in " + settings.maxWarmupPeriods() + " periods";
        }

        // Measurement (also past an unstable warm-up when asked to measure the unstable regime).
        long windowCycles = 0;
        if (stable || !settings.stopWhenUnstable()) {
            tagging = true;
            windowOpen = true;
            int convergedRun = 0;
            prevLatency = Double.NaN;
            prevAccepted = Double.NaN;
            boolean measured = false;
            for (int p = 0; p < settings.maxMeasurePeriods(); p++) {
                runPeriod();
                windowCycles += settings.samplePeriod();
                double latency = periodLatency();
                // Convergence of the measurement is judged on the running averages of the window.
                double cumulativeLatency = windowPackets == 0 ? 0.0 : (double) windowLatencySum / windowPackets;
                double cumulativeAccepted = (double) windowFlits / ((double) windowCycles * nodes);
                if (latency > settings.latencyThreshold() && stable) {
                    stable = false;
                    verdict = "latency " + Math.round(latency) + " > threshold during measurement";
                }
                if (!stable && settings.stopWhenUnstable()) {
                    break;
                }
                convergedRun = converged(prevLatency, cumulativeLatency, 0.0)
                        && converged(prevAccepted, cumulativeAccepted, 0.0) ? convergedRun + 1 : 0;
                prevLatency = cumulativeLatency;
                prevAccepted = cumulativeAccepted;
                if (convergedRun >= settings.convergedPeriods() || (!stable && p + 1 >= settings.convergedPeriods())) {
                    measured = true;
                    break;
                }
            }
            if (stable && !measured) {
                stable = false;
                verdict = "measurement did not converge in " + settings.maxMeasurePeriods() + " periods";
            }
            tagging = false;
            windowOpen = false;
            // A network that carries clearly less than it is offered is past saturation even when its
            // latency has not yet crossed the threshold. Dropped flits were carried (and thrown away):
            // in drop mode the drop rate, not this test, reports the loss.
            if (stable && windowFlits + windowDroppedFlits
                    < windowCreatedFlits * (1.0 - settings.warmupThreshold())) {
                stable = false;
                verdict = "accepted rate below offered";
            }
        }

        // Drain: only a run still stable waits for its tagged packets.
        if (stable) {
            long drainStart = fabric.cycle();
            while (outstandingTagged > 0) {
                if (fabric.cycle() - drainStart >= settings.maxDrainCycles()) {
                    stable = false;
                    verdict = "drain took more than " + settings.maxDrainCycles() + " cycles";
                    break;
                }
                cycle();
            }
            if (stable && taggedDelivered > 0
                    && taggedLatencySum / taggedDelivered > settings.latencyThreshold()) {
                stable = false;
                verdict = "average latency above threshold";
            }
        }

        long min = Long.MAX_VALUE;
        long sum = 0;
        for (int i = 0; i < nodes; i++) {
            min = Math.min(min, windowEjectedFlits[i]);
            sum += windowEjectedFlits[i];
        }
        double perNodeCycle = windowCycles == 0 ? 0.0 : 1.0 / ((double) windowCycles);
        return new LoadResult(
                injection.packetRate() * packetFlits,
                windowCycles == 0 ? 0.0 : windowCreatedFlits * perNodeCycle / nodes,
                sum * perNodeCycle / nodes,
                windowCycles == 0 ? 0.0 : min * perNodeCycle,
                taggedDelivered == 0 ? 0.0 : taggedLatencySum / taggedDelivered,
                taggedDelivered == 0 ? 0.0 : taggedNetworkLatencySum / taggedDelivered,
                taggedMaxLatency,
                taggedDelivered == 0 ? 0.0 : taggedHopsSum / taggedDelivered,
                taggedDelivered, taggedDropped, stable, verdict,
                fabric.cycle() - startCycle, flitHops, System.nanoTime() - start);
    }

    /**
     * Relative change below the threshold. {@code noiseFloor} widens it to the sampling noise of a
     * short period (about 2 / sqrt(packets)), so small networks at low load still leave warm-up.
     */
    private boolean converged(double previous, double current, double noiseFloor) {
        if (Double.isNaN(previous)) {
            return false;
        }
        double scale = Math.max(Math.abs(previous), Math.abs(current));
        return scale == 0.0
                || Math.abs(current - previous) / scale < Math.max(settings.warmupThreshold(), noiseFloor);
    }

    private void runPeriod() {
        periodPackets = 0;
        periodLatencySum = 0;
        periodFlits = 0;
        for (int c = 0; c < settings.samplePeriod(); c++) {
            cycle();
        }
    }

    private double periodLatency() {
        return periodPackets == 0 ? 0.0 : (double) periodLatencySum / periodPackets;
    }

    private double periodAccepted() {
        return (double) periodFlits / ((double) settings.samplePeriod() * nodes);
    }

    private void cycle() {
        long now = fabric.cycle();
        for (int n = 0; n < nodes; n++) {
            SplittableRandom r = random[n];
            if (injection.inject(n, r)) {
                int dst = pattern.destination(n, r);
                int slot = packets.allocate(now, n, dst, tagging);
                sourceQueues.push(n, slot);
                if (tagging) {
                    outstandingTagged++;
                    windowCreatedFlits += packetFlits;
                }
            }
        }
        for (int n = 0; n < nodes; n++) {
            if (!sourceQueues.isEmpty(n)) {
                int slot = sourceQueues.peek(n);
                if (fabric.offer(network, n, packets.destination[slot], packetFlits, slot)) {
                    sourceQueues.pop(n);
                    packets.injected[slot] = now;
                }
            }
        }
        fabric.step();
        long after = fabric.cycle();
        for (int n = 0; n < nodes; n++) {
            long tag;
            while ((tag = fabric.poll(network, n)) != FabricPorts.NO_PACKET) {
                int slot = (int) tag;
                int hops = fabric.polledHops();
                long latency = after - packets.created[slot];
                periodPackets++;
                periodLatencySum += latency;
                periodFlits += packetFlits;
                flitHops += (long) packetFlits * hops;
                if (windowOpen) {
                    windowEjectedFlits[n] += packetFlits;
                    windowPackets++;
                    windowLatencySum += latency;
                    windowFlits += packetFlits;
                }
                if (packets.measured[slot]) {
                    taggedDelivered++;
                    taggedLatencySum += latency;
                    int net = fabric.polledNetworkLatency();
                    taggedNetworkLatencySum += net >= 0 ? net : after - packets.injected[slot];
                    taggedHopsSum += hops;
                    taggedMaxLatency = Math.max(taggedMaxLatency, latency);
                    outstandingTagged--;
                }
                packets.release(slot);
            }
        }
    }

    private void onDrop(int net, long tag) {
        if (net != network) {
            return;
        }
        int slot = (int) tag;
        if (windowOpen) {
            windowDroppedFlits += packetFlits;
        }
        if (packets.measured[slot]) {
            taggedDropped++;
            outstandingTagged--;
        }
        packets.release(slot);
    }
}
