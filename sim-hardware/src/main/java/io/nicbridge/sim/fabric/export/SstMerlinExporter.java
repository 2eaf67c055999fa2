package io.nicbridge.sim.fabric.export;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nicbridge.sim.fabric.Topology;
import io.nicbridge.sim.traffic.FabricSetup;
import io.nicbridge.sim.traffic.SimConfig;
import io.nicbridge.sim.traffic.TrafficPattern;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Writes a fabric + synthetic-traffic configuration as an SST JSON model ({@code sst model.json}) built from
 * Merlin's {@code merlin.hr_router} and {@code merlin.offered_load}, so a study that outgrows one machine can
 * move to SST's MPI-parallel engine.
 *
 * <p><b>Target</b>: sst-core and sst-elements 16.0.0 (read at sst-elements f782290d, sst-core 431d0bc9). The
 * file follows the SAX loader {@code sst-core src/sst/core/model/json/jsonmodel.cc}: every parameter value is
 * a JSON string (an integer or float inside {@code params} is "an unexpected parser state"), components come
 * before the links that name them, {@code slot_number} is an integer, {@code noCut} a boolean. Names pass
 * {@code namecheck.cc}: a letter first, then letters, digits, '_' and '.'-separated words that again start
 * with a letter, so {@code rtr_0}, not {@code rtr.0}. Per-version note: sst-elements commit b200cbce0
 * (2025-09-10, first in 15.1.0) made the uniform generator's {@code max} inclusive (uniform.h
 * {@code dist_size = max - min + 1}; before: {@code max - min}) and made offered_load redraw a destination
 * equal to the sender. The {@code max = num_peers - 1} written here is for 15.1.0 and later; on 15.0 and
 * earlier it would never pick the last node and would let nodes send to themselves.
 *
 * <p><b>Timing equivalence</b> (one fabric cycle = {@code cycle_ps} ps, default 1000):
 * <pre>
 *   ours                         Merlin                                     source
 *   flit_bits                    flit_size = flit_bits/8 B                  hr_router.cc "flit_size"
 *   1 flit / cycles_per_flit     link_bw = flit bytes / (cycles_per_flit * cycle)   hr_router.cc, portControl.cc
 *   router allocates 1 flit/cycle xbar_bw = flit bytes / cycle (xbar clock = xbar_bw / flit_size = 1/cycle)
 *   router_delay cycles          input_latency = router_delay * cycle, output_latency = 0
 *   link_latency cycles          link latency = link_latency * cycle (both directions, NIC links too)
 *   num_vcs x vc_buf_size flits  input_buf_size per Merlin VC = num_vcs*vc_buf_size/Merlin VCs per VN flits
 *   packet_size flits            message_size = packet_size * flit bytes (offered_load.cc "message_size")
 *   injection_rate (flits/node/cycle)   offered_load = injection_rate * cycles_per_flit (fraction of link_bw)
 *   sample_period, converged_periods, max_drain_cycles   warmup_time, collect_time, drain_time
 * </pre>
 * Where Merlin's router differs from ours, and the export cannot close the gap:
 * <ul>
 *   <li>Merlin moves whole packets across the crossbar only when the output buffer has credits for every flit
 *       ({@code portControl.cc} {@code xbar_in_credits[vc] < flits}): virtual cut-through. Ours is wormhole;
 *       the two agree only while a VC buffer holds a whole packet, so a smaller buffer is refused.</li>
 *   <li>Merlin has output buffers; ours is input-queued. The export gives each one packet, the least Merlin
 *       can run with, which still adds a packet of buffering per port.</li>
 *   <li>The crossbar traversal takes one xbar cycle on top of {@code input_latency}, while ours counts the
 *       switch inside {@code router_delay}; Merlin's zero-load latency may be up to a cycle per hop higher
 *       (not measured: SST was not run here).</li>
 *   <li>VCs: Merlin's mesh and fat tree have one VC per VN, its torus two (the dateline pair). When ours has
 *       more, their flits are pooled into Merlin's VC(s): the same storage, but one FIFO (head-of-line
 *       blocking that our extra VCs avoid).</li>
 *   <li>Arbitration: Merlin's {@code xbar_arb_lru} per packet; ours separable input-first per flit.</li>
 *   <li>Injection: offered_load sends periodically, one packet every {@code serialization / offered_load};
 *       ours draws Bernoulli arrivals. Uniform traffic: Merlin redraws a self destination
 *       ({@code offered_load.cc progress_messages}), ours lets a node pick itself.</li>
 *   <li>Torus: Merlin sends ties at distance k/2 all the + way ({@code torus.cc go_pos = dist_pos <= dist_neg});
 *       ours splits them between the directions.</li>
 *   <li>Fat tree: Merlin's deterministic up port {@code (dest / down_route_factor) % up}; ours draws the up
 *       port at random per hop.</li>
 * </ul>
 * <b>Not expressible</b>, refused with the reason rather than exported as something else: drop-when-blocked
 * routers (Merlin is lossless, credit flow controlled), NIFDY and idempotent messaging (protocols in the NIC,
 * offered_load has no acks, admission or retransmission), butterflies and the CM-5 tree (a Merlin endpoint
 * has one port), adaptive meshes, hotspot traffic (no Merlin generator) and deterministic patterns that map a
 * node to itself (offered_load loops forever redrawing it).
 *
 * <p><b>Sweeps</b>: {@code sst_loads = {0.05, 0.1, ...}} (flits/node/cycle) writes {@code offered_load} as
 * an array "[...]" (sst-core params.h {@code find_array}); offered_load runs the loads in turn, draining
 * {@code drain_time} between them, and prints one average latency per load, marking with '*' the loads whose
 * injection fell behind (its saturation indicator).
 *
 * <p><b>MPI partitioning</b>: {@code sst_ranks = R} (R > 1) gives every component a
 * {@code "partition": {"rank": r}} (slabs of mesh/torus routers, subtrees of the fat tree, each node with its
 * router) and sets {@code partitioner = sst.self}, which uses them ({@code sst-core
 * impl/partitioners/selfpart.h}); run with {@code mpirun -np R sst model.json}.
 */
public final class SstMerlinExporter {
    /** The sst-core / sst-elements release the export is written for. */
    public static final String TARGET_RELEASE = "16.0.0";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private SstMerlinExporter() {
    }

    /** @return the SST JSON model of the configuration, at the given offered load (flits/node/cycle) */
    public static ObjectNode export(SimConfig c, double offeredLoad) {
        return export(FabricSetup.topology(c), c, offeredLoad);
    }

    /**
     * @return the SST JSON model of {@code topology} (e.g. a mixed-radix {@code Topologies.mesh(4, 8)}, which
     *         the config keys cannot name) with the router, traffic and timing keys of {@code c}
     */
    public static ObjectNode export(Topology topology, SimConfig c, double offeredLoad) {
        refuseWhatMerlinCannotExpress(c);
        MerlinTopology topo = MerlinTopology.of(topology, c.getInt("sst_ranks", 1));
        int ranks = c.getInt("sst_ranks", 1);
        long cyclePs = c.getLong("cycle_ps", 1000);
        int flitBits = c.getInt("flit_bits", 32);
        if (cyclePs <= 0) {
            throw new IllegalArgumentException("cycle_ps must be > 0, got " + cyclePs);
        }
        if (flitBits <= 0 || flitBits % 8 != 0) {
            throw new IllegalArgumentException("flit_bits must be a positive multiple of 8 for Merlin's byte "
                    + "sizes, got " + flitBits);
        }
        int flitBytes = flitBits / 8;
        int cyclesPerFlit = c.getInt("cycles_per_flit", 1);
        int linkLatency = c.getInt("link_latency", 1);
        int routerDelay = c.getInt("router_delay", 1);
        int vcs = c.getInt("num_vcs", 2);
        int vcBufFlits = c.getInt("vc_buf_size", 4);
        int packetFlits = c.getInt("packet_size", 4);
        // sst_loads: a whole sweep in one SST run; offered_load.cc reads the parameter with find_array and runs
        // the loads one after another, draining between them (end_handler).
        double[] loads = c.getDoubleList("sst_loads", new double[] {offeredLoad});
        StringBuilder merlinLoads = new StringBuilder();
        for (double load : loads) {
            double merlinLoad = load * cyclesPerFlit;
            if (!(merlinLoad > 0 && merlinLoad <= 1.0)) {
                throw new IllegalArgumentException("offered load " + load + " flits/node/cycle is " + merlinLoad
                        + " of the link bandwidth; Merlin's offered_load must be in (0, 1]");
            }
            merlinLoads.append(merlinLoads.isEmpty() ? "" : ", ").append(merlinLoad);
        }
        String merlinLoad = loads.length == 1 ? merlinLoads.toString() : "[" + merlinLoads + "]";
        // Our flits pooled into Merlin's VCs per VN (see the class comment).
        int merlinVcBufFlits = Math.max(1, vcs * vcBufFlits / topo.vcsPerVn());
        if (merlinVcBufFlits < packetFlits) {
            throw new IllegalArgumentException("SST/Merlin export: a " + packetFlits + "-flit packet does not fit a "
                    + merlinVcBufFlits + "-flit Merlin VC buffer; Merlin's crossbar moves whole packets (virtual "
                    + "cut-through), so raise vc_buf_size or lower packet_size");
        }
        String linkBw = rate(flitBytes * 1e12 / (cyclePs * (double) cyclesPerFlit));
        String xbarBw = rate(flitBytes * 1e12 / cyclePs);
        String linkLat = cyclePs * linkLatency + "ps";
        String inputBuf = merlinVcBufFlits * flitBytes + "B";
        String outputBuf = packetFlits * flitBytes + "B";

        ObjectNode root = JSON.createObjectNode();
        ObjectNode options = root.putObject("program_options");
        options.put("timebase", "1ps");
        if (c.getLong("sst_stop_cycles", 0) > 0) {
            options.put("stop-at", cyclePs * c.getLong("sst_stop_cycles", 0) + "ps");
        }
        if (ranks > 1) {
            options.put("partitioner", "sst.self");
        }
        ArrayNode components = root.putArray("components");
        ArrayNode links = root.putArray("links");

        for (int r = 0; r < topo.routers(); r++) {
            ObjectNode rtr = components.addObject();
            rtr.put("name", routerName(r));
            rtr.put("type", "merlin.hr_router");
            ObjectNode p = rtr.putObject("params");
            // hr_router.cc: id, num_ports, flit_size, xbar_bw fatal if missing; link_bw, input_buf_size,
            // output_buf_size fatal through getLogicalGroupParam; num_vns defaults to 2, offered_load uses 1.
            p.put("id", Integer.toString(r));
            p.put("num_ports", Integer.toString(topo.ports()[r]));
            p.put("num_vns", "1");
            p.put("flit_size", flitBytes + "B");
            p.put("link_bw", linkBw);
            p.put("xbar_bw", xbarBw);
            p.put("input_latency", cyclePs * routerDelay + "ps");
            p.put("output_latency", "0ps");
            p.put("input_buf_size", inputBuf);
            p.put("output_buf_size", outputBuf);
            partition(rtr, ranks, topo.routerRank()[r]);
            ObjectNode sub = rtr.putArray("subcomponents").addObject();
            sub.put("slot_name", "topology");
            sub.put("slot_number", 0);
            sub.put("type", topo.merlinType());
            ObjectNode tp = sub.putObject("params");
            topo.params().forEach(tp::put);
        }

        int nodes = topo.nodes();
        long period = c.getLong("sample_period", 1000);
        String traffic = c.getString("traffic", "uniform").toLowerCase(Locale.ROOT);
        TrafficPattern deterministic = traffic.equals("uniform") ? null : FabricSetup.pattern(c, nodes);
        // Deterministic patterns ignore their random stream; one is passed only to satisfy the interface.
        SplittableRandom unused = new SplittableRandom(0);
        for (int node = 0; node < nodes; node++) {
            ObjectNode nic = components.addObject();
            nic.put("name", nodeName(node));
            nic.put("type", "merlin.offered_load");
            ObjectNode p = nic.putObject("params");
            // offered_load.cc: offered_load, num_peers, link_bw and pattern are fatal if missing; the packet
            // length is "message_size" (default 64b); buffer_size feeds the default merlin.linkcontrol, whose
            // port is the component's "rtr" (SHARE_PORTS).
            p.put("num_peers", Integer.toString(nodes));
            p.put("link_bw", linkBw);
            p.put("buffer_size", inputBuf);
            p.put("message_size", packetFlits * flitBytes + "B");
            p.put("offered_load", merlinLoad);
            p.put("warmup_time", cyclePs * period + "ps");
            p.put("collect_time", cyclePs * period * c.getInt("converged_periods", 3) + "ps");
            p.put("drain_time", cyclePs * c.getInt("max_drain_cycles", 20_000) + "ps");
            // The generator is built from "pattern" plus the "pattern." scoped parameters
            // (get_scoped_params("pattern")); a pattern_gen subcomponent in the file is never read.
            if (deterministic == null) {
                p.put("pattern", "merlin.targetgen.uniform");
                p.put("pattern.min", "0");
                p.put("pattern.max", Integer.toString(nodes - 1));
            } else {
                int dst = deterministic.destination(node, unused);
                if (dst == node) {
                    throw new IllegalArgumentException("SST/Merlin export: traffic '" + traffic + "' sends node "
                            + node + " to itself; Merlin's offered_load redraws a self destination until it "
                            + "differs (offered_load.cc progress_messages), which never ends for a fixed pattern");
                }
                p.put("pattern", "merlin.targetgen.shift");
                p.put("pattern.shift", Integer.toString(Math.floorMod(dst - node, nodes)));
            }
            int[] at = topo.hostPort()[node];
            partition(nic, ranks, topo.routerRank()[at[0]]);
            link(links, nodeName(node), "rtr", routerName(at[0]), "port" + at[1], linkLat);
        }
        for (int[] l : topo.routerLinks()) {
            link(links, routerName(l[0]), "port" + l[1], routerName(l[2]), "port" + l[3], linkLat);
        }
        return root;
    }

    /** Writes {@link #export} to {@code file}. */
    public static void write(SimConfig c, double offeredLoad, Path file) throws IOException {
        Files.writeString(file, JSON.writeValueAsString(export(c, offeredLoad)));
    }

    private static void refuseWhatMerlinCannotExpress(SimConfig c) {
        String discipline = c.getString("discipline", "buffered").toLowerCase(Locale.ROOT);
        if (!discipline.equals("buffered") && !discipline.equals("lossless")) {
            throw new IllegalArgumentException("SST/Merlin export: discipline '" + discipline + "' drops packets "
                    + "when blocked; Merlin's routers are lossless (credit flow control), so it cannot be expressed");
        }
        String workload = c.getString("workload", "synthetic").toLowerCase(Locale.ROOT);
        if (!workload.equals("synthetic")) {
            throw new IllegalArgumentException("SST/Merlin export: workload '" + workload + "' is not expressible; "
                    + "merlin.offered_load generates open-loop synthetic traffic only (no NIFDY admission, "
                    + "idempotent retransmission, phases or traces)");
        }
        String traffic = c.getString("traffic", "uniform").toLowerCase(Locale.ROOT);
        if (traffic.equals("hotspot")) {
            throw new IllegalArgumentException("SST/Merlin export: Merlin has no hotspot target generator "
                    + "(targetgen: uniform, shift, bit_complement, ...); use uniform or a deterministic pattern");
        }
        String injection = c.getString("injection_process", "bernoulli").toLowerCase(Locale.ROOT);
        if (!injection.equals("bernoulli")) {
            throw new IllegalArgumentException("SST/Merlin export: injection_process '" + injection + "' has no "
                    + "Merlin counterpart; offered_load injects periodically");
        }
    }

    private static String routerName(int r) {
        return "rtr_" + r;
    }

    private static String nodeName(int n) {
        return "nic_" + n;
    }

    private static void partition(ObjectNode component, int ranks, int rank) {
        if (ranks > 1) {
            component.putObject("partition").put("rank", rank);
        }
    }

    private static void link(ArrayNode links, String a, String pa, String b, String pb, String latency) {
        ObjectNode l = links.addObject();
        l.put("name", a + "_" + pa + "__" + b + "_" + pb);
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

    /** @return bytes per second as SST's UnitAlgebra reads it, exact where the rate is a whole GB/s or MB/s */
    private static String rate(double bytesPerSecond) {
        if (bytesPerSecond >= 1e9 && Math.abs(bytesPerSecond / 1e9 - Math.rint(bytesPerSecond / 1e9)) < 1e-9) {
            return (long) Math.rint(bytesPerSecond / 1e9) + "GB/s";
        }
        if (bytesPerSecond >= 1e6 && Math.abs(bytesPerSecond / 1e6 - Math.rint(bytesPerSecond / 1e6)) < 1e-9) {
            return (long) Math.rint(bytesPerSecond / 1e6) + "MB/s";
        }
        return (long) Math.rint(bytesPerSecond) + "B/s";
    }
}
