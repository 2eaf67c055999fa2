/**
 * The {@code emu} backend: emulated cards in this JVM.
 * {@link io.nicbridge.sim.emu.EmulatedTestbed} builds one world (engine + Ethernet segments + cards);
 * {@link io.nicbridge.sim.emu.EmuBackendProvider} serves {@code emu:} device specs through
 * {@link java.util.ServiceLoader}, each distinct (mode, seed, idle) sharing one default testbed.
 */
package io.nicbridge.sim.emu;
