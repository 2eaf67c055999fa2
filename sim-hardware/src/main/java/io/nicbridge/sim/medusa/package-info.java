/**
 * The emulated HP Medusa FDDI adapter (medusa.h, docs/hardware-facts.md C.2):
 * {@link io.nicbridge.sim.medusa.MedusaModel} (registers, FIFOs of buffer numbers, buffer status table, explicit
 * buffer ownership, FCS, the receive checksum unit: the shell that locks, kicks and calls the ring, around
 * {@code MedusaCore}, the single-threaded chip, which reports every state change to a
 * {@link io.nicbridge.sim.medusa.MedusaTrace}), {@link io.nicbridge.sim.medusa.MedusaBufferRam} (host PIO into
 * buffer RAM with the PIO checksum accumulator) and {@link io.nicbridge.sim.medusa.MedusaCard} (the bridge's Card).
 * It is a station of an {@link io.nicbridge.sim.fddi.FddiRing}.
 */
package io.nicbridge.sim.medusa;
