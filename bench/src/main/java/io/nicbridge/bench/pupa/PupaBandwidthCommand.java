package io.nicbridge.bench.pupa;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.sim.ethernet.EthernetMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code nic pupa bandwidth}: Figure 4 in virtual time ({@link PupaBandwidth}). */
@Command(name = "bandwidth", mixinStandardHelpOptions = true, description = "Figure 4: one-way bandwidth of a stream"
    + " of messages (64 B .. 8 KB) on two emulated 21140s in virtual time, every message acknowledged vs"
    + " sender-controlled acknowledgements, beside the paper's figures.")
public final class PupaBandwidthCommand extends PupaExperimentCommand {
    /** The sizes of --quick: around the paper's 2 KB / 4 KB step. */
    static final int[] QUICK_SIZES = {256, 2048, 4096};
    static final int QUICK_COUNT = 200;

    @Option(names = "--count", defaultValue = "2000", description = "Messages per point (default: ${DEFAULT-VALUE};"
        + " the paper's 100,000 run too, in minutes).")
    int count;

    @Override
    int run(CostTable table, int[] sizes, EthernetMode medium) {
        int[] list = sizes != null ? sizes : quick ? QUICK_SIZES : PupaBandwidth.SIZES;
        PupaBandwidth.Settings s = new PupaBandwidth.Settings(table, list, seed, quick ? QUICK_COUNT : count, medium);
        return PupaBandwidth.run(System.out, s);
    }
}
