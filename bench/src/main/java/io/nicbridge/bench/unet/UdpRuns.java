package io.nicbridge.bench.unet;

import io.nicbridge.bench.real.InterleavedTrials;
import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.protocols.ip.Ipv4Address;
import io.nicbridge.protocols.ip.Ipv4Stack;
import io.nicbridge.protocols.ip.Udp;
import io.nicbridge.protocols.ip.UdpPcb;
import io.nicbridge.protocols.ip.UdpReceiver;
import io.nicbridge.protocols.ip.UnetIpLink;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.lang.foreign.MemorySegment;
import org.HdrHistogram.Histogram;

/**
 * UDP over U-Net (the paper's section 7.6, Table 3's UDP row and Figure 7) on two emulated SBA-200s through the ATM
 * switch, in virtual time, every host's work priced by a host cost table: the one {@link Ipv4Stack} on a
 * {@link UnetIpLink} (MTU 9 KB, the channel the route) with {@link Udp} above it, on the same
 * {@link io.nicbridge.bridge.driver.unet.UnetLink}, node runner and table as raw U-Net and UAM in {@link UamRuns}, so
 * the three differ only by their layers. Every figure is simulated time; the runs are deterministic.
 */
public final class UdpRuns {
    static final int IP_0 = Ipv4Address.parse("10.17.0.1");
    static final int IP_1 = Ipv4Address.parse("10.17.0.2");
    static final int PORT_0 = 5001;
    static final int PORT_1 = 5002;
    static final int TX_BUFFERS = 16;
    static final int RX_BUFFERS = 48;

    private UdpRuns() {
    }

    /** The IP stack and UDP of one node as the runner's core: frames in through the U-Net link, no timers. */
    static final class UdpCore extends TimerlessCore {
        final UnetIpLink link;
        final Ipv4Stack ip;
        final Udp udp;
        final HostCpu cpu;

        UdpCore(Link link, HostCpu cpu) {
            this.cpu = cpu;
            this.link = new UnetIpLink(link).route(link.self() == 0 ? IP_1 : IP_0, 1 - link.self());
            this.ip = new Ipv4Stack(this.link, link.self() == 0 ? IP_0 : IP_1, 24, ipMtu(this.link));
            ip.hostCpu(cpu);
            this.udp = new Udp(ip);
        }

        @Override
        public void onFrame(Link from, int rxHandle) {
            link.deliver(from, rxHandle, cpu.now());
        }
    }

    /**
     * Round trips: the best and worst of {@code count} after {@code warmup}, nanoseconds of the run's clock, and every
     * one of them in {@code samples} (for percentiles; a sample above 10 s is recorded as 10 s).
     */
    public record Rtt(long min, long max, Histogram samples) {
    }

    /**
     * UDP round trips of {@code size}-byte datagrams: node 0 sends, node 1's receiver echoes each from where it lies
     * in the receive buffer, node 0's receiver stamps the arrival with its CPU's time and sends the next.
     *
     * @param checksum whether both ends checksum what they send (the receiver checks what carries one)
     */
    /** As {@link #roundTrip(Timebase, int, boolean, int, int, Sba200Timing, CostTable)} in virtual time. */
    public static Rtt roundTrip(int size, boolean checksum, int warmup, int count, Sba200Timing timing, CostTable costs) {
        return roundTrip(Timebase.VIRTUAL, size, checksum, warmup, count, timing, costs);
    }

    /** @param timebase virtual time (host work charged by {@code costs}) or the real clock on this thread */
    public static Rtt roundTrip(Timebase timebase, int size, boolean checksum, int warmup, int count, Sba200Timing timing,
            CostTable costs) {
        checkSize(size);
        if (count < 1 || warmup < 0) {
            throw new IllegalArgumentException("count must be >= 1 and warmup >= 0, were " + count + ", " + warmup);
        }
        long[] state = {0, 0, Long.MAX_VALUE, Long.MIN_VALUE}; // done, start, min, max
        Histogram samples = InterleavedTrials.histograms(1)[0];
        MemorySegment message = pattern(size);
        try (UnetWorld w = new UnetWorld(timebase, timing, costs, Ipv4Stack.UNET_MTU, TX_BUFFERS, RX_BUFFERS, UdpRuns::core,
                NodeApplication.NONE)) {
            UdpPcb[] pa = new UdpPcb[1];
            UdpReceiver atZero = (pcb, src, sp, d, off, len, now) -> {
                long t = w.cpus[0].now();
                if (len != size || MemorySegment.mismatch(d, off, off + len, message, 0, size) != -1) {
                    throw new IllegalStateException("echo " + state[0] + " of " + len + " bytes for " + size
                            + " differs from the datagram sent");
                }
                if (state[0] >= warmup) {
                    state[2] = Math.min(state[2], t - state[1]);
                    state[3] = Math.max(state[3], t - state[1]);
                    samples.recordValue(Math.min(t - state[1], InterleavedTrials.HIGHEST_VALUE));
                }
                state[0]++;
                if (state[0] < warmup + count) {
                    state[1] = t;
                    require(pcb.send(IP_1, PORT_1, message, 0, size, t), "the next datagram");
                }
            };
            pa[0] = core(w, 0).udp.bind(PORT_0, atZero, checksum);
            core(w, 1).udp.bind(PORT_1, (pcb, src, sp, d, off, len, now) ->
                    require(pcb.send(src, sp, d, off, len, now), "the echo"), checksum);
            boolean done = w.runUntil(() -> {
                state[1] = w.cpus[0].now();
                require(pa[0].send(IP_1, PORT_1, message, 0, size, state[1]), "the first datagram");
                w.runner.node(0).applicationActed();
            }, () -> state[0] >= warmup + count);
            if (!done) {
                throw new IllegalStateException("UDP round trips of " + size + " B did not finish (a datagram lost?): "
                        + core(w, 0).ip + " / " + core(w, 1).ip);
            }
            return new Rtt(state[2], state[3], samples);
        }
    }

    /** What a stream delivered: datagrams sent and received, payload bytes per datagram, and the receive time. */
    public record Stream(int size, int sent, int received, long nanos, long cardDrops, String receiverDrops) {
        /** @return received payload Mbit/s, first send to the last arrival */
        public double mbits() {
            return (double) size * received * 8 / nanos * 1e3;
        }

        public int lost() {
            return sent - received;
        }
    }

    /**
     * Node 0 sends {@code messages} datagrams of {@code size} bytes as fast as its transmit buffers allow (a refused
     * claim waits for the link to become writable); node 1 counts what arrives. UDP has no flow control: what the
     * receiver cannot take the card drops, and {@link Stream#lost()} says how many.
     */
    /** As {@link #stream(Timebase, int, int, boolean, Sba200Timing, CostTable)} in virtual time. */
    public static Stream stream(int size, int messages, boolean checksum, Sba200Timing timing, CostTable costs) {
        return stream(Timebase.VIRTUAL, size, messages, checksum, timing, costs);
    }

    /** @param timebase virtual time (host work charged by {@code costs}) or the real clock on this thread */
    public static Stream stream(Timebase timebase, int size, int messages, boolean checksum, Sba200Timing timing,
            CostTable costs) {
        checkSize(size);
        if (messages < 1) {
            throw new IllegalArgumentException("messages must be >= 1, was " + messages);
        }
        int[] sent = {0};
        int[] received = {0};
        long[] first = {0};
        long[] last = {0};
        MemorySegment message = pattern(size);
        UdpPcb[] pa = new UdpPcb[1];
        NodeApplication app = node -> {
            if (node.id() != 0 || pa[0] == null) {
                return;
            }
            while (sent[0] < messages && pa[0].send(IP_1, PORT_1, message, 0, size, 0) == 0) {
                sent[0]++;
            }
        };
        try (UnetWorld w = new UnetWorld(timebase, timing, costs, Ipv4Stack.UNET_MTU, TX_BUFFERS, RX_BUFFERS, UdpRuns::core,
                app)) {
            pa[0] = core(w, 0).udp.bind(PORT_0, (pcb, src, sp, d, off, len, now) -> { }, checksum);
            core(w, 1).udp.bind(PORT_1, (pcb, src, sp, d, off, len, now) -> {
                if (len != size || MemorySegment.mismatch(d, off, off + len, message, 0, size) != -1) {
                    throw new IllegalStateException("datagram " + received[0] + " of the stream (" + len + " B for "
                            + size + ") differs from what was sent");
                }
                received[0]++;
                last[0] = w.cpus[1].now();
            }, checksum);
            w.runUntil(() -> {
                first[0] = w.cpus[0].now();
                app.afterEvent(w.runner.node(0));
                w.runner.node(0).applicationActed();
            }, () -> received[0] >= messages);
            if (sent[0] < messages) {
                throw new IllegalStateException("the UDP stream of " + size + " B sent only " + sent[0] + " of "
                        + messages + ": " + core(w, 0).ip);
            }
            if (received[0] == 0) {
                throw new IllegalStateException("the UDP stream of " + size + " B delivered nothing: " + core(w, 1).ip);
            }
            Timebase.Drops drops = w.medium.receiveDrops(1);
            return new Stream(size, sent[0], received[0], last[0] - first[0], drops.counted(), drops.where());
        }
    }

    private static UdpCore core(Link link, Scheduler clock, HostCpu cpu) {
        return new UdpCore(link, cpu);
    }

    private static UdpCore core(UnetWorld w, int node) {
        return (UdpCore) w.core(node);
    }

    /**
     * @return the IP MTU over {@code link}: the paper's 9 KB ({@link Ipv4Stack#UNET_MTU}), or less where the link's
     *     buffers are smaller (a direct AF_XDP endpoint's chunk): IP over U-Net does not fragment, so a datagram
     *     larger than the link's buffer could never go
     */
    static int ipMtu(UnetIpLink link) {
        return Math.min(Ipv4Stack.UNET_MTU, link.maxDatagram());
    }

    /** @return {@code size} bytes of a pattern (byte i = 7i + 3): what the runs send and check on arrival */
    static MemorySegment pattern(int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 7 + 3);
        }
        return MemorySegment.ofArray(b);
    }

    private static void checkSize(int size) {
        int max = Ipv4Stack.UNET_MTU - Ipv4Stack.IPV4_HEADER - Udp.HEADER;
        if (size < 0 || size > max) {
            throw new IllegalArgumentException("UDP payload must be 0.." + max + " bytes (the 9 KB MTU less 28), was "
                    + size);
        }
    }

    private static void require(int status, String what) {
        if (status != 0) {
            throw new IllegalStateException(what + " was refused (status " + status + "): the experiment keeps one"
                    + " datagram in flight");
        }
    }
}
