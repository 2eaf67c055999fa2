package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.pingpong.ShimPingPong;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.platform.NetworkNamespace;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * {@code nic shim pingpong|echo|client}: the roles on real veth pairs (skipped where the machine forbids raw
 * sockets or namespaces), and its bad-input messages (everywhere).
 */
class ShimPingPongCommandTest {
    /** Output of one command; the writers are the command line's own, so two commands can run at once. */
    record Run(int exit, StringWriter out, StringWriter err) {
        String text() {
            return out.toString();
        }
    }

    /** Waits (up to 10 s) until the echo node on {@code echo} printed "echo: ready"; fails with its output if not. */
    static void awaitEchoReady(Thread echo, StringWriter echoOut, StringWriter echoErr) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!echoOut.toString().contains("echo: ready") && echo.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(echoOut.toString().contains("echo: ready"), echoOut + " " + echoErr);
    }

    static Run run(StringWriter out, String... args) {
        return run(out, ShimPingPong.TARGET_RATIO, args);
    }

    /** @param target the ratio both targets must clear (the seam that lets a real run pass or fail for sure) */
    static Run run(StringWriter out, double target, String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = NicCommand.commandLine();
        ((ShimCommands.PingPong) cl.getSubcommands().get("shim").getSubcommands().get("pingpong").getCommand())
            .targetRatio = target;
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(exit, out, err);
    }

    private static void assumeRealLinks() {
        Availability shim = new ShimBackendProvider().availability();
        Requirements.assume(Capability.SHIM, shim.available(), shim::reason);
        Availability veth = VethPair.availability();
        Requirements.assume(Capability.NET, veth.available(), veth::reason);
    }

    /** A median and its interval; 5 trials give [min, max], which covers the true median with probability 93.75 %. */
    private static final String INTERVAL = "median [0-9.]+x, 95% CI \\[[0-9.]+x, [0-9.]+x\\]"
        + "( \\(exact coverage [0-9.]+%\\))?, ";

    /** AF_XDP under test, the AF_PACKET shim compared in the same trials, kernel UDP as the anchor. */
    @Test
    void afXdpAgainstTheAfPacketShimAndUdpInTheSameTrials() {
        assumeRealLinks();
        Availability xdp = ShimBackendProvider.xdpAvailability();
        Requirements.assume(Capability.SHIM, xdp.available(), xdp::reason);
        Run r = run(new StringWriter(), "shim", "pingpong", "--backend", "shim:afxdp", "--compare", "shim:afpacket",
            "--sizes", "64", "--count", "300", "--warmup", "100", "--duration", "300ms", "--trials", "6");
        String out = r.text();
        assertTrue(out.contains("shim: mode inline, AF_XDP (shim:afxdp, queue 0, bind auto, attach auto"), out);
        assertTrue(out.contains("tx the XSK TX ring (AF_XDP)"), out);
        assertTrue(out.contains("compare: shim:afpacket?card=dec21140&mode=inline&tx=send in the same trials"), out);
        assertTrue(out.contains("transport AF_XDP queue 0: native XDP (prog "), out);
        assertTrue(out.contains(", copy mode, UMEM "), out);
        assertTrue(out.contains("transport AF_PACKET PACKET_MMAP"), out);
        assertTrue(out.contains("integrity check: compared flood: every frame arrived once and in order"), out);
        Matcher compared = Pattern.compile("(?m)^ +64 \\| +[0-9.]+ +[0-9.]+ \\| +[0-9]+ +[0-9.]+ \\| (\\d+), (\\d+)"
            + " \\((\\d+), (\\d+), (\\d+)\\), (\\d+), (\\d+)$").matcher(out);
        assertTrue(compared.find(), "compared row:\n" + out);
        assertTrue(Long.parseLong(compared.group(1)) > 0, compared.group());
        assertEquals("0", compared.group(5), "no unexplained loss: " + compared.group());
        assertTrue(Pattern.compile("(?m)^trials 64 B: RTT compared/tested( [0-9.]+){6}; rate tested/compared"
            + "( [0-9.]+){6}$").matcher(out).find(), out);
        assertTrue(Pattern.compile("(?m)^comparison \\(not a check\\): RTT at 64 B, tested vs compared \\(compared p50"
            + " / tested p50\\): " + INTERVAL + "6 trials$").matcher(out).find(), out);
        assertTrue(Pattern.compile("(?m)^anchor check: RTT at 64 B, shim no worse than kernel UDP .* 6 trials ->"
            + " (MET|NOT MET|INCONCLUSIVE)$").matcher(out).find(), out);
        assertEquals(out.contains("-> NOT MET") ? ExitCodes.CHECK_FAILED : out.contains("-> INCONCLUSIVE")
            ? ExitCodes.INCONCLUSIVE : ExitCodes.OK, r.exit(), out + r.err());
    }

    @Test
    void bothRolesOnOneHostPrintTheTableTheIntervalsAndAVerdictTheExitCodeBacks() {
        assumeRealLinks();
        Run r = run(new StringWriter(), "shim", "pingpong", "--backend", "shim:afpacket?budget=32",
            "--sizes", "64,1514", "--count", "300", "--warmup", "100", "--duration", "300ms", "--trials", "5");
        String out = r.text();
        assertTrue(out.contains("machine: Linux "), out);
        assertTrue(out.contains("load average"), out);
        assertTrue(out.contains("shim: mode inline, AF_PACKET PACKET_MMAP rings rx-ring 256 (the library's) for the"
            + " round trips and 4096 for the flood (pingpong default"), out);
        assertTrue(out.contains("tx-ring 256 (default)"), out);
        assertTrue(out.contains("tx send (pingpong default on its veth pair"), out);
        assertTrue(out.contains("budget 32 frames/poll"), out);
        assertTrue(out.contains("per size 5 trials, the shim and UDP alternating (ABBA)"), out);
        assertTrue(out.contains(" frame |     shim RTT (us)"), out);
        for (String size : new String[] {"64", "1514"}) {
            // size | shim p50 p99 | UDP p50 p99 | ratios | shim fr/s Mbit/s | UDP fr/s Mbit/s | ratio | flood
            Matcher row = Pattern.compile("(?m)^ +" + size + " \\| +[0-9.]+ +[0-9.]+ +\\| +[0-9.]+ +[0-9.]+ +\\|"
                + " +[0-9.]+x +[0-9.]+x +\\| +[0-9]+ +[0-9.]+ +\\| +[0-9]+ +[0-9.]+ +\\| +[0-9.]+x \\|"
                + " (\\d+), (\\d+) \\((\\d+), (\\d+), (\\d+)\\), (\\d+), (\\d+)$").matcher(out);
            assertTrue(row.find(), "table row for " + size + " B:\n" + out);
            assertTrue(Long.parseLong(row.group(1)) > 0, "frames were sent: " + row.group());
            assertEquals("0", row.group(5), "no unexplained loss: " + row.group());
            assertEquals("0", row.group(6), "no duplicates: " + row.group());
            assertEquals("0", row.group(7), "no reordering: " + row.group());
            // The shim's RTT line with the asked-for number of samples (5 trials' shares added up).
            assertTrue(out.contains("shim " + size + " B "), out);
            assertTrue(Pattern.compile("(?m)^trials " + size + " B: RTT UDP/shim [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+; rate"
                + " shim/UDP [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+$").matcher(out).find(), out);
            // Every size is judged on both targets, each with its interval.
            assertTrue(Pattern.compile("(?m)^anchor check: RTT at " + size + " B, shim no worse than kernel UDP \\(UDP"
                + " p50 RTT / shim p50 RTT >= 1.00\\): " + INTERVAL + "5 trials -> (MET|NOT MET|INCONCLUSIVE)$")
                .matcher(out).find(), out);
            assertTrue(Pattern.compile("(?m)^anchor check: frame rate at " + size + " B, shim no worse than kernel"
                + " UDP \\(shim frames/s / UDP frames/s >= 1.00\\): " + INTERVAL + "5 trials ->"
                + " (MET|NOT MET|INCONCLUSIVE)$").matcher(out).find(), out);
        }
        assertTrue(out.contains("(mean "), out);
        assertTrue(out.contains("n=300)"), out);
        assertTrue(out.contains("integrity check: flood: every shim frame arrived once and in order"), out);
        assertTrue(Pattern.compile("(?m)^verdict: (MET \\(all 4 targets.*|NOT MET \\(.+|INCONCLUSIVE \\(.+)$")
            .matcher(out).find(), out);
        // The exit code says what the lines say.
        long notMet = out.lines().filter(l -> l.startsWith("anchor check:") && l.endsWith("-> NOT MET")).count();
        long undecided = out.lines().filter(l -> l.startsWith("anchor check:") && l.endsWith("-> INCONCLUSIVE"))
            .count();
        assertEquals(notMet > 0 ? ExitCodes.CHECK_FAILED : undecided > 0 ? ExitCodes.INCONCLUSIVE : ExitCodes.OK,
            r.exit(), out + r.err());
        assertTrue(out.contains("-> exit code " + r.exit()), out);
    }

    @Test
    void aRealRunPassesATrivialTargetAndFailsAnImpossibleOne() {
        assumeRealLinks();
        String[] args = {"shim", "pingpong", "--backend", "shim:afpacket", "--sizes", "60", "--count",
            "150", "--warmup", "50", "--duration", "240ms", "--trials", "5"};
        // The shim at least a thousandth as fast as kernel UDP: every interval clears it.
        Run easy = run(new StringWriter(), 0.001, args);
        assertEquals(ExitCodes.OK, easy.exit(), easy.text() + easy.err());
        assertTrue(Pattern.compile("(?m)^anchor check: RTT at 60 B, .* >= 0.00100\\): " + INTERVAL + "5 trials"
            + " -> MET$").matcher(easy.text()).find(), easy.text());
        assertTrue(easy.text().contains("verdict: MET (all 2 targets"), easy.text());
        // A thousand times as fast: no interval comes near it.
        Run impossible = run(new StringWriter(), 1000, args);
        assertEquals(ExitCodes.CHECK_FAILED, impossible.exit(), impossible.text() + impossible.err());
        assertTrue(Pattern.compile("(?m)^anchor check: frame rate at 60 B, .* >= 1.00e\\+03\\): " + INTERVAL
            + "5 trials -> NOT MET$").matcher(impossible.text()).find(), impossible.text());
        assertTrue(impossible.text().contains("verdict: NOT MET (RTT at 60 B, frame rate at 60 B)"),
            impossible.text());
        assertTrue(impossible.text().contains("checks: 1 passed, 2 failed, 0 inconclusive -> exit code 1"),
            impossible.text());
        // Spinning before sleeping is not like for like with UDP's blocking read: printed, not judged.
        String[] spin = java.util.Arrays.copyOf(args, args.length + 2);
        spin[args.length] = "--wait";
        spin[args.length + 1] = "spin:20";
        Run spun = run(new StringWriter(), 1000, spin);
        assertEquals(ExitCodes.OK, spun.exit(), spun.text() + spun.err());
        assertTrue(Pattern.compile("(?m)^comparison \\(not a check\\): RTT at 60 B, .*: " + INTERVAL + "5 trials"
            + " \\(--wait spin: .*\\)$").matcher(spun.text()).find(), spun.text());
        assertTrue(spun.text().contains("verdict: not judged (--wait spin: "),
            spun.text());
        assertFalse(spun.text().contains("anchor check:"), spun.text());
    }

    @Test
    void anExistingPairIsUsedAsItIsWithUdpWhenItsEndsHaveAddresses() throws Exception {
        assumeRealLinks();
        try (VethPair withIp = VethPair.create(); VethPair bare = VethPair.builder().ipv4(false).create()) {
            String ends = withIp.namespaceA().name() + "/" + withIp.interfaceA() + "," + withIp.namespaceB().name()
                + "/" + withIp.interfaceB();
            Run r = run(new StringWriter(), 0.001, "shim", "pingpong", "--backend",
                "shim:afpacket?mode=threaded", "--veth", ends, "--sizes", "60", "--count", "200", "--warmup", "50",
                "--duration", "200ms", "--trials", "5");
            String out = r.text();
            assertEquals(0, r.exit(), out + r.err());
            assertTrue(out.contains("link: existing link " + withIp.namespaceA().name() + "/" + withIp.interfaceA()
                + " " + withIp.addressA().getHostAddress()), out);
            assertTrue(out.contains("(given with --veth; left as it is)"), out);
            assertTrue(out.contains("shim: mode threaded"), out);
            assertTrue(Pattern.compile("(?m)^ +60 \\| +[0-9.]+ +[0-9.]+ +\\| +[0-9.]+ +[0-9.]+ +\\| +[0-9.]+x .*"
                + " \\d+, \\d+ \\(\\d+, \\d+, 0\\), 0, 0$").matcher(out).find(), out);
            assertTrue(out.contains("ratio RTT UDP/shim, all trials pooled (p50, p99): 60 B "), out);
            assertTrue(NetworkNamespace.exists(withIp.namespaceA().name()), "the pair is left in place");

            String bareEnds = bare.namespaceA().name() + "/" + bare.interfaceA() + "," + bare.namespaceB().name()
                + "/" + bare.interfaceB();
            Run noIp = run(new StringWriter(), "shim", "pingpong", "--backend", "shim:afpacket",
                "--veth", bareEnds, "--sizes", "60", "--count", "100", "--warmup", "20", "--duration", "50ms");
            String noIpOut = noIp.text();
            assertEquals(0, noIp.exit(), noIpOut + noIp.err());
            assertTrue(noIpOut.contains("udp: baseline skipped: the ends have no IPv4 addresses"), noIpOut);
            assertTrue(Pattern.compile("(?m)^ +60 \\| .* \\| +- +\\| .* \\d+, \\d+ \\(\\d+, \\d+, 0\\), 0, 0$")
                .matcher(noIpOut).find(), noIpOut);
            assertTrue(noIpOut.contains("targets: not judged: no kernel UDP baseline in this run"), noIpOut);

            Run missing = run(new StringWriter(), "shim", "pingpong", "--backend", "shim:afpacket",
                "--veth", "nbNoSuchNs/x0,nbNoSuchNs2/x1");
            assertEquals(2, missing.exit(), missing.text() + missing.err());
            assertTrue(missing.err().toString().contains("no network namespace 'nbNoSuchNs'"),
                missing.err().toString());
        }
    }

    @Test
    void aClientMeasuresAgainstAnEchoNodeOnAnotherNamespaceAsOnAnotherHost() throws Exception {
        assumeRealLinks();
        try (VethPair pair = VethPair.builder().ipv4(false).create()) {
            StringWriter echoOut = new StringWriter();
            AtomicInteger echoExit = new AtomicInteger(-1);
            StringWriter echoErr = new StringWriter();
            Thread echo = Thread.ofPlatform().name("test-echo-node").start(() -> {
                CommandLine cl = NicCommand.commandLine();
                cl.setOut(new PrintWriter(echoOut, true));
                cl.setErr(new PrintWriter(echoErr, true));
                echoExit.set(cl.execute("shim", "echo", "--backend",
                    "shim:afpacket?if=" + pair.interfaceB() + "&netns=" + pair.namespaceB().name()));
            });
            try {
                awaitEchoReady(echo, echoOut, echoErr);
                assertTrue(echoOut.toString().contains("--peer " + pair.macB()), echoOut.toString());
                // The echo node printed its MAC with ':'; a user may type it with '-'.
                String peer = pair.macB().toString().replace(':', '-');
                Run client = run(new StringWriter(), "shim", "client",
                    "--backend", "shim:afpacket?if=" + pair.interfaceA() + "&netns=" + pair.namespaceA().name(),
                    "--peer", peer, "--sizes", "64,1514", "--count", "200", "--warmup", "50", "--wait", "spin:30");
                String out = client.text();
                assertEquals(0, client.exit(), out + client.err());
                assertTrue(out.contains("wait: spin 30 us, then block"), out);
                assertTrue(out.contains("udp: no kernel UDP baseline in the client role"), out);
                for (String size : new String[] {"64", "1514"}) {
                    Matcher line = Pattern.compile("(?m)^shim RTT " + size + " B to " + pair.macB()
                        + " +p50 +([0-9.]+) us .* \\(mean [0-9.]+ us, n=200\\)$").matcher(out);
                    assertTrue(line.find(), "client RTT line for " + size + " B:\n" + out);
                    assertTrue(Double.parseDouble(line.group(1)) > 0, line.group());
                }
            } finally {
                echo.interrupt(); // what Ctrl-C does through the shutdown hook
                echo.join(10_000);
            }
            assertFalse(echo.isAlive(), "the echo node stops when interrupted");
            assertEquals(0, echoExit.get(), echoOut + " " + echoErr);
            Matcher done = Pattern.compile("echo: stopped: (\\d+) frames echoed, (\\d+) ignored")
                .matcher(echoOut.toString());
            assertTrue(done.find(), echoOut.toString());
            // 2 sizes x (50 + 200) measured frames, plus at least one probe.
            assertTrue(Long.parseLong(done.group(1)) >= 501, done.group());
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--peer|02:00:00:00:00:02|Unknown options: '--peer'",
        "--duration|0|--duration must be 1 ms..60 s",
        "--duration|soon|--duration 'soon' is not a time",
        "--veth|nsA/ifA|--veth 'nsA/ifA' must name two ends",
        "--sizes|64,59|frame sizes must be 60..1514",
        "--mode|virtual|the shim runs inline or threaded",
        "--driver|polling|--driver polling cannot run a shim card in inline mode",
        "--wait|soon|--wait 'soon': expected block, spin or spin:MICROS",
        "--trials|0|--trials must be at least 1",
        "--trials|500|splits --count 50000 and --duration 1s too thin"})
    void badShimInputGivesOneClearLine(String option, String value, String message) {
        Run r = run(new StringWriter(), "shim", "pingpong", "--backend", "shim:afpacket", option, value);
        assertEquals(2, r.exit(), r.text() + r.err());
        assertTrue(r.err().toString().startsWith(message.startsWith("Unknown") ? message : "nic shim pingpong: "),
            r.err().toString());
        assertTrue(r.err().toString().contains(message), r.err().toString());
    }

    @Test
    void clientAndEchoNeedTheirInterfaceAndPeer() {
        Run noIf = run(new StringWriter(), "shim", "echo", "--backend",
            "shim:afpacket");
        assertEquals(2, noIf.exit());
        assertTrue(noIf.err().toString().contains("nic shim echo: the echo node needs the interface in the backend"),
            noIf.err().toString());
        Run noPeer = run(new StringWriter(), "shim", "client", "--backend",
            "shim:afpacket?if=eth9");
        assertEquals(2, noPeer.exit());
        assertTrue(noPeer.err().toString().contains("nic shim client: the client needs --peer MAC"), noPeer.err().toString());
        Run badPeer = run(new StringWriter(), "shim", "client", "--backend",
            "shim:afpacket?if=eth9", "--peer", "02:00:00:00:00");
        assertEquals(2, badPeer.exit());
        assertTrue(badPeer.err().toString().contains("MAC address '02:00:00:00:00'"), badPeer.err().toString());
    }
}
