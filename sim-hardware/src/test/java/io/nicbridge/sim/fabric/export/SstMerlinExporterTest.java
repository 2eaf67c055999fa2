package io.nicbridge.sim.fabric.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.nicbridge.sim.fabric.Topologies;
import io.nicbridge.sim.traffic.SimConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SstMerlinExporterTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private JsonNode exportAndParse(String cfg, double load) throws Exception {
        Path file = dir.resolve("model.json");
        SstMerlinExporter.write(SimConfig.parse(cfg, "test.cfg"), load, file);
        return JSON.readTree(Files.readString(file));
    }

    private static void assertRuns(JsonNode model) {
        List<String> errors = SstModelValidator.check(model);
        assertTrue(errors.isEmpty(), () -> "SST would not run the model: " + errors);
    }

    private static JsonNode component(JsonNode root, String name) {
        for (JsonNode c : root.get("components")) {
            if (c.get("name").asText().equals(name)) {
                return c;
            }
        }
        throw new AssertionError("no component " + name);
    }

    @Test
    void theExportBeforeIssue21IsRejectedForEachReasonSstWouldFailOrMisrun() throws IOException {
        JsonNode old;
        try (InputStream in = getClass().getResourceAsStream("fattree64-sst-before-issue21.json")) {
            old = JSON.readTree(in);
        }
        List<String> errors = SstModelValidator.check(old);
        String all = String.join("\n", errors);
        assertTrue(all.contains("nic.0: 'pattern' missing"), all);
        assertTrue(all.contains("nic.0: packet_size is never read"), all);
        assertTrue(all.contains("nic.0: a pattern_gen subcomponent is never used"), all);
        assertTrue(all.contains("namecheck: component name 'rtr.0' is not valid"), all);
        assertTrue(all.contains("namecheck: link name 'rtr.0:port4--rtr.16:port0' is not valid"), all);
        // The structure was right: no port, wiring or endpoint-numbering complaints.
        assertFalse(all.contains("checkPorts"), all);
        assertFalse(all.contains("has no link"), all);
        assertFalse(all.contains("endpoint id"), all);
    }

    @Test
    void theValidatorCatchesLoaderAndPatternErrorsTheOldFileDidNotHave() throws Exception {
        ObjectNode model = (ObjectNode) exportAndParse("topology = mesh; k = 4; n = 2;", 0.3);
        ObjectNode nic = (ObjectNode) component(model, "nic_5").get("params");
        nic.put("pattern.max", "16");
        ((ObjectNode) component(model, "rtr_0").get("params")).put("num_vns", 1);
        ((ObjectNode) component(model, "nic_6").get("params")).put("pattern", "merlin.targetgen.shift");
        ((ObjectNode) component(model, "nic_6").get("params")).put("pattern.shift", "16");
        String all = String.join("\n", SstModelValidator.check(model));
        assertTrue(all.contains("nic_5: uniform range [0, 16]"), all);
        assertTrue(all.contains("parameter 'num_vns' of component rtr_0 is not a string"), all);
        assertTrue(all.contains("nic_6: shift sends endpoint 6 to itself"), all);

        ObjectNode reordered = JSON.createObjectNode();
        reordered.set("links", model.get("links"));
        reordered.set("components", model.get("components"));
        assertTrue(String.join("\n", SstModelValidator.check(reordered)).contains("links precede the components"));
    }

    @Test
    void miswiredRoutersAreCaughtByFollowingMerlinsRouting() throws Exception {
        ObjectNode model = (ObjectNode) exportAndParse("topology = mesh; k = 4; n = 2;", 0.3);
        assertRuns(model);
        ObjectNode first = null;
        ObjectNode second = null;
        for (JsonNode l : model.get("links")) {
            String name = l.get("name").asText();
            if (name.equals("rtr_0_port0__rtr_1_port1")) {
                first = (ObjectNode) l.get("right");
            } else if (name.equals("rtr_1_port0__rtr_2_port1")) {
                second = (ObjectNode) l.get("right");
            }
        }
        // Swap two +x neighbours: every port is still linked once, but 0 -> 1 no longer arrives.
        first.put("component", "rtr_2");
        second.put("component", "rtr_1");
        String all = String.join("\n", SstModelValidator.check(model));
        assertTrue(all.contains("routing: a packet from endpoint"), all);
    }

    @Test
    void sstNameCheckRules() {
        assertTrue(SstModelValidator.validName("rtr_0", true));
        assertTrue(SstModelValidator.validName("nic_3_rtr__rtr_0_port4", true));
        assertTrue(SstModelValidator.validName("a.b_1", true));
        assertFalse(SstModelValidator.validName("rtr.0", true));
        assertFalse(SstModelValidator.validName("0rtr", true));
        assertFalse(SstModelValidator.validName("_", true));
        assertFalse(SstModelValidator.validName("a:b", true));
    }

    /** Every fabric config the experiments use that Merlin can express, each with every Merlin-expressible pattern. */
    @ParameterizedTest
    @ValueSource(strings = {"mesh8x8", "mesh8x8-4x8", "mesh8x8-8x16", "mesh8x8-booksim", "torus8x8", "torus8x8-booksim",
            "fattree64"})
    void everyExportableExperimentConfigExportsAModelSstWouldRun(String name) throws Exception {
        String cfg = Files.readString(Path.of("..", "configs", "fabric", name + ".cfg"));
        for (String traffic : new String[] {"uniform", "bitcomp", "tornado", "neighbor"}) {
            JsonNode model = exportAndParse(cfg + "\ntraffic = " + traffic + ";", 0.3);
            assertRuns(model);
        }
    }

    @Test
    void mixedRadixMeshAndTorusExport() {
        SimConfig c = SimConfig.parse("traffic = uniform;", "t");
        ObjectNode mesh = SstMerlinExporter.export(Topologies.mesh(4, 8), c, 0.2);
        assertRuns(mesh);
        assertEquals("4x8", component(mesh, "rtr_0").get("subcomponents").get(0).get("params").get("shape").asText());
        ObjectNode torus = SstMerlinExporter.export(Topologies.torus(3, 4, 5), c, 0.2);
        assertRuns(torus);
        assertEquals(60, torus.get("components").size() / 2);
        // 3 dimensions x 60 routers wrap-around channels + 60 host links.
        assertEquals(3 * 60 + 60, torus.get("links").size());
    }

    @Test
    void timingParametersFollowTheStatedMapping() throws Exception {
        JsonNode model = exportAndParse("topology = mesh; k = 4; n = 2; cycle_ps = 2000; cycles_per_flit = 2; "
                + "flit_bits = 64; router_delay = 3; link_latency = 2; num_vcs = 2; vc_buf_size = 4; "
                + "packet_size = 4;", 0.25);
        assertRuns(model);
        JsonNode r = component(model, "rtr_5").get("params");
        assertEquals("8B", r.get("flit_size").asText());
        assertEquals("2GB/s", r.get("link_bw").asText());  // 8 B every 2 cycles of 2 ns
        assertEquals("4GB/s", r.get("xbar_bw").asText());  // one flit per cycle
        assertEquals("6000ps", r.get("input_latency").asText());
        assertEquals("64B", r.get("input_buf_size").asText());  // 2 VCs x 4 flits pooled into the mesh's one VC
        assertEquals("32B", r.get("output_buf_size").asText());  // one packet
        JsonNode n = component(model, "nic_5").get("params");
        assertEquals("32B", n.get("message_size").asText());
        assertEquals("0.5", n.get("offered_load").asText());  // 0.25 flits/cycle of a link carrying 0.5
        assertEquals("merlin.targetgen.uniform", n.get("pattern").asText());
        assertEquals("15", n.get("pattern.max").asText());
        assertEquals("4000ps", model.get("links").get(0).get("left").get("latency").asText());
    }

    @Test
    void deterministicPatternsBecomePerNodeShiftsOfMerlinEndpointIds() throws Exception {
        JsonNode model = exportAndParse("topology = torus; k = 4; n = 2; traffic = bitcomp;", 0.5);
        assertRuns(model);
        // Bit complement of node 1 on 16 nodes is 14: shift 13.
        JsonNode p = component(model, "nic_1").get("params");
        assertEquals("merlin.targetgen.shift", p.get("pattern").asText());
        assertEquals("13", p.get("pattern.shift").asText());
        assertEquals("merlin.torus",
                component(model, "rtr_0").get("subcomponents").get(0).get("type").asText());
    }

    @Test
    void aLoadSweepIsOneOfferedLoadArray() throws Exception {
        JsonNode model = exportAndParse("topology = fattree; k = 4; n = 3; cycles_per_flit = 2; "
                + "sst_loads = {0.1, 0.25, 0.5};", 0.2);
        assertRuns(model);
        assertEquals("[0.2, 0.5, 1.0]", component(model, "nic_0").get("params").get("offered_load").asText());
        assertRefused("k = 4; sst_loads = {0.1, 1.5};", "(0, 1]");
    }

    @Test
    void partitionHintGivesEachRouterAndItsNodesOneRank() throws Exception {
        JsonNode model = exportAndParse("topology = fattree; k = 4; n = 3; sst_ranks = 4;", 0.2);
        assertRuns(model);
        assertEquals("sst.self", model.get("program_options").get("partitioner").asText());
        Map<Integer, Integer> perRank = new HashMap<>();
        for (JsonNode c : model.get("components")) {
            perRank.merge(c.get("partition").get("rank").asInt(), 1, Integer::sum);
        }
        assertEquals(Map.of(0, 28, 1, 28, 2, 28, 3, 28), perRank);
        assertEquals(component(model, "rtr_0").get("partition"), component(model, "nic_3").get("partition"));
    }

    @Test
    void whatMerlinCannotExpressIsRefusedWithTheReason() {
        assertRefused("topology = butterfly; k = 4; n = 3;", "one bidirectional port");
        assertRefused("topology = cm5; n = 3;", "two up-links");
        assertRefused("topology = amesh; k = 4;", "dimension order only");
        assertRefused("k = 4; discipline = drop;", "lossless");
        assertRefused("k = 4; workload = nifdy_heavy;", "no NIFDY");
        assertRefused("k = 4; traffic = hotspot;", "no hotspot");
        assertRefused("topology = mesh; k = 8; traffic = transpose;", "node 0 to itself");
        assertRefused("k = 4; packet_size = 16; num_vcs = 1;", "virtual cut-through");
        assertRefused("k = 4; injection_process = onoff;", "periodically");
        IllegalArgumentException load = assertThrows(IllegalArgumentException.class,
                () -> SstMerlinExporter.export(SimConfig.parse("k = 4;", "t"), 1.5));
        assertTrue(load.getMessage().contains("(0, 1]"), load.getMessage());
    }

    private static void assertRefused(String cfg, String reason) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SstMerlinExporter.export(SimConfig.parse(cfg, "t"), 0.1), cfg);
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }

    @Test
    void everyCommittedSstModelInResultsWouldRun() throws IOException {
        List<Path> models = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of("..", "results", "fabric"))) {
            files.filter(f -> f.getFileName().toString().endsWith("-sst.json")).forEach(models::add);
        }
        assertTrue(models.size() >= 3, "expected the regenerated models in results/fabric, found " + models);
        for (Path f : models) {
            List<String> errors = SstModelValidator.check(JSON.readTree(f.toFile()));
            assertTrue(errors.isEmpty(), () -> f + ": " + errors);
        }
    }
}
