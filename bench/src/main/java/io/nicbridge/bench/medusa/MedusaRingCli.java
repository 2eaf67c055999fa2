package io.nicbridge.bench.medusa;

import io.nicbridge.sim.capture.PcapWriter;
import java.io.PrintStream;
import java.util.Arrays;

/** Argument handling shared by {@code nic pingpong --card medusa} and {@code nic throughput --card medusa}. */
public final class MedusaRingCli {
    /** The paper's ring sizes. */
    public static final String DEFAULT_NODES = "2,4,8";

    private MedusaRingCli() {
    }

    /**
     * Parses a comma-separated list of positive integers within [min, max].
     *
     * @throws IllegalArgumentException naming the option and the bad element
     */
    public static int[] parseList(String option, String value, int min, int max) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(option + " needs a comma-separated list of numbers, got nothing");
        }
        String[] parts = value.split(",");
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String s = parts[i].trim();
            try {
                out[i] = Integer.parseInt(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + ": '" + s + "' is not a number");
            }
            if (out[i] < min || out[i] > max) {
                throw new IllegalArgumentException(option + ": " + out[i] + " is outside [" + min + ", " + max + "]");
            }
        }
        return out;
    }

    /** Ring sizes: 2..64 stations. */
    public static int[] nodes(String value) {
        return parseList("--nodes", value, 2, 64);
    }

    /** Payload words: 1..2000 (the paper's range; 2000 words + 52 bytes fit the 8 KiB buffer). */
    public static int[] words(String value, int[] defaults) {
        return value == null ? defaults : parseList("--words", value, 1, 2000);
    }

    public static int latency(PrintStream out, String nodes, String words, int warmup, int rounds, long seed) {
        return latency(out, nodes, words, warmup, rounds, seed, 0);
    }

    public static int latency(PrintStream out, String nodes, String words, int warmup, int rounds, long seed,
                              long hostNanos) {
        return latency(out, nodes, words, warmup, rounds, seed, hostNanos, null);
    }

    /** @param capture records every frame of every ring into this FDDI writer; null: no capture */
    public static int latency(PrintStream out, String nodes, String words, int warmup, int rounds, long seed,
                              long hostNanos, PcapWriter capture) {
        if (hostNanos < 0 || hostNanos > 1_000_000_000L) {
            throw new IllegalArgumentException("--host-ns must be in [0, 1000000000], was " + hostNanos);
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be at least 1, was " + rounds);
        }
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup must be 0 or more, was " + warmup);
        }
        int[] w = words(words, MedusaRingExperiments.LATENCY_WORDS);
        if (Arrays.stream(w).distinct().count() < 2) {
            throw new IllegalArgumentException("--words needs at least two different sizes to fit a slope");
        }
        return MedusaRingExperiments.latency(out, nodes(nodes), w, warmup, rounds, seed, hostNanos, capture);
    }

    public static int throughput(PrintStream out, String nodes, String words, int messages, long seed) {
        return throughput(out, nodes, words, messages, seed, null);
    }

    /** @param capture records every frame of every ring into this FDDI writer; null: no capture */
    public static int throughput(PrintStream out, String nodes, String words, int messages, long seed,
                                 PcapWriter capture) {
        if (messages < 1) {
            throw new IllegalArgumentException("--messages must be at least 1, was " + messages);
        }
        return MedusaRingExperiments.throughput(out, nodes(nodes), words(words, MedusaRingExperiments.THROUGHPUT_WORDS),
            messages, seed, capture);
    }
}
