package io.nicbridge.sim.fabric.export;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What SST 16.0 (sst-core 431d0bc9, sst-elements f782290d) does with a JSON model built from
 * {@code merlin.hr_router} and {@code merlin.offered_load}, as a list of the reasons it would fail, warn or
 * silently run something else. Independent of the exporter: it re-derives Merlin's endpoint numbering and port
 * states from the topology parameters, as the C++ does.
 * <ul>
 *   <li>Loader ({@code sst-core src/sst/core/model/json/jsonmodel.cc}, SAX handler): the keys each object may
 *       have, parameter values only as strings, {@code slot_number} / partition {@code rank} integers,
 *       {@code noCut} boolean, components declared before links naming them.</li>
 *   <li>Names ({@code namecheck.cc}, {@code configGraph.cc checkForValidComponentName / LinkName}).</li>
 *   <li>Ports ({@code configComponent.cc checkPorts}): a port the component documents, used once.</li>
 *   <li>Each component's parameters as its constructor reads them ({@code hr_router.cc},
 *       {@code portControl.cc}, {@code topology/mesh.cc, torus.cc, fattree.cc}, {@code offered_load.cc},
 *       {@code target_generator/uniform.h, shift.h}).</li>
 * </ul>
 */
final class SstModelValidator {
    private static final Set<String> ROOT_KEYS = Set.of("program_options", "shared_params", "statistics_options",
            "statistics_group", "components", "links");
    private static final Set<String> COMPONENT_KEYS = Set.of("name", "type", "params", "statistics_options",
            "statistics", "subcomponents", "params_shared_sets", "partition", "port_modules");
    private static final Set<String> SUBCOMPONENT_KEYS = Set.of("slot_name", "type", "slot_number", "params",
            "statistics_options", "statistics", "subcomponents", "params_shared_sets", "port_modules");
    private static final Set<String> LINK_KEYS = Set.of("name", "noCut", "no_cut", "nonlocal", "left", "right");
    private static final Set<String> LINK_END_KEYS = Set.of("component", "port", "latency", "rank", "thread");
    private static final Set<String> TARGET_GENERATORS = Set.of("merlin.targetgen.uniform", "merlin.targetgen.shift",
            "merlin.targetgen.bit_complement");
    private static final Pattern UNIT = Pattern.compile("\\s*([0-9.]+(?:[eE][-+]?[0-9]+)?)\\s*([kMGTmunpf]?)(.*)");

    private final List<String> errors = new ArrayList<>();

    private SstModelValidator() {
    }

    /** @return every reason SST would not run {@code root} as the model it claims to be; empty if it would */
    static List<String> check(JsonNode root) {
        SstModelValidator v = new SstModelValidator();
        v.validate(root);
        return v.errors;
    }

    private void error(String s) {
        errors.add(s);
    }

    private void validate(JsonNode root) {
        List<String> order = new ArrayList<>();
        root.fieldNames().forEachRemaining(order::add);
        for (String k : order) {
            if (!ROOT_KEYS.contains(k)) {
                error("loader: unknown top-level key '" + k + "'");
            }
        }
        if (order.indexOf("links") >= 0 && order.indexOf("links") < order.indexOf("components")) {
            error("loader: links precede the components they name (jsonmodel.cc findComponentIdByName)");
        }
        JsonNode options = root.path("program_options");
        options.fields().forEachRemaining(e -> {
            if (!e.getValue().isTextual()) {
                error("loader: program option '" + e.getKey() + "' is not a string");
            }
        });
        boolean selfPartition = "sst.self".equals(options.path("partitioner").asText(null));

        Map<String, JsonNode> byName = new HashMap<>();
        for (JsonNode c : root.path("components")) {
            checkKeys(c, COMPONENT_KEYS, "component " + c.path("name").asText());
            String name = c.path("name").asText();
            if (!c.path("name").isTextual() || !c.path("type").isTextual()) {
                error("loader: component needs string 'name' and 'type': " + name);
            }
            if (!validName(name, true)) {
                error("namecheck: component name '" + name + "' is not valid");
            }
            if (byName.put(name, c) != null) {
                error("loader: duplicate component name '" + name + "'");
            }
            checkParams(c.path("params"), "component " + name);
            if (c.has("partition")) {
                JsonNode part = c.get("partition");
                if (!part.path("rank").isIntegralNumber()) {
                    error("loader: partition rank of " + name + " is not an integer");
                }
                if (!selfPartition) {
                    error("partition of " + name + " is ignored unless program option partitioner = sst.self");
                }
            }
            for (JsonNode s : c.path("subcomponents")) {
                checkKeys(s, SUBCOMPONENT_KEYS, "subcomponent of " + name);
                if (s.has("slot_number") && !s.get("slot_number").isIntegralNumber()) {
                    error("loader: slot_number of a subcomponent of " + name + " is not an integer");
                }
                checkParams(s.path("params"), "subcomponent of " + name);
            }
        }

        Map<String, Map<String, String>> portUse = new HashMap<>();
        for (JsonNode l : root.path("links")) {
            String lname = l.path("name").asText();
            checkKeys(l, LINK_KEYS, "link " + lname);
            if (!validName(lname, true)) {
                error("namecheck: link name '" + lname + "' is not valid");
            }
            if (l.has("noCut") && !l.get("noCut").isBoolean()) {
                error("loader: noCut of link " + lname + " is not a boolean");
            }
            for (String side : new String[] {"left", "right"}) {
                JsonNode end = l.path(side);
                checkKeys(end, LINK_END_KEYS, side + " of link " + lname);
                String comp = end.path("component").asText();
                String port = end.path("port").asText();
                JsonNode c = byName.get(comp);
                if (c == null) {
                    error("loader: link " + lname + " names undeclared component '" + comp + "'");
                    continue;
                }
                if (parse(end.path("latency").asText(), "s") == null) {
                    error("link " + lname + ": latency '" + end.path("latency").asText() + "' is not a time");
                }
                if (!documentedPort(c, port)) {
                    error("checkPorts: unknown port '" + port + "' in component " + comp + " of type "
                            + c.path("type").asText());
                }
                String before = portUse.computeIfAbsent(comp, x -> new HashMap<>()).put(port, lname);
                if (before != null) {
                    error("checkPorts: port " + comp + "." + port + " has two links (" + before + ", " + lname + ")");
                }
            }
        }

        int nics = 0;
        for (JsonNode c : root.path("components")) {
            if (c.path("type").asText().equals("merlin.offered_load")) {
                nics++;
            }
        }
        Map<String, Long> endpointIds = new HashMap<>();
        for (JsonNode c : root.path("components")) {
            String name = c.path("name").asText();
            Map<String, String> used = portUse.getOrDefault(name, Map.of());
            switch (c.path("type").asText()) {
                case "merlin.hr_router" -> checkRouter(c, used);
                case "merlin.offered_load" -> checkOfferedLoad(c, used, nics, byName, portUse, endpointIds);
                default -> error("component " + name + ": type " + c.path("type").asText() + " is not modelled here");
            }
        }
        if (errors.isEmpty()) {
            checkEveryPairIsRouted(root, byName, endpointIds, nics);
        }
    }

    /**
     * Follows Merlin's own routing function (mesh.cc / torus.cc / fattree.cc {@code route_packet}, deterministic)
     * hop by hop over the file's links from every endpoint to every other: each packet must arrive at the
     * endpoint it was addressed to, within a bounded number of hops.
     */
    private void checkEveryPairIsRouted(JsonNode root, Map<String, JsonNode> byName, Map<String, Long> endpointIds,
                                        int nics) {
        Map<String, String[]> peer = new HashMap<>();
        for (JsonNode l : root.path("links")) {
            String a = l.path("left").path("component").asText() + "/" + l.path("left").path("port").asText();
            String b = l.path("right").path("component").asText() + "/" + l.path("right").path("port").asText();
            peer.put(a, b.split("/"));
            peer.put(b, a.split("/"));
        }
        String[] nicOf = new String[nics];
        endpointIds.forEach((name, id) -> nicOf[(int) (long) id] = name);
        int maxHops = 4 * byName.size();
        for (int src = 0; src < nics; src++) {
            for (int dst = 0; dst < nics; dst++) {
                if (src == dst) {
                    continue;
                }
                String[] at = peer.get(nicOf[src] + "/rtr");
                int hops = 0;
                while (at != null && byName.get(at[0]).path("type").asText().equals("merlin.hr_router")
                        && hops++ < maxHops) {
                    JsonNode router = byName.get(at[0]);
                    int out = route(topology(router), router.path("params").path("id").asInt(), dst);
                    at = peer.get(at[0] + "/port" + out);
                }
                if (at == null || !at[0].equals(nicOf[dst])) {
                    error("routing: a packet from endpoint " + src + " to " + dst + " ends at "
                            + (at == null ? "an unlinked port" : at[0]) + " after " + hops + " hops");
                    return;
                }
            }
        }
    }

    private static JsonNode topology(JsonNode router) {
        for (JsonNode s : router.path("subcomponents")) {
            if (s.path("slot_name").asText().equals("topology")) {
                return s;
            }
        }
        throw new IllegalStateException("checked before: router without topology");
    }

    private static int route(JsonNode topo, int rid, int dest) {
        if (topo.path("type").asText().equals("merlin.fattree")) {
            FatTreeShape s = FatTreeShape.parse(topo);
            int level = s.level(rid);
            int lid = rid;
            int groupSize = 1;
            for (int i = 0; i < level; i++) {
                lid -= s.perLevel[i];
                groupSize *= s.ups[i];
            }
            int span = 1;
            for (int i = 0; i <= level; i++) {
                span *= s.downs[i];
            }
            int downRouteFactor = span / s.downs[level];
            int low = lid / groupSize * span;
            if (dest >= low && dest < low + span) {
                return (dest - low) / downRouteFactor;
            }
            return s.downs[level] + (dest / downRouteFactor) % s.ups[level];
        }
        int[] size = dims(topo);
        int local = topo.path("params").path("local_ports").asInt(1);
        int destRouter = dest / local;
        if (destRouter == rid) {
            return 2 * size.length + dest % local;
        }
        boolean torus = topo.path("type").asText().equals("merlin.torus");
        int here = rid;
        int there = destRouter;
        for (int d = 0; d < size.length; d++) {
            int a = here % size[d];
            int b = there % size[d];
            here /= size[d];
            there /= size[d];
            if (a != b) {
                boolean goPos;
                if (torus) {
                    int distPos = Math.floorMod(b - a, size[d]);
                    int distNeg = Math.floorMod(a - b, size[d]);
                    goPos = distPos <= distNeg;
                } else {
                    goPos = a < b;
                }
                return 2 * d + (goPos ? 0 : 1);
            }
        }
        throw new IllegalStateException("unreachable: routers differ in some dimension");
    }

    private void checkKeys(JsonNode o, Set<String> allowed, String where) {
        Iterator<String> it = o.fieldNames();
        while (it.hasNext()) {
            String k = it.next();
            if (!allowed.contains(k)) {
                error("loader: unexpected key '" + k + "' in " + where);
            }
        }
    }

    private void checkParams(JsonNode params, String where) {
        params.fields().forEachRemaining(e -> {
            if (!e.getValue().isTextual()) {
                error("loader: parameter '" + e.getKey() + "' of " + where + " is not a string (unexpected parser "
                        + "state)");
            }
        });
    }

    /** namecheck.cc isNameValid without wildcards: words of [A-Za-z_][A-Za-z0-9_]*, '_' not alone, dot-joined. */
    static boolean validName(String name, boolean allowDot) {
        int state = 0;
        boolean valid = false;
        for (char ch : name.toCharArray()) {
            boolean letter = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
            boolean digit = ch >= '0' && ch <= '9';
            switch (state) {
                case 0 -> {
                    if (ch == '_') {
                        state = 1;
                        valid = false;
                    } else if (letter) {
                        state = 2;
                        valid = true;
                    } else {
                        return false;
                    }
                }
                case 1 -> {
                    if (!letter && !digit) {
                        return false;
                    }
                    state = 2;
                    valid = true;
                }
                default -> {
                    if (allowDot && ch == '.') {
                        state = 0;
                        valid = false;
                    } else if (!letter && !digit && ch != '_') {
                        return false;
                    }
                }
            }
        }
        return valid;
    }

    private static boolean documentedPort(JsonNode c, String port) {
        return switch (c.path("type").asText()) {
            // hr_router.h documents "port%(num_ports)d"; only ports 0..num_ports-1 are configured.
            case "merlin.hr_router" -> port.matches("port[0-9]+")
                    && Integer.parseInt(port.substring(4)) < c.path("params").path("num_ports").asInt(0);
            case "merlin.offered_load" -> port.equals("rtr");
            default -> false;
        };
    }

    private String param(JsonNode c, String key, String why) {
        JsonNode v = c.path("params").get(key);
        if (v == null) {
            error(c.path("type").asText() + " " + c.path("name").asText() + ": '" + key + "' missing (" + why + ")");
            return null;
        }
        return v.asText();
    }

    private void checkRouter(JsonNode c, Map<String, String> used) {
        String name = c.path("name").asText();
        String id = param(c, "id", "hr_router.cc fatal 'requires id'");
        String ports = param(c, "num_ports", "hr_router.cc fatal 'requires num_ports'");
        Double flit = parseSize(param(c, "flit_size", "hr_router.cc fatal 'requires flit_size'"), name, "flit_size");
        Double link = parseRate(param(c, "link_bw", "hr_router.cc getLogicalGroupParam fatal"), name, "link_bw");
        Double xbar = parseRate(param(c, "xbar_bw", "hr_router.cc fatal 'requires xbar_bw'"), name, "xbar_bw");
        Double in = parseSize(param(c, "input_buf_size", "portControl.cc fatal"), name, "input_buf_size");
        Double out = parseSize(param(c, "output_buf_size", "portControl.cc fatal"), name, "output_buf_size");
        if (link != null && xbar != null && xbar < link) {
            error(name + ": xbar_bw < link_bw (hr_router.cc fatal)");
        }
        if (flit != null && in != null && in < flit) {
            error(name + ": input buffer smaller than a flit");
        }
        if (flit != null && out != null && out < flit) {
            error(name + ": output buffer smaller than a flit");
        }
        JsonNode topo = null;
        for (JsonNode s : c.path("subcomponents")) {
            if (s.path("slot_name").asText().equals("topology")) {
                topo = s;
            }
        }
        if (topo == null || id == null || ports == null) {
            error(name + ": hr_router requires topology to be specified in input file");
            return;
        }
        int numPorts = Integer.parseInt(ports);
        int rid = Integer.parseInt(id);
        for (int p = 0; p < numPorts; p++) {
            boolean connected = portConnected(topo, rid, p);
            boolean linked = used.containsKey("port" + p);
            if (connected && !linked) {
                error(name + ": port" + p + " is connected in the topology but has no link");
            }
            if (!connected && linked) {
                error(name + ": port" + p + " is UNCONNECTED in the topology but has a link");
            }
        }
        int needed = switch (topo.path("type").asText()) {
            case "merlin.mesh", "merlin.torus" -> 2 * dims(topo).length + topo.path("params").path("local_ports")
                    .asInt(1);
            case "merlin.fattree" -> 0;
            default -> {
                error(name + ": unknown topology " + topo.path("type").asText());
                yield 0;
            }
        };
        if (numPorts < needed) {
            error(name + ": num_ports " + numPorts + " < " + needed + " (mesh.cc/torus.cc fatal)");
        }
        if (topo.path("type").asText().equals("merlin.fattree")) {
            String alg = topo.path("params").path("routing_alg").asText("deterministic");
            if (!alg.equals("deterministic") && !alg.equals("adaptive")) {
                error(name + ": unknown fattree routing_alg " + alg);
            }
        }
    }

    private static int[] dims(JsonNode topo) {
        String[] parts = topo.path("params").path("shape").asText("").split("x");
        int[] d = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            d[i] = Integer.parseInt(parts[i].trim());
        }
        return d;
    }

    /** mesh.cc / torus.cc / fattree.cc getPortState: is port p of router rid wired (R2R or R2N)? */
    private static boolean portConnected(JsonNode topo, int rid, int p) {
        switch (topo.path("type").asText()) {
            case "merlin.mesh", "merlin.torus" -> {
                int[] size = dims(topo);
                int local = topo.path("params").path("local_ports").asInt(1);
                if (p >= 2 * size.length) {
                    return p < 2 * size.length + local;
                }
                if (topo.path("type").asText().equals("merlin.torus")) {
                    return true;
                }
                int d = p / 2;
                int rest = rid;
                for (int i = 0; i < d; i++) {
                    rest /= size[i];
                }
                int coord = rest % size[d];
                return p % 2 == 0 ? coord != size[d] - 1 : coord != 0;
            }
            case "merlin.fattree" -> {
                FatTreeShape s = FatTreeShape.parse(topo);
                int level = s.level(rid);
                return p < s.downs[level] + s.ups[level];
            }
            default -> {
                return false;
            }
        }
    }

    /** Endpoint id Merlin assigns to router rid's port p (getEndpointID), or -1 if p is not a host port. */
    private static long endpointId(JsonNode topo, int rid, int p) {
        switch (topo.path("type").asText()) {
            case "merlin.mesh", "merlin.torus" -> {
                int lps = 2 * dims(topo).length;
                int local = topo.path("params").path("local_ports").asInt(1);
                return p >= lps && p < lps + local ? (long) rid * local + (p - lps) : -1;
            }
            case "merlin.fattree" -> {
                FatTreeShape s = FatTreeShape.parse(topo);
                return s.level(rid) == 0 && p < s.downs[0] ? (long) rid * s.downs[0] + p : -1;
            }
            default -> {
                return -1;
            }
        }
    }

    private record FatTreeShape(int[] downs, int[] ups, int[] perLevel) {
        static FatTreeShape parse(JsonNode topo) {
            String[] levels = topo.path("params").path("shape").asText().split(":");
            int[] downs = new int[levels.length];
            int[] ups = new int[levels.length];
            int hosts = 1;
            for (int i = 0; i < levels.length; i++) {
                String[] du = levels[i].split(",");
                downs[i] = Integer.parseInt(du[0].trim());
                ups[i] = du.length > 1 ? Integer.parseInt(du[1].trim()) : 0;
                hosts *= downs[i];
            }
            int[] per = new int[levels.length];
            per[0] = hosts / downs[0];
            for (int i = 1; i < levels.length; i++) {
                per[i] = per[i - 1] * ups[i - 1] / downs[i];
            }
            return new FatTreeShape(downs, ups, per);
        }

        int level(int rid) {
            int count = 0;
            for (int i = 0; i < perLevel.length; i++) {
                count += perLevel[i];
                if (rid < count) {
                    return i;
                }
            }
            return perLevel.length - 1;
        }
    }

    private void checkOfferedLoad(JsonNode c, Map<String, String> used, int nics, Map<String, JsonNode> byName,
                                  Map<String, Map<String, String>> portUse, Map<String, Long> endpointIds) {
        String name = c.path("name").asText();
        String load = param(c, "offered_load", "offered_load.cc fatal 'offered_load must be set!'");
        if (load != null) {
            // params.h find_array: "[a, b]" is an array, anything else one value.
            String list = load.startsWith("[") && load.endsWith("]") ? load.substring(1, load.length() - 1) : load;
            for (String one : list.split(",")) {
                double l = Double.parseDouble(one.trim());
                if (!(l > 0 && l <= 1)) {
                    error(name + ": offered_load " + l + " outside (0, 1]");
                }
            }
        }
        String peers = param(c, "num_peers", "offered_load.cc fatal 'num_peers must be set!'");
        if (peers != null && Integer.parseInt(peers) != nics) {
            error(name + ": num_peers " + peers + " but the model has " + nics + " endpoints");
        }
        parseRate(param(c, "link_bw", "offered_load.cc fatal 'link_bw must be set!'"), name, "link_bw");
        String pattern = param(c, "pattern", "offered_load.cc fatal 'pattern must be set!'");
        if (c.path("params").has("packet_size") && !c.path("params").has("message_size")) {
            error(name + ": packet_size is never read; offered_load.cc reads message_size (default 64b)");
        }
        for (JsonNode s : c.path("subcomponents")) {
            if (s.path("slot_name").asText().equals("pattern_gen")) {
                error(name + ": a pattern_gen subcomponent is never used; offered_load.cc builds the generator from "
                        + "'pattern' and 'pattern.*'");
            }
        }
        Double message = parseSize(c.path("params").path("message_size").asText("64b"), name, "message_size");
        Double buffer = parseSize(c.path("params").path("buffer_size").asText("1kB"), name, "buffer_size");
        if (message != null && buffer != null && buffer < message) {
            error(name + ": buffer_size smaller than one message; linkcontrol could never send it");
        }
        String link = used.get("rtr");
        if (link == null) {
            error(name + ": port 'rtr' must be connected (linkControl.cc fatal)");
            return;
        }
        long id = -1;
        JsonNode router = null;
        int rport = -1;
        for (Map.Entry<String, Map<String, String>> e : portUse.entrySet()) {
            for (Map.Entry<String, String> pe : e.getValue().entrySet()) {
                if (pe.getValue().equals(link) && !e.getKey().equals(name)) {
                    router = byName.get(e.getKey());
                    rport = pe.getKey().startsWith("port") ? Integer.parseInt(pe.getKey().substring(4)) : -1;
                }
            }
        }
        if (router == null || !router.path("type").asText().equals("merlin.hr_router") || rport < 0) {
            error(name + ": 'rtr' is not linked to a router port");
            return;
        }
        for (JsonNode s : router.path("subcomponents")) {
            if (s.path("slot_name").asText().equals("topology")) {
                id = endpointId(s, router.path("params").path("id").asInt(), rport);
                Double routerBuf = parseSize(router.path("params").path("input_buf_size").asText(), name, "router");
                if (message != null && routerBuf != null && routerBuf < message) {
                    error(name + ": message_size exceeds the router's VC buffer; hr_router moves whole packets "
                            + "(portControl.cc xbar_in_credits)");
                }
            }
        }
        if (id < 0 || id >= nics) {
            error(name + ": attached to " + router.path("name").asText() + ".port" + rport
                    + ", which is not a host port with an endpoint id below num_peers");
            return;
        }
        if (endpointIds.containsValue(id)) {
            error(name + ": endpoint id " + id + " taken twice");
        }
        endpointIds.put(name, id);
        if (pattern == null) {
            return;
        }
        if (!TARGET_GENERATORS.contains(pattern)) {
            error(name + ": unknown pattern " + pattern);
        }
        JsonNode p = c.path("params");
        if (pattern.equals("merlin.targetgen.uniform")) {
            int min = p.path("pattern.min").asInt(0);
            int max = p.has("pattern.max") ? p.path("pattern.max").asInt() : nics - 1;
            if (min < 0 || max > nics - 1 || max < min) {
                error(name + ": uniform range [" + min + ", " + max + "] (inclusive since sst-elements 15.1, "
                        + "uniform.h) leaves the endpoints 0.." + (nics - 1));
            }
            if (max == min && min == id) {
                error(name + ": uniform generator can only draw the sender; offered_load loops forever");
            }
        } else if (pattern.equals("merlin.targetgen.shift")) {
            if (!p.has("pattern.shift")) {
                error(name + ": shift must be specified in targetgen.shift (shift.h fatal)");
            } else if (Math.floorMod(id + p.path("pattern.shift").asLong(), nics) == id) {
                error(name + ": shift sends endpoint " + id + " to itself; offered_load redraws forever");
            }
        } else if (pattern.equals("merlin.targetgen.bit_complement") && nics - 1 - id == id) {
            error(name + ": bit complement of " + id + " is itself; offered_load redraws forever");
        }
    }

    private Double parseSize(String v, String where, String key) {
        if (v == null) {
            return null;
        }
        Double bits = parse(v, "b");
        Double bytes = parse(v, "B");
        if (bits == null && bytes == null) {
            error(where + ": " + key + " '" + v + "' is not in b or B (UnitAlgebra)");
            return null;
        }
        return bits != null ? bits : bytes * 8;
    }

    private Double parseRate(String v, String where, String key) {
        if (v == null) {
            return null;
        }
        Double bits = parse(v, "b/s");
        Double bytes = parse(v, "B/s");
        if (bits == null && bytes == null) {
            error(where + ": " + key + " '" + v + "' is not in b/s or B/s (UnitAlgebra)");
            return null;
        }
        return bits != null ? bits : bytes * 8;
    }

    /** @return the value in base units if {@code v} is a number with an optional SI prefix and {@code unit} */
    static Double parse(String v, String unit) {
        Matcher m = UNIT.matcher(v);
        if (!m.matches() || !m.group(3).trim().equals(unit)) {
            return null;
        }
        double scale = switch (m.group(2)) {
            case "k" -> 1e3;
            case "M" -> 1e6;
            case "G" -> 1e9;
            case "T" -> 1e12;
            case "m" -> 1e-3;
            case "u" -> 1e-6;
            case "n" -> 1e-9;
            case "p" -> 1e-12;
            case "f" -> 1e-15;
            default -> 1;
        };
        return Double.parseDouble(m.group(1)) * scale;
    }
}
