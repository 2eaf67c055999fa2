package io.nicbridge.bridge.platform;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * A plain Linux raw Ethernet socket ({@code socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL))}) bound to one
 * interface: whole frames in and out, destination MAC first, no FCS. Tests use it as the independent peer of our
 * own driver: what it receives is what really crossed the wire.
 *
 * <p><b>Namespaces.</b> A packet socket belongs to the network namespace of the thread that created it, and the
 * interface index is looked up there too. An interface inside a {@link NetworkNamespace} is therefore only
 * reachable from a socket created on a thread in that namespace: use {@link #open(NetworkNamespace, String)},
 * which creates it on the namespace's thread. {@link #open(String)} uses the calling thread's namespace. Once open,
 * the socket may be used from any thread.
 *
 * <p><b>Threads.</b> One thread may send while another receives: each direction has its own native scratch memory
 * (errno capture, poll descriptor, timeout, source address), allocated at open, so neither {@link #send} nor
 * {@link #receive} allocates. Two threads must not send (or receive) on one socket at the same time.
 * {@link #close()} must come after the threads using the socket have stopped: Linux does not wake a thread already
 * waiting in poll when another closes the descriptor.
 *
 * <p><b>Own frames.</b> A packet socket normally also sees the frames its host sends on the interface
 * ({@code PACKET_OUTGOING}). The socket asks the kernel not to queue them ({@code PACKET_IGNORE_OUTGOING}, Linux
 * 4.20+), and {@link #receive} also drops any that arrive anyway, so only frames that came in off the wire are
 * returned. A <b>tap</b> ({@link #openTap}) keeps them instead, for a capture of both directions; after each
 * {@link #receive} {@link #lastFrameOutgoing()} tells which way the frame went.
 */
public final class RawPacketSocket implements AutoCloseable {
    /** linux/if_ether.h: every protocol. */
    public static final int ETH_P_ALL = 0x0003;

    private final String interfaceName;
    private final int interfaceIndex;
    private final int fd;
    private final boolean kernelIgnoresOutgoing;
    private final boolean keepsOutgoing;
    private volatile boolean closed;

    // Send direction scratch.
    private final MemorySegment sendState;
    // Receive direction scratch: errno, one pollfd, the ppoll timeout, the source address and its length.
    private final MemorySegment receiveState;
    private final MemorySegment pollFd;
    private final MemorySegment timeout;
    private final MemorySegment from;
    private final MemorySegment fromLength;

    private long truncatedFrames;
    private long outgoingDropped;
    private boolean lastOutgoing;

    private RawPacketSocket(String interfaceName, int interfaceIndex, int fd, boolean kernelIgnoresOutgoing,
                            boolean keepsOutgoing) {
        this.interfaceName = interfaceName;
        this.interfaceIndex = interfaceIndex;
        this.fd = fd;
        this.kernelIgnoresOutgoing = kernelIgnoresOutgoing;
        this.keepsOutgoing = keepsOutgoing;
        // Automatic arena: send/receive may be running on other threads when close() is called, so the scratch
        // memory must outlive close; it is a few dozen bytes and the GC frees it with the socket.
        Arena arena = Arena.ofAuto();
        this.sendState = Libc.newCallState(arena);
        this.receiveState = Libc.newCallState(arena);
        this.pollFd = arena.allocate(Libc.POLLFD);
        this.timeout = arena.allocate(Libc.TIMESPEC);
        this.from = arena.allocate(Libc.SOCKADDR_LL);
        this.fromLength = arena.allocate(ValueLayout.JAVA_INT);
        pollFd.set(ValueLayout.JAVA_INT, 0, fd);
        pollFd.set(ValueLayout.JAVA_SHORT, 4, Libc.POLLIN);
    }

    /**
     * Opens a raw socket on interface {@code ifname} of namespace {@code ns}, creating it on the namespace's
     * thread (see the class comment for why that matters).
     *
     * @throws IOException as {@link #open(String)} does
     */
    public static RawPacketSocket open(NetworkNamespace ns, String ifname) throws IOException {
        return open(ns, ifname, false);
    }

    /**
     * Opens a tap on interface {@code ifname} of namespace {@code ns} (null: the calling thread's): a raw socket
     * that also returns the frames this host sends there ({@code PACKET_OUTGOING}), for a capture of both
     * directions. Frames a packet socket sends with {@code PACKET_QDISC_BYPASS} skip the kernel's taps and are not
     * seen.
     *
     * @throws IOException as {@link #open(String)} does
     */
    public static RawPacketSocket openTap(NetworkNamespace ns, String ifname) throws IOException {
        return ns == null ? open(ifname, true) : open(ns, ifname, true);
    }

    private static RawPacketSocket open(NetworkNamespace ns, String ifname, boolean keepOutgoing) throws IOException {
        Objects.requireNonNull(ns, "ns");
        try {
            return ns.call(() -> open(ifname, keepOutgoing));
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("opening a raw socket on " + ifname + " in " + ns + " failed", e);
        }
    }

    /**
     * Opens a raw socket on interface {@code ifname} of the CALLING THREAD's network namespace.
     *
     * @throws IOException when the interface does not exist there (ENODEV), the process lacks CAP_NET_RAW (EPERM),
     *                     or the kernel refuses the socket
     */
    public static RawPacketSocket open(String ifname) throws IOException {
        return open(ifname, false);
    }

    private static RawPacketSocket open(String ifname, boolean keepOutgoing) throws IOException {
        Objects.requireNonNull(ifname, "ifname");
        if (ifname.isEmpty() || ifname.length() > VethPair.MAX_INTERFACE_NAME) {
            throw new IllegalArgumentException("interface name '" + ifname + "' must have 1-"
                + VethPair.MAX_INTERFACE_NAME + " characters");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            int index = Libc.ifNameToIndex(state, arena.allocateFrom(ifname));
            if (index == 0) {
                throw new IOException("no interface '" + ifname + "' in the network namespace of thread "
                    + Thread.currentThread().getName() + " (" + Libc.errnoName(Libc.errno(state)) + ")");
            }
            // Protocol 0 at creation: the socket receives nothing until bind() names the interface, so no frame
            // of another interface can slip into its queue in between.
            int fd = Libc.socket(state, Libc.AF_PACKET, Libc.SOCK_RAW | Libc.SOCK_CLOEXEC, 0);
            if (fd < 0) {
                int errno = Libc.errno(state);
                throw new IOException("socket(AF_PACKET, SOCK_RAW) refused: " + Libc.errnoName(errno)
                    + (errno == Libc.EPERM ? " (raw packet sockets need CAP_NET_RAW; run as root)" : ""));
            }
            try {
                boolean ignoresOutgoing = !keepOutgoing && ignoreOutgoing(state, fd, arena);
                MemorySegment address = arena.allocate(Libc.SOCKADDR_LL);
                address.set(ValueLayout.JAVA_SHORT, 0, (short) Libc.AF_PACKET);
                address.set(ValueLayout.JAVA_SHORT, Libc.SLL_PROTOCOL, Libc.htons(ETH_P_ALL));
                address.set(ValueLayout.JAVA_INT, Libc.SLL_IFINDEX, index);
                if (Libc.bind(state, fd, address, (int) address.byteSize()) != 0) {
                    throw new IOException("bind of raw socket to " + ifname + " (index " + index + ") failed: "
                        + Libc.errnoName(Libc.errno(state)));
                }
                return new RawPacketSocket(ifname, index, fd, ignoresOutgoing, keepOutgoing);
            } catch (IOException | RuntimeException e) {
                Libc.close(state, fd);
                throw e;
            }
        }
    }

    /** @return whether the kernel took PACKET_IGNORE_OUTGOING (false before Linux 4.20: receive() filters) */
    private static boolean ignoreOutgoing(MemorySegment state, int fd, Arena arena) throws IOException {
        MemorySegment one = arena.allocateFrom(ValueLayout.JAVA_INT, 1);
        if (Libc.setsockopt(state, fd, Libc.SOL_PACKET, Libc.PACKET_IGNORE_OUTGOING, one, 4) == 0) {
            return true;
        }
        int errno = Libc.errno(state);
        if (errno == Libc.ENOPROTOOPT || errno == Libc.EINVAL) {
            return false;
        }
        throw new IOException("setsockopt(PACKET_IGNORE_OUTGOING) failed: " + Libc.errnoName(errno));
    }

    /** @return the interface this socket is bound to */
    public String interfaceName() {
        return interfaceName;
    }

    /** @return the interface index in the socket's namespace */
    public int interfaceIndex() {
        return interfaceIndex;
    }

    /** @return whether the kernel filters this host's own outgoing frames (else {@link #receive} does) */
    public boolean kernelIgnoresOutgoing() {
        return kernelIgnoresOutgoing;
    }

    /** @return whether the frame the last {@link #receive} returned was sent by this host (only a tap has such) */
    public boolean lastFrameOutgoing() {
        return lastOutgoing;
    }

    /** @return frames longer than the buffer given to {@link #receive}, cut to its size (receiving thread's view) */
    public long truncatedFrames() {
        return truncatedFrames;
    }

    /** @return this host's own outgoing frames that receive() dropped (0 when the kernel filters them) */
    public long outgoingDropped() {
        return outgoingDropped;
    }

    /**
     * Sets the socket's receive buffer, the queue that holds frames until {@link #receive} takes them; frames that
     * arrive while it is full are dropped (and counted in {@link #statistics()}). A test that sends bursts of many
     * frames needs more than the default (net.core.rmem_default, ~200 KiB: a few hundred small frames, since each
     * costs its buffer's true size). Uses SO_RCVBUFFORCE when the process may (CAP_NET_ADMIN) so net.core.rmem_max
     * does not cap it.
     *
     * @param bytes the wanted size, > 0
     * @return the size the kernel set (Linux doubles the request to allow for its bookkeeping)
     * @throws IOException when the kernel refuses both options
     */
    public int setReceiveBufferSize(int bytes) throws IOException {
        return setBufferSize(bytes, Libc.SO_RCVBUFFORCE, Libc.SO_RCVBUF, "receive");
    }

    /** {@link #setReceiveBufferSize} for the send buffer (SO_SNDBUFFORCE, else SO_SNDBUF). */
    public int setSendBufferSize(int bytes) throws IOException {
        return setBufferSize(bytes, Libc.SO_SNDBUFFORCE, Libc.SO_SNDBUF, "send");
    }

    private int setBufferSize(int bytes, int forceOption, int option, String what) throws IOException {
        if (bytes <= 0) {
            throw new IllegalArgumentException(what + " buffer size must be > 0, got " + bytes);
        }
        checkOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            MemorySegment value = arena.allocateFrom(ValueLayout.JAVA_INT, bytes);
            if (Libc.setsockopt(state, fd, Libc.SOL_SOCKET, forceOption, value, 4) != 0
                && Libc.setsockopt(state, fd, Libc.SOL_SOCKET, option, value, 4) != 0) {
                throw new IOException("setting the " + what + " buffer of " + this + " to " + bytes + " bytes failed: "
                    + Libc.errnoName(Libc.errno(state)));
            }
            MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, 4);
            if (Libc.getsockopt(state, fd, Libc.SOL_SOCKET, option, value, length) != 0) {
                throw new IOException("reading the " + what + " buffer size of " + this + " failed: "
                    + Libc.errnoName(Libc.errno(state)));
            }
            return value.get(ValueLayout.JAVA_INT, 0);
        }
    }

    /**
     * The kernel's count for this socket (PACKET_STATISTICS): frames that matched it, and of those the ones dropped
     * because the receive buffer was full.
     *
     * @param packets frames that reached the socket, dropped ones included
     * @param drops   frames dropped for lack of receive buffer
     */
    public record Statistics(long packets, long drops) {
    }

    /**
     * Reads and RESETS the kernel's counters (Linux zeroes them on every read): each call returns the counts since
     * the previous one, or since open.
     */
    public Statistics statistics() throws IOException {
        checkOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            // struct tpacket_stats { unsigned int tp_packets; unsigned int tp_drops; }
            MemorySegment stats = arena.allocate(8, 4);
            MemorySegment length = arena.allocateFrom(ValueLayout.JAVA_INT, 8);
            if (Libc.getsockopt(state, fd, Libc.SOL_PACKET, Libc.PACKET_STATISTICS, stats, length) != 0) {
                throw new IOException("PACKET_STATISTICS of " + this + " failed: " + Libc.errnoName(Libc.errno(state)));
            }
            return new Statistics(Integer.toUnsignedLong(stats.get(ValueLayout.JAVA_INT, 0)),
                Integer.toUnsignedLong(stats.get(ValueLayout.JAVA_INT, 4)));
        }
    }

    /**
     * Sends the first {@code length} bytes of {@code frame} as one Ethernet frame (destination MAC first, no FCS;
     * the kernel pads nothing on veth). Blocks while the socket's send buffer is full.
     *
     * @param frame  native memory holding the frame
     * @param length bytes to send, 1..frame size
     * @return {@code length}, or 0 when the kernel had no buffer for the frame (ENOBUFS/EAGAIN: back-pressure,
     *         try again)
     * @throws IllegalArgumentException when {@code frame} is on the heap, {@code length} is out of range, or the
     *                                  frame exceeds the interface MTU (EMSGSIZE)
     * @throws UncheckedIOException     for other failures (interface gone: ENXIO/ENETDOWN), naming the errno
     */
    public int send(MemorySegment frame, int length) {
        checkBuffer(frame, length, "frame");
        checkOpen();
        long sent = Libc.send(sendState, fd, frame, length, 0);
        if (sent >= 0) {
            return (int) sent;
        }
        int errno = Libc.errno(sendState);
        if (errno == Libc.ENOBUFS || errno == Libc.EAGAIN || errno == Libc.EINTR) {
            return 0;
        }
        if (errno == Libc.EMSGSIZE) {
            throw new IllegalArgumentException("a frame of " + length + " bytes is too long for " + interfaceName);
        }
        throw new UncheckedIOException(new IOException("send on raw socket " + interfaceName + " failed: "
            + Libc.errnoName(errno)));
    }

    /**
     * Receives the next frame that arrived on the interface into {@code buffer}.
     *
     * @param buffer       native memory for the frame
     * @param timeoutNanos how long to wait: negative waits forever, 0 only takes a frame already queued
     * @return bytes stored in {@code buffer} (a longer frame is cut to the buffer's size and counted in
     *         {@link #truncatedFrames()}), or -1 when no frame came within the timeout
     * @throws IllegalArgumentException when {@code buffer} is on the heap or empty
     * @throws UncheckedIOException     when the kernel reports an error on the socket, naming the errno
     */
    public int receive(MemorySegment buffer, long timeoutNanos) {
        checkBuffer(buffer, 1, "buffer");
        checkOpen();
        long capacity = Math.min(buffer.byteSize(), Integer.MAX_VALUE);
        long deadline = timeoutNanos > 0 ? System.nanoTime() + timeoutNanos : 0;
        while (true) {
            // Try first: when a frame is already queued this is the only system call.
            fromLength.set(ValueLayout.JAVA_INT, 0, (int) from.byteSize());
            long n = Libc.recvfrom(receiveState, fd, buffer, capacity, Libc.MSG_DONTWAIT | Libc.MSG_TRUNC,
                from, fromLength);
            if (n >= 0) {
                lastOutgoing = (from.get(ValueLayout.JAVA_BYTE, Libc.SLL_PKTTYPE) & 0xFF) == Libc.PACKET_OUTGOING;
                if (lastOutgoing && !keepsOutgoing) {
                    outgoingDropped++;
                    continue;
                }
                if (n > capacity) {
                    truncatedFrames++;
                    return (int) capacity;
                }
                return (int) n;
            }
            int errno = Libc.errno(receiveState);
            if (errno != Libc.EAGAIN && errno != Libc.EINTR) {
                throw new UncheckedIOException(new IOException("receive on raw socket " + interfaceName
                    + " failed: " + Libc.errnoName(errno)));
            }
            if (errno == Libc.EINTR) {
                continue;
            }
            if (!waitReadable(timeoutNanos, deadline)) {
                return -1;
            }
        }
    }

    /** @return whether the socket became readable before the deadline */
    private boolean waitReadable(long timeoutNanos, long deadline) {
        MemorySegment timeoutArg;
        if (timeoutNanos < 0) {
            timeoutArg = MemorySegment.NULL;
        } else {
            long remaining = timeoutNanos == 0 ? 0 : deadline - System.nanoTime();
            if (remaining < 0) {
                return false;
            }
            timeout.set(ValueLayout.JAVA_LONG, 0, remaining / 1_000_000_000L);
            timeout.set(ValueLayout.JAVA_LONG, 8, remaining % 1_000_000_000L);
            timeoutArg = timeout;
        }
        int ready = Libc.ppoll(receiveState, pollFd, 1, timeoutArg);
        if (ready > 0) {
            return true;
        }
        if (ready == 0) {
            return false;
        }
        int errno = Libc.errno(receiveState);
        if (errno == Libc.EINTR) {
            // A signal cut the wait short: the caller retries with the time left.
            return timeoutNanos != 0;
        }
        throw new UncheckedIOException(new IOException("poll on raw socket " + interfaceName + " failed: "
            + Libc.errnoName(errno)));
    }

    private static void checkBuffer(MemorySegment segment, int length, String what) {
        Objects.requireNonNull(segment, what);
        if (!segment.isNative()) {
            throw new IllegalArgumentException("the " + what + " must be native memory (the kernel reads it "
                + "directly); got a heap segment");
        }
        if (length <= 0 || length > segment.byteSize()) {
            throw new IllegalArgumentException(what + " length " + length + " must be in 1.." + segment.byteSize());
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("raw socket on " + interfaceName + " is closed");
        }
    }

    /** Closes the descriptor. Idempotent. Call it after the threads using the socket have stopped. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try (Arena arena = Arena.ofConfined()) {
            Libc.close(Libc.newCallState(arena), fd);
        }
    }

    @Override
    public String toString() {
        return "raw socket on " + interfaceName + " (index " + interfaceIndex + ", fd " + fd + ")";
    }
}
