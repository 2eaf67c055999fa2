package io.nicbridge.bench.unet;

import io.nicbridge.bridge.driver.unet.UnetLink;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.XskUnetEndpoint;
import io.nicbridge.bench.unet.real.UnetVethEndpoints;
import io.nicbridge.bridge.time.EventLoop;
import io.nicbridge.contract.NicShim;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * U-Net over Ethernet as the medium of a two-node run ({@link Timebase#ethernet}): on each end of a veth pair a
 * native-shim SBA-200 contract (the C card model {@code sba200_eth_card.c} on an AF_PACKET socket, nicshim.h "U-Net
 * over Ethernet": one PDU per Ethernet frame behind an 8-byte tag), its U-Net kernel driver, one endpoint and one
 * channel to the other end, and a {@link UnetLink} on it - the same link the emulated SBA-200 gives the runs.
 *
 * <pre>
 *   node 0: core - UnetLink - UnetEndpoint - kernel driver - shim SBA-200 (inline) - vethA ==netns== vethB - ... node 1
 *           \_____________________ one EventLoop on the calling thread: both cards' work, both nodes' events ______/
 * </pre>
 * Both cards are INLINE: their work (the transmit queue to the packet socket, the socket's frames to the receive queue,
 * the interrupt that runs the kernel driver's handler) is done by the one thread that runs the loop, as the emulated
 * cards' engine is in {@link Timebase#REAL_ONE_THREAD}, so every readiness signal arrives on the loop's thread, as a
 * {@link io.nicbridge.protocols.runner.NodeRunner} needs. The figures are wall-clock time: this machine's, its kernel's
 * veth and packet sockets, and its load. Each {@link #open} is a fresh pair of cards (none of a previous run's frames
 * or counters), closed with the run.
 */
final class UnetEthernetMedium extends Timebase {
    /** U-Net over Ethernet's tag in front of each PDU (nicshim.h): a PDU of n bytes is a frame of n + 8 + 14. */
    static final int TAG = 8;
    static final int VCI_0_TO_1 = 130;
    static final int VCI_1_TO_0 = 131;
    static final int CHANNEL = 0;
    /**
     * A run that has not finished within this has lost a message: raw U-Net and UDP have no flow control, and a frame
     * the receiving card or its packet socket dropped is gone (the runs then say so).
     */
    static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The packet ring's slot: the largest frame the veth passes (MTU + 14) and the ring's header, rounded up. */
    private final int frameSize;
    private final VethPair veth;
    /** More parameters of both cards' device specs (the shim's fault injection, for tests), or "". */
    private final String cardOptions;
    private final long limitNanos;

    /** The direct endpoint's UMEM chunk: the larger of the two the shim offers, 2048 or 4096 bytes. */
    static final int DIRECT_CHUNK = 4096;
    /**
     * The largest message a direct endpoint's chunk holds: the chunk less the XDP headroom and the frame's Ethernet
     * header and U-Net tag ({@link XskUnetEndpoint#receiveOffset()}).
     */
    static final int DIRECT_MAX_PDU = DIRECT_CHUNK - NicShim.XDP_RX_OFFSET - XskUnetEndpoint.FRAME_OVERHEAD;
    private final boolean direct;
    /** The last direct endpoint opened, as it describes itself (its XDP attach and bind modes, chunk): for reports. */
    private volatile String lastDirectEndpoint = "none opened";

    /** @param direct direct-access AF_XDP endpoints instead of the shim's SBA-200 cards */
    UnetEthernetMedium(VethPair veth, boolean direct) {
        this(veth, direct, "", LIMIT_NANOS);
    }

    /**
     * @param cardOptions more device-spec parameters of both cards, e.g. {@code "&drop=1"} (the shim's fault injection)
     * @param limitNanos  how long a run may take before its message counts as lost
     */
    UnetEthernetMedium(VethPair veth, boolean direct, String cardOptions, long limitNanos) {
        super("U-Net over Ethernet on " + veth.interfaceA() + "/" + veth.interfaceB()
            + (direct ? ", direct AF_XDP endpoints" : ", shim SBA-200 cards"));
        this.veth = veth;
        this.direct = direct;
        this.cardOptions = cardOptions;
        this.limitNanos = limitNanos;
        this.frameSize = Integer.highestOneBit(veth.mtu() + 14 + 128 - 1) << 1;
    }

    /** @return how the last direct endpoint opened on this medium was attached (XDP mode, bind mode, chunk) */
    String lastDirectEndpoint() {
        return lastDirectEndpoint;
    }

    /** @return the largest PDU one frame of this pair carries: its MTU less the tag; on a direct endpoint, its chunk's */
    int maxPdu() {
        return direct ? Math.min(veth.mtu() - TAG, DIRECT_MAX_PDU) : veth.mtu() - TAG;
    }

    @Override
    Medium open(Sba200Timing timing, int bufferBytes, int txBuffers, int rxBuffers, int receiveQueue) {
        if (direct) { // a run asking for more than a chunk gets what a chunk carries: its larger messages are refused
            return new Directs(Math.min(bufferBytes, maxPdu()), txBuffers, rxBuffers);
        }
        if (bufferBytes > maxPdu()) {
            throw new IllegalArgumentException("bufferBytes " + bufferBytes + " do not fit one frame of " + veth
                + " (MTU " + veth.mtu() + " less the " + TAG + "-byte U-Net tag: at most " + maxPdu() + ")");
        }
        return new Cards(bufferBytes, txBuffers, rxBuffers, receiveQueue);
    }

    /**
     * What both kinds of end share: the two links, the veth fixture under them and the one loop that runs them on the
     * calling thread. A subclass's constructor opens {@link #ends} and {@link #links} and, if a step fails, closes
     * what it opened with {@link #close} (which skips what is still null) before it rethrows.
     */
    private abstract class VethEnds extends Medium {
        final UnetLink[] links = new UnetLink[2];
        final EventLoop loop;
        /** Set by the subclass's constructor; null until then, or if opening them failed. */
        UnetVethEndpoints ends;

        VethEnds(String loopName) {
            super(new EventLoop(loopName, 1_000_000L));
            loop = (EventLoop) scheduler;
        }

        @Override
        final UnetLink[] links() {
            return links.clone();
        }

        @Override
        final boolean runUntil(BooleanSupplier done, long limitNanos) {
            return runLoop(loop, done, limitNanos);
        }

        @Override
        final long limitNanos() {
            return limitNanos;
        }

        @Override
        public final void close() {
            for (UnetLink link : links) {
                if (link != null) {
                    link.close();
                }
            }
            if (ends != null) {
                ends.close(); // the links before the endpoints: each driver before its card, the segment last
            }
            loop.close();
        }
    }

    private final class Cards extends VethEnds {
        Cards(int bufferBytes, int txBuffers, int rxBuffers, int receiveQueue) {
            super("unet-ethernet-one-thread");
            long stride = (bufferBytes + 63) & -64;
            try {
                ends = UnetVethEndpoints.cards(veth, "unet-eth", VCI_0_TO_1, VCI_1_TO_0,
                    "&frame-size=" + frameSize + cardOptions, stride * (txBuffers + rxBuffers), receiveQueue);
                for (int i = 0; i < 2; i++) {
                    links[i] = new UnetLink("unet-eth-" + i, ends.endpoint(i), i, new int[] {CHANNEL, CHANNEL}, 0,
                        bufferBytes, txBuffers, rxBuffers);
                    Runnable progress = ends.card(i).progress();
                    links[i].progress(progress);
                    loop.addSource(() -> {
                        progress.run();
                        return 0;
                    });
                    // a refused claim looks again every 20 us, as on the emulated cards in real time
                    links[i].writableProbe(loop, 20_000L);
                }
            } catch (RuntimeException | Error e) {
                close();
                throw e;
            }
        }

        /** The card's counters and, before it, the packet socket's: frames the kernel dropped for a full ring. */
        @Override
        Drops receiveDrops(int i) {
            Drops card = Drops.ofCard(ends.kernel(i));
            var socket = ends.card(i).statistics();
            long kernel = socket.rxDropKernel() + socket.rxMissed();
            return new Drops(card.counted() + kernel, "packet socket " + kernel + ", " + card.where());
        }
    }

    /**
     * Two direct-access endpoints ({@link XskUnetEndpoint}) on the pair's ends, one channel between them, a link on
     * each. Such an endpoint announces arrivals only to a thread blocked in its own wait, never to the loop: the loop
     * polls both links every pass through the runner ({@link NodeRunner#pollLinks}), as a busy-polling node would.
     */
    private final class Directs extends VethEnds {
        Directs(int mtu, int txBuffers, int rxBuffers) {
            super("unet-direct-one-thread");
            // Every chunk the link posts or sends from, and at least the RX ring's worth (the endpoint's rule).
            long bytes = (long) DIRECT_CHUNK * Math.max(txBuffers + rxBuffers, NicShim.DEFAULT_RING_FRAMES);
            try {
                ends = UnetVethEndpoints.directs(veth, VCI_0_TO_1, VCI_1_TO_0, "&frame-size=" + DIRECT_CHUNK
                    + cardOptions, bytes);
                lastDirectEndpoint = ends.direct(1).toString();
                for (int i = 0; i < 2; i++) {
                    links[i] = new UnetLink("unet-direct-" + i, ends.endpoint(i), i, new int[] {CHANNEL, CHANNEL}, 0,
                        mtu, txBuffers, rxBuffers);
                    links[i].writableProbe(loop, 20_000L);
                }
            } catch (RuntimeException | Error e) {
                close();
                throw e;
            }
        }

        /** The kernel's XDP statistics (no FILL chunk, RX ring full) and the endpoint's own filter drops. */
        @Override
        Drops receiveDrops(int i) {
            XskUnetEndpoint e = ends.direct(i);
            var k = e.kernelStatistics();
            long own = e.rxDropBadFrame() + e.rxDropNoChannel();
            return new Drops(k.rxDropped() + k.rxRingFull() + own, String.format(java.util.Locale.ROOT, "receiving"
                + " endpoint: no FILL chunk %d, RX ring full %d, bad frame or no channel %d", k.rxDropped(),
                k.rxRingFull(), own));
        }

        @Override
        void attach(NodeRunner runner) {
            loop.addSource(runner::pollLinks);
        }
    }
}
