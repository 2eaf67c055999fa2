/*
 * headers_selftest.c - runtime checks of facts the contract headers encode.
 *
 * The headers' _Static_asserts pin struct layouts; this program recomputes the derived facts
 * (offset formulas, field packing, CRC/HEC constants, Linux masks) from first principles so a
 * typo in a constant fails loudly. Exit status 0 = every check passed.
 *
 *   gcc -std=c11 -Wall -Wextra -Werror -pedantic -Inative-headers/src/main/c/include \
 *       native-headers/src/test/c/headers_selftest.c -o /tmp/headers_selftest && /tmp/headers_selftest
 */
#include "dec21140.h"
#include "medusa.h"
#include "nicshim.h"
#include "sba200_unet.h"

#include <stdio.h>
#include <string.h>

static int checks;
static int failures;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        checks++;                                                                       \
        if (!(cond)) {                                                                  \
            failures++;                                                                 \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);             \
        }                                                                               \
    } while (0)

/* zlib-style reflected CRC-32 (Ethernet FCS). */
static uint32_t crc32_reflected(const uint8_t *p, size_t n) {
    uint32_t c = DEC21140_FCS_INIT;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) {
            c = (c & 1u) ? (c >> 1) ^ DEC21140_FCS_POLY_REFLECTED : c >> 1;
        }
    }
    return c ^ DEC21140_FCS_XOROUT;
}

/* MSB-first CRC-32 (AAL5 / FDDI FCS, CRC-32/BZIP2 parameters). */
static uint32_t crc32_msb(const uint8_t *p, size_t n) {
    uint32_t c = SBA200_UNET_AAL5_CRC_INIT;
    for (size_t i = 0; i < n; i++) {
        c ^= (uint32_t)p[i] << 24;
        for (int k = 0; k < 8; k++) {
            c = (c & 0x80000000u) ? (c << 1) ^ SBA200_UNET_AAL5_CRC_POLY : c << 1;
        }
    }
    return c ^ SBA200_UNET_AAL5_CRC_XOROUT;
}

/* ATM HEC: CRC-8 (x^8 + x^2 + x + 1), MSB-first from 0, XOR coset. */
static uint8_t atm_hec(uint32_t header_word) {
    uint8_t c = 0;
    for (int b = 0; b < 4; b++) {
        c ^= (uint8_t)(header_word >> (24 - 8 * b));
        for (int k = 0; k < 8; k++) {
            c = (uint8_t)((c & 0x80u) ? ((unsigned)c << 1) ^ SBA200_UNET_HEC_POLY : (unsigned)c << 1);
        }
    }
    return (uint8_t)(c ^ SBA200_UNET_HEC_COSET);
}

static int popcount32(uint32_t v) {
    int n = 0;
    while (v) {
        n += (int)(v & 1u);
        v >>= 1;
    }
    return n;
}

static void check_dec21140(void) {
    static const int csr[16] = {
        DEC21140_CSR0, DEC21140_CSR1, DEC21140_CSR2, DEC21140_CSR3, DEC21140_CSR4, DEC21140_CSR5,
        DEC21140_CSR6, DEC21140_CSR7, DEC21140_CSR8, DEC21140_CSR9, DEC21140_CSR10, DEC21140_CSR11,
        DEC21140_CSR12, DEC21140_CSR13, DEC21140_CSR14, DEC21140_CSR15};
    for (int n = 0; n < DEC21140_CSR_COUNT; n++) {
        CHECK(csr[n] == n * 8);
        CHECK(DEC21140_CSR_OFFSET(n) == n * 8);
    }
    CHECK(DEC21140_CSR_OFFSET(DEC21140_CSR_COUNT) == DEC21140_CSR_WINDOW_SIZE);

    /* RS = 3 (waiting), TS = 6 (suspended), EB = 1 (master abort) plus noise in other bits. */
    uint32_t csr5 = (3u << 17) | (6u << 20) | (1u << 23) | DEC21140_CSR5_RI | DEC21140_CSR5_NIS;
    CHECK(DEC21140_CSR5_RS(csr5) == DEC21140_RS_WAIT_PACKET);
    CHECK(DEC21140_CSR5_TS(csr5) == DEC21140_TS_SUSPENDED);
    CHECK(DEC21140_CSR5_EB(csr5) == DEC21140_EB_MASTER_ABORT);
    CHECK((DEC21140_CSR5_RS_MASK | DEC21140_CSR5_TS_MASK) == DEC21140_CSR5_RS_TS_MASK);
    CHECK((DEC21140_CSR5_W1C_MASK & (DEC21140_CSR5_RS_MASK | DEC21140_CSR5_TS_MASK | DEC21140_CSR5_EB_MASK)) == 0);
    CHECK(popcount32(DEC21140_CSR5_W1C_MASK) == 19);
    CHECK((DEC21140_CSR5_NORMAL_SOURCES & DEC21140_CSR5_ABNORMAL_SOURCES) == 0);
    CHECK((DEC21140_CSR5_NORMAL_SOURCES & DEC21140_CSR5_TU) != 0);
    CHECK((DEC21140_CSR5_ABNORMAL_SOURCES & DEC21140_CSR5_RU) != 0);
    /* GTE is abnormal (A.3): Linux's too-much-work path waits for the timer with only AIS enabled. */
    CHECK((DEC21140_CSR5_ABNORMAL_SOURCES & DEC21140_CSR5_GTE) != 0);
    CHECK((DEC21140_CSR5_NORMAL_SOURCES & DEC21140_CSR5_GTE) == 0);
    /* Linux's valid mask = every 21140 source plus both summaries, except the 21140A-only ETI. */
    CHECK(((DEC21140_CSR5_NORMAL_SOURCES | DEC21140_CSR5_ABNORMAL_SOURCES | DEC21140_CSR5_AIS |
            DEC21140_CSR5_NIS) & ~DEC21140_CSR5_ETI) == DEC21140_LINUX_VALID_INTRS);
    CHECK((DEC21140_LINUX_CSR5_ACK_MASK & ~DEC21140_CSR5_W1C_MASK) == 0);
    CHECK(DEC21140_CSR7_MASK_ALL == DEC21140_LINUX_CSR5_ACK_MASK);

    /* Linux RX accept rule against RDES0 values. */
    uint32_t good = DEC21140_RDES0_FS | DEC21140_RDES0_LS | (68u << DEC21140_RDES0_FL_SHIFT);
    CHECK((good & DEC21140_LINUX_RX_ACCEPT_MASK) == DEC21140_LINUX_RX_ACCEPT_VALUE);
    CHECK(((good | DEC21140_RDES0_CE) & DEC21140_LINUX_RX_ACCEPT_MASK) != DEC21140_LINUX_RX_ACCEPT_VALUE);
    CHECK(((good | DEC21140_RDES0_DE) & DEC21140_LINUX_RX_ACCEPT_MASK) != DEC21140_LINUX_RX_ACCEPT_VALUE);
    CHECK(((DEC21140_RDES0_FS | DEC21140_RDES0_LS | (2048u << DEC21140_RDES0_FL_SHIFT)) &
           DEC21140_LINUX_RX_ACCEPT_MASK) != DEC21140_LINUX_RX_ACCEPT_VALUE);
    CHECK(((good | DEC21140_RDES0_ES) & DEC21140_LINUX_RX_ACCEPT_MASK) == DEC21140_LINUX_RX_ACCEPT_VALUE);

    /* Setup descriptors as Linux builds them. */
    CHECK((DEC21140_TDES1_SET | DEC21140_TDES1_FT_PERFECT | DEC21140_SETUP_FRAME_SIZE) ==
          DEC21140_LINUX_TDES1_SETUP_PERFECT);
    CHECK((DEC21140_TDES1_SET | DEC21140_TDES1_FT_HASH | DEC21140_SETUP_FRAME_SIZE) ==
          DEC21140_LINUX_TDES1_SETUP_HASH);
    CHECK((DEC21140_TDES1_FS | DEC21140_TDES1_LS) == DEC21140_LINUX_TDES1_FRAME);
    CHECK((DEC21140_LINUX_TDES1_FRAME | DEC21140_TDES1_IC) == DEC21140_LINUX_TDES1_FRAME_IC);
    CHECK(DEC21140_LINUX_TDES0_ABORTED == (DEC21140_TDES0_TO | DEC21140_TDES0_EC | DEC21140_TDES0_LF));

    /* Setup frame: perfect-entry MAC byte positions and hash placement. */
    static const int mac_ofs[6] = {DEC21140_SETUP_PERFECT_MAC0_OFS, DEC21140_SETUP_PERFECT_MAC1_OFS,
                                   DEC21140_SETUP_PERFECT_MAC2_OFS, DEC21140_SETUP_PERFECT_MAC3_OFS,
                                   DEC21140_SETUP_PERFECT_MAC4_OFS, DEC21140_SETUP_PERFECT_MAC5_OFS};
    for (int k = 0; k < 6; k++) {
        CHECK(DEC21140_SETUP_PERFECT_MAC_OFS(0, k) == mac_ofs[k]);
        CHECK(DEC21140_SETUP_PERFECT_MAC_OFS(15, k) == 180 + mac_ofs[k]);
    }
    CHECK(DEC21140_SETUP_PERFECT_ENTRIES * DEC21140_SETUP_PERFECT_ENTRY_SIZE == DEC21140_SETUP_FRAME_SIZE);
    CHECK(DEC21140_SETUP_HASH_PHYS_OFS == DEC21140_SETUP_HASH_PHYS_LW * 4);
    CHECK(DEC21140_SETUP_HASH_LONGWORDS * DEC21140_SETUP_HASH_BITS_PER_LW == DEC21140_SETUP_HASH_BITS);
    static const uint8_t bcast[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    uint32_t idx = ~crc32_reflected(bcast, 6) & DEC21140_SETUP_HASH_INDEX_MASK;
    CHECK(idx == DEC21140_SETUP_HASH_BROADCAST_INDEX);
    dec21140_setup_frame_t sf;
    memset(&sf, 0, sizeof sf);
    sf.lw[DEC21140_SETUP_HASH_LW(idx)] |= 1u << DEC21140_SETUP_HASH_BIT(idx);
    CHECK(sf.lw[15] == 0x8000u); /* bit 255 = longword 15, bit 15 */

    /* FCS constants (D.1). */
    CHECK(crc32_reflected((const uint8_t *)"123456789", 9) == DEC21140_FCS_CHECK);
    uint8_t frame[64 + 4];
    for (int i = 0; i < 64; i++) {
        frame[i] = (uint8_t)(i * 7 + 1);
    }
    uint32_t fcs = crc32_reflected(frame, 64);
    for (int i = 0; i < 4; i++) {
        frame[64 + i] = (uint8_t)(fcs >> (8 * i)); /* least-significant byte first */
    }
    CHECK(crc32_reflected(frame, sizeof frame) == DEC21140_FCS_RESIDUE);
    CHECK((DEC21140_FCS_RESIDUE ^ DEC21140_FCS_XOROUT) == DEC21140_FCS_RESIDUE_RAW);
    CHECK((DEC21140_ETH_MIN_FRAME + DEC21140_ETH_WIRE_OVERHEAD) * DEC21140_ETH_BYTE_TIME_NS_100MB ==
          DEC21140_ETH_MIN_FRAME_WIRE_NS_100MB);
    CHECK((DEC21140_ETH_MAX_FRAME + DEC21140_ETH_WIRE_OVERHEAD) * DEC21140_ETH_BYTE_TIME_NS_100MB ==
          DEC21140_ETH_MAX_FRAME_WIRE_NS_100MB);
    CHECK(DEC21140_LINUX_CSR0_MWI_FALLBACK == ((8u << 8) | (1u << 14)));
}

static void check_sba200(void) {
    for (int e = 0; e < SBA200_UNET_MAX_ENDPOINTS; e++) {
        CHECK(SBA200_UNET_EP_PAGE_OFFSET(e) == 0x20000 + e * 0x1000);
    }
    CHECK(SBA200_UNET_EP_PAGE_OFFSET(SBA200_UNET_MAX_ENDPOINTS) == SBA200_UNET_RAM_SIZE);
    CHECK(SBA200_UNET_CMD_OFFSET(SBA200_UNET_CMDQ_LEN) == SBA200_UNET_CMDQ_OFS + SBA200_UNET_CMDQ_SIZE);
    CHECK(SBA200_UNET_CMDQ_OFS == SBA200_UNET_UG_OFS + SBA200_UNET_UG_SIZE);
    CHECK(SBA200_UNET_VCI_ENTRY_OFFSET(SBA200_UNET_VCI_TABLE_ENTRIES) == SBA200_UNET_FIRMWARE_OFS);
    CHECK(SBA200_UNET_SQ_SLOT_OFFSET(SBA200_UNET_SQ_LEN) == SBA200_UNET_FQ_OFS);
    CHECK(SBA200_UNET_FQ_SLOT_OFFSET(SBA200_UNET_FQ_LEN) == SBA200_UNET_EP_PAGE_SIZE);
    CHECK(SBA200_UNET_SEND_DESC_INLINE_OFS + SBA200_UNET_SEND_DESC_INLINE_SIZE <=
          SBA200_UNET_SEND_DESC_BUFS_OFS + SBA200_UNET_MAX_BUFS * 8);
    CHECK(SBA200_UNET_INLINE_MAX == SBA200_UNET_CELL_PAYLOAD - SBA200_UNET_AAL5_TRAILER_SIZE);

    uint32_t ve = SBA200_UNET_VCI_ENTRY(31, 63, 0);
    CHECK(ve == 0x9F3F0000u);
    CHECK(SBA200_UNET_VCI_EP(ve) == 31);
    CHECK(SBA200_UNET_VCI_CHAN(ve) == 63);
    CHECK((SBA200_UNET_VCI_VALID & (SBA200_UNET_VCI_EP_MASK | SBA200_UNET_VCI_CHAN_MASK |
                                    SBA200_UNET_VCI_VPI_MASK)) == 0);

    /* Cell header word fields (D.2 masks). */
    CHECK(SBA200_UNET_HDR_VPI_MASK == 0x0FF00000u);
    CHECK(SBA200_UNET_HDR_VPI_NNI_MASK == 0xFFF00000u);
    CHECK(SBA200_UNET_HDR_VCI_MASK == 0x000FFFF0u);
    CHECK(SBA200_UNET_HDR_PTI_MASK == 0x0000000Eu);
    CHECK(atm_hec(SBA200_UNET_IDLE_CELL_HEADER) == SBA200_UNET_IDLE_CELL_HEC);
    CHECK(atm_hec(0) == SBA200_UNET_ZERO_HEADER_HEC);

    /* AAL5 CRC check value and the three test vectors (40-byte payload, UU 0, CPI 0, LEN 40). */
    CHECK(crc32_msb((const uint8_t *)"123456789", 9) == SBA200_UNET_AAL5_CRC_CHECK);
    uint8_t pdu[48];
    static const uint32_t tv[3] = {SBA200_UNET_AAL5_CRC_TV_ZEROS, SBA200_UNET_AAL5_CRC_TV_ONES,
                                   SBA200_UNET_AAL5_CRC_TV_COUNT};
    for (int v = 0; v < 3; v++) {
        for (int i = 0; i < 40; i++) {
            pdu[i] = v == 0 ? 0x00 : v == 1 ? 0xFF : (uint8_t)(i + 1);
        }
        pdu[40 + SBA200_UNET_AAL5_UU_OFS] = 0;
        pdu[40 + SBA200_UNET_AAL5_CPI_OFS] = 0;
        pdu[40 + SBA200_UNET_AAL5_LENGTH_OFS] = 0;
        pdu[40 + SBA200_UNET_AAL5_LENGTH_OFS + 1] = 40;
        CHECK(crc32_msb(pdu, 40 + SBA200_UNET_AAL5_CRC_OFS) == tv[v]);
    }
    CHECK(SBA200_UNET_AAL5_CELLS(0) == 1);
    CHECK(SBA200_UNET_AAL5_CELLS(40) == 1);
    CHECK(SBA200_UNET_AAL5_CELLS(41) == 2);
    CHECK(SBA200_UNET_AAL5_CELLS(65535) == 1366);

    /* Cell time: 53 x 8 bits at 140 Mb/s, rounded to ns and truncated to ps. */
    uint64_t cell_ps = (uint64_t)SBA200_UNET_CELL_SIZE * 8u * 1000000000000ull / SBA200_UNET_LINK_BPS;
    CHECK(cell_ps == SBA200_UNET_CELL_TIME_PS);
    CHECK((cell_ps + 500) / 1000 == SBA200_UNET_CELL_TIME_NS);
    CHECK(SBA200_UNET_LINK_BPS / (SBA200_UNET_CELL_SIZE * 8) == SBA200_UNET_CELLS_PER_SEC);
    CHECK((uint64_t)SBA200_UNET_LINK_BPS * 48u / 53u == SBA200_UNET_AAL5_PAYLOAD_BPS);
    CHECK(memcmp("UNET", (const char[]){(char)(SBA200_UNET_UG_MAGIC >> 24), (char)(SBA200_UNET_UG_MAGIC >> 16),
                                         (char)(SBA200_UNET_UG_MAGIC >> 8), (char)SBA200_UNET_UG_MAGIC}, 4) == 0);
    /* RQ_LEN bounds are powers of two (the free-running index rule needs it). */
    CHECK((SBA200_UNET_RQ_LEN_MIN & (SBA200_UNET_RQ_LEN_MIN - 1)) == 0);
    CHECK((SBA200_UNET_RQ_LEN_MAX & (SBA200_UNET_RQ_LEN_MAX - 1)) == 0);
    CHECK((SBA200_UNET_RQ_LEN_DEFAULT & (SBA200_UNET_RQ_LEN_DEFAULT - 1)) == 0);
}

static void check_medusa(void) {
    for (int n = 0; n < MEDUSA_BUF_COUNT; n++) {
        CHECK(MEDUSA_BUF_OFFSET(n) == n * 8192);
        CHECK(MEDUSA_BUF_STATUS_OFFSET(n) == 0x100800 + 16 * n);
    }
    CHECK(MEDUSA_BUF_OFFSET(MEDUSA_BUF_COUNT) == MEDUSA_REGS_OFS);
    CHECK(MEDUSA_BUF_STATUS_OFFSET(MEDUSA_BUF_COUNT) == MEDUSA_BUF_STATUS_OFS + MEDUSA_BUF_STATUS_SIZE);
    CHECK(MEDUSA_WIN_REG(MEDUSA_REG_RX_FIFO) == 0x10002C);
    CHECK(MEDUSA_REG_COUNTERS_OFS + 4 * MEDUSA_REG_COUNTERS_COUNT == 0x60);
    CHECK(MEDUSA_REG_CNT_TX_ERRORS == MEDUSA_REG_COUNTERS_OFS + 4 * (MEDUSA_REG_COUNTERS_COUNT - 1));
    CHECK(memcmp("MDSA", (const char[]){(char)(MEDUSA_ID_VALUE >> 24), (char)(MEDUSA_ID_VALUE >> 16),
                                         (char)(MEDUSA_ID_VALUE >> 8), (char)MEDUSA_ID_VALUE}, 4) == 0);
    /* FIFO words: buffer 127 with VALID|ERROR. */
    uint32_t w = MEDUSA_FIFO_VALID | MEDUSA_FIFO_ERROR | 127u;
    CHECK(((w & MEDUSA_FIFO_BUF_MASK) >> MEDUSA_FIFO_BUF_SHIFT) == 127u);
    CHECK(MEDUSA_FIFO_BUF_MASK == MEDUSA_BUF_NUM_MASK);
    /* FIFO_LEVEL can hold the full depth. */
    CHECK((MEDUSA_FIFO_LEVEL_FREE_MASK >> MEDUSA_FIFO_LEVEL_FREE_SHIFT) >= MEDUSA_FIFO_DEPTH);
    CHECK(MEDUSA_STATUS_RING_STATE(3u << 8 | MEDUSA_STATUS_RING_OP) == MEDUSA_RING_STATE_OPERATIONAL);
    /* Frame placement: with FRAME_OFS 3 the IP header lands word-aligned at 24. */
    CHECK(MEDUSA_FRAME_OFS_DEFAULT + MEDUSA_FRAME_IP_OFS == 24);
    CHECK(MEDUSA_FRAME_OFS_DEFAULT + MEDUSA_FRAME_LLC_OFS == 16);
    CHECK(MEDUSA_FRAME_IP_OFS == (int)MEDUSA_RXCK_START_DEFAULT);
    CHECK(MEDUSA_FDDI_MAC_HEADER_LEN + MEDUSA_FDDI_LLC_SNAP_LEN == MEDUSA_FRAME_IP_OFS);
    CHECK(MEDUSA_FRAME_OFS_DEFAULT + MEDUSA_MAX_FRAME + MEDUSA_FDDI_FCS_LEN <= MEDUSA_BUF_SIZE);
    CHECK((MEDUSA_LEN_MASK >> MEDUSA_LEN_SHIFT) >= MEDUSA_MAX_FRAME);
    CHECK(MEDUSA_MAX_FRAME * MEDUSA_FDDI_NS_PER_BYTE == MEDUSA_FDDI_MAX_FRAME_NS);
    CHECK(MEDUSA_FDDI_TOKEN_SYMBOLS * MEDUSA_FDDI_NS_PER_SYMBOL == MEDUSA_FDDI_TOKEN_NS);
    CHECK(2 * MEDUSA_MAX_FRAME == MEDUSA_FDDI_MAX_FRAME_SYMBOLS);
    CHECK((MEDUSA_FC_LLC_ASYNC_DEFAULT & MEDUSA_FC_LLC_ASYNC_BASE_MASK) == MEDUSA_FC_LLC_ASYNC);
    CHECK(crc32_msb((const uint8_t *)"123456789", 9) == MEDUSA_FCS_CHECK);
    CHECK(MEDUSA_CTRL_RESET_VALUE == 0x200u);
}

static void check_nicshim(void) {
    CHECK(((NICSHIM_ABI_VERSION & NICSHIM_ABI_MAJOR_MASK) >> NICSHIM_ABI_MAJOR_SHIFT) == NICSHIM_ABI_VERSION_MAJOR);
    CHECK(((NICSHIM_ABI_VERSION & NICSHIM_ABI_MINOR_MASK) >> NICSHIM_ABI_MINOR_SHIFT) == NICSHIM_ABI_VERSION_MINOR);
    CHECK(NICSHIM_DEC21140_CSR_WINDOW_SIZE == DEC21140_CSR_WINDOW_SIZE);
    CHECK(NICSHIM_SBA200_BCR_SIZE == SBA200_UNET_BCR_RANGE_SIZE);
    CHECK(NICSHIM_SBA200_RAM_SIZE == SBA200_UNET_RAM_SIZE);
    static const int errs[] = {NICSHIM_ERR_INVALID, NICSHIM_ERR_NOMEM, NICSHIM_ERR_NO_DEVICE,
                               NICSHIM_ERR_PERMISSION, NICSHIM_ERR_SYSTEM, NICSHIM_ERR_CARD_KIND,
                               NICSHIM_ERR_ABI, NICSHIM_ERR_STATE, NICSHIM_ERR_WINDOW,
                               NICSHIM_ERR_DMA_OVERLAP, NICSHIM_ERR_DMA_FULL, NICSHIM_ERR_NOT_FOUND,
                               NICSHIM_ERR_MTU, NICSHIM_ERR_REGISTER, NICSHIM_ERR_IFACE_DOWN,
                               NICSHIM_ERR_XDP_BUSY, NICSHIM_ERR_XDP_UNSUPPORTED, NICSHIM_ERR_UMEM};
    int n = (int)(sizeof errs / sizeof errs[0]);
    CHECK(n == -NICSHIM_ERR_MIN);
    for (int i = 0; i < n; i++) {
        CHECK(errs[i] == -(i + 1)); /* dense, distinct, negative */
    }
    CHECK((NICSHIM_EV_ALL & 0x80000000u) == 0);
    CHECK(NICSHIM_CARD_DEC21140 != NICSHIM_CARD_SBA200_UNET_ETH);
    nicshim_options_t o;
    memset(&o, 0, sizeof o);
    o.size = (uint32_t)sizeof o;
    CHECK(o.size == 56);
    CHECK(offsetof(nicshim_options_t, backend) == NICSHIM_OPTIONS_SIZE_V1_1); /* the 1.1 layout is a prefix */
    CHECK((NICSHIM_XDP_BIND_MASK & NICSHIM_XDP_ATTACH_MASK) == 0);
    CHECK((NICSHIM_XDP_BIND_MASK | NICSHIM_XDP_ATTACH_MASK) == NICSHIM_XDP_FLAGS_ALL);
}

int main(void) {
    check_dec21140();
    check_sba200();
    check_medusa();
    check_nicshim();
    printf("headers_selftest: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
