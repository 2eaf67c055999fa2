package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;

/**
 * The emulated 21140 between a hostile host and a hostile wire. The fuzzer writes any descriptor word (own bits,
 * chain and end-of-ring bits, lengths, buffer addresses inside, around and far outside host memory), any CSR (filter
 * modes, ring bases, resets, poll demands, SROM bit-banging, the GP timer), starts from a small valid receive and
 * transmit ring so it reaches the deep paths at once, and lets frames of any bytes arrive. Whatever it does:
 * <ul>
 *   <li>nothing but the card's own status escapes it: no exception from a register access or an arriving frame
 *       (a bad bus address is a bus error in CSR5 and a counter);</li>
 *   <li>every counter stays non-negative and never goes back;</li>
 *   <li>the card writes host memory only where a descriptor it owns pointed (the bytes beyond both rings and both
 *       buffer areas stay as the host left them).</li>
 * </ul>
 * Corpus: {@code src/test/resources/io/nicbridge/sim/dec21140/Dec21140FuzzTestInputs/hostileHostAndWire/}.
 */
class Dec21140FuzzTest {
    private static final Method[] COUNTERS = Arrays.stream(Dec21140Counters.class.getMethods())
            .filter(m -> m.getReturnType() == long.class && m.getParameterCount() == 0
                    && !Modifier.isStatic(m.getModifiers()))
            .sorted((a, b) -> a.getName().compareTo(b.getName()))
            .toArray(Method[]::new);
    /** Host memory the fuzzer's descriptors may point into: the rings and both buffer areas; the rest is a canary. */
    private static final long SCRATCH = 0x30000;
    private static final byte CANARY = 0x5A;
    private static final int RING = 4;

    @FuzzTest(maxDuration = "30s")
    void hostileHostAndWire(FuzzedDataProvider script) throws Exception {
        try (CardHarness h = new CardHarness()) {
            h.mem.asSlice(SCRATCH).fill(CANARY);
            for (int i = 0; i < RING; i++) {
                long d = CardHarness.RX_RING + (long) i * DESC_SIZE;
                h.desc(d, RDES0_OWN, (i == RING - 1 ? RDES1_RER : 0) | 1536,
                        h.bus(CardHarness.RX_BUF + i * 1536L), 0);
            }
            h.start(script.consumeInt(0, 3) == 0 ? 0 : script.consumeInt() & (CSR6_PR | CSR6_PM | CSR6_HP | CSR6_IF
                    | CSR6_PB | CSR6_HO));
            boolean[] pointedBeyond = {false};
            long[] last = counters(h.card.counters());
            for (int step = 0; step < 64 && script.remainingBytes() > 0; step++) {
                switch (script.consumeInt(0, 5)) {
                    case 0 -> h.arrive(script.consumeBytes(script.consumeInt(0, 1600)));
                    case 1 -> h.mem.set(CardHarness.LE, 4L * script.consumeInt(0, 0x800 - 1),
                            word(h, script, pointedBeyond));
                    case 2 -> h.write(CSR_STRIDE * script.consumeInt(0, 15), word(h, script, pointedBeyond));
                    case 4 -> h.put(CardHarness.TX_BUF + script.consumeInt(0, 0x1000),
                            script.consumeBytes(SETUP_FRAME_SIZE));
                    case 3 -> h.write(script.consumeBoolean() ? CSR1 : CSR2, 0);
                    default -> h.read(CSR_STRIDE * script.consumeInt(0, 15));
                }
                long[] now = counters(h.card.counters());
                for (int i = 0; i < now.length; i++) {
                    assertTrue(now[i] >= last[i] && now[i] >= 0,
                            COUNTERS[i].getName() + " went from " + last[i] + " to " + now[i]);
                }
                last = now;
            }
            long beyond = h.mem.asSlice(SCRATCH).elements(java.lang.foreign.ValueLayout.JAVA_BYTE)
                    .filter(b -> b.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0) != CANARY).count();
            assertTrue(beyond == 0 || pointedBeyond[0], beyond + " bytes written beyond the rings and buffers");
        }
    }

    /** A descriptor or CSR value: a bus address into host memory (often), else any word. */
    private static int word(CardHarness h, FuzzedDataProvider script, boolean[] pointedBeyond) {
        if (script.consumeBoolean()) {
            long offset = script.consumeLong(0, CardHarness.MEM_BYTES + 64);
            pointedBeyond[0] |= offset >= SCRATCH - 2048;
            return h.bus32(offset);
        }
        int w = script.consumeInt();
        long off = Integer.toUnsignedLong(w) - h.busBase;
        pointedBeyond[0] |= off >= SCRATCH - 2048 && off < CardHarness.MEM_BYTES;
        return w;
    }

    private static long[] counters(Dec21140Counters c) throws Exception {
        long[] v = new long[COUNTERS.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = (long) COUNTERS[i].invoke(c);
        }
        return v;
    }
}
