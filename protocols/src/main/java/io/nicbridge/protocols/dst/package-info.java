/**
 * Deterministic simulation testing of protocol cores, in the spirit of FoundationDB's and TigerBeetle's
 * simulators: a seed gives a {@link io.nicbridge.protocols.dst.Schedule} (workload plus drops, duplicates,
 * reorderings, corruptions, delays, partitions with their heal, slow nodes), a
 * {@link io.nicbridge.protocols.dst.SimulationRun} plays it in virtual time and checks the invariants of the core's
 * declared guarantees, and a failure is shrunk ({@link io.nicbridge.protocols.dst.Shrinker}) to a minimal schedule
 * with its replay command ({@link io.nicbridge.protocols.dst.SimTest}).
 */
package io.nicbridge.protocols.dst;
