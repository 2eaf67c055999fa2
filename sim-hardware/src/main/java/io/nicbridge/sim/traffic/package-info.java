/**
 * Synthetic traffic and the BookSim measurement method for the MPP fabrics.
 *
 * <ul>
 *   <li>{@link io.nicbridge.sim.traffic.FabricPorts}: what traffic needs from a network (offer / poll per node
 *       and logical network, step); {@link io.nicbridge.sim.traffic.NetworkFabricPorts} puts it over the
 *       flit-level {@link io.nicbridge.sim.fabric.Network}.</li>
 *   <li>Patterns ({@link io.nicbridge.sim.traffic.Patterns}: uniform, bit-complement, transpose, tornado,
 *       neighbor, random permutation, hotspot) and injection processes
 *       ({@link io.nicbridge.sim.traffic.BernoulliInjection}, {@link io.nicbridge.sim.traffic.OnOffInjection}).</li>
 *   <li>{@link io.nicbridge.sim.traffic.LoadTest} (warm-up / measurement / drain) and
 *       {@link io.nicbridge.sim.traffic.LoadSweep} (latency-vs-load curves, saturation by step halving).</li>
 *   <li>The NIFDY paper's workloads: {@link io.nicbridge.sim.traffic.NifdySyntheticTraffic} (heavy and light
 *       phased traffic) and {@link io.nicbridge.sim.traffic.CyclicShiftTraffic}.</li>
 *   <li>Configuration: {@link io.nicbridge.sim.traffic.SimConfig} (BookSim-style {@code key = value;} files
 *       with overrides) and {@link io.nicbridge.sim.traffic.FabricSetup} (networks and workloads from keys).</li>
 * </ul>
 * Everything is deterministic for a seed: node i draws from its own stream, a function of (seed, i).
 */
package io.nicbridge.sim.traffic;
