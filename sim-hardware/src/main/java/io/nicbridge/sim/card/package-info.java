/**
 * What every emulated card has in common ({@link io.nicbridge.sim.card.EmulatedCard}: spec, name, register window,
 * DMA space, interrupt line, failure and a close that runs once). It sits below the card packages
 * ({@code sim.dec21140}, {@code sim.sba200}, {@code sim.medusa}), which extend it, and above {@code sim.engine};
 * the packages that build cards ({@code sim.testbed}, the {@code emu} backend in {@code sim.emu}) sit above the
 * card packages, so no card package depends on the code that constructs it.
 */
package io.nicbridge.sim.card;
