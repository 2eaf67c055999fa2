/**
 * Cycle-driven, flit-level MPP interconnect simulator: the fabrics on which the NIFDY and idempotent-messaging
 * network interfaces run.
 *
 * <h2>Pieces</h2>
 * <ul>
 *   <li>{@link io.nicbridge.sim.fabric.Topology} - wiring plus routing function; implementations
 *       {@link io.nicbridge.sim.fabric.KaryNCube} (2D/3D meshes and tori, dimension order, dateline VCs,
 *       optional "any productive channel"), {@link io.nicbridge.sim.fabric.FatTree} (full k-ary tree, CM-5
 *       tapered tree; nearest common ancestor with random up-port) and {@link io.nicbridge.sim.fabric.Butterfly}
 *       (k-ary n-fly, multibutterfly of dilation d); factories in {@link io.nicbridge.sim.fabric.Topologies}.
 *       The store-and-forward fat tree is {@code fatTree} with {@link io.nicbridge.sim.fabric.Switching#STORE_AND_FORWARD}.</li>
 *   <li>{@link io.nicbridge.sim.fabric.FabricConfig} - VCs per class, buffer depth, link latency, router delay,
 *       link serialization, flit width, switching, discipline, drop timeout, checksum flit, NI queue size,
 *       processor model, CM-5 time multiplexing, {@link io.nicbridge.sim.fabric.Allocator}.</li>
 *   <li>{@link io.nicbridge.sim.fabric.Network} - the simulator: {@code new Network(topology, config, seed)},
 *       {@code step()}, {@code run(n)}, {@code drain(max)}, counters; wiring, VC buffers, NI queues and the
 *       router stages (RC, VA, SA, ST). Its parts: {@code PacketPool} (packets as struct-of-arrays behind
 *       recycled handles), {@code EventWheel} (flits and credits on links), {@code WakeHeap} (endpoint
 *       wake-ups), {@code SeparableVcAllocator} and {@code SeparableSwitchAllocator} built from
 *       {@code RoundRobinArbiters} (BookSim's allocators/ and arbiters/ split; the arbiters hold the priorities,
 *       the allocators a round's requests).</li>
 *   <li>{@link io.nicbridge.sim.fabric.NodePort} / {@link io.nicbridge.sim.fabric.Endpoint} - the
 *       network-interface port of each node and what sits behind it (traffic generator, trace engine, protocol
 *       core); {@link io.nicbridge.sim.fabric.PacketRecord} per-packet data on delivery;
 *       {@link io.nicbridge.sim.fabric.FabricListener} for fabric-wide measurement.</li>
 *   <li>{@link io.nicbridge.sim.fabric.InterfaceFaults} - sim.fault plans at the nodes' network interfaces
 *       ({@code Network.interfaceFaults(node, plan)}): drop, duplicate, reorder, delay and a failed check of the
 *       packets an NI receives, for fault-injection experiments and deterministic simulation testing.</li>
 * </ul>
 *
 * <h2>Request and reply networks</h2>
 * Two logical networks as two VC classes on the same physical links (demand-multiplexed; with
 * {@code timeMultiplexedClasses} strictly alternating cycles as on the CM-5). A node can stop consuming one
 * class while the other keeps flowing, which is what breaks fetch deadlock.
 *
 * <h2>Disciplines</h2>
 * {@link io.nicbridge.sim.fabric.Discipline#BUFFERED} is lossless and deadlock-free by construction of the
 * routing; {@link io.nicbridge.sim.fabric.Discipline#DROP_WHEN_BLOCKED} drops a packet whose head stays blocked
 * for more than the drop timeout, bounding its time in the network.
 */
package io.nicbridge.sim.fabric;
