package io.nicbridge.bench.cli;

import io.nicbridge.bench.verdict.ExitCodes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * The command lines of before the split into one command per experiment ({@code nic pingpong --card medusa},
 * {@code nic bandwidth --card sba200}, ...): {@link #translate} maps each onto its experiment's command, which then
 * runs as if typed (same output, same checks, same exit code), after one line on stderr naming it. A line with no
 * single replacement (no {@code --card}, an unknown card, an option that picks no experiment) prints what replaced
 * the command and exits {@link ExitCodes#USAGE}.
 */
final class LegacyCommandLines {
    /** What replaced the old commands, printed when a line cannot be mapped. */
    static final String REPLACEMENTS = String.join(System.lineSeparator(),
        "one command per experiment now:",
        "  nic pingpong --card dec21140 [--mode M]              -> nic tulip pingpong [--mode M]",
        "  nic pingpong --card dec21140 --backend shim:afpacket -> nic shim pingpong",
        "           ... --role echo | --role client             -> nic shim echo | nic shim client",
        "  nic pingpong --card sba200                           -> nic unet pingpong",
        "  nic bandwidth --card sba200                          -> nic unet throughput",
        "  nic pingpong --card medusa                           -> nic medusa latency",
        "  nic throughput --card medusa                         -> nic medusa throughput",
        "           (or nic pingpong --card medusa --throughput)",
        "see nic <command> --help");

    private LegacyCommandLines() {
    }

    /**
     * The new command line for an old one.
     *
     * @param command {@code pingpong}, {@code bandwidth} or {@code throughput}
     * @param args    everything after it
     * @throws IllegalArgumentException saying why the line has no single replacement
     */
    static List<String> translate(String command, List<String> args) {
        List<String> rest = new ArrayList<>(args);
        String card = take(rest, "--card");
        if (card == null) {
            throw new IllegalArgumentException("--card is needed to say which experiment to run");
        }
        return switch (command) {
            case "pingpong" -> pingpong(card, rest);
            case "bandwidth" -> single(card, "sba200", List.of("unet", "throughput"), rest);
            case "throughput" -> single(card, "medusa", List.of("medusa", "throughput"), rest);
            default -> throw new IllegalArgumentException("not an old command: " + command);
        };
    }

    private static List<String> pingpong(String card, List<String> rest) {
        String backend = take(rest, "--backend");
        switch (card) {
            case "dec21140" -> {
                if (backend != null && backend.startsWith("shim:")) {
                    String role = take(rest, "--role");
                    String size = take(rest, "--size");
                    if (size != null) {
                        rest.addAll(List.of("--sizes", size));
                    }
                    String sub = switch (role == null ? "both" : role.trim().toLowerCase(Locale.ROOT)) {
                        case "both" -> "pingpong";
                        case "echo" -> "echo";
                        case "client" -> "client";
                        default -> throw new IllegalArgumentException("unknown --role '" + role
                            + "'; expected both, echo or client");
                    };
                    return prepend(List.of("shim", sub, "--backend", backend), rest);
                }
                requireEmu(backend, card);
                for (String shimOnly : List.of("--role", "--peer", "--veth", "--duration", "--wait", "--trials",
                        "--interleave", "--accept-inconclusive")) {
                    if (rest.stream().anyMatch(a -> a.equals(shimOnly) || a.startsWith(shimOnly + "="))) {
                        throw new IllegalArgumentException(shimOnly + " applies to the shim backend only: nic shim"
                            + " pingpong|echo|client");
                    }
                }
                return prepend(List.of("tulip", "pingpong"), rest);
            }
            case "sba200" -> {
                requireEmu(backend, card);
                // The old command ignored --mode for this card: its sweep was always virtual time, then real time.
                String mode = take(rest, "--mode");
                if (mode != null && !mode.trim().equalsIgnoreCase("virtual")) {
                    throw new IllegalArgumentException("--card sba200 ran its sweep in virtual time (then the"
                        + " real-time cost) whatever --mode said; nic unet pingpong takes no --mode");
                }
                return prepend(List.of("unet", "pingpong"), rest);
            }
            case "medusa" -> {
                requireEmu(backend, card);
                String mode = take(rest, "--mode");
                if (mode != null && !mode.trim().equalsIgnoreCase("virtual")) {
                    throw new IllegalArgumentException("--card medusa runs the paper's ring experiments in virtual time"
                        + " only; nic medusa latency|throughput take no --mode");
                }
                boolean throughput = rest.remove("--throughput");
                return prepend(List.of("medusa", throughput ? "throughput" : "latency"), rest);
            }
            default -> throw new IllegalArgumentException("unknown card '" + card + "'; pingpong supports: dec21140,"
                + " sba200, medusa");
        }
    }

    private static List<String> single(String card, String expected, List<String> replacement, List<String> rest) {
        if (!card.equals(expected)) {
            throw new IllegalArgumentException("unknown card '" + card + "'; supported: " + expected);
        }
        return prepend(replacement, rest);
    }

    /** The old default backend, {@code emu:CARD}, is what the new commands run; any other is refused. */
    private static void requireEmu(String backend, String card) {
        if (backend != null && !backend.equals("emu:" + card)) {
            throw new IllegalArgumentException("backend '" + backend + "': the " + card + " experiments run on two"
                + " emulated cards (emu:" + card + ")" + (card.equals("dec21140")
                    ? "; the native shim is nic shim pingpong --backend shim:afpacket[?params]" : ""));
        }
    }

    /** Removes {@code option VALUE} or {@code option=VALUE} from {@code args}; the value, or null when absent. */
    private static String take(List<String> args, String option) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.startsWith(option + "=")) {
                args.remove(i);
                return a.substring(option.length() + 1);
            }
            if (a.equals(option) && i + 1 < args.size()) {
                args.remove(i);
                return args.remove(i);
            }
        }
        return null;
    }

    private static List<String> prepend(List<String> head, List<String> rest) {
        List<String> r = new ArrayList<>(head);
        r.addAll(rest);
        return r;
    }

    /**
     * The old commands, hidden from {@code nic --help}: each takes its arguments as they come, translates them and
     * runs the replacement on a fresh command line with the same output and error writers.
     */
    @Command
    abstract static class Legacy implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Unmatched
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() {
            CommandLine self = spec.commandLine();
            List<String> replacement;
            try {
                replacement = translate(spec.name(), args);
            } catch (IllegalArgumentException e) {
                self.getErr().println("nic " + spec.name() + ": " + e.getMessage());
                self.getErr().println(REPLACEMENTS);
                return ExitCodes.USAGE;
            }
            self.getErr().println("nic " + spec.name() + ": this command line is now: nic "
                + String.join(" ", replacement));
            self.getErr().flush();
            CommandLine now = NicCommand.commandLine();
            now.setOut(self.getOut());
            now.setErr(self.getErr());
            return now.execute(replacement.toArray(String[]::new));
        }
    }

    @Command(name = "pingpong", hidden = true, description = "Replaced: nic tulip|shim|unet pingpong, nic medusa"
        + " latency.")
    static final class PingPong extends Legacy {
    }

    @Command(name = "bandwidth", hidden = true, description = "Replaced: nic unet throughput.")
    static final class Bandwidth extends Legacy {
    }

    @Command(name = "throughput", hidden = true, description = "Replaced: nic medusa throughput.")
    static final class Throughput extends Legacy {
    }
}
