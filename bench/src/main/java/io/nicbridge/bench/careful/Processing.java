package io.nicbridge.bench.careful;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The paper's payload "processing" (TR 94-14 section 6.1): each word of the payload is written once before the
 * message is sent and read once after it has been received. The application really does it, and it is charged to the
 * node's CPU as host work by one stated rule: a pass over n bytes (writing them, or reading them) is priced as
 * {@link CostItem#COPY} of n bytes (a copy being one read and one write per byte, this prices each pass as a copy:
 * the cost table's own, measured figure, nothing tuned here).
 */
final class Processing {
    /** The rule, as the experiments print it. */
    static final String RULE = "processing = each payload word written once before sending and read once after"
            + " receiving, each pass over n bytes charged as COPY x n bytes";

    private Processing() {
    }

    /** Writes {@code bytes} of {@code buffer} word by word (a value derived from {@code seed}) and charges it. */
    static void write(HostCpu cpu, MemorySegment buffer, int bytes, int seed) {
        int words = bytes / 4;
        for (int w = 0; w < words; w++) {
            buffer.set(ValueLayout.JAVA_INT_UNALIGNED, 4L * w, seed + w);
        }
        cpu.charge(CostItem.COPY, bytes);
    }

    /** Reads {@code bytes} of {@code data} from {@code offset} word by word and charges it; returns their sum. */
    static int read(HostCpu cpu, MemorySegment data, long offset, int bytes) {
        int words = bytes / 4;
        int sum = 0;
        for (int w = 0; w < words; w++) {
            sum += data.get(ValueLayout.JAVA_INT_UNALIGNED, offset + 4L * w);
        }
        cpu.charge(CostItem.COPY, bytes);
        return sum;
    }

    /** @return the sum {@link #read} gives for what {@link #write} wrote */
    static int expectedSum(int bytes, int seed) {
        int words = bytes / 4;
        int sum = 0;
        for (int w = 0; w < words; w++) {
            sum += seed + w;
        }
        return sum;
    }
}
