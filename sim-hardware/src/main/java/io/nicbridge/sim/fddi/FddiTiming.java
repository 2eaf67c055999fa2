package io.nicbridge.sim.fddi;

import io.nicbridge.contract.Medusa;

/**
 * FDDI wire timing (docs/hardware-facts.md D.3, medusa.h {@code MEDUSA_FDDI_*}): 100 Mb/s of data carried as 4B/5B
 * symbols at 125 Mbaud, so one symbol (4 data bits) lasts 40 ns and one byte 80 ns.
 *
 * <pre>
 *  frame on the fibre (symbols; 2 symbols = 1 byte):
 *  +----------------+----+----+---------+---------+--- ... ---+-----+----+------+
 *  | preamble 16    | SD | FC | DA 12   | SA 12   | INFO      | FCS | ED | FS 3 |
 *  | (idle)         | JK | 2  |         |         |           | 8   | T  | EAC  |
 *  +----------------+----+----+---------+---------+--- ... ---+-----+----+------+
 *   8 bytes          1 B  |<---- LEN bytes (what medusa.h LEN counts) ->| 4 B | 2 bytes (ED+FS)
 *
 *   frame time  = (LEN + 15) x 80 ns        15 = 8 preamble + 1 SD + 4 FCS + 2 ED/FS
 *   token time  = 22 symbols x 40 ns = 880 ns   (16 preamble, SD, FC, ED = T T)
 * </pre>
 * A 4500-byte frame (LEN 4496 plus FCS) takes (4496 + 15) x 80 = 360 880 ns: 880 ns more than the fact
 * sheet's 360 us, which counts FC .. FCS only. The 15 overhead bytes cost 1.2 us per frame.
 */
public final class FddiTiming {
    /** ns per data byte at 100 Mb/s. */
    public static final long NS_PER_BYTE = Medusa.FDDI_NS_PER_BYTE;
    /** Preamble: 16 idle symbols = 8 bytes. */
    public static final int PREAMBLE_BYTES = Medusa.FDDI_PREAMBLE_SYMBOLS / 2;
    /** Starting delimiter J K: 2 symbols = 1 byte. */
    public static final int SD_BYTES = Medusa.FDDI_SD_SYMBOLS / 2;
    /** Ending delimiter (1 symbol) plus frame status E, A, C (3 symbols): 4 symbols = 2 bytes. */
    public static final int ED_FS_BYTES = (Medusa.FDDI_ED_SYMBOLS + Medusa.FDDI_FS_SYMBOLS) / 2;
    /** Bytes on the fibre besides LEN (FC .. INFO): preamble, SD, FCS, ED, FS = 15. */
    public static final int FRAME_OVERHEAD_BYTES = PREAMBLE_BYTES + SD_BYTES + FddiFcs.LENGTH + ED_FS_BYTES;
    /** The token: 22 symbols = 880 ns. */
    public static final long TOKEN_NANOS = Medusa.FDDI_TOKEN_NS;
    /** LEN of a claim frame: FC, DA, SA and the 4-byte T_Bid. */
    public static final int CLAIM_FRAME_LEN = Medusa.FDDI_MAC_HEADER_LEN + 4;

    private FddiTiming() {
    }

    /**
     * @param len frame bytes FC .. INFO (medusa.h LEN, no FCS)
     * @return the time the frame occupies the fibre at one station, ns
     */
    public static long frameNanos(int len) {
        return (len + (long) FRAME_OVERHEAD_BYTES) * NS_PER_BYTE;
    }

    /** @return the time of a frame that holds {@code lengthWithFcs} bytes FC .. FCS */
    public static long frameNanosWithFcs(int lengthWithFcs) {
        return frameNanos(lengthWithFcs - FddiFcs.LENGTH);
    }
}
