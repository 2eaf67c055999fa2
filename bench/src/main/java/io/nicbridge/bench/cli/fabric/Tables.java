package io.nicbridge.bench.cli.fabric;

import io.nicbridge.sim.traffic.LoadResult;
import java.io.PrintStream;
import java.util.Locale;

/** The load-point table both fabric commands print. */
final class Tables {
    private Tables() {
    }

    static void header(PrintStream out) {
        out.println("   offered  created  acc.avg  acc.min  pkt.lat  net.lat  max.lat   hops  drop%  stable");
    }

    static void row(PrintStream out, LoadResult r) {
        out.println(String.format(Locale.ROOT, "   %7.4f  %7.4f  %7.4f  %7.4f  %7s  %7s  %7s  %5s  %5.2f  %s",
                r.offeredLoad(), r.offeredMeasured(), r.acceptedAverage(), r.acceptedMinimum(),
                latency(r, r.packetLatency()), latency(r, r.networkLatency()),
                r.measuredPackets() == 0 ? "n/a" : Long.toString(r.maxPacketLatency()),
                r.measuredPackets() == 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", r.hops()), 100 * r.dropRate(),
                r.stable() ? "yes" : "no (" + r.verdict() + ")"));
    }

    /**
     * A latency of the measured packets with one decimal, or "n/a" when none of them completed (a run stopped
     * during warm-up): never a zero that reads like a measurement.
     */
    static String latency(LoadResult r, double cycles) {
        return r.measuredPackets() == 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", cycles);
    }
}
