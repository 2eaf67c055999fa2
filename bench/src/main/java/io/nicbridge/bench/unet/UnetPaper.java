package io.nicbridge.bench.unet;

import static io.nicbridge.contract.Sba200Unet.AAL5_TRAILER_SIZE;
import static io.nicbridge.contract.Sba200Unet.CELL_PAYLOAD;
import static io.nicbridge.contract.Sba200Unet.CELL_SIZE;
import static io.nicbridge.contract.Sba200Unet.LINK_BPS;

/**
 * What the U-Net paper (T. von Eicken, A. Basu, V. Buch, W. Vogels, "U-Net: A User-Level Network Interface for
 * Parallel and Distributed Computing", SOSP'95) publishes about raw U-Net on the SBA-200, quoted as data with its
 * source, and the AAL5 arithmetic its Figure 4 plots as the "AAL-5 limit". Nothing here is a measurement of this
 * project: the measured figures come from the simulation in the same run and are printed beside these.
 */
public final class UnetPaper {
    /** Section 4.2.3 (Figure 3): "The round-trip time is 65 us for a one-cell message". Also Table 3 (Raw AAL5). */
    public static final double SINGLE_CELL_RTT_US = 65.0;
    /** Section 4.2.3 (Figure 3): "Longer messages start at 120 us for 48 bytes". */
    public static final double RTT_48_BYTES_US = 120.0;
    /** Section 4.2.3 (Figure 3): "cost roughly an extra 6 us per additional cell (i.e., 48 bytes)". */
    public static final double RTT_PER_EXTRA_CELL_US = 6.0;
    /** Section 8 / 4.2.3 (Figure 4): "With message sizes as small as 800 bytes the network is saturated". */
    public static final int SATURATION_MESSAGE_BYTES = 800;
    /** Table 3: raw AAL5 bandwidth with 4 KB packets, 120 Mbit/s. */
    public static final double TABLE3_RAW_AAL5_MBITS = 120.0;
    /** Section 4.2.1: "the 15.2 Mbytes/sec peak fiber bandwidth". */
    public static final double PEAK_FIBER_MBYTES = 15.2;
    /** Section 8: the single-cell optimisation applies to "messages smaller than 40 bytes" (48 - 8 trailer bytes). */
    public static final int SINGLE_CELL_BYTES = CELL_PAYLOAD - AAL5_TRAILER_SIZE;

    private UnetPaper() {
    }

    /** AAL5 cells for a message of {@code bytes}: ceil((bytes + 8) / 48). */
    public static int cells(int bytes) {
        return (bytes + AAL5_TRAILER_SIZE + CELL_PAYLOAD - 1) / CELL_PAYLOAD;
    }

    /**
     * Figure 4's "AAL-5 limit" curve: the payload rate of a 140 Mbit/s TAXI fiber when every message is padded to
     * whole 53-byte cells (the sawtooth of the 48-byte quantisation), in Mbit/s.
     */
    public static double aal5LimitMbits(int bytes) {
        double seconds = cells(bytes) * CELL_SIZE * 8.0 / LINK_BPS;
        return bytes * 8.0 / seconds / 1e6;
    }

    /**
     * Figure 3's raw U-Net round trip as Section 4.2.3's text describes it: 65 us up to one cell; from two cells
     * 120 us plus 6 us per cell beyond two. Only a reading of the text, not points read off the plot.
     */
    public static double describedRttUs(int bytes) {
        int c = cells(bytes);
        return c == 1 ? SINGLE_CELL_RTT_US : RTT_48_BYTES_US + RTT_PER_EXTRA_CELL_US * (c - cells(48));
    }

    /** The sources, one line each, for printing under a table. */
    public static String[] sources() {
        return new String[] {
            "paper [U-Net, SOSP'95] sec. 4.2.3 / Fig. 3: 65 us round trip for a one-cell message; longer messages start"
                + " at 120 us for 48 bytes and cost roughly 6 us per additional cell",
            "paper sec. 4.2.3 / Fig. 4 and sec. 8: with messages as small as 800 bytes the fiber is saturated; Fig. 4's"
                + " AAL-5 limit curve has 48-byte sawtooths (cell quantisation)",
            "paper Table 3: raw AAL5 65 us round trip, 120 Mbit/s with 4 KB packets; sec. 4.2.1: 15.2 MB/s peak fiber"
                + " bandwidth",
        };
    }
}
