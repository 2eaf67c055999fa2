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
        out.println(String.format(Locale.ROOT, "   %7.4f  %7.4f  %7.4f  %7.4f  %7.1f  %7.1f  %7d  %5.2f  %5.2f  %s",
                r.offeredLoad(), r.offeredMeasured(), r.acceptedAverage(), r.acceptedMinimum(), r.packetLatency(),
                r.networkLatency(), r.maxPacketLatency(), r.hops(), 100 * r.dropRate(),
                r.stable() ? "yes" : "no (" + r.verdict() + ")"));
    }
}
