/*
 * dec21140_card.c - the DEC 21140 "Tulip" card contract (dec21140.h) served by the native shim.
 *
 * This is the C twin of the Java emulated card (sim-hardware Dec21140Model, Dec21140Srom,
 * Dec21140AddressFilter) in real time: the same CSR side effects, the same descriptor walking, the same
 * CSR5 status and CSR8 counters, so the unchanged Java TulipDriver runs on it. Where the Java model has a
 * rule, this file follows it; the comments name the rule where it is not obvious.
 *
 *   Java driver --- nicshim_reg_read/write --> dec_reg_read/dec_reg_write (CSR side-effect table below)
 *               --- plain loads -------------> the 128-byte CSR window (kept current for every CSR)
 *               <-- irq_level() -------------  INTA: CSR5 & CSR7 & (NIS|AIS) != 0
 *   card DMA    --- shim_dma() --------------> descriptors and buffers by bus address; a miss = CSR5.FBE
 *   the link    --- shim_tx_reserve/commit --> frames without FCS (the kernel / NIC adds it)
 *               <-- receive() ---------------  frames without FCS (we pad and compute it)
 *
 * CSR side effects (one function per CSR, as the model):
 *   CSR0  SWR = software reset (every CSR to its reset value, filter/SROM/timers cleared); DSL to both walkers
 *   CSR1  transmit poll demand (= NICSHIM_KICK_TX): leaves TS suspended. Reads 0xFFFFFFFF
 *   CSR2  receive poll demand (= NICSHIM_KICK_RX): re-fetches while RS suspended. Reads 0xFFFFFFFF
 *   CSR3/4 list base (bits 1:0 ignored), only while that process is stopped, else ignored
 *   CSR5  write 1 to clear bits 0..16, 26, 27; RS, TS, EB read-only; NIS/AIS recomputed summaries
 *   CSR6  SR/ST start and stop the processes (states drop to 0 at once, RPS/TPS raised); HP/HO/IF read-only,
 *         set by the last setup frame; OM 01/10: transmitted frames come back into our own receive FIFO
 *         (RDES0.DT = OM) and frames from the link are ignored; PR/PM (and the filter) -> shim_set_rx_mode
 *   CSR7  interrupt mask; the line is re-evaluated
 *   CSR8  missed frames (15:0, overflow 16), FIFO overflows (27:17, overflow 28); cleared by the read
 *   CSR9  SROM pins (93C46 Microwire, 64 words, DEC layout holding shim_mac(), both CRCs); DO reads in bit 3
 *   CSR11 GP timer count (15:0) + CON (16), real time (tick/next_deadline; a CSR5/CSR11 read also runs an expired
 *         timer, so the host never sees a late GTE); reads ticks left; expiry = GTE
 *   CSR12 pin values, or with GPC the direction mask; reads outputs as written, inputs 0xC6 (reset pins) while
 *         the link runs; without carrier the signal-detect inputs (bits 6 and 7, the SMC9332's) read 0
 *   CSR9  with MII (bit 18) set, MDI reads 1: the board has no PHY and the MDIO line is pulled up, so an MII read
 *         returns all ones; otherwise MDI reads back MDO
 *   CSR15 watchdog bits JBD, HUJ, JCK, RWD, RWR stored
 *
 * Descriptors: the walker reads word 0 with acquire before words 1..3 and hands a descriptor back by storing
 * word 0 (OWN clear) with release after the buffer data and status (the nicshim.h ownership rule). Next
 * descriptor: end-of-ring -> list base, else chain bit -> word 3, else current + 16 + 4 x DSL. Every address is
 * translated by shim_dma(); a failure is CSR5.FBE with EB = master abort (no region, wrap) or target abort (past a
 * region's end, misaligned descriptor or receive buffer), both processes stop, the frame in flight is dropped,
 * and the shim counts bus_errors. A descriptor whose host address is not 4-aligned (a region registered at an odd
 * host address) is reported as a master abort: the word cannot be accessed atomically.
 *
 * Real-wire differences from the Java model (the model talks to a simulated wire that carries the FCS):
 *  - Frames from AF_PACKET carry no FCS: the card pads frames shorter than 60 bytes with zeros (veth does not
 *    pad; the sending MAC would have) and computes the CRC-32, so the host sees FL = length + 4 and the four FCS
 *    bytes after the data (least significant byte first), exactly as the model delivers a wire frame.
 *  - Transmit pads to 60 bytes unless TDES1.DPD and hands the frame WITHOUT FCS to the kernel ring.
 *    With TDES1.AC (the host supplies the FCS) the card checks the last four bytes of the frame the chip would
 *    send: a correct FCS is stripped and the frame sent; a wrong one cannot be put on an AF_PACKET link (the
 *    kernel/NIC always appends a correct FCS), so that frame is dropped and counted in card_errors while TDES0
 *    reports success, as the chip would report for a frame whose bad FCS only the receiver notices.
 *    A frame shorter than 14 bytes (DPD) cannot be sent either: dropped, card_errors, TDES0 success.
 *  - Without carrier (the interface is not IFF_RUNNING: cable pulled, peer down) a frame is not handed to the
 *    kernel: TDES0 = NC|LO|ES as in the model (which sends it into its dead wire), counted in card_errors.
 *  - A frame longer than the interface allows (MTU + 14, + 4 with an 802.1Q tag): not sent, TDES0 = TO|ES
 *    (the model's jabber status; no CSR5.TJT, since the chip sends 1519..2048-byte frames), counted in
 *    tx_drop_too_long. Over 2048 bytes with FCS it is the model's jabber: TO|ES, CSR5.TJT, and the transmit
 *    process stops (TPS). The card never underflows: host memory is read at once, so threshold mode (CSR6.SF
 *    clear) behaves as store-and-forward; the model underflows only in virtual time.
 *  - TX ring full (shim_tx_reserve NULL): the frame stays in the card's FIFO and its LS descriptor stays
 *    card-owned; the transmit pass stops and retries on the next work() (the model's "waiting to start" phase).
 *    A list-base write that finds such a frame flushes it as the model does; if the ring is still full the frame
 *    is dropped (tx_drop_kernel) and its descriptor closed with status 0.
 *  - A transmit pass handles at most min(budget, 128) descriptors (the model's 128 per pass); when it stops on
 *    the budget, next_deadline() returns 0 so the platform runs tick() at once, which continues the pass.
 *  - Poll demands and starts (CSR1, CSR2, CSR6 SR/ST) call nicshim_kick() so that a poller sleeping in
 *    nicshim_poll wakes and does the work, as the model kicks its engine.
 *  - The receive FIFO holds 32 frames, as the model's: frames from the link are processed at once when the
 *    receive process runs and the FIFO is empty; they wait in the FIFO while the process is stopped with SR
 *    still set (after a bus error), loopback frames always pass through it; overflows count in CSR8.FOC.
 *  - nicshim_stop() stops both processes (TS = RS = 0 without TPS/RPS, like the model's close()); a frame
 *    waiting for ring space is dropped (tx_drop_kernel).
 *
 * Shim statistics: tx_frames/tx_bytes and rx_frames/rx_bytes count frames put on the link / delivered to the
 * host, bytes as the model counts them (padding and FCS included); rx_drop_filter: address-filter rejects and
 * frames the receiver did not listen to (SR clear, loopback mode); rx_missed: CSR8 missed frames (host owned the
 * descriptor) and FIFO overflows; rx_drop_too_long: frames over 2048 bytes, cut by the receive watchdog (their
 * first 2048 bytes are received with RDES0.RW, and CSR5.RWT), not counted as rx_frames; rx_drop_bad_frame: runts
 * (loopback only, without CSR6.PB); tx_bad_descriptor: empty FS..LS frames and setup frames with TBS1 != 192
 * (TDES0.ES); bus_errors: fatal bus errors; card_errors: frames truncated by the host's descriptors (RDES0.DE)
 * and transmit frames the link cannot carry or that found no carrier (above). Loopback frames are not counted as tx_frames (the model
 * counts them separately).
 *
 * The FCS is the zlib CRC-32, by PCLMULQDQ folding on x86-64 (constants derived at create) or slicing-by-8
 * tables; the card computes it only where the host sees it (receive buffers, loopback).
 *
 * Single-threaded: every entry point runs under the shim's lock (shim_internal.h). No allocation after create().
 */
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dec21140.h"
#include "shim_internal.h"

/* ---------------------------------------------------------------------------------------------
 * Constants (the Java model's figures)
 * ------------------------------------------------------------------------------------------- */

#define TX_FIFO_BYTES            DEC21140_RX_WATCHDOG_BYTES /* longer (with FCS) = jabber */
#define RX_MAX_FRAME             DEC21140_RX_WATCHDOG_BYTES /* longer = receive watchdog */
#define RX_FIFO_FRAMES           32
#define TX_DESCRIPTORS_PER_PASS  128
#define RX_DESCRIPTORS_PER_FRAME 64
#define GP_TICK_100MB_NS         81920ull
#define GP_TICK_10MB_NS          204800ull
#define ETH_VLAN_TPID            0x8100u
#define ETH_VLAN_TAG_LEN         4u

#define CSR8_COUNTER_BITS \
    (DEC21140_CSR8_MFC_MASK | DEC21140_CSR8_MFO | DEC21140_CSR8_FOC_MASK | DEC21140_CSR8_OCO)
#define CSR15_WRITABLE \
    (DEC21140_CSR15_JBD | DEC21140_CSR15_HUJ | DEC21140_CSR15_JCK | DEC21140_CSR15_RWD | DEC21140_CSR15_RWR)
#define SUMMARY_BITS          (DEC21140_CSR5_NIS | DEC21140_CSR5_AIS)
#define RX_KEEP_ON_TRUNCATION (DEC21140_RDES0_MF | DEC21140_RDES0_FF | DEC21140_RDES0_FT)
/* Same bit positions in RDES1 and TDES1. */
#define DESC_END_OF_RING      DEC21140_RDES1_RER
#define DESC_CHAINED          DEC21140_RDES1_RCH
#define DESC_SIZE1_MASK       DEC21140_RDES1_RBS1_MASK
#define DESC_SIZE2_MASK       DEC21140_RDES1_RBS2_MASK
#define DESC_SIZE2_SHIFT      DEC21140_RDES1_RBS2_SHIFT

/* SROM image (Dec21140Srom): subsystem IDs, format 3, one controller, info leaf at 30. */
#define SROM_INFO_LEAF_OFFSET   30
#define SROM_FORMAT_VERSION     3
#define SROM_CONNECTION_AUTO    0x0800u
#define SROM_MEDIA_100BASE_TX   3
#define SROM_OPCODE_READ        (DEC21140_SROM_OP_READ & 3u) /* "110": start bit, then opcode 10 */

enum fetch_result { FETCH_CARD_OWNED, FETCH_HOST_OWNED, FETCH_BUS_ERROR };
enum srom_phase { SROM_IDLE, SROM_OPCODE, SROM_ADDRESS, SROM_DATA, SROM_IGNORE };
enum filter_mode { FILTER_NONE = -1 };

/* ---------------------------------------------------------------------------------------------
 * State
 * ------------------------------------------------------------------------------------------- */

/** One descriptor list as the chip walks it: the current-descriptor pointer and the loaded descriptor. */
typedef struct walker {
    uint32_t base;     /* CSR3 / CSR4 */
    uint32_t current;  /* bus address of the current descriptor */
    uint32_t skip;     /* CSR0.DSL, longwords */
    uint8_t *desc;     /* host address of the loaded descriptor, NULL when none */
    uint32_t control;  /* word 1 */
    uint32_t buffer1;  /* word 2 */
    uint32_t word3;    /* word 3: buffer 2 or next descriptor */
} walker_t;

typedef struct dec_card {
    shim_t *shim;
    uint8_t *csr; /* the attached window, or own_window before attach */
    _Alignas(8) uint8_t own_window[DEC21140_CSR_WINDOW_SIZE];

    walker_t tx;
    walker_t rx;
    uint32_t tx_state;
    uint32_t rx_state;

    /* transmit frame being assembled (the chip's FIFO) */
    bool tx_in_frame;
    bool tx_jabber;
    bool tx_add_fcs;
    bool tx_pad;
    bool tx_pending;      /* finished frame waiting for TX ring space; its LS descriptor is still loaded */
    bool tx_stop_pending; /* ST cleared with a frame pending: TS reads 0 (TPS) once its descriptor is closed */
    bool tx_more;         /* the last pass stopped on its budget */
    bool tx_poll_demand;
    bool rx_poll_demand;
    uint32_t tx_length;
    uint32_t tx_status;
    uint8_t tx_fifo[TX_FIFO_BYTES];

    /* receive: staging for frames from the link, and the FIFO (loopback, or waiting while stopped) */
    uint8_t rx_stage[RX_MAX_FRAME];
    uint8_t fifo[RX_FIFO_FRAMES][RX_MAX_FRAME];
    uint32_t fifo_len[RX_FIFO_FRAMES];
    uint8_t fifo_fcs[RX_FIFO_FRAMES]; /* RX_FCS_*: how that frame's FCS stands */
    uint32_t fifo_head;
    uint32_t fifo_count;

    /* address filter (Dec21140AddressFilter) */
    int filter_mode;
    uint64_t perfect[DEC21140_SETUP_PERFECT_ENTRIES];
    uint64_t hash[DEC21140_SETUP_HASH_BITS / 64];
    uint64_t physical;
    uint32_t rx_mode; /* last SHIM_RXMODE_* handed to the platform */

    /* SROM (Dec21140Srom) */
    uint16_t srom_words[DEC21140_SROM_WORDS_SMALL];
    enum srom_phase srom_phase;
    bool srom_clock;
    bool srom_data_out;
    uint32_t srom_bits;
    uint32_t srom_opcode;
    uint32_t srom_address;
    uint32_t srom_out_bit;
    uint32_t csr9_written;

    /* CSR12 */
    uint32_t gpio_direction;
    uint32_t gpio_outputs;
    uint32_t gpio_inputs;
    bool carrier; /* the link runs (the platform's IFF_RUNNING); a wire state, not reset by CSR0.SWR */

    /* CSR11 and transmit auto-poll timers (absolute CLOCK_MONOTONIC ns) */
    uint32_t gp_count;
    bool gp_continuous;
    bool gp_armed;
    uint64_t gp_tick;
    uint64_t gp_deadline;
    bool tap_armed;
    uint64_t tap_deadline;

    uint32_t events; /* NICSHIM_EV_* gathered during one entry point */
    bool use_clmul;  /* PCLMULQDQ folding available (x86-64, checked at create) */
    uint64_t fold128[2];
    uint64_t fold512[2];
    uint32_t crc_table[8][256];
} dec_card_t;

/* ---------------------------------------------------------------------------------------------
 * CRC-32 (zlib / IEEE 802.3): slicing by 8, and on x86-64 with PCLMULQDQ folding for long runs
 *
 * Folding (reflected domain): a 16-byte block loaded little-endian holds bit k <-> x^(127-k), so its low qword H
 * is the high half: X = H x^64 + L. A carry-less product of two reflected qwords lands one degree low
 * (bit k <-> x^(126-k)), so clmul(H, x^(d+63) mod P) read as a block is H x^(d+64) mod-P-equivalent. Moving a
 * block X forward by d bits (X x^d = H x^(d+64) + L x^d) therefore takes the constants x^(d+63) and x^(d-1)
 * (mod P). The folded block X is congruent to everything read so far, so CRC(prefix) = CRC-of-the-16-bytes-of-X
 * with a zero start, which the table finishes; the initial value is XORed into the first four bytes.
 * ------------------------------------------------------------------------------------------- */

/* NICSHIM_CRC_TABLE_ONLY (a test build) leaves the folding out so that the table path is tested on any CPU. */
#if defined(__x86_64__) && !defined(NICSHIM_CRC_TABLE_ONLY)
#include <immintrin.h>
#define CRC_HAVE_CLMUL 1
#else
#define CRC_HAVE_CLMUL 0
#endif

/** x^e mod P in the normal bit order (bit i <-> x^i), degree < 32. */
static uint32_t xpow_mod(uint32_t e) {
    uint32_t r = 1; /* x^0 */
    for (uint32_t i = 0; i < e; i++) {
        uint32_t carry = r & 0x80000000u;
        r <<= 1;
        if (carry) {
            r ^= DEC21140_FCS_POLY;
        }
    }
    return r;
}

/** The reflected 64-bit form of a polynomial of degree < 32: bit j <-> x^(63-j). */
static uint64_t reflect64(uint32_t normal) {
    uint64_t v = 0;
    for (int i = 0; i < 32; i++) {
        if (normal & (1u << i)) {
            v |= 1ull << (63 - i);
        }
    }
    return v;
}

static void crc_init(dec_card_t *c) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t r = i;
        for (int k = 0; k < 8; k++) {
            r = (r & 1u) ? (r >> 1) ^ DEC21140_FCS_POLY_REFLECTED : r >> 1;
        }
        c->crc_table[0][i] = r;
    }
    for (uint32_t i = 0; i < 256; i++) {
        for (int t = 1; t < 8; t++) {
            uint32_t p = c->crc_table[t - 1][i];
            c->crc_table[t][i] = (p >> 8) ^ c->crc_table[0][p & 0xFFu];
        }
    }
    /* fold by 128 bits (one block) and by 512 bits (four blocks): {x^(d+63), x^(d-1)} mod P */
    c->fold128[0] = reflect64(xpow_mod(128 + 63));
    c->fold128[1] = reflect64(xpow_mod(128 - 1));
    c->fold512[0] = reflect64(xpow_mod(512 + 63));
    c->fold512[1] = reflect64(xpow_mod(512 - 1));
#if CRC_HAVE_CLMUL
    __builtin_cpu_init();
    c->use_clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
#else
    c->use_clmul = false;
#endif
}

/** Raw reflected CRC register update over n bytes (no init, no final XOR), tables only. */
static uint32_t crc_table_run(const dec_card_t *c, uint32_t r, const uint8_t *p, size_t n) {
    while (n >= 8) {
        uint32_t lo = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        lo ^= r;
        r = c->crc_table[7][lo & 0xFFu] ^ c->crc_table[6][(lo >> 8) & 0xFFu] ^
            c->crc_table[5][(lo >> 16) & 0xFFu] ^ c->crc_table[4][lo >> 24] ^
            c->crc_table[3][hi & 0xFFu] ^ c->crc_table[2][(hi >> 8) & 0xFFu] ^
            c->crc_table[1][(hi >> 16) & 0xFFu] ^ c->crc_table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n-- > 0) {
        r = (r >> 8) ^ c->crc_table[0][(r ^ *p++) & 0xFFu];
    }
    return r;
}

#if CRC_HAVE_CLMUL
__attribute__((target("pclmul,sse4.1"))) static __m128i fold(__m128i x, __m128i k) {
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/** Raw CRC register update over n bytes, n a multiple of 16 and >= 64. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t crc_clmul_run(const dec_card_t *c, uint32_t r,
                                                                         const uint8_t *p, size_t n) {
    const __m128i k512 = _mm_set_epi64x((long long)c->fold512[1], (long long)c->fold512[0]);
    const __m128i k128 = _mm_set_epi64x((long long)c->fold128[1], (long long)c->fold128[0]);
    __m128i x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)r));
    __m128i x1 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 48));
    p += 64;
    n -= 64;
    while (n >= 64) {
        x0 = _mm_xor_si128(fold(x0, k512), _mm_loadu_si128((const __m128i *)p));
        x1 = _mm_xor_si128(fold(x1, k512), _mm_loadu_si128((const __m128i *)(p + 16)));
        x2 = _mm_xor_si128(fold(x2, k512), _mm_loadu_si128((const __m128i *)(p + 32)));
        x3 = _mm_xor_si128(fold(x3, k512), _mm_loadu_si128((const __m128i *)(p + 48)));
        p += 64;
        n -= 64;
    }
    __m128i x = _mm_xor_si128(fold(x0, k128), x1);
    x = _mm_xor_si128(fold(x, k128), x2);
    x = _mm_xor_si128(fold(x, k128), x3);
    while (n >= 16) {
        x = _mm_xor_si128(fold(x, k128), _mm_loadu_si128((const __m128i *)p));
        p += 16;
        n -= 16;
    }
    uint8_t block[16];
    _mm_storeu_si128((__m128i *)block, x);
    return crc_table_run(c, 0, block, sizeof(block));
}
#endif

/** zlib's crc32(0, p, n): init and final XOR 0xFFFFFFFF. */
static uint32_t crc32_zlib(const dec_card_t *c, const uint8_t *p, size_t n) {
    uint32_t r = DEC21140_FCS_INIT;
#if CRC_HAVE_CLMUL
    if (c->use_clmul && n >= 128) {
        size_t bulk = n & ~(size_t)15;
        r = crc_clmul_run(c, r, p, bulk);
        p += bulk;
        n -= bulk;
    }
#endif
    return crc_table_run(c, r, p, n) ^ DEC21140_FCS_XOROUT;
}

static void put_le32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/** Running the CRC over data and its own FCS leaves the fixed residue. */
static bool fcs_valid(const dec_card_t *c, const uint8_t *f, uint32_t len) {
    return len >= DEC21140_ETH_FCS_LEN && crc32_zlib(c, f, len) == DEC21140_FCS_RESIDUE;
}

/* ---------------------------------------------------------------------------------------------
 * CSR window (little-endian 32-bit registers; relaxed atomics since Java reads plain CSRs concurrently)
 * ------------------------------------------------------------------------------------------- */

static uint32_t csr_load(const dec_card_t *c, uint32_t offset) {
    return le32toh(shim_load_relaxed(c->csr + offset));
}

/* Release: the Java side reads CSRs it has no side effect on (CSR5, CSR7, ...) straight from the shared window, and
 * a CSR5.RI it sees must come after the RDES0 the card handed back before setting it. */
static void csr_store(dec_card_t *c, uint32_t offset, uint32_t v) {
    shim_store_release(c->csr + offset, htole32(v));
}

/* ---------------------------------------------------------------------------------------------
 * Interrupts and process states
 * ------------------------------------------------------------------------------------------- */

/** Recomputes NIS/AIS: a source counts when set in CSR5 and enabled in CSR7 (A.3). */
static void refresh_interrupt(dec_card_t *c) {
    uint32_t csr5 = csr_load(c, DEC21140_CSR5);
    uint32_t active = csr5 & csr_load(c, DEC21140_CSR7);
    uint32_t summary = 0;
    if (active & DEC21140_CSR5_NORMAL_SOURCES) {
        summary |= DEC21140_CSR5_NIS;
    }
    if (active & DEC21140_CSR5_ABNORMAL_SOURCES) {
        summary |= DEC21140_CSR5_AIS;
    }
    uint32_t nv = (csr5 & ~SUMMARY_BITS) | summary;
    if (nv != csr5) {
        csr_store(c, DEC21140_CSR5, nv);
    }
}

static void raise_bits(dec_card_t *c, uint32_t bits) {
    csr_store(c, DEC21140_CSR5, csr_load(c, DEC21140_CSR5) | bits);
    refresh_interrupt(c);
}

static void set_tx_state(dec_card_t *c, uint32_t ts) {
    c->tx_state = ts;
    uint32_t v = csr_load(c, DEC21140_CSR5);
    csr_store(c, DEC21140_CSR5, (v & ~DEC21140_CSR5_TS_MASK) | (ts << DEC21140_CSR5_TS_SHIFT));
}

static void set_rx_state(dec_card_t *c, uint32_t rs) {
    c->rx_state = rs;
    uint32_t v = csr_load(c, DEC21140_CSR5);
    csr_store(c, DEC21140_CSR5, (v & ~DEC21140_CSR5_RS_MASK) | (rs << DEC21140_CSR5_RS_SHIFT));
}

static uint32_t eb_of(shim_bus_fault_t fault) {
    return fault == SHIM_BUS_PAST_END ? DEC21140_EB_TARGET_ABORT : DEC21140_EB_MASTER_ABORT;
}

/** FBE: the chip stops all DMA; both processes stop until the host restarts them or resets. */
static void fatal_bus_error(dec_card_t *c, uint32_t eb) {
    shim_count(c->shim, SHIM_STAT_BUS_ERRORS, 1);
    c->events |= NICSHIM_EV_BUS_ERR;
    c->tap_armed = false;
    c->tx_in_frame = false; /* a frame read but never sent is dropped */
    c->tx_pending = false;
    c->tx_stop_pending = false;
    c->tx_more = false;
    c->tx.desc = NULL;
    c->rx.desc = NULL;
    c->tx_state = DEC21140_TS_STOPPED;
    c->rx_state = DEC21140_RS_STOPPED;
    uint32_t v = csr_load(c, DEC21140_CSR5) &
                 ~(DEC21140_CSR5_TS_MASK | DEC21140_CSR5_RS_MASK | DEC21140_CSR5_EB_MASK);
    csr_store(c, DEC21140_CSR5, v | (eb << DEC21140_CSR5_EB_SHIFT) | DEC21140_CSR5_FBE);
    refresh_interrupt(c);
}

/* ---------------------------------------------------------------------------------------------
 * Descriptor walker (Dec21140DescriptorWalker)
 * ------------------------------------------------------------------------------------------- */

static void walker_set_base(walker_t *w, uint32_t base) {
    w->base = base;
    w->current = base;
    w->desc = NULL;
}

/** Loads the current descriptor: word 0 with acquire, then (if card-owned) words 1..3. */
static enum fetch_result walker_fetch(dec_card_t *c, walker_t *w, uint32_t *eb) {
    w->desc = NULL;
    if (w->current & (DEC21140_DESC_ALIGN - 1)) {
        *eb = DEC21140_EB_TARGET_ABORT; /* the model: a misaligned descriptor pointer is a target abort */
        return FETCH_BUS_ERROR;
    }
    shim_bus_fault_t fault;
    uint8_t *d = shim_dma(c->shim, w->current, DEC21140_DESC_SIZE, &fault);
    if (d == NULL) {
        *eb = eb_of(fault);
        return FETCH_BUS_ERROR;
    }
    if (((uintptr_t)d & (DEC21140_DESC_ALIGN - 1)) != 0) {
        *eb = DEC21140_EB_MASTER_ABORT;
        return FETCH_BUS_ERROR;
    }
    uint32_t status = le32toh(shim_load_acquire(d + DEC21140_DESC_DES0_OFS));
    if ((status & DEC21140_RDES0_OWN) == 0) {
        return FETCH_HOST_OWNED;
    }
    w->desc = d;
    w->control = le32toh(shim_load_relaxed(d + DEC21140_DESC_DES1_OFS));
    w->buffer1 = le32toh(shim_load_relaxed(d + DEC21140_DESC_DES2_OFS));
    w->word3 = le32toh(shim_load_relaxed(d + DEC21140_DESC_DES3_OFS));
    return FETCH_CARD_OWNED;
}

static uint32_t walker_size1(const walker_t *w) {
    return w->control & DESC_SIZE1_MASK;
}

/** Buffer 2 size; 0 with the chain bit (word 3 is then the next pointer) - Linux's ring-with-pointers layout. */
static uint32_t walker_size2(const walker_t *w) {
    return (w->control & DESC_CHAINED) ? 0 : (w->control & DESC_SIZE2_MASK) >> DESC_SIZE2_SHIFT;
}

/** Hands a descriptor back: status (OWN clear) with release, after its buffer data. */
static void desc_write_status(uint8_t *desc, uint32_t status) {
    shim_store_release(desc + DEC21140_DESC_DES0_OFS, htole32(status & ~DEC21140_RDES0_OWN));
}

static void walker_complete(walker_t *w, uint32_t status) {
    desc_write_status(w->desc, status);
}

/** A.7: end-of-ring wins over chain; chain follows word 3; else current + 16 + 4 x DSL. */
static void walker_advance(walker_t *w) {
    if (w->control & DESC_END_OF_RING) {
        w->current = w->base;
    } else if (w->control & DESC_CHAINED) {
        w->current = w->word3;
    } else {
        w->current = w->current + DEC21140_DESC_SIZE + DEC21140_DSL_UNIT_BYTES * w->skip;
    }
    w->desc = NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Address filter (Dec21140AddressFilter) and the platform's receive mode
 * ------------------------------------------------------------------------------------------- */

static uint64_t mac_of(const uint8_t *a) {
    return (uint64_t)a[0] << 40 | (uint64_t)a[1] << 32 | (uint64_t)a[2] << 24 | (uint64_t)a[3] << 16 |
           (uint64_t)a[4] << 8 | (uint64_t)a[5];
}

/** Setup-frame address: MAC bytes at e+0, e+1, e+4, e+5, e+8, e+9 (low halves of three longwords). */
static uint64_t setup_mac(const uint8_t *e) {
    const uint8_t a[6] = {e[0], e[1], e[4], e[5], e[8], e[9]};
    return mac_of(a);
}

static uint32_t hash_index(const dec_card_t *c, const uint8_t *addr) {
    return ~crc32_zlib(c, addr, DEC21140_ETH_ADDR_LEN) & DEC21140_SETUP_HASH_INDEX_MASK;
}

static bool hash_bit(const dec_card_t *c, uint32_t i) {
    return (c->hash[i >> 6] >> (i & 63)) & 1u;
}

static void filter_clear(dec_card_t *c) {
    c->filter_mode = FILTER_NONE;
    memset(c->perfect, 0, sizeof(c->perfect));
    memset(c->hash, 0, sizeof(c->hash));
    c->physical = 0;
}

static void filter_load(dec_card_t *c, const uint8_t *setup, uint32_t type) {
    c->filter_mode = (int)(type & 3u);
    if (c->filter_mode == DEC21140_FT_PERFECT || c->filter_mode == DEC21140_FT_INVERSE) {
        for (int n = 0; n < DEC21140_SETUP_PERFECT_ENTRIES; n++) {
            c->perfect[n] = setup_mac(setup + n * DEC21140_SETUP_PERFECT_ENTRY_SIZE);
        }
    } else {
        memset(c->hash, 0, sizeof(c->hash));
        for (uint32_t lw = 0; lw < DEC21140_SETUP_HASH_LONGWORDS; lw++) {
            uint64_t half = (uint64_t)setup[4 * lw] | (uint64_t)setup[4 * lw + 1] << 8;
            uint32_t bit0 = lw * DEC21140_SETUP_HASH_BITS_PER_LW;
            c->hash[bit0 >> 6] |= half << (bit0 & 63);
        }
        c->physical = setup_mac(setup + DEC21140_SETUP_HASH_PHYS_OFS);
    }
}

static bool in_perfect(const dec_card_t *c, uint64_t a) {
    for (int n = 0; n < DEC21140_SETUP_PERFECT_ENTRIES; n++) {
        if (c->perfect[n] == a) {
            return true;
        }
    }
    return false;
}

static bool filter_accepts(const dec_card_t *c, const uint8_t *dst) {
    switch (c->filter_mode) {
    case DEC21140_FT_PERFECT:
        return in_perfect(c, mac_of(dst));
    case DEC21140_FT_INVERSE:
        return !in_perfect(c, mac_of(dst));
    case DEC21140_FT_HASH:
        if (dst[0] & 1u) {
            return hash_bit(c, hash_index(c, dst));
        }
        return mac_of(dst) == c->physical;
    case DEC21140_FT_HASH_ONLY:
        return hash_bit(c, hash_index(c, dst));
    default:
        return false;
    }
}

/**
 * What the platform must let through for the software filter above to see every frame it would accept:
 * promiscuous for PR / RA / inverse / hash-only or a unicast entry other than the interface's address,
 * all-multicast for PM or any multicast entry other than broadcast (which a real NIC always passes).
 */
static uint32_t wanted_rx_mode(const dec_card_t *c) {
    uint32_t csr6 = csr_load(c, DEC21140_CSR6);
    uint32_t mode = 0;
    if (csr6 & (DEC21140_CSR6_PR | DEC21140_CSR6_RA)) {
        mode |= SHIM_RXMODE_PROMISC;
    }
    if (csr6 & DEC21140_CSR6_PM) {
        mode |= SHIM_RXMODE_ALLMULTI;
    }
    const uint64_t own = mac_of(shim_mac(c->shim));
    const uint64_t broadcast = 0xFFFFFFFFFFFFull;
    switch (c->filter_mode) {
    case DEC21140_FT_PERFECT:
        for (int n = 0; n < DEC21140_SETUP_PERFECT_ENTRIES; n++) {
            uint64_t a = c->perfect[n];
            if (a == broadcast || a == own) {
                continue;
            }
            mode |= (a >> 40) & 1u ? SHIM_RXMODE_ALLMULTI : SHIM_RXMODE_PROMISC;
        }
        break;
    case DEC21140_FT_HASH:
        for (uint32_t i = 0; i < DEC21140_SETUP_HASH_BITS; i++) {
            if (i != DEC21140_SETUP_HASH_BROADCAST_INDEX && hash_bit(c, i)) {
                mode |= SHIM_RXMODE_ALLMULTI;
                break;
            }
        }
        if (c->physical != own) {
            mode |= SHIM_RXMODE_PROMISC;
        }
        break;
    case DEC21140_FT_INVERSE:
    case DEC21140_FT_HASH_ONLY:
        mode |= SHIM_RXMODE_PROMISC;
        break;
    default:
        break;
    }
    return mode;
}

static void update_rx_mode(dec_card_t *c, bool force) {
    uint32_t mode = wanted_rx_mode(c);
    if (force || mode != c->rx_mode) {
        c->rx_mode = mode;
        shim_set_rx_mode(c->shim, mode);
    }
}

/* ---------------------------------------------------------------------------------------------
 * SROM (Dec21140Srom): 64 words, DEC layout, Microwire read by bit-banging CSR9
 * ------------------------------------------------------------------------------------------- */

static void put_le16(uint8_t *b, uint32_t at, uint32_t v) {
    b[at] = (uint8_t)v;
    b[at + 1] = (uint8_t)(v >> 8);
}

static void srom_build(dec_card_t *c, const uint8_t *mac) {
    uint8_t b[DEC21140_SROM_WORDS_SMALL * 2];
    memset(b, 0, sizeof(b));
    put_le16(b, DEC21140_SROM_SUBSYS_OFS, DEC21140_PCI_VENDOR_DEC);
    put_le16(b, DEC21140_SROM_SUBSYS_OFS + 2, DEC21140_PCI_DEVICE_21140);
    b[DEC21140_SROM_ID_CRC_OFS] = (uint8_t)crc32_zlib(c, b + DEC21140_SROM_SUBSYS_OFS, DEC21140_SROM_SUBSYS_SIZE);
    b[DEC21140_SROM_FORMAT_VERSION_OFS] = SROM_FORMAT_VERSION;
    b[DEC21140_SROM_CONTROLLER_COUNT_OFS] = 1;
    memcpy(b + DEC21140_SROM_MAC_OFS, mac, DEC21140_SROM_MAC_SIZE);
    b[DEC21140_SROM_DEVICE_NUMBER_OFS] = 0;
    put_le16(b, DEC21140_SROM_INFO_LEAF_OFS, SROM_INFO_LEAF_OFFSET);
    uint32_t p = SROM_INFO_LEAF_OFFSET;
    put_le16(b, p, SROM_CONNECTION_AUTO);
    p += 2;
    b[p++] = DEC21140_SMC9332_GPIO_DIRECTION;
    b[p++] = 1; /* media blocks */
    b[p++] = SROM_MEDIA_100BASE_TX;
    b[p++] = DEC21140_SMC9332_GPIO_100BASETX;
    put_le16(b, p, DEC21140_SMC9332_CMD_100BASETX);
    put_le16(b, DEC21140_SROM_CRC_OFS, crc32_zlib(c, b, DEC21140_SROM_CRC_COVERED_BYTES));
    for (int i = 0; i < DEC21140_SROM_WORDS_SMALL; i++) {
        c->srom_words[i] = (uint16_t)(b[2 * i] | b[2 * i + 1] << 8);
    }
}

static void srom_reset(dec_card_t *c) {
    c->srom_phase = SROM_IDLE;
    c->srom_clock = false;
    c->srom_data_out = true;
}

/** One rising SK edge with DI: start bit, 2 opcode bits, 6 address bits, then D15..D0 per edge (sequential). */
static void srom_clock_in(dec_card_t *c, uint32_t di) {
    switch (c->srom_phase) {
    case SROM_IDLE:
        if (di) {
            c->srom_phase = SROM_OPCODE;
            c->srom_bits = 0;
            c->srom_opcode = 0;
        }
        c->srom_data_out = true;
        break;
    case SROM_OPCODE:
        c->srom_opcode = c->srom_opcode << 1 | di;
        if (++c->srom_bits == DEC21140_SROM_OP_BITS - 1) {
            c->srom_phase = SROM_ADDRESS;
            c->srom_bits = 0;
            c->srom_address = 0;
        }
        break;
    case SROM_ADDRESS:
        c->srom_address = c->srom_address << 1 | di;
        if (++c->srom_bits == DEC21140_SROM_ADDR_BITS_SMALL) {
            if (c->srom_opcode == SROM_OPCODE_READ) {
                c->srom_phase = SROM_DATA;
                c->srom_out_bit = 16;
                c->srom_data_out = false; /* the dummy zero */
            } else {
                c->srom_phase = SROM_IGNORE; /* write/erase/EWEN: write-protected */
            }
        }
        break;
    case SROM_DATA:
        if (c->srom_out_bit == 0) {
            c->srom_address = (c->srom_address + 1) & (DEC21140_SROM_WORDS_SMALL - 1);
            c->srom_out_bit = 16;
        }
        c->srom_out_bit--;
        c->srom_data_out = (c->srom_words[c->srom_address & (DEC21140_SROM_WORDS_SMALL - 1)] >>
                            c->srom_out_bit) & 1u;
        break;
    case SROM_IGNORE:
        c->srom_data_out = true;
        break;
    }
}

static void srom_pins(dec_card_t *c, uint32_t csr9) {
    bool selected = (csr9 & DEC21140_CSR9_SR) && (csr9 & DEC21140_CSR9_SROM_CS);
    bool sk = (csr9 & DEC21140_CSR9_SROM_SK) != 0;
    if (!selected) {
        c->srom_phase = SROM_IDLE;
        c->srom_data_out = true;
        c->srom_clock = sk;
        return;
    }
    bool rising = sk && !c->srom_clock;
    c->srom_clock = sk;
    if (rising) {
        srom_clock_in(c, (csr9 & DEC21140_CSR9_SROM_DI) ? 1u : 0u);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Reset
 * ------------------------------------------------------------------------------------------- */

static const uint32_t reset_values[DEC21140_CSR_COUNT] = {
    DEC21140_CSR0_RESET,  DEC21140_CSR1_RESET,  DEC21140_CSR2_RESET,  DEC21140_CSR3_RESET,
    DEC21140_CSR4_RESET,  DEC21140_CSR5_RESET,  DEC21140_CSR6_RESET,  DEC21140_CSR7_RESET,
    DEC21140_CSR8_RESET,  DEC21140_CSR9_RESET,  DEC21140_CSR10_RESET, DEC21140_CSR11_RESET,
    DEC21140_CSR12_RESET, DEC21140_CSR13_RESET, DEC21140_CSR14_RESET, DEC21140_CSR15_RESET};

static void card_reset(dec_card_t *c) {
    c->tap_armed = false;
    c->gp_armed = false;
    c->tx_in_frame = false;
    c->tx_pending = false;
    c->tx_stop_pending = false;
    c->tx_more = false;
    c->tx_length = 0;
    c->fifo_head = 0;
    c->fifo_count = 0;
    for (uint32_t i = 0; i < DEC21140_CSR_COUNT; i++) {
        csr_store(c, i * DEC21140_CSR_STRIDE, reset_values[i]);
    }
    c->tx_state = DEC21140_TS_STOPPED;
    c->rx_state = DEC21140_RS_STOPPED;
    c->tx.skip = 0;
    c->rx.skip = 0;
    walker_set_base(&c->tx, DEC21140_CSR4_RESET);
    walker_set_base(&c->rx, DEC21140_CSR3_RESET);
    filter_clear(c);
    srom_reset(c);
    c->csr9_written = DEC21140_CSR9_RESET;
    c->gpio_direction = 0;
    c->gpio_outputs = 0;
    /* all pins inputs: the window shows what they read (the Java side reads CSR12 from it without a call) */
    csr_store(c, DEC21140_CSR12, c->gpio_inputs & DEC21140_CSR12_PINS_MASK);
    c->gp_count = 0;
    c->gp_continuous = false;
    c->tx_poll_demand = false;
    c->rx_poll_demand = false;
    refresh_interrupt(c);
    update_rx_mode(c, false);
}

/* ---------------------------------------------------------------------------------------------
 * CSR8 counters
 * ------------------------------------------------------------------------------------------- */

static void count_missed_frame(dec_card_t *c) {
    uint32_t v = csr_load(c, DEC21140_CSR8);
    uint32_t n = v & DEC21140_CSR8_MFC_MASK;
    csr_store(c, DEC21140_CSR8, n == DEC21140_CSR8_MFC_MASK ? v | DEC21140_CSR8_MFO
                                                             : (v & ~DEC21140_CSR8_MFC_MASK) | (n + 1));
}

static void count_fifo_overflow(dec_card_t *c) {
    const uint32_t max = DEC21140_CSR8_FOC_MASK >> DEC21140_CSR8_FOC_SHIFT;
    uint32_t v = csr_load(c, DEC21140_CSR8);
    uint32_t n = (v & DEC21140_CSR8_FOC_MASK) >> DEC21140_CSR8_FOC_SHIFT;
    csr_store(c, DEC21140_CSR8, n == max ? v | DEC21140_CSR8_OCO
                                         : (v & ~DEC21140_CSR8_FOC_MASK) | ((n + 1) << DEC21140_CSR8_FOC_SHIFT));
}

/* ---------------------------------------------------------------------------------------------
 * Receive process
 * ------------------------------------------------------------------------------------------- */

/* How a received frame's FCS stands: to be checked, computed by the card itself (good), or never received because
 * the receive watchdog cut the frame after RX_MAX_FRAME bytes (RDES0.RW, CSR5.RWT; no CRC check). */
#define RX_FCS_CHECK 0u
#define RX_FCS_GOOD  1u
#define RX_FCS_CUT   2u

static bool fifo_push(dec_card_t *c, const uint8_t *f, uint32_t len, uint32_t fcs) {
    if (c->fifo_count == RX_FIFO_FRAMES) {
        shim_count(c->shim, SHIM_STAT_RX_MISSED, 1);
        count_fifo_overflow(c);
        return false;
    }
    uint32_t slot = (c->fifo_head + c->fifo_count) % RX_FIFO_FRAMES;
    memcpy(c->fifo[slot], f, len);
    c->fifo_len[slot] = len;
    c->fifo_fcs[slot] = (uint8_t)fcs;
    c->fifo_count++;
    return true;
}

static uint32_t rx_flags(const dec_card_t *c, const uint8_t *f, uint32_t len, bool filter_failed, uint32_t fcs) {
    uint32_t om = (csr_load(c, DEC21140_CSR6) & DEC21140_CSR6_OM_MASK) >> DEC21140_CSR6_OM_SHIFT;
    uint32_t flags = om << DEC21140_RDES0_DT_SHIFT; /* in loopback every FIFO frame is our own */
    if (filter_failed) {
        flags |= DEC21140_RDES0_FF;
    }
    if (f[0] & 1u) {
        flags |= DEC21140_RDES0_MF;
    }
    if (len >= DEC21140_ETH_HEADER_LEN && ((uint32_t)f[12] << 8 | f[13]) > DEC21140_ETH_MAX_LENGTH_FIELD) {
        flags |= DEC21140_RDES0_FT;
    }
    if (len < DEC21140_ETH_MIN_FRAME) {
        flags |= DEC21140_RDES0_RF;
    }
    if (len > DEC21140_ETH_MAX_FRAME) {
        flags |= DEC21140_RDES0_TL;
    }
    if (fcs == RX_FCS_CUT) {
        flags |= DEC21140_RDES0_RW;
    } else if (fcs == RX_FCS_CHECK && !fcs_valid(c, f, len)) {
        flags |= DEC21140_RDES0_CE;
    }
    return flags;
}

static uint32_t truncated_status(uint32_t status, uint32_t written, uint32_t flags) {
    return status | DEC21140_RDES0_LS | DEC21140_RDES0_DE | DEC21140_RDES0_ES |
           (written << DEC21140_RDES0_FL_SHIFT) | (flags & RX_KEEP_ON_TRUNCATION);
}

/** RI (with `also`): the frame is closed; RI clears ERI on the 21140A (early_receive). */
static void raise_received(dec_card_t *c, uint32_t also) {
    csr_store(c, DEC21140_CSR5, csr_load(c, DEC21140_CSR5) & ~DEC21140_CSR5_ERI);
    raise_bits(c, DEC21140_CSR5_RI | also);
}

/**
 * ERI (A.3): the frame's first data buffer is full and more of the frame follows. Set after the copy that filled the
 * first buffer the frame went into, without re-evaluating the line: the frame is moved in one step, so RI (which
 * clears ERI) or a bus error (FBE) follows at once, as in the model's earlyReceive. Returns whether ERI was set.
 */
static bool early_receive(dec_card_t *c, bool already, uint32_t written, uint32_t len) {
    if (already || written == len) {
        return already;
    }
    csr_store(c, DEC21140_CSR5, csr_load(c, DEC21140_CSR5) | DEC21140_CSR5_ERI);
    return true;
}

static void frame_truncated(dec_card_t *c) {
    shim_count(c->shim, SHIM_STAT_CARD_ERRORS, 1);
    c->events |= NICSHIM_EV_RX;
    raise_received(c, 0);
}

/**
 * A frame as the receive process sees it: `len` bytes, the first `body_len` at `body` and the rest (at most the pad
 * and the FCS) at `tail`. A frame from the link is delivered straight from the kernel's ring slot this way, with only
 * its FCS computed here, instead of being copied whole into a staging buffer first.
 */
typedef struct rx_src {
    const uint8_t *body;
    uint32_t body_len;
    const uint8_t *tail;
} rx_src_t;

/** DMA of n frame bytes from offset `at` into a receive buffer. false after a bus error (the process is stopped). */
static bool rx_copy(dec_card_t *c, uint32_t bus, const rx_src_t *src, uint32_t at, uint32_t n) {
    if (bus & (DEC21140_DESC_ALIGN - 1)) { /* receive buffers must be longword aligned (A.6) */
        fatal_bus_error(c, DEC21140_EB_TARGET_ABORT);
        return false;
    }
    shim_bus_fault_t fault;
    uint8_t *p = shim_dma(c->shim, bus, n, &fault);
    if (p == NULL) {
        fatal_bus_error(c, eb_of(fault));
        return false;
    }
    if (at < src->body_len) {
        uint32_t k = src->body_len - at < n ? src->body_len - at : n;
        memcpy(p, src->body + at, k);
        p += k;
        at += k;
        n -= k;
    }
    if (n > 0) {
        memcpy(p, src->tail + (at - src->body_len), n);
    }
    return true;
}

/** Moves one accepted frame (data + FCS) into host buffers (docs/hardware-facts.md A.7, receive). rx_flags reads
 * only the header from `f` (the body: always >= 60 bytes when there is a tail) unless the FCS is unchecked
 * (contiguous). */
static void rx_deliver(dec_card_t *c, const rx_src_t *src, uint32_t len, bool filter_failed, uint32_t fcs) {
    const uint8_t *f = src->body;
    walker_t *w = &c->rx;
    uint32_t eb = 0;
    bool was_suspended = c->rx_state == DEC21140_RS_SUSPENDED;
    set_rx_state(c, DEC21140_RS_FETCH_DESC);
    enum fetch_result r = walker_fetch(c, w, &eb);
    if (r == FETCH_BUS_ERROR) {
        fatal_bus_error(c, eb);
        return;
    }
    if (r == FETCH_HOST_OWNED) {
        shim_count(c->shim, SHIM_STAT_RX_MISSED, 1);
        count_missed_frame(c);
        c->events |= NICSHIM_EV_RX_STALL;
        set_rx_state(c, DEC21140_RS_SUSPENDED);
        if (!was_suspended) { /* RU marks the transition into suspended, not every frame missed while in it */
            raise_bits(c, DEC21140_CSR5_RU);
        }
        return;
    }
    uint32_t flags = rx_flags(c, f, len, filter_failed, fcs);
    uint32_t written = 0;
    uint32_t used = 0;
    bool first = true;
    bool early = false;
    for (;;) {
        used++;
        uint32_t size1 = walker_size1(w);
        uint32_t size2 = walker_size2(w);
        uint32_t status;
        if (size1 == 0 && size2 == 0) {
            status = DEC21140_RDES0_DE | DEC21140_RDES0_ES; /* skipped: no FS/LS */
        } else {
            uint32_t n1 = len - written < size1 ? len - written : size1;
            if (n1 > 0) {
                if (!rx_copy(c, w->buffer1, src, written, n1)) {
                    return;
                }
                written += n1;
                early = early_receive(c, early, written, len);
            }
            uint32_t n2 = len - written < size2 ? len - written : size2;
            if (n2 > 0) {
                if (!rx_copy(c, w->word3, src, written, n2)) {
                    return;
                }
                written += n2;
                early = early_receive(c, early, written, len);
            }
            status = first ? DEC21140_RDES0_FS : 0;
            first = false;
        }
        if (written == len) {
            uint32_t fin = status | DEC21140_RDES0_LS | (len << DEC21140_RDES0_FL_SHIFT) | flags;
            if (fin & DEC21140_RDES0_ES_SOURCES) {
                fin |= DEC21140_RDES0_ES;
            }
            walker_complete(w, fin);
            walker_advance(w);
            uint32_t also = 0;
            if (flags & DEC21140_RDES0_RW) {
                also = DEC21140_CSR5_RWT; /* counted as too long when it arrived */
            } else {
                shim_count(c->shim, SHIM_STAT_RX_FRAMES, 1);
                shim_count(c->shim, SHIM_STAT_RX_BYTES, len);
            }
            c->events |= NICSHIM_EV_RX;
            raise_received(c, also);
            set_rx_state(c, DEC21140_RS_WAIT_PACKET);
            return;
        }
        if (used == RX_DESCRIPTORS_PER_FRAME) {
            walker_complete(w, truncated_status(status, written, flags));
            walker_advance(w);
            frame_truncated(c);
            set_rx_state(c, DEC21140_RS_WAIT_PACKET);
            return;
        }
        uint8_t *here = w->desc;
        walker_advance(w);
        r = walker_fetch(c, w, &eb);
        if (r == FETCH_CARD_OWNED) {
            desc_write_status(here, status);
            continue;
        }
        /* The frame does not fit the descriptors the host gave: cut it here (DE) and hand back what we have. */
        desc_write_status(here, truncated_status(status, written, flags));
        frame_truncated(c);
        if (r == FETCH_HOST_OWNED) {
            set_rx_state(c, DEC21140_RS_SUSPENDED);
            raise_bits(c, DEC21140_CSR5_RU);
        } else {
            fatal_bus_error(c, eb);
        }
        return;
    }
}

/** One frame (data + FCS) taken off the FIFO by a running receive process: runt check, filter, delivery. */
static void rx_frame_src(dec_card_t *c, const rx_src_t *src, uint32_t len, uint32_t fcs) {
    const uint8_t *f = src->body;
    uint32_t csr6 = csr_load(c, DEC21140_CSR6);
    if (len < DEC21140_ETH_ADDR_LEN || (len < DEC21140_ETH_MIN_FRAME && !(csr6 & DEC21140_CSR6_PB))) {
        shim_count(c->shim, SHIM_STAT_RX_DROP_BAD_FRAME, 1);
        return;
    }
    bool group = (f[0] & 1u) != 0;
    bool pass = (csr6 & DEC21140_CSR6_PR) || (group && (csr6 & DEC21140_CSR6_PM)) || filter_accepts(c, f);
    if (!pass && !(csr6 & DEC21140_CSR6_RA)) {
        shim_count(c->shim, SHIM_STAT_RX_DROP_FILTER, 1);
        return;
    }
    rx_deliver(c, src, len, !pass, fcs);
}

static void rx_frame(dec_card_t *c, const uint8_t *f, uint32_t len, uint32_t fcs) {
    rx_src_t src = {f, len, NULL};
    rx_frame_src(c, &src, len, fcs);
}

/** The model's receiveWork: drain the FIFO while the receive process runs. */
static void rx_drain(dec_card_t *c) {
    while (c->rx_state != DEC21140_RS_STOPPED && c->fifo_count > 0) {
        uint32_t slot = c->fifo_head;
        c->fifo_head = (c->fifo_head + 1) % RX_FIFO_FRAMES;
        c->fifo_count--;
        rx_frame(c, c->fifo[slot], c->fifo_len[slot], c->fifo_fcs[slot]);
    }
}

/** CSR2 while suspended: look at the current descriptor again. */
static void rx_poll_descriptor(dec_card_t *c) {
    uint32_t eb = 0;
    enum fetch_result r = walker_fetch(c, &c->rx, &eb);
    if (r == FETCH_CARD_OWNED) {
        set_rx_state(c, DEC21140_RS_WAIT_PACKET);
    } else if (r == FETCH_BUS_ERROR) {
        fatal_bus_error(c, eb);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Transmit process
 * ------------------------------------------------------------------------------------------- */

/** Writes the LS descriptor's status (OWN clear, release), raises TI if asked, moves on. */
static void tx_close_frame(dec_card_t *c) {
    if (c->tx_state != DEC21140_TS_STOPPED) {
        set_tx_state(c, DEC21140_TS_CLOSE_DESC);
    }
    bool ic = (c->tx.control & DEC21140_TDES1_IC) != 0;
    bool jabber = c->tx_jabber;
    walker_complete(&c->tx, c->tx_status);
    c->tx_in_frame = false;
    c->tx_jabber = false;
    c->tx_pending = false;
    c->tx_length = 0;
    c->events |= NICSHIM_EV_TX_DONE;
    if (ic) {
        raise_bits(c, DEC21140_CSR5_TI);
    }
    walker_advance(&c->tx);
    if (c->tx_stop_pending || jabber) {
        /* the stop the host asked for while this frame was in flight, reported only now; or the jabber timer, which
         * aborts the transmit process into the stopped state (TJT, then TPS: Linux restarts on TxDied) */
        c->tx_stop_pending = false;
        set_tx_state(c, DEC21140_TS_STOPPED);
        raise_bits(c, DEC21140_CSR5_TPS);
    } else if (c->tx_state != DEC21140_TS_STOPPED) {
        set_tx_state(c, DEC21140_TS_FETCH_DESC);
    }
}

static void tx_loop_back(dec_card_t *c) {
    if (!(csr_load(c, DEC21140_CSR6) & DEC21140_CSR6_SR)) {
        shim_count(c->shim, SHIM_STAT_RX_DROP_FILTER, 1); /* the receiver is off */
        return;
    }
    if (c->tx_add_fcs) {
        uint32_t data = c->tx_length - DEC21140_ETH_FCS_LEN;
        put_le32(c->tx_fifo + data, crc32_zlib(c, c->tx_fifo, data)); /* least significant byte first */
    }
    fifo_push(c, c->tx_fifo, c->tx_length, c->tx_add_fcs ? RX_FCS_GOOD : RX_FCS_CHECK);
}

/** Longest frame (without FCS) the kernel takes on this interface: MTU + header (+ 4 with an 802.1Q tag). */
static uint32_t link_limit(const dec_card_t *c, const uint8_t *f, uint32_t len) {
    uint32_t limit = shim_mtu(c->shim) + DEC21140_ETH_HEADER_LEN;
    if (len >= DEC21140_ETH_HEADER_LEN && ((uint32_t)f[12] << 8 | f[13]) == ETH_VLAN_TPID) {
        limit += ETH_VLAN_TAG_LEN;
    }
    return limit;
}

/**
 * The frame in the FIFO (padded, FCS appended unless AC) leaves: into our own receive FIFO in loopback,
 * else without its FCS into the kernel's TX ring. false = ring full: the frame and its LS descriptor wait.
 */
static bool tx_put_on_wire(dec_card_t *c) {
    uint32_t om = (csr_load(c, DEC21140_CSR6) & DEC21140_CSR6_OM_MASK) >> DEC21140_CSR6_OM_SHIFT;
    if (om != DEC21140_OM_NORMAL) {
        if (c->tx_state != DEC21140_TS_STOPPED) {
            set_tx_state(c, DEC21140_TS_WAIT_END);
        }
        tx_loop_back(c);
        tx_close_frame(c);
        return true;
    }
    /* Both forms end in 4 FCS bytes: ours (correct) or the host's (AC), which only the receiver would check. */
    uint32_t len = c->tx_length >= DEC21140_ETH_FCS_LEN ? c->tx_length - DEC21140_ETH_FCS_LEN : 0;
    if (len > link_limit(c, c->tx_fifo, len)) {
        shim_count(c->shim, SHIM_STAT_TX_DROP_TOO_LONG, 1);
        c->tx_status = DEC21140_TDES0_TO | DEC21140_TDES0_ES;
        tx_close_frame(c);
        return true;
    }
    if ((!c->tx_add_fcs && !fcs_valid(c, c->tx_fifo, c->tx_length)) || len < DEC21140_ETH_HEADER_LEN) {
        shim_count(c->shim, SHIM_STAT_CARD_ERRORS, 1); /* the link cannot carry it; the chip reports success */
        tx_close_frame(c);
        return true;
    }
    if (!c->carrier) {
        /* No carrier (A.6, as the model's noCarrier): the frame would go into a cable that leads nowhere. It is not
           handed to the kernel; TDES0 = NC|LO|ES, which Linux counts as tx_carrier_errors. */
        shim_count(c->shim, SHIM_STAT_CARD_ERRORS, 1);
        c->tx_status |= DEC21140_TDES0_NC | DEC21140_TDES0_LO | DEC21140_TDES0_ES;
        if (c->tx_state != DEC21140_TS_STOPPED) {
            set_tx_state(c, DEC21140_TS_WAIT_END);
        }
        tx_close_frame(c);
        return true;
    }
    if (!shim_tx_frame(c->shim, c->tx_fifo, len)) {
        c->tx_pending = true;
        return false;
    }
    shim_count(c->shim, SHIM_STAT_TX_FRAMES, 1);
    shim_count(c->shim, SHIM_STAT_TX_BYTES, c->tx_length);
    if (c->tx_state != DEC21140_TS_STOPPED) {
        set_tx_state(c, DEC21140_TS_WAIT_END);
    }
    tx_close_frame(c);
    return true;
}

/** The LS descriptor is loaded and its buffers read: pad, add the FCS, send. */
static void tx_finish_frame(dec_card_t *c) {
    if (c->tx_jabber) {
        shim_count(c->shim, SHIM_STAT_TX_DROP_TOO_LONG, 1);
        c->tx_status = DEC21140_TDES0_TO | DEC21140_TDES0_ES;
        raise_bits(c, DEC21140_CSR5_TJT);
        tx_close_frame(c);
        return;
    }
    if (c->tx_length == 0) {
        shim_count(c->shim, SHIM_STAT_TX_BAD_DESCRIPTOR, 1);
        c->tx_status = DEC21140_TDES0_ES;
        tx_close_frame(c);
        return;
    }
    if (c->tx_pad && c->tx_length < DEC21140_ETH_MIN_FRAME_NOFCS) {
        memset(c->tx_fifo + c->tx_length, 0, DEC21140_ETH_MIN_FRAME_NOFCS - c->tx_length);
        c->tx_length = DEC21140_ETH_MIN_FRAME_NOFCS;
    }
    if (c->tx_add_fcs) {
        /* Room for the FCS; its bytes are computed only where they are used (loopback, tx_loop_back): on the
           link the kernel / NIC appends its own, so computing ours would only be stripped again. */
        c->tx_length += DEC21140_ETH_FCS_LEN;
    }
    c->tx_status = 0;
    tx_put_on_wire(c);
}

static void tx_begin_frame(dec_card_t *c, uint32_t control) {
    c->tx_in_frame = true;
    c->tx_jabber = false;
    c->tx_length = 0;
    c->tx_add_fcs = (control & DEC21140_TDES1_AC) == 0;
    c->tx_pad = (control & DEC21140_TDES1_DPD) == 0;
}

/** Reads one transmit buffer into the FIFO. false after a bus error (the process is stopped). */
static bool tx_read_buffer(dec_card_t *c, uint32_t bus, uint32_t size) {
    shim_bus_fault_t fault;
    const uint8_t *p = shim_dma(c->shim, bus, size, &fault);
    if (p == NULL) {
        c->tx_in_frame = false;
        fatal_bus_error(c, eb_of(fault));
        return false;
    }
    if (!c->tx_jabber) {
        uint32_t fcs = c->tx_add_fcs ? DEC21140_ETH_FCS_LEN : 0;
        if (c->tx_length + size + fcs > TX_FIFO_BYTES) {
            c->tx_jabber = true; /* the jabber timer cuts the frame off; the rest is read and discarded */
        } else {
            memcpy(c->tx_fifo + c->tx_length, p, size);
            c->tx_length += size;
        }
    }
    return true;
}

static void tx_setup_frame(dec_card_t *c, uint32_t control) {
    walker_t *w = &c->tx;
    set_tx_state(c, DEC21140_TS_SETUP);
    uint32_t status;
    if (walker_size1(w) != DEC21140_SETUP_FRAME_SIZE) {
        shim_count(c->shim, SHIM_STAT_TX_BAD_DESCRIPTOR, 1);
        status = DEC21140_TDES0_ES;
    } else {
        shim_bus_fault_t fault;
        const uint8_t *p = shim_dma(c->shim, w->buffer1, DEC21140_SETUP_FRAME_SIZE, &fault);
        if (p == NULL) {
            fatal_bus_error(c, eb_of(fault));
            return;
        }
        uint8_t setup[DEC21140_SETUP_FRAME_SIZE];
        memcpy(setup, p, sizeof(setup));
        uint32_t type = ((control & DEC21140_TDES1_FT1) ? 2u : 0u) | ((control & DEC21140_TDES1_FT0) ? 1u : 0u);
        filter_load(c, setup, type);
        uint32_t ro = type == DEC21140_FT_HASH        ? DEC21140_CSR6_HP
                      : type == DEC21140_FT_INVERSE   ? DEC21140_CSR6_IF
                      : type == DEC21140_FT_HASH_ONLY ? (DEC21140_CSR6_HP | DEC21140_CSR6_HO)
                                                      : 0u;
        csr_store(c, DEC21140_CSR6, (csr_load(c, DEC21140_CSR6) & ~DEC21140_CSR6_FILTER_RO_MASK) | ro);
        update_rx_mode(c, false);
        status = 0;
    }
    walker_complete(w, status);
    c->events |= NICSHIM_EV_TX_DONE;
    if (control & DEC21140_TDES1_IC) {
        raise_bits(c, DEC21140_CSR5_TI);
    }
    walker_advance(w);
    set_tx_state(c, DEC21140_TS_FETCH_DESC);
}

static uint64_t tap_period_ns(uint32_t tap) {
    switch (tap) {
    case DEC21140_TAP_200US:
        return DEC21140_TAP1_PERIOD_NS;
    case DEC21140_TAP_800US:
        return DEC21140_TAP2_PERIOD_NS;
    case DEC21140_TAP_1600US:
        return DEC21140_TAP3_PERIOD_NS;
    case DEC21140_TAP_12_8US:
        return DEC21140_TAP4_PERIOD_NS;
    case DEC21140_TAP_25_6US:
        return DEC21140_TAP5_PERIOD_NS;
    case DEC21140_TAP_51_2US:
        return DEC21140_TAP6_PERIOD_NS;
    default:
        return DEC21140_TAP7_PERIOD_NS;
    }
}

static void tx_suspend(dec_card_t *c) {
    set_tx_state(c, DEC21140_TS_SUSPENDED);
    raise_bits(c, DEC21140_CSR5_TU);
    uint32_t tap = (csr_load(c, DEC21140_CSR0) & DEC21140_CSR0_TAP_MASK) >> DEC21140_CSR0_TAP_SHIFT;
    if (tap != DEC21140_TAP_OFF) {
        c->tap_armed = true;
        c->tap_deadline = shim_now_ns() + tap_period_ns(tap);
    }
}

/** The model's transmitWork: at most `limit` descriptors, then receive gets its turn. */
static void tx_pass(dec_card_t *c, uint32_t limit) {
    walker_t *w = &c->tx;
    uint32_t descriptors = 0;
    c->tx_more = false;
    if (c->tx_pending && !tx_put_on_wire(c)) {
        return; /* the kernel ring is still full */
    }
    while (c->tx_state != DEC21140_TS_STOPPED && c->tx_state != DEC21140_TS_SUSPENDED && !c->tx_pending &&
           !c->tx_stop_pending) {
        if (descriptors == limit) {
            c->tx_more = true;
            break;
        }
        set_tx_state(c, DEC21140_TS_FETCH_DESC);
        uint32_t eb = 0;
        enum fetch_result r = walker_fetch(c, w, &eb);
        if (r == FETCH_BUS_ERROR) {
            fatal_bus_error(c, eb);
            break;
        }
        if (r == FETCH_HOST_OWNED) {
            tx_suspend(c);
            break;
        }
        descriptors++;
        uint32_t control = w->control;
        if (control & DEC21140_TDES1_SET) {
            tx_setup_frame(c, control);
            continue;
        }
        uint32_t size1 = walker_size1(w);
        uint32_t size2 = walker_size2(w);
        bool first = (control & DEC21140_TDES1_FS) != 0;
        bool last = (control & DEC21140_TDES1_LS) != 0;
        if (first) {
            tx_begin_frame(c, control); /* a previous frame without LS is abandoned */
        } else if (!c->tx_in_frame) {
            if (size1 == 0 && size2 == 0 && !last) { /* Linux's erratum dummy: handed back with status 0 */
                walker_complete(w, 0);
                c->events |= NICSHIM_EV_TX_DONE;
                if (control & DEC21140_TDES1_IC) {
                    raise_bits(c, DEC21140_CSR5_TI);
                }
                walker_advance(w);
                continue;
            }
            tx_begin_frame(c, control); /* no FS: the frame starts here */
        }
        set_tx_state(c, DEC21140_TS_READ_BUFFER);
        if (size1 > 0 && !tx_read_buffer(c, w->buffer1, size1)) {
            break;
        }
        if (size2 > 0 && !tx_read_buffer(c, w->word3, size2)) {
            break;
        }
        if (!last) {
            walker_complete(w, 0);
            walker_advance(w);
            continue;
        }
        tx_finish_frame(c);
    }
}

/** A list-base write found a frame waiting for ring space (only possible once TX stopped): finish it first. */
static void tx_flush_pending(dec_card_t *c) {
    if (!tx_put_on_wire(c)) {
        shim_count(c->shim, SHIM_STAT_TX_DROP_KERNEL, 1);
        tx_close_frame(c);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Register writes and reads (one function per CSR)
 * ------------------------------------------------------------------------------------------- */

static void write_csr0(dec_card_t *c, uint32_t value) {
    if (value & DEC21140_CSR0_SWR) {
        card_reset(c);
        return;
    }
    csr_store(c, DEC21140_CSR0, value);
    uint32_t dsl = (value & DEC21140_CSR0_DSL_MASK) >> DEC21140_CSR0_DSL_SHIFT;
    c->tx.skip = dsl;
    c->rx.skip = dsl;
}

static void write_list_base(dec_card_t *c, uint32_t offset, uint32_t value, bool transmit) {
    bool stopped = transmit ? c->tx_state == DEC21140_TS_STOPPED : c->rx_state == DEC21140_RS_STOPPED;
    if (!stopped) {
        return; /* ignored while the process runs */
    }
    if (transmit && c->tx_pending) {
        tx_flush_pending(c); /* a frame still in flight from before the stop: finish it on the old list first */
    }
    uint32_t base = value & DEC21140_CSR3_ADDR_MASK;
    csr_store(c, offset, base);
    walker_set_base(transmit ? &c->tx : &c->rx, base);
}

static void write_csr5(dec_card_t *c, uint32_t value) {
    csr_store(c, DEC21140_CSR5, csr_load(c, DEC21140_CSR5) & ~(value & DEC21140_CSR5_W1C_MASK));
    refresh_interrupt(c);
}

/** @return the NICSHIM_KICK_* work a start created */
static uint32_t write_csr6(dec_card_t *c, uint32_t value) {
    uint32_t old = csr_load(c, DEC21140_CSR6);
    uint32_t nv = (value & ~DEC21140_CSR6_FILTER_RO_MASK) | (old & DEC21140_CSR6_FILTER_RO_MASK);
    csr_store(c, DEC21140_CSR6, nv);
    uint32_t work = 0;
    if (nv & DEC21140_CSR6_ST) {
        c->tx_stop_pending = false; /* started again before a pending stop took effect */
        if (c->tx_state == DEC21140_TS_STOPPED) {
            set_tx_state(c, DEC21140_TS_FETCH_DESC);
            work |= NICSHIM_KICK_TX;
        }
    } else if (c->tx_state != DEC21140_TS_STOPPED && !c->tx_stop_pending) {
        c->tap_armed = false;
        c->tx_more = false;
        if (c->tx_pending) {
            /* A frame waits for the link: it goes out, its descriptor is closed, and only then TS reads 0
             * (tulip_stop_rxtx polls for that); no descriptor write lands after the stop is reported. */
            c->tx_stop_pending = true;
        } else {
            c->tx_in_frame = false; /* part of a frame read, its LS not yet seen: thrown away */
            set_tx_state(c, DEC21140_TS_STOPPED);
            raise_bits(c, DEC21140_CSR5_TPS);
        }
    }
    if (nv & DEC21140_CSR6_SR) {
        if (c->rx_state == DEC21140_RS_STOPPED) {
            set_rx_state(c, DEC21140_RS_WAIT_PACKET);
            work |= NICSHIM_KICK_RX;
        }
    } else if (c->rx_state != DEC21140_RS_STOPPED) {
        set_rx_state(c, DEC21140_RS_STOPPED);
        raise_bits(c, DEC21140_CSR5_RPS);
    }
    update_rx_mode(c, false);
    return work;
}

static void write_csr7(dec_card_t *c, uint32_t value) {
    csr_store(c, DEC21140_CSR7, value);
    refresh_interrupt(c);
}

static uint32_t read_csr8(dec_card_t *c) {
    uint32_t v = csr_load(c, DEC21140_CSR8);
    csr_store(c, DEC21140_CSR8, v & ~CSR8_COUNTER_BITS);
    return v;
}

static void write_csr9(dec_card_t *c, uint32_t value) {
    c->csr9_written = value;
    csr_store(c, DEC21140_CSR9, value);
    srom_pins(c, value);
}

static uint32_t read_csr9(const dec_card_t *c) {
    uint32_t v = c->csr9_written;
    if (v != DEC21140_CSR9_RESET) { /* (until the host writes CSR9 it reads its A.1 reset value) */
        /* No PHY on the board: the pulled-up MDIO line reads 1 while the chip listens, else what the chip drives. */
        v = (v & (DEC21140_CSR9_MII | DEC21140_CSR9_MDO)) ? v | DEC21140_CSR9_MDI : v & ~DEC21140_CSR9_MDI;
    }
    if (v & DEC21140_CSR9_SR) {
        v = (v & ~DEC21140_CSR9_SROM_DO) | (c->srom_data_out ? DEC21140_CSR9_SROM_DO : 0u);
    }
    return v;
}

static void write_csr11(dec_card_t *c, uint32_t value) {
    csr_store(c, DEC21140_CSR11, value);
    c->gp_armed = false;
    c->gp_count = value & DEC21140_CSR11_TIM_MASK;
    c->gp_continuous = (value & DEC21140_CSR11_CON) != 0;
    c->gp_tick = (csr_load(c, DEC21140_CSR6) & DEC21140_CSR6_PS) ? GP_TICK_100MB_NS : GP_TICK_10MB_NS;
    if (c->gp_count != 0) {
        c->gp_armed = true;
        c->gp_deadline = shim_now_ns() + c->gp_count * c->gp_tick;
    }
}

static uint32_t read_csr11(const dec_card_t *c) {
    uint32_t remaining = 0;
    if (c->gp_count != 0 && c->gp_armed) {
        int64_t left = (int64_t)(c->gp_deadline - shim_now_ns());
        int64_t tick = (int64_t)c->gp_tick;
        int64_t ticks = (left + tick - 1) / tick;
        if (ticks > (int64_t)c->gp_count) {
            ticks = c->gp_count;
        }
        remaining = ticks < 0 ? 0u : (uint32_t)ticks;
    }
    return (csr_load(c, DEC21140_CSR11) & ~DEC21140_CSR11_TIM_MASK) | remaining;
}

static uint32_t read_csr12(const dec_card_t *c) {
    return (c->gpio_outputs & c->gpio_direction) | (c->gpio_inputs & ~c->gpio_direction);
}

static void write_csr12(dec_card_t *c, uint32_t value) {
    if (value & DEC21140_CSR12_GPC) {
        c->gpio_direction = value & DEC21140_CSR12_PINS_MASK;
    } else {
        c->gpio_outputs = value & DEC21140_CSR12_PINS_MASK;
    }
    csr_store(c, DEC21140_CSR12, read_csr12(c)); /* read from the window without a call into the shim */
}

static void write_csr15(dec_card_t *c, uint32_t value) {
    csr_store(c, DEC21140_CSR15, (DEC21140_CSR15_RESET & ~CSR15_WRITABLE) | (value & CSR15_WRITABLE));
}

/* ---------------------------------------------------------------------------------------------
 * shim_card_ops_t entry points
 * ------------------------------------------------------------------------------------------- */

static uint32_t take_events(dec_card_t *c) {
    uint32_t ev = c->events;
    c->events = 0;
    return ev;
}

static void *dec_create(shim_t *shim, const nicshim_options_t *options) {
    (void)options;
    dec_card_t *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        return NULL;
    }
    c->shim = shim;
    c->csr = c->own_window;
    c->gpio_inputs = DEC21140_CSR12_RESET & DEC21140_CSR12_PINS_MASK;
    c->carrier = true;
    c->rx_mode = 0; /* the platform's default: no PROMISC / ALLMULTI membership */
    crc_init(c);
    srom_build(c, shim_mac(shim));
    card_reset(c);
    return c;
}

static void dec_destroy(void *card) {
    free(card);
}

static void dec_attach(void *card, uint32_t range, uint8_t *base) {
    dec_card_t *c = card;
    if (range != NICSHIM_RANGE_DEC21140_CSR || base == NULL) {
        return;
    }
    c->csr = base;
    card_reset(c);
}

static void kick_self(dec_card_t *c, uint32_t what) {
    if (what != 0) {
        nicshim_kick(c->shim, what); /* wakes a poller sleeping in nicshim_poll; lock-free */
    }
}

static int32_t dec_reg_write(void *card, uint32_t range, uint32_t offset, uint32_t value) {
    dec_card_t *c = card;
    if (range != NICSHIM_RANGE_DEC21140_CSR || offset >= DEC21140_CSR_WINDOW_SIZE || (offset & 3u) != 0) {
        return NICSHIM_ERR_REGISTER;
    }
    switch (offset) {
    case DEC21140_CSR0:
        write_csr0(c, value);
        break;
    case DEC21140_CSR1:
        c->tx_poll_demand = true;
        kick_self(c, NICSHIM_KICK_TX);
        break;
    case DEC21140_CSR2:
        c->rx_poll_demand = true;
        kick_self(c, NICSHIM_KICK_RX);
        break;
    case DEC21140_CSR3:
        write_list_base(c, DEC21140_CSR3, value, false);
        break;
    case DEC21140_CSR4:
        write_list_base(c, DEC21140_CSR4, value, true);
        break;
    case DEC21140_CSR5:
        write_csr5(c, value);
        break;
    case DEC21140_CSR6:
        kick_self(c, write_csr6(c, value));
        break;
    case DEC21140_CSR7:
        write_csr7(c, value);
        break;
    case DEC21140_CSR8:
        break; /* read-only: the counters only clear by being read */
    case DEC21140_CSR9:
        write_csr9(c, value);
        break;
    case DEC21140_CSR11:
        write_csr11(c, value);
        break;
    case DEC21140_CSR12:
        write_csr12(c, value);
        break;
    case DEC21140_CSR15:
        write_csr15(c, value);
        break;
    default:
        csr_store(c, offset, value); /* CSR10, 13, 14 and the slots' upper halves: plain storage */
        break;
    }
    c->events = 0; /* work done inside a register access is reported by the interrupt line */
    return NICSHIM_OK;
}

static void gp_timer_run(dec_card_t *c, uint64_t now_ns);

static int32_t dec_reg_read(void *card, uint32_t range, uint32_t offset, uint32_t *value) {
    dec_card_t *c = card;
    if (range != NICSHIM_RANGE_DEC21140_CSR || offset >= DEC21140_CSR_WINDOW_SIZE || (offset & 3u) != 0 ||
        value == NULL) {
        return NICSHIM_ERR_REGISTER;
    }
    if ((offset == DEC21140_CSR5 || offset == DEC21140_CSR11) && c->gp_armed) {
        gp_timer_run(c, shim_now_ns()); /* a timer that expired before the platform's tick shows at once */
    }
    switch (offset) {
    case DEC21140_CSR8:
        *value = read_csr8(c);
        break;
    case DEC21140_CSR9:
        *value = read_csr9(c);
        break;
    case DEC21140_CSR11:
        *value = read_csr11(c);
        break;
    case DEC21140_CSR12:
        *value = read_csr12(c);
        break;
    default:
        *value = csr_load(c, offset);
        break;
    }
    return NICSHIM_OK;
}

/** The PHY's signal detect on the SMC9332's general-purpose inputs (A.0): high with carrier, low without. */
static void dec_link(void *card, int up) {
    dec_card_t *c = card;
    uint32_t sense = DEC21140_SMC9332_GPIO_SD_100MB | DEC21140_SMC9332_GPIO_SD_10MB;
    c->carrier = up != 0;
    c->gpio_inputs = up ? c->gpio_inputs | (DEC21140_CSR12_RESET & sense) : c->gpio_inputs & ~sense;
    csr_store(c, DEC21140_CSR12, read_csr12(c));
}

static void dec_start(void *card) {
    dec_card_t *c = card;
    update_rx_mode(c, true); /* the platform's socket is new: apply the mode again */
}

/** nicshim_stop: both processes stop (no TPS/RPS, like the model's close()); timers cancelled. */
static void dec_stop(void *card) {
    dec_card_t *c = card;
    if (c->tx_pending) {
        shim_count(c->shim, SHIM_STAT_TX_DROP_KERNEL, 1);
    }
    c->tx_pending = false;
    c->tx_stop_pending = false;
    c->tx_in_frame = false;
    c->tx_more = false;
    c->tap_armed = false;
    c->gp_armed = false;
    c->gp_count = 0;
    c->tx.desc = NULL;
    c->rx.desc = NULL;
    set_tx_state(c, DEC21140_TS_STOPPED);
    set_rx_state(c, DEC21140_RS_STOPPED);
    c->events = 0;
}

/** One service round (the model's step): poll demands, transmit pass, receive FIFO. */
static void service(dec_card_t *c, uint32_t budget) {
    if (c->tx_poll_demand) {
        c->tx_poll_demand = false;
        if (c->tx_state == DEC21140_TS_SUSPENDED) {
            c->tap_armed = false;
            set_tx_state(c, DEC21140_TS_FETCH_DESC);
        }
    }
    uint32_t limit = budget == 0 || budget > TX_DESCRIPTORS_PER_PASS ? TX_DESCRIPTORS_PER_PASS : budget;
    tx_pass(c, limit);
    if (c->rx_poll_demand) {
        c->rx_poll_demand = false;
        if (c->rx_state == DEC21140_RS_SUSPENDED) {
            rx_poll_descriptor(c);
        }
    }
    rx_drain(c);
}

static uint32_t dec_work(void *card, uint32_t kicks, uint32_t budget) {
    dec_card_t *c = card;
    if (kicks & NICSHIM_KICK_TX) {
        c->tx_poll_demand = true;
    }
    if (kicks & NICSHIM_KICK_RX) {
        c->rx_poll_demand = true;
    }
    service(c, budget);
    return take_events(c);
}

/** A frame from the link (no FCS): pad as the sender's MAC would, compute the FCS, then the receive path. */
static uint32_t dec_receive(void *card, const uint8_t *frame, uint32_t len) {
    dec_card_t *c = card;
    uint32_t csr6 = csr_load(c, DEC21140_CSR6);
    if (!(csr6 & DEC21140_CSR6_SR) || (csr6 & DEC21140_CSR6_OM_MASK)) {
        shim_count(c->shim, SHIM_STAT_RX_DROP_FILTER, 1); /* receiver off, or listening to its own transmitter */
        return take_events(c);
    }
    if (frame == NULL || len == 0) {
        shim_count(c->shim, SHIM_STAT_RX_DROP_BAD_FRAME, 1);
        return take_events(c);
    }
    uint32_t data = len < DEC21140_ETH_MIN_FRAME_NOFCS ? DEC21140_ETH_MIN_FRAME_NOFCS : len;
    if (data + DEC21140_ETH_FCS_LEN > RX_MAX_FRAME) {
        /* The receive watchdog cuts it after RX_MAX_FRAME bytes: those are received, the descriptor says RW. */
        shim_count(c->shim, SHIM_STAT_RX_DROP_TOO_LONG, 1);
        memcpy(c->rx_stage, frame, RX_MAX_FRAME);
        if (c->rx_state != DEC21140_RS_STOPPED && c->fifo_count == 0) {
            rx_frame(c, c->rx_stage, RX_MAX_FRAME, RX_FCS_CUT);
        } else {
            fifo_push(c, c->rx_stage, RX_MAX_FRAME, RX_FCS_CUT);
            rx_drain(c);
        }
        return take_events(c);
    }
    if (data == len && c->rx_state != DEC21140_RS_STOPPED && c->fifo_count == 0) {
        /* No padding and no FIFO in the way: deliver from the link's buffer, only the FCS comes from here. */
        uint8_t fcs[DEC21140_ETH_FCS_LEN];
        put_le32(fcs, crc32_zlib(c, frame, len));
        rx_src_t src = {frame, len, fcs};
        rx_frame_src(c, &src, len + DEC21140_ETH_FCS_LEN, RX_FCS_GOOD);
        return take_events(c);
    }
    uint8_t *f = c->rx_stage;
    memcpy(f, frame, len);
    memset(f + len, 0, data - len);
    put_le32(f + data, crc32_zlib(c, f, data));
    uint32_t total = data + DEC21140_ETH_FCS_LEN;
    if (c->rx_state != DEC21140_RS_STOPPED && c->fifo_count == 0) {
        rx_frame(c, f, total, RX_FCS_GOOD);
    } else {
        fifo_push(c, f, total, RX_FCS_GOOD); /* waits while the process is stopped with SR set, as in the model's FIFO */
        rx_drain(c);
    }
    return take_events(c);
}

/** CSR11 expiry: GTE, and in continuous mode the next period from now (the model re-arms when it fires). */
static void gp_timer_run(dec_card_t *c, uint64_t now_ns) {
    if (!c->gp_armed || now_ns < c->gp_deadline) {
        return;
    }
    if (c->gp_count != 0) {
        raise_bits(c, DEC21140_CSR5_GTE);
    }
    if (c->gp_continuous && c->gp_count != 0) {
        c->gp_deadline = now_ns + c->gp_count * c->gp_tick;
    } else {
        c->gp_armed = false;
        c->gp_count = 0;
    }
}

static uint32_t dec_tick(void *card, uint64_t now_ns) {
    dec_card_t *c = card;
    gp_timer_run(c, now_ns);
    bool run = c->tx_more;
    if (c->tap_armed && now_ns >= c->tap_deadline) {
        c->tap_armed = false;
        c->tx_poll_demand = true;
        run = true;
    }
    if (run) {
        service(c, TX_DESCRIPTORS_PER_PASS);
    }
    return take_events(c);
}

static uint64_t dec_next_deadline(void *card) {
    dec_card_t *c = card;
    if (c->tx_more) {
        return 0; /* a transmit pass stopped on its budget: continue at once */
    }
    uint64_t d = UINT64_MAX;
    if (c->gp_armed && c->gp_deadline < d) {
        d = c->gp_deadline;
    }
    if (c->tap_armed && c->tap_deadline < d) {
        d = c->tap_deadline;
    }
    return d;
}

static int dec_irq_level(void *card) {
    const dec_card_t *c = card;
    return (csr_load(c, DEC21140_CSR5) & csr_load(c, DEC21140_CSR7) & SUMMARY_BITS) != 0;
}

/* The 21140 translates every descriptor and buffer address when it uses it and keeps frames in its own FIFO, never a
 * host pointer: any region may be removed while the link runs (the platform's lock orders it against card work). */
static int dec_holds_region(void *card, const uint8_t *host, uint64_t len) {
    (void)card;
    (void)host;
    (void)len;
    return 0;
}

const shim_card_ops_t shim_dec21140_card = {
    .kind = NICSHIM_CARD_DEC21140,
    .name = "dec21140",
    .range_count = 1,
    .range_size = {DEC21140_CSR_WINDOW_SIZE, 0},
    .max_frame = DEC21140_ETH_MAX_FRAME - DEC21140_ETH_FCS_LEN,
    .create = dec_create,
    .destroy = dec_destroy,
    .attach = dec_attach,
    .reg_write = dec_reg_write,
    .reg_read = dec_reg_read,
    .start = dec_start,
    .stop = dec_stop,
    .work = dec_work,
    .receive = dec_receive,
    .can_receive = NULL,
    .tick = dec_tick,
    .next_deadline = dec_next_deadline,
    .link = dec_link,
    .irq_level = dec_irq_level,
    .holds_region = dec_holds_region,
};

_Static_assert(NICSHIM_DEC21140_CSR_WINDOW_SIZE == DEC21140_CSR_WINDOW_SIZE, "window sizes agree");
