package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.sim.fddi.FddiRingPort;
import io.nicbridge.sim.testing.ManualVirtualTime;
import java.lang.foreign.MemorySegment;

/**
 * The emulated Medusa between a hostile host and a hostile ring. The card starts reset, with buffers 0 to 15 free and
 * its receiver on; then the fuzzer writes any register (FIFOs included: buffer numbers in and out of range, twice,
 * never), any buffer-status word, reads any register (popping FIFOs), and lets frames of any bytes, length and frame
 * status arrive. Whatever it does:
 * <ul>
 *   <li>no exception escapes a register access, an arriving frame or a service pass;</li>
 *   <li>the eight counter registers never go back between two host resets (CTRL.RESET zeroes them).</li>
 * </ul>
 * Corpus: {@code src/test/resources/io/nicbridge/sim/medusa/MedusaFuzzTestInputs/hostileHostAndRing/}.
 */
class MedusaFuzzTest {
    private static final byte[] MAC = {0x08, 0x00, 0x09, 0x12, 0x34, 0x56};

    /** A ring port that takes every request and never passes a token: frames arrive only from the fuzzer. */
    private static final FddiRingPort SILENT_RING = new FddiRingPort() {
        @Override
        public String name() {
            return "fuzz ring";
        }

        @Override
        public void join() {
        }

        @Override
        public void leave() {
        }

        @Override
        public boolean isJoined() {
            return true;
        }

        @Override
        public void requestToken() {
        }

        @Override
        public void updateIdleTokens() {
        }
    };

    /**
     * One card for every run (building its 2 MiB window per run would cost 100 ms), put back to its power-on state by
     * {@link MedusaModel#hardwareReset()} at the start of each: registers, FIFOs, buffer status and counters; only the
     * buffer RAM keeps its bytes, which the host may never trust anyway.
     */
    private static final ManualVirtualTime TIME = new ManualVirtualTime();
    private static final boolean[] KICKED = {false};
    private static final MedusaModel CARD = new MedusaModel("fuzz", MAC, TIME);

    static {
        CARD.connect(() -> KICKED[0] = true, SILENT_RING);
    }

    @FuzzTest(maxDuration = "30s")
    void hostileHostAndRing(FuzzedDataProvider script) {
        MedusaModel card = CARD;
        ManualVirtualTime time = TIME;
        boolean[] kicked = KICKED;
        card.hardwareReset();
        kicked[0] = false;
        card.registers().write(REGS_OFS + REG_CTRL, CTRL_RESET);
        for (int n = 0; n < 16; n++) {
            card.registers().write(REGS_OFS + REG_FREE_FIFO, n);
        }
        card.registers().write(REGS_OFS + REG_IMR, INT_ALL);
        card.registers().write(REGS_OFS + REG_CTRL, CTRL_RX_EN | (script.consumeInt() & ~CTRL_RESET));
        long[] last = counters(card);
        for (int step = 0; step < 64 && script.remainingBytes() > 0; step++) {
            boolean reset = false;
            switch (script.consumeInt(0, 4)) {
                case 0 -> {
                    byte[] frame = script.consumeBytes(script.consumeInt(0, 4600));
                    card.frameArrived(MemorySegment.ofArray(frame), script.consumeInt(0, frame.length),
                            script.consumeInt(0, 7));
                }
                case 1 -> {
                    int reg = 4 * script.consumeInt(0, REGS_SIZE / 4 - 1);
                    int value = script.consumeInt();
                    reset = reg == REG_CTRL && (value & CTRL_RESET) != 0;
                    card.registers().write(REGS_OFS + reg, value);
                }
                case 2 -> card.registers().write(BUF_STATUS_OFS + 4 * script.consumeInt(0, BUF_STATUS_SIZE / 4 - 1),
                        script.consumeInt());
                case 3 -> card.registers().read(REGS_OFS + 4 * script.consumeInt(0, REGS_SIZE / 4 - 1));
                default -> time.advance(script.consumeLong(0, 10_000_000));
            }
            while (kicked[0]) {
                kicked[0] = false;
                card.service();
            }
            long[] now = counters(card);
            for (int i = 0; i < now.length && !reset; i++) {
                assertTrue(now[i] >= last[i], "counter register 0x" + Integer.toHexString(REG_COUNTERS_OFS + 4 * i)
                        + " went from " + last[i] + " to " + now[i]);
            }
            last = now;
        }
    }

    private static long[] counters(MedusaModel card) {
        long[] v = new long[REG_COUNTERS_COUNT];
        for (int i = 0; i < v.length; i++) {
            v[i] = Integer.toUnsignedLong(card.counter(REG_COUNTERS_OFS + 4 * i));
        }
        return v;
    }
}
