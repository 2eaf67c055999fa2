package io.nicbridge.bench.simtest;

import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.TimeBase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Opening and closing the pcap file of one schedule's world (nanosecond timestamps on the world's virtual clock). */
final class CaptureFiles {
    private CaptureFiles() {
    }

    /** @throws UncheckedIOException naming the file when it cannot be created */
    static PcapWriter open(Path file, TimeBase time, int linkType) {
        try {
            return PcapWriter.builder(file, time).linkType(linkType).open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create capture file " + file, e);
        }
    }

    /** Closes {@code writer} (null: nothing); a write that failed during the run surfaces here. */
    static void close(PcapWriter writer) {
        if (writer != null) {
            writer.close();
        }
    }
}
