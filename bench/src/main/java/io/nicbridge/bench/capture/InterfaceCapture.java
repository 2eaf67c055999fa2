package io.nicbridge.bench.capture;

import io.nicbridge.bridge.platform.NetworkNamespace;
import io.nicbridge.bridge.platform.RawPacketSocket;
import io.nicbridge.sim.capture.PcapWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Captures the frames that cross real Linux interfaces into one {@link PcapWriter} (LINKTYPE 1), for a run on the
 * native shim, whose cards move frames in C where the JVM never sees them.
 * <pre>
 *   card (shim, PACKET_MMAP) ---- interface ---- link
 *                                    |
 *                                    +-- tap: raw AF_PACKET socket (kernel copy) -- thread -- PcapWriter (wall clock)
 * </pre>
 * Each {@link Tap} is a raw packet socket on one interface with its own platform thread. An {@linkplain
 * Tap#incoming incoming} tap records the frames that arrive at the interface; a {@linkplain Tap#bothDirections
 * both-directions} tap also the frames the host sends on it. On a veth pair, incoming taps on both ends record
 * every frame once, whichever end sent it, even frames the receiving card's ring then drops.
 *
 * <p>Timestamps are the wall clock when the tap's thread took the frame from its socket (microseconds after the
 * kernel saw it, more under load). The kernel copies each frame to every tap: capturing costs the measured path
 * time, which is why it is only ever switched on by {@code --pcap}. Frames the kernel had to drop because a tap
 * fell behind are counted ({@link #kernelDrops()}), never silently missing.
 */
public final class InterfaceCapture implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(InterfaceCapture.class);
    /** Larger than any frame a veth or Ethernet NIC carries here (jumbo frames included). */
    private static final int BUFFER_BYTES = 65536;
    /** A tap socket's receive buffer: holds a burst of a one-way flood while the thread is descheduled. */
    private static final int SOCKET_BUFFER_BYTES = 8 << 20;
    /** How long a tap thread waits for a frame before it checks whether it should stop. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** How long a tap thread may still take frames already queued after close() asked it to stop. */
    private static final long DRAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /**
     * One interface to capture on.
     *
     * @param namespace the interface's network namespace, or null for the calling thread's
     * @param ifname the interface
     * @param outgoing whether the frames this host sends there are recorded too
     */
    public record Tap(NetworkNamespace namespace, String ifname, boolean outgoing) {
        public Tap {
            Objects.requireNonNull(ifname, "ifname");
        }

        /** Frames arriving at {@code ifname}. */
        public static Tap incoming(NetworkNamespace namespace, String ifname) {
            return new Tap(namespace, ifname, false);
        }

        /** Frames arriving at and sent from {@code ifname}. */
        public static Tap bothDirections(NetworkNamespace namespace, String ifname) {
            return new Tap(namespace, ifname, true);
        }
    }

    private final PcapWriter writer;
    private final List<RawPacketSocket> sockets = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final Arena arena = Arena.ofShared();
    private volatile boolean stopping;
    private volatile RuntimeException failure;
    private long kernelDrops;
    private boolean closed;

    private InterfaceCapture(PcapWriter writer) {
        this.writer = writer;
    }

    /**
     * Opens every tap and starts its thread; frames are recorded from then until {@link #close()}.
     *
     * @throws IllegalArgumentException when the writer is not Ethernet or no tap is given
     * @throws IOException when a tap cannot be opened (no such interface, not root); the taps already opened are
     *                     closed again
     */
    public static InterfaceCapture start(PcapWriter writer, List<Tap> taps) throws IOException {
        Objects.requireNonNull(writer, "writer");
        if ((writer.linkType() & 0xFFFF) != PcapWriter.LINKTYPE_ETHERNET) {
            throw new IllegalArgumentException("an interface capture writes Ethernet frames (linktype "
                + PcapWriter.LINKTYPE_ETHERNET + "), but " + writer.path() + " has linktype " + writer.linkType());
        }
        if (taps.isEmpty()) {
            throw new IllegalArgumentException("an interface capture needs at least one tap");
        }
        InterfaceCapture c = new InterfaceCapture(writer);
        try {
            for (Tap t : taps) {
                RawPacketSocket s = t.outgoing() ? RawPacketSocket.openTap(t.namespace(), t.ifname())
                    : t.namespace() == null ? RawPacketSocket.open(t.ifname())
                    : RawPacketSocket.open(t.namespace(), t.ifname());
                c.sockets.add(s);
                s.setReceiveBufferSize(SOCKET_BUFFER_BYTES);
            }
            for (RawPacketSocket s : c.sockets) {
                MemorySegment buffer = c.arena.allocate(BUFFER_BYTES, 64);
                Thread th = Thread.ofPlatform().name("pcap-" + s.interfaceName()).daemon(true)
                    .unstarted(() -> c.loop(s, buffer));
                c.threads.add(th);
                th.start();
            }
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private void loop(RawPacketSocket socket, MemorySegment buffer) {
        try {
            long stopAt = Long.MAX_VALUE;
            while (true) {
                if (stopping) {
                    // Asked to stop: take what is already queued (bounded, in case a peer still floods), then stop.
                    long now = System.nanoTime();
                    if (stopAt == Long.MAX_VALUE) {
                        stopAt = now + DRAIN_NANOS;
                    } else if (now >= stopAt) {
                        return;
                    }
                }
                int n = socket.receive(buffer, stopping ? 0 : POLL_NANOS);
                if (n > 0) {
                    writer.record(buffer, 0, n);
                } else if (stopping) {
                    return;
                }
            }
        } catch (RuntimeException e) {
            failure = e;
            LOG.error("pcap tap on {} stopped: {}", socket.interfaceName(), e.toString());
        }
    }

    /** @return frames the kernel dropped because a tap's socket buffer was full (read by {@link #close()}) */
    public synchronized long kernelDrops() {
        return kernelDrops;
    }

    /** @return the writer the taps record into */
    public PcapWriter writer() {
        return writer;
    }

    /**
     * Stops the taps (each first takes what is already queued), reads the kernel's drop counts, closes the sockets;
     * the writer stays open. Idempotent.
     *
     * @throws UncheckedIOException when a tap thread failed
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopping = true;
        for (Thread t : threads) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (RawPacketSocket s : sockets) {
            try {
                kernelDrops += s.statistics().drops();
            } catch (IOException e) {
                LOG.warn("pcap tap on {}: PACKET_STATISTICS failed: {}", s.interfaceName(), e.toString());
            }
            if (threads.stream().noneMatch(Thread::isAlive)) {
                s.close();
            }
        }
        if (threads.stream().noneMatch(Thread::isAlive)) {
            arena.close();
        }
        RuntimeException f = failure;
        if (f != null) {
            throw new UncheckedIOException(new IOException("capture failed: " + f.getMessage(), f));
        }
    }
}
