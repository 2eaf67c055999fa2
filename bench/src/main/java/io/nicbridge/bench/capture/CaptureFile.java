package io.nicbridge.bench.capture;

import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.RealTimeBase;
import io.nicbridge.sim.engine.TimeBase;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Where an experiment writes the frames it moves, if anywhere: a classic libpcap file and the most frames it keeps.
 * {@link #NONE} captures nothing: {@code open} returns null, so no link gets a writer and the run measures exactly
 * what it measures without a capture. The experiments open the file themselves, because only they know the link
 * type and the clock (their world's simulated time, or the wall clock).
 *
 * @param path      the file to create; null for {@link #NONE}
 * @param maxFrames frames written before the rest are only counted; 0 = no limit
 */
public record CaptureFile(Path path, long maxFrames) {
    /** 100 000 frames: at most about 150 MB of Ethernet frames, 800 MB of the largest FDDI frames. */
    public static final long DEFAULT_MAX_FRAMES = 100_000;
    /** No capture. */
    public static final CaptureFile NONE = new CaptureFile(null, DEFAULT_MAX_FRAMES);

    /** @throws IllegalArgumentException naming {@code --pcap-max-frames} when the limit is negative */
    public CaptureFile {
        if (maxFrames < 0) {
            throw new IllegalArgumentException("--pcap-max-frames must be 0 (no limit) or more, was " + maxFrames);
        }
    }

    public boolean enabled() {
        return path != null;
    }

    /** Opens the file for a virtual-time run whose links stamp every record with their own world's clock. */
    public PcapWriter openVirtual(int linkType) {
        return open(linkType, new VirtualTimeBase(0));
    }

    /** Opens the file stamped by the wall clock (a real-time run or a real link); null without a file. */
    public PcapWriter openWallClock(int linkType) {
        return open(linkType, new RealTimeBase());
    }

    /**
     * Opens the file for links stamped by {@code clock}.
     *
     * @return the writer, or null for {@link #NONE}
     * @throws IllegalArgumentException naming {@code --pcap} when the file cannot be created
     */
    public PcapWriter open(int linkType, TimeBase clock) {
        if (path == null) {
            return null;
        }
        Path dir = path.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("--pcap " + path + ": directory " + dir + " does not exist");
        }
        try {
            PcapWriter.Builder b = PcapWriter.builder(path, clock).linkType(linkType);
            if (maxFrames > 0) {
                b.maxRecords(maxFrames);
            }
            return b.open();
        } catch (IOException e) {
            throw new IllegalArgumentException("--pcap " + path + ": cannot create the file: " + e.getMessage(), e);
        }
    }

    /**
     * Closes the writer and describes the file: frames written, and any not written because of the limit.
     *
     * @return one line for the experiment's output, or null when there is no writer
     * @throws UncheckedIOException when writing the file failed
     */
    public static String close(PcapWriter writer) {
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
    public static void finish(PcapWriter writer, PrintStream out) {
        String line = close(writer);
        if (line != null) {
            out.println(line);
        }
    }
}
