package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.CpuPacedTransmits;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * The kernel's emulation of U-Net endpoints (paper 3.5, Figure 2b): many {@link EmulatedEndpoint}s - each with the
 * regular {@link Endpoint} API, its own segment and queues - multiplexed over ONE real card endpoint, for processes
 * that do not need (or cannot get) an endpoint of their own. The kernel owns the real endpoint: nothing else may send
 * or receive on it.
 *
 * <h2>Tags and channels</h2>
 * Each message on the real endpoint starts with a 4-byte big-endian tag word naming the destination and source
 * emulated endpoints; the payload follows:
 * <pre>
 *   byte 0      1      2      3      4 ..
 *       +-------------+-------------+---------------------+
 *       | dst tag     | src tag     | payload             |
 *       +-------------+-------------+---------------------+
 * </pre>
 * Only the kernel writes it. An emulated channel, like a regular one, is opened by the kernel alone
 * ({@link #openChannel}): emulated channel c of endpoint E goes out on a real channel to one remote emulated
 * endpoint's tag. A send on a channel the kernel did not open for the sender completes with
 * {@code TX_STATUS_BAD_CHANNEL} and sends nothing; a message whose source (real channel, source tag) matches no open
 * channel of its destination is dropped and counted ({@link #unknownChannelDrops()}), as the card drops an unknown
 * VCI: a process can neither reach nor be reached outside the channels the kernel set up.
 *
 * <h2>The kernel's work, and what it costs</h2>
 * <ul>
 *   <li>Send ({@link EmulatedEndpoint#send}): a system call. The kernel looks the channel up, checks bounds and
 *       length, copies tag + payload into one of its {@code SQ_LEN} staging buffers in the real endpoint's segment
 *       and posts it. A staging buffer is reused once the card completed it (completions come in order: a FIFO).</li>
 *   <li>Receive: on the real endpoint's signal (an upcall this multiplexer installs: the kernel's interrupt path)
 *       or when a process waits in the kernel ({@link EmulatedEndpoint#await}), {@link #pump()} reads each message's
 *       tag, finds the endpoint and its channel, and copies the payload into that endpoint's receive queue.</li>
 * </ul>
 * Charged to the host's CPU ({@link #hostCpu}; the package rules of {@link io.nicbridge.bridge.cost}): per system
 * call one {@link CostItem#INTERRUPT} - a trap is a kernel entry and exit, priced as the measured interrupt path
 * (there is no separate measurement of a trap; the rule is ours, not tuned to the paper) - and per send one
 * {@link CostItem#TABLE_LOOKUP} (the channel), {@link CostItem#COPY} per byte copied (tag + payload) and one
 * {@link CostItem#DESCRIPTOR_POST}; per message demultiplexed one {@code TABLE_LOOKUP} (tag and channel),
 * {@code COPY} per payload byte and one {@code DESCRIPTOR_POST} (the emulated receive entry). In virtual time the
 * kernel's send reaches the card when the CPU gets there ({@link CpuPacedTransmits}), so the crossing delays the
 * message on the wire. A regular endpoint pays none of this: its queues are the card's.
 *
 * <p>Single-threaded: the multiplexer and its emulated endpoints belong to the kernel's one thread (the world's in
 * virtual time). Nothing on the send or demultiplex path allocates.
 */
public final class EmulatedEndpointMux implements AutoCloseable {
    /** Bytes of the tag word in front of every message. */
    public static final int TAG_SIZE = 4;
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final UnetEndpoint real;
    private final UnetKernelDriver kernel;
    private final int maxMessage;
    private final int stagingBase;
    private final int stagingStride;
    private int stagingHead;
    private int stagingCount;
    private final MemorySegment tagWord = MemorySegment.ofArray(new int[1]);
    private final CpuPacedTransmits transmits;
    private HostCpu cpu;
    private EmulatedEndpoint[] endpoints = new EmulatedEndpoint[8];
    private int count;
    private long unknownTagDrops;
    private long unknownChannelDrops;
    private long malformedDrops;
    private long systemCalls;
    private long kernelSendErrors;
    private final Arena arena = Arena.ofShared();
    private boolean closed;

    /**
     * Takes over {@code real} (installs the kernel's upcall on it) with the host's CPU uncharged.
     *
     * @param real          the real card endpoint all emulated endpoints share (its channels carry their traffic)
     * @param maxMessage    largest payload an emulated endpoint sends or receives
     * @param stagingOffset where in the real endpoint's segment the kernel keeps its {@code SQ_LEN} send staging
     *                      buffers ({@code SQ_LEN x (maxMessage + 4)} bytes, 64-byte strides)
     */
    public EmulatedEndpointMux(UnetEndpoint real, int maxMessage, int stagingOffset) {
        this.real = Objects.requireNonNull(real, "real");
        this.kernel = real.kernel();
        if (maxMessage <= 0 || maxMessage > 65535 - TAG_SIZE) {
            throw new IllegalArgumentException("maxMessage must be 1.." + (65535 - TAG_SIZE) + ", was " + maxMessage);
        }
        this.maxMessage = maxMessage;
        this.stagingStride = (maxMessage + TAG_SIZE + 63) & -64;
        if (stagingOffset < 0 || (long) stagingOffset + (long) stagingStride * SQ_LEN > real.segment().byteSize()) {
            throw new IllegalArgumentException("staging area of " + SQ_LEN + " x " + stagingStride + " B at "
                    + stagingOffset + " does not fit the " + real.segment().byteSize() + "-byte segment");
        }
        this.stagingBase = stagingOffset;
        this.cpu = HostCpu.uncharged("emulated-endpoints");
        this.transmits = new CpuPacedTransmits("emulated-endpoints", SQ_LEN, cpu, this::ring);
        real.upcall((ep, d) -> demultiplex(d), UPCALL_NONEMPTY); // the kernel's interrupt path
    }

    /**
     * Charges the kernel's work to {@code cpu} from now on (setup-time): the host the kernel runs on.
     *
     * @throws IllegalStateException when kernel sends still wait for the previous CPU
     */
    public void hostCpu(HostCpu cpu) {
        transmits.cpu(Objects.requireNonNull(cpu, "cpu"));
        this.cpu = cpu;
    }

    /**
     * Creates an emulated endpoint named {@code tag}, with a segment of {@code segmentBytes} and a receive queue of
     * {@code rqLen} entries (the contract's limits for a regular endpoint's). It has no channels yet.
     *
     * @throws IllegalArgumentException when the tag is out of range or taken, or a size out of range
     */
    public EmulatedEndpoint create(int tag, long segmentBytes, int rqLen) {
        checkOpen();
        if (tag < 0 || tag > 0xFFFF) {
            throw new IllegalArgumentException("tag must be 0..65535, was " + tag);
        }
        if (find(tag) != null) {
            throw new IllegalArgumentException("tag " + tag + " is already an emulated endpoint");
        }
        if (segmentBytes <= 0 || segmentBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("segmentBytes must be 1.." + Integer.MAX_VALUE + ", was " + segmentBytes);
        }
        if (rqLen < RQ_LEN_MIN || rqLen > RQ_LEN_MAX || Integer.bitCount(rqLen) != 1) {
            throw new IllegalArgumentException("rqLen must be a power of two in " + RQ_LEN_MIN + ".." + RQ_LEN_MAX
                    + ", was " + rqLen);
        }
        EmulatedEndpoint ep = new EmulatedEndpoint(this, tag, arena.allocate(segmentBytes, 4096), rqLen,
                arena.allocate((long) rqLen * INLINE_MAX, 8), kernel.newDeadlineTimer("emulated" + tag + ".await"));
        if (count == endpoints.length) {
            endpoints = java.util.Arrays.copyOf(endpoints, count * 2);
        }
        endpoints[count++] = ep;
        return ep;
    }

    /**
     * Opens {@code channel} of {@code ep} to the emulated endpoint {@code remoteTag} behind the real endpoint's
     * {@code realChannel} (which must be open): the kernel's call, as {@link UnetKernelDriver#connect} is for a
     * regular endpoint.
     *
     * @throws IllegalArgumentException when the channel is out of range or open, the real channel is not open, or
     *                                  the pair (real channel, remote tag) is already a channel of {@code ep}
     */
    public void openChannel(EmulatedEndpoint ep, int channel, int realChannel, int remoteTag) {
        checkOpen();
        checkMine(ep);
        if (channel < 0 || channel >= MAX_CHANNELS || ep.isChannelOpen(channel)) {
            throw new IllegalArgumentException("emulated endpoint " + ep.tag() + ": channel " + channel
                    + " is out of 0.." + (MAX_CHANNELS - 1) + " or open already");
        }
        if (!real.isChannelOpen(realChannel)) {
            throw new IllegalArgumentException("real channel " + realChannel + " is not open on the real endpoint");
        }
        if (remoteTag < 0 || remoteTag > 0xFFFF) {
            throw new IllegalArgumentException("remote tag must be 0..65535, was " + remoteTag);
        }
        if (ep.channelFrom(realChannel, remoteTag) >= 0) {
            throw new IllegalArgumentException("emulated endpoint " + ep.tag() + " already has a channel to tag "
                    + remoteTag + " on real channel " + realChannel);
        }
        ep.opened(channel, realChannel, remoteTag);
    }

    /** Closes {@code channel} of {@code ep}: sends on it complete with BAD_CHANNEL, arrivals on it are dropped. */
    public void closeChannel(EmulatedEndpoint ep, int channel) {
        checkMine(ep);
        if (!ep.isChannelOpen(channel)) {
            throw new IllegalArgumentException("emulated endpoint " + ep.tag() + ": channel " + channel + " is not open");
        }
        ep.closed(channel);
    }

    /** Destroys an emulated endpoint: every later call on it throws; messages for its tag are dropped. */
    public void destroy(EmulatedEndpoint ep) {
        for (int i = 0; i < count; i++) {
            if (endpoints[i] == ep) {
                endpoints[i] = endpoints[--count];
                endpoints[count] = null;
                ep.destroyed();
                return;
            }
        }
        throw new IllegalArgumentException(ep + " is not an endpoint of this multiplexer");
    }

    private EmulatedEndpoint find(int tag) {
        for (int i = 0; i < count; i++) {
            if (endpoints[i].tag() == tag) {
                return endpoints[i];
            }
        }
        return null;
    }

    private void checkMine(EmulatedEndpoint ep) {
        Objects.requireNonNull(ep, "ep");
        for (int i = 0; i < count; i++) {
            if (endpoints[i] == ep) {
                return;
            }
        }
        throw new IllegalArgumentException(ep + " is not a live endpoint of this multiplexer");
    }

    // ------------------------------------------------------------------ send (system call)

    /** A system call the kernel refuses on its first check: the trap is paid, then the status. */
    int refuse(int status) {
        cpu.charge(CostItem.INTERRUPT);
        systemCalls++;
        return status;
    }

    /**
     * The send system call: {@code length} bytes at {@code srcOffset} of {@code src} on {@code from}'s emulated
     * {@code channel}. @return the completion status, or -1 when every staging buffer is in flight (back-pressure)
     */
    int send(EmulatedEndpoint from, int channel, MemorySegment src, long srcOffset, int length) {
        cpu.charge(CostItem.INTERRUPT);
        systemCalls++;
        cpu.charge(CostItem.TABLE_LOOKUP);
        int realChannel = from.realChannel(channel);
        if (realChannel < 0) {
            return TX_STATUS_BAD_CHANNEL;
        }
        if (length == 0) {
            return TX_STATUS_BAD_DESC; // AAL5's abort value, refused as the card refuses it
        }
        if (length > maxMessage) {
            return TX_STATUS_TOO_LONG;
        }
        reclaim();
        if (stagingCount == SQ_LEN) {
            return -1;
        }
        int staging = (stagingHead + stagingCount) & (SQ_LEN - 1);
        int off = stagingBase + staging * stagingStride;
        MemorySegment seg = real.segment();
        seg.set(INT_BE, off, from.remoteTag(channel) << 16 | from.tag());
        MemorySegment.copy(src, srcOffset, seg, off + TAG_SIZE, length);
        cpu.charge(CostItem.COPY, TAG_SIZE + length);
        cpu.charge(CostItem.DESCRIPTOR_POST);
        stagingCount++;
        transmits.commit(staging, TAG_SIZE + length, realChannel);
        return TX_STATUS_SENT;
    }

    /**
     * The paced doorbell: hands staging buffer {@code staging} to the card. The real send queue always has room: the
     * kernel alone sends on the real endpoint and has at most {@code SQ_LEN} sends (its staging buffers) in flight.
     */
    private void ring(int staging, int total, int realChannel) {
        int off = stagingBase + staging * stagingStride;
        boolean sent = total <= INLINE_MAX ? real.sendInline(realChannel, real.segment(), off, total)
                : real.send(realChannel, off, total);
        if (!sent) {
            throw new IllegalStateException("the real endpoint's send queue is full although the kernel has at most "
                    + SQ_LEN + " sends in flight: something else sends on the kernel's endpoint " + real.id());
        }
    }

    /** Collects the card's send completions so their staging buffers can be reused. */
    private void reclaim() {
        int status;
        while (stagingCount > 0 && (status = real.pollSendCompletion()) >= 0) {
            if (status != TX_STATUS_SENT) {
                kernelSendErrors++;
            }
            stagingHead = (stagingHead + 1) & (SQ_LEN - 1);
            stagingCount--;
        }
    }

    // ------------------------------------------------------------------ receive (the kernel's interrupt path)

    /**
     * Drains the real endpoint's receive queue and demultiplexes every message. The kernel's upcall does this on each
     * signal; a wait in the kernel and a kernel without interrupts call it.
     *
     * @return messages delivered to emulated endpoints
     */
    public int pump() {
        int delivered = 0;
        for (long d = real.poll(); d >= 0; d = real.poll()) {
            if (demultiplex(d)) {
                delivered++;
            }
            real.release(d);
        }
        return delivered;
    }

    /** One real message: by tag to its endpoint, by (real channel, source tag) to its channel. */
    private boolean demultiplex(long d) {
        int length = real.length(d);
        if (real.isError(d) || length < TAG_SIZE) {
            malformedDrops++;
            return false;
        }
        cpu.charge(CostItem.TABLE_LOOKUP);
        real.copyRange(d, 0, tagWord, 0, TAG_SIZE);
        int word = tagWord.get(INT_BE, 0);
        EmulatedEndpoint target = find(word >>> 16);
        if (target == null) {
            unknownTagDrops++;
            return false;
        }
        int channel = target.channelFrom(real.channel(d), word & 0xFFFF);
        int payload = length - TAG_SIZE;
        if (channel < 0 || payload > maxMessage) {
            unknownChannelDrops++;
            return false;
        }
        if (!target.deliver(real, d, channel, payload)) {
            return false;
        }
        cpu.charge(CostItem.COPY, payload);
        cpu.charge(CostItem.DESCRIPTOR_POST);
        return true;
    }

    // ------------------------------------------------------------------ accessors

    UnetKernelDriver kernel() {
        return kernel;
    }

    public UnetEndpoint realEndpoint() {
        return real;
    }

    public int maxMessage() {
        return maxMessage;
    }

    public int endpointCount() {
        return count;
    }

    /** Messages for a tag no emulated endpoint owns. */
    public long unknownTagDrops() {
        return unknownTagDrops;
    }

    /** Messages whose source (real channel, source tag) is no open channel of their destination endpoint. */
    public long unknownChannelDrops() {
        return unknownChannelDrops;
    }

    /** Messages too short for a tag, or delivered by the card with an error. */
    public long malformedDrops() {
        return malformedDrops;
    }

    /** System calls the emulated endpoints made (sends, refused ones included). */
    public long systemCalls() {
        return systemCalls;
    }

    /** The kernel's own sends the card completed with an error (its channel closed under it, say). */
    public long kernelSendErrors() {
        return kernelSendErrors;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("emulated-endpoint multiplexer is closed");
        }
    }

    /** Destroys every emulated endpoint and frees their memory; the real endpoint stays the kernel's. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            for (int i = 0; i < count; i++) {
                endpoints[i].destroyed();
            }
            count = 0;
            if (real.isLive()) {
                real.upcall(null, UPCALL_NONE);
            }
            arena.close();
        }
    }
}
