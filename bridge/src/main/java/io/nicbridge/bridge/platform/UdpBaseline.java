package io.nicbridge.bridge.platform;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Kernel UDP over a {@link VethPair} (or any {@link KernelPath}, e.g. {@link LoopbackPath}): the reference the
 * native shim's ping-pong is compared with, measured over the same link with plain {@link DatagramChannel}s.
 * <pre>
 *   netns A (calling thread drives)              netns B (echo / counting thread)
 *   client DatagramChannel 10.X.Y.1:p  --UDP-->  server DatagramChannel 10.X.Y.2:q
 *                                      &lt;--UDP--  (echo only in the round-trip test)
 * </pre>
 * Each channel is created on its namespace's thread (that is what puts the socket in the namespace) and both are
 * connected to each other, so the loops use {@code read}/{@code write} on direct buffers: blocking system calls with
 * no allocation per datagram, nothing between the measurement and the kernel but the JDK's thin NIO layer.
 *
 * <p>The payload must fit one frame (MTU - 28 bytes of IPv4 and UDP headers), so a datagram is a frame and the
 * frame rate is comparable with a raw-frame path.
 */
public final class UdpBaseline {
    /** IPv4 header (20) + UDP header (8). */
    public static final int IPV4_UDP_HEADERS = 28;
    /** A round trip slower than this is taken as a lost datagram: the measurement fails rather than hangs. */
    private static final long ROUND_TRIP_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Largest RTT the histogram tracks; slower round trips are recorded as this value. */
    private static final long HISTOGRAM_MAX_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How long the receiver must stay quiet after the sender stopped before the count is final. */
    private static final long DRAIN_QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long DRAIN_MAX_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Asked-for receive buffer of the counting server; the kernel caps it at net.core.rmem_max. */
    private static final int RECEIVE_BUFFER_BYTES = 4 << 20;
    /** First payload byte: frames of the timed run, as opposed to the primers that resolve ARP first. */
    private static final byte MEASURED = 1;
    private static final byte PRIMER = 0;

    private UdpBaseline() {
    }

    /**
     * Ping-pong: the client in namespace A sends {@code payloadBytes}, the server in namespace B echoes them, the
     * client times each round trip with {@link System#nanoTime()}. The first {@code warmup} round trips (ARP, JIT,
     * caches) are not recorded.
     *
     * @return the RTT in nanoseconds of exactly {@code roundTrips} round trips
     * @throws IOException when a channel fails, an echo differs from what was sent, or a round trip takes longer
     *                     than 2 s (a lost datagram)
     */
    public static Histogram roundTrip(KernelPath pair, int payloadBytes, int warmup, int roundTrips)
        throws IOException {
        return roundTrip(pair, payloadBytes, warmup, roundTrips, false);
    }

    /**
     * {@link #roundTrip(KernelPath, int, int, int)} with a choice of how both ends wait: blocking in {@code read}
     * ({@code spin} false), or busy polling ({@code spin} true): both channels non-blocking, each end calling
     * {@code read} until a datagram is there, with {@link Thread#onSpinWait()} between empty reads and a
     * {@link Thread#yield()} after {@value #SPINS_BEFORE_YIELD} of them - a user-level poller's wait, on the kernel's
     * socket.
     */
    public static Histogram roundTrip(KernelPath pair, int payloadBytes, int warmup, int roundTrips, boolean spin)
        throws IOException {
        return roundTrip(pair, payloadBytes, warmup, roundTrips, spin, NOT_PINNED, NOT_PINNED);
    }

    /** A CPU argument of {@link #roundTrip(KernelPath, int, int, int, boolean, int, int)}: the thread is not pinned. */
    public static final int NOT_PINNED = -1;

    /**
     * {@link #roundTrip(KernelPath, int, int, int, boolean)} with the client (the calling thread) and the echo thread
     * each pinned to one CPU for the round trips ({@link CpuAffinity}; the caller is unpinned again afterwards), as a
     * pinned user-level ping-pong is measured beside it.
     *
     * @param clientCpu the calling thread's CPU, or {@link #NOT_PINNED}
     * @param echoCpu   the echo thread's CPU, or {@link #NOT_PINNED}
     * @throws IllegalArgumentException for a CPU outside {@code [0, CpuAffinity.cpus())}
     */
    public static Histogram roundTrip(KernelPath pair, int payloadBytes, int warmup, int roundTrips, boolean spin,
                                      int clientCpu, int echoCpu) throws IOException {
        checkPayload(pair, payloadBytes);
        checkCpu("clientCpu", clientCpu);
        checkCpu("echoCpu", echoCpu);
        if (warmup < 0 || roundTrips <= 0) {
            throw new IllegalArgumentException("warmup must be >= 0 and roundTrips > 0, got " + warmup + " and "
                + roundTrips);
        }
        Histogram rtt = new Histogram(HISTOGRAM_MAX_NANOS, 3);
        try (Endpoints ends = Endpoints.open(pair)) {
            if (spin) {
                ends.client.configureBlocking(false);
                ends.server.configureBlocking(false);
            }
            Echo echo = new Echo(ends.server, payloadBytes, echoCpu);
            Thread echoThread = pair.namespaceB().newThread("udp-echo-" + pair.interfaceB(), echo);
            echoThread.start();
            Watchdog watchdog = new Watchdog(ends.client);
            Thread watchdogThread = Thread.ofPlatform().daemon(true).name("udp-rtt-watchdog").start(watchdog);
            ByteBuffer out = ByteBuffer.allocateDirect(payloadBytes);
            ByteBuffer in = ByteBuffer.allocateDirect(payloadBytes + 1);
            if (clientCpu != NOT_PINNED) {
                CpuAffinity.pinCurrentThread(clientCpu);
            }
            try {
                int total = warmup + roundTrips;
                for (int i = 0; i < total; i++) {
                    out.clear();
                    stamp(out, i);
                    long start = System.nanoTime();
                    ends.client.write(out);
                    in.clear();
                    int n = read(ends.client, in);
                    long elapsed = System.nanoTime() - start;
                    watchdog.progress = i + 1;
                    if (n != payloadBytes || !in.flip().equals(out.flip())) {
                        throw new IOException("round trip " + i + ": echo of " + n + " bytes differs from the "
                            + payloadBytes + " bytes sent");
                    }
                    if (i >= warmup) {
                        rtt.recordValue(Math.min(elapsed, HISTOGRAM_MAX_NANOS));
                    }
                }
            } catch (ClosedChannelException e) {
                throw new IOException("no echo within " + ROUND_TRIP_TIMEOUT_NANOS / 1_000_000 + " ms after round trip "
                    + watchdog.progress + ": a datagram was lost", e);
            } finally {
                watchdog.stop();
                watchdogThread.interrupt();
                if (clientCpu != NOT_PINNED) {
                    CpuAffinity.unpinCurrentThread();
                }
            }
            ends.close();
            join(echoThread);
            if (echo.failure != null) {
                throw new IOException("echo server in " + pair.namespaceB().name() + " failed", echo.failure);
            }
        }
        return rtt;
    }

    /** Empty non-blocking reads spun with {@link Thread#onSpinWait()} before a busy-polling reader yields. */
    public static final int SPINS_BEFORE_YIELD = 64;

    private static void checkCpu(String name, int cpu) {
        if (cpu != NOT_PINNED && (cpu < 0 || cpu >= CpuAffinity.cpus())) {
            throw new IllegalArgumentException(name + " must be NOT_PINNED or in [0, " + CpuAffinity.cpus()
                + "), was " + cpu);
        }
    }

    /** One datagram: a blocking channel's read, or a non-blocking one's repeated with a backing-off spin. */
    private static int read(DatagramChannel channel, ByteBuffer in) throws IOException {
        int n = channel.read(in);
        for (int idle = 0; n == 0 && !channel.isBlocking(); idle++) {
            if (idle < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
            n = channel.read(in);
        }
        return n;
    }

    /** Fills the payload with a pattern that changes per round trip, so a stale echo would not match. */
    private static void stamp(ByteBuffer out, int sequence) {
        for (int i = 0; i < out.limit(); i++) {
            out.put(i, (byte) (sequence + i));
        }
        if (out.limit() >= Integer.BYTES) {
            out.putInt(0, sequence);
        }
    }

    /**
     * What a one-way flood achieved.
     *
     * @param payloadBytes        UDP payload per datagram
     * @param sent                datagrams the client handed to the kernel in the timed run
     * @param received            of those, datagrams the server read (the rest were dropped by the kernel)
     * @param sendNanos           how long the client sent
     * @param receiveWindowNanos  from the first to the last datagram the server read
     */
    public record FrameRate(int payloadBytes, long sent, long received, long sendNanos, long receiveWindowNanos) {
        /** @return datagrams (= frames) per second read by the receiver over its receive window */
        public double receivedPerSecond() {
            return receiveWindowNanos <= 0 ? 0 : received * 1e9 / receiveWindowNanos;
        }

        /** @return datagrams per second handed to the kernel by the sender */
        public double sentPerSecond() {
            return sendNanos <= 0 ? 0 : sent * 1e9 / sendNanos;
        }
    }

    /**
     * One-way frame rate: the client in namespace A sends {@code payloadBytes} datagrams as fast as it can for
     * {@code duration}; the server in namespace B counts what it reads. Before the timed run one primer datagram
     * (repeated until it arrives) resolves ARP, so the kernel does not drop the first frames while it waits.
     *
     * @throws IOException when a channel fails or no primer gets through within 2 s
     */
    public static FrameRate frameRate(KernelPath pair, int payloadBytes, Duration duration) throws IOException {
        return frameRate(pair, payloadBytes, duration, NOT_PINNED, NOT_PINNED, false);
    }

    /**
     * {@link #frameRate(KernelPath, int, Duration)} with the sending (calling) thread and the counting thread each
     * pinned to one CPU for the flood ({@link CpuAffinity}; the caller is unpinned again afterwards). Unpinned on a
     * two-CPU machine, the scheduler's wake-affine placement puts the woken counter on the sender's CPU most of the
     * time, so the two share one CPU; a user-level flood measured beside it pinned the same way gets the same machine.
     *
     * <p>With {@code spin} the counter busy-polls (non-blocking reads, {@link Thread#onSpinWait()}, yielding after
     * {@value #SPINS_BEFORE_YIELD} empty ones, as {@link #roundTrip}'s busy mode) instead of sleeping in a blocking
     * read: a sleeping reader costs the sender's CPU a wake-up (the socket's wait queue taken, the reader woken) for
     * the datagrams that find it asleep, a polling one costs it nothing.
     *
     * @param senderCpu  the calling thread's CPU, or {@link #NOT_PINNED}
     * @param counterCpu the counting thread's CPU, or {@link #NOT_PINNED}
     * @param spin       the counter busy-polls instead of blocking
     * @throws IllegalArgumentException for a CPU outside {@code [0, CpuAffinity.cpus())}
     */
    public static FrameRate frameRate(KernelPath pair, int payloadBytes, Duration duration, int senderCpu,
                                      int counterCpu, boolean spin) throws IOException {
        checkPayload(pair, payloadBytes);
        checkCpu("senderCpu", senderCpu);
        checkCpu("counterCpu", counterCpu);
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be positive, got " + duration);
        }
        try (Endpoints ends = Endpoints.open(pair)) {
            ends.server.setOption(StandardSocketOptions.SO_RCVBUF, RECEIVE_BUFFER_BYTES);
            if (spin) {
                ends.server.configureBlocking(false);
            }
            Counter counter = new Counter(ends.server, payloadBytes, counterCpu);
            Thread counterThread = pair.namespaceB().newThread("udp-count-" + pair.interfaceB(), counter);
            counterThread.start();
            ByteBuffer out = ByteBuffer.allocateDirect(payloadBytes);
            prime(ends.client, out, counter);

            out.put(0, MEASURED);
            long sendNanos = TimeUnit.NANOSECONDS.convert(duration);
            if (senderCpu != NOT_PINNED) {
                CpuAffinity.pinCurrentThread(senderCpu);
            }
            long start = System.nanoTime();
            long deadline = start + sendNanos;
            long sent = 0;
            long now;
            try {
                do {
                    // Check the clock every 64 datagrams: nanoTime would otherwise be a visible part of the loop.
                    for (int i = 0; i < 64; i++) {
                        out.clear();
                        ends.client.write(out);
                    }
                    sent += 64;
                    now = System.nanoTime();
                } while (now < deadline);
            } finally {
                if (senderCpu != NOT_PINNED) {
                    CpuAffinity.unpinCurrentThread();
                }
            }
            long sentFor = now - start;

            drain(counter);
            ends.close();
            join(counterThread);
            if (counter.failure != null) {
                throw new IOException("counting server in " + pair.namespaceB().name() + " failed", counter.failure);
            }
            return new FrameRate(payloadBytes, sent, counter.measured, sentFor,
                counter.lastNanos - counter.firstNanos);
        }
    }

    /** Sends primers until one is counted: after that ARP is resolved and the path is warm. */
    private static void prime(DatagramChannel client, ByteBuffer out, Counter counter) throws IOException {
        long deadline = System.nanoTime() + ROUND_TRIP_TIMEOUT_NANOS;
        out.put(0, PRIMER);
        while (counter.primers == 0) {
            if (System.nanoTime() > deadline) {
                throw new IOException("no datagram reached the server within "
                    + ROUND_TRIP_TIMEOUT_NANOS / 1_000_000 + " ms");
            }
            out.clear();
            client.write(out);
            sleepMillis(1);
        }
    }

    /** Waits until the receiver has read nothing new for a while: what the kernel still had queued is counted. */
    private static void drain(Counter counter) {
        long giveUp = System.nanoTime() + DRAIN_MAX_NANOS;
        long seen = counter.measured;
        long quietSince = System.nanoTime();
        while (System.nanoTime() < giveUp) {
            sleepMillis(5);
            long now = counter.measured;
            if (now != seen) {
                seen = now;
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince >= DRAIN_QUIET_NANOS) {
                return;
            }
        }
    }

    private static void checkPayload(KernelPath pair, int payloadBytes) {
        Objects.requireNonNull(pair, "pair");
        int max = pair.mtu() - IPV4_UDP_HEADERS;
        if (payloadBytes < 1 || payloadBytes > max) {
            throw new IllegalArgumentException("UDP payload must be 1.." + max + " bytes to fit one frame on MTU "
                + pair.mtu() + ", got " + payloadBytes);
        }
        if (!pair.hasIpv4()) {
            throw new IllegalArgumentException(pair + " has no IPv4 addresses; build it with ipv4(true)");
        }
        if (pair.isClosed()) {
            throw new IllegalStateException(pair + " is closed");
        }
    }

    private static void join(Thread thread) throws IOException {
        try {
            thread.join(TimeUnit.NANOSECONDS.toMillis(DRAIN_MAX_NANOS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for " + thread.getName(), e);
        }
        if (thread.isAlive()) {
            throw new IOException(thread.getName() + " did not stop after its channel was closed");
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The two connected channels, each created on its namespace's thread. */
    private static final class Endpoints implements AutoCloseable {
        final DatagramChannel client;
        final DatagramChannel server;

        private Endpoints(DatagramChannel client, DatagramChannel server) {
            this.client = client;
            this.server = server;
        }

        static Endpoints open(KernelPath pair) throws IOException {
            DatagramChannel client = null;
            DatagramChannel server = null;
            try {
                client = openIn(pair.namespaceA(), new InetSocketAddress(pair.addressA(), 0));
                server = openIn(pair.namespaceB(), new InetSocketAddress(pair.addressB(), 0));
                // Connected both ways: read/write need no address objects, and stray datagrams are filtered out.
                server.connect(client.getLocalAddress());
                client.connect(server.getLocalAddress());
                return new Endpoints(client, server);
            } catch (IOException | RuntimeException e) {
                closeQuietly(client);
                closeQuietly(server);
                throw e;
            }
        }

        private static DatagramChannel openIn(NetworkNamespace ns, InetSocketAddress local) throws IOException {
            try {
                return ns.call(() -> DatagramChannel.open(StandardProtocolFamily.INET).bind(local));
            } catch (IOException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException("cannot open a UDP channel on " + local + " in " + ns, e);
            }
        }

        private static void closeQuietly(DatagramChannel channel) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // Closing a datagram channel has nothing to flush; a failure here changes nothing.
                }
            }
        }

        /** Client first: the server must not answer into a closed port (ICMP unreachable) while stopping. */
        @Override
        public void close() {
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    /** Echo loop: read a datagram, write it back, until the channel is closed. */
    private static final class Echo implements Runnable {
        private final DatagramChannel channel;
        private final ByteBuffer buffer;
        private final int cpu;
        volatile IOException failure;

        Echo(DatagramChannel channel, int payloadBytes, int cpu) {
            this.channel = channel;
            this.buffer = ByteBuffer.allocateDirect(payloadBytes + 1);
            this.cpu = cpu;
        }

        @Override
        public void run() {
            try {
                if (cpu != NOT_PINNED) {
                    CpuAffinity.pinCurrentThread(cpu); // a thread of its own: it ends with the round trips
                }
                while (true) {
                    buffer.clear();
                    read(channel, buffer);
                    buffer.flip();
                    channel.write(buffer);
                }
            } catch (ClosedChannelException stopped) {
                // close() from the measuring thread: the normal end.
            } catch (IOException e) {
                failure = e;
            }
        }
    }

    /** Counting loop: read datagrams and count them, timing the first and last of the measured run. */
    private static final class Counter implements Runnable {
        private final DatagramChannel channel;
        private final ByteBuffer buffer;
        /** Written by the counting thread only; volatile so the measuring thread can watch the drain. */
        volatile long measured;
        volatile long primers;
        volatile long firstNanos;
        volatile long lastNanos;
        volatile IOException failure;

        private final int cpu;

        Counter(DatagramChannel channel, int payloadBytes, int cpu) {
            this.channel = channel;
            this.buffer = ByteBuffer.allocateDirect(payloadBytes + 1);
            this.cpu = cpu;
        }

        @Override
        public void run() {
            long count = 0;
            try {
                if (cpu != NOT_PINNED) {
                    CpuAffinity.pinCurrentThread(cpu); // a thread of its own: it ends with the flood
                }
                while (true) {
                    buffer.clear();
                    read(channel, buffer); // blocking, or busy-polling when the channel is non-blocking
                    long now = System.nanoTime();
                    if (buffer.get(0) == PRIMER) {
                        primers++;
                        continue;
                    }
                    if (count == 0) {
                        firstNanos = now;
                    }
                    lastNanos = now;
                    measured = ++count;
                }
            } catch (ClosedChannelException stopped) {
                // close() after the drain: the normal end.
            } catch (IOException e) {
                failure = e;
            }
        }
    }

    /**
     * Closes the client channel when a round trip takes longer than the timeout, so a lost datagram ends the
     * blocking read with an exception instead of hanging the measurement.
     */
    private static final class Watchdog implements Runnable {
        private final DatagramChannel client;
        volatile long progress;
        private volatile boolean stopped;

        Watchdog(DatagramChannel client) {
            this.client = client;
        }

        void stop() {
            stopped = true;
        }

        @Override
        public void run() {
            long seen = -1;
            long since = System.nanoTime();
            while (!stopped) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
                long now = progress;
                if (now != seen) {
                    seen = now;
                    since = System.nanoTime();
                } else if (System.nanoTime() - since > ROUND_TRIP_TIMEOUT_NANOS && !stopped) {
                    try {
                        client.close();
                    } catch (IOException ignored) {
                        // Closing is the whole point; the reader reports the loss.
                    }
                    return;
                }
            }
        }
    }

    /**
     * Measures kernel UDP on a fresh veth pair and prints RTT percentiles and the one-way frame rate.
     * Arguments: payload sizes in bytes (default 64). Needs root.
     * <pre>
     *   java --enable-native-access=ALL-UNNAMED -cp ... io.nicbridge.bridge.platform.UdpBaseline 64 512 1472
     * </pre>
     */
    public static void main(String[] args) throws IOException {
        var availability = VethPair.availability();
        if (!availability.available()) {
            System.err.println("cannot measure: " + availability.reason());
            System.exit(2);
        }
        int[] sizes = args.length == 0 ? new int[] {64} : java.util.Arrays.stream(args).mapToInt(Integer::parseInt)
            .toArray();
        try (VethPair pair = VethPair.create()) {
            System.out.println("kernel UDP over " + pair);
            System.out.printf("%8s %10s %10s %10s %10s %12s %12s %12s%n", "payload", "rtt p50", "rtt p99",
                "rtt mean", "rtt max", "sent", "received", "recv fr/s");
            for (int size : sizes) {
                Histogram h = roundTrip(pair, size, 20_000, 100_000);
                FrameRate rate = frameRate(pair, size, Duration.ofSeconds(2));
                System.out.printf("%8d %8.2fus %8.2fus %8.2fus %8.2fus %12d %12d %12.0f%n", size,
                    h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getMean() / 1e3,
                    h.getMaxValue() / 1e3, rate.sent(), rate.received(), rate.receivedPerSecond());
            }
        }
    }
}
