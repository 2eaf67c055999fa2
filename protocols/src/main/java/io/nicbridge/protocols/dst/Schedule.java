package io.nicbridge.protocols.dst;

import java.util.ArrayList;
import java.util.List;

/**
 * One simulation test case: the workload ({@code nodes} nodes, each offering {@code messagesPerNode} messages to
 * peers and at times drawn from {@code seed}) and the faults applied to it. Text form, for replay commands:
 * {@code seed/nodes/messagesPerNode/fault,fault,...} (see {@link Fault#encode()}).
 */
public record Schedule(long seed, int nodes, int messagesPerNode, List<Fault> faults) {
    public Schedule {
        if (nodes < 2 || nodes > 62) {
            throw new IllegalArgumentException("nodes must be in [2, 62], was " + nodes);
        }
        if (messagesPerNode < 0) {
            throw new IllegalArgumentException("messagesPerNode must be >= 0, was " + messagesPerNode);
        }
        faults = List.copyOf(faults);
    }

    /** @return what shrinking minimises: faults plus messages */
    public int size() {
        return faults.size() + nodes * messagesPerNode;
    }

    public Schedule withFaults(List<Fault> f) {
        return new Schedule(seed, nodes, messagesPerNode, f);
    }

    public Schedule withMessages(int m) {
        return new Schedule(seed, nodes, m, faults);
    }

    /** @return this schedule on fewer nodes, without the faults that name a node no longer there */
    public Schedule withNodes(int n) {
        List<Fault> kept = new ArrayList<>();
        for (Fault f : faults) {
            boolean gone = f instanceof Fault.SlowNode s && s.node() >= n
                    || f instanceof Fault.CardReset r && r.node() >= n;
            if (!gone) {
                kept.add(f);
            }
        }
        return new Schedule(seed, n, messagesPerNode, kept);
    }

    public String encode() {
        StringBuilder sb = new StringBuilder().append(seed).append('/').append(nodes).append('/').append(messagesPerNode)
                .append('/');
        for (int i = 0; i < faults.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(faults.get(i).encode());
        }
        return sb.toString();
    }

    /** Parses {@link #encode()}'s form. */
    public static Schedule parse(String text) {
        String[] parts = text.trim().split("/", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("schedule '" + text + "' must be seed/nodes/messagesPerNode/faults");
        }
        List<Fault> faults = new ArrayList<>();
        for (String f : parts[3].split(",")) {
            if (!f.isBlank()) {
                faults.add(Fault.parse(f.trim()));
            }
        }
        try {
            return new Schedule(Long.parseLong(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]),
                    faults);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("schedule '" + text + "': seed, nodes and messages must be numbers", e);
        }
    }

    @Override
    public String toString() {
        return encode();
    }
}
