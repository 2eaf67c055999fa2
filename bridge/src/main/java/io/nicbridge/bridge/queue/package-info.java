/**
 * Descriptor-queue views: flyweights over caller-allocated {@link java.lang.foreign.MemorySegment}s that hand
 * descriptors between a host and a card (or between a U-Net user process and the NI) with explicit ownership.
 *
 * <h2>The handoff rule, everywhere in this package</h2>
 * The side giving an entry away writes the entry's payload first and its ownership word last, with a
 * <i>release</i> store ({@code VarHandle.setRelease} on a 32-bit word in the queue's byte order). The side taking
 * it reads the ownership word with an <i>acquire</i> load ({@code getAcquire}) and only then reads the payload.
 * The ownership word is:
 * <ul>
 *   <li>DEC 21140: bit 31 (OWN) of descriptor word 0, in both directions
 *       ({@link io.nicbridge.bridge.queue.Dec21140DescriptorRing} host side,
 *       {@link io.nicbridge.bridge.queue.Dec21140DescriptorWalker} card side);</li>
 *   <li>U-Net send queue: w0.VALID, then {@code sq_prod} (user to NI); {@code sq_cons} (NI to user);</li>
 *   <li>U-Net free queue: {@code fq_prod} (user to NI); {@code fq_cons} (NI to user);</li>
 *   <li>U-Net receive queue: w0.VALID set (NI to user), w0.VALID cleared (user to NI).</li>
 * </ul>
 * Counter-indexed queues share {@link io.nicbridge.bridge.queue.SpscDescriptorQueue} (free-running 32-bit
 * indices, power-of-two capacity, unsigned wrap-around).
 *
 * <h2>Rules</h2>
 * Geometry, bounds and alignment are checked once at construction, so hot-path accesses are in bounds and
 * atomic; hot paths allocate nothing. Back-pressure (full, empty, still owned by the other side) is a return value,
 * one of the named {@link io.nicbridge.bridge.queue.QueueCode}s ({@code FULL}, {@code EMPTY}). Misuse (bad index,
 * size, length, flags, call order) throws with a message naming the problem. Values written by the other side are
 * never trusted: an impossible index is reported as {@code PEER_CORRUPT} (never as full or empty) and counted; card
 * side code reaches host memory only through a bounds-checked {@link io.nicbridge.bridge.memory.DmaView} (a
 * {@link io.nicbridge.bridge.memory.DmaSpace}), one table snapshot per descriptor fetch.
 *
 * <h2>Layout</h2>
 * Every offset, bit and size comes from the device contract headers, through their generated bindings
 * ({@link io.nicbridge.contract.Dec21140}, {@link io.nicbridge.contract.Dec21140Desc},
 * {@link io.nicbridge.contract.Sba200Unet}, {@link io.nicbridge.contract.Sba200UnetEpcb},
 * {@link io.nicbridge.contract.Sba200UnetSendDesc}, {@link io.nicbridge.contract.Sba200UnetRecvDesc},
 * {@link io.nicbridge.contract.Sba200UnetFqEntry}, {@link io.nicbridge.contract.Sba200UnetEpPage}); nothing here
 * restates a layout value. The views access words through {@link io.nicbridge.bridge.queue.IntWords} rather than the
 * generated accessors because the byte order is a per-view choice (the 21140's CSR0.DBO selects big-endian
 * descriptors; the generated accessors are fixed to the header's order). The few values a header states only in
 * prose are derived and kept private where they are used (e.g. the 21140's largest receive buffer, 2044).
 */
package io.nicbridge.bridge.queue;
