package io.nicbridge.protocols.dst;

/**
 * One fault of a {@link Schedule}. Frame faults name the medium's n-th frame (0-based, counted over all nodes in
 * commit order), which a deterministic world makes a stable name; partitions and slow nodes name time windows.
 */
public sealed interface Fault {
    /** The kinds of frame fault. */
    enum Kind {
        /** The frame is lost. */
        DROP,
        /** A second copy arrives {@code param} ns after the first. */
        DUPLICATE,
        /** The frame arrives {@code param} ns late, a little: frames sent after it overtake it. */
        REORDER,
        /** The byte at offset {@code param & 0xffff} (mod length) is XORed with {@code (param >>> 16) | 1}. */
        CORRUPT,
        /** The frame arrives {@code param} ns late, about a retransmission timeout: a spurious retransmission. */
        DELAY
    }

    /** @return the text form used in replay commands */
    String encode();

    /** A fault on the medium's {@code frame}-th frame. */
    record FrameFault(Kind kind, long frame, long param) implements Fault {
        @Override
        public String encode() {
            return kind.name().toLowerCase(java.util.Locale.ROOT) + "@" + frame + ":" + param;
        }
    }

    /**
     * From {@code startNanos} until {@code endNanos}, frames between nodes on different sides are lost; node i is on
     * side {@code (sides >>> i) & 1}. The end is the heal.
     */
    record Partition(long startNanos, long endNanos, long sides) implements Fault {
        @Override
        public String encode() {
            return "partition@" + startNanos + ":" + endNanos + ":" + sides;
        }
    }

    /** From {@code startNanos} until {@code endNanos}, node {@code node} handles every event {@code delayNanos} late. */
    record SlowNode(int node, long startNanos, long endNanos, long delayNanos) implements Fault {
        @Override
        public String encode() {
            return "slow@" + node + ":" + startNanos + ":" + endNanos + ":" + delayNanos;
        }
    }

    /**
     * At {@code atNanos} node {@code node}'s card is reset as by a hardware reset (the 21140's CSR0.SWR, the
     * Medusa's CTRL.RESET, the SBA-200's i960 restart): it forgets its rings and in-flight frames, and the node's
     * driver must find out through the card's registers and re-initialise it. Only media with a card express it.
     */
    record CardReset(int node, long atNanos) implements Fault {
        @Override
        public String encode() {
            return "reset@" + node + ":" + atNanos;
        }
    }

    /** Parses one {@link #encode()} form. */
    static Fault parse(String text) {
        int at = text.indexOf('@');
        if (at < 0) {
            throw new IllegalArgumentException("fault '" + text + "' lacks '@'");
        }
        String kind = text.substring(0, at);
        String[] f = text.substring(at + 1).split(":");
        try {
            return switch (kind) {
                case "partition" -> {
                    need(text, f, 3);
                    yield new Partition(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]));
                }
                case "reset" -> {
                    need(text, f, 2);
                    yield new CardReset(Integer.parseInt(f[0]), Long.parseLong(f[1]));
                }
                case "slow" -> {
                    need(text, f, 4);
                    yield new SlowNode(Integer.parseInt(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                            Long.parseLong(f[3]));
                }
                default -> {
                    need(text, f, 2);
                    Kind k;
                    try {
                        k = Kind.valueOf(kind.toUpperCase(java.util.Locale.ROOT));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("unknown fault kind '" + kind + "' in '" + text
                                + "' (drop, duplicate, reorder, corrupt, delay, partition, slow, reset)");
                    }
                    yield new FrameFault(k, Long.parseLong(f[0]), Long.parseLong(f[1]));
                }
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fault '" + text + "' has a field that is not a number", e);
        }
    }

    private static void need(String text, String[] fields, int n) {
        if (fields.length != n) {
            throw new IllegalArgumentException("fault '" + text + "' needs " + n + " ':'-separated fields");
        }
    }
}
