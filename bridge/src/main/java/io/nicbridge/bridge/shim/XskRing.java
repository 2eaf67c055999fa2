package io.nicbridge.bridge.shim;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * One AF_XDP ring as the kernel maps it (nicshim.h {@code nicshim_xsk_ring_t}), seen from Java: the free-running
 * 32-bit producer and consumer indices, the flags word and the entries, each a segment over the mapping.
 *
 * <pre>
 *   producer u32 --+   entries = producer - consumer (mod 2^32), slot = index &amp; (size - 1)
 *   consumer u32   |   FILL / COMPLETION entries: u64 UMEM address            (8 bytes)
 *   flags    u32   |   RX / TX entries: struct xdp_desc {u64 addr; u32 len; u32 options}   (16 bytes)
 *   desc[size] ----+
 * </pre>
 *
 * The indices are read with acquire (the side that produced entries stored the index with release after them), as
 * {@code SpscDescriptorQueue}'s are. While the shim runs its card, the shim is the user-space side of every ring and
 * this view is for observation. With no card ({@code NICSHIM_CARD_XSK_DIRECT}, {@link XskUnetEndpoint}) Java is that
 * side: it produces FILL and TX entries ({@link #putAddress}, {@link #putDescriptor}, then {@link #publishProducer}
 * with release, so the kernel's acquire of the producer sees the entries) and consumes RX and COMPLETION entries
 * (read them, then {@link #publishConsumer} with release, after which the kernel may reuse the slots). The segments
 * belong to an arena the shim closes before it unmaps the rings, so a stale view throws
 * {@link IllegalStateException} instead of touching unmapped memory.
 */
public final class XskRing {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final String name;
    private final MemorySegment producer;
    private final MemorySegment consumer;
    private final MemorySegment flags;
    private final MemorySegment entries;
    private final int size;
    private final int entrySize;

    XskRing(String name, long producer, long consumer, long flags, long desc, int size, int entrySize, Arena scope) {
        this.name = name;
        this.producer = MemorySegment.ofAddress(producer).reinterpret(4, scope, null);
        this.consumer = MemorySegment.ofAddress(consumer).reinterpret(4, scope, null);
        this.flags = MemorySegment.ofAddress(flags).reinterpret(4, scope, null);
        this.entries = MemorySegment.ofAddress(desc).reinterpret((long) size * entrySize, scope, null);
        this.size = size;
        this.entrySize = entrySize;
    }

    public String name() {
        return name;
    }

    /** Entries (a power of two). */
    public int size() {
        return size;
    }

    /** 8 (FILL, COMPLETION) or 16 (RX, TX). */
    public int entrySize() {
        return entrySize;
    }

    /** The producer index, acquire. */
    public int producer() {
        return (int) INT.getAcquire(producer, 0L);
    }

    /** The consumer index, acquire. */
    public int consumer() {
        return (int) INT.getAcquire(consumer, 0L);
    }

    /** Entries produced and not yet consumed. */
    public int pending() {
        int c = consumer();
        return producer() - c;
    }

    /** The flags word ({@code XDP_RING_NEED_WAKEUP} = bit 0). */
    public int flags() {
        return (int) INT.getAcquire(flags, 0L);
    }

    /** The UMEM address in entry {@code index} (any free-running index; FILL, COMPLETION, and RX / TX's addr). */
    public long address(int index) {
        return entries.get(ValueLayout.JAVA_LONG_UNALIGNED, (long) (index & (size - 1)) * entrySize);
    }

    /** RX / TX: the length in entry {@code index}. */
    public int length(int index) {
        if (entrySize != 16) {
            throw new IllegalStateException(name + " entries carry no length");
        }
        return entries.get(ValueLayout.JAVA_INT_UNALIGNED, (long) (index & (size - 1)) * entrySize + 8);
    }

    /** FILL: entry {@code index} holds UMEM address {@code address} (visible to the kernel at the next publish). */
    public void putAddress(int index, long address) {
        entries.set(ValueLayout.JAVA_LONG_UNALIGNED, (long) (index & (size - 1)) * entrySize, address);
    }

    /** TX: entry {@code index} is {@code {address, length, options 0}} (visible at the next publish). */
    public void putDescriptor(int index, long address, int length) {
        if (entrySize != 16) {
            throw new IllegalStateException(name + " entries carry no length");
        }
        long at = (long) (index & (size - 1)) * entrySize;
        entries.set(ValueLayout.JAVA_LONG_UNALIGNED, at, address);
        entries.set(ValueLayout.JAVA_INT_UNALIGNED, at + 8, length);
        entries.set(ValueLayout.JAVA_INT_UNALIGNED, at + 12, 0);
    }

    /** A ring we produce into (FILL, TX): the entries up to {@code producer} are ready; release store. */
    public void publishProducer(int producer) {
        INT.setRelease(this.producer, 0L, producer);
    }

    /** A ring we consume from (RX, COMPLETION): the slots up to {@code consumer} are free again; release store. */
    public void publishConsumer(int consumer) {
        INT.setRelease(this.consumer, 0L, consumer);
    }

    @Override
    public String toString() {
        return name + "[size " + size + ", producer " + producer() + ", consumer " + consumer() + "]";
    }
}
