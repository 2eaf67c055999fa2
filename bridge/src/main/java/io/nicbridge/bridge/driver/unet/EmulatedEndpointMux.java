package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.INLINE_MAX;
import static io.nicbridge.contract.Sba200Unet.SQ_LEN;

import io.nicbridge.bridge.queue.QueueCode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Kernel-emulated U-Net endpoints (paper section 3.5, Figure 2b): many logical endpoints multiplexed over ONE real
 * card endpoint, for applications that do not need (or cannot get) a card endpoint of their own. To the
 * application an {@link EmulatedEndpoint} looks like a regular one - send on a channel, poll, read, release - but
 * every message goes through this multiplexer (the "kernel"), which copies it and demultiplexes it in software.
 *
 * <h2>Tag convention</h2>
 * Each message on the real endpoint starts with a 4-byte big-endian tag word naming the destination and source
 * emulated endpoints; the application's bytes follow:
 * <pre>
 *   byte 0      1      2      3      4 ..
 *       +-------------+-------------+---------------------+
 *       | dst tag     | src tag     | payload             |
 *       +-------------+-------------+---------------------+
 * </pre>
 * Tags are 16-bit numbers chosen when an emulated endpoint is created ({@link #create}); they are unique per
 * multiplexer. Up to {@code 40 - 4 = 36} payload bytes still travel as one inline cell.
 *
 * <h2>Demultiplexing and isolation</h2>
 * {@link #pump()} drains the real endpoint: it reads the destination tag, finds the emulated endpoint that owns it,
 * and copies the payload into a slot of that endpoint's OWN receive ring (private memory allocated at creation).
 * A message whose tag no emulated endpoint owns is dropped and counted ({@link #unknownTagDrops()}); one whose
 * target ring is full is dropped and counted on the target ({@link EmulatedEndpoint#drops()}). An emulated endpoint
 * can read only its own ring, so it never sees another's messages.
 *
 * <h2>Sending</h2>
 * {@link EmulatedEndpoint#send} copies tag + payload into one of the real endpoint's staging buffers (the kernel's
 * copy) and posts it. A staging buffer is reused only after the card completed its send (completions come back in
 * order, so the staging buffers form a FIFO of {@code SQ_LEN}).
 *
 * <p>Single-threaded: the multiplexer and all its emulated endpoints belong to one thread (the emulating "kernel"
 * context). Nothing on the send or demultiplex path allocates.
 */
public final class EmulatedEndpointMux implements AutoCloseable {
    /** Bytes of the tag word in front of every message. */
    public static final int TAG_SIZE = 4;
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final UnetEndpoint real;
    private final int maxMessage;
    private final int stagingBase;
    private final int stagingStride;
    private final int[] stagingFifo = new int[SQ_LEN];
    private int stagingHead;
    private int stagingCount;
    private int nextStaging;
    private final MemorySegment tag = MemorySegment.ofArray(new int[1]);
    private EmulatedEndpoint[] endpoints = new EmulatedEndpoint[8];
    private int count;
    private long unknownTagDrops;
    private long malformedDrops;
    private final Arena arena = Arena.ofShared();
    private boolean closed;

    /**
     * @param real          the real card endpoint all emulated endpoints share (its channels carry their traffic)
     * @param maxMessage    largest payload an emulated endpoint sends or receives
     * @param stagingOffset where in the real endpoint's segment the multiplexer may keep its {@code SQ_LEN} send
     *                      staging buffers ({@code SQ_LEN x (maxMessage + 4)} bytes, 64-byte strides)
     */
    public EmulatedEndpointMux(UnetEndpoint real, int maxMessage, int stagingOffset) {
        this.real = Objects.requireNonNull(real, "real");
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
    }

    /**
     * Creates an emulated endpoint with tag {@code tag} and a private receive ring of {@code ringSlots} messages.
     *
     * @throws IllegalArgumentException when the tag is out of range or already taken
     */
    public EmulatedEndpoint create(int tag, int ringSlots) {
        if (closed) {
            throw new IllegalStateException("multiplexer is closed");
        }
        if (tag < 0 || tag > 0xFFFF) {
            throw new IllegalArgumentException("tag must be 0..65535, was " + tag);
        }
        if (find(tag) != null) {
            throw new IllegalArgumentException("tag " + tag + " is already an emulated endpoint");
        }
        if (ringSlots <= 0 || Integer.bitCount(ringSlots) != 1) {
            throw new IllegalArgumentException("ring slots must be a power of two, was " + ringSlots);
        }
        EmulatedEndpoint ep = new EmulatedEndpoint(this, tag, ringSlots, arena.allocate((long) ringSlots * maxMessage, 64));
        if (count == endpoints.length) {
            endpoints = java.util.Arrays.copyOf(endpoints, count * 2);
        }
        endpoints[count++] = ep;
        return ep;
    }

    /** Removes an emulated endpoint; messages for its tag are dropped from then on. */
    public void destroy(EmulatedEndpoint ep) {
        for (int i = 0; i < count; i++) {
            if (endpoints[i] == ep) {
                endpoints[i] = endpoints[--count];
                endpoints[count] = null;
                ep.closed = true;
                return;
            }
        }
    }

    private EmulatedEndpoint find(int tag) {
        for (int i = 0; i < count; i++) {
            if (endpoints[i].tag == tag) {
                return endpoints[i];
            }
        }
        return null;
    }

    boolean send(EmulatedEndpoint from, int channel, int dstTag, MemorySegment src, long srcOffset, int length) {
        if (length < 0 || length > maxMessage) {
            throw new IllegalArgumentException("emulated message length must be 0.." + maxMessage + ", was " + length);
        }
        if (dstTag < 0 || dstTag > 0xFFFF) {
            throw new IllegalArgumentException("destination tag must be 0..65535, was " + dstTag);
        }
        reclaim();
        if (stagingCount == SQ_LEN) {
            return false;
        }
        int staging = nextStaging;
        int off = stagingBase + staging * stagingStride;
        MemorySegment seg = real.segment();
        seg.set(INT_BE, off, dstTag << 16 | from.tag);
        MemorySegment.copy(src, srcOffset, seg, off + TAG_SIZE, length);
        int total = TAG_SIZE + length;
        boolean sent = total <= INLINE_MAX ? real.sendInline(channel, seg, off, total) : real.send(channel, off, total);
        if (!sent) {
            return false;
        }
        stagingFifo[(stagingHead + stagingCount) & (SQ_LEN - 1)] = staging;
        stagingCount++;
        nextStaging = (staging + 1) & (SQ_LEN - 1);
        return true;
    }

    /** Collects send completions so their staging buffers can be reused. */
    private void reclaim() {
        while (stagingCount > 0 && real.pollSendCompletion() >= 0) {
            stagingHead = (stagingHead + 1) & (SQ_LEN - 1);
            stagingCount--;
        }
    }

    /**
     * Drains the real endpoint's receive queue and demultiplexes every message by its destination tag.
     *
     * @return messages delivered to emulated endpoints
     */
    public int pump() {
        int delivered = 0;
        for (long d = real.poll(); d >= 0; d = real.poll()) {
            int length = real.length(d);
            if (real.isError(d) || length < TAG_SIZE) {
                malformedDrops++;
            } else {
                real.copyRange(d, 0, tag, 0, TAG_SIZE);
                int word = tag.get(INT_BE, 0);
                EmulatedEndpoint target = find(word >>> 16);
                if (target == null) {
                    unknownTagDrops++;
                } else if (target.accept(real, d, word & 0xFFFF, length - TAG_SIZE)) {
                    delivered++;
                }
            }
            real.release(d);
        }
        return delivered;
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

    public long unknownTagDrops() {
        return unknownTagDrops;
    }

    /** Messages too short for a tag, or delivered by the card with an error. */
    public long malformedDrops() {
        return malformedDrops;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            for (int i = 0; i < count; i++) {
                endpoints[i].closed = true;
            }
            arena.close();
        }
    }

    /** One kernel-emulated endpoint: a tag, a private receive ring, and sends through the shared real endpoint. */
    public static final class EmulatedEndpoint {
        private final EmulatedEndpointMux mux;
        private final int tag;
        private final int mask;
        private final MemorySegment ring;
        private final MemorySegment[] slots;
        private final int[] lengths;
        private final int[] sources;
        private final int[] channels;
        private int head;
        private int tail;
        private long drops;
        private long receivedCount;
        private boolean closed;

        private EmulatedEndpoint(EmulatedEndpointMux mux, int tag, int ringSlots, MemorySegment ring) {
            this.mux = mux;
            this.tag = tag;
            this.mask = ringSlots - 1;
            this.ring = ring;
            this.slots = new MemorySegment[ringSlots];
            for (int i = 0; i < ringSlots; i++) {
                slots[i] = ring.asSlice((long) i * mux.maxMessage, mux.maxMessage);
            }
            this.lengths = new int[ringSlots];
            this.sources = new int[ringSlots];
            this.channels = new int[ringSlots];
        }

        public int tag() {
            return tag;
        }

        /**
         * Sends {@code length} bytes to the emulated endpoint {@code dstTag} behind {@code channel} of the real endpoint.
         *
         * @return false on back-pressure (the real endpoint's send queue or the staging buffers are full)
         */
        public boolean send(int channel, int dstTag, MemorySegment src, long srcOffset, int length) {
            checkOpen();
            return mux.send(this, channel, dstTag, src, srcOffset, length);
        }

        private boolean accept(UnetEndpoint real, long d, int source, int length) {
            if (closed || tail - head == slots.length || length > mux.maxMessage) {
                drops++;
                return false;
            }
            int slot = tail & mask;
            real.copyRange(d, TAG_SIZE, slots[slot], 0, length);
            lengths[slot] = length;
            sources[slot] = source;
            channels[slot] = real.channel(d);
            tail++;
            return true;
        }

        /** @return a handle on the oldest undelivered message, or {@link QueueCode#EMPTY} */
        public int poll() {
            checkOpen();
            return head == tail ? QueueCode.EMPTY : head & mask;
        }

        public MemorySegment buffer(int handle) {
            return slots[check(handle)];
        }

        public int length(int handle) {
            return lengths[check(handle)];
        }

        public int sourceTag(int handle) {
            return sources[check(handle)];
        }

        public int channel(int handle) {
            return channels[check(handle)];
        }

        /** Frees the oldest message (the one {@link #poll()} returned). */
        public void release(int handle) {
            if (head == tail || handle != (head & mask)) {
                throw new IllegalStateException("emulated endpoint " + tag + ": handle " + handle + " is not the held message");
            }
            head++;
            receivedCount++;
        }

        private int check(int handle) {
            if (head == tail || handle != (head & mask)) {
                throw new IllegalStateException("emulated endpoint " + tag + ": handle " + handle + " is not the held message");
            }
            return handle;
        }

        private void checkOpen() {
            if (closed) {
                throw new IllegalStateException("emulated endpoint " + tag + " is closed");
            }
        }

        /** Messages dropped because this endpoint's ring was full. */
        public long drops() {
            return drops;
        }

        public long received() {
            return receivedCount;
        }

        /** Private ring memory (tests use it to check isolation). */
        MemorySegment ringMemory() {
            return ring;
        }
    }
}
