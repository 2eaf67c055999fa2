package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.cost.CostTable;
import java.util.Objects;

/**
 * The fixed world every schedule runs in (the schedule varies only workload and faults).
 *
 * @param window           the core's window w
 * @param maxMessage       the largest message the workload offers (>= 8: it carries source, destination, number)
 * @param rtoNanos         the core's retransmission timeout
 * @param mtu              the medium's frame payload limit
 * @param txSlots          transmit buffers per node on the medium
 * @param rxSlots          receive buffers per node on the medium
 * @param latencyNanos     the medium's fixed latency
 * @param nanosPerByte     the medium's transmission time per byte
 * @param loadSpanNanos    the workload offers its messages over [0, loadSpan)
 * @param progressBoundNanos the progress promise checked: while messages are outstanding, something is delivered
 *                         within this long after the last fault, offer or delivery
 * @param maxEvents        a runaway guard: more dispatches than this fail the schedule
 * @param costs            the host cost table every node's CPU is priced by ({@link CostTable#zero()}: wire only)
 */
public record SimSettings(int window, int maxMessage, long rtoNanos, int mtu, int txSlots, int rxSlots,
                          long latencyNanos, long nanosPerByte, long loadSpanNanos, long progressBoundNanos,
                          long maxEvents, CostTable costs) {
    public SimSettings {
        Objects.requireNonNull(costs, "costs");
        if (maxMessage < 8) {
            throw new IllegalArgumentException("maxMessage must be >= 8, was " + maxMessage);
        }
        if (loadSpanNanos <= 0 || progressBoundNanos <= 0 || maxEvents <= 0) {
            throw new IllegalArgumentException("loadSpanNanos, progressBoundNanos and maxEvents must be > 0");
        }
    }

    /**
     * The defaults: w = 4, 48-byte messages, RTO 200 us, a 100 Mb/s medium with 2 us latency, 4 transmit and 8
     * receive buffers per node, load over 2 ms, progress bound 40 RTOs, the zero cost table.
     */
    public static SimSettings defaults() {
        return new SimSettings(4, 48, 200_000, 64, 4, 8, 2_000, 80, 2_000_000, 8_000_000, 2_000_000,
                CostTable.zero());
    }

    /**
     * The C* cores' defaults: as {@link #defaults()} but 64-byte fragments in 256-byte frames (a broadcast carries
     * an acknowledgement entry per node), 32 transmit and 16 receive buffers per node (events of several fragments
     * from every node arrive together).
     */
    public static SimSettings cstar() {
        return new SimSettings(4, 64, 200_000, 256, 32, 16, 2_000, 80, 2_000_000, 8_000_000, 2_000_000,
                CostTable.zero());
    }

    /**
     * TCP's world ({@link TcpNode}): chunks of up to 1500 bytes written to byte streams, in 576-byte frames (the
     * IPv4 datagram every host must take: an MSS of 536) on the in-memory medium, 8 transmit and 16 receive buffers
     * per node, load over 10 ms; the RTO the faults are scaled to is TCP's 1 ms floor (a partition lasts up to 15
     * ms), and the progress bound, 200 ms, leaves room for TCP's exponential backoff (RTO ceiling 32 ms,
     * {@link SimProtocols#tcp}) after a fault.
     */
    public static SimSettings tcp() {
        return new SimSettings(4, 1500, 1_000_000, 576, 8, 16, 2_000, 80, 10_000_000, 200_000_000, 2_000_000,
                CostTable.zero());
    }

    /** @return these settings with the nodes' CPUs priced by {@code table} */
    public SimSettings withCosts(CostTable table) {
        return new SimSettings(window, maxMessage, rtoNanos, mtu, txSlots, rxSlots, latencyNanos, nanosPerByte,
                loadSpanNanos, progressBoundNanos, maxEvents, table);
    }
}
