package io.nicbridge.bench.simtest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimProtocols;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.protocols.dst.SimTest;
import io.nicbridge.protocols.dst.SimulationRun;
import io.nicbridge.sim.capture.PcapReader;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Executables;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * pcap files of simulation runs: every emulated medium writes the frames it carries, stamped with virtual time, so
 * the same schedule gives a byte-identical file and another seed another file; tshark reads them.
 */
class SimulationCaptureTest {
    private static final SimSettings SETTINGS = SimSettings.defaults();

    @TempDir
    Path dir;

    private static Path capture(String medium, Schedule schedule, Path into) {
        SimMedium.Factory media = SimMedia.byName(medium).capturing(into);
        SimulationRun.Outcome o = new SimTest("gbn", SimProtocols.byName("gbn"), SETTINGS,
                new ScheduleGenerator(SETTINGS, media.families()), media).run(schedule);
        assertTrue(o.passed(), o::toString);
        Path file = into.resolve(SimMedium.captureFileName(medium, schedule));
        assertTrue(Files.isRegularFile(file), file + " written");
        return file;
    }

    @ParameterizedTest
    @CsvSource({"ethernet, 1", "fddi, 10", "atm, 123", "fabric, 147"})
    void theSameSeedWritesTheSamePcapAndAnotherSeedAnotherOne(String medium, int linkType) throws Exception {
        ScheduleGenerator g = new ScheduleGenerator(SETTINGS, SimMedia.byName(medium).families());
        Path a = capture(medium, g.generate(77), Files.createDirectory(dir.resolve("a")));
        Path b = capture(medium, Schedule.parse(g.generate(77).encode()), Files.createDirectory(dir.resolve("b")));
        Path c = capture(medium, g.generate(78), Files.createDirectory(dir.resolve("c")));
        assertEquals(-1, Files.mismatch(a, b), "same seed, byte-identical pcap: " + a + " vs " + b);
        assertFalse(Arrays.equals(Files.readAllBytes(a), Files.readAllBytes(c)), "another seed, another capture");
        PcapReader read = PcapReader.read(a);
        assertEquals(linkType, read.linkType());
        List<PcapReader.Packet> packets = read.packets();
        assertTrue(packets.size() > 10, medium + ": " + packets.size() + " records");
        for (int i = 1; i < packets.size(); i++) {
            assertTrue(packets.get(i).timestampNanos() >= 0 && packets.get(i).timestampNanos() < 1_000_000_000L,
                    "virtual time since 0, not the wall clock: " + packets.get(i).timestampNanos());
        }
    }

    @Test
    void fabricRecordsCarryTheDocumentedHeaderAndTheCoresBytes() throws Exception {
        Path file = capture("fabric", Schedule.parse("5/2/3/"), dir);
        List<PcapReader.Packet> packets = PcapReader.read(file).packets();
        assertFalse(packets.isEmpty());
        for (PcapReader.Packet p : packets) {
            byte[] d = p.data();
            int src = (d[0] & 0xFF) << 8 | d[1] & 0xFF;
            int dst = (d[2] & 0xFF) << 8 | d[3] & 0xFF;
            int length = (d[6] & 0xFF) << 8 | d[7] & 0xFF;
            assertTrue(src + dst == 1, "nodes 0 and 1 only: " + src + " -> " + dst);
            assertEquals(0, d[4], "request class");
            assertEquals(FabricCaptureLink.VERSION, d[5]);
            assertEquals(FabricCaptureLink.HEADER_BYTES + length, d.length);
            assertTrue(length > 0 && length <= SETTINGS.mtu());
        }
        Path again = capture("fabric", Schedule.parse("5/2/3/"), Files.createDirectory(dir.resolve("again")));
        assertArrayEquals(Files.readAllBytes(file), Files.readAllBytes(again));
    }

    @ParameterizedTest
    @CsvSource({"ethernet, eth", "fddi, fddi", "atm, atm", "fabric, user_dlt"})
    void tsharkReadsEveryRecord(String medium, String firstProtocol) throws Exception {
        Path tshark = Executables.require(Capability.TSHARK, "tshark");
        ScheduleGenerator g = new ScheduleGenerator(SETTINGS, SimMedia.byName(medium).families());
        Path file = capture(medium, g.generate(5), dir);
        int records = PcapReader.read(file).packets().size();
        Process p = new ProcessBuilder(tshark.toString(), "-n", "-r", file.toString(), "-T", "fields", "-e",
                "frame.protocols").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        List<String> lines = out.lines().toList();
        assertEquals(records, lines.size(), out);
        assertTrue(lines.stream().allMatch(l -> l.startsWith(firstProtocol)), medium + ": " + lines.getFirst());
    }

    @Test
    void theInMemoryMediumRefusesACaptureItCannotWrite() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SimMedia.byName("memory").capturing(dir));
        assertTrue(e.getMessage().contains("memory") && e.getMessage().contains("pcap"), e.getMessage());
        assertEquals(PcapWriter.LINKTYPE_USER0, 147);
    }

    @Test
    void nicSimtestWritesOneFilePerScheduleAndRefusesPcapOnMemory() throws Exception {
        Path out = dir.resolve("simtest-pcap");
        SimTestCommandTest.Run r = SimTestCommandTest.run("--medium", "fabric", "--seeds", "5", "--pcap",
                out.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        try (var files = Files.list(out)) {
            assertEquals(5, files.filter(f -> f.getFileName().toString().startsWith("fabric-seed")).count());
        }
        SimTestCommandTest.Run refused = SimTestCommandTest.run("--seeds", "5", "--pcap", out.toString());
        assertEquals(2, refused.exit());
        assertTrue(refused.err().contains("cannot write pcap"), refused.err());
    }
}
