/**
 * A simulated medium for protocol cores: {@link io.nicbridge.protocols.sim.InMemoryMedium} gives each of N nodes a
 * bridge {@link io.nicbridge.bridge.link.Link}, on any bridge scheduler, with per-frame faults
 * ({@link io.nicbridge.protocols.sim.FrameFaults}, {@link io.nicbridge.protocols.sim.FrameFate}). It depends on
 * bridge only, so the simulation tester and the bench can both use it; card-backed media implement the same Link.
 */
package io.nicbridge.protocols.sim;
