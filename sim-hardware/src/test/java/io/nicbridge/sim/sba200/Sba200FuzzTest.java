package io.nicbridge.sim.sba200;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.sim.atm.AtmCells;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;

/**
 * The emulated SBA-200's receive path (cell demultiplexing, AAL5 reassembly, free-buffer walking, receive-queue
 * descriptors) against a hostile wire and a hostile process. The fuzzer sends raw cells of any header and payload
 * (mostly on the open channel's VCI, so it gets past demultiplexing), well-formed AAL5 PDUs of any payload cut short
 * or corrupted anywhere, and free-buffer entries of any offset and length (the unchecked post a buggy process could
 * write), and polls in between. Whatever it does:
 * <ul>
 *   <li>no exception escapes the card or the endpoint's receive calls;</li>
 *   <li>the card's UG counters never go back;</li>
 *   <li>every descriptor the process is handed is well formed: an error, or a length of {@code [0, AAL5_MAX_PDU]}
 *       whose buffers lie inside the communication segment and add up to it; and it copies out cleanly.</li>
 * </ul>
 * Corpus: {@code src/test/resources/io/nicbridge/sim/sba200/Sba200FuzzTestInputs/hostileCellsAndFreeBuffers/}.
 */
class Sba200FuzzTest {
    private static final int RX_VCI = 200;
    private static final int SEGMENT = 64 * 1024;
    private static final int[] UG_COUNTERS = Arrays.stream(io.nicbridge.contract.Sba200Unet.class.getFields())
            .filter(f -> Modifier.isStatic(f.getModifiers()) && f.getName().startsWith("UG_CNT_")
                    && f.getName().endsWith("_OFS"))
            .mapToInt(Sba200FuzzTest::intValue).toArray();

    @FuzzTest(maxDuration = "30s")
    void hostileCellsAndFreeBuffers(FuzzedDataProvider script) {
        try (CardRig r = CardRig.inline(); Arena arena = Arena.ofConfined()) {
            UnetEndpoint ep = r.endpoint(SEGMENT, 16);
            r.kernel.openChannel(ep, 0, 100, RX_VCI);
            ep.postReceiveBuffers(0, 8, 256);
            MemorySegment copy = arena.allocate(AAL5_MAX_PDU + 1);
            long[] last = counters(r);
            for (int step = 0; step < 48 && script.remainingBytes() > 0; step++) {
                switch (script.consumeInt(0, 4)) {
                    case 0 -> {
                        byte[] cell = Arrays.copyOf(script.consumeBytes(AtmCells.CELL_SIZE), AtmCells.CELL_SIZE);
                        if (script.consumeBoolean()) {
                            AtmCells.writeHeader(MemorySegment.ofArray(cell), 0,
                                    AtmCells.header(0, RX_VCI, script.consumeInt(0, 7), 0));
                        }
                        r.inject(cell);
                    }
                    case 1 -> {
                        List<byte[]> cells = r.cellsOf(0, RX_VCI, script.consumeBytes(script.consumeInt(0, 2000)));
                        int keep = script.consumeInt(0, cells.size());
                        int flip = script.consumeInt(0, keep * AtmCells.CELL_SIZE);
                        for (int c = 0; c < keep; c++) {
                            byte[] cell = cells.get(c);
                            if (flip / AtmCells.CELL_SIZE == c && flip % AtmCells.CELL_SIZE >= 5) {
                                cell[flip % AtmCells.CELL_SIZE] ^= (byte) script.consumeInt(1, 255);
                            }
                            r.inject(cell);
                        }
                    }
                    case 2 -> freeBuffer(ep, script.consumeBoolean() ? script.consumeInt() & -64 : script.consumeInt(),
                            script.consumeInt());
                    case 3 -> r.settle();
                    default -> takeAll(ep, copy);
                }
                long[] now = counters(r);
                for (int i = 0; i < now.length; i++) {
                    assertTrue(Long.compareUnsigned(now[i], last[i]) >= 0,
                            "UG counter at 0x" + Integer.toHexString(UG_COUNTERS[i]) + " went from " + last[i]
                                    + " to " + now[i]);
                }
                last = now;
            }
            r.settle();
            takeAll(ep, copy);
        }
    }

    /** A raw free-queue entry: what the entry format cannot carry is refused as documented, the rest goes to the card. */
    private static void freeBuffer(UnetEndpoint ep, int offset, int length) {
        if ((offset & 63) != 0 || length == 0) {
            assertThrows(IllegalArgumentException.class, () -> ep.offerFreeBufferUnchecked(offset, length));
        } else {
            ep.offerFreeBufferUnchecked(offset, length);
        }
    }

    private static void takeAll(UnetEndpoint ep, MemorySegment copy) {
        for (long d = ep.poll(); d >= 0; d = ep.poll()) {
            if (!ep.isError(d)) {
                int length = ep.length(d);
                assertTrue(length >= 0 && length <= AAL5_MAX_PDU, "delivered length " + length);
                if (!ep.isInline(d)) {
                    long sum = 0;
                    for (int i = 0; i < ep.bufferCount(d); i++) {
                        long off = ep.bufferOffset(d, i);
                        long len = ep.bufferLength(d, i);
                        assertTrue(off >= 0 && len >= 0 && off + len <= SEGMENT,
                                "buffer " + i + " [" + off + ", +" + len + ") outside the segment");
                        sum += len;
                    }
                    assertTrue(sum == length, "buffers hold " + sum + " bytes of a " + length + "-byte message");
                }
                assertTrue(ep.copyTo(d, copy, 0) == length, "copied out");
            }
            ep.release(d);
        }
    }

    private static long[] counters(CardRig r) {
        long[] v = new long[UG_COUNTERS.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = r.counter(UG_COUNTERS[i]);
        }
        return v;
    }

    private static int intValue(Field f) {
        try {
            return f.getInt(null);
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }
}
