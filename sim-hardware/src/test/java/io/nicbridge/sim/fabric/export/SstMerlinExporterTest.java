package io.nicbridge.sim.fabric.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nicbridge.sim.traffic.SimConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SstMerlinExporterTest {
    @TempDir
    Path dir;

    private JsonNode exportAndParse(String cfg, double load) throws Exception {
        Path file = dir.resolve("model.json");
        SstMerlinExporter.write(SimConfig.parse(cfg, "test.cfg"), load, file);
        return new ObjectMapper().readTree(Files.readString(file));
    }

    private static Map<String, Integer> countTypes(JsonNode components) {
        Map<String, Integer> m = new HashMap<>();
        components.forEach(c -> m.merge(c.get("type").asText(), 1, Integer::sum));
        return m;
    }

    /** Every link joins two existing components on distinct (component, port) pairs. */
    private static void checkLinks(JsonNode root) {
        Set<String> names = new HashSet<>();
        root.get("components").forEach(c -> names.add(c.get("name").asText()));
        Set<String> usedPorts = new HashSet<>();
        for (JsonNode l : root.get("links")) {
            for (String side : new String[] {"left", "right"}) {
                JsonNode s = l.get(side);
                assertTrue(names.contains(s.get("component").asText()), "unknown component in " + l);
                assertTrue(s.get("latency").asText().endsWith("ps"));
                assertTrue(usedPorts.add(s.get("component").asText() + "/" + s.get("port").asText()),
                        "port used twice: " + l);
            }
        }
    }

    @Test
    void meshHasRoutersEndpointsAndLinksOfAFourByFourMesh() throws Exception {
        JsonNode root = exportAndParse("topology = mesh; k = 4; n = 2; traffic = uniform; packet_size = 4;", 0.3);
        assertEquals("1ps", root.get("program_options").get("timebase").asText());
        JsonNode comps = root.get("components");
        assertEquals(Map.of("merlin.hr_router", 16, "merlin.offered_load", 16), countTypes(comps));
        JsonNode rtr = comps.get(0);
        assertEquals("rtr.0", rtr.get("name").asText());
        JsonNode p = rtr.get("params");
        for (String key : new String[] {"id", "num_ports", "link_bw", "flit_size", "xbar_bw", "input_latency",
                "output_latency", "input_buf_size", "output_buf_size"}) {
            assertTrue(p.has(key), "router param " + key);
        }
        assertEquals("5", p.get("num_ports").asText());
        assertEquals("4GB/s", p.get("link_bw").asText());
        assertEquals("4B", p.get("flit_size").asText());
        JsonNode topo = rtr.get("subcomponents").get(0);
        assertEquals("topology", topo.get("slot_name").asText());
        assertEquals("merlin.mesh", topo.get("type").asText());
        assertEquals("4x4", topo.get("params").get("shape").asText());
        JsonNode nic = comps.get(16);
        assertEquals("nic.0", nic.get("name").asText());
        assertEquals("16", nic.get("params").get("num_peers").asText());
        assertEquals("0.3", nic.get("params").get("offered_load").asText());
        assertEquals("merlin.targetgen.uniform", nic.get("subcomponents").get(0).get("type").asText());
        // 2 * 4 * 3 mesh channels + 16 host links.
        assertEquals(24 + 16, root.get("links").size());
        checkLinks(root);
    }

    @Test
    void torusWrapsAroundAndPermutationsBecomeShifts() throws Exception {
        JsonNode root = exportAndParse("topology = torus; k = 4; n = 2; traffic = bitcomp;", 0.5);
        assertEquals(32 + 16, root.get("links").size());
        JsonNode comps = root.get("components");
        assertEquals("merlin.torus", comps.get(0).get("subcomponents").get(0).get("type").asText());
        // Bit complement of node 1 on 16 nodes is 14: shift 13.
        JsonNode gen = comps.get(16 + 1).get("subcomponents").get(0);
        assertEquals("merlin.targetgen.shift", gen.get("type").asText());
        assertEquals("13", gen.get("params").get("shift").asText());
        checkLinks(root);
    }

    @Test
    void fatTreeHasLevelsOfRoutersAndUpLinks() throws Exception {
        JsonNode root = exportAndParse("topology = fattree; k = 4; n = 3;", 0.2);
        Map<String, Integer> types = countTypes(root.get("components"));
        assertEquals(48, types.get("merlin.hr_router"));
        assertEquals(64, types.get("merlin.offered_load"));
        // 16 routers x 4 up links at each of the two lower levels + 64 hosts.
        assertEquals(2 * 16 * 4 + 64, root.get("links").size());
        assertEquals("4,4:4,4:4",
                root.get("components").get(0).get("subcomponents").get(0).get("params").get("shape").asText());
        checkLinks(root);
    }

    @Test
    void unsupportedTopologiesAndPatternsAreRefusedWithTheReason() {
        IllegalArgumentException fly = assertThrows(IllegalArgumentException.class,
                () -> SstMerlinExporter.export(SimConfig.parse("topology = butterfly; k = 4; n = 3;", "t"), 0.1));
        assertTrue(fly.getMessage().contains("butterfly"), fly.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> SstMerlinExporter.export(SimConfig.parse("traffic = hotspot; k = 4;", "t"), 0.1));
        assertThrows(IllegalArgumentException.class,
                () -> SstMerlinExporter.export(SimConfig.parse("k = 4;", "t"), 1.5));
    }
}
