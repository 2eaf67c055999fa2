package io.nicbridge.sim.sba200;

import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.contract.Sba200Unet;
import io.nicbridge.sim.capture.PcapReader;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Executables;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SunATM (LINKTYPE 123) capture of the PDUs a card sends and receives, decoded by tshark. */
class SunAtmCaptureTest {
    @TempDir
    Path dir;

    private Path capture(Pair p, String name, boolean sender) throws Exception {
        Path file = dir.resolve(name);
        PcapWriter w = PcapWriter.builder(file, p.engine.timeBase()).linkType(PcapWriter.LINKTYPE_SUNATM).open();
        (sender ? p.a : p.b).model().capture(w);
        p.sb.postBuffers(0, 16, 1024);
        p.sa.sendInline(Pair.bytes(20, 1));
        p.settle();
        p.sa.send(0, Pair.bytes(1000, 2));
        p.settle();
        (sender ? p.a : p.b).model().capture(null);
        w.close();
        return file;
    }

    @Test
    void recordsPseudoHeaderAndSduWithoutPadOrTrailer() throws Exception {
        try (Pair p = new Pair(EngineMode.VIRTUAL, Sba200Timing.WIRE_ONLY, s -> s.ports(2))) {
            Path tx = capture(p, "tx.pcap", true);
            List<PcapReader.Packet> pk = PcapReader.read(tx).packets();
            assertEquals(Sba200Unet.PCAP_LINKTYPE_SUNATM, PcapReader.read(tx).linkType());
            assertEquals(2, pk.size());
            byte[] first = pk.get(0).data();
            assertEquals(24, first.length, "4-byte pseudo-header + 20-byte SDU");
            assertEquals((byte) 0x80, first[0], "direction: transmit, type 0 (raw AAL5)");
            assertEquals(0, first[1], "VPI");
            assertEquals(p.bed.path().aTxVci(), (first[2] & 0xFF) << 8 | first[3] & 0xFF, "VCI");
            assertArrayEquals(Pair.bytes(20, 1), Arrays.copyOfRange(first, 4, 24));
            assertArrayEquals(Pair.bytes(1000, 2), Arrays.copyOfRange(pk.get(1).data(), 4, 1004));
            assertEquals(1004, pk.get(1).data().length);
        }
        try (Pair p = new Pair(EngineMode.VIRTUAL, Sba200Timing.WIRE_ONLY, s -> s.ports(2))) {
            Path rx = capture(p, "rx.pcap", false);
            List<PcapReader.Packet> pk = PcapReader.read(rx).packets();
            assertEquals(2, pk.size());
            assertEquals(0, pk.get(0).data()[0], "direction: receive");
            assertEquals(p.bed.path().bRxVci(), (pk.get(1).data()[2] & 0xFF) << 8 | pk.get(1).data()[3] & 0xFF);
            assertArrayEquals(Pair.bytes(1000, 2), Arrays.copyOfRange(pk.get(1).data(), 4, 1004));
            assertTrue(pk.get(1).timestampNanos() > pk.get(0).timestampNanos(), "virtual-time stamps");
        }
    }

    @Test
    void tsharkDecodesVpiAndVci() throws Exception {
        Path tshark = Executables.require(Capability.TSHARK, "tshark");
        try (Pair p = new Pair(EngineMode.VIRTUAL, Sba200Timing.WIRE_ONLY, s -> s.ports(2))) {
            Path file = capture(p, "decode.pcap", true);
            List<String> cmd = new ArrayList<>(List.of(tshark.toString(), "-n", "-r", file.toString(), "-T", "fields",
                "-E", "separator=,", "-e", "atm.vpi", "-e", "atm.vci", "-e", "frame.len"));
            Process proc = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(proc.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, proc.exitValue());
            List<String> lines = out.lines().toList();
            int vci = p.bed.path().aTxVci();
            // Wireshark's pcap reader takes the 4-byte SunATM pseudo-header off the frame: frame.len is the SDU.
            assertEquals(List.of("0," + vci + ",20", "0," + vci + ",1000"), lines);
        }
    }
}
