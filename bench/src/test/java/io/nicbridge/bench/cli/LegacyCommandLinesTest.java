package io.nicbridge.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bench.cli.PingPongCommandTest.Run;
import io.nicbridge.bench.verdict.ExitCodes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The command lines of before one command per experiment: each still runs its experiment (the same output and exit
 * code as the new command) or prints what replaced it and exits 2.
 */
class LegacyCommandLinesTest {
    private static List<String> translate(String line) {
        List<String> words = Arrays.asList(line.split(" "));
        return LegacyCommandLines.translate(words.getFirst(), words.subList(1, words.size()));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // every old command line of the README, and the old forms of each option
        "pingpong --card dec21140 --mode inline|tulip pingpong --mode inline",
        "pingpong --card dec21140 --mode virtual --size 1514|tulip pingpong --mode virtual --size 1514",
        "pingpong --card=dec21140 --backend emu:dec21140 --count 5|tulip pingpong --count 5",
        "pingpong --card dec21140 --mode virtual --count 5 --warmup 1 --pcap /tmp/eth.pcap"
            + "|tulip pingpong --mode virtual --count 5 --warmup 1 --pcap /tmp/eth.pcap",
        "pingpong --card dec21140 --backend shim:afpacket|shim pingpong --backend shim:afpacket",
        "pingpong --card dec21140 --backend shim:afpacket?mode=threaded&qdisc-bypass=true&budget=32"
            + "|shim pingpong --backend shim:afpacket?mode=threaded&qdisc-bypass=true&budget=32",
        "pingpong --card dec21140 --backend shim:afpacket --trials 15 --accept-inconclusive"
            + "|shim pingpong --backend shim:afpacket --trials 15 --accept-inconclusive",
        "pingpong --card dec21140 --backend shim:afpacket --wait spin:50 --sizes 64 --count 20000"
            + "|shim pingpong --backend shim:afpacket --wait spin:50 --sizes 64 --count 20000",
        "pingpong --card dec21140 --backend shim:afpacket --size 100|shim pingpong --backend shim:afpacket --sizes 100",
        "pingpong --card dec21140 --role echo --backend shim:afpacket?if=eth1"
            + "|shim echo --backend shim:afpacket?if=eth1",
        "pingpong --card dec21140 --role client --backend shim:afpacket?if=eth1 --peer 52:54:00:12:34:56"
            + "|shim client --backend shim:afpacket?if=eth1 --peer 52:54:00:12:34:56",
        "pingpong --card sba200|unet pingpong",
        "pingpong --card sba200 --backend emu:sba200 --sizes 40,100|unet pingpong --sizes 40,100",
        "pingpong --card sba200 --mode virtual --count 5|unet pingpong --count 5",
        "bandwidth --card sba200 --messages 20|unet throughput --messages 20",
        "pingpong --card medusa|medusa latency",
        "pingpong --card medusa --mode virtual --nodes 2,4 --host-ns 5|medusa latency --nodes 2,4 --host-ns 5",
        "pingpong --card medusa --throughput --messages 60|medusa throughput --messages 60",
        "throughput --card medusa|medusa throughput"})
    void everyOldLineMapsOntoItsExperimentsCommand(String old, String now) {
        assertEquals(List.of(now.split(" ")), translate(old));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "pingpong --mode virtual|--card is needed to say which experiment to run",
        "pingpong --card tokenring|unknown card 'tokenring'",
        "bandwidth --card dec21140|unknown card 'dec21140'; supported: sba200",
        "throughput --card dec21140|unknown card 'dec21140'; supported: medusa",
        "pingpong --card dec21140 --backend emu:sba200|backend 'emu:sba200'",
        "pingpong --card dec21140 --backend emu:dec21140?x=1|backend 'emu:dec21140?x=1'",
        "pingpong --card dec21140 --role echo|--role applies to the shim backend only",
        "pingpong --card dec21140 --backend shim:afpacket --role sideways|unknown --role 'sideways'",
        "pingpong --card medusa --mode threaded|virtual time only",
        "pingpong --card sba200 --mode inline|nic unet pingpong takes no --mode"})
    void aLineWithNoSingleReplacementPrintsWhatReplacedItAndExitsTwo(String old, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> translate(old));
        assertTrue(e.getMessage().contains(message), e.getMessage());
        Run r = PingPongCommandTest.run(old.split(" "));
        assertEquals(ExitCodes.USAGE, r.exit(), r.out() + r.err());
        assertTrue(r.err().startsWith("nic " + old.split(" ")[0] + ": "), r.err());
        assertTrue(r.err().contains(message), r.err());
        assertTrue(r.err().contains(LegacyCommandLines.REPLACEMENTS), r.err());
        assertTrue(r.out().isEmpty(), r.out());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "pingpong --card medusa --nodes 2 --words 1,100 --rounds 2 --warmup 1|medusa latency --nodes 2 --words 1,100"
            + " --rounds 2 --warmup 1",
        "pingpong --card medusa --throughput --nodes 2 --words 1,2000 --messages 30|medusa throughput --nodes 2"
            + " --words 1,2000 --messages 30",
        "throughput --card medusa --nodes 2 --words 200 --messages 20|medusa throughput --nodes 2 --words 200"
            + " --messages 20",
        "bandwidth --card sba200 --sizes 40,800 --messages 30|unet throughput --sizes 40,800 --messages 30"})
    void anOldLineRunsTheSameExperimentWithTheSameOutputAndExitCode(String old, String now) {
        Run before = PingPongCommandTest.run(old.split(" "));
        Run after = PingPongCommandTest.run(now.split(" "));
        assertEquals(ExitCodes.OK, after.exit(), after.out() + after.err());
        assertEquals(after.exit(), before.exit(), before.out() + before.err());
        assertEquals(after.out(), before.out(), "virtual time: the same bytes");
        assertEquals("nic " + old.split(" ")[0] + ": this command line is now: nic " + now, before.err().strip());
    }

    @Test
    void theOldTulipLineFailsAWrongModelTheSameWay() {
        // The old line keeps its exit code and check lines (wall-clock lines differ between runs).
        Run before = PingPongCommandTest.run("pingpong", "--card", "dec21140", "--mode", "virtual", "--count", "20",
            "--warmup", "2", "--size", "60");
        Run after = PingPongCommandTest.run("tulip", "pingpong", "--mode", "virtual", "--count", "20", "--warmup",
            "2", "--size", "60");
        assertEquals(ExitCodes.OK, before.exit(), before.out() + before.err());
        assertEquals(checkLines(after.out()), checkLines(before.out()));
        assertTrue(checkLines(before.out()).contains("checks: 1 passed, 0 failed, 0 inconclusive -> exit code 0"));
        Run badOption = PingPongCommandTest.run("pingpong", "--card", "medusa", "--size", "100");
        assertEquals(ExitCodes.USAGE, badOption.exit());
        assertTrue(badOption.err().contains("this command line is now: nic medusa latency --size 100"), badOption.err());
        assertTrue(badOption.err().contains("Unknown options: '--size', '100'"), badOption.err());
    }

    private static List<String> checkLines(String out) {
        return out.lines().filter(l -> l.startsWith("model self-check:") || l.startsWith("checks:")
            || l.startsWith("model:") || l.startsWith("pingpong:") || l.startsWith("counters")).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"--help", "tulip pingpong --help", "shim pingpong --help", "unet --help",
        "medusa throughput --help", "fabric --help"})
    void helpIsFormattedWithoutWarningsAndHidesTheOldCommands(String line) {
        PrintStream oldErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Run r;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            r = PingPongCommandTest.run(line.split(" "));
        } finally {
            System.setErr(oldErr);
        }
        String warnings = err.toString(StandardCharsets.UTF_8) + r.err();
        assertFalse(warnings.contains("picocli WARN"), warnings);
        assertEquals(0, r.exit(), warnings);
        assertTrue(r.out().contains("(its 95% interval"), r.out());
        if (line.equals("--help")) {
            for (String group : List.of("tulip", "shim", "unet", "medusa", "fabric")) {
                assertTrue(r.out().lines().anyMatch(l -> l.trim().startsWith(group + " ")
                    || l.trim().startsWith(group + ",")), group + ":\n" + r.out());
            }
            for (String old : List.of("pingpong", "bandwidth", "throughput")) {
                assertFalse(r.out().lines().anyMatch(l -> l.trim().startsWith(old + " ")), old + ":\n" + r.out());
            }
        }
    }
}
