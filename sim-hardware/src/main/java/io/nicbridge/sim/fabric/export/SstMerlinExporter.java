package io.nicbridge.sim.fabric.export;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nicbridge.sim.traffic.Patterns;
import io.nicbridge.sim.traffic.SimConfig;
import io.nicbridge.sim.traffic.TrafficPattern;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Writes a fabric + synthetic-traffic configuration as an SST JSON model (the format
 * {@code sst model.json} loads) using Merlin's components, so an experiment that outgrows one
 * machine can move to SST's MPI-parallel engine.
 * <pre>
 * {
 *   "program_options": { "timebase": "1ps", ... },
 *   "components": [
 *     { "name": "rtr.0", "type": "merlin.hr_router",
 *       "params": { "id", "num_ports", "link_bw", "flit_size", "xbar_bw", "input_latency",
 *                   "output_latency", "input_buf_size", "output_buf_size", "num_vns" },
 *       "subcomponents": [ { "slot_name": "topology", "slot_number": 0, "type": "merlin.mesh",
 *                            "params": { "shape": "8x8", "width": "1x1", "local_ports": "1" } } ] },
 *     { "name": "nic.0", "type": "merlin.offered_load",
 *       "params": { "id", "num_peers", "link_bw", "packet_size", "offered_load", "linkcontrol", ... },
 *       "subcomponents": [ { "slot_name": "pattern_gen", "type": "merlin.targetgen.uniform", ... } ] } ],
 *   "links": [ { "name": "...", "noCut": false,
 *                "left":  { "component": "rtr.0", "port": "port0", "latency": "1000ps" },
 *                "right": { "component": "rtr.1", "port": "port1", "latency": "1000ps" } } ]
 * }
 * </pre>
 * Time: one fabric cycle is {@code cycle_ps} picoseconds (default 1000, a 1 GHz network clock); link
 * bandwidth is one flit per {@code cycles_per_flit} cycles. Topologies: mesh and torus (Merlin
 * ports 2d = +, 2d+1 = - in dimension d, then the local port) and the full k-ary fat tree
 * (Merlin's shape string, down ports first then up ports, routers numbered level by level).
 * Traffic: uniform maps to {@code merlin.targetgen.uniform}; every deterministic pattern
 * (bitcomp, transpose, tornado, neighbor, randperm) maps exactly onto a per-node
 * {@code merlin.targetgen.shift} whose shift is (destination - source) mod N.
 * Merlin has no butterfly, CM-5 taper or hotspot generator: those are refused with the reason.
 */
public final class SstMerlinExporter {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private SstMerlinExporter() {
    }

    /** @return the SST JSON model of the configuration, at the given offered load (flits/node/cycle) */
    public static ObjectNode export(SimConfig c, double offeredLoad) {
        String topology = c.getString("topology", "mesh").toLowerCase(Locale.ROOT);
        int k = c.getInt("k", 8);
        int n = c.getInt("n", 2);
        long cyclePs = c.getLong("cycle_ps", 1000);
        int flitBits = c.getInt("flit_bits", 32);
        int flitBytes = Math.max(1, flitBits / 8);
        int cyclesPerFlit = c.getInt("cycles_per_flit", 1);
        int linkLatency = c.getInt("link_latency", 1);
        int routerDelay = c.getInt("router_delay", 1);
        int bufFlits = c.getInt("vc_buf_size", 4);
        int packetFlits = c.getInt("packet_size", 4);
        if (!(offeredLoad > 0 && offeredLoad <= 1.0)) {
            throw new IllegalArgumentException("Merlin's offered_load must be in (0, 1], got " + offeredLoad);
        }
        // Bytes per second of one link: flitBytes every cyclesPerFlit cycles of cyclePs picoseconds.
        double bytesPerSecond = flitBytes * 1e12 / (cyclePs * (double) cyclesPerFlit);
        String linkBw = formatRate(bytesPerSecond);
        String linkLat = (cyclePs * linkLatency) + "ps";

        ObjectNode root = JSON.createObjectNode();
        ObjectNode options = root.putObject("program_options");
        options.put("timebase", "1ps");
        options.put("stop-at", (cyclePs * c.getLong("sst_stop_cycles", 1_000_000)) + "ps");
        ArrayNode components = root.putArray("components");
        ArrayNode links = root.putArray("links");

        Shape shape = switch (topology) {
            case "mesh", "torus" -> cube(topology.equals("torus"), k, n);
            case "fattree", "fat_tree", "tree" -> fatTree(k, n);
            default -> throw new IllegalArgumentException("SST/Merlin export supports mesh, torus and fattree; '"
                    + topology + "' has no Merlin topology (Merlin has no butterfly or CM-5 taper)");
        };

        for (int r = 0; r < shape.routers; r++) {
            ObjectNode rtr = components.addObject();
            rtr.put("name", "rtr." + r);
            rtr.put("type", "merlin.hr_router");
            ObjectNode p = rtr.putObject("params");
            p.put("id", Integer.toString(r));
            p.put("num_ports", Integer.toString(shape.ports[r]));
            p.put("link_bw", linkBw);
            p.put("flit_size", flitBytes + "B");
            p.put("xbar_bw", linkBw);
            p.put("input_latency", (cyclePs * routerDelay) + "ps");
            p.put("output_latency", cyclePs + "ps");
            p.put("input_buf_size", (bufFlits * flitBytes) + "B");
            p.put("output_buf_size", (bufFlits * flitBytes) + "B");
            p.put("num_vns", "2");
            ObjectNode topo = rtr.putArray("subcomponents").addObject();
            topo.put("slot_name", "topology");
            topo.put("slot_number", 0);
            topo.put("type", shape.merlinType);
            ObjectNode tp = topo.putObject("params");
            shape.topologyParams.fields().forEachRemaining(e -> tp.set(e.getKey(), e.getValue()));
        }
        for (int[] l : shape.routerLinks) {
            link(links, "rtr." + l[0], "port" + l[1], "rtr." + l[2], "port" + l[3], linkLat);
        }

        int nodes = shape.nodes;
        long seed = c.getLong("seed", 1);
        String traffic = c.getString("traffic", "uniform").toLowerCase(Locale.ROOT);
        TrafficPattern deterministic = traffic.equals("uniform") ? null
                : Patterns.create(traffic, nodes, k, n, seed, c.getIntList("hotspot_nodes", new int[] {0}),
                c.getDouble("hotspot_fraction", 0.1));
        if (traffic.equals("hotspot")) {
            throw new IllegalArgumentException("SST/Merlin export: Merlin has no hotspot target generator; use a "
                    + "deterministic pattern or uniform");
        }
        // Deterministic patterns ignore their random stream; one is passed only to satisfy the interface.
        SplittableRandom noRandomness = new SplittableRandom(seed);
        for (int node = 0; node < nodes; node++) {
            ObjectNode nic = components.addObject();
            nic.put("name", "nic." + node);
            nic.put("type", "merlin.offered_load");
            ObjectNode p = nic.putObject("params");
            p.put("id", Integer.toString(node));
            p.put("num_peers", Integer.toString(nodes));
            p.put("link_bw", linkBw);
            p.put("linkcontrol", "merlin.linkcontrol");
            p.put("buffer_size", (bufFlits * flitBytes) + "B");
            p.put("packet_size", (packetFlits * flitBytes) + "B");
            p.put("offered_load", Double.toString(offeredLoad));
            long period = c.getInt("sample_period", 1000);
            p.put("warmup_time", (cyclePs * period) + "ps");
            p.put("collect_time", (cyclePs * period * c.getInt("converged_periods", 3)) + "ps");
            p.put("drain_time", (cyclePs * c.getInt("max_drain_cycles", 20_000)) + "ps");
            ObjectNode gen = nic.putArray("subcomponents").addObject();
            gen.put("slot_name", "pattern_gen");
            gen.put("slot_number", 0);
            ObjectNode gp = JSON.createObjectNode();
            if (deterministic == null) {
                gen.put("type", "merlin.targetgen.uniform");
                gp.put("min", "0");
                gp.put("max", Integer.toString(nodes));
            } else {
                int dst = deterministic.destination(node, noRandomness);
                gen.put("type", "merlin.targetgen.shift");
                gp.put("shift", Integer.toString(Math.floorMod(dst - node, nodes)));
            }
            gen.set("params", gp);
            int[] at = shape.hostPort[node];
            link(links, "nic." + node, "rtr", "rtr." + at[0], "port" + at[1], linkLat);
        }
        return root;
    }

    /** Writes {@link #export} to {@code file}. */
    public static void write(SimConfig c, double offeredLoad, Path file) throws IOException {
        Files.writeString(file, JSON.writeValueAsString(export(c, offeredLoad)));
    }

    private static void link(ArrayNode links, String a, String pa, String b, String pb, String latency) {
        ObjectNode l = links.addObject();
        l.put("name", a + ":" + pa + "--" + b + ":" + pb);
        l.put("noCut", false);
        ObjectNode left = l.putObject("left");
        left.put("component", a);
        left.put("port", pa);
        left.put("latency", latency);
        ObjectNode right = l.putObject("right");
        right.put("component", b);
        right.put("port", pb);
        right.put("latency", latency);
    }

    private static String formatRate(double bytesPerSecond) {
        if (bytesPerSecond >= 1e9 && Math.abs(bytesPerSecond / 1e9 - Math.rint(bytesPerSecond / 1e9)) < 1e-9) {
            return (long) Math.rint(bytesPerSecond / 1e9) + "GB/s";
        }
        if (bytesPerSecond >= 1e6 && Math.abs(bytesPerSecond / 1e6 - Math.rint(bytesPerSecond / 1e6)) < 1e-9) {
            return (long) Math.rint(bytesPerSecond / 1e6) + "MB/s";
        }
        return (long) Math.rint(bytesPerSecond) + "B/s";
    }

    /** Routers, their port counts, router-router links and where each host attaches. */
    private record Shape(String merlinType, ObjectNode topologyParams, int routers, int[] ports, int nodes,
                         java.util.List<int[]> routerLinks, int[][] hostPort) {
    }

    private static Shape cube(boolean torus, int k, int n) {
        if (k < 2 || n < 1) {
            throw new IllegalArgumentException("mesh/torus export needs k >= 2 and n >= 1");
        }
        int routers = (int) Math.pow(k, n);
        int ports = 2 * n + 1;
        int[] portCount = new int[routers];
        java.util.Arrays.fill(portCount, ports);
        java.util.List<int[]> links = new java.util.ArrayList<>();
        int place = 1;
        for (int d = 0; d < n; d++) {
            for (int r = 0; r < routers; r++) {
                int coord = (r / place) % k;
                if (coord + 1 < k) {
                    links.add(new int[] {r, 2 * d, r + place, 2 * d + 1});
                } else if (torus && k > 2) {
                    links.add(new int[] {r, 2 * d, r - coord * place, 2 * d + 1});
                }
            }
            place *= k;
        }
        int[][] host = new int[routers][];
        for (int r = 0; r < routers; r++) {
            host[r] = new int[] {r, 2 * n};
        }
        ObjectNode tp = JSON.createObjectNode();
        tp.put("shape", dims(k, n, Integer.toString(k)));
        tp.put("width", dims(1, n, "1"));
        tp.put("local_ports", "1");
        return new Shape(torus ? "merlin.torus" : "merlin.mesh", tp, routers, portCount, routers, links, host);
    }

    private static String dims(int v, int n, String s) {
        StringBuilder sb = new StringBuilder(s);
        for (int i = 1; i < n; i++) {
            sb.append('x').append(v);
        }
        return sb.toString();
    }

    /**
     * k-ary n-tree: n levels of k^(n-1) routers; level-l router w's up port u leads to the level-(l+1)
     * router with base-k digit l of w replaced by u, arriving on its down port (digit l of w).
     */
    private static Shape fatTree(int k, int levels) {
        if (k < 2 || levels < 1) {
            throw new IllegalArgumentException("fat tree export needs k >= 2 and levels >= 1");
        }
        int perLevel = (int) Math.pow(k, levels - 1);
        int routers = perLevel * levels;
        int nodes = perLevel * k;
        int[] ports = new int[routers];
        for (int l = 0; l < levels; l++) {
            for (int w = 0; w < perLevel; w++) {
                ports[l * perLevel + w] = l + 1 < levels ? 2 * k : k;
            }
        }
        java.util.List<int[]> links = new java.util.ArrayList<>();
        int place = 1;
        for (int l = 0; l + 1 < levels; l++) {
            for (int w = 0; w < perLevel; w++) {
                int digit = (w / place) % k;
                for (int u = 0; u < k; u++) {
                    int parent = w + (u - digit) * place;
                    links.add(new int[] {l * perLevel + w, k + u, (l + 1) * perLevel + parent, digit});
                }
            }
            place *= k;
        }
        int[][] host = new int[nodes][];
        for (int x = 0; x < nodes; x++) {
            host[x] = new int[] {x / k, x % k};
        }
        StringBuilder shape = new StringBuilder();
        for (int l = 0; l < levels; l++) {
            if (l > 0) {
                shape.append(':');
            }
            shape.append(k);
            if (l + 1 < levels) {
                shape.append(',').append(k);
            }
        }
        ObjectNode tp = JSON.createObjectNode();
        tp.put("shape", shape.toString());
        return new Shape("merlin.fattree", tp, routers, ports, nodes, links, host);
    }
}
