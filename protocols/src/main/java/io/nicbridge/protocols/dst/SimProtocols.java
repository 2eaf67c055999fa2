package io.nicbridge.protocols.dst;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.am.AmConfig;
import io.nicbridge.protocols.am.AmMessageChannel;
import io.nicbridge.protocols.careful.CarefulConfig;
import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.ip.tcp.TcpConfig;
import io.nicbridge.protocols.pupa.PupaConfig;
import io.nicbridge.protocols.pupa.PupaCore;
import io.nicbridge.protocols.traditional.TraditionalConfig;
import io.nicbridge.protocols.traditional.TraditionalCore;
import java.util.List;
import java.util.Map;

/** The cores the simulation tester knows by name ({@code --protocol}). */
public final class SimProtocols {
    /** TCP's initial sequence numbers: node i's TCP is seeded with this + i. */
    private static final long ISS_SEED = 0x7c95_1e7dL;
    private static final Map<String, CoreFactory> BY_NAME = Map.of(
            "gbn", (link, clock, cpu, s) -> new GoBackNCore(link, clock,
                    new GoBackNConfig(s.window(), s.maxMessage(), s.rtoNanos()), cpu),
            "traditional", (link, clock, cpu, s) -> new TraditionalCore(link, clock, cpu, traditional(s)),
            "pupa", (link, clock, cpu, s) -> new PupaCore(link, clock, pupa(s), cpu),
            "careful", (link, clock, cpu, s) -> new CarefulCore(link, careful(s, link), cpu),
            "am", (link, clock, cpu, s) -> new AmMessageChannel(link, clock, am(s), cpu, s.maxMessage()),
            "tcp", (link, clock, cpu, s) -> new TcpNode(link, clock, tcp(s).withIssSeed(ISS_SEED + link.self())),
            // the U-Net real-time stacks' setting: an in-order segment's ACK left for the end of the step
            "tcp-ack-at-poll", (link, clock, cpu, s) -> new TcpNode(link, clock,
                    tcp(s).withAckAtPoll(true).withIssSeed(ISS_SEED + link.self())));
    private static final Map<String, SimSettings> SETTINGS = Map.of(
            "gbn", SimSettings.defaults(),
            "traditional", SimSettings.cstar(),
            "pupa", SimSettings.defaults(),
            "careful", SimSettings.cstar(),
            "am", SimSettings.defaults(),
            "tcp", SimSettings.tcp(),
            "tcp-ack-at-poll", SimSettings.tcp());

    /**
     * The traditional core's configuration in a simulated world: fragments of up to {@code maxMessage} bytes, the
     * medium's receive buffers held in place with copy-out beyond half of them into as many host buffers, refusal
     * of low-priority fragments from 3/4 of all held, descriptors 4w (at least 8), ACKs asked for when w are left,
     * the settings' RTO as the receiver's timeout.
     */
    public static TraditionalConfig traditional(SimSettings s) {
        int descriptors = Math.max(8, Integer.highestOneBit(4 * s.window()));
        int rx = s.rxSlots();
        return new TraditionalConfig(descriptors, s.maxMessage(), Math.min(descriptors - 1, s.window()), rx, rx,
                rx / 2, Math.max(1, 3 * (2 * rx) / 4), s.rtoNanos(), 16);
    }

    /**
     * The careful core's configuration in a simulated world of P = {@code link.peers()} nodes: of the medium's
     * receive buffers, P - 1 are kept for the update frames in flight (one per peer, see {@link CarefulCore}) and the
     * protocol manages the rest, R = rxSlots - (P - 1), as its static windows floor(R/P); copy-out to as many host
     * buffers as the cstar workload can have outstanding (4 fragments from every peer in 3 live events: 64 are
     * plenty), 256 event slots.
     *
     * @throws IllegalArgumentException when the medium's receive buffers leave R &lt; 2P (Theorem 1)
     */
    public static CarefulConfig careful(SimSettings s, Link link) {
        int p = link.peers();
        int r = s.rxSlots() - (p - 1);
        if (r < 2 * p) {
            throw new IllegalArgumentException("the careful core on " + p + " nodes needs rxSlots >= 2P + P - 1 = "
                    + (3 * p - 1) + " receive buffers per node, the settings have " + s.rxSlots());
        }
        return CarefulConfig.defaults().withReceiveBuffers(r).withHostBuffers(64);
    }

    /**
     * @return the settings the protocol's schedules run with by default: {@link SimSettings#defaults()} for the
     *     message cores, {@link SimSettings#cstar()} for the C* cores, traditional and careful (larger frames: a broadcast carries one ack
     *     entry per node), {@link SimSettings#tcp()} for TCP (IP-sized frames, TCP's 1 ms timer granularity)
     * @throws IllegalArgumentException naming the known protocols when {@code name} is not one
     */
    public static SimSettings settings(String name) {
        byName(name);
        return SETTINGS.get(name);
    }

    private SimProtocols() {
    }

    /**
     * Pupa in the tester's world: the paper's buffers and algorithms, its timers scaled to the world's RTO (ACK timer
     * half an RTO, as the paper's 10 ms timer is shorter than its timeout; packing delay a tenth of one), and the software frame
     * check on, because the in-memory medium delivers the bytes it corrupts (a card's FCS would drop them).
     */
    public static PupaConfig pupa(SimSettings s) {
        return PupaConfig.defaults().withMaxMessage(s.maxMessage())
                .withTimers(s.rtoNanos(), s.rtoNanos() / 2, s.rtoNanos() / 10).withFrameCheck(true);
    }

    /**
     * U-Net Active Messages in the tester's world: the settings' window and RTO, buffers as large as the medium's
     * frames allow after the go-back-N and Active Messages headers (28 bytes on the default 64-byte medium, so a
     * message of up to 48 bytes is stored in one or two chunks), acknowledgements held for up to a tenth of an RTO.
     */
    public static AmConfig am(SimSettings s) {
        int buffer = s.mtu() - io.nicbridge.protocols.gbn.GoBackNWire.HEADER - AmConfig.HEADER_BYTES;
        return new AmConfig(s.window(), buffer, s.rtoNanos(), s.rtoNanos() / 10, 0);
    }

    /**
     * TCP in the tester's world: the MSS from the medium's MTU, a 4 KiB send and a 2 KiB receive ring per connection
     * (small, so windows fill and close under the workload's slow readers), 8 connection slots (a node's own
     * connection, one accepted from each peer, and room for the half-open ones a duplicated SYN makes), RTO floor at
     * the settings' RTO (1 ms, TCP's timer granularity), 3 of them before the first sample, ceiling 32, 12
     * retransmissions before giving up, no delayed ACK, a TIME-WAIT of 64 RTOs: 2 MSL of a world whose longest delay
     * is a few ms, and twice the RTO ceiling, so that a FIN the peer retransmits after losing the last ACK still
     * finds TIME-WAIT (a shorter one lets it draw a RST). Each node gets its own initial sequence numbers.
     */
    public static TcpConfig tcp(SimSettings s) {
        return TcpConfig.defaults().withBuffers(4096, 2048).withConnections(8)
                .withRto(3 * s.rtoNanos(), s.rtoNanos(), 32 * s.rtoNanos()).withMaxRetransmissions(12)
                .withTimeWait(64 * s.rtoNanos());
    }

    /** @throws IllegalArgumentException naming the known protocols when {@code name} is not one */
    public static CoreFactory byName(String name) {
        CoreFactory f = BY_NAME.get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown protocol '" + name + "'; known: " + names());
        }
        return f;
    }

    public static List<String> names() {
        return BY_NAME.keySet().stream().sorted().toList();
    }
}
