/**
 * The {@code emu} backend: emulated cards in this JVM, opened from {@code emu:} device specs.
 * {@link io.nicbridge.sim.emu.EmuBackendProvider} serves them through {@link java.util.ServiceLoader}, each distinct
 * (mode, seed, idle) sharing one default {@link io.nicbridge.sim.testbed.EmulatedTestbed} (engine + wires + cards).
 * This package sits on top: it depends on {@code sim.testbed} and the card packages, and nothing below depends on it.
 */
package io.nicbridge.sim.emu;
