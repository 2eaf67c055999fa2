package io.nicbridge.sim.traffic;

import io.nicbridge.sim.fabric.Discipline;
import io.nicbridge.sim.fabric.Allocator;
import io.nicbridge.sim.fabric.FabricConfig;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.ProcessorModel;
import io.nicbridge.sim.fabric.Switching;
import io.nicbridge.sim.fabric.Topologies;
import io.nicbridge.sim.fabric.Topology;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Builds networks and synthetic workloads from a {@link SimConfig}. The keys (BookSim names where
 * BookSim has one) and their defaults:
 * <pre>
 *   topology = mesh;          mesh | torus | amesh | atorus (adaptive) | fattree | cm5 | butterfly | multibutterfly
 *   k = 8;  n = 2;            radix and dimensions / tree levels / butterfly stages (nodes = k^n)
 *   dilation = 2;             multibutterfly copies per direction
 *   num_vcs = 2;              virtual channels per message class (tori need an even number >= 2)
 *   vc_buf_size = 4;          flits of buffer per VC
 *   link_latency = 1;  router_delay = 1;  cycles_per_flit = 1;  flit_bits = 32;
 *   switching = wormhole;     wormhole | vct | saf
 *   discipline = buffered;    buffered | drop
 *   drop_timeout = 0;  checksum_flit = 1;  inject_queue = 16;
 *   send_overhead = 0;  receive_overhead = 0;  poll_cost = 0;
 *   time_multiplexed = 0;     1: requests on even cycles, replies on odd (the CM-5's logical networks)
 *   allocator = separable_input_first;   | rotating_priority (the old, starving policy; see Allocator)
 *   traffic = uniform;        uniform | bitcomp | transpose | tornado | neighbor | randperm | hotspot
 *   hotspot_nodes = {0};  hotspot_fraction = 0.1;
 *   injection_process = bernoulli;   bernoulli | onoff  (burst_alpha = 0.1; burst_beta = 0.1;)
 *   injection_rate = 0.1;     offered load, flits per node per cycle
 *   packet_size = 4;          flits of payload
 *   seed = 1;
 *   sample_period = 1000;  warmup_threshold = 0.05;  max_warmup_periods = 10;  converged_periods = 3;
 *   max_measure_periods = 10;  latency_threshold = 500;  max_drain_cycles = 20000;
 * </pre>
 */
public final class FabricSetup {
    /** Every key this class reads. */
    public static final List<String> KEYS = List.of("topology", "k", "n", "dilation", "num_vcs", "vc_buf_size",
            "link_latency", "router_delay", "cycles_per_flit", "flit_bits", "switching", "discipline", "drop_timeout",
            "checksum_flit", "inject_queue", "time_multiplexed", "allocator", "send_overhead", "receive_overhead", "poll_cost", "traffic",
            "hotspot_nodes", "hotspot_fraction", "injection_process", "burst_alpha", "burst_beta", "injection_rate",
            "packet_size", "seed", "sample_period", "warmup_threshold", "max_warmup_periods", "converged_periods",
            "max_measure_periods", "latency_threshold", "max_drain_cycles");

    private FabricSetup() {
    }

    /** @return the topology the config names */
    public static Topology topology(SimConfig c) {
        String name = c.getString("topology", "mesh").toLowerCase(Locale.ROOT);
        int k = c.getInt("k", 8);
        int n = c.getInt("n", 2);
        int[] radix = new int[n];
        Arrays.fill(radix, k);
        return switch (name) {
            case "mesh" -> Topologies.mesh(radix);
            case "torus" -> Topologies.torus(radix);
            case "amesh", "adaptive_mesh" -> Topologies.adaptiveMesh(radix);
            case "atorus", "adaptive_torus" -> Topologies.adaptiveTorus(radix);
            case "fattree", "fat_tree", "tree" -> Topologies.fatTree(k, n);
            case "cm5" -> Topologies.cm5FatTree(n);
            case "butterfly", "fly" -> Topologies.butterfly(k, n);
            case "multibutterfly" -> Topologies.multibutterfly(k, n, c.getInt("dilation", 2), c.getLong("seed", 1));
            default -> throw new IllegalArgumentException("unknown topology '" + name + "'; known: mesh, torus, amesh, "
                    + "atorus, fattree, cm5, butterfly, multibutterfly");
        };
    }

    /** @return router, link and NI parameters from the config */
    public static FabricConfig fabricConfig(SimConfig c) {
        Switching switching = switch (c.getString("switching", "wormhole").toLowerCase(Locale.ROOT)) {
            case "wormhole", "wh" -> Switching.WORMHOLE;
            case "vct", "cut_through", "virtual_cut_through" -> Switching.VIRTUAL_CUT_THROUGH;
            case "saf", "store_and_forward" -> Switching.STORE_AND_FORWARD;
            default -> throw new IllegalArgumentException("switching must be wormhole, vct or saf, got '"
                    + c.getString("switching", "") + "'");
        };
        Discipline discipline = switch (c.getString("discipline", "buffered").toLowerCase(Locale.ROOT)) {
            case "buffered", "lossless" -> Discipline.BUFFERED;
            case "drop", "drop_when_blocked", "lossy" -> Discipline.DROP_WHEN_BLOCKED;
            default -> throw new IllegalArgumentException("discipline must be buffered or drop, got '"
                    + c.getString("discipline", "") + "'");
        };
        return new FabricConfig(c.getInt("num_vcs", 2), c.getInt("vc_buf_size", 4), c.getInt("link_latency", 1),
                c.getInt("router_delay", 1), c.getInt("cycles_per_flit", 1), c.getInt("flit_bits", 32), switching,
                discipline, c.getInt("drop_timeout", 0), c.getBoolean("checksum_flit", true),
                c.getInt("inject_queue", 16),
                new ProcessorModel(c.getLong("send_overhead", 0), c.getLong("receive_overhead", 0),
                        c.getLong("poll_cost", 0)),
                c.getBoolean("time_multiplexed", false),
                Allocator.parse(c.getString("allocator", Allocator.SEPARABLE_INPUT_FIRST.configName())));
    }

    /** @return a fresh network for the config, seeded from its {@code seed} */
    public static Network network(SimConfig c) {
        return new Network(topology(c), fabricConfig(c), c.getLong("seed", 1));
    }

    /** @return the destination pattern for the config's traffic */
    public static TrafficPattern pattern(SimConfig c, int nodes) {
        return Patterns.create(c.getString("traffic", "uniform"), nodes, c.getInt("k", 8), c.getInt("n", 2),
                c.getLong("seed", 1), c.getIntList("hotspot_nodes", new int[] {0}),
                c.getDouble("hotspot_fraction", 0.1));
    }

    /** @return the injection process for an offered load in flits/node/cycle */
    public static InjectionProcess injection(SimConfig c, int nodes, double offeredLoad) {
        double packetRate = offeredLoad / c.getInt("packet_size", 4);
        return switch (c.getString("injection_process", "bernoulli").toLowerCase(Locale.ROOT)) {
            case "bernoulli" -> new BernoulliInjection(packetRate);
            case "onoff", "on_off", "bursty" -> new OnOffInjection(nodes, packetRate, c.getDouble("burst_alpha", 0.1),
                    c.getDouble("burst_beta", 0.1));
            default -> throw new IllegalArgumentException("injection_process must be bernoulli or onoff, got '"
                    + c.getString("injection_process", "") + "'");
        };
    }

    /** @return the measurement settings of the config */
    public static MeasurementSettings measurement(SimConfig c, boolean stopWhenUnstable) {
        return new MeasurementSettings(c.getInt("sample_period", 1000), c.getDouble("warmup_threshold", 0.05),
                c.getInt("max_warmup_periods", 10), c.getInt("converged_periods", 3),
                c.getInt("max_measure_periods", 10), c.getDouble("latency_threshold", 500),
                c.getInt("max_drain_cycles", 20_000), stopWhenUnstable);
    }

    /** Measures one load point on a fresh network built from the config. */
    public static LoadResult runPoint(SimConfig c, double offeredLoad, boolean stopWhenUnstable) {
        Network net = network(c);
        NetworkFabricPorts ports = new NetworkFabricPorts(net);
        int nodes = net.nodes();
        LoadResult r = new LoadTest(ports, pattern(c, nodes), injection(c, nodes, offeredLoad),
                c.getInt("packet_size", 4), FabricPorts.REQUEST, c.getLong("seed", 1),
                measurement(c, stopWhenUnstable)).run();
        return r;
    }
}
