/**
 * ATM layer of the simulator: 53-byte cells with the UNI header and its HEC ({@link io.nicbridge.sim.atm.AtmCells}),
 * AAL5 CPCS-PDUs and their CRC-32 ({@link io.nicbridge.sim.atm.Aal5}), 140 Mb/s TAXI cell links with cell-level
 * faults ({@link io.nicbridge.sim.atm.CellLink}), an N-port cell switch with per-channel VPI/VCI translation
 * ({@link io.nicbridge.sim.atm.AtmSwitch}) and the privileged network service that alone programs it
 * ({@link io.nicbridge.sim.atm.AtmNetworkService}). Facts: docs/hardware-facts.md D.2; constants from
 * {@link io.nicbridge.contract.Sba200Unet}.
 */
package io.nicbridge.sim.atm;
