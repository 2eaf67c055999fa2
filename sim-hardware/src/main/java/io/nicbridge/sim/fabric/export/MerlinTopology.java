package io.nicbridge.sim.fabric.export;

import io.nicbridge.sim.fabric.FatTree;
import io.nicbridge.sim.fabric.KaryNCube;
import io.nicbridge.sim.fabric.Topology;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One of our topologies as Merlin builds it: the topology subcomponent's type and parameters, each router's
 * port count, the router-router wiring and the (router, port) where every endpoint attaches. Endpoint ids are
 * Merlin's, which the traffic patterns need: Merlin numbers endpoints itself from the router and port
 * ({@code getEndpointID}), never from the component's name or an {@code id} parameter.
 *
 * <p>Sources (sst-elements v16.0.0, {@code src/sst/elements/merlin/topology/}):
 * <ul>
 *   <li>{@code mesh.cc} / {@code torus.cc}: {@code shape} "AxBxC" with dimension 0 first and fastest
 *       ({@code idToLocation}); per dimension a + port then a - port ({@code port_start[d][0..1]}, width 1);
 *       the local ports last ({@code local_port_start = needed_ports}); endpoint id
 *       {@code router_id * local_ports + (port - local_port_start)}. The mesh reports its edge ports
 *       UNCONNECTED ({@code getPortState}); the torus has none. One VC per VN on the mesh, two (the dateline
 *       pair) on the torus ({@code getVCsPerVN} in mesh.h / torus.h).</li>
 *   <li>{@code fattree.cc}: {@code shape} "down,up:down,up:...:down" level 0 first; routers numbered level by
 *       level; ports 0..down-1 down, then the up ports; endpoint id {@code low_host + port} at level 0; one VC
 *       per VN with {@code routing_alg = deterministic}.</li>
 * </ul>
 *
 * @param merlinType   topology subcomponent type
 * @param params       its parameters (all strings, as SST's JSON loader requires)
 * @param ports        port count of each router
 * @param routerLinks  {router a, port a, router b, port b} per router-router link
 * @param hostPort     {router, port} of each Merlin endpoint id
 * @param vcsPerVn     Merlin's VCs per virtual network on this topology
 * @param routerRank   MPI rank hint per router for {@code ranks} ranks (nodes go with their router)
 */
record MerlinTopology(String merlinType, Map<String, String> params, int[] ports, List<int[]> routerLinks,
                     int[][] hostPort, int vcsPerVn, int[] routerRank) {

    int routers() {
        return ports.length;
    }

    int nodes() {
        return hostPort.length;
    }

    /**
     * @return our topology as Merlin's, or an {@link IllegalArgumentException} saying why Merlin cannot
     *         express it
     */
    static MerlinTopology of(Topology t, int ranks) {
        if (ranks < 1) {
            throw new IllegalArgumentException("sst_ranks must be >= 1, got " + ranks);
        }
        if (t instanceof KaryNCube cube) {
            return cube(cube, ranks);
        }
        if (t instanceof FatTree tree) {
            return fatTree(tree, ranks);
        }
        throw new IllegalArgumentException("SST/Merlin export: '" + t.name() + "' has no Merlin equivalent. Merlin's "
                + "endpoints (merlin.linkcontrol) have exactly one bidirectional port 'rtr', so a butterfly or "
                + "multibutterfly, whose nodes inject at the first stage and eject at the last, cannot be built; "
                + "Merlin's own topologies are mesh, torus, fattree, dragonfly, hyperx, polarfly/polarstar and anytopo");
    }

    private static MerlinTopology cube(KaryNCube cube, int ranks) {
        if (cube.isAdaptive()) {
            throw new IllegalArgumentException("SST/Merlin export: '" + cube.name() + "' routes adaptively; Merlin's "
                    + "merlin.mesh and merlin.torus route in dimension order only (mesh.cc/torus.cc route_packet)");
        }
        int dims = cube.dimensions();
        boolean torus = cube.isTorus();
        StringBuilder shape = new StringBuilder();
        StringBuilder width = new StringBuilder();
        for (int d = 0; d < dims; d++) {
            if (torus && cube.radix(d) < 3) {
                throw new IllegalArgumentException("SST/Merlin export: a torus dimension of radix " + cube.radix(d)
                        + " has its + and - neighbour on the same router, which merlin.torus wires as two links; "
                        + "export it as a mesh");
            }
            shape.append(d == 0 ? "" : "x").append(cube.radix(d));
            width.append(d == 0 ? "" : "x").append(1);
        }
        int routers = cube.routers();
        int[] ports = new int[routers];
        java.util.Arrays.fill(ports, 2 * dims + 1);
        List<int[]> links = new ArrayList<>();
        int place = 1;
        for (int d = 0; d < dims; d++) {
            int k = cube.radix(d);
            for (int r = 0; r < routers; r++) {
                int coord = cube.coord(r, d);
                if (coord + 1 < k) {
                    links.add(new int[] {r, 2 * d, r + place, 2 * d + 1});
                } else if (torus) {
                    links.add(new int[] {r, 2 * d, r - coord * place, 2 * d + 1});
                }
            }
            place *= k;
        }
        int[][] host = new int[routers][];
        int[] rank = new int[routers];
        for (int r = 0; r < routers; r++) {
            host[r] = new int[] {r, 2 * dims};
            // Contiguous id blocks are slabs across the slowest dimension: few cut links per rank.
            rank[r] = (int) ((long) r * ranks / routers);
        }
        Map<String, String> p = new LinkedHashMap<>();
        p.put("shape", shape.toString());
        p.put("width", width.toString());
        p.put("local_ports", "1");
        return new MerlinTopology(torus ? "merlin.torus" : "merlin.mesh", p, ports, links, host, torus ? 2 : 1, rank);
    }

    /**
     * k-ary n-tree: n levels of k^(n-1) routers; level-l router w's up port k+u leads to the level-(l+1) router
     * with base-k digit l of w replaced by u, arriving on its down port (digit l of w). This is the wiring under
     * which fattree.cc's {@code route_deterministic} (up port {@code (dest / down_route_factor) % up}, down port
     * {@code (dest - low_host) / down_route_factor}) reaches every destination.
     */
    private static MerlinTopology fatTree(FatTree tree, int ranks) {
        int k = tree.arity();
        int levels = tree.levels();
        if (tree.nodeLinks() != 1) {
            throw new IllegalArgumentException("SST/Merlin export: '" + tree.name() + "' attaches each node to "
                    + tree.nodeLinks() + " level-0 routers (the CM-5's two up-links); a Merlin endpoint has exactly "
                    + "one port 'rtr' (linkControl.cc), so this tree cannot be expressed. Its taper alone would be "
                    + "shape \"4,2:4,2:4,4:...\" with one link per node, which is a different network");
        }
        for (int l = 0; l + 1 < levels; l++) {
            if (tree.parents(l) != k) {
                throw new IllegalArgumentException("SST/Merlin export: '" + tree.name() + "' has " + tree.parents(l)
                        + " parents at level " + l + "; only the full k-ary tree is exported");
            }
        }
        int perLevel = tree.nodes() / k;
        int routers = perLevel * levels;
        int[] ports = new int[routers];
        int[] rank = new int[routers];
        for (int l = 0; l < levels; l++) {
            for (int w = 0; w < perLevel; w++) {
                ports[l * perLevel + w] = l + 1 < levels ? 2 * k : k;
                rank[l * perLevel + w] = (int) ((long) w * ranks / perLevel);
            }
        }
        List<int[]> links = new ArrayList<>();
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
        int[][] host = new int[tree.nodes()][];
        for (int x = 0; x < host.length; x++) {
            host[x] = new int[] {x / k, x % k};
        }
        StringBuilder shape = new StringBuilder();
        for (int l = 0; l < levels; l++) {
            shape.append(l == 0 ? "" : ":").append(k);
            if (l + 1 < levels) {
                shape.append(',').append(k);
            }
        }
        Map<String, String> p = new LinkedHashMap<>();
        p.put("shape", shape.toString());
        p.put("routing_alg", "deterministic");
        return new MerlinTopology("merlin.fattree", p, ports, links, host, 1, rank);
    }
}
