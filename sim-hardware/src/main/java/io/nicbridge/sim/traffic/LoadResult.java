package io.nicbridge.sim.traffic;

/**
 * One load point measured by {@link LoadTest}. Rates are flits per node per cycle; latencies are
 * cycles. Latency and hop figures cover the packets created during the measurement window
 * (followed through the drain); throughput figures cover every flit ejected during the window.
 *
 * @param offeredLoad the requested load (packet rate x packet length)
 * @param offeredMeasured flits created during the window per node per cycle
 * @param acceptedAverage flits ejected during the window per node per cycle, averaged over nodes
 * @param acceptedMinimum the same, for the node that received least
 * @param packetLatency mean latency from creation to ejection (includes source queueing)
 * @param networkLatency mean latency from the head leaving the node's NI queue to ejection (from the
 *                       harness's offer when the fabric does not report it)
 * @param maxPacketLatency worst packet latency seen
 * @param hops mean routers traversed
 * @param measuredPackets packets created in the window that were delivered
 * @param droppedPackets packets created in the window that the network dropped
 * @param stable whether warm-up and measurement converged, latency stayed under the threshold and the
 *               drain finished
 * @param verdict why the run is unstable, or "stable"
 * @param cycles cycles simulated in total
 * @param flitHops flit-hops simulated during the whole run (speed figure)
 * @param wallNanos wall-clock time of the run
 */
public record LoadResult(double offeredLoad, double offeredMeasured, double acceptedAverage, double acceptedMinimum,
                         double packetLatency, double networkLatency, long maxPacketLatency, double hops,
                         long measuredPackets, long droppedPackets, boolean stable, String verdict, long cycles,
                         long flitHops, long wallNanos) {

    /** @return dropped / (delivered + dropped) among the measured packets */
    public double dropRate() {
        long total = measuredPackets + droppedPackets;
        return total == 0 ? 0.0 : (double) droppedPackets / total;
    }
}
