package io.nicbridge.bench.cli;

import io.nicbridge.bench.capture.CaptureFile;
import io.nicbridge.sim.capture.PcapWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/**
 * A command that runs one virtual-time experiment: the world's {@code --seed} and the capture options
 * ({@code --pcap}, stamped with simulated time from 0) are every such command's, and the capture is opened before
 * the run and finished after it, its summary line on standard output, also when the run throws. A subclass adds its
 * own options and the run.
 */
abstract class VirtualRunCommand implements Callable<Integer> {
    @Mixin
    SeedOption seed = new SeedOption();

    @Mixin
    CaptureOptions capture = new CaptureOptions();

    private final int linkType;

    /** @param linkType the capture file's link type ({@link PcapWriter#LINKTYPE_FDDI}, ...) */
    VirtualRunCommand(int linkType) {
        this.linkType = linkType;
    }

    @Override
    public final Integer call() {
        PcapWriter pcap = capture.file().openVirtual(linkType);
        try {
            return run(seed.seed, pcap);
        } finally {
            CaptureFile.finish(pcap, System.out);
        }
    }

    /**
     * Runs the experiment, printing on standard output.
     *
     * @param pcap where the frames go, or null without {@code --pcap}
     * @return the exit code
     */
    abstract int run(long seed, PcapWriter pcap);
}
