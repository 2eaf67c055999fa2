package io.nicbridge.bridge.queue;

/**
 * Layout of a DEC 21140 ("Tulip") receive/transmit descriptor (hardware-facts A.6): four 32-bit longwords,
 * longword-aligned, little-endian unless CSR0.DBO selects big-endian descriptors.
 *
 * <p>// must equal dec21140.h (the native-headers contract); the lead switches these to the generated constants.
 *
 * <pre>
 *            31 30        29..16        15 ........................................... 0
 * RDES0     +---+---+---------------+-----------------------------------------------+
 *  (+0)     |OWN|FF |  FL (incl.FCS) |ES DE DT[13:12] RF MF FS LS TL CS FT RW RE DB CE OF|
 *           +---+---+---------------+-----------------------------------------------+
 *            31..26  25  24  23..22      21..11          10..0
 * RDES1     +-------+---+---+-------+---------------+---------------+
 *  (+4)     |   0   |RER|RCH|   0   |  RBS2 (x4)    |  RBS1 (x4)    |
 *           +-------+---+---+-------+---------------+---------------+
 * RDES2 (+8)  buffer 1 bus address (longword aligned)
 * RDES3 (+12) buffer 2 bus address, or the next descriptor's bus address when RCH is set
 *
 *            31 30........16 15 14 13 12 11 10  9  8  7  6..3  2  1  0
 * TDES0     +---+-----------+--+--+-----+--+--+--+--+--+-----+--+--+--+
 *  (+0)     |OWN|     0     |ES|TO|  0  |LO|NC|LC|EC|HF| CC  |LF|UF|DE|
 *           +---+-----------+--+--+-----+--+--+--+--+--+-----+--+--+--+
 *            31 30 29  28  27  26  25  24  23  22    21..11      10..0
 * TDES1     +--+--+--+---+---+--+---+---+---+---+-----------+-----------+
 *  (+4)     |IC|LS|FS|FT1|SET|AC|TER|TCH|DPD|FT0|   TBS2    |   TBS1    |
 *           +--+--+--+---+---+--+---+---+---+---+-----------+-----------+
 * TDES2 (+8)  buffer 1 bus address (byte aligned)
 * TDES3 (+12) buffer 2 bus address, or the next descriptor's bus address when TCH is set
 *
 * In ring mode descriptor i+1 follows at +16 + 4 * CSR0.DSL bytes (the skip area is the driver's).
 * </pre>
 */
public final class Dec21140Descriptor {
    private Dec21140Descriptor() {
    }

    public static final int BYTES = 16;
    public static final int WORD0 = 0;
    public static final int WORD1 = 4;
    public static final int WORD2 = 8;
    public static final int WORD3 = 12;

    /** Word 0 bit 31 in both directions: 1 = owned by the chip. */
    public static final int OWN = 1 << 31;

    // RDES0
    public static final int RDES0_FF = 1 << 30;
    public static final int RDES0_FL_SHIFT = 16;
    public static final int RDES0_FL_MASK = 0x3FFF;
    public static final int RDES0_ES = 1 << 15;
    public static final int RDES0_DE = 1 << 14;
    public static final int RDES0_DT_SHIFT = 12;
    public static final int RDES0_DT_MASK = 0x3;
    public static final int RDES0_RF = 1 << 11;
    public static final int RDES0_MF = 1 << 10;
    public static final int RDES0_FS = 1 << 9;
    public static final int RDES0_LS = 1 << 8;
    public static final int RDES0_TL = 1 << 7;
    public static final int RDES0_CS = 1 << 6;
    public static final int RDES0_FT = 1 << 5;
    public static final int RDES0_RW = 1 << 4;
    public static final int RDES0_RE = 1 << 3;
    public static final int RDES0_DB = 1 << 2;
    public static final int RDES0_CE = 1 << 1;
    public static final int RDES0_OF = 1;
    /** Linux accepts a received frame iff {@code (status & MASK) == VALUE} (FS and LS, no length/RW/CE/CS/RF/DE). */
    public static final int LINUX_RX_ACCEPT_MASK = 0x38004B52;
    public static final int LINUX_RX_ACCEPT_VALUE = 0x00000300;

    // RDES1 / TDES1 shared fields
    /** RER in RDES1, TER in TDES1: after this descriptor, return to the list base (CSR3/CSR4). */
    public static final int END_OF_RING = 1 << 25;
    /** RCH in RDES1, TCH in TDES1: word 3 is the next descriptor's bus address. */
    public static final int SECOND_ADDRESS_CHAINED = 1 << 24;
    public static final int BS2_SHIFT = 11;
    public static final int BS_MASK = 0x7FF;
    /** Largest byte count of one buffer (11-bit field). */
    public static final int MAX_BUFFER_BYTES = 2047;
    /** Largest receive buffer: RBS must be a multiple of 4. */
    public static final int MAX_RX_BUFFER_BYTES = 2044;

    // TDES0
    public static final int TDES0_ES = 1 << 15;
    public static final int TDES0_TO = 1 << 14;
    public static final int TDES0_LO = 1 << 11;
    public static final int TDES0_NC = 1 << 10;
    public static final int TDES0_LC = 1 << 9;
    public static final int TDES0_EC = 1 << 8;
    public static final int TDES0_HF = 1 << 7;
    public static final int TDES0_CC_SHIFT = 3;
    public static final int TDES0_CC_MASK = 0xF;
    public static final int TDES0_LF = 1 << 2;
    public static final int TDES0_UF = 1 << 1;
    public static final int TDES0_DE = 1;

    // TDES1
    public static final int TDES1_IC = 1 << 31;
    public static final int TDES1_LS = 1 << 30;
    public static final int TDES1_FS = 1 << 29;
    public static final int TDES1_FT1 = 1 << 28;
    public static final int TDES1_SET = 1 << 27;
    public static final int TDES1_AC = 1 << 26;
    public static final int TDES1_TER = END_OF_RING;
    public static final int TDES1_TCH = SECOND_ADDRESS_CHAINED;
    public static final int TDES1_DPD = 1 << 23;
    public static final int TDES1_FT0 = 1 << 22;

    /** RDES1 aliases. */
    public static final int RDES1_RER = END_OF_RING;
    public static final int RDES1_RCH = SECOND_ADDRESS_CHAINED;

    /** CSR0.DSL is 5 bits: skip 0..31 longwords between ring-mode descriptors. */
    public static final int MAX_SKIP_LONGWORDS = 31;

    /** Distance between consecutive ring-mode descriptors for CSR0.DSL = {@code skipLongwords}. */
    public static int stride(int skipLongwords) {
        return BYTES + 4 * skipLongwords;
    }

    /** RDES0.FL: frame length including the 4-byte FCS (valid in the LS descriptor). */
    public static int frameLength(int rdes0) {
        return (rdes0 >>> RDES0_FL_SHIFT) & RDES0_FL_MASK;
    }

    /** Linux's acceptance test of a received frame's RDES0 (tulip interrupt.c). */
    public static boolean isGoodReceive(int rdes0) {
        return (rdes0 & LINUX_RX_ACCEPT_MASK) == LINUX_RX_ACCEPT_VALUE;
    }

    public static int buffer1Size(int control) {
        return control & BS_MASK;
    }

    public static int buffer2Size(int control) {
        return (control >>> BS2_SHIFT) & BS_MASK;
    }
}
