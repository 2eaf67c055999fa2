/*
 * test_dec21140_card.c - unit tests of the shim's DEC 21140 card model (dec21140_card.c) on the fake platform.
 *
 * Each test builds a fresh card on a fake shim with one DMA region at bus address MEM_BUS, programs the CSRs as a
 * driver would (Linux tulip order: reset, list bases, setup frame, CSR6 start) and checks descriptors, frames on
 * the fake link, CSR5/CSR8 and the shim statistics. The CRC used for expectations is a bit-serial one written
 * here, independent of the card's table-driven CRC.
 *
 * Exit status 0 when every check passed; the last line says how many tests and checks ran.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dec21140.h"
#include "fake_platform.h"

/* ---------------------------------------------------------------------------------------------
 * Harness
 * ------------------------------------------------------------------------------------------- */

#include "shim_test.h"

#define MEM_BUS  0x00100000u
#define MEM_SIZE 0x00010000u
#define RX_RING  (MEM_BUS + 0x0000u)
#define TX_RING  (MEM_BUS + 0x1000u)
#define SETUP_BUF (MEM_BUS + 0x2000u)
#define TX_BUF   (MEM_BUS + 0x3000u)
#define RX_BUF   (MEM_BUS + 0x8000u)

static shim_t S; /* large (captured frames): static */
static const shim_card_ops_t *ops = &shim_dec21140_card;
static void *card;
static _Alignas(8) uint8_t window[DEC21140_CSR_WINDOW_SIZE];
static uint8_t *mem;

static const uint8_t OWN_MAC[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t PEER_MAC[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
static const uint8_t OTHER_MAC[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x77};
static const uint8_t BCAST[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static uint8_t *host(uint32_t bus) {
    return mem + (bus - MEM_BUS);
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/** Writes a descriptor the way a driver hands it over: words 1..3 first, word 0 (with OWN) last. */
static void desc_set(uint32_t bus, uint32_t des0, uint32_t des1, uint32_t des2, uint32_t des3) {
    uint8_t *d = host(bus);
    put32(d + 4, des1);
    put32(d + 8, des2);
    put32(d + 12, des3);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    put32(d, des0);
}

static uint32_t des0(uint32_t bus) {
    return get32(host(bus));
}

static void wr(uint32_t offset, uint32_t v) {
    CHECK_EQ(ops->reg_write(card, NICSHIM_RANGE_DEC21140_CSR, offset, v), NICSHIM_OK);
}

static uint32_t rd(uint32_t offset) {
    uint32_t v = 0;
    CHECK_EQ(ops->reg_read(card, NICSHIM_RANGE_DEC21140_CSR, offset, &v), NICSHIM_OK);
    return v;
}

static uint32_t work(void) {
    return ops->work(card, 0, NICSHIM_DEFAULT_POLL_BUDGET);
}

static uint32_t csr5_ts(void) {
    return DEC21140_CSR5_TS(rd(DEC21140_CSR5));
}

static uint32_t csr5_rs(void) {
    return DEC21140_CSR5_RS(rd(DEC21140_CSR5));
}

static void begin(const char *name) {
    shim_test_name = name;
    shim_test_count++;
    fake_init(&S);
    fake_set_time(1000000000ull);
    mem = fake_add_region(&S, MEM_BUS, MEM_SIZE);
    card = ops->create(&S, NULL);
    if (card == NULL) {
        fprintf(stderr, "create failed\n");
        exit(2);
    }
    memset(window, 0xA5, sizeof(window));
    ops->attach(card, NICSHIM_RANGE_DEC21140_CSR, window);
}

static void end(void) {
    ops->destroy(card);
    card = NULL;
    fake_free(&S);
}

/** zlib CRC-32, bit-serial (the reference for the card's table-driven one). */
static uint32_t ref_crc32(const uint8_t *p, size_t n) {
    uint32_t r = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        r ^= p[i];
        for (int k = 0; k < 8; k++) {
            r = (r & 1u) ? (r >> 1) ^ 0xEDB88320u : r >> 1;
        }
    }
    return ~r;
}

/** A test frame: dst, src = PEER_MAC, type 0x0800, payload bytes (i * 7 + seed). */
static uint32_t make_frame(uint8_t *f, const uint8_t *dst, uint32_t len, uint8_t seed) {
    memcpy(f, dst, 6);
    memcpy(f + 6, PEER_MAC, 6);
    f[12] = 0x08;
    f[13] = 0x00;
    for (uint32_t i = 14; i < len; i++) {
        f[i] = (uint8_t)(i * 7 + seed);
    }
    return len;
}

/** A Linux-style perfect setup frame: entries first, ff..ff in unused slots, `station` in slot 15. */
static void build_perfect_setup(uint8_t *buf, const uint8_t (*addrs)[6], int n, const uint8_t *station) {
    for (int slot = 0; slot < 16; slot++) {
        const uint8_t *a = slot == 15 ? station : slot < n ? addrs[slot] : BCAST;
        uint8_t *e = buf + 12 * slot;
        for (int k = 0; k < 3; k++) { /* each half written twice, as Linux does */
            e[4 * k] = a[2 * k];
            e[4 * k + 1] = a[2 * k + 1];
            e[4 * k + 2] = a[2 * k];
            e[4 * k + 3] = a[2 * k + 1];
        }
    }
}

/** Programs the chip as Linux's tulip_up does, ring mode, with the given rings and CSR6 extra bits. */
static void start_chip(uint32_t csr0, uint32_t csr6_extra) {
    wr(DEC21140_CSR0, DEC21140_CSR0_SWR);
    wr(DEC21140_CSR0, csr0);
    wr(DEC21140_CSR3, RX_RING);
    wr(DEC21140_CSR4, TX_RING);
    wr(DEC21140_CSR7, DEC21140_LINUX_VALID_INTRS);
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO | DEC21140_CSR6_SR | DEC21140_CSR6_ST | csr6_extra);
}

/** Posts a setup frame in TX descriptor `slot` (ring stride 16) and runs it. */
static void load_setup(uint32_t slot, uint32_t tdes1_ft, const uint8_t (*addrs)[6], int n) {
    build_perfect_setup(host(SETUP_BUF), addrs, n, OWN_MAC);
    desc_set(TX_RING + 16 * slot, DEC21140_TDES0_OWN, DEC21140_TDES1_SET | tdes1_ft | DEC21140_SETUP_FRAME_SIZE,
             SETUP_BUF, 0);
    wr(DEC21140_CSR1, 0);
    work();
}

/** Arms `n` RX descriptors (ring mode, last with RER) each with one buffer of `size` bytes. */
static void arm_rx(int n, uint32_t size) {
    for (int i = 0; i < n; i++) {
        uint32_t des1 = size | (i == n - 1 ? DEC21140_RDES1_RER : 0);
        desc_set(RX_RING + 16 * i, DEC21140_RDES0_OWN, des1, RX_BUF + 0x800 * i, 0);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------------------------- */

static void test_reset_values(void) {
    begin("reset values");
    static const uint32_t expect[16] = {
        DEC21140_CSR0_RESET,  DEC21140_CSR1_RESET,  DEC21140_CSR2_RESET,  DEC21140_CSR3_RESET,
        DEC21140_CSR4_RESET,  DEC21140_CSR5_RESET,  DEC21140_CSR6_RESET,  DEC21140_CSR7_RESET,
        DEC21140_CSR8_RESET,  DEC21140_CSR9_RESET,  DEC21140_CSR10_RESET, DEC21140_CSR11_RESET,
        DEC21140_CSR12_RESET, DEC21140_CSR13_RESET, DEC21140_CSR14_RESET, DEC21140_CSR15_RESET};
    for (uint32_t i = 0; i < 16; i++) {
        CHECK_EQ(get32(window + 8 * i), expect[i]); /* attach loaded the window */
        CHECK_EQ(rd(8 * i), expect[i]);
    }
    CHECK_EQ(ops->irq_level(card), 0);
    /* change things, then SWR puts every CSR back */
    wr(DEC21140_CSR0, 0x01A04800u);
    wr(DEC21140_CSR3, RX_RING);
    wr(DEC21140_CSR7, DEC21140_CSR7_MASK_ALL);
    wr(DEC21140_CSR11, 0x10);
    wr(DEC21140_CSR12, DEC21140_CSR12_GPC | 0x3F);
    wr(DEC21140_CSR12, 0x09);
    wr(DEC21140_CSR15, 0xFFFFFFFFu);
    CHECK_EQ(rd(DEC21140_CSR12), (0x09u & 0x3Fu) | (0xC6u & ~0x3Fu));
    CHECK_EQ(rd(DEC21140_CSR15), (DEC21140_CSR15_RESET & ~0x37u) | 0x37u);
    wr(DEC21140_CSR0, DEC21140_CSR0_SWR);
    for (uint32_t i = 0; i < 16; i++) {
        CHECK_EQ(rd(8 * i), expect[i]);
    }
    /* CSR1/CSR2 writes are doorbells: the value is not stored, the shim's kick is rung */
    S.kicks = 0;
    wr(DEC21140_CSR1, 0);
    wr(DEC21140_CSR2, 0);
    CHECK_EQ(rd(DEC21140_CSR1), 0xFFFFFFFFu);
    CHECK_EQ(S.kicks, NICSHIM_KICK_TX | NICSHIM_KICK_RX);
    /* bad offsets are refused */
    uint32_t v;
    CHECK_EQ(ops->reg_read(card, 0, 2, &v), NICSHIM_ERR_REGISTER);
    CHECK_EQ(ops->reg_write(card, 0, 128, 0), NICSHIM_ERR_REGISTER);
    end();
}

/* SROM bit-banging exactly as Linux's tulip_read_eeprom (CSR9 = SR | CS | ..., DI bit 2, SK bit 1, DO bit 3). */
#define EE_SHIFT_CLK  0x02u
#define EE_CS         0x01u
#define EE_DATA_WRITE 0x04u
#define EE_DATA_READ  0x08u
#define EE_ENB        (0x4800u | EE_CS)
#define EE_READ_CMD   6u

static uint32_t read_eeprom(uint32_t location, int addr_len) {
    uint32_t retval = 0;
    uint32_t read_cmd = location | (EE_READ_CMD << addr_len);
    wr(DEC21140_CSR9, EE_ENB & ~EE_CS);
    wr(DEC21140_CSR9, EE_ENB);
    for (int i = 4 + addr_len; i >= 0; i--) {
        uint32_t dataval = (read_cmd & (1u << i)) ? EE_DATA_WRITE : 0;
        wr(DEC21140_CSR9, EE_ENB | dataval);
        wr(DEC21140_CSR9, EE_ENB | dataval | EE_SHIFT_CLK);
        retval = (retval << 1) | ((rd(DEC21140_CSR9) & EE_DATA_READ) ? 1 : 0);
    }
    wr(DEC21140_CSR9, EE_ENB);
    for (int i = 16; i > 0; i--) {
        wr(DEC21140_CSR9, EE_ENB | EE_SHIFT_CLK);
        retval = (retval << 1) | ((rd(DEC21140_CSR9) & EE_DATA_READ) ? 1 : 0);
        wr(DEC21140_CSR9, EE_ENB);
    }
    wr(DEC21140_CSR9, EE_ENB & ~EE_CS);
    return retval;
}

static void test_srom(void) {
    begin("SROM read by bit-banging");
    static const uint8_t mac[6] = {0x00, 0x00, 0xC0, 0x12, 0x34, 0x56};
    memcpy(S.mac, mac, 6);
    ops->destroy(card); /* the SROM image is built from shim_mac() at create */
    card = ops->create(&S, NULL);
    ops->attach(card, NICSHIM_RANGE_DEC21140_CSR, window);
    /* Linux's address-width probe: an 8-bit read of 0xff; the dummy zero after 6 bits leaves bit 18 clear */
    CHECK_EQ(read_eeprom(0xff, 8) & 0x40000u, 0);
    uint8_t image[128];
    for (uint32_t w = 0; w < 64; w++) {
        uint32_t v = read_eeprom(w, 6) & 0xFFFFu;
        image[2 * w] = (uint8_t)v;
        image[2 * w + 1] = (uint8_t)(v >> 8);
    }
    CHECK(memcmp(image + DEC21140_SROM_MAC_OFS, mac, 6) == 0);
    CHECK(memcmp(image, image + 16, 8) != 0); /* Linux takes the MAC from byte 20 */
    CHECK_EQ(image[0] | image[1] << 8, DEC21140_PCI_VENDOR_DEC);
    CHECK_EQ(image[DEC21140_SROM_ID_CRC_OFS], ref_crc32(image, 16) & 0xFFu);
    CHECK_EQ(image[DEC21140_SROM_FORMAT_VERSION_OFS], 3);
    CHECK_EQ(image[DEC21140_SROM_CONTROLLER_COUNT_OFS], 1);
    CHECK_EQ(image[126] | image[127] << 8, ref_crc32(image, 126) & 0xFFFFu);
    CHECK_EQ(image[27] | image[28] << 8, 30);
    CHECK_EQ(image[30] | image[31] << 8, 0x0800);
    CHECK_EQ(image[32], 0x3F);
    /* byte for byte the image the Java model builds (Dec21140Srom.image(00:00:c0:12:34:56), dumped from Java) */
    static const char java_image[] =
        "11100900000000000000000000000000550003010000c0123456001e000000083f0103096d0000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000135b";
    int differ = 0;
    for (int i = 0; i < 128; i++) {
        unsigned byte = 0;
        sscanf(java_image + 2 * i, "%2x", &byte);
        differ += image[i] != byte;
    }
    CHECK_EQ(differ, 0);
    /* with SR clear, CSR9 reads back what was written */
    wr(DEC21140_CSR9, 0x00001234u);
    CHECK_EQ(rd(DEC21140_CSR9), 0x00001234u);
    end();
}

static void test_setup_perfect_filter_rx(void) {
    begin("setup frame perfect filter, RX accept/reject");
    start_chip(0, 0);
    const uint8_t mc[1][6] = {{0x01, 0x00, 0x5e, 0x00, 0x00, 0x01}};
    load_setup(0, DEC21140_TDES1_FT_PERFECT, mc, 1);
    CHECK_EQ(des0(TX_RING), 0);
    CHECK_EQ(rd(DEC21140_CSR6) & DEC21140_CSR6_FILTER_RO_MASK, 0);
    CHECK_EQ(S.tx_count, 0);                          /* setup frames never reach the link */
    CHECK_EQ(S.rx_mode, SHIM_RXMODE_ALLMULTI);        /* the multicast entry needs all-multicast */
    CHECK_EQ(csr5_ts(), DEC21140_TS_SUSPENDED);       /* next TX descriptor is host-owned */
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_TU);
    arm_rx(4, 1536);
    uint8_t f[100];
    make_frame(f, OWN_MAC, 100, 1);
    CHECK_EQ(ops->receive(card, f, 100) & NICSHIM_EV_RX, NICSHIM_EV_RX);
    make_frame(f, OTHER_MAC, 100, 2);
    CHECK_EQ(ops->receive(card, f, 100), 0);
    make_frame(f, BCAST, 100, 3);
    ops->receive(card, f, 100);
    make_frame(f, mc[0], 100, 4);
    ops->receive(card, f, 100);
    CHECK_EQ(S.stats[SHIM_STAT_RX_FRAMES], 3);
    CHECK_EQ(S.stats[SHIM_STAT_RX_DROP_FILTER], 1);
    uint32_t s0 = des0(RX_RING), s1 = des0(RX_RING + 16), s2 = des0(RX_RING + 32);
    CHECK_EQ(s0, DEC21140_RDES0_FS | DEC21140_RDES0_LS | DEC21140_RDES0_FT | (104u << 16));
    CHECK_EQ(s1, DEC21140_RDES0_FS | DEC21140_RDES0_LS | DEC21140_RDES0_FT | DEC21140_RDES0_MF | (104u << 16));
    CHECK_EQ(s2 & DEC21140_RDES0_MF, DEC21140_RDES0_MF);
    CHECK_EQ(s0 & DEC21140_LINUX_RX_ACCEPT_MASK, DEC21140_LINUX_RX_ACCEPT_VALUE);
    CHECK_EQ(host(RX_BUF + 0x800)[99], (uint8_t)(99 * 7 + 3)); /* the broadcast frame's bytes */
    CHECK(des0(RX_RING + 48) & DEC21140_RDES0_OWN);
    /* promiscuous: the stranger passes; the platform is asked for PROMISC */
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO | DEC21140_CSR6_SR | DEC21140_CSR6_ST | DEC21140_CSR6_PR);
    CHECK(S.rx_mode & SHIM_RXMODE_PROMISC);
    make_frame(f, OTHER_MAC, 100, 5);
    ops->receive(card, f, 100);
    CHECK_EQ(des0(RX_RING + 48) & DEC21140_RDES0_OWN, 0);
    /* a setup frame with TBS1 != 192 is refused with ES and leaves the filter alone */
    desc_set(TX_RING + 16, DEC21140_TDES0_OWN, DEC21140_TDES1_SET | DEC21140_TDES1_FT_INVERSE | 96, SETUP_BUF, 0);
    wr(DEC21140_CSR1, 0);
    work();
    CHECK_EQ(des0(TX_RING + 16), DEC21140_TDES0_ES);
    CHECK_EQ(rd(DEC21140_CSR6) & DEC21140_CSR6_IF, 0);
    CHECK_EQ(S.stats[SHIM_STAT_TX_BAD_DESCRIPTOR], 1);
    end();
}

static void test_hash_filter(void) {
    begin("hash filter, inverse and hash-only CSR6 bits");
    start_chip(0, 0);
    arm_rx(4, 1536);
    uint8_t *setup = host(SETUP_BUF);
    memset(setup, 0, 192);
    const uint8_t group[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0x01};
    uint32_t idx = ~ref_crc32(group, 6) & 0x1FFu;
    uint32_t bidx = ~ref_crc32(BCAST, 6) & 0x1FFu;
    CHECK_EQ(bidx, DEC21140_SETUP_HASH_BROADCAST_INDEX);
    setup[4 * (idx >> 4) + ((idx & 15) >> 3)] |= (uint8_t)(1u << (idx & 7));
    for (int k = 0; k < 3; k++) {
        setup[156 + 4 * k] = OWN_MAC[2 * k];
        setup[156 + 4 * k + 1] = OWN_MAC[2 * k + 1];
    }
    desc_set(TX_RING, DEC21140_TDES0_OWN, DEC21140_LINUX_TDES1_SETUP_HASH, SETUP_BUF, 0);
    wr(DEC21140_CSR1, 0);
    work();
    CHECK_EQ(des0(TX_RING), 0);
    CHECK_EQ(rd(DEC21140_CSR6) & DEC21140_CSR6_FILTER_RO_MASK, DEC21140_CSR6_HP);
    CHECK_EQ(S.rx_mode, SHIM_RXMODE_ALLMULTI);
    uint8_t f[80];
    make_frame(f, group, 80, 0);
    ops->receive(card, f, 80);
    make_frame(f, BCAST, 80, 0); /* bit 255 not set here: broadcast is not special */
    ops->receive(card, f, 80);
    make_frame(f, OWN_MAC, 80, 0);
    ops->receive(card, f, 80);
    make_frame(f, OTHER_MAC, 80, 0);
    ops->receive(card, f, 80);
    CHECK_EQ(S.stats[SHIM_STAT_RX_FRAMES], 2);
    CHECK_EQ(S.stats[SHIM_STAT_RX_DROP_FILTER], 2);
    /* inverse perfect: everything but the listed addresses */
    const uint8_t rej[1][6] = {{0x02, 0x00, 0x00, 0x00, 0x00, 0x77}};
    load_setup(1, DEC21140_TDES1_FT_INVERSE, rej, 1);
    CHECK_EQ(rd(DEC21140_CSR6) & DEC21140_CSR6_FILTER_RO_MASK, DEC21140_CSR6_IF);
    CHECK(S.rx_mode & SHIM_RXMODE_PROMISC);
    make_frame(f, OTHER_MAC, 80, 0);
    ops->receive(card, f, 80);
    make_frame(f, PEER_MAC, 80, 0);
    ops->receive(card, f, 80);
    CHECK_EQ(S.stats[SHIM_STAT_RX_FRAMES], 3);
    CHECK_EQ(S.stats[SHIM_STAT_RX_DROP_FILTER], 3);
    load_setup(2, DEC21140_TDES1_FT_HASH_ONLY, rej, 1);
    CHECK_EQ(rd(DEC21140_CSR6) & DEC21140_CSR6_FILTER_RO_MASK, DEC21140_CSR6_HP | DEC21140_CSR6_HO);
    /* a host write cannot change the read-only filter bits */
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO | DEC21140_CSR6_SR | DEC21140_CSR6_ST);
    CHECK_EQ(rd(DEC21140_CSR6) & DEC21140_CSR6_FILTER_RO_MASK, DEC21140_CSR6_HP | DEC21140_CSR6_HO);
    end();
}

static void test_tx_two_descriptors_padding(void) {
    begin("TX of a 2-descriptor frame with padding");
    start_chip(0, 0);
    uint8_t f[30];
    make_frame(f, PEER_MAC, 30, 9);
    memcpy(host(TX_BUF), f, 14);
    memcpy(host(TX_BUF + 0x100), f + 14, 10);
    memcpy(host(TX_BUF + 0x200), f + 24, 6);
    /* descriptor 0: FS, buffer 1 = header; descriptor 1: LS|IC, buffer 1 = 10 bytes, buffer 2 = 6 bytes */
    desc_set(TX_RING + 16, DEC21140_TDES0_OWN, DEC21140_TDES1_LS | DEC21140_TDES1_IC | 10 | (6u << 11),
             TX_BUF + 0x100, TX_BUF + 0x200);
    desc_set(TX_RING, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | 14, TX_BUF, 0);
    S.kicks = 0;
    wr(DEC21140_CSR1, 0);
    CHECK_EQ(S.kicks, NICSHIM_KICK_TX);
    uint32_t ev = ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK(ev & NICSHIM_EV_TX_DONE);
    CHECK_EQ(S.tx_count, 1);
    CHECK_EQ(S.tx_len[0], 60);
    CHECK(memcmp(S.tx[0], f, 30) == 0);
    uint8_t zeros[30] = {0};
    CHECK(memcmp(S.tx[0] + 30, zeros, 30) == 0);
    CHECK_EQ(des0(TX_RING), 0);
    CHECK_EQ(des0(TX_RING + 16), 0);
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_TI);
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_NIS);
    CHECK_EQ(S.stats[SHIM_STAT_TX_FRAMES], 1);
    CHECK_EQ(S.stats[SHIM_STAT_TX_BYTES], 64); /* as the model counts: padding and FCS */
    CHECK_EQ(csr5_ts(), DEC21140_TS_SUSPENDED);
    /* DPD: no padding; AC with a correct FCS: stripped and sent; AC with a wrong FCS: dropped, success status */
    uint8_t g[40];
    make_frame(g, PEER_MAC, 36, 3);
    put32(g + 36, ref_crc32(g, 36));
    memcpy(host(TX_BUF + 0x300), g, 40);
    desc_set(TX_RING + 32, DEC21140_TDES0_OWN,
             DEC21140_TDES1_FS | DEC21140_TDES1_LS | DEC21140_TDES1_AC | DEC21140_TDES1_DPD | 40, TX_BUF + 0x300, 0);
    memcpy(host(TX_BUF + 0x400), g, 40);
    host(TX_BUF + 0x400)[39] ^= 0x55;
    desc_set(TX_RING + 48, DEC21140_TDES0_OWN,
             DEC21140_TDES1_FS | DEC21140_TDES1_LS | DEC21140_TDES1_AC | DEC21140_TDES1_DPD | 40, TX_BUF + 0x400, 0);
    memcpy(host(TX_BUF + 0x500), g, 20);
    desc_set(TX_RING + 64, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | DEC21140_TDES1_DPD | 20,
             TX_BUF + 0x500, 0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(S.tx_count, 3);
    CHECK_EQ(S.tx_len[1], 36);
    CHECK(memcmp(S.tx[1], g, 36) == 0);
    CHECK_EQ(S.tx_len[2], 20);
    CHECK_EQ(des0(TX_RING + 32), 0);
    CHECK_EQ(des0(TX_RING + 48), 0);
    CHECK_EQ(des0(TX_RING + 64), 0);
    CHECK_EQ(S.stats[SHIM_STAT_CARD_ERRORS], 1);
    /* longer than MTU + 14: not sent, TO|ES, no TJT; over 2048 with FCS: jabber, TO|ES and TJT */
    S.mtu = 100;
    make_frame(host(TX_BUF + 0x600), PEER_MAC, 200, 1);
    desc_set(TX_RING + 80, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | 200, TX_BUF + 0x600, 0);
    wr(DEC21140_CSR5, 0xFFFFFFFFu);
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(des0(TX_RING + 80), DEC21140_TDES0_TO | DEC21140_TDES0_ES);
    CHECK_EQ(rd(DEC21140_CSR5) & DEC21140_CSR5_TJT, 0);
    desc_set(TX_RING + 96, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | 2000, TX_BUF, 0);
    desc_set(TX_RING + 112, DEC21140_TDES0_OWN, DEC21140_TDES1_LS | 100, TX_BUF, 0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(des0(TX_RING + 96), 0);
    CHECK_EQ(des0(TX_RING + 112), DEC21140_TDES0_TO | DEC21140_TDES0_ES);
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_TJT);
    CHECK_EQ(S.stats[SHIM_STAT_TX_DROP_TOO_LONG], 2);
    CHECK_EQ(S.tx_count, 3);
    /* the jabber timer stops the transmit process (TPS); Linux restarts it (stop, start) */
    CHECK_EQ(csr5_ts(), DEC21140_TS_STOPPED);
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_TPS);
    wr(DEC21140_CSR6, rd(DEC21140_CSR6) & ~(DEC21140_CSR6_SR | DEC21140_CSR6_ST));
    wr(DEC21140_CSR6, rd(DEC21140_CSR6) | DEC21140_CSR6_SR | DEC21140_CSR6_ST);
    /* an FS..LS frame of 0 bytes: ES; a stray zero-length descriptor outside a frame: status 0 */
    desc_set(TX_RING + 128, DEC21140_TDES0_OWN, 0, 0, 0);
    desc_set(TX_RING + 144, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS, 0, 0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(des0(TX_RING + 128), 0);
    CHECK_EQ(des0(TX_RING + 144), DEC21140_TDES0_ES);
    end();
}

static void test_rx_two_descriptors_fcs(void) {
    begin("RX frame spanning 2 descriptors, FL with FCS");
    start_chip(0, DEC21140_CSR6_PR);
    desc_set(RX_RING, DEC21140_RDES0_OWN, 64, RX_BUF, 0);
    desc_set(RX_RING + 16, DEC21140_RDES0_OWN, 64 | DEC21140_RDES1_RER, RX_BUF + 0x800, 0);
    uint8_t f[100];
    make_frame(f, OWN_MAC, 100, 42);
    uint32_t ev = ops->receive(card, f, 100);
    CHECK_EQ(ev, NICSHIM_EV_RX);
    CHECK_EQ(des0(RX_RING), DEC21140_RDES0_FS);
    CHECK_EQ(des0(RX_RING + 16), DEC21140_RDES0_LS | DEC21140_RDES0_FT | (104u << 16));
    CHECK(memcmp(host(RX_BUF), f, 64) == 0);
    CHECK(memcmp(host(RX_BUF + 0x800), f + 64, 36) == 0);
    CHECK_EQ(get32(host(RX_BUF + 0x800 + 36)), ref_crc32(f, 100)); /* FCS after the data, LSB first */
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_RI);
    CHECK_EQ(csr5_rs(), DEC21140_RS_WAIT_PACKET);
    CHECK_EQ(S.stats[SHIM_STAT_RX_BYTES], 104);
    /* a short frame (veth does not pad) arrives padded to 60 + FCS: FL 64, no RF */
    desc_set(RX_RING, DEC21140_RDES0_OWN, 1536, RX_BUF, 0);
    uint8_t s[42];
    make_frame(s, OWN_MAC, 42, 7);
    ops->receive(card, s, 42);
    CHECK_EQ(des0(RX_RING), DEC21140_RDES0_FS | DEC21140_RDES0_LS | DEC21140_RDES0_FT | (64u << 16));
    uint8_t padded[60] = {0};
    memcpy(padded, s, 42);
    CHECK(memcmp(host(RX_BUF), padded, 60) == 0);
    CHECK_EQ(get32(host(RX_BUF + 60)), ref_crc32(padded, 60));
    /* a frame that does not fit the armed descriptors: cut with DE, next host-owned -> RU */
    desc_set(RX_RING + 16, DEC21140_RDES0_OWN, 64 | DEC21140_RDES1_RER, RX_BUF + 0x800, 0);
    make_frame(f, OWN_MAC, 100, 1);
    ops->receive(card, f, 100);
    CHECK_EQ(des0(RX_RING + 16), DEC21140_RDES0_FS | DEC21140_RDES0_LS | DEC21140_RDES0_DE | DEC21140_RDES0_ES |
                                     DEC21140_RDES0_FT | (64u << 16)); /* MF/FF/FT survive the cut */
    CHECK_EQ(csr5_rs(), DEC21140_RS_SUSPENDED);
    CHECK_EQ(S.stats[SHIM_STAT_CARD_ERRORS], 1);
    /* over 2048 bytes while suspended: missed, no descriptor, no RWT */
    static uint8_t big[2100];
    make_frame(big, OWN_MAC, 2100, 0);
    ops->receive(card, big, 2100);
    CHECK_EQ(rd(DEC21140_CSR5) & DEC21140_CSR5_RWT, 0);
    CHECK_EQ(S.stats[SHIM_STAT_RX_DROP_TOO_LONG], 1);
    /* 1600 bytes: delivered with TL */
    wr(DEC21140_CSR2, 0);
    desc_set(RX_RING, DEC21140_RDES0_OWN, 2044 | DEC21140_RDES1_RER, RX_BUF, 0);
    ops->work(card, NICSHIM_KICK_RX, 64);
    make_frame(big, OWN_MAC, 1600, 0);
    ops->receive(card, big, 1600);
    CHECK_EQ(des0(RX_RING), DEC21140_RDES0_FS | DEC21140_RDES0_LS | DEC21140_RDES0_FT | DEC21140_RDES0_TL |
                                DEC21140_RDES0_ES | (1604u << 16));
    /* over 2048 bytes: the receive watchdog cuts it; the first 2048 bytes get a descriptor with RW, and RWT */
    wr(DEC21140_CSR5, 0xFFFFFFFFu);
    desc_set(RX_RING, DEC21140_RDES0_OWN, 2044 | (8u << 11) | DEC21140_RDES1_RER, RX_BUF, RX_BUF + 0x800);
    make_frame(big, OWN_MAC, 2100, 0);
    ops->receive(card, big, 2100);
    CHECK_EQ(des0(RX_RING), DEC21140_RDES0_FS | DEC21140_RDES0_LS | DEC21140_RDES0_FT | DEC21140_RDES0_TL |
                                DEC21140_RDES0_RW | DEC21140_RDES0_ES | (2048u << 16));
    CHECK(memcmp(host(RX_BUF), big, 2044) == 0);
    CHECK(memcmp(host(RX_BUF + 0x800), big + 2044, 4) == 0);
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_RWT);
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_RI);
    CHECK_EQ(S.stats[SHIM_STAT_RX_DROP_TOO_LONG], 2);
    end();
}

static void test_ru_missed_csr8(void) {
    begin("RU, CSR8 missed count, clear on read");
    start_chip(0, DEC21140_CSR6_PR);
    wr(DEC21140_CSR7, DEC21140_CSR7_RUM | DEC21140_CSR7_AIM);
    desc_set(RX_RING, 0, 1536 | DEC21140_RDES1_RER, RX_BUF, 0); /* host-owned */
    uint8_t f[64];
    make_frame(f, OWN_MAC, 64, 0);
    CHECK_EQ(ops->receive(card, f, 64), NICSHIM_EV_RX_STALL);
    ops->receive(card, f, 64);
    ops->receive(card, f, 64);
    CHECK_EQ(csr5_rs(), DEC21140_RS_SUSPENDED);
    uint32_t csr5 = rd(DEC21140_CSR5);
    CHECK(csr5 & DEC21140_CSR5_RU);
    CHECK(csr5 & DEC21140_CSR5_AIS);
    CHECK_EQ(ops->irq_level(card), 1);
    CHECK_EQ(S.stats[SHIM_STAT_RX_MISSED], 3);
    /* RU marks the transition into suspended: frames missed while already suspended raise no new RU */
    wr(DEC21140_CSR5, rd(DEC21140_CSR5) & DEC21140_LINUX_CSR5_ACK_MASK);
    CHECK_EQ(ops->irq_level(card), 0);
    ops->receive(card, f, 64);
    CHECK_EQ(rd(DEC21140_CSR5) & (DEC21140_CSR5_RU | DEC21140_CSR5_AIS), 0);
    CHECK_EQ(ops->irq_level(card), 0);
    CHECK_EQ(rd(DEC21140_CSR8), DEC21140_CSR8_RESET | 4u);
    CHECK_EQ(rd(DEC21140_CSR8), DEC21140_CSR8_RESET); /* cleared by the read */
    /* overflow: 65535 then one more sets MFO */
    for (int i = 0; i < 0x10000; i++) {
        ops->receive(card, f, 64);
    }
    CHECK_EQ(rd(DEC21140_CSR8), DEC21140_CSR8_RESET | DEC21140_CSR8_MFO | 0xFFFFu);
    CHECK_EQ(rd(DEC21140_CSR8) & 0x1FFFFFFFu, 0);
    /* the host hands the descriptor back and demands a poll: RS leaves suspended, frames flow again */
    desc_set(RX_RING, DEC21140_RDES0_OWN, 1536 | DEC21140_RDES1_RER, RX_BUF, 0);
    wr(DEC21140_CSR2, 0);
    ops->work(card, NICSHIM_KICK_RX, 64);
    CHECK_EQ(csr5_rs(), DEC21140_RS_WAIT_PACKET);
    ops->receive(card, f, 64);
    CHECK_EQ(des0(RX_RING) & DEC21140_RDES0_LS, DEC21140_RDES0_LS);
    end();
}

static void test_bus_errors(void) {
    begin("bus errors stop both processes");
    /* TX descriptor list in no region: master abort */
    start_chip(0, 0);
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO);
    wr(DEC21140_CSR4, 0x00F00000u);
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO | DEC21140_CSR6_SR | DEC21140_CSR6_ST);
    uint32_t ev = ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK(ev & NICSHIM_EV_BUS_ERR);
    uint32_t csr5 = rd(DEC21140_CSR5);
    CHECK(csr5 & DEC21140_CSR5_FBE);
    CHECK_EQ(DEC21140_CSR5_EB(csr5), DEC21140_EB_MASTER_ABORT);
    CHECK_EQ(DEC21140_CSR5_TS(csr5), DEC21140_TS_STOPPED);
    CHECK_EQ(DEC21140_CSR5_RS(csr5), DEC21140_RS_STOPPED);
    CHECK(csr5 & DEC21140_CSR5_AIS);
    CHECK_EQ(ops->irq_level(card), 1);
    CHECK_EQ(S.stats[SHIM_STAT_BUS_ERRORS], 1);
    end();

    begin("bus error: RX buffer past the region end");
    start_chip(0, DEC21140_CSR6_PR);
    desc_set(RX_RING, DEC21140_RDES0_OWN, 1536 | DEC21140_RDES1_RER, MEM_BUS + MEM_SIZE - 64, 0);
    uint8_t f[200];
    make_frame(f, OWN_MAC, 200, 0);
    ev = ops->receive(card, f, 200);
    CHECK(ev & NICSHIM_EV_BUS_ERR);
    csr5 = rd(DEC21140_CSR5);
    CHECK(csr5 & DEC21140_CSR5_FBE);
    CHECK_EQ(DEC21140_CSR5_EB(csr5), DEC21140_EB_TARGET_ABORT);
    CHECK_EQ(DEC21140_CSR5_TS(csr5), DEC21140_TS_STOPPED);
    CHECK_EQ(DEC21140_CSR5_RS(csr5), DEC21140_RS_STOPPED);
    CHECK(des0(RX_RING) & DEC21140_RDES0_OWN); /* never handed back */
    CHECK_EQ(S.stats[SHIM_STAT_RX_FRAMES], 0);
    CHECK_EQ(S.stats[SHIM_STAT_BUS_ERRORS], 1);
    /* while stopped with SR set, frames wait in the 32-frame FIFO; the 33rd overflows into CSR8.FOC */
    for (int i = 0; i < 33; i++) {
        ops->receive(card, f, 200);
    }
    CHECK_EQ((rd(DEC21140_CSR8) & DEC21140_CSR8_FOC_MASK) >> DEC21140_CSR8_FOC_SHIFT, 1);
    /* the host fixes the ring and restarts receive: the FIFO drains into it */
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO);
    for (int i = 0; i < 40; i++) {
        desc_set(RX_RING + 16 * i, DEC21140_RDES0_OWN, 256 | (i == 39 ? DEC21140_RDES1_RER : 0),
                 RX_BUF + 0x100 * i, 0);
    }
    wr(DEC21140_CSR3, RX_RING);
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO | DEC21140_CSR6_SR | DEC21140_CSR6_PR);
    ops->work(card, NICSHIM_KICK_RX, 64);
    CHECK_EQ(S.stats[SHIM_STAT_RX_FRAMES], 32);
    end();

    begin("bus error: misaligned RX buffer, TX buffer in no region");
    start_chip(0, DEC21140_CSR6_PR);
    desc_set(RX_RING, DEC21140_RDES0_OWN, 1536 | DEC21140_RDES1_RER, RX_BUF + 2, 0);
    ops->receive(card, f, 200);
    CHECK_EQ(DEC21140_CSR5_EB(rd(DEC21140_CSR5)), DEC21140_EB_TARGET_ABORT);
    start_chip(0, 0);
    desc_set(TX_RING, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | 100, 0x40000000u, 0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    csr5 = rd(DEC21140_CSR5);
    CHECK_EQ(DEC21140_CSR5_EB(csr5), DEC21140_EB_MASTER_ABORT);
    CHECK(csr5 & DEC21140_CSR5_FBE);
    CHECK(des0(TX_RING) & DEC21140_TDES0_OWN);
    CHECK_EQ(S.tx_count, 0);
    CHECK_EQ(S.stats[SHIM_STAT_BUS_ERRORS], 2);
    end();
}

static void test_w1c_and_irq(void) {
    begin("CSR5 write-1-to-clear and the interrupt level");
    start_chip(0, 0);
    wr(DEC21140_CSR7, DEC21140_CSR7_TIM | DEC21140_CSR7_NIM);
    wr(DEC21140_CSR5, 0xFFFFFFFFu); /* clears the TU of the start */
    CHECK_EQ(ops->irq_level(card), 0);
    make_frame(host(TX_BUF), PEER_MAC, 60, 0);
    desc_set(TX_RING, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | DEC21140_TDES1_IC | 60, TX_BUF, 0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    uint32_t csr5 = rd(DEC21140_CSR5);
    CHECK(csr5 & DEC21140_CSR5_TI);
    CHECK(csr5 & DEC21140_CSR5_TU);
    CHECK(csr5 & DEC21140_CSR5_NIS);
    CHECK_EQ(csr5 & DEC21140_CSR5_AIS, 0);
    CHECK_EQ(ops->irq_level(card), 1);
    /* masking NIM drops the line though the bits stay */
    wr(DEC21140_CSR7, DEC21140_CSR7_TIM);
    CHECK_EQ(ops->irq_level(card), 0);
    wr(DEC21140_CSR7, DEC21140_CSR7_TIM | DEC21140_CSR7_NIM);
    CHECK_EQ(ops->irq_level(card), 1);
    /* writing TI clears it; TU (not enabled) remains and NIS is recomputed to 0 */
    wr(DEC21140_CSR5, DEC21140_CSR5_TI);
    csr5 = rd(DEC21140_CSR5);
    CHECK_EQ(csr5 & DEC21140_CSR5_TI, 0);
    CHECK(csr5 & DEC21140_CSR5_TU);
    CHECK_EQ(csr5 & DEC21140_CSR5_NIS, 0);
    CHECK_EQ(ops->irq_level(card), 0);
    /* RS/TS are read-only: writing ones there changes nothing */
    wr(DEC21140_CSR5, DEC21140_CSR5_RS_TS_MASK | DEC21140_CSR5_EB_MASK);
    CHECK_EQ(csr5_ts(), DEC21140_TS_SUSPENDED);
    CHECK_EQ(csr5_rs(), DEC21140_RS_WAIT_PACKET);
    /* stopping raises TPS/RPS (abnormal) and drops both states to 0 at once */
    wr(DEC21140_CSR7, DEC21140_CSR7_MASK_ALL);
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO);
    csr5 = rd(DEC21140_CSR5);
    CHECK_EQ(csr5 & DEC21140_CSR5_RS_TS_MASK, 0);
    CHECK(csr5 & DEC21140_CSR5_TPS);
    CHECK(csr5 & DEC21140_CSR5_RPS);
    CHECK(csr5 & DEC21140_CSR5_AIS);
    CHECK_EQ(ops->irq_level(card), 1);
    wr(DEC21140_CSR5, DEC21140_LINUX_CSR5_ACK_MASK);
    CHECK_EQ(rd(DEC21140_CSR5) & DEC21140_CSR5_W1C_MASK, 0);
    CHECK_EQ(ops->irq_level(card), 0);
    /* the list base is writable only while stopped */
    wr(DEC21140_CSR3, RX_RING + 0x100);
    CHECK_EQ(rd(DEC21140_CSR3), RX_RING + 0x100);
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO | DEC21140_CSR6_SR);
    wr(DEC21140_CSR3, RX_RING + 0x200);
    CHECK_EQ(rd(DEC21140_CSR3), RX_RING + 0x100);
    end();
}

static void test_chain_and_skip(void) {
    begin("chain mode and ring mode with DSL skip");
    start_chip(0, DEC21140_CSR6_PR);
    /* TX chain: descriptors at scattered addresses linked through word 3 */
    uint32_t t0 = TX_RING, t1 = TX_RING + 0x300, t2 = TX_RING + 0x180;
    make_frame(host(TX_BUF), PEER_MAC, 64, 1);
    make_frame(host(TX_BUF + 0x100), PEER_MAC, 80, 2);
    desc_set(t1, DEC21140_TDES0_OWN, DEC21140_TDES1_TCH | DEC21140_TDES1_FS | DEC21140_TDES1_LS | 80,
             TX_BUF + 0x100, t2);
    desc_set(t0, DEC21140_TDES0_OWN, DEC21140_TDES1_TCH | DEC21140_TDES1_FS | DEC21140_TDES1_LS | (64 | (999u << 11)),
             TX_BUF, t1); /* TBS2 ignored with TCH */
    desc_set(t2, 0, DEC21140_TDES1_TCH, 0, t0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(S.tx_count, 2);
    CHECK_EQ(S.tx_len[0], 64);
    CHECK_EQ(S.tx_len[1], 80);
    CHECK(memcmp(S.tx[1], host(TX_BUF + 0x100), 80) == 0);
    CHECK_EQ(csr5_ts(), DEC21140_TS_SUSPENDED); /* t2 host-owned */
    /* RX chain */
    uint32_t r0 = RX_RING, r1 = RX_RING + 0x200;
    desc_set(r1, DEC21140_RDES0_OWN, DEC21140_RDES1_RCH | 1536, RX_BUF + 0x800, r0);
    desc_set(r0, DEC21140_RDES0_OWN, DEC21140_RDES1_RCH | 1536, RX_BUF, r1);
    uint8_t f[70];
    make_frame(f, OWN_MAC, 70, 0);
    ops->receive(card, f, 70);
    ops->receive(card, f, 70);
    CHECK_EQ(des0(r0) >> 16, 74);
    CHECK_EQ(des0(r1) >> 16, 74);
    end();

    begin("ring mode with DSL skip, end of ring");
    /* DSL = 2 longwords: descriptors every 24 bytes; RER on the third */
    start_chip(2u << DEC21140_CSR0_DSL_SHIFT, DEC21140_CSR6_PR);
    for (int i = 0; i < 3; i++) {
        desc_set(RX_RING + 24 * i, DEC21140_RDES0_OWN, 128 | (i == 2 ? DEC21140_RDES1_RER : 0),
                 RX_BUF + 0x100 * i, 0xDEAD0000u); /* word 3 ignored: RBS2 = 0 */
    }
    for (int i = 0; i < 4; i++) {
        make_frame(f, OWN_MAC, 70, (uint8_t)i);
        ops->receive(card, f, 70);
    }
    CHECK_EQ(des0(RX_RING + 24) >> 16, 74);
    CHECK_EQ(des0(RX_RING + 48) >> 16, 74);
    CHECK_EQ(S.stats[SHIM_STAT_RX_FRAMES], 3);
    CHECK_EQ(S.stats[SHIM_STAT_RX_MISSED], 1); /* the 4th found descriptor 0 host-owned again */
    CHECK_EQ(csr5_rs(), DEC21140_RS_SUSPENDED);
    end();
}

static void test_tx_ring_full(void) {
    begin("TX ring full back-pressure");
    start_chip(0, 0);
    S.tx_capacity = 1;
    for (int i = 0; i < 3; i++) {
        make_frame(host(TX_BUF + 0x100 * i), PEER_MAC, 64, (uint8_t)i);
        desc_set(TX_RING + 16 * i, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | 64,
                 TX_BUF + 0x100 * i, 0);
    }
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(S.tx_count, 1);
    CHECK_EQ(des0(TX_RING), 0);
    CHECK(des0(TX_RING + 16) & DEC21140_TDES0_OWN); /* waits, card-owned */
    CHECK(des0(TX_RING + 32) & DEC21140_TDES0_OWN);
    CHECK(csr5_ts() != DEC21140_TS_SUSPENDED);
    ops->work(card, 0, 64); /* still full: nothing moves */
    CHECK_EQ(S.tx_count, 1);
    CHECK(des0(TX_RING + 16) & DEC21140_TDES0_OWN);
    S.tx_capacity = 3; /* the kernel drained its ring */
    ops->work(card, 0, 64);
    CHECK_EQ(S.tx_count, 3);
    CHECK_EQ(des0(TX_RING + 16), 0);
    CHECK_EQ(des0(TX_RING + 32), 0);
    CHECK(memcmp(S.tx[2], host(TX_BUF + 0x200), 64) == 0);
    CHECK_EQ(csr5_ts(), DEC21140_TS_SUSPENDED);
    CHECK_EQ(S.stats[SHIM_STAT_TX_FRAMES], 3);
    end();

    begin("stop with a frame waiting for the link: TS reads 0 only after its descriptor is closed");
    start_chip(0, 0);
    S.tx_capacity = 1;
    for (int i = 0; i < 3; i++) {
        make_frame(host(TX_BUF + 0x100 * i), PEER_MAC, 64, (uint8_t)i);
        desc_set(TX_RING + 16 * i, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | 64,
                 TX_BUF + 0x100 * i, 0);
    }
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(S.tx_count, 1);
    wr(DEC21140_CSR5, DEC21140_LINUX_CSR5_ACK_MASK);
    wr(DEC21140_CSR6, rd(DEC21140_CSR6) & ~DEC21140_CSR6_ST);
    CHECK(csr5_ts() != DEC21140_TS_STOPPED); /* the waiting frame finishes first */
    CHECK_EQ(rd(DEC21140_CSR5) & DEC21140_CSR5_TPS, 0);
    S.tx_capacity = 3;
    ops->work(card, 0, 64);
    CHECK_EQ(S.tx_count, 2);
    CHECK_EQ(des0(TX_RING + 16), 0);
    CHECK_EQ(csr5_ts(), DEC21140_TS_STOPPED);
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_TPS);
    CHECK(des0(TX_RING + 32) & DEC21140_TDES0_OWN); /* nothing after the stop */
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(S.tx_count, 2);
    end();

    begin("TX budget per pass");
    start_chip(0, 0);
    for (int i = 0; i < 10; i++) {
        make_frame(host(TX_BUF + 0x80 * i), PEER_MAC, 64, (uint8_t)i);
        desc_set(TX_RING + 16 * i, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | 64,
                 TX_BUF + 0x80 * i, 0);
    }
    ops->work(card, NICSHIM_KICK_TX, 4);
    CHECK_EQ(S.tx_count, 4);
    CHECK_EQ(ops->next_deadline(card), 0); /* more to do: the platform ticks at once */
    ops->tick(card, shim_now_ns());
    CHECK_EQ(S.tx_count, 10);
    CHECK_EQ(ops->next_deadline(card), UINT64_MAX);
    end();
}

static void test_loopback(void) {
    begin("loopback OM: frames come back to our own receive path");
    start_chip(0, DEC21140_OM_INTERNAL_LOOPBACK << DEC21140_CSR6_OM_SHIFT);
    load_setup(0, DEC21140_TDES1_FT_PERFECT, NULL, 0);
    arm_rx(4, 1536);
    make_frame(host(TX_BUF), OWN_MAC, 50, 5);
    desc_set(TX_RING + 16, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | DEC21140_TDES1_IC | 50, TX_BUF,
             0);
    uint32_t ev = ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK(ev & NICSHIM_EV_TX_DONE);
    CHECK(ev & NICSHIM_EV_RX);
    CHECK_EQ(S.tx_count, 0);
    CHECK_EQ(des0(TX_RING + 16), 0);
    uint32_t s = des0(RX_RING);
    CHECK_EQ(s, DEC21140_RDES0_FS | DEC21140_RDES0_LS | DEC21140_RDES0_FT |
                    (DEC21140_DT_INTERNAL_LOOPBACK << DEC21140_RDES0_DT_SHIFT) | (64u << 16));
    uint8_t expect[60] = {0};
    memcpy(expect, host(TX_BUF), 50);
    CHECK(memcmp(host(RX_BUF), expect, 60) == 0);
    CHECK_EQ(get32(host(RX_BUF + 60)), ref_crc32(expect, 60));
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_RI);
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_TI);
    /* frames from the link are ignored meanwhile */
    uint8_t f[64];
    make_frame(f, OWN_MAC, 64, 0);
    CHECK_EQ(ops->receive(card, f, 64), 0);
    CHECK(des0(RX_RING + 16) & DEC21140_RDES0_OWN);
    /* a DPD runt without PB is dropped as a runt; with AC and a wrong FCS: delivered with CE */
    make_frame(host(TX_BUF + 0x100), OWN_MAC, 30, 1);
    desc_set(TX_RING + 32, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | DEC21140_TDES1_DPD | 30,
             TX_BUF + 0x100, 0);
    make_frame(host(TX_BUF + 0x200), OWN_MAC, 80, 1);
    desc_set(TX_RING + 48, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | DEC21140_TDES1_AC | 80,
             TX_BUF + 0x200, 0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(S.stats[SHIM_STAT_RX_DROP_BAD_FRAME], 1);
    s = des0(RX_RING + 16);
    CHECK_EQ(s & (DEC21140_RDES0_CE | DEC21140_RDES0_ES), DEC21140_RDES0_CE | DEC21140_RDES0_ES);
    CHECK_EQ(s >> 16 & 0x3FFF, 80);
    CHECK_EQ(S.stats[SHIM_STAT_RX_FRAMES], 2);
    end();
}

static void test_gp_timer_and_autopoll(void) {
    begin("CSR11 GP timer in real time, TX auto-poll");
    start_chip(DEC21140_TAP_200US << DEC21140_CSR0_TAP_SHIFT, DEC21140_CSR6_PS);
    CHECK_EQ(S.kicks, NICSHIM_KICK_TX | NICSHIM_KICK_RX); /* the start rang our own doorbell */
    ops->work(card, S.kicks, 64);
    CHECK_EQ(csr5_ts(), DEC21140_TS_SUSPENDED);
    wr(DEC21140_CSR5, 0xFFFFFFFFu);
    /* Linux's too-much-work mask (A.3): the normal summary off, the timer through the abnormal one */
    wr(DEC21140_CSR7, DEC21140_CSR7_GTM | DEC21140_CSR7_AIM);
    uint64_t t0 = shim_now_ns();
    wr(DEC21140_CSR11, DEC21140_CSR11_CON | 10);
    CHECK_EQ(rd(DEC21140_CSR11) & 0xFFFFu, 10);
    fake_set_time(t0 + 3 * 81920 + 5);
    CHECK_EQ(rd(DEC21140_CSR11) & 0xFFFFu, 7);
    CHECK_EQ(rd(DEC21140_CSR11) & DEC21140_CSR11_CON, DEC21140_CSR11_CON);
    uint64_t d = ops->next_deadline(card);
    CHECK(d <= t0 + 10 * 81920ull);
    fake_set_time(t0 + 10 * 81920);
    ops->tick(card, shim_now_ns());
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_GTE);
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_AIS);
    CHECK((rd(DEC21140_CSR5) & DEC21140_CSR5_NIS) == 0);
    CHECK_EQ(ops->irq_level(card), 1);
    wr(DEC21140_CSR5, DEC21140_CSR5_GTE);
    CHECK_EQ(ops->irq_level(card), 0);
    CHECK_EQ(rd(DEC21140_CSR11) & 0xFFFFu, 10); /* continuous: re-armed */
    /* one-shot: the expiry shows in a CSR5 read even before the platform's tick, and the timer then reads 0 */
    wr(DEC21140_CSR11, 5);
    fake_set_time(shim_now_ns() + 5 * 81920);
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_GTE);
    CHECK_EQ(rd(DEC21140_CSR11) & 0xFFFFu, 0);
    wr(DEC21140_CSR5, DEC21140_CSR5_GTE);
    wr(DEC21140_CSR11, 0);
    /* TX auto-poll (TAP = 200 us): the start suspended TX; a descriptor posted without CSR1 goes out by itself */
    make_frame(host(TX_BUF), PEER_MAC, 64, 0);
    desc_set(TX_RING, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | 64, TX_BUF, 0);
    CHECK_EQ(S.tx_count, 0);
    uint64_t now = shim_now_ns();
    CHECK(ops->next_deadline(card) <= now + 200000ull);
    fake_set_time(now + 200000ull);
    ops->tick(card, shim_now_ns());
    CHECK_EQ(S.tx_count, 1);
    end();
}

static void test_crc_check_value(void) {
    begin("FCS of a known frame; kick-driven RX poll demand");
    /* the card's CRC must match the check value through the FCS it appends */
    start_chip(0, DEC21140_OM_EXTERNAL_LOOPBACK << DEC21140_CSR6_OM_SHIFT | DEC21140_CSR6_PR | DEC21140_CSR6_PB);
    arm_rx(2, 1536);
    memcpy(host(TX_BUF), "123456789", 9);
    desc_set(TX_RING, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | DEC21140_TDES1_DPD | 9, TX_BUF, 0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    uint32_t s = des0(RX_RING);
    CHECK_EQ(s >> 16 & 0x3FFF, 13);
    CHECK(s & DEC21140_RDES0_RF);
    CHECK_EQ(get32(host(RX_BUF + 9)), DEC21140_FCS_CHECK);
    CHECK_EQ((s >> DEC21140_RDES0_DT_SHIFT) & 3u, DEC21140_DT_EXTERNAL_LOOPBACK);
    /* stop: processes to 0 without TPS/RPS */
    ops->stop(card);
    CHECK_EQ(rd(DEC21140_CSR5) & DEC21140_CSR5_RS_TS_MASK, 0);
    end();
}


static void test_tx_edge_cases(void) {
    begin("TX: host-owned descriptor mid-frame suspends, then the frame resumes");
    start_chip(0, 0);
    uint8_t f[200];
    make_frame(f, PEER_MAC, 200, 3);
    memcpy(host(TX_BUF), f, 100);
    memcpy(host(TX_BUF + 0x200), f + 100, 100);
    desc_set(TX_RING + 16, 0, DEC21140_TDES1_LS | 100, TX_BUF + 0x200, 0);
    desc_set(TX_RING, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | 100, TX_BUF, 0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(S.tx_count, 0);
    CHECK_EQ(csr5_ts(), DEC21140_TS_SUSPENDED);
    CHECK_EQ(des0(TX_RING), 0);
    desc_set(TX_RING + 16, DEC21140_TDES0_OWN, DEC21140_TDES1_LS | 100, TX_BUF + 0x200, 0);
    wr(DEC21140_CSR1, 0);
    ops->work(card, S.kicks, 64);
    CHECK_EQ(S.tx_count, 1);
    CHECK_EQ(S.tx_len[0], 200);
    CHECK(memcmp(S.tx[0], f, 200) == 0);
    end();

    begin("TX: stop mid-frame discards the part; restart continues at the current descriptor");
    start_chip(0, 0);
    make_frame(host(TX_BUF), PEER_MAC, 60, 1);
    desc_set(TX_RING, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | 30, TX_BUF, 0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO | DEC21140_CSR6_SR);
    CHECK_EQ(csr5_ts(), DEC21140_TS_STOPPED);
    desc_set(TX_RING + 16, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | 60, TX_BUF, 0);
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO | DEC21140_CSR6_SR | DEC21140_CSR6_ST);
    ops->work(card, S.kicks, 64);
    CHECK_EQ(S.tx_count, 1);
    CHECK_EQ(S.tx_len[0], 60);
    CHECK(memcmp(S.tx[0], host(TX_BUF), 60) == 0);
    end();

    begin("TX: misaligned chain pointer is a target abort; setup buffer in no region a master abort");
    start_chip(0, 0);
    make_frame(host(TX_BUF), PEER_MAC, 60, 1);
    desc_set(TX_RING, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | DEC21140_TDES1_TCH | 60, TX_BUF,
             TX_RING + 0x102);
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(S.tx_count, 1);
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_FBE);
    CHECK_EQ(DEC21140_CSR5_EB(rd(DEC21140_CSR5)), DEC21140_EB_TARGET_ABORT);
    start_chip(0, 0);
    desc_set(TX_RING, DEC21140_TDES0_OWN, DEC21140_LINUX_TDES1_SETUP_PERFECT, 0xFFFFF000u, 0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(DEC21140_CSR5_EB(rd(DEC21140_CSR5)), DEC21140_EB_MASTER_ABORT);
    CHECK(des0(TX_RING) & DEC21140_TDES0_OWN);
    /* a buffer near the top of the 32-bit bus, in no region: master abort */
    start_chip(0, 0);
    desc_set(TX_RING, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | 100, 0xFFFFFFF0u, 0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(DEC21140_CSR5_EB(rd(DEC21140_CSR5)), DEC21140_EB_MASTER_ABORT);
    CHECK_EQ(S.stats[SHIM_STAT_BUS_ERRORS], 3);
    end();
}

static void test_rx_edge_cases(void) {
    begin("RX: zero-size descriptor skipped; a ring of empty descriptors cannot hold the card");
    start_chip(0, DEC21140_CSR6_PR);
    desc_set(RX_RING, DEC21140_RDES0_OWN, 0, 0, 0);
    desc_set(RX_RING + 16, DEC21140_RDES0_OWN, 1536 | DEC21140_RDES1_RER, RX_BUF, 0);
    uint8_t f[100];
    make_frame(f, OWN_MAC, 100, 0);
    ops->receive(card, f, 100);
    CHECK_EQ(des0(RX_RING), DEC21140_RDES0_DE | DEC21140_RDES0_ES);
    CHECK_EQ(des0(RX_RING + 16), DEC21140_RDES0_FS | DEC21140_RDES0_LS | DEC21140_RDES0_FT | (104u << 16));
    CHECK_EQ(S.stats[SHIM_STAT_RX_FRAMES], 1);
    /* 70 zero-size descriptors in a ring: the frame is cut after 64 */
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO);
    for (int i = 0; i < 70; i++) {
        desc_set(RX_RING + 16 * i, DEC21140_RDES0_OWN, i == 69 ? DEC21140_RDES1_RER : 0, 0, 0);
    }
    wr(DEC21140_CSR3, RX_RING);
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO | DEC21140_CSR6_SR | DEC21140_CSR6_PR);
    ops->work(card, S.kicks, 64);
    ops->receive(card, f, 100);
    CHECK_EQ(des0(RX_RING + 16 * 62), DEC21140_RDES0_DE | DEC21140_RDES0_ES);
    CHECK_EQ(des0(RX_RING + 16 * 63), DEC21140_RDES0_LS | DEC21140_RDES0_DE | DEC21140_RDES0_ES | DEC21140_RDES0_FT);
    CHECK(des0(RX_RING + 16 * 64) & DEC21140_RDES0_OWN);
    CHECK_EQ(csr5_rs(), DEC21140_RS_WAIT_PACKET);
    end();

    begin("RX: receive-all passes filter failures with FF; stop keeps the FIFO");
    start_chip(0, DEC21140_CSR6_RA);
    CHECK(S.rx_mode & SHIM_RXMODE_PROMISC);
    arm_rx(4, 1536);
    make_frame(f, OTHER_MAC, 100, 0);
    ops->receive(card, f, 100);
    CHECK_EQ(des0(RX_RING) & DEC21140_RDES0_FF, DEC21140_RDES0_FF);
    /* SR clear: frames are not listened to */
    wr(DEC21140_CSR6, DEC21140_CSR6_MBO);
    CHECK_EQ(ops->receive(card, f, 100), 0);
    CHECK(des0(RX_RING + 16) & DEC21140_RDES0_OWN);
    CHECK_EQ(S.stats[SHIM_STAT_RX_DROP_FILTER], 1);
    end();
}

static void test_fcs_every_length(void) {
    begin("FCS correct for every frame length 60..2044 (table and folding paths)");
    start_chip(0, DEC21140_CSR6_PR);
    static uint8_t f[2044];
    int bad = 0;
    for (uint32_t len = 1; len <= 2044; len++) {
        /* buffer 2 continues buffer 1 in memory, so the frame and its FCS are contiguous */
        desc_set(RX_RING, DEC21140_RDES0_OWN, 2044 | (16u << 11) | DEC21140_RDES1_RER, RX_BUF, RX_BUF + 2044);
        make_frame(f, OWN_MAC, len < 14 ? 14 : len, (uint8_t)len);
        ops->receive(card, f, len);
        uint32_t data = len < 60 ? 60 : len;
        if (data + 4 > 2048) {
            continue;
        }
        uint32_t st = des0(RX_RING);
        if ((st >> 16 & 0x3FFF) != data + 4 || get32(host(RX_BUF + data)) != ref_crc32(host(RX_BUF), data)) {
            fprintf(stderr, "FCS/FL wrong for length %u: RDES0 0x%08x\n", len, st);
            bad++;
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(S.stats[SHIM_STAT_RX_FRAMES], 2044);
    end();
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/** A bus address that is usually inside the region, sometimes near its end, misaligned, or nowhere. */
static uint32_t fuzz_address(void) {
    switch (rng() % 8) {
    case 0:
        return rng();
    case 1:
        return MEM_BUS + MEM_SIZE - (rng() % 64);
    case 2:
        return MEM_BUS + (rng() % MEM_SIZE) + 1;
    default:
        return MEM_BUS + ((rng() % MEM_SIZE) & ~3u);
    }
}

static void test_fuzz(void) {
    begin("fuzz: nonsense descriptors, CSR writes and frames end in statuses or FBE, never a crash");
    static uint8_t f[2100];
    for (int round = 0; round < 20000; round++) {
        switch (rng() % 10) {
        case 0: { /* scribble a descriptor-sized word somewhere */
            uint32_t at = (rng() % (MEM_SIZE - 16)) & ~3u;
            uint32_t d1 = rng();
            desc_set(MEM_BUS + at, rng() | (rng() % 2 ? DEC21140_RDES0_OWN : 0), d1, fuzz_address(), fuzz_address());
            break;
        }
        case 1: {
            static const uint32_t csrs[] = {DEC21140_CSR0, DEC21140_CSR3, DEC21140_CSR4, DEC21140_CSR5,
                                            DEC21140_CSR6, DEC21140_CSR7, DEC21140_CSR9, DEC21140_CSR11,
                                            DEC21140_CSR12, DEC21140_CSR15};
            uint32_t off = csrs[rng() % (sizeof(csrs) / sizeof(csrs[0]))];
            uint32_t v = off == DEC21140_CSR3 || off == DEC21140_CSR4 ? fuzz_address() : rng();
            if (off == DEC21140_CSR0 && rng() % 4 != 0) {
                v &= ~DEC21140_CSR0_SWR;
            }
            wr(off, v);
            break;
        }
        case 2:
            wr(DEC21140_CSR6, DEC21140_CSR6_MBO | DEC21140_CSR6_SR | DEC21140_CSR6_ST | (rng() & 0x40C0u));
            break;
        case 3:
        case 4: {
            uint32_t len = 1 + rng() % 2100;
            for (uint32_t i = 0; i < len; i++) {
                f[i] = (uint8_t)rng();
            }
            if (rng() % 2) {
                memcpy(f, OWN_MAC, 6);
            }
            ops->receive(card, f, len);
            break;
        }
        case 5:
            S.tx_count = 0;
            S.tx_capacity = (int)(rng() % 4);
            ops->work(card, rng() & NICSHIM_KICK_ALL, 1 + rng() % 200);
            break;
        case 6:
            fake_set_time(shim_now_ns() + rng() % 1000000);
            ops->tick(card, shim_now_ns());
            (void)ops->next_deadline(card);
            break;
        case 7:
            (void)rd(DEC21140_CSR8);
            (void)rd(DEC21140_CSR11);
            (void)rd(DEC21140_CSR5);
            break;
        default:
            ops->work(card, NICSHIM_KICK_TX | NICSHIM_KICK_RX, 64);
            break;
        }
        uint32_t csr5 = rd(DEC21140_CSR5);
        if (csr5 & DEC21140_CSR5_FBE) {
            CHECK(DEC21140_CSR5_EB(csr5) == DEC21140_EB_MASTER_ABORT || DEC21140_CSR5_EB(csr5) == DEC21140_EB_TARGET_ABORT);
        }
        CHECK_EQ(ops->irq_level(card), (csr5 & rd(DEC21140_CSR7) & (DEC21140_CSR5_NIS | DEC21140_CSR5_AIS)) != 0);
    }
    CHECK(S.stats[SHIM_STAT_BUS_ERRORS] > 0);
    S.tx_count = 0;
    end();
}

static void test_link_sense_and_mii(void) {
    begin("CSR12 signal detect follows the link; an MII read without a PHY returns all ones");
    start_chip(0, 0);
    wr(DEC21140_CSR12, DEC21140_SMC9332_GPIO_DIRECTION | DEC21140_CSR12_GPC); /* tulip_select_media at startup */
    wr(DEC21140_CSR12, DEC21140_SMC9332_GPIO_INITIAL);
    CHECK_EQ(rd(DEC21140_CSR12) & 0xFFu, 0xC9u);
    ops->link(card, 0); /* the platform saw the carrier go */
    CHECK_EQ(rd(DEC21140_CSR12) & 0xFFu, DEC21140_SMC9332_GPIO_INITIAL);
    ops->link(card, 1);
    CHECK_EQ(rd(DEC21140_CSR12) & 0xFFu, 0xC9u);
    wr(DEC21140_CSR9, DEC21140_CSR9_MII); /* listening: the pulled-up line */
    CHECK(rd(DEC21140_CSR9) & DEC21140_CSR9_MDI);
    wr(DEC21140_CSR9, DEC21140_CSR9_MII | DEC21140_CSR9_MDC);
    CHECK(rd(DEC21140_CSR9) & DEC21140_CSR9_MDI);
    wr(DEC21140_CSR9, 0); /* driving 0 */
    CHECK_EQ(rd(DEC21140_CSR9) & DEC21140_CSR9_MDI, 0);
    wr(DEC21140_CSR9, DEC21140_CSR9_MDO);
    CHECK(rd(DEC21140_CSR9) & DEC21140_CSR9_MDI);
    end();
}

/* ERI (A.3): first buffer full with more of the frame to come; RI clears it; left set when the frame never closes. */
static void test_early_receive(void) {
    begin("ERI: the first receive buffer filled, cleared by RI, left beside FBE");
    start_chip(0, DEC21140_CSR6_PR);
    desc_set(RX_RING, DEC21140_RDES0_OWN, 1536, RX_BUF, 0);
    desc_set(RX_RING + 16, DEC21140_RDES0_OWN, 64 | (1024u << 11), RX_BUF + 0x800, RX_BUF + 0x1000);
    desc_set(RX_RING + 32, DEC21140_RDES0_OWN, 64 | (1024u << 11) | DEC21140_RDES1_RER, RX_BUF + 0x1800,
             MEM_BUS + MEM_SIZE + 0x1000);
    uint8_t f[400];
    make_frame(f, OWN_MAC, 100, 1);
    ops->receive(card, f, 100);
    CHECK_EQ(rd(DEC21140_CSR5) & (DEC21140_CSR5_RI | DEC21140_CSR5_ERI), DEC21140_CSR5_RI); /* fits: no ERI */
    wr(DEC21140_CSR5, DEC21140_LINUX_CSR5_ACK_MASK);
    make_frame(f, OWN_MAC, 400, 2);
    ops->receive(card, f, 400);
    CHECK_EQ(rd(DEC21140_CSR5) & (DEC21140_CSR5_RI | DEC21140_CSR5_ERI), DEC21140_CSR5_RI); /* RI cleared ERI */
    wr(DEC21140_CSR5, DEC21140_LINUX_CSR5_ACK_MASK);
    ops->receive(card, f, 400); /* buffer 2 lies outside every region */
    uint32_t csr5 = rd(DEC21140_CSR5);
    CHECK_EQ(csr5 & (DEC21140_CSR5_ERI | DEC21140_CSR5_FBE | DEC21140_CSR5_RI | DEC21140_CSR5_NIS | DEC21140_CSR5_AIS),
             DEC21140_CSR5_ERI | DEC21140_CSR5_FBE | DEC21140_CSR5_NIS | DEC21140_CSR5_AIS);
    CHECK(memcmp(host(RX_BUF + 0x1800), f, 64) == 0);
    end();
}

/* No carrier (A.6): a frame finds the link down: not sent, TDES0 = NC|LO|ES; the link back, frames flow again. */
static void test_no_carrier(void) {
    begin("transmit without carrier: NC|LO|ES, nothing on the link");
    start_chip(0, 0);
    uint8_t f[60];
    make_frame(f, PEER_MAC, 60, 5);
    memcpy(host(TX_BUF), f, 60);
    desc_set(TX_RING, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | DEC21140_TDES1_IC | 60, TX_BUF, 0);
    desc_set(TX_RING + 16, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | 60, TX_BUF, 0);
    ops->link(card, 0);
    wr(DEC21140_CSR1, 0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(des0(TX_RING), DEC21140_TDES0_NC | DEC21140_TDES0_LO | DEC21140_TDES0_ES);
    CHECK_EQ(des0(TX_RING) & DEC21140_LINUX_TDES0_CARRIER, DEC21140_LINUX_TDES0_CARRIER);
    CHECK_EQ(S.tx_count, 0);
    CHECK_EQ(S.stats[SHIM_STAT_TX_FRAMES], 0);
    CHECK_EQ(S.stats[SHIM_STAT_CARD_ERRORS], 2);
    CHECK(rd(DEC21140_CSR5) & DEC21140_CSR5_TI);
    CHECK_EQ(csr5_ts(), DEC21140_TS_SUSPENDED);
    ops->link(card, 1);
    desc_set(TX_RING + 32, DEC21140_TDES0_OWN, DEC21140_TDES1_FS | DEC21140_TDES1_LS | 60, TX_BUF, 0);
    wr(DEC21140_CSR1, 0);
    ops->work(card, NICSHIM_KICK_TX, 64);
    CHECK_EQ(des0(TX_RING + 32), 0);
    CHECK_EQ(S.tx_count, 1);
    end();
}

int main(void) {
    test_reset_values();
    test_link_sense_and_mii();
    test_early_receive();
    test_no_carrier();
    test_srom();
    test_setup_perfect_filter_rx();
    test_hash_filter();
    test_tx_two_descriptors_padding();
    test_rx_two_descriptors_fcs();
    test_ru_missed_csr8();
    test_bus_errors();
    test_w1c_and_irq();
    test_chain_and_skip();
    test_tx_ring_full();
    test_loopback();
    test_gp_timer_and_autopoll();
    test_crc_check_value();
    test_tx_edge_cases();
    test_rx_edge_cases();
    test_fcs_every_length();
    test_fuzz();
    return shim_test_summary("test_dec21140_card");
}
