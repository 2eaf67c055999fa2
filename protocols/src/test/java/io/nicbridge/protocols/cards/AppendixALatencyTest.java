package io.nicbridge.protocols.cards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.careful.CarefulConfig;
import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.FragmentHandler;
import io.nicbridge.protocols.runner.CoreBuilder;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.protocols.traditional.TraditionalConfig;
import io.nicbridge.protocols.traditional.TraditionalCore;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fault.FaultPlan;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * TR 94-14 Appendix A in virtual time: the two-node latency test with a 1-word (4-byte) fragment, both protocols on
 * the same medium and the same cost table (the committed {@code measured} one, whose {@code op.*} prices are
 * bench's {@code AppendixABench} figures).
 *
 * <p>The consistency check is a model self-check (the simulation adds up its own charges), not an anchor check: the
 * part of the latency difference that the operations make (the difference with the table as measured less the
 * difference with every operation priced 0, all else equal) must be the JMH-priced operations on a hop's critical
 * path: the traditional protocol's 16 per hop less the second check-bitset (charged after the frame is committed,
 * so it delays nothing), less the careful protocol's 6. Tolerance: 4 ns, the CPUs' rounding of busy time up to the
 * whole nanosecond (once at the sender's commit and once at the receiver's end of a hop, in each of the four
 * runs). What else differs (the traditional 40-byte header with its acknowledgement entry against the careful
 * 20-byte one, the backup copy, CRC-32C against the careful sum) is the difference with the operations at 0; it is
 * printed, not checked.
 */
class AppendixALatencyTest {
    private static final int ROUNDS = 12;
    private static final int WARM_UP = 4;
    private static final long LIMIT = TimeUnit.MILLISECONDS.toNanos(20);

    static final CoreBuilder TRADITIONAL = (l, s, cpu) ->
            new TraditionalCore(l, s, cpu, TraditionalConfig.medusa(64, TimeUnit.MILLISECONDS.toNanos(100)));
    static final CoreBuilder CAREFUL = (l, s, cpu) ->
            new CarefulCore(l, CarefulConfig.defaults().withReceiveBuffers(MedusaCarefulTest.R).withEventSlots(64), cpu);

    /** The mean one-way latency (ns) of a 4-byte fragment, after warm-up rounds: send call to the receive's end. */
    static double hopNanos(VirtualTimeBase vt, Link[] links, HostCpu[] cpus, CoreBuilder builder) {
        CStarNetwork[] cores = new CStarNetwork[2];
        NodeRunner runner = new NodeRunner(vt, links, cpus, (l, s, cpu) -> {
            CStarNetwork c = (CStarNetwork) builder.build(l, s, cpu);
            cores[l.self()] = c;
            return c;
        }, NodeApplication.NONE, NodeSlowness.NONE);
        MemorySegment word = MemorySegment.ofArray(new byte[] {1, 2, 3, 4});
        int[] got = new int[1];
        FragmentHandler count = (src, event, status, data, offset, length) -> got[0]++;
        long total = 0;
        for (int hop = 0; hop < 2 * ROUNDS; hop++) {
            int from = hop & 1;
            int to = 1 - from;
            int before = got[0];
            int event = hop;
            assertEquals(CStarNetwork.NOTHING, cores[to].receive(from, event, count));
            runner.node(to).applicationActed();
            vt.runUntil(vt.nanoTime() + 100_000); // both CPUs idle again
            long t0 = cpus[from].now();
            assertEquals(CStarNetwork.OK, cores[from].send(to, event, word, 0, 4, CStarNetwork.LAST_FRAG));
            runner.node(from).applicationActed();
            assertTrue(vt.runUntil(() -> cores[to].receive(from, event, count) != CStarNetwork.NOTHING,
                    vt.nanoTime() + LIMIT), "hop " + event + " never arrived");
            long t1 = cpus[to].now();
            runner.node(to).applicationActed();
            assertEquals(before + 1, got[0]);
            if (hop >= 2 * WARM_UP) {
                total += t1 - t0;
            }
        }
        for (CStarNetwork c : cores) {
            assertEquals(0, c.violations(), c::toString);
        }
        return (double) total / (2 * (ROUNDS - WARM_UP));
    }

    static double inMemory(CostTable table, CoreBuilder builder) {
        VirtualTimeBase vt = new VirtualTimeBase(7);
        HostCpu[] cpus = HostCpu.forNodes(2, table, vt);
        // FDDI-like: 100 Mb/s (80 ns/byte), 2 us of propagation and card latency, no token
        InMemoryMedium m = new InMemoryMedium(vt, new InMemoryMedium.Config(2, 256, 8, 64, 2_000, 80),
                FrameFaults.NONE, cpus);
        return hopNanos(vt, new Link[] {m.link(0), m.link(1)}, cpus, builder);
    }

    static double medusa(CostTable table, CoreBuilder builder) {
        try (MedusaRing ring = new MedusaRing(2, EngineMode.VIRTUAL, 41, FaultPlan.NONE)) {
            VirtualTimeBase vt = ring.virtualTime();
            return hopNanos(vt, ring.links(), HostCpu.forNodes(2, table, vt), builder);
        }
    }

    /** @return the table with every operation it prices at 0 ps, all else the same */
    static CostTable withoutOperations(CostTable t) {
        Map<String, Long> zero = new TreeMap<>();
        t.operations().keySet().forEach(op -> zero.put(op, 0L));
        return t.withOperations(zero, Map.of());
    }

    static double sum(CostTable t, String prefix) {
        return t.operations().entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
                .mapToLong(Map.Entry::getValue).sum() / 1e3;
    }

    @Test
    void theOperationsShareOfTheLatencyDifferenceIsTheirJmhPrice() {
        CostTable measured = CostTable.measured();
        CostTable noOps = withoutOperations(measured);
        Function<CostTable, double[]> run = t -> new double[] {inMemory(t, TRADITIONAL), inMemory(t, CAREFUL)};
        double[] with = run.apply(measured);
        double[] without = run.apply(noOps);
        double delta = with[0] - with[1];
        double deltaOthers = without[0] - without[1];
        double opsShare = delta - deltaOthers;
        double trad = sum(measured, "traditional.");
        double careful = sum(measured, "careful.");
        double bitset = measured.operationPicos("traditional.check-bitset") / 1e3;
        // per hop: each operation once, check-bitset twice (the paper's two set operations); the second after commit
        double jmhPaperList = trad + bitset - careful;
        double onPath = trad - careful;
        System.out.printf(Locale.ROOT, "Appendix A, 1 word, in-memory medium (80 ns/byte), table %s:%n"
                        + "  hop latency: traditional %.1f ns, careful %.1f ns, difference %.1f ns%n"
                        + "  with every op.* at 0: traditional %.1f ns, careful %.1f ns, difference %.1f ns"
                        + " (headers 40 vs 20 bytes = 1600 ns of wire, backup copy, CRC vs sum)%n"
                        + "  the operations' share: %.1f ns; JMH totals: traditional %.1f ns (each of the 16 once;"
                        + " %.1f with check-bitset twice, as charged), careful %.1f ns, ratio %.1fx"
                        + " (paper 1418/151 = 9.4x)%n"
                        + "  on the critical path (less the check-bitset after commit): %.1f ns;"
                        + " self-check tolerance 4 ns -> %s%n",
                measured.name(), with[0], with[1], delta, without[0], without[1], deltaOthers, opsShare,
                trad, trad + bitset, careful, trad / careful, onPath,
                Math.abs(opsShare - onPath) <= 4 ? "agrees" : "DISAGREES");
        assertEquals(onPath, opsShare, 4.0, "the operations' share of the latency difference");
        assertTrue(jmhPaperList > 0, "the traditional protocol's extra operations cost more than the careful ones");
    }

    @Test
    void onTwoMedusasBothCoresStartOnTheMeasuredTableAndCarefulIsFaster() {
        CostTable measured = CostTable.measured();
        for (String op : new String[] {"traditional.implicit-ack", "careful.shrink-window"}) {
            assertTrue(measured.operations().containsKey(op), "the measured table prices " + op);
        }
        double trad = medusa(measured, TRADITIONAL);
        double careful = medusa(measured, CAREFUL);
        System.out.printf(Locale.ROOT, "Appendix A, 1 word, 2-station Medusa ring, table measured: traditional %.1f"
                + " ns, careful %.1f ns per hop (difference %.1f ns)%n", trad, careful, trad - careful);
        assertTrue(careful < trad, "careful " + careful + " ns should be below traditional " + trad + " ns");
    }
}
