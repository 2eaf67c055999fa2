package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Executables;
import io.nicbridge.testing.Requirements;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.cli.PingPongCommandTest.Run;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.sim.capture.PcapWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code --pcap}: every command that moves frames writes them where tshark decodes them, with its medium's linktype,
 * as many frames as the command says it moved.
 */
class PcapCaptureCommandTest {
    private static final Pattern WRITTEN = Pattern.compile("pcap: (\\S+): (\\d+) frames written \\(linktype (\\d+)\\)");

    @TempDir
    Path dir;

    /** tshark from PATH; a skip (or, under NICBRIDGE_REQUIRE=tshark, a failure) when it is missing. */
    private static Path tshark() {
        return Executables.require(Capability.TSHARK, "tshark");
    }

    private static void assumeTshark() {
        tshark();
    }

    /** The decoded fields of every frame, one list per frame. */
    private static List<List<String>> tshark(Path file, String... fields) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(tshark().toString(), "-n", "-r", file.toString(), "-T", "fields",
            "-E", "separator=;", "-E", "occurrence=f"));
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "tshark finished");
        assertEquals(0, p.exitValue(), "tshark -r " + file + " failed");
        return out.lines().map(l -> List.of(l.split(";", -1))).toList();
    }

    /** The linktype field of the file header (little-endian, as PcapWriter writes it). */
    private static int linkType(Path file) throws IOException {
        return ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN).getInt(20);
    }

    /** The frames the command says it wrote, checked against the file it names. */
    private static long written(String out, Path file, int linkType) {
        Matcher m = WRITTEN.matcher(out);
        assertTrue(m.find(), "the command reports the capture:\n" + out);
        assertEquals(file.toString(), m.group(1));
        assertEquals(linkType, Integer.parseInt(m.group(3)));
        return Long.parseLong(m.group(2));
    }

    private static long sumOf(Pattern p, String out) {
        Matcher m = p.matcher(out);
        long sum = 0;
        while (m.find()) {
            sum += Long.parseLong(m.group(1));
        }
        return sum;
    }

    private static final Pattern TX_FRAMES = Pattern.compile("counters [AB]: tx (\\d+) frames");

    @Test
    void dec21140VirtualPingPongWritesEveryFrameInSimulatedTime() throws Exception {
        assumeTshark();
        Path file = dir.resolve("eth.pcap");
        Run r = PingPongCommandTest.run("tulip", "pingpong", "--mode", "virtual", "--size", "100",
            "--count", "6", "--warmup", "2", "--pcap", file.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        long n = written(r.out(), file, PcapWriter.LINKTYPE_ETHERNET);
        assertEquals(2 * (6 + 2), n, "a request and a reply per round trip");
        assertEquals(n, sumOf(TX_FRAMES, r.out()), "the frames the two drivers sent:\n" + r.out());
        assertEquals(PcapWriter.LINKTYPE_ETHERNET, linkType(file));
        List<List<String>> frames = tshark(file, "frame.len", "eth.src", "eth.dst", "eth.type", "frame.time_epoch");
        assertEquals(n, frames.size());
        for (int i = 0; i < frames.size(); i++) {
            List<String> f = frames.get(i);
            assertEquals("100", f.get(0), "frame without FCS");
            String a = "02:00:00:00:00:01";
            String b = "02:00:00:00:00:02";
            assertEquals(i % 2 == 0 ? a : b, f.get(1), "requests from A, replies from B");
            assertEquals(i % 2 == 0 ? b : a, f.get(2));
            assertEquals("0x88b5", f.get(3));
            assertTrue(Double.parseDouble(f.get(4)) < 1.0, "simulated time from the epoch: " + f);
        }
    }

    @Test
    void theLimitKeepsTheFirstFramesAndCountsTheRest() throws Exception {
        assumeTshark();
        Path file = dir.resolve("bounded.pcap");
        Run r = PingPongCommandTest.run("tulip", "pingpong", "--mode", "inline", "--count", "20",
            "--warmup", "5", "--pcap", file.toString(), "--pcap-max-frames", "10");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertEquals(10, written(r.out(), file, PcapWriter.LINKTYPE_ETHERNET));
        assertTrue(r.out().contains("; 40 more not written (--pcap-max-frames 10)"), r.out());
        List<List<String>> frames = tshark(file, "eth.type", "frame.time_epoch");
        assertEquals(10, frames.size());
        double now = System.currentTimeMillis() / 1e3;
        for (List<String> f : frames) {
            assertEquals("0x88b5", f.get(0));
            assertTrue(Math.abs(Double.parseDouble(f.get(1)) - now) < 600, "real time: the wall clock " + f);
        }
    }

    @Test
    void withoutPcapNothingIsWrittenAndBadLimitsAreRefused() {
        Run r = PingPongCommandTest.run("tulip", "pingpong", "--mode", "virtual", "--count", "3",
            "--warmup", "0");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertFalse(r.out().contains("pcap:"), r.out());
        Run bad = PingPongCommandTest.run("tulip", "pingpong", "--mode", "virtual", "--count", "3",
            "--pcap", dir.resolve("x.pcap").toString(), "--pcap-max-frames", "-1");
        assertEquals(2, bad.exit(), bad.out() + bad.err());
        assertTrue(bad.err().contains("--pcap-max-frames must be 0 (no limit) or more, was -1"), bad.err());
        Run noDir = PingPongCommandTest.run("tulip", "pingpong", "--mode", "virtual", "--count", "3",
            "--pcap", dir.resolve("missing/x.pcap").toString());
        assertEquals(2, noDir.exit(), noDir.out() + noDir.err());
        assertTrue(noDir.err().contains("does not exist"), noDir.err());
    }

    @Test
    void sba200PingPongWritesCardAsPdusAsSunAtm() throws Exception {
        assumeTshark();
        Path file = dir.resolve("atm.pcap");
        Run r = PingPongCommandTest.run("unet", "pingpong", "--sizes", "40,100", "--count", "10",
            "--warmup", "10", "--pcap", file.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        long n = written(r.out(), file, PcapWriter.LINKTYPE_SUNATM);
        // Per size 2 warm-up + 10 measured round trips in virtual time: card A sends one PDU and receives one.
        assertEquals(2 * 2 * (2 + 10), n);
        assertEquals(PcapWriter.LINKTYPE_SUNATM, linkType(file));
        List<List<String>> pdus = tshark(file, "frame.len", "atm.vpi", "atm.vci", "atm.channel");
        assertEquals(n, pdus.size());
        for (int i = 0; i < pdus.size(); i++) {
            assertEquals(i < n / 2 ? "40" : "100", pdus.get(i).get(0), "the SDU, without pad and trailer");
            assertEquals("0", pdus.get(i).get(1), "VPI");
        }
        // One VCI out, another in: each direction (the pseudo-header's direction bit) has its own.
        Set<String> out = pdus.stream().filter(p -> p.get(3).equals(pdus.get(0).get(3))).map(p -> p.get(2))
            .collect(Collectors.toSet());
        Set<String> in = pdus.stream().filter(p -> !p.get(3).equals(pdus.get(0).get(3))).map(p -> p.get(2))
            .collect(Collectors.toSet());
        assertEquals(1, out.size(), pdus.toString());
        assertEquals(1, in.size(), pdus.toString());
        assertFalse(out.equals(in), "send and receive VCIs differ: " + out + " " + in);
        assertEquals(n / 2, pdus.stream().filter(p -> p.get(3).equals(pdus.get(0).get(3))).count());
    }

    @Test
    void sba200BandwidthWritesTheSendersPdus() throws Exception {
        assumeTshark();
        Path file = dir.resolve("stream.pcap");
        Run r = PingPongCommandTest.run("unet", "throughput", "--sizes", "100,1000", "--messages", "20",
            "--pcap", file.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        long n = written(r.out(), file, PcapWriter.LINKTYPE_SUNATM);
        assertEquals(40, n, "20 messages per size, all sent by A");
        List<List<String>> pdus = tshark(file, "frame.len", "atm.vpi", "atm.vci", "atm.channel");
        assertEquals(n, pdus.size());
        assertEquals(Set.of(pdus.get(0).subList(1, 4)), pdus.stream().map(p -> p.subList(1, 4))
            .collect(Collectors.toSet()), "one VPI/VCI, one direction");
        assertEquals(20, pdus.stream().filter(p -> p.get(0).equals("1000")).count());
    }

    @Test
    void medusaRingLatencyWritesEveryHopAsFddi() throws Exception {
        assumeTshark();
        Path file = dir.resolve("fddi.pcap");
        Run r = PingPongCommandTest.run("medusa", "latency", "--nodes", "2,3", "--words", "1,100",
            "--rounds", "3", "--warmup", "1", "--pcap", file.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        long n = written(r.out(), file, PcapWriter.LINKTYPE_FDDI);
        assertEquals((2 + 3) * (1 + 3) * 2, n, "P hops per round, 4 rounds, 2 sizes, on rings of 2 and 3");
        assertEquals(PcapWriter.LINKTYPE_FDDI, linkType(file));
        List<List<String>> frames = tshark(file, "frame.len", "fddi.fc", "fddi.src", "fddi.dst", "llc.type");
        assertEquals(n, frames.size());
        for (List<String> f : frames) {
            int len = Integer.parseInt(f.get(0));
            assertTrue(len == 48 + 4 || len == 48 + 4 * 100, "52 B of headers with the FCS, FCS not kept: " + f);
            assertEquals("0x54", f.get(1), "FC: LLC frame, asynchronous, 48-bit addresses");
            assertTrue(f.get(2).startsWith("02:00:00:00:00:0") && f.get(3).startsWith("02:00:00:00:00:0"),
                "canonical addresses after Wireshark's bit swap: " + f);
            assertFalse(f.get(2).equals(f.get(3)));
            assertEquals("0x88b5", f.get(4), "SNAP EtherType");
        }
    }

    @Test
    void medusaThroughputWritesDataAndWindowFrames() throws Exception {
        assumeTshark();
        Path file = dir.resolve("ring.pcap");
        Run r = PingPongCommandTest.run("medusa", "throughput", "--nodes", "3", "--words", "200",
            "--messages", "10", "--pcap", file.toString());
        long n = written(r.out(), file, PcapWriter.LINKTYPE_FDDI);
        List<List<String>> frames = tshark(file, "frame.len", "fddi.fc");
        assertEquals(n, frames.size());
        // Node 0 sends 10 messages to node 2 through node 1: 20 data frames, plus window updates.
        assertEquals(20, frames.stream().filter(f -> f.get(0).equals(Integer.toString(48 + 4 * 200))).count(),
            frames.toString());
        assertTrue(frames.stream().allMatch(f -> f.get(1).equals("0x54")), frames.toString());
    }

    @Test
    void shimPingPongCapturesBothEndsOfTheVethPair() throws Exception {
        Availability shim = new ShimBackendProvider().availability();
        Requirements.assume(Capability.SHIM, shim.available(), "shim backend: " + shim.reason());
        Availability veth = VethPair.availability();
        Requirements.assume(Capability.NET, veth.available(), "veth pairs (root and network namespaces): " + veth.reason());
        assumeTshark();
        Path file = dir.resolve("shim.pcap");
        StringWriter text = new StringWriter();
        // A capture copies every shim frame to two tap sockets and no UDP frame: the targets are not judged, so the
        // exit code is about the capture and the flood's integrity check.
        ShimPingPongCommandTest.Run r = ShimPingPongCommandTest.run(text, "shim", "pingpong",
            "--backend", "shim:afpacket", "--sizes", "64,200", "--count", "50", "--warmup", "10", "--duration",
            "5ms", "--trials", "1", "--pcap", file.toString());
        String out = r.text();
        assertEquals(0, r.exit(), out + r.err());
        assertTrue(out.contains("verdict: not judged (--pcap: "), out);
        long n = written(out, file, PcapWriter.LINKTYPE_ETHERNET);
        assertFalse(out.contains("dropped by the kernel before the capture"), out);
        // Every frame the four cards of each size sent (round trips, then flood): counters printed per phase.
        long sent = sumOf(Pattern.compile("(?:counters [AB]|; B): tx (\\d+) frames"), out);
        assertTrue(sent > 2 * 2 * 60, out);
        List<List<String>> frames = tshark(file, "eth.type", "frame.len", "eth.src", "eth.dst", "frame.time_epoch");
        assertEquals(n, frames.size());
        List<List<String>> ours = frames.stream().filter(f -> f.get(0).equals("0x88b5")).toList();
        assertEquals(sent, ours.size(), "every ping-pong frame once, from either end:\n" + out);
        // The shim's stations have the veth ends' addresses.
        Matcher stations = Pattern.compile("stations: A (\\S+) .* <-> B (\\S+) ").matcher(out);
        assertTrue(stations.find(), out);
        Set<String> both = Set.of(stations.group(1), stations.group(2));
        double now = System.currentTimeMillis() / 1e3;
        for (List<String> f : ours) {
            assertTrue(f.get(1).equals("64") || f.get(1).equals("200"), f.toString());
            assertTrue(both.contains(f.get(2)) && both.contains(f.get(3)) && !f.get(2).equals(f.get(3)), both + " " + f);
            assertTrue(Math.abs(Double.parseDouble(f.get(4)) - now) < 600, "wall clock: " + f);
        }
    }

    @Test
    void shimClientAndEchoEachCaptureWhatTheirInterfaceSendsAndReceives() throws Exception {
        Availability shim = new ShimBackendProvider().availability();
        Requirements.assume(Capability.SHIM, shim.available(), "shim backend: " + shim.reason());
        Availability veth = VethPair.availability();
        Requirements.assume(Capability.NET, veth.available(), "veth pairs (root and network namespaces): " + veth.reason());
        assumeTshark();
        Path echoFile = dir.resolve("echo.pcap");
        Path clientFile = dir.resolve("client.pcap");
        try (VethPair pair = VethPair.builder().ipv4(false).create()) {
            StringWriter echoOut = new StringWriter();
            StringWriter echoErr = new StringWriter();
            AtomicInteger echoExit = new AtomicInteger(-1);
            Thread echo = Thread.ofPlatform().name("test-echo-node").start(() -> {
                CommandLine cl = NicCommand.commandLine();
                cl.setOut(new PrintWriter(echoOut, true));
                cl.setErr(new PrintWriter(echoErr, true));
                echoExit.set(cl.execute("shim", "echo", "--backend",
                    "shim:afpacket?if=" + pair.interfaceB() + "&netns=" + pair.namespaceB().name(), "--pcap",
                    echoFile.toString()));
            });
            String out;
            try {
                ShimPingPongCommandTest.awaitEchoReady(echo, echoOut, echoErr);
                ShimPingPongCommandTest.Run client = ShimPingPongCommandTest.run(new StringWriter(), "shim",
                    "client", "--backend", "shim:afpacket?if=" + pair.interfaceA()
                        + "&netns=" + pair.namespaceA().name(), "--peer", pair.macB().toString(), "--sizes", "64",
                    "--count", "40", "--warmup", "10", "--pcap", clientFile.toString());
                out = client.text();
                assertEquals(0, client.exit(), out + client.err());
            } finally {
                echo.interrupt();
                echo.join(10_000);
            }
            assertEquals(0, echoExit.get(), echoOut + " " + echoErr);
            checkOneEnd(out, clientFile, pair.macA().toString());
            checkOneEnd(echoOut.toString(), echoFile, pair.macB().toString());
        }
    }

    /** A client's or echo's capture: every frame its card sent (from {@code mac}) and received, nothing else. */
    private static void checkOneEnd(String out, Path file, String mac) throws Exception {
        long n = written(out, file, PcapWriter.LINKTYPE_ETHERNET);
        Matcher counters = Pattern.compile("counters: tx (\\d+) frames .* rx (\\d+) frames").matcher(out);
        assertTrue(counters.find(), out);
        long tx = Long.parseLong(counters.group(1));
        long rx = Long.parseLong(counters.group(2));
        assertTrue(tx >= 50, out);
        List<List<String>> frames = tshark(file, "eth.type", "eth.src");
        assertEquals(n, frames.size());
        assertEquals(tx + rx, frames.stream().filter(f -> f.get(0).equals("0x88b5")).count(), out);
        assertEquals(tx, frames.stream().filter(f -> f.get(0).equals("0x88b5") && f.get(1).equals(mac)).count(),
            "the frames sent from " + mac + ":\n" + out);
    }
}
