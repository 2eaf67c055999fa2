package io.nicbridge.bench.cli;

import io.nicbridge.bench.capture.CaptureFile;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --pcap FILE} and {@code --pcap-max-frames N}: the capture options of every command that moves frames (a
 * picocli mixin). Off unless {@code --pcap} is given: then nothing is opened and no link has a writer, so the run
 * measures exactly what it measures without the option.
 */
final class CaptureOptions {
    @Option(names = "--pcap", paramLabel = "FILE", description = "Write the frames the run moves to FILE, a classic"
        + " libpcap file for tcpdump, tshark and Wireshark. 21140: the wire's frames without FCS (Ethernet,"
        + " linktype 1); U-Net: the AAL5 PDUs card A sends and receives in the virtual-time runs (SunATM, 123);"
        + " Medusa: every frame on every ring (FDDI, 10); shim: the frames on the link while the shim cards run"
        + " (Ethernet; pingpong: what arrives at each end of the veth pair, so every frame once; echo and client:"
        + " what if= sends and receives, where qdisc-bypass=true hides the sent ones), not the UDP baseline."
        + " Virtual-time runs are stamped with simulated time from 1970-01-01T00:00:00Z (every point of a sweep is"
        + " its own world starting at 0); real-time runs and the shim with the wall clock. Capturing costs time on"
        + " every frame (a copy; on the shim the kernel's copy to a tap socket): real-time figures of a captured run"
        + " are not comparable with uncaptured ones; simulated times do not change.")
    Path pcap;

    @Option(names = "--pcap-max-frames", paramLabel = "N", defaultValue = "" + CaptureFile.DEFAULT_MAX_FRAMES,
        description = "With --pcap: keep the first N frames and count the rest without writing them, so a long run"
            + " cannot fill the disk (default: ${DEFAULT-VALUE}; 0: no limit).")
    long maxFrames;

    /** @throws IllegalArgumentException naming the option when the limit is negative */
    CaptureFile file() {
        CaptureFile f = new CaptureFile(pcap, maxFrames);
        return pcap == null ? CaptureFile.NONE : f;
    }
}
