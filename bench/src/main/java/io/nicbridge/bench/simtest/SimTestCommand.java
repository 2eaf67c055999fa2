package io.nicbridge.bench.simtest;

import io.nicbridge.bench.pingpong.Progress;
import io.nicbridge.bench.verdict.CheckKind;
import io.nicbridge.bench.verdict.CheckLog;
import io.nicbridge.bench.verdict.ExitCodes;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.protocols.am.AmConfig;
import io.nicbridge.protocols.careful.CarefulConfig;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.ip.tcp.TcpConfig;
import io.nicbridge.protocols.pupa.PupaConfig;
import io.nicbridge.protocols.traditional.TraditionalConfig;
import io.nicbridge.protocols.dst.CoreFactory;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator;
import io.nicbridge.protocols.dst.SimProtocols;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimTest;
import io.nicbridge.protocols.dst.SimulationRun;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code nic simtest}: deterministic simulation testing of a protocol core. Runs the fault schedules of a range of
 * seeds in virtual time, checks the invariants of the core's declared guarantees, and on the first violation prints
 * the seed, the schedule shrunk to a minimal failing one and the command that replays it. One integrity check:
 * every schedule passed (exit 0) or one failed (exit 1).
 */
@Command(name = "simtest", mixinStandardHelpOptions = true,
        description = "Deterministic simulation testing: runs a protocol core through seeded fault schedules (drop,"
            + " duplicate, reorder, corrupt, delay, partition and heal, slow node) in virtual time and checks its"
            + " guarantees; a failure is shrunk to a minimal schedule with a replay command.")
public final class SimTestCommand implements Callable<Integer> {
    private static final String DRIVER_LOG_LEVEL = "org.slf4j.simpleLogger.log.io.nicbridge.bridge.driver";

    @Option(names = "--protocol", defaultValue = "gbn", description = "The core under test (default:"
            + " ${DEFAULT-VALUE}; known: am, careful, gbn, pupa, tcp, tcp-ack-at-poll,"
            + " traditional; tcp-ack-at-poll is TCP with TcpConfig.ackAtPoll, as the U-Net real-time stacks run it).")
    String protocol;

    @Option(names = "--medium", defaultValue = "memory", description = "The medium every schedule runs on:"
            + " memory (the harness's in-memory medium, every fault family), ethernet (emulated 21140s on a segment),"
            + " fddi (emulated Medusas on a ring), atm (emulated SBA-200s on a switch), fabric (a 4x4 mesh of the MPP"
            + " fabric, faults at its network interfaces) or fabric:FILE (the fabric of a configs/fabric file)"
            + " (default: ${DEFAULT-VALUE}).")
    String medium;

    @Option(names = "--seeds", defaultValue = "1000", description = "Schedules to run (default: ${DEFAULT-VALUE}).")
    long seeds;

    @Option(names = "--first-seed", defaultValue = "1", description = "Seed of the first schedule (default:"
            + " ${DEFAULT-VALUE}); schedule i uses seed first-seed + i.")
    long firstSeed;

    @Option(names = "--faults", defaultValue = "all", description = "Fault families, comma-separated: drop,"
            + " duplicate, reorder, corrupt, delay, partition, slow; 'all' (every family the medium can express) or"
            + " 'none' (default: ${DEFAULT-VALUE}).")
    String faults;

    @Option(names = "--costs", defaultValue = "zero", description = "Host cost table every node's CPU is charged"
            + " from: zero (wire time only), measured (./nic calibrate on the machine it names) or a table file"
            + " (default: ${DEFAULT-VALUE}).")
    String costs;

    @Option(names = "--pcap", paramLabel = "DIR", description = "Write each schedule's frames, as the medium carries"
            + " them and stamped with virtual time, to DIR/MEDIUM-seedS-HASH.pcap (created if missing): the same"
            + " schedule gives a byte-identical file. Emulated media only (Ethernet: linktype 1, FDDI: 10, ATM: SunATM"
            + " 123, fabric: USER0 147 with an 8-byte header, see FabricSimMedium).")
    Path pcap;

    @Option(names = "--replay", description = "Run this one schedule (as printed by a failing run) instead of seeds.")
    String replay;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        // A card medium opens and closes its drivers once per schedule: their INFO lines would bury the report.
        if (System.getProperty(DRIVER_LOG_LEVEL) == null) {
            System.setProperty(DRIVER_LOG_LEVEL, "warn");
        }
        CoreFactory cores;
        SimMedium.Factory media;
        Set<ScheduleGenerator.Family> families;
        Schedule replayed = null;
        CostTable table;
        try {
            table = CostTable.named(costs);
            cores = SimProtocols.byName(protocol);
            media = SimMedia.byName(medium);
            families = families(faults, media);
            if (seeds < 1) {
                throw new IllegalArgumentException("--seeds must be at least 1, was " + seeds);
            }
            if (pcap != null) {
                media = media.capturing(pcap);
                Files.createDirectories(pcap);
            }
            if (replay != null) {
                replayed = Schedule.parse(replay);
                media.requireExpressible(replayed);
            }
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("nic simtest: " + e.getMessage());
            return ExitCodes.USAGE;
        } catch (IOException e) {
            spec.commandLine().getErr().println("nic simtest: --pcap " + pcap + ": cannot create the directory: " + e);
            return ExitCodes.USAGE;
        }
        SimSettings settings = SimProtocols.settings(protocol).withCosts(table); // the protocol's own defaults
        SimTest tester = new SimTest(protocol, cores, settings, new ScheduleGenerator(settings, families),
                media);
        CheckLog checks = new CheckLog(out::println);
        out.printf(Locale.ROOT, "simtest: protocol %s (%s); progress bound %d us%n", protocol,
                protocolSettings(protocol, settings), settings.progressBoundNanos() / 1000);
        out.println("medium: " + media);
        if (media.name().equals("memory")) {
            out.printf(Locale.ROOT, "  %d-byte frames, %d tx / %d rx buffers per node, %d ns latency, %d ns/byte%n",
                    settings.mtu(), settings.txSlots(), settings.rxSlots(), settings.latencyNanos(),
                    settings.nanosPerByte());
        }
        out.println(table.describe());
        if (pcap != null) {
            out.println("pcap: one file per schedule in " + pcap);
        }
        if (replayed != null) {
            SimulationRun.Outcome o = tester.run(replayed);
            out.println("replay: " + replayed.encode());
            out.printf(Locale.ROOT, "  %d of %d %s delivered, %d events, %d frames (%d faulted), ended at %d ns,"
                    + " trace digest %016x%n", o.delivered(), o.messages(), protocol.startsWith("tcp")
                    ? "bytes and orderly closes" : "messages", o.dispatches(), o.framesCarried(),
                    o.framesFaulted(), o.endNanos(), o.traceDigest());
            out.println(o.medium());
            out.println(o.hostCost().replace("\n", System.lineSeparator()));
            checks.check(CheckKind.INTEGRITY_CHECK, protocol + " keeps its guarantees under schedule " + replayed.encode()
                    + (o.passed() ? "" : ": " + o.violation()), o.passed());
            return checks.finish(false);
        }
        out.printf(Locale.ROOT, "faults: %s (the medium expresses %s); seeds %d .. %d%n",
                families.isEmpty() ? "none" : families, media.families(), firstSeed,
                firstSeed + seeds - 1);
        Progress progress = new Progress("simtest", seeds, System.err);
        SimTest.Summary s = tester.campaign(firstSeed, seeds, (i, o) -> progress.tick(i + 1));
        out.printf(Locale.ROOT, "schedules: %d in %.2f s = %.0f schedules/s; %d events, %d frames faulted%n",
                s.schedules(), s.wallNanos() / 1e9, s.schedulesPerSecond(), s.events(), s.faulted());
        if (s.reported() > 0 || s.undetectable() > 0) {
            out.printf(Locale.ROOT, "  %d ended in a broken assumption the cores reported; %d stalled unreported on a"
                    + " trailing loss (frames lost with nothing after them from their sender: undetectable without"
                    + " timers, classified from the cores' frame counts)%n", s.reported(), s.undetectable());
        }
        if (!s.passed()) {
            SimulationRun.Outcome f = s.failure();
            out.println("violation: " + f.violation());
            out.println("  seed " + f.schedule().seed() + ", schedule (size " + f.schedule().size() + "): "
                    + f.schedule().encode());
            out.println("  shrunk in " + s.shrinkRuns() + " runs to (size " + s.shrunk().schedule().size() + "): "
                    + s.shrunk().schedule().encode() + " -> " + s.shrunk().violation());
            out.println("  replay: " + tester.replayCommand(s.shrunk().schedule()));
        }
        checks.check(CheckKind.INTEGRITY_CHECK, protocol + switch (protocol) {
            case "careful" -> " failed nowhere silently (every break a later frame exposes reported, bounded memory;"
                    + " trailing losses counted above) over ";
            case "tcp", "tcp-ack-at-poll" -> " delivered every byte exactly once and in order, closed every connection orderly (no RST,"
                    + " time-out or abort), made progress and gave every buffer back over ";
            default -> " kept exactly-once, per-peer order, progress and bounded memory over ";
        } + s.schedules() + " fault schedules on " + media.name(), s.passed());
        return checks.finish(false);
    }

    /**
     * What the core under test runs with, in its own terms (from the configuration {@link SimProtocols} builds):
     * the window of the windowed cores, Pupa's buffers and timers, the C* cores' descriptors and buffers.
     */
    static String protocolSettings(String protocol, SimSettings s) {
        long rtoUs = s.rtoNanos() / 1000;
        return switch (protocol) {
            case "gbn" -> {
                GoBackNConfig c = new GoBackNConfig(s.window(), s.maxMessage(), s.rtoNanos());
                yield String.format(Locale.ROOT, "go-back-N: window %d, %d-byte messages, RTO %d us, ACK delay %d us",
                        c.window(), c.maxMessage(), c.rtoNanos() / 1000, c.ackDelayNanos() / 1000);
            }
            case "am" -> {
                AmConfig c = SimProtocols.am(s);
                yield String.format(Locale.ROOT, "Active Messages over go-back-N: window %d, %d-byte messages in"
                        + " %d-byte buffers, RTO %d us, ACK delay %d us", c.window(), s.maxMessage(), c.bufferBytes(),
                        c.rtoNanos() / 1000, c.ackDelayNanos() / 1000);
            }
            case "pupa" -> {
                PupaConfig c = SimProtocols.pupa(s);
                yield String.format(Locale.ROOT, "Pupa: %d-byte messages, %d send buffers of %d bytes, %d receive"
                        + " buffers of %d bytes, %d mbufs, RTO %d us, ACK timer %d us, packing delay %d us, flow"
                        + " control %s, %s, software frame check %s", c.maxMessage(), c.sendBuffers(),
                        c.sendBufferSize(), c.receiveBuffers(), c.receiveBufferSize(), c.mbufs(), c.rtoNanos() / 1000,
                        c.ackTimerNanos() / 1000, c.packDelayNanos() / 1000, c.flowControl() ? "on" : "off",
                        c.ackEveryMessage() ? "an ACK per message" : "sender-controlled ACKs",
                        c.frameCheck() ? "on" : "off");
            }
            case "traditional" -> {
                TraditionalConfig c = SimProtocols.traditional(s);
                yield String.format(Locale.ROOT, "traditional C*: %d-byte fragments, %d descriptors (an ACK asked for"
                        + " at %d or fewer free), up to %d receive buffers held, copy-out beyond %d into %d host buffers, low priority"
                        + " refused from %d held, receiver timeout %d us", c.maxFragment(), c.descriptors(),
                        c.ackLowWater(), c.receiveBuffers(), c.copyOutThreshold(), c.hostBuffers(), c.highLoad(),
                        c.timeoutNanos() / 1000);
            }
            case "tcp", "tcp-ack-at-poll" -> {
                TcpConfig c = SimProtocols.tcp(s).withAckAtPoll(protocol.equals("tcp-ack-at-poll"));
                yield String.format(Locale.ROOT, "TCP over IPv4: a byte stream each way on one connection per node,"
                        + " chunks of up to %d bytes, MSS from the medium's MTU, %d-byte send and %d-byte receive"
                        + " rings, RTO %d us initial / %d us floor / %d us ceiling, %d retransmissions, TIME-WAIT %d"
                        + " us, no delayed ACK%s", s.maxMessage(), c.sendBuffer(), c.receiveBuffer(),
                        c.initialRtoNanos() / 1000, c.minRtoNanos() / 1000, c.maxRtoNanos() / 1000,
                        c.maxRetransmissions(), c.timeWaitNanos() / 1000,
                        c.ackAtPoll() ? " (an in-order segment's ACK at the end of the step)" : "");
            }
            case "careful" -> String.format(Locale.ROOT, "careful C*: %d-byte fragments, of %d receive buffers per node"
                    + " R = %d - (P - 1) as static windows of floor(R/P) frames (P = 2..4 nodes a schedule), %d event"
                    + " slots, no timers", s.maxMessage(), s.rxSlots(), s.rxSlots(),
                    CarefulConfig.defaults().eventSlots());
            default -> String.format(Locale.ROOT, "%d-byte messages, RTO %d us", s.maxMessage(), rtoUs);
        };
    }

    private static Set<ScheduleGenerator.Family> families(String text, SimMedium.Factory media) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("all")) {
            return EnumSet.copyOf(media.families());
        }
        EnumSet<ScheduleGenerator.Family> set = EnumSet.noneOf(ScheduleGenerator.Family.class);
        if (t.equals("none")) {
            return set;
        }
        for (String f : t.split(",")) {
            try {
                set.add(ScheduleGenerator.Family.valueOf(f.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown fault family '" + f.trim() + "' in --faults; known: drop,"
                        + " duplicate, reorder, corrupt, delay, partition, slow, all, none");
            }
        }
        if (!media.families().containsAll(set)) {
            EnumSet<ScheduleGenerator.Family> missing = EnumSet.copyOf(set);
            missing.removeAll(media.families());
            throw new IllegalArgumentException("--faults " + missing + " cannot be expressed on medium '"
                    + media.name() + "'; it expresses " + media.families());
        }
        return set;
    }
}
