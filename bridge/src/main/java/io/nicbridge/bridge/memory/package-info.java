/**
 * Host memory a card may touch: pinned {@link io.nicbridge.bridge.memory.CommSegment}s carved into rings
 * and {@link io.nicbridge.bridge.memory.BufferPool}s at setup, and the card's
 * {@link io.nicbridge.bridge.memory.DmaSpace}, the IOMMU-like table that maps bus addresses onto them. Card-side
 * code sees that table only as a {@link io.nicbridge.bridge.memory.DmaView} (translate, region, offset, and one
 * immutable snapshot per DMA operation).
 *
 * <p>Rules: arenas and segments are created at setup only; translation and buffer claim/release allocate
 * nothing; a DMA outside registered memory is a {@link io.nicbridge.bridge.memory.BusError} code (a card
 * event), never an exception on the hot path.
 */
package io.nicbridge.bridge.memory;
