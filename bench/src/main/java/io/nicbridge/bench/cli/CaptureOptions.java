package io.nicbridge.bench.cli;

import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.RealTimeBase;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * {@code --pcap FILE} and {@code --pcap-max-frames N}: the capture options of every command that moves frames (a
 * picocli mixin). Off unless {@code --pcap} is given: then nothing is opened and no link has a writer, so the run
 * measures exactly what it measures without the option.
 */
final class CaptureOptions {
    /** 100 000 frames: at most about 150 MB of Ethernet frames, 800 MB of the largest FDDI frames. */
    static final long DEFAULT_MAX_FRAMES = 100_000;

    @Option(names = "--pcap", paramLabel = "FILE", description = "Write the frames the run moves to FILE, a classic"
        + " libpcap file for tcpdump, tshark and Wireshark. dec21140: the wire's frames without FCS (Ethernet,"
        + " linktype 1); sba200: the AAL5 PDUs card A sends and receives in the virtual-time runs (SunATM, 123);"
        + " medusa: every frame on every ring (FDDI, 10); shim: the frames on the link while the shim cards run"
        + " (Ethernet; role both: what arrives at each end of the veth pair, so every frame once; echo and client:"
        + " what if= sends and receives, where qdisc-bypass=true hides the sent ones), not the UDP baseline."
        + " Virtual-time runs are stamped with simulated time from 1970-01-01T00:00:00Z (every point of a sweep is"
        + " its own world starting at 0); real-time runs and the shim with the wall clock. Capturing costs time on"
        + " every frame (a copy; on the shim the kernel's copy to a tap socket): real-time figures of a captured run"
        + " are not comparable with uncaptured ones; simulated times do not change.")
    Path pcap;

    @Option(names = "--pcap-max-frames", paramLabel = "N", defaultValue = "" + DEFAULT_MAX_FRAMES,
        description = "With --pcap: keep the first N frames and count the rest without writing them, so a long run"
            + " cannot fill the disk (default: ${DEFAULT-VALUE}; 0: no limit).")
    long maxFrames;

    boolean enabled() {
        return pcap != null;
    }

    /**
     * Opens the file for a virtual-time run whose links stamp every record with their own world's clock.
     *
     * @return the writer, or null when {@code --pcap} was not given
     */
    PcapWriter openVirtual(int linkType) {
        return open(linkType, new VirtualTimeBase(0));
    }

    /** Opens the file stamped by the wall clock (a real-time run or a real link); null without {@code --pcap}. */
    PcapWriter openWallClock(int linkType) {
        return open(linkType, new RealTimeBase());
    }

    /**
     * Opens the file for links stamped by {@code clock}; null when {@code --pcap} was not given.
     *
     * @throws IllegalArgumentException naming the option when the limit is negative or the file cannot be created
     */
    PcapWriter open(int linkType, TimeBase clock) {
        if (maxFrames < 0) {
            throw new IllegalArgumentException("--pcap-max-frames must be 0 (no limit) or more, was " + maxFrames);
        }
        if (pcap == null) {
            return null;
        }
        Path dir = pcap.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("--pcap " + pcap + ": directory " + dir + " does not exist");
        }
        try {
            PcapWriter.Builder b = PcapWriter.builder(pcap, clock).linkType(linkType);
            if (maxFrames > 0) {
                b.maxRecords(maxFrames);
            }
            return b.open();
        } catch (IOException e) {
            throw new IllegalArgumentException("--pcap " + pcap + ": cannot create the file: " + e.getMessage(), e);
        }
    }

    /**
     * Closes the writer and describes the file: frames written, and any not written because of the limit or a
     * write error.
     *
     * @return one line for the command's output, or null when there is no writer
     * @throws UncheckedIOException when writing the file failed
     */
    static String close(PcapWriter writer) {
        if (writer == null) {
            return null;
        }
        writer.close();
        long over = writer.recordsOverLimit();
        return String.format(Locale.ROOT, "pcap: %s: %d frames written (linktype %d)%s", writer.path(),
            writer.records(), writer.linkType() & 0xFFFF, over == 0 ? ""
                : "; " + over + " more not written (--pcap-max-frames " + writer.maxRecords() + ")");
    }

    /** {@link #close(PcapWriter)}, printing the line on {@code out} (nothing without a writer). */
    static void finish(PcapWriter writer, PrintStream out) {
        String line = close(writer);
        if (line != null) {
            out.println(line);
        }
    }
}
