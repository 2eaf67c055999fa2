package io.nicbridge.sim.ethernet;

import static io.nicbridge.sim.testing.TestFrames.fcsOk;
import static io.nicbridge.sim.testing.TestFrames.frame;
import static io.nicbridge.sim.testing.TestFrames.mac;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.capture.PcapReader;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testing.ManualVirtualTime;
import io.nicbridge.sim.testing.RealTimeForTests;
import io.nicbridge.sim.testing.TestFrames.Recorder;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Executables;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EthernetSegmentCaptureTest {
    static final byte[] A = mac(0x02, 0x00, 0x5e, 0x10, 0x00, 0x0a);
    static final byte[] B = mac(0x02, 0x00, 0x5e, 0x10, 0x00, 0x0b);
    static final byte[] C = mac(0x02, 0x00, 0x5e, 0x10, 0x00, 0x0c);
    static final byte[] BCAST = mac(0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
    static final int[] SIZES = {64, 65, 128, 512, 1000, 1518};

    @TempDir
    Path dir;

    /** Three stations exchanging frames of several sizes in virtual time; b's arrivals recorded. */
    record Run(EthernetSegment wire, Recorder atB, List<byte[]> sent) {}

    static Run exchange(ManualVirtualTime vt, EthernetSegment.Builder builder, int rounds) {
        return exchange(vt, builder, rounds, wire -> { });
    }

    static Run exchange(ManualVirtualTime vt, EthernetSegment.Builder builder, int rounds,
                        java.util.function.Consumer<EthernetSegment> beforeTraffic) {
        EthernetSegment wire = builder.build();
        beforeTraffic.accept(wire);
        Recorder rb = new Recorder(vt);
        WirePort pa = wire.attach("a", new Recorder(vt));
        wire.attach("b", rb);
        WirePort pc = wire.attach("c", new Recorder(vt));
        List<byte[]> sent = new ArrayList<>();
        int seq = 0;
        long t = 0;
        for (int r = 0; r < rounds; r++) {
            for (int size : SIZES) {
                seq++;
                byte[] f = (seq % 3 == 0) ? frame(BCAST, C, 0x88B6, seq, size) : frame(B, A, 0x88B5, seq, size);
                WirePort p = (seq % 3 == 0) ? pc : pa;
                t += p.transmit(MemorySegment.ofArray(f), 0, f.length);
                sent.add(f);
                vt.runUntil(t);
                vt.advanceTo(t);
            }
        }
        vt.runUntilIdle();
        wire.close();
        return new Run(wire, rb, sent);
    }

    @Test
    void captureReadsBackAsWhatTheReceiversGotWithoutFcsStampedAtArrival() throws IOException {
        ManualVirtualTime vt = new ManualVirtualTime();
        Path file = dir.resolve("seg.pcap");
        FaultPlan plan = FaultPlan.builder().dropFrame(2).duplicateFrame(3).corruptFrame(4, 130).build();
        Run run = exchange(vt, EthernetSegment.builder(vt).capture(file).faults(plan), 2);
        PcapReader r = PcapReader.read(file);
        assertEquals(PcapWriter.LINKTYPE_ETHERNET, r.linkType());
        assertTrue(r.nanosecondTimestamps());
        assertEquals(65535, r.snapLength());
        // b hears everything (it receives a's and c's frames): the capture equals its arrivals
        assertEquals(run.atB().count(), r.packets().size());
        assertEquals(SIZES.length * 2 - 1 + 1, r.packets().size());
        for (int i = 0; i < r.packets().size(); i++) {
            byte[] got = run.atB().frames.get(i);
            PcapReader.Packet p = r.packets().get(i);
            assertArrayEquals(Arrays.copyOf(got, got.length - 4), p.data(), "record " + i + " = frame minus FCS");
            assertEquals(got.length - 4, p.originalLength());
            assertEquals(run.atB().times.get(i), p.timestampNanos());
        }
        assertEquals(run.wire().capture().records(), r.packets().size());
    }

    @Test
    void captureKeepsTheFcsWhenAsked() throws IOException {
        ManualVirtualTime vt = new ManualVirtualTime();
        Path file = dir.resolve("fcs.pcap");
        Run run = exchange(vt, EthernetSegment.builder(vt).capture(file).captureFcs(true), 1);
        PcapReader r = PcapReader.read(file);
        assertEquals(0x24000001, r.linkType());
        for (int i = 0; i < r.packets().size(); i++) {
            assertArrayEquals(run.sent().get(i), r.packets().get(i).data());
            assertTrue(fcsOk(r.packets().get(i).data()));
        }
    }

    @Test
    void aWriterOpenedByTheCallerIsFlushedNotClosed() throws IOException {
        ManualVirtualTime vt = new ManualVirtualTime();
        Path file = dir.resolve("shared.pcap");
        try (PcapWriter w = PcapWriter.builder(file, vt).open()) {
            exchange(vt, EthernetSegment.builder(vt).capture(w), 1);
            assertEquals(SIZES.length, PcapReader.read(file).packets().size(), "flushed by the segment's close");
            w.record(0, MemorySegment.ofArray(new byte[60]), 0, 60, 60);
            assertEquals(0, w.lostRecords(), "still open");
        }
        assertEquals(SIZES.length + 1, PcapReader.read(file).packets().size());
    }

    @Test
    void aCaptureAttachedAfterBuildRecordsFromThenOnAndIsFlushedNotClosed() throws IOException {
        ManualVirtualTime vt = new ManualVirtualTime();
        Path file = dir.resolve("late.pcap");
        try (PcapWriter w = PcapWriter.builder(file, vt).open()) {
            // Attached once the segment exists (as a backend would have built it), before any frame.
            Run run = exchange(vt, EthernetSegment.builder(vt), 1, wire -> wire.capture(w));
            assertEquals(w, run.wire().capture());
            assertEquals(run.atB().count(), w.records());
            w.record(0, MemorySegment.ofArray(new byte[60]), 0, 60, 60);
            assertEquals(0, w.lostRecords(), "the segment's close flushed it but left it open");
        }
        assertEquals(SIZES.length + 1, PcapReader.read(file).packets().size());
        PcapWriter fddi = PcapWriter.builder(dir.resolve("fddi.pcap"), vt).linkType(PcapWriter.LINKTYPE_FDDI).open();
        EthernetSegment wire = EthernetSegment.builder(vt).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> wire.capture(fddi));
        assertTrue(e.getMessage().contains("linktype 1"), e.getMessage());
        wire.capture(null);
        assertEquals(null, wire.capture());
        fddi.close();
        wire.close();
    }

    @Test
    void sameSeedByteIdenticalPcapDifferentSeedDifferent() throws IOException {
        Path[] files = {dir.resolve("s1.pcap"), dir.resolve("s1-again.pcap"), dir.resolve("s2.pcap")};
        long[] seeds = {11, 11, 12};
        for (int i = 0; i < 3; i++) {
            ManualVirtualTime vt = new ManualVirtualTime();
            FaultPlan plan = FaultPlan.builder().seed(seeds[i])
                    .drop(0.1).duplicate(0.1).reorder(0.1).delay(0.1, 0, 300_000).corrupt(0.1).build();
            exchange(vt, EthernetSegment.builder(vt).capture(files[i]).faults(plan), 20);
        }
        assertEquals(-1, Files.mismatch(files[0], files[1]), "same seed, same bytes");
        assertNotEquals(-1, Files.mismatch(files[0], files[2]), "different seed, different capture");
    }

    @Test
    void realTimeCaptureIsEpochStamped() throws IOException {
        Path file = dir.resolve("rt.pcap");
        long before = System.currentTimeMillis();
        try (RealTimeForTests rt = new RealTimeForTests();
                EthernetSegment wire = EthernetSegment.builder(rt).capture(file).build()) {
            WirePort pa = wire.attach("a", new Recorder(rt));
            wire.attach("b", new Recorder(rt));
            byte[] f = frame(B, A, 0x0800, 1, 64);
            pa.transmit(MemorySegment.ofArray(f), 0, f.length);
        }
        long after = System.currentTimeMillis();
        PcapReader.Packet p = PcapReader.read(file).packets().get(0);
        long ms = p.timestampNanos() / 1_000_000;
        assertTrue(ms >= before - 5 && ms <= after + 5);
        assertEquals(60, p.data().length);
    }

    // ---- tshark

    static List<String> runTshark(Path pcap, String... args) throws IOException, InterruptedException {
        Path tshark = Executables.require(Capability.TSHARK, "tshark");
        List<String> cmd = new ArrayList<>(List.of(tshark.toString(), "-n", "-r", pcap.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "tshark finished");
        assertEquals(0, p.exitValue(), "tshark exit status for " + cmd);
        return new String(out, StandardCharsets.UTF_8).lines().toList();
    }

    static String hexMac(byte[] m) {
        return HexFormat.ofDelimiter(":").formatHex(m);
    }

    @Test
    void tsharkDecodesTheCaptureWithoutMalformedPackets() throws Exception {
        ManualVirtualTime vt = new ManualVirtualTime();
        Path file = dir.resolve("tshark.pcap");
        Run run = exchange(vt, EthernetSegment.builder(vt).capture(file), 2);
        List<String> lines = runTshark(file, "-T", "fields", "-E", "separator=,",
                "-e", "frame.len", "-e", "eth.src", "-e", "eth.dst", "-e", "_ws.malformed", "-e", "frame.time_epoch");
        assertEquals(run.sent().size(), lines.size(), String.join("\n", lines));
        for (int i = 0; i < lines.size(); i++) {
            byte[] f = run.sent().get(i);
            String[] cols = lines.get(i).split(",", -1);
            assertEquals(String.valueOf(f.length - 4), cols[0], lines.get(i));
            assertEquals(hexMac(Arrays.copyOfRange(f, 6, 12)), cols[1], lines.get(i));
            assertEquals(hexMac(Arrays.copyOfRange(f, 0, 6)), cols[2], lines.get(i));
            assertEquals("", cols[3], "no malformed-packet marker: " + lines.get(i));
            long ns = run.atB().times.get(i);
            assertEquals(String.format("%d.%09d", ns / 1_000_000_000L, ns % 1_000_000_000L), cols[4]);
        }
        List<String> verbose = runTshark(file, "-V");
        assertFalse(verbose.stream().anyMatch(l -> l.contains("Malformed")), "no Malformed in -V output");
    }

    @Test
    void tsharkSeesTheBadFcsOfACorruptedFrameWhenTheFcsIsKept() throws Exception {
        ManualVirtualTime vt = new ManualVirtualTime();
        Path file = dir.resolve("fcs-tshark.pcap");
        FaultPlan plan = FaultPlan.builder().corruptFrame(2, 200).build();
        Run run = exchange(vt, EthernetSegment.builder(vt).capture(file).captureFcs(true).faults(plan), 1);
        List<String> lines = runTshark(file, "-o", "eth.check_fcs:TRUE", "-T", "fields", "-E", "separator=,",
                "-e", "frame.len", "-e", "eth.src", "-e", "eth.fcs.status", "-e", "_ws.malformed");
        assertEquals(SIZES.length, lines.size(), String.join("\n", lines));
        for (int i = 0; i < lines.size(); i++) {
            String[] cols = lines.get(i).split(",", -1);
            assertEquals(String.valueOf(run.sent().get(i).length), cols[0], "frame.len includes the FCS");
            assertEquals(i == 1 ? "0" : "1", cols[2], "FCS status (1 good, 0 bad): " + lines.get(i));
            assertEquals("", cols[3], lines.get(i));
        }
    }
}
