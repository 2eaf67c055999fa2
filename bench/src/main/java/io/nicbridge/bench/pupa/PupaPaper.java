package io.nicbridge.bench.pupa;

/**
 * The Pupa paper's figures (Verma and Chiueh, "Pupa: a low-latency communication system for Fast Ethernet",
 * section 3; P90 PCs, 16 MB, FreeBSD 2.1.0, SMC EtherPower 10/100 = DEC 21140, SMC TigerHub 100), as printed; times
 * in microseconds. The breakdowns were measured with gettimeofday / microtime along the path and adjusted for them;
 * the total one-way delay is half the measured round trip, and transmission and DMA is the rest.
 */
final class PupaPaper {
    /** Table 1 and 2's message sizes, bytes. */
    static final int[] SIZES = {4, 32, 64, 128, 256, 512, 1024, 1436};

    /** Table 1, row by row: sender end delay, receiver end delay, transmission and DMA, Pupa one-way, TCP one-way. */
    static final int[] SENDER = {77, 89, 93, 95, 102, 109, 126, 140};
    static final int[] RECEIVER = {101, 106, 122, 126, 119, 129, 147, 165};
    static final int[] TRANSMISSION = {20, 23, 26, 32, 47, 80, 137, 193};
    static final int[] PUPA = {198, 208, 241, 253, 268, 318, 410, 492};
    static final int[] TCP = {405, 411, 422, 438, 451, 482, 564, 645};

    /** Table 2: protocol processing, OS and driver overhead, (transmission and DMA as Table 1), data copy, buffer and header management. */
    static final int[] PROTOCOL = {46, 46, 46, 46, 46, 46, 46, 46};
    static final int[] DRIVER = {53, 53, 53, 53, 59, 59, 59, 59};
    static final int[] COPY = {4, 9, 14, 20, 22, 40, 74, 101};
    static final int[] BUFFER = {75, 77, 102, 102, 94, 93, 94, 93};

    /** Section 3.2 / Figure 4: the peak bandwidths, Mb/s, reached at 4 KB messages, 100,000 messages one way. */
    static final double PEAK_SENDER_CONTROLLED_MBPS = 62;
    static final double PEAK_TCP_MBPS = 44;

    private PupaPaper() {
    }

    /** @return the index of {@code size} in {@link #SIZES}, or -1 when the paper has no column for it */
    static int column(int size) {
        for (int i = 0; i < SIZES.length; i++) {
            if (SIZES[i] == size) {
                return i;
            }
        }
        return -1;
    }

    /**
     * @return Table 2's host software on Pupa's own path at {@code size} bytes, us: protocol processing + data copy +
     *         buffer and header management (rows 1, 4, 5; not the OS and driver, nor transmission and DMA), linear
     *         between the table's sizes
     * @throws IllegalArgumentException outside the table's 4..1436 bytes
     */
    static double softwareMicros(int size) {
        if (size < SIZES[0] || size > SIZES[SIZES.length - 1]) {
            throw new IllegalArgumentException("Table 2 covers " + SIZES[0] + ".." + SIZES[SIZES.length - 1]
                    + " bytes, not " + size);
        }
        int i = 0;
        while (SIZES[i + 1] < size) {
            i++;
        }
        double at = PROTOCOL[i] + COPY[i] + BUFFER[i];
        double next = PROTOCOL[i + 1] + COPY[i + 1] + BUFFER[i + 1];
        return at + (next - at) * (size - SIZES[i]) / (SIZES[i + 1] - SIZES[i]);
    }

    /** @return Table 1's transmission and DMA slope from 4 to 1436 bytes, ns per byte: (193 - 20) us / 1432 B */
    static double transmissionSlopeNanosPerByte() {
        int last = SIZES.length - 1;
        return (TRANSMISSION[last] - TRANSMISSION[0]) * 1000.0 / (SIZES[last] - SIZES[0]);
    }
}
