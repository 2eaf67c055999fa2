package io.nicbridge.bridge.queue;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * A single-producer single-consumer queue of fixed-size descriptors in a {@link MemorySegment}, indexed by two
 * 32-bit free-running counters that live in memory shared by both sides (as U-Net's {@code sq_prod/sq_cons} and
 * {@code fq_prod/fq_cons} do).
 *
 * <pre>
 *   counters segment                      slots segment (capacity = 2^k slots of slotBytes each)
 *   +------------------+                  +---------+---------+---------+-----+---------+
 *   | producer index   | written by P     | slot 0  | slot 1  | slot 2  | ... | slot n-1|
 *   +------------------+                  +---------+---------+---------+-----+---------+
 *   | consumer index   | written by C       slot = index &amp; (capacity - 1)
 *   +------------------+
 *   empty: prod == cons      full: prod - cons == capacity      (32-bit unsigned arithmetic)
 * </pre>
 *
 * <p>The counters are free-running: they wrap from {@code 0xFFFFFFFF} to {@code 0}, and all distances are
 * computed as {@code int} differences, which stay correct across the wrap. The capacity must be a power of two,
 * otherwise {@code index mod capacity} would jump at the 2<sup>32</sup> wrap and two live indices could share a slot.
 *
 * <p><b>Handoff.</b> Producer: write the slot's payload, then {@link Producer#commit()} stores the new producer
 * index with release. Consumer: {@link Consumer#peek()} loads the producer index with acquire (so the payload is
 * visible), reads the slot, then {@link Consumer#release()} stores the new consumer index with release (so the
 * producer cannot overwrite the slot before the consumer's reads of it are done). Each end caches the other
 * side's counter and only re-reads it when the cached value says full/empty, so the shared cache line is touched
 * once per batch rather than once per entry.
 *
 * <p>An index written by the other side that is impossible ({@code prod - cons} above the capacity as an
 * unsigned number) is never trusted: the end returns {@link QueueCode#PEER_CORRUPT} (not {@code FULL} or
 * {@code EMPTY}, so the caller can tell a broken peer from back-pressure) and counts a protocol error.
 */
public final class SpscDescriptorQueue {
    private final MemorySegment slots;
    private final long slotsOffset;
    private final int slotBytes;
    private final int capacity;
    private final int mask;
    private final MemorySegment counters;
    private final long producerIndexOffset;
    private final long consumerIndexOffset;
    private final boolean bigEndian;

    /**
     * @param slots               segment holding the slots
     * @param slotsOffset         byte offset of slot 0 in {@code slots} (4-byte aligned)
     * @param slotBytes           size of one slot, a positive multiple of 4
     * @param capacity            number of slots, a power of two
     * @param counters            segment holding the two index words (may be {@code slots})
     * @param producerIndexOffset byte offset of the producer index word (4-byte aligned)
     * @param consumerIndexOffset byte offset of the consumer index word (4-byte aligned)
     * @param order               byte order of every word (slots and counters)
     */
    public SpscDescriptorQueue(MemorySegment slots, long slotsOffset, int slotBytes, int capacity,
                               MemorySegment counters, long producerIndexOffset, long consumerIndexOffset,
                               ByteOrder order) {
        if (slotBytes <= 0 || (slotBytes & 3) != 0) {
            throw new IllegalArgumentException("slotBytes must be a positive multiple of 4, was " + slotBytes);
        }
        if (capacity <= 0 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two (32-bit counters wrap), was " + capacity);
        }
        IntWords.checkRegion(slots, slotsOffset, (long) slotBytes * capacity,
                capacity + " slots of " + slotBytes + " bytes");
        IntWords.checkRegion(counters, producerIndexOffset, 4, "producer index word");
        IntWords.checkRegion(counters, consumerIndexOffset, 4, "consumer index word");
        if (counters == slots && producerIndexOffset == consumerIndexOffset) {
            throw new IllegalArgumentException("producer and consumer index words must differ, both at " + producerIndexOffset);
        }
        this.slots = slots;
        this.slotsOffset = slotsOffset;
        this.slotBytes = slotBytes;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.counters = counters;
        this.producerIndexOffset = producerIndexOffset;
        this.consumerIndexOffset = consumerIndexOffset;
        this.bigEndian = IntWords.isBigEndian(order);
    }

    public MemorySegment slots() {
        return slots;
    }

    public int capacity() {
        return capacity;
    }

    public int slotBytes() {
        return slotBytes;
    }

    public ByteOrder order() {
        return bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    }

    /** Byte offset in {@link #slots()} of the slot that free-running {@code index} maps to. */
    public long slotOffset(int index) {
        return slotsOffset + (long) (index & mask) * slotBytes;
    }

    /** Producer index as stored in memory, read with acquire (for monitoring; the ends cache their own). */
    public int producerIndexAcquire() {
        return IntWords.getAcquire(counters, producerIndexOffset, bigEndian);
    }

    /** Consumer index as stored in memory, read with acquire. */
    public int consumerIndexAcquire() {
        return IntWords.getAcquire(counters, consumerIndexOffset, bigEndian);
    }

    /** Number of entries between the two stored indices, as an unsigned distance (may exceed capacity if corrupt). */
    public int sizeAcquire() {
        int cons = consumerIndexAcquire();
        return producerIndexAcquire() - cons;
    }

    /**
     * Sets both stored indices to {@code index} (plain stores). Setup only, before either end is created or
     * while no end is in use: ends read their starting index from memory when they are created.
     */
    public void resetIndices(int index) {
        IntWords.set(counters, producerIndexOffset, bigEndian, index);
        IntWords.set(counters, consumerIndexOffset, bigEndian, index);
    }

    /** Creates the producer end, starting at the indices now in memory. One producer at a time. */
    public Producer producer() {
        return new Producer();
    }

    /** Creates the consumer end, starting at the indices now in memory. One consumer at a time. */
    public Consumer consumer() {
        return new Consumer();
    }

    /** Plain read of the word at byte {@code offset} of {@link #slots()} (a slot offset plus a word offset). */
    public int getInt(long offset) {
        return IntWords.get(slots, offset, bigEndian);
    }

    /** Plain write of a slot word: payload written before {@link Producer#commit()} publishes it. */
    public void putInt(long offset, int value) {
        IntWords.set(slots, offset, bigEndian, value);
    }

    /** Acquire read of a slot word, for queues that also keep an ownership bit in the slot. */
    public int getIntAcquire(long offset) {
        return IntWords.getAcquire(slots, offset, bigEndian);
    }

    /** Release write of a slot word, for queues that also keep an ownership bit in the slot: write it last. */
    public void putIntRelease(long offset, int value) {
        IntWords.setRelease(slots, offset, bigEndian, value);
    }

    boolean bigEndian() {
        return bigEndian;
    }

    /** The producing end: {@link #claim()}, write the slot, {@link #commit()}. */
    public final class Producer {
        private int index;
        private int cachedConsumer;
        private boolean claimed;
        private long produced;
        private long protocolErrors;

        private Producer() {
            this.index = IntWords.get(counters, producerIndexOffset, bigEndian);
            // Looks full, so the first claim() reads and validates the consumer index.
            this.cachedConsumer = index - capacity;
        }

        /**
         * Claims the next slot.
         *
         * @return the slot's byte offset in {@link SpscDescriptorQueue#slots()}; {@link QueueCode#FULL} when every
         *         slot is in use (back-pressure); {@link QueueCode#PEER_CORRUPT} when the consumer index in memory is
         *         impossible (counted in {@link #protocolErrors()})
         */
        public long claim() {
            if (index - cachedConsumer == capacity) {
                // Acquire pairs with the consumer's release in Consumer.release(): its reads of the slot we
                // are about to overwrite are finished.
                int consumer = IntWords.getAcquire(counters, consumerIndexOffset, bigEndian);
                int used = index - consumer;
                if (Integer.compareUnsigned(used, capacity) > 0) {
                    protocolErrors++;
                    return QueueCode.PEER_CORRUPT;
                }
                cachedConsumer = consumer;
                if (used == capacity) {
                    return QueueCode.FULL;
                }
            }
            claimed = true;
            return slotOffset(index);
        }

        /**
         * Publishes the claimed slot: the producer index is stored with release, so every write to the slot
         * made before this call is visible to a consumer that reads the new index with acquire.
         *
         * @throws IllegalStateException if no slot is claimed
         */
        public void commit() {
            if (!claimed) {
                throw new IllegalStateException("commit() without a successful claim()");
            }
            claimed = false;
            index++;
            IntWords.setRelease(counters, producerIndexOffset, bigEndian, index);
            produced++;
        }

        /** Offset of the slot claimed and not yet committed, or {@link QueueCode#NOT_HELD}. */
        public long claimedOffset() {
            return claimed ? slotOffset(index) : QueueCode.NOT_HELD;
        }

        /** This end's producer index (the next index to be committed). */
        public int index() {
            return index;
        }

        /** Free slots as last seen (refreshes the consumer index with acquire). */
        public int remainingCapacity() {
            int consumer = IntWords.getAcquire(counters, consumerIndexOffset, bigEndian);
            int used = index - consumer;
            if (Integer.compareUnsigned(used, capacity) > 0) {
                return 0;
            }
            cachedConsumer = consumer;
            return capacity - used;
        }

        public long produced() {
            return produced;
        }

        public long protocolErrors() {
            return protocolErrors;
        }

        public SpscDescriptorQueue queue() {
            return SpscDescriptorQueue.this;
        }
    }

    /** The consuming end: {@link #peek()}, read the slot, {@link #release()}. */
    public final class Consumer {
        private int index;
        private int cachedProducer;
        private boolean peeked;
        private long consumed;
        private long protocolErrors;

        private Consumer() {
            this.index = IntWords.get(counters, consumerIndexOffset, bigEndian);
            // Looks empty, so the first peek() reads and validates the producer index.
            this.cachedProducer = index;
        }

        /**
         * Returns the oldest published slot without consuming it.
         *
         * @return the slot's byte offset in {@link SpscDescriptorQueue#slots()}; {@link QueueCode#EMPTY} when
         *         nothing is published; {@link QueueCode#PEER_CORRUPT} when the producer index in memory is impossible
         *         (counted in {@link #protocolErrors()})
         */
        public long peek() {
            if (index == cachedProducer) {
                // Acquire pairs with the producer's release in Producer.commit(): the slot payload is visible.
                int producer = IntWords.getAcquire(counters, producerIndexOffset, bigEndian);
                int available = producer - index;
                if (Integer.compareUnsigned(available, capacity) > 0) {
                    protocolErrors++;
                    return QueueCode.PEER_CORRUPT;
                }
                cachedProducer = producer;
                if (available == 0) {
                    return QueueCode.EMPTY;
                }
            }
            peeked = true;
            return slotOffset(index);
        }

        /**
         * Gives the peeked slot back to the producer: the consumer index is stored with release, so the
         * producer cannot overwrite the slot before this end's reads of it are complete.
         *
         * @throws IllegalStateException if no slot is peeked
         */
        public void release() {
            if (!peeked) {
                throw new IllegalStateException("release() without a successful peek()");
            }
            peeked = false;
            index++;
            IntWords.setRelease(counters, consumerIndexOffset, bigEndian, index);
            consumed++;
        }

        /** Offset of the slot peeked and not yet released, or {@link QueueCode#NOT_HELD}. */
        public long peekedOffset() {
            return peeked ? slotOffset(index) : QueueCode.NOT_HELD;
        }

        /** This end's consumer index (the next index to be consumed). */
        public int index() {
            return index;
        }

        public long consumed() {
            return consumed;
        }

        public long protocolErrors() {
            return protocolErrors;
        }

        public SpscDescriptorQueue queue() {
            return SpscDescriptorQueue.this;
        }
    }
}
