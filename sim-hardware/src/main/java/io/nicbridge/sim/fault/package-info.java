/**
 * Fault injection for any link (Ethernet segment, ATM switch, FDDI ring, the fabric's network interfaces): a
 * {@link io.nicbridge.sim.fault.FaultPlan} says what to inject (seeded probabilities and/or an
 * explicit per-frame schedule); each link gets a {@link io.nicbridge.sim.fault.FaultInjector} that
 * decides frame by frame, counts every decision by {@link io.nicbridge.sim.fault.FaultKind}, and
 * inverts bits in place. It knows only frame lengths and byte segments; each link documents how it
 * applies each kind.
 */
package io.nicbridge.sim.fault;
