package io.nicbridge.bridge.platform;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Kernel TCP over a {@link VethPair} (or any {@link KernelPath}, e.g. {@link LoopbackPath}): the reference the Pupa
 * paper compares with (section 3, "TCP with the NO_DELAY option"), one connection across the pair for a whole run,
 * driven through the C library's sockets so that the options Java has no name for ({@code SO_BUSY_POLL}) can be set.
 * <pre>
 *   netns A: client socket 10.X.Y.1:ephemeral  ==TCP==  netns B: accepted socket 10.X.Y.2:PORT
 *            TCP_NODELAY (and SO_BUSY_POLL)               TCP_NODELAY (and SO_BUSY_POLL)
 * </pre>
 * Each socket is created on its namespace's thread (that puts it there); afterwards any thread may use it. A wait is
 * either {@link Wait#BLOCK} (a blocking {@code recv}, woken by the kernel) or {@link Wait#SPIN} ({@code recv} with
 * {@code MSG_DONTWAIT} in a loop that spins, then yields - the user-level way, never sleeping). Messages are fixed-size
 * records on the byte stream; the receiver reads exactly that many bytes per message.
 *
 * <p>Buffers and call-state segments are allocated per run; the per-message loops allocate nothing.
 */
public final class TcpBaseline implements AutoCloseable {
    /** The server's port in namespace B (a fresh namespace: nothing else listens there). */
    static final int PORT = 5001;
    /** SO_BUSY_POLL asked for when busy polling: microseconds a read polls the device before sleeping. */
    public static final int BUSY_POLL_MICROS = 50;
    /** Spins with {@link Thread#onSpinWait()} before a spinning wait yields on every further try. */
    static final int SPINS_BEFORE_YIELD = 64;

    /** How a receiver waits for bytes. */
    public enum Wait { BLOCK, SPIN }

    private final KernelPath pair;
    private final int client;
    private final int server;
    private final boolean busyPoll;
    private boolean closed;

    private TcpBaseline(KernelPath pair, int client, int server, boolean busyPoll) {
        this.pair = pair;
        this.client = client;
        this.server = server;
        this.busyPoll = busyPoll;
    }

    /**
     * Connects a client in namespace A to a server in namespace B, both with TCP_NODELAY, and with
     * {@code SO_BUSY_POLL} = {@link #BUSY_POLL_MICROS} when {@code busyPoll}.
     *
     * @throws IOException when a socket call fails (the call and errno named)
     */
    public static TcpBaseline open(KernelPath pair, boolean busyPoll) throws IOException {
        return open(pair, busyPoll, 0);
    }

    /**
     * {@link #open(KernelPath, boolean)} with both sockets' {@code SO_SNDBUF} and {@code SO_RCVBUF} set to
     * {@code socketBuffer} bytes before the connection is made (the listener's are inherited by the accepted socket;
     * the receive buffer set before the handshake bounds the window scale offered), or the kernel's defaults (and
     * autotuning) when 0. Linux doubles the value for its bookkeeping and advertises a share of the doubled buffer
     * (net.ipv4.tcp_adv_win_scale), so the window is about {@code socketBuffer}, with autotuning off for the socket:
     * how the U-Net paper's Figure 8 sets the kernel's window.
     *
     * @param socketBuffer 0, or 1024 .. 64 MiB
     * @throws IOException when a socket call fails (the call and errno named)
     */
    public static TcpBaseline open(KernelPath pair, boolean busyPoll, int socketBuffer) throws IOException {
        Objects.requireNonNull(pair, "pair");
        if (socketBuffer != 0 && (socketBuffer < 1024 || socketBuffer > (64 << 20))) {
            throw new IllegalArgumentException("socketBuffer must be 0 (kernel default) or 1024..64 MiB, was "
                + socketBuffer);
        }
        if (!pair.hasIpv4()) {
            throw new IllegalArgumentException(pair + " has no IPv4 addresses; build it with ipv4(true)");
        }
        int listener = -1;
        int client = -1;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(a);
            listener = socketIn(pair.namespaceB());
            one(state, listener, Libc.SOL_SOCKET, Libc.SO_REUSEADDR, 1, "SO_REUSEADDR");
            buffers(state, listener, socketBuffer);
            MemorySegment addrB = sockaddr(a, pair.addressB().getAddress(), PORT);
            check(state, Libc.bind(state, listener, addrB, (int) addrB.byteSize()), "bind");
            check(state, Libc.listen(state, listener, 1), "listen");
            client = socketIn(pair.namespaceA());
            buffers(state, client, socketBuffer);
            int l = listener;
            AtomicReference<Object> accepted = new AtomicReference<>();
            Thread acceptor = Thread.ofPlatform().name("tcp-accept").start(() -> {
                try (Arena t = Arena.ofConfined()) {
                    MemorySegment st = Libc.newCallState(t);
                    int fd = Libc.accept(st, l);
                    accepted.set(fd >= 0 ? (Object) fd : new IOException("accept: " + Libc.errnoName(Libc.errno(st))));
                }
            });
            check(state, Libc.connect(state, client, addrB, (int) addrB.byteSize()), "connect");
            acceptor.join(5_000);
            Object r = accepted.get();
            if (!(r instanceof Integer server)) {
                throw r instanceof IOException e ? e : new IOException("accept did not return within 5 s");
            }
            for (int fd : new int[] {client, server}) {
                one(state, fd, Libc.IPPROTO_TCP, Libc.TCP_NODELAY, 1, "TCP_NODELAY");
                if (busyPoll) {
                    one(state, fd, Libc.SOL_SOCKET, Libc.SO_BUSY_POLL, BUSY_POLL_MICROS, "SO_BUSY_POLL");
                }
            }
            Libc.close(state, listener);
            return new TcpBaseline(pair, client, server, busyPoll);
        } catch (IOException | RuntimeException e) {
            closeQuietly(listener);
            closeQuietly(client);
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(listener);
            closeQuietly(client);
            throw new IOException("interrupted while connecting", e);
        }
    }

    public boolean busyPoll() {
        return busyPoll;
    }

    /**
     * Turns TCP_NODELAY on (as opened: a segment per {@code send()} when nothing is in flight) or off (Nagle's
     * algorithm: small writes wait for the ACK of what is in flight and go out coalesced, as a bulk sender would leave
     * it) on both sockets. Setup-time.
     *
     * @throws IOException naming the call and errno when the kernel refuses
     */
    public void noDelay(boolean on) throws IOException {
        checkOpen();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(a);
            for (int fd : new int[] {client, server}) {
                one(state, fd, Libc.IPPROTO_TCP, Libc.TCP_NODELAY, on ? 1 : 0, "TCP_NODELAY");
            }
        }
    }

    /**
     * Ping-pong of {@code size}-byte messages: the calling thread (pinned to {@code clientCpu}, or not when -1) sends
     * one and waits for its echo from a thread pinned to {@code serverCpu}; records the RTT of the last {@code count}
     * of {@code warmup + count} round trips, checking every echo byte for byte.
     *
     * @throws IOException when a call fails or an echo differs
     */
    public void roundTrips(int size, int warmup, int count, Wait wait, int clientCpu, int serverCpu, Histogram rtt)
        throws IOException {
        checkOpen();
        if (size < 1 || warmup < 0 || count < 1) {
            throw new IllegalArgumentException("size must be >= 1, warmup >= 0 and count >= 1, were " + size + ", "
                + warmup + ", " + count);
        }
        Objects.requireNonNull(wait, "wait");
        int total = warmup + count;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread echo = Thread.ofPlatform().name("tcp-echo").unstarted(() -> {
            try (Arena t = Arena.ofConfined()) {
                pin(serverCpu);
                MemorySegment st = Libc.newCallState(t);
                MemorySegment buf = t.allocate(size, 64);
                for (int i = 0; i < total; i++) {
                    receive(st, server, buf, size, wait);
                    send(st, server, buf, size);
                }
            } catch (Throwable e) {
                failure.set(e);
                shutdown(server); // the client's recv then ends instead of waiting for an echo that cannot come
            }
        });
        echo.start();
        try (Arena t = Arena.ofConfined()) {
            pin(clientCpu);
            MemorySegment st = Libc.newCallState(t);
            MemorySegment out = t.allocate(size, 64);
            MemorySegment in = t.allocate(size, 64);
            for (int i = 0; i < total; i++) {
                out.fill((byte) i);
                out.set(ValueLayout.JAVA_BYTE, 0, (byte) (i * 7 + 1));
                long start = System.nanoTime();
                send(st, client, out, size);
                receive(st, client, in, size, wait);
                long elapsed = System.nanoTime() - start;
                if (in.mismatch(out) != -1) {
                    throw new IOException("round trip " + i + ": the echo differs from the " + size + " bytes sent");
                }
                if (i >= warmup) {
                    rtt.recordValue(Math.min(elapsed, rtt.getHighestTrackableValue()));
                }
            }
        } catch (IOException e) {
            join(echo, failure); // the echo's failure, if any, is the cause to report
            throw e;
        } finally {
            unpin(clientCpu);
            join(echo, failure);
        }
    }

    /**
     * One-way stream: {@code count} messages of {@code size} bytes from the client to the server as fast as the
     * sender can write them; the receiving thread reads exactly {@code count * size} bytes.
     *
     * @return nanoseconds from the first byte to the last byte read by the receiver
     * @throws IOException when a call fails or the bytes arrive damaged (every message carries its number)
     */
    public long stream(int size, long count) throws IOException {
        return stream(size, count, Wait.BLOCK);
    }

    /**
     * {@link #stream(int, long)} with the receiver waiting the given way: {@link Wait#BLOCK} in {@code recv}, or
     * {@link Wait#SPIN} with non-blocking {@code recv} calls (and {@code SO_BUSY_POLL} when this baseline was opened
     * with it).
     */
    public long stream(int size, long count, Wait wait) throws IOException {
        return stream(size, count, wait, -1, -1);
    }

    /**
     * {@link #stream(int, long, Wait)} with the sending (calling) thread pinned to {@code clientCpu} and the receiving
     * thread to {@code serverCpu} (-1: not pinned), e.g. the CPUs a {@link ReceiveSteering} sends each end's receive
     * processing to. The calling thread is unpinned again at the end.
     */
    public long stream(int size, long count, Wait wait, int clientCpu, int serverCpu) throws IOException {
        checkOpen();
        Objects.requireNonNull(wait, "wait");
        if (size < 8 || count < 1) {
            throw new IllegalArgumentException("size must be >= 8 and count >= 1, were " + size + ", " + count);
        }
        long[] window = new long[2];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread sink = Thread.ofPlatform().name("tcp-sink").unstarted(() -> {
            try (Arena t = Arena.ofConfined()) {
                pin(serverCpu);
                MemorySegment st = Libc.newCallState(t);
                MemorySegment buf = t.allocate(size, 64);
                for (long i = 0; i < count; i++) {
                    receive(st, server, buf, size, wait);
                    long now = System.nanoTime();
                    if (i == 0) {
                        window[0] = now;
                    }
                    window[1] = now;
                    if (buf.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != i) {
                        throw new IOException("message " + i + " arrived as #"
                            + buf.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
                    }
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        sink.start();
        try (Arena t = Arena.ofConfined()) {
            pin(clientCpu);
            MemorySegment st = Libc.newCallState(t);
            MemorySegment out = t.allocate(size, 64);
            for (long i = 0; i < count; i++) {
                out.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                send(st, client, out, size);
            }
        } finally {
            unpin(clientCpu);
            join(sink, failure);
        }
        return window[1] - window[0];
    }

    private static void receive(MemorySegment st, int fd, MemorySegment buf, int size, Wait wait) throws IOException {
        int got = 0;
        int idle = 0;
        int flags = wait == Wait.SPIN ? Libc.MSG_DONTWAIT : 0;
        while (got < size) {
            long n = Libc.recvfrom(st, fd, buf.asSlice(got), size - got, flags, MemorySegment.NULL, MemorySegment.NULL);
            if (n > 0) {
                got += (int) n;
                idle = 0;
            } else if (n == 0) {
                throw new IOException("the peer closed the connection");
            } else {
                int errno = Libc.errno(st);
                if (errno != Libc.EAGAIN && errno != Libc.EINTR) {
                    throw new IOException("recv: " + Libc.errnoName(errno));
                }
                if (++idle < SPINS_BEFORE_YIELD) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
        }
    }

    private static void send(MemorySegment st, int fd, MemorySegment buf, int size) throws IOException {
        int sent = 0;
        while (sent < size) {
            long n = Libc.send(st, fd, buf.asSlice(sent), size - sent, Libc.MSG_NOSIGNAL);
            if (n < 0) {
                int errno = Libc.errno(st);
                if (errno != Libc.EINTR && errno != Libc.EAGAIN) {
                    throw new IOException("send: " + Libc.errnoName(errno));
                }
            } else {
                sent += (int) n;
            }
        }
    }

    /** shutdown(2) both directions: the peer's recv returns 0 at once. */
    private static void shutdown(int fd) {
        try (Arena a = Arena.ofConfined()) {
            Libc.shutdown(Libc.newCallState(a), fd);
        }
    }

    private static void pin(int cpu) throws IOException {
        if (cpu >= 0) {
            CpuAffinity.pinCurrentThread(cpu);
        }
    }

    private static void unpin(int cpu) throws IOException {
        if (cpu >= 0) {
            CpuAffinity.unpinCurrentThread();
        }
    }

    private static void join(Thread t, AtomicReference<Throwable> failure) throws IOException {
        try {
            t.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for " + t.getName(), e);
        }
        if (t.isAlive()) {
            throw new IOException(t.getName() + " did not finish within 30 s");
        }
        Throwable f = failure.get();
        if (f != null) {
            throw f instanceof IOException e ? e : new IOException(t.getName() + " failed", f);
        }
    }

    private static int socketIn(NetworkNamespace ns) throws IOException {
        try {
            return ns.call(() -> {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment st = Libc.newCallState(a);
                    int fd = Libc.socket(st, Libc.AF_INET, Libc.SOCK_STREAM | Libc.SOCK_CLOEXEC, 0);
                    if (fd < 0) {
                        throw new IOException("socket(AF_INET, SOCK_STREAM) in " + ns.name() + ": "
                            + Libc.errnoName(Libc.errno(st)));
                    }
                    return fd;
                }
            });
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("cannot open a TCP socket in " + ns, e);
        }
    }

    /**
     * struct sockaddr_in, 16 bytes.
     * <pre>
     *   0 sin_family (u16, host order) | 2 sin_port (u16, network order) | 4 sin_addr (4 bytes) | 8 zero (8 bytes)
     * </pre>
     */
    private static MemorySegment sockaddr(Arena a, byte[] address, int port) {
        MemorySegment s = a.allocate(16, 4);
        s.set(ValueLayout.JAVA_SHORT, 0, (short) Libc.AF_INET);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) port);
        MemorySegment.copy(address, 0, s, ValueLayout.JAVA_BYTE, 4, 4);
        return s;
    }

    private static void buffers(MemorySegment state, int fd, int bytes) throws IOException {
        if (bytes > 0) {
            one(state, fd, Libc.SOL_SOCKET, Libc.SO_SNDBUF, bytes, "SO_SNDBUF");
            one(state, fd, Libc.SOL_SOCKET, Libc.SO_RCVBUF, bytes, "SO_RCVBUF");
        }
    }

    private static void one(MemorySegment state, int fd, int level, int option, int value, String name)
        throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ValueLayout.JAVA_INT);
            v.set(ValueLayout.JAVA_INT, 0, value);
            check(state, Libc.setsockopt(state, fd, level, option, v, 4), "setsockopt(" + name + ")");
        }
    }

    private static void check(MemorySegment state, int result, String call) throws IOException {
        if (result < 0) {
            throw new IOException(call + ": " + Libc.errnoName(Libc.errno(state)));
        }
    }

    private static void closeQuietly(int fd) {
        if (fd >= 0) {
            try (Arena a = Arena.ofConfined()) {
                Libc.close(Libc.newCallState(a), fd);
            }
        }
    }

    private void checkOpen() {
        if (closed || pair.isClosed()) {
            throw new IllegalStateException("the TCP baseline over " + pair + " is closed");
        }
    }

    /** Closes both sockets. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    @Override
    public String toString() {
        return "kernel TCP over " + pair + " (TCP_NODELAY" + (busyPoll ? ", SO_BUSY_POLL " + BUSY_POLL_MICROS + " us"
            : "") + ")";
    }
}
