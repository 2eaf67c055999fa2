/**
 * Export of a fabric + traffic configuration to other simulators: {@link
 * io.nicbridge.sim.fabric.export.SstMerlinExporter} writes SST JSON models built from Merlin components (for
 * sst-core/sst-elements 16.0.0), with the topology translated by {@code MerlinTopology}; what Merlin cannot
 * express is refused with the reason.
 */
package io.nicbridge.sim.fabric.export;
