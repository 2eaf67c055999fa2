package io.nicbridge.bench.calibrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.protocols.careful.CarefulAppendixA;
import io.nicbridge.protocols.pupa.PupaOperations;
import io.nicbridge.protocols.traditional.TraditionalAppendixA;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The calibration command's stamp and default target (running JMH itself is left to {@code ./nic calibrate}). */
class CalibrateCommandTest {
    @Test
    void theMachineStampNamesTheCpuTheOsAndTheJdk() {
        String m = CalibrateCommand.machine();
        assertTrue(m.contains("CPUs available"), m);
        assertTrue(m.contains(System.getProperty("os.name")), m);
        assertTrue(m.contains(Runtime.version().toString()), m);
    }

    @Test
    void byDefaultItRewritesTheCommittedMeasuredTable() {
        assertTrue(CalibrateCommand.DEFAULT_OUT.startsWith("bridge/src/main/resources/io/nicbridge/bridge/cost/"));
        assertTrue(CalibrateCommand.DEFAULT_OUT.endsWith("/" + CostTable.MEASURED_RESOURCE));
        assertEquals("measured", CostTable.measured().name());
    }

    /** Each operation is its benchmark less the baseline, at least 0; maintain-buffer-counter is 0 by rule. */
    @Test
    void operationsArePricedAsBenchmarkLessBaseline() {
        Map<String, Double> ns = new HashMap<>();
        ns.put("baseline", 0.5);
        for (String op : TraditionalAppendixA.MEASURED) {
            ns.put("traditional_" + op.replace('-', '_'), 2.0);
        }
        for (String op : CarefulAppendixA.OPERATIONS) {
            ns.put("careful_" + op.replace('-', '_'), 0.25);
        }
        ns.put("dispatch", 99.0); // an item's benchmark in the same run is not an operation
        Map<String, Long> ps = new TreeMap<>();
        Map<String, String> rules = new TreeMap<>();
        CalibrateCommand.operations(ns, ps, rules, "");
        assertEquals(22, ps.size(), ps.toString());
        assertEquals(1500L, ps.get("traditional.implicit-ack"));
        assertEquals(0L, ps.get("careful.shrink-window"), "below the baseline: 0");
        assertEquals(0L, ps.get("traditional.maintain-buffer-counter"));
        assertTrue(rules.get("traditional.implicit-ack").startsWith("AppendixABench.traditional_implicit_ack"));
        ns.remove("careful_skip_copy_out");
        assertThrows(IllegalStateException.class,
                () -> CalibrateCommand.operations(ns, new TreeMap<>(), new TreeMap<>(), ""));
    }

    /** The committed table prices every operation both C* cores charge (they start on it). */
    @Test
    void theCommittedTablePricesEveryAppendixAOperation() {
        CostTable m = CostTable.measured();
        for (String op : TraditionalAppendixA.MEASURED) {
            assertTrue(m.operations().containsKey("traditional." + op), op);
        }
        assertTrue(m.operations().containsKey("traditional.maintain-buffer-counter"));
        for (String op : CarefulAppendixA.OPERATIONS) {
            assertTrue(m.operations().containsKey("careful." + op), op);
            assertTrue(m.operationRule("careful." + op).contains("AppendixABench.careful_"), op);
        }
    }

    /** Pupa's operations: benchmark less baseline; ACK and NACK less the credit part the core charges apart. */
    @Test
    void pupaOperationsArePricedLessBaselineAndAckLessItsCreditPart() {
        Map<String, Double> ns = new HashMap<>();
        ns.put("baseline", 0.5);
        for (String op : PupaOperations.ALL) {
            ns.put("op_" + op.substring("pupa.".length()).replace('-', '_'), 3.0);
        }
        ns.put("op_credit_process", 2.0);
        ns.put("op_ack_process", 10.0);
        ns.put("path_send_small", 99.0); // a path is not an operation
        Map<String, Long> ps = new TreeMap<>();
        Map<String, String> rules = new TreeMap<>();
        CalibrateCommand.pupaOperations(ns, ps, rules, "");
        assertEquals(PupaOperations.ALL.size(), ps.size(), ps.toString());
        assertEquals(2500L, ps.get(PupaOperations.HEADER_BUILD));
        assertEquals(1500L, ps.get(PupaOperations.CREDIT_PROCESS));
        assertEquals(8000L, ps.get(PupaOperations.ACK_PROCESS), "less the credit part");
        assertEquals(1000L, ps.get(PupaOperations.NACK_PROCESS));
        assertTrue(rules.get(PupaOperations.ACK_PROCESS).startsWith("PupaBench.op_ack_process - PupaBench"
                + ".op_credit_process"));
        ns.remove("op_reassemble");
        assertThrows(IllegalStateException.class,
                () -> CalibrateCommand.pupaOperations(ns, new TreeMap<>(), new TreeMap<>(), ""));
    }

    /** The committed table prices every operation the Pupa core charges (it starts on it). */
    @Test
    void theCommittedTablePricesEveryPupaOperation() {
        CostTable m = CostTable.measured();
        for (String op : PupaOperations.ALL) {
            assertTrue(m.operations().containsKey(op), op);
            assertTrue(m.operationRule(op).contains("PupaBench.op_"), op);
        }
    }

    /** A suite other than all needs --operations-only, and an unknown one is refused, both before any JMH run. */
    @Test
    void aSuiteIsOneOfThreeAndOnlyForOperations() {
        java.io.StringWriter err = new java.io.StringWriter();
        picocli.CommandLine cl = new picocli.CommandLine(new CalibrateCommand());
        cl.setErr(new java.io.PrintWriter(err, true));
        assertEquals(io.nicbridge.bench.verdict.ExitCodes.USAGE, cl.execute("--suite", "tcp", "--operations-only"));
        assertTrue(err.toString().contains("--suite must be all, appendix-a or pupa"), err.toString());
        assertEquals(io.nicbridge.bench.verdict.ExitCodes.USAGE, cl.execute("--suite", "pupa"));
        assertTrue(err.toString().contains("needs --operations-only"), err.toString());
    }
}
