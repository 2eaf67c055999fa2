/**
 * Export of a fabric + traffic configuration to other simulators: {@link
 * io.nicbridge.sim.fabric.export.SstMerlinExporter} writes SST JSON models built from Merlin components.
 */
package io.nicbridge.sim.fabric.export;
