/**
 * Deterministic simulation testing of protocol cores, in the spirit of FoundationDB's and TigerBeetle's
 * simulators: a seed gives a {@link io.nicbridge.protocols.dst.Schedule} (workload plus drops, duplicates,
 * reorderings, corruptions, delays, partitions with their heal, slow nodes), a
 * {@link io.nicbridge.protocols.dst.SimulationRun} plays it in virtual time and checks the invariants of the core's
 * declared guarantees, and a failure is shrunk ({@link io.nicbridge.protocols.dst.Shrinker}) to a minimal schedule
 * with its replay command ({@link io.nicbridge.protocols.dst.SimTest}). The world is a
 * {@link io.nicbridge.protocols.dst.SimMedium}: the in-memory medium here ({@code SimMedium.inMemory}), the emulated
 * media (21140s, Medusas, SBA-200s, the MPP fabric) in bench, which sees both this module and sim-hardware; each
 * applies the schedule's faults with its own injection and refuses those it cannot express, and each emulated medium
 * can write its frames to a pcap file per schedule ({@code SimMedium.Factory.capturing}). The workload follows the core's
 * API: messages between peers for a {@link io.nicbridge.protocols.core.MessageCore}, a C* program of
 * point-to-point, broadcast and crowd events for a {@link io.nicbridge.protocols.cstar.CStarNetwork} (the schedule's
 * {@code messagesPerNode} is then its number of events), byte streams over TCP connections for a
 * {@link io.nicbridge.protocols.dst.TcpNode} (IPv4 and TCP on the node's link; {@code messagesPerNode} is then the
 * number of chunks each end writes, see {@link io.nicbridge.protocols.dst.StreamWorkload}); same schedules, shrinker
 * and replay.
 */
package io.nicbridge.protocols.dst;
