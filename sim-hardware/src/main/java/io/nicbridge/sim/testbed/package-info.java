/**
 * Testbeds: whole emulated worlds (engine, wires or rings or switches, cards and, where the world includes them,
 * their drivers) built in one call, for the {@code emu} backend, the benchmarks, the {@code nic} experiments and the
 * tests. {@link io.nicbridge.sim.testbed.EmulatedTestbed} is the general builder (any mix of 21140s, SBA-200s and
 * Medusas); {@link io.nicbridge.sim.testbed.TulipTestbed} is N 21140s with Tulip drivers on one segment;
 * {@link io.nicbridge.sim.testbed.UnetApiTestbed} is two SBA-200 hosts with U-Net kernel drivers and endpoints on an
 * ATM switch. This package sits above the card packages (it constructs cards); no card package depends on it.
 */
package io.nicbridge.sim.testbed;
