package io.nicbridge.bench.pupa;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.sim.ethernet.EthernetMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code nic pupa latency}: Tables 1 and 2 and Figure 3 in virtual time ({@link PupaLatency}). */
@Command(name = "latency", mixinStandardHelpOptions = true, description = "Tables 1 and 2 / Figure 3: one-way"
    + " latency of 4..1436-byte messages on two emulated 21140s in virtual time, split into sender side, receiver side"
    + " and transmission and DMA, and into protocol processing, OS and driver overhead, data copy and buffer and"
    + " header management, beside the paper's tables.")
public final class PupaLatencyCommand extends PupaExperimentCommand {
    /** The sizes of --quick: the smallest, one per body path, the largest single frame. */
    static final int[] QUICK_SIZES = {4, 128, 256, 1436};

    @Option(names = "--warmup", defaultValue = "2", description = "Messages per size before the measured ones"
        + " (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--count", defaultValue = "5", description = "Measured messages per size (default:"
        + " ${DEFAULT-VALUE}).")
    int count;

    @Override
    int run(CostTable table, int[] sizes, EthernetMode medium) {
        int[] list = sizes != null ? sizes : quick ? QUICK_SIZES : PupaPaper.SIZES;
        PupaLatency.Settings s = new PupaLatency.Settings(table, list, seed, quick ? 1 : warmup, quick ? 2 : count,
                medium);
        return PupaLatency.run(System.out, s);
    }
}
