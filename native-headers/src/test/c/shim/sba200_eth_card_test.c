/*
 * sba200_eth_card_test.c - unit tests of the SBA-200 U-Net-over-Ethernet card model (sba200_eth_card.c) on the fake
 * platform (fake_platform.c): no sockets; DMA regions are malloc'd buffers, transmitted frames are captured, received
 * frames are handed to the card by the tests.
 *
 * The tests play the Java host side: the kernel driver (command queue in board RAM, UG block, BCR) and the endpoint
 * owner (send queue and free queue in its page, receive queue in host memory), writing big-endian words exactly as
 * UnetKernelDriver / UnetEndpoint do, then check every word the card writes back, the frames it sends and the
 * counters (board RAM, endpoint page and shim statistics).
 *
 * Exit status 0 when every check passed; the summary line gives the counts.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_platform.h"
#include "sba200_unet.h"

/* ============================================================================================ checks */

#include "shim_test.h"

/* ============================================================================================ the rig */

#define SEG_BUS   0x00100000u
#define SEG_LEN   0x4000u
#define RQ_BUS    0x00200000u
#define SEG1_BUS  (SEG_BUS + SEG_LEN) /* ep 1's segment sits right after ep 0's in bus space */
#define RQ1_BUS   0x00300000u
#define STATS_BUS 0x00400000u

static const shim_card_ops_t *const OPS = &shim_sba200_eth_card;
static shim_t *S;
static void *card;
static uint8_t *ram;
static uint8_t *bcr;
static uint32_t cmd_prod;

static uint32_t be_get(const uint8_t *base, uint32_t ofs) {
    uint32_t v;
    memcpy(&v, base + ofs, 4);
    return be32toh(v);
}

static void be_put(uint8_t *base, uint32_t ofs, uint32_t v) {
    v = htobe32(v);
    memcpy(base + ofs, &v, 4);
}

static uint32_t ug(uint32_t ofs) {
    return be_get(ram, SBA200_UNET_UG_OFS + ofs);
}

static uint8_t *page(uint32_t ep) {
    return ram + SBA200_UNET_EP_PAGE_OFFSET(ep);
}

static uint32_t epcb(uint32_t ep, uint32_t ofs) {
    return be_get(page(ep), ofs);
}

static void setup_with(const nicshim_options_t *options) {
    fake_init(S);
    fake_set_time(123456789000ull);
    card = OPS->create(S, options);
    if (card == NULL) {
        abort();
    }
    ram = aligned_alloc(4096, NICSHIM_SBA200_RAM_SIZE);
    bcr = aligned_alloc(8, 8);
    if (ram == NULL || bcr == NULL) {
        abort();
    }
    memset(ram, 0xA5, NICSHIM_SBA200_RAM_SIZE); /* garbage: attach must load the reset values */
    memset(bcr, 0xA5, 8);
    OPS->attach(card, NICSHIM_RANGE_SBA200_BCR, bcr);
    OPS->attach(card, NICSHIM_RANGE_SBA200_RAM, ram);
    OPS->start(card);
    cmd_prod = 0;
}

static void setup(void) {
    setup_with(NULL);
}

static void teardown(void) {
    OPS->stop(card);
    OPS->destroy(card);
    free(ram);
    free(bcr);
    fake_free(S);
}

static uint32_t work(void) {
    return OPS->work(card, NICSHIM_KICK_ALL, 64);
}

/* ---- the kernel side: UnetKernelDriver.execute */

/** Fills the next command slot and rings the doorbell (cmd_prod through reg_write, as the bridge routes it); no work. */
static uint32_t post_cmd(uint32_t op, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t a4) {
    uint32_t slot = SBA200_UNET_CMD_OFFSET(cmd_prod & (SBA200_UNET_CMDQ_LEN - 1));
    uint32_t args[6] = {a0, a1, a2, a3, a4, 0};
    for (int i = 0; i < 6; i++) {
        be_put(ram, slot + SBA200_UNET_CMD_ARG_OFS + 4 * i, args[i]);
    }
    be_put(ram, slot + SBA200_UNET_CMD_OP_OFS, op);
    be_put(ram, slot + SBA200_UNET_CMD_STATUS_OFS, SBA200_UNET_CMD_STATUS_PENDING);
    cmd_prod++;
    CHECK_EQ(OPS->reg_write(card, NICSHIM_RANGE_SBA200_RAM, SBA200_UNET_UG_OFS + SBA200_UNET_UG_CMD_PROD_OFS,
                            cmd_prod),
             NICSHIM_OK);
    return slot;
}

/** Issues one command, runs the card, returns w1. */
static uint32_t cmd(uint32_t op, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t a4) {
    uint32_t slot = post_cmd(op, a0, a1, a2, a3, a4);
    uint32_t ev = work();
    CHECK((ev & NICSHIM_EV_CMD_DONE) != 0);
    return be_get(ram, slot + SBA200_UNET_CMD_STATUS_OFS);
}

static uint32_t cmd_error(uint32_t code) {
    return SBA200_UNET_CMD_STATUS_ERROR | code << SBA200_UNET_CMD_ERROR_SHIFT;
}

/** A segment and a receive queue in fresh DMA regions, and EP_CREATE. */
static uint8_t *seg_host[2];
static uint8_t *rq_host[2];

static void create_ep(uint32_t ep, uint32_t seg_bus, uint32_t rq_bus, uint32_t rq_len) {
    seg_host[ep] = fake_add_region(S, seg_bus, SEG_LEN);
    rq_host[ep] = fake_add_region(S, rq_bus, (uint64_t)rq_len * SBA200_UNET_RQ_ENTRY_SIZE);
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, ep, seg_bus, SEG_LEN, rq_bus, rq_len), SBA200_UNET_CMD_STATUS_DONE);
}

static void open_chan(uint32_t ep, uint32_t chan, uint32_t vpi, uint32_t tx_vci, uint32_t rx_vci) {
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_OPEN, ep, chan, vpi, tx_vci, rx_vci), SBA200_UNET_CMD_STATUS_DONE);
}

/* ---- the endpoint owner: UnetSendQueue / UnetFreeQueue / UnetReceiveQueue */

static uint32_t sq_slot(uint32_t ep) {
    return SBA200_UNET_SQ_SLOT_OFFSET(epcb(ep, SBA200_UNET_EPCB_SQ_PROD_OFS) & (SBA200_UNET_SQ_LEN - 1));
}

static void ring_sq(uint32_t ep) {
    uint32_t prod = epcb(ep, SBA200_UNET_EPCB_SQ_PROD_OFS) + 1;
    be_put(page(ep), SBA200_UNET_EPCB_SQ_PROD_OFS, prod);
}

/** A descriptor with raw w0 and buffer pairs; returns its page offset. */
static uint32_t post_raw(uint32_t ep, uint32_t w0, uint32_t nbufs, const uint32_t *offs, const uint32_t *lens) {
    uint32_t d = sq_slot(ep);
    for (uint32_t i = 0; i < nbufs && i < 6; i++) {
        be_put(page(ep), d + SBA200_UNET_SEND_DESC_BUFS_OFS + 8 * i, offs[i]);
        be_put(page(ep), d + SBA200_UNET_SEND_DESC_BUFS_OFS + 8 * i + 4, lens[i]);
    }
    be_put(page(ep), d + SBA200_UNET_SEND_DESC_STATUS_OFS, SBA200_UNET_TX_STATUS_PENDING);
    be_put(page(ep), d + SBA200_UNET_SEND_DESC_W0_OFS, w0);
    ring_sq(ep);
    return d;
}

static uint32_t w0_buffers(uint32_t chan, uint32_t len, uint32_t nbufs) {
    return SBA200_UNET_TX_VALID | nbufs << SBA200_UNET_TX_NBUFS_SHIFT | chan << SBA200_UNET_TX_CHAN_SHIFT | len;
}

static uint32_t post_buffers(uint32_t ep, uint32_t chan, uint32_t nbufs, const uint32_t *offs, const uint32_t *lens) {
    uint32_t len = 0;
    for (uint32_t i = 0; i < nbufs; i++) {
        len += lens[i];
    }
    return post_raw(ep, w0_buffers(chan, len, nbufs), nbufs, offs, lens);
}

static uint32_t post_inline(uint32_t ep, uint32_t chan, const void *bytes, uint32_t len) {
    uint32_t d = sq_slot(ep);
    memcpy(page(ep) + d + SBA200_UNET_SEND_DESC_INLINE_OFS, bytes, len);
    be_put(page(ep), d + SBA200_UNET_SEND_DESC_STATUS_OFS, SBA200_UNET_TX_STATUS_PENDING);
    be_put(page(ep), d + SBA200_UNET_SEND_DESC_W0_OFS,
         SBA200_UNET_TX_VALID | SBA200_UNET_TX_INLINE | chan << SBA200_UNET_TX_CHAN_SHIFT | len);
    ring_sq(ep);
    return d;
}

static uint32_t tx_status(uint32_t ep, uint32_t d) {
    return be_get(page(ep), d + SBA200_UNET_SEND_DESC_STATUS_OFS);
}

static void post_free(uint32_t ep, uint32_t off, uint32_t len) {
    uint32_t prod = epcb(ep, SBA200_UNET_EPCB_FQ_PROD_OFS);
    uint32_t slot = SBA200_UNET_FQ_SLOT_OFFSET(prod & (SBA200_UNET_FQ_LEN - 1));
    be_put(page(ep), slot, off);
    be_put(page(ep), slot + 4, len);
    be_put(page(ep), SBA200_UNET_EPCB_FQ_PROD_OFS, prod + 1);
}

static uint8_t *rq_desc(uint32_t ep, uint32_t index, uint32_t rq_len) {
    return rq_host[ep] + (index & (rq_len - 1)) * SBA200_UNET_RQ_ENTRY_SIZE;
}

/** The user consumes receive slot `index`: w0 := 0, rq_cons advanced. */
static void rq_release(uint32_t ep, uint32_t index, uint32_t rq_len) {
    be_put(rq_desc(ep, index, rq_len), 0, 0);
    be_put(page(ep), SBA200_UNET_EPCB_RQ_CONS_OFS, index + 1);
}

/* ---- frames */

static const uint8_t BROADCAST[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
static const uint8_t PEER[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x99};

static uint32_t cell_header(uint32_t vpi, uint32_t vci, uint32_t pti) {
    return vpi << SBA200_UNET_HDR_VPI_SHIFT | vci << SBA200_UNET_HDR_VCI_SHIFT | pti << SBA200_UNET_HDR_PTI_SHIFT;
}

/**
 * Builds a U-Net-over-Ethernet frame: tag length `pdu_len`, `carried` payload bytes (the pattern i * 7 + 1), then pad
 * bytes 0xEE up to `frame_len` (if longer). Returns the frame length.
 */
static uint32_t build_frame(uint8_t *f, const uint8_t *dst, uint16_t type, uint32_t header, uint32_t pdu_len,
                            uint32_t carried, uint32_t frame_len) {
    memcpy(f, dst, 6);
    memcpy(f + 6, PEER, 6);
    f[12] = (uint8_t)(type >> 8);
    f[13] = (uint8_t)type;
    be_put(f, 14, header);
    f[18] = (uint8_t)(pdu_len >> 8);
    f[19] = (uint8_t)pdu_len;
    f[20] = 0;
    f[21] = 0;
    for (uint32_t i = 0; i < carried; i++) {
        f[22 + i] = (uint8_t)(i * 7 + 1);
    }
    uint32_t len = 22 + carried;
    while (len < frame_len) {
        f[len++] = 0xEE;
    }
    return len;
}

static uint8_t frame[FAKE_FRAME_MAX];

static uint32_t rx(uint32_t vpi, uint32_t vci, uint32_t pdu_len) {
    uint32_t n = build_frame(frame, BROADCAST, NICSHIM_UNET_ETHERTYPE_DEFAULT, cell_header(vpi, vci, 1), pdu_len,
                             pdu_len, 60);
    return OPS->receive(card, frame, n);
}

static int pattern_ok(const uint8_t *p, uint32_t from, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (p[i] != (uint8_t)((from + i) * 7 + 1)) {
            return 0;
        }
    }
    return 1;
}

static uint32_t frame_be32(int i, uint32_t ofs) {
    return be_get(S->tx[i], ofs);
}

/* ============================================================================================ tests */

static void test_boot_values(void) {
    fake_init(S);
    card = OPS->create(S, NULL);
    ram = aligned_alloc(4096, NICSHIM_SBA200_RAM_SIZE);
    bcr = aligned_alloc(8, 8);
    memset(ram, 0xA5, NICSHIM_SBA200_RAM_SIZE);
    memset(bcr, 0xA5, 8);
    OPS->attach(card, NICSHIM_RANGE_SBA200_BCR, bcr);
    OPS->attach(card, NICSHIM_RANGE_SBA200_RAM, ram);
    CHECK_EQ(OPS->kind, NICSHIM_CARD_SBA200_UNET_ETH);
    CHECK_EQ(OPS->range_count, 2);
    CHECK_EQ(OPS->range_size[NICSHIM_RANGE_SBA200_BCR], 4);
    CHECK_EQ(OPS->range_size[NICSHIM_RANGE_SBA200_RAM], 0x40000);
    CHECK_EQ(be_get(ram, SBA200_UNET_MONITOR_OFS + SBA200_UNET_MONITOR_BOOT_STATUS_OFS), SBA200_UNET_BOOT_CP_RUNNING);
    CHECK_EQ(be_get(ram, SBA200_UNET_MONITOR_OFS + SBA200_UNET_MONITOR_APP_BASE_OFS), SBA200_UNET_FIRMWARE_OFS);
    CHECK_EQ(be_get(ram, SBA200_UNET_MONITOR_OFS + SBA200_UNET_MONITOR_VERSION_OFS), 0x00010000u);
    CHECK_EQ(be_get(ram, SBA200_UNET_MONITOR_OFS + SBA200_UNET_MONITOR_UART_SEND_OFS), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_MAGIC_OFS), SBA200_UNET_UG_MAGIC);
    CHECK_EQ(ug(SBA200_UNET_UG_VERSION_OFS), SBA200_UNET_UG_VERSION);
    CHECK_EQ(ug(SBA200_UNET_UG_MAX_ENDPOINTS_OFS), 32);
    CHECK_EQ(ug(SBA200_UNET_UG_EP_PAGE_BASE_OFS), SBA200_UNET_EP_PAGE_BASE);
    CHECK_EQ(ug(SBA200_UNET_UG_EP_PAGE_SIZE_OFS), SBA200_UNET_EP_PAGE_SIZE);
    CHECK_EQ(ug(SBA200_UNET_UG_CMDQ_BASE_OFS), SBA200_UNET_CMDQ_OFS);
    CHECK_EQ(ug(SBA200_UNET_UG_CMDQ_LEN_OFS), SBA200_UNET_CMDQ_LEN);
    CHECK_EQ(ug(SBA200_UNET_UG_CMD_PROD_OFS), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_CMD_CONS_OFS), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_INTR_ENABLE_OFS), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_UPCALL_PENDING_OFS), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_LINK_STATUS_OFS), 0); /* no link before start */
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_CELLS_RX_OFS), 0);
    CHECK_EQ(be_get(ram, SBA200_UNET_VCI_ENTRY_OFFSET(100)), 0);
    CHECK_EQ(epcb(31, SBA200_UNET_EPCB_EP_STATUS_OFS), 0);
    CHECK_EQ(be_get(bcr, 0), 0);
    uint32_t v = 0xDEAD;
    CHECK_EQ(OPS->reg_read(card, NICSHIM_RANGE_SBA200_BCR, 0, &v), NICSHIM_OK);
    CHECK_EQ(v, 0);
    CHECK_EQ(OPS->irq_level(card), 0);
    OPS->start(card);
    CHECK_EQ(ug(SBA200_UNET_UG_LINK_STATUS_OFS), SBA200_UNET_UG_LINK_CARRIER);
    CHECK_EQ(OPS->reg_read(card, NICSHIM_RANGE_SBA200_RAM, SBA200_UNET_UG_OFS, &v), NICSHIM_OK);
    CHECK_EQ(v, SBA200_UNET_UG_MAGIC);
    OPS->stop(card);
    CHECK_EQ(ug(SBA200_UNET_UG_LINK_STATUS_OFS), 0);
    OPS->start(card);
    cmd_prod = 0;
    teardown();
}

static void test_reset_and_release(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 8);
    open_chan(0, 0, 0, 40, 50);
    be_put(ram, 0x5000, 0x12345678); /* firmware scratch: cleared by the boot */
    be_put(ram, SBA200_UNET_UG_OFS + SBA200_UNET_UG_INTR_ENABLE_OFS, SBA200_UNET_UG_INTR_ENABLE);
    CHECK_EQ(cmd(SBA200_UNET_OP_NOP | SBA200_UNET_CMD_IRQ, 0, 0, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(OPS->irq_level(card), 1);

    CHECK_EQ(OPS->reg_write(card, NICSHIM_RANGE_SBA200_BCR, 0, SBA200_UNET_BCR_RESET), NICSHIM_OK);
    CHECK_EQ(be_get(ram, SBA200_UNET_MONITOR_OFS + SBA200_UNET_MONITOR_BOOT_STATUS_OFS), SBA200_UNET_BOOT_COLD_START);
    /* In reset the firmware does nothing: a command stays pending, a frame is not taken. */
    uint32_t slot = post_cmd(SBA200_UNET_OP_NOP, 0, 0, 0, 0, 0);
    CHECK_EQ(work(), 0);
    CHECK_EQ(be_get(ram, slot + SBA200_UNET_CMD_STATUS_OFS), SBA200_UNET_CMD_STATUS_PENDING);
    CHECK_EQ(ug(SBA200_UNET_UG_CMD_CONS_OFS), 3); /* EP_CREATE, CH_OPEN and the first NOP only */
    CHECK_EQ(rx(0, 50, 4), NICSHIM_EV_RX_STALL);
    CHECK_EQ(S->stats[SHIM_STAT_RX_MISSED], 1);
    CHECK_EQ(be_get(rq_host[0], 0), 0);

    CHECK_EQ(OPS->reg_write(card, NICSHIM_RANGE_SBA200_BCR, 0, SBA200_UNET_BCR_RELEASE), NICSHIM_OK);
    CHECK_EQ(be_get(ram, SBA200_UNET_MONITOR_OFS + SBA200_UNET_MONITOR_BOOT_STATUS_OFS), SBA200_UNET_BOOT_CP_RUNNING);
    CHECK_EQ(be_get(ram, 0x5000), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_MAGIC_OFS), SBA200_UNET_UG_MAGIC);
    CHECK_EQ(ug(SBA200_UNET_UG_CMD_PROD_OFS), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_CMD_CONS_OFS), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_INTR_ENABLE_OFS), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_LINK_STATUS_OFS), SBA200_UNET_UG_LINK_CARRIER);
    CHECK_EQ(be_get(ram, SBA200_UNET_VCI_ENTRY_OFFSET(50)), 0);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_EP_STATUS_OFS), 0);
    CHECK_EQ(OPS->irq_level(card), 0); /* the boot lowers the line */
    /* The endpoint is forgotten: a frame for its old VCI is unknown, a channel command finds it inactive. */
    cmd_prod = 0;
    CHECK_EQ(rx(0, 50, 4), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_DROP_UNKNOWN_VCI_OFS), 1);
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_OPEN, 0, 1, 0, 41, 51), cmd_error(SBA200_UNET_CMD_ERR_EP_INACTIVE));
    /* BCR writes 0 without a reset asserted: nothing happens. */
    be_put(ram, 0x5000, 0x1);
    CHECK_EQ(OPS->reg_write(card, NICSHIM_RANGE_SBA200_BCR, 0, 0), NICSHIM_OK);
    CHECK_EQ(be_get(ram, 0x5000), 1);
    teardown();
}

static void test_command_sequence(void) {
    setup();
    seg_host[0] = fake_add_region(S, SEG_BUS, SEG_LEN);
    rq_host[0] = fake_add_region(S, RQ_BUS, 16 * 64);
    memset(rq_host[0], 0xFF, 16 * 64); /* stale VALID bits: EP_CREATE clears them */
    uint32_t slot = post_cmd(SBA200_UNET_OP_EP_CREATE, 3, SEG_BUS, SEG_LEN, RQ_BUS, 16);
    uint32_t slot2 = post_cmd(SBA200_UNET_OP_CH_OPEN, 3, 5, 7, 100, 200);
    uint32_t slot3 = post_cmd(SBA200_UNET_OP_NOP, 0, 0, 0, 0, 0);
    CHECK_EQ(OPS->work(card, NICSHIM_KICK_CMD, 2), NICSHIM_EV_CMD_DONE); /* budget 2: two of three */
    CHECK_EQ(be_get(ram, slot + SBA200_UNET_CMD_STATUS_OFS), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(be_get(ram, slot2 + SBA200_UNET_CMD_STATUS_OFS), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(be_get(ram, slot3 + SBA200_UNET_CMD_STATUS_OFS), SBA200_UNET_CMD_STATUS_PENDING);
    CHECK_EQ(ug(SBA200_UNET_UG_CMD_CONS_OFS), 2);
    CHECK_EQ(OPS->work(card, 0, 64), NICSHIM_EV_CMD_DONE); /* no kick: the firmware polls */
    CHECK_EQ(be_get(ram, slot3 + SBA200_UNET_CMD_STATUS_OFS), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(ug(SBA200_UNET_UG_CMD_CONS_OFS), 3);
    CHECK_EQ(OPS->work(card, 0, 64), 0);

    CHECK_EQ(epcb(3, SBA200_UNET_EPCB_EP_STATUS_OFS), SBA200_UNET_EP_ACTIVE);
    CHECK_EQ(epcb(3, SBA200_UNET_EPCB_RQ_LEN_OFS), 16);
    CHECK_EQ(epcb(3, SBA200_UNET_EPCB_SEG_LEN_OFS), SEG_LEN);
    CHECK_EQ(epcb(3, SBA200_UNET_EPCB_SQ_CONS_OFS), 0);
    for (int i = 0; i < 16; i++) {
        CHECK_EQ(be_get(rq_host[0], (uint32_t)i * 64), 0);
    }
    CHECK_EQ(be_get(rq_host[0], 4), 0xFFFFFFFFu); /* only w0 is cleared */
    CHECK_EQ(be_get(ram, SBA200_UNET_VCI_ENTRY_OFFSET(200)), SBA200_UNET_VCI_ENTRY(3, 5, 7));
    CHECK_EQ(be_get(ram, SBA200_UNET_VCI_ENTRY_OFFSET(200)), 0x83050007u);

    /* Every error code the firmware can give. */
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 32, SEG_BUS, SEG_LEN, RQ_BUS, 16),
             cmd_error(SBA200_UNET_CMD_ERR_BAD_ENDPOINT));
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 3, SEG_BUS, SEG_LEN, RQ_BUS, 16), cmd_error(SBA200_UNET_CMD_ERR_EP_ACTIVE));
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 4, SEG_BUS + 32, 64, RQ_BUS, 16),
             cmd_error(SBA200_UNET_CMD_ERR_BAD_SEGMENT));
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 4, SEG_BUS, 0, RQ_BUS, 16), cmd_error(SBA200_UNET_CMD_ERR_BAD_SEGMENT));
    CHECK_EQ(S->stats[SHIM_STAT_BUS_ERRORS], 0);
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 4, SEG_BUS, SEG_LEN + 64, RQ_BUS, 16),
             cmd_error(SBA200_UNET_CMD_ERR_BAD_SEGMENT)); /* runs past the region */
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 4, 0x0F000000u, 64, RQ_BUS, 16),
             cmd_error(SBA200_UNET_CMD_ERR_BAD_SEGMENT)); /* in no region */
    CHECK_EQ(S->stats[SHIM_STAT_BUS_ERRORS], 2);
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 4, SEG_BUS, 64, RQ_BUS, 3), cmd_error(SBA200_UNET_CMD_ERR_BAD_RQ));
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 4, SEG_BUS, 64, RQ_BUS, 1), cmd_error(SBA200_UNET_CMD_ERR_BAD_RQ));
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 4, SEG_BUS, 64, RQ_BUS, 8192), cmd_error(SBA200_UNET_CMD_ERR_BAD_RQ));
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 4, SEG_BUS, 64, RQ_BUS, 0x80000000u), cmd_error(SBA200_UNET_CMD_ERR_BAD_RQ));
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 4, SEG_BUS, 64, RQ_BUS + 8, 16), cmd_error(SBA200_UNET_CMD_ERR_BAD_RQ));
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 4, SEG_BUS, 64, RQ_BUS, 32), cmd_error(SBA200_UNET_CMD_ERR_BAD_RQ));
    CHECK_EQ(S->stats[SHIM_STAT_BUS_ERRORS], 3);
    /* A receive queue whose host memory is not word-aligned (under a 64-aligned bus address) cannot take words. */
    uint8_t *odd = malloc(16 * 64 + 8);
    S->regions[S->region_count++] = (fake_region_t){0x00500000u, odd + 2, 16 * 64};
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 4, SEG_BUS, 64, 0x00500000u, 16), cmd_error(SBA200_UNET_CMD_ERR_BAD_RQ));
    S->region_count--;
    free(odd);
    CHECK_EQ(epcb(4, SBA200_UNET_EPCB_EP_STATUS_OFS), 0);
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_OPEN, 3, 64, 0, 100, 201), cmd_error(SBA200_UNET_CMD_ERR_BAD_CHANNEL));
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_OPEN, 3, 5, 0, 100, 201), cmd_error(SBA200_UNET_CMD_ERR_CHANNEL_OPEN));
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_OPEN, 3, 6, 256, 100, 201), cmd_error(SBA200_UNET_CMD_ERR_BAD_VCI));
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_OPEN, 3, 6, 0, 31, 201), cmd_error(SBA200_UNET_CMD_ERR_BAD_VCI));
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_OPEN, 3, 6, 0, 100, 1024), cmd_error(SBA200_UNET_CMD_ERR_BAD_VCI));
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_OPEN, 3, 6, 0, 100, 200), cmd_error(SBA200_UNET_CMD_ERR_VCI_IN_USE));
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_OPEN, 9, 6, 0, 100, 201), cmd_error(SBA200_UNET_CMD_ERR_EP_INACTIVE));
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_OPEN, 99, 6, 0, 100, 201), cmd_error(SBA200_UNET_CMD_ERR_BAD_ENDPOINT));
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_CLOSE, 3, 6, 0, 0, 0), cmd_error(SBA200_UNET_CMD_ERR_BAD_CHANNEL));
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_CLOSE, 3, 64, 0, 0, 0), cmd_error(SBA200_UNET_CMD_ERR_BAD_CHANNEL));
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_UPCALL, 3, 4, 0, 0, 0), cmd_error(SBA200_UNET_CMD_ERR_BAD_MODE));
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_UPCALL, 3, 0xFF, 0, 0, 0), cmd_error(SBA200_UNET_CMD_ERR_BAD_MODE));
    /* The TX VCI of open channel 5 (100) is refused to another channel: the firmware protects the tags. */
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_OPEN, 3, 6, 0, 100, 201), cmd_error(SBA200_UNET_CMD_ERR_VCI_IN_USE));
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_UPCALL, 3, SBA200_UNET_UPCALL_BOTH, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_UPCALL, 3, SBA200_UNET_UPCALL_ALMOST_FULL, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(epcb(3, SBA200_UNET_EPCB_UPCALL_MODE_OFS), SBA200_UNET_UPCALL_ALMOST_FULL);
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_DESTROY, 7, 0, 0, 0, 0), cmd_error(SBA200_UNET_CMD_ERR_EP_INACTIVE));
    CHECK_EQ(cmd(0x55, 0, 0, 0, 0, 0), cmd_error(SBA200_UNET_CMD_ERR_BAD_OPCODE));
    CHECK_EQ(S->stats[SHIM_STAT_CARD_ERRORS], 28);

    /* GET_STATS: the counter block as it is in RAM (big-endian words), by DMA; a bad address is a DMA error. */
    uint8_t *stats = fake_add_region(S, STATS_BUS, 64);
    CHECK_EQ(cmd(SBA200_UNET_OP_GET_STATS, STATS_BUS + 8, 0, 0, 0, 0), cmd_error(SBA200_UNET_CMD_ERR_DMA));
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_DMA_ERRORS_OFS), 1);
    CHECK_EQ(S->stats[SHIM_STAT_BUS_ERRORS], 4);
    CHECK_EQ(cmd(SBA200_UNET_OP_GET_STATS, STATS_BUS, 0, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    CHECK(memcmp(stats, ram + SBA200_UNET_UG_OFS + SBA200_UNET_UG_STATS_OFS, 64) == 0);
    CHECK_EQ(be_get(stats, 0x2C), 1); /* dma_errors */

    /* CH_CLOSE and EP_DESTROY take the VCIs out of the table and clear the page. */
    open_chan(3, 6, 0, 101, 201);
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_CLOSE, 3, 5, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(be_get(ram, SBA200_UNET_VCI_ENTRY_OFFSET(200)), 0);
    CHECK_EQ(be_get(ram, SBA200_UNET_VCI_ENTRY_OFFSET(201)), SBA200_UNET_VCI_ENTRY(3, 6, 0));
    be_put(ram, SBA200_UNET_UG_OFS + SBA200_UNET_UG_UPCALL_PENDING_OFS, 0x9u); /* bits 0 and 3 */
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_DESTROY, 3, 0, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(be_get(ram, SBA200_UNET_VCI_ENTRY_OFFSET(201)), 0);
    CHECK_EQ(epcb(3, SBA200_UNET_EPCB_EP_STATUS_OFS), 0);
    CHECK_EQ(epcb(3, SBA200_UNET_EPCB_RQ_LEN_OFS), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_UPCALL_PENDING_OFS), 0x1u);
    /* The endpoint number is free again. */
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_CREATE, 3, SEG_BUS, SEG_LEN, RQ_BUS, 16), SBA200_UNET_CMD_STATUS_DONE);
    open_chan(3, 5, 7, 100, 200);

    /* An impossible producer index (more than 16 ahead) is never trusted. */
    uint32_t cons = ug(SBA200_UNET_UG_CMD_CONS_OFS);
    be_put(ram, SBA200_UNET_UG_OFS + SBA200_UNET_UG_CMD_PROD_OFS, cons + 17);
    CHECK_EQ(work(), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_CMD_CONS_OFS), cons);
    be_put(ram, SBA200_UNET_UG_OFS + SBA200_UNET_UG_CMD_PROD_OFS, cons);
    CHECK(ug(SBA200_UNET_UG_HEARTBEAT_OFS) > 0);
    teardown();
}

static void test_send_inline_frame(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 8);
    open_chan(0, 2, 1, 40, 50);
    uint64_t before = S->stats[SHIM_STAT_TX_FRAMES];
    uint32_t d = post_inline(0, 2, "hello", 5);
    CHECK_EQ(OPS->work(card, NICSHIM_KICK_TX, 64), NICSHIM_EV_TX_DONE);
    CHECK_EQ(S->tx_count, 1);
    CHECK_EQ(S->tx_len[0], 27);
    static const uint8_t expect[27] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0x00, 0x00, 0x00,
                                       0x00, 0x01, 0x88, 0xB5, 0x00, 0x10, 0x02, 0x82, 0x00, 0x05,
                                       0x00, 0x00, 'h',  'e',  'l',  'l',  'o'};
    CHECK(memcmp(S->tx[0], expect, sizeof(expect)) == 0);
    CHECK_EQ(frame_be32(0, 14), cell_header(1, 40, SBA200_UNET_PTI_AUU));
    CHECK_EQ(tx_status(0, d), SBA200_UNET_TX_STATUS_SENT);
    CHECK_EQ(be_get(page(0), d) & SBA200_UNET_TX_VALID, 0); /* VALID cleared, the rest of w0 kept */
    CHECK_EQ(be_get(page(0), d), SBA200_UNET_TX_INLINE | 2u << 16 | 5);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_SQ_CONS_OFS), 1);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_CELLS_TX_OFS), 1);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_PDUS_TX_OFS), 1);
    CHECK_EQ(S->stats[SHIM_STAT_TX_FRAMES] - before, 1);
    CHECK_EQ(S->stats[SHIM_STAT_TX_BYTES], 27);
    /* A 40-byte inline PDU is the largest. */
    uint8_t forty[40];
    for (int i = 0; i < 40; i++) {
        forty[i] = (uint8_t)(0xC0 + i);
    }
    post_inline(0, 2, forty, 40);
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(S->tx_len[1], 62);
    CHECK_EQ(S->tx[1][18], 0);
    CHECK_EQ(S->tx[1][19], 40);
    CHECK(memcmp(S->tx[1] + 22, forty, 40) == 0);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_CELLS_TX_OFS), 2);
    CHECK_EQ(work(), 0); /* nothing left */
    teardown();
}

static void test_send_buffered_frame(void) {
    nicshim_options_t o;
    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.unet_ethertype = 0x1234;
    static const uint8_t dst[6] = {0x02, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE};
    memcpy(o.unet_dst_mac, dst, 6);
    setup_with(&o);
    S->mac[5] = 0x42;
    create_ep(0, SEG_BUS, RQ_BUS, 8);
    open_chan(0, 63, 255, 1023, 50);
    for (uint32_t i = 0; i < SEG_LEN; i++) {
        seg_host[0][i] = (uint8_t)(i ^ (i >> 8));
    }
    uint32_t offs[3] = {0x100, 0x40, SEG_LEN - 30};
    uint32_t lens[3] = {50, 20, 30};
    uint32_t d = post_buffers(0, 63, 3, offs, lens);
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(S->tx_count, 1);
    CHECK_EQ(S->tx_len[0], 122);
    CHECK(memcmp(S->tx[0], dst, 6) == 0);
    CHECK_EQ(S->tx[0][11], 0x42);
    CHECK_EQ(S->tx[0][12], 0x12);
    CHECK_EQ(S->tx[0][13], 0x34);
    CHECK_EQ(frame_be32(0, 14), 0x0FF03FF2u); /* VPI 255, VCI 1023, PTI 001 */
    CHECK_EQ(frame_be32(0, 18), 100u << 16);
    CHECK(memcmp(S->tx[0] + 22, seg_host[0] + 0x100, 50) == 0);
    CHECK(memcmp(S->tx[0] + 72, seg_host[0] + 0x40, 20) == 0);
    CHECK(memcmp(S->tx[0] + 92, seg_host[0] + SEG_LEN - 30, 30) == 0);
    CHECK_EQ(tx_status(0, d), SBA200_UNET_TX_STATUS_SENT);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_CELLS_TX_OFS), 3); /* ceil((100 + 8) / 48) */
    CHECK_EQ(S->stats[SHIM_STAT_TX_BYTES], 122);
    CHECK_EQ(S->stats[SHIM_STAT_TX_BAD_DESCRIPTOR], 0);
    /* The receive side uses the configured EtherType too: the default one is now someone else's. */
    uint32_t n = build_frame(frame, BROADCAST, 0x1234, cell_header(255, 50, 1), 4, 4, 60);
    CHECK_EQ(OPS->receive(card, frame, n), NICSHIM_EV_RX);
    n = build_frame(frame, BROADCAST, NICSHIM_UNET_ETHERTYPE_DEFAULT, cell_header(0, 50, 1), 4, 4, 60);
    CHECK_EQ(OPS->receive(card, frame, n), 0);
    CHECK_EQ(S->stats[SHIM_STAT_RX_DROP_FILTER], 1);
    CHECK_EQ(S->stats[SHIM_STAT_RX_FRAMES], 1);
    teardown();
}

static void test_send_ring_full_and_round_robin(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 8);
    create_ep(1, SEG1_BUS, RQ1_BUS, 8);
    open_chan(0, 0, 0, 40, 50);
    open_chan(1, 0, 0, 41, 51);
    S->tx_capacity = 0;
    uint32_t d = post_inline(0, 0, "a", 1);
    CHECK_EQ(work(), 0);
    CHECK_EQ(tx_status(0, d), SBA200_UNET_TX_STATUS_PENDING);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_SQ_CONS_OFS), 0);
    CHECK(be_get(page(0), d) & SBA200_UNET_TX_VALID);
    CHECK_EQ(S->tx_reserved, 0);
    post_inline(0, 0, "b", 1);
    post_inline(1, 0, "x", 1);
    post_inline(1, 0, "y", 1);
    S->tx_capacity = 2;
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(S->tx_count, 2);
    CHECK_EQ(tx_status(0, d), SBA200_UNET_TX_STATUS_SENT);
    S->tx_capacity = FAKE_MAX_TX;
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(S->tx_count, 4);
    /* Round robin: ep 0, ep 1, ep 0, ep 1 - and the blocked descriptor went first. */
    const char order[4] = {'a', 'x', 'b', 'y'};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(S->tx[i][22], (uint8_t)order[i]);
    }
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_SQ_CONS_OFS), 2);
    CHECK_EQ(epcb(1, SBA200_UNET_EPCB_SQ_CONS_OFS), 2);
    /* Budget: at most `budget` descriptors per call. */
    for (int i = 0; i < 5; i++) {
        post_inline(0, 0, "z", 1);
    }
    CHECK_EQ(OPS->work(card, NICSHIM_KICK_TX, 3), NICSHIM_EV_TX_DONE);
    CHECK_EQ(S->tx_count, 7);
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(S->tx_count, 9);
    /* Stopped: nothing is sent until the link is open again. */
    OPS->stop(card);
    post_inline(1, 0, "s", 1);
    CHECK_EQ(work(), 0);
    CHECK_EQ(S->tx_count, 9);
    OPS->start(card);
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(S->tx_count, 10);
    teardown();
}

static void test_bad_descriptors(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 8);
    open_chan(0, 0, 0, 40, 50);
    uint32_t offs[7] = {0, 64, 128, 192, 256, 320, 384};
    uint32_t lens[7] = {10, 10, 10, 10, 10, 10, 10};
    uint32_t big[1] = {0x10000};
    uint32_t d[9];
    d[0] = post_raw(0, w0_buffers(0, 10, 1) & ~SBA200_UNET_TX_VALID, 1, offs, lens);  /* no VALID */
    d[1] = post_raw(0, w0_buffers(0, 0, 1), 1, offs, lens);                             /* length 0 */
    d[2] = post_raw(0, w0_buffers(0, 10, 0), 0, offs, lens);                            /* nbufs 0 */
    d[3] = post_raw(0, w0_buffers(0, 70, 7), 7, offs, lens);                            /* nbufs 7 */
    d[4] = post_raw(0, w0_buffers(0, 25, 2), 2, offs, lens);                            /* 10 + 10 != 25 */
    d[5] = post_raw(0, w0_buffers(5, 10, 1), 1, offs, lens);                            /* channel not open */
    d[6] = post_raw(0, SBA200_UNET_TX_VALID | SBA200_UNET_TX_INLINE | 41, 0, offs, lens); /* inline > 40 */
    d[7] = post_raw(0, w0_buffers(0, 0xFFFF, 1), 1, offs, big);                         /* buffer > 65535 */
    uint32_t m = post_buffers(0, 0, 1, offs, lens);                                     /* a good one */
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    static const uint32_t expect[8] = {SBA200_UNET_TX_STATUS_BAD_DESC,    SBA200_UNET_TX_STATUS_BAD_DESC,
                                       SBA200_UNET_TX_STATUS_BAD_DESC,    SBA200_UNET_TX_STATUS_BAD_DESC,
                                       SBA200_UNET_TX_STATUS_BAD_DESC,    SBA200_UNET_TX_STATUS_BAD_CHANNEL,
                                       SBA200_UNET_TX_STATUS_TOO_LONG,    SBA200_UNET_TX_STATUS_TOO_LONG};
    for (int i = 0; i < 8; i++) {
        CHECK_EQ(tx_status(0, d[i]), expect[i]);
        CHECK_EQ(be_get(page(0), d[i]) & SBA200_UNET_TX_VALID, 0);
    }
    CHECK_EQ(tx_status(0, m), SBA200_UNET_TX_STATUS_SENT);
    CHECK_EQ(S->tx_count, 1);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_TX_REJECTED_OFS), 8);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_TX_REJECTED_OFS), 8);
    CHECK_EQ(S->stats[SHIM_STAT_TX_BAD_DESCRIPTOR], 8);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_EP_STATUS_OFS), SBA200_UNET_EP_ACTIVE); /* none was a segment fault */
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_SQ_CONS_OFS), 9);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_PDUS_TX_OFS), 1);

    /* The link's limit: a PDU longer than MTU - 8 is TOO_LONG, counted as tx_drop_too_long. */
    S->mtu = 108;
    uint32_t l100[1] = {100};
    uint32_t l101[1] = {101};
    uint32_t ok = post_buffers(0, 0, 1, offs, l100);
    uint32_t too = post_buffers(0, 0, 1, offs, l101);
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(tx_status(0, ok), SBA200_UNET_TX_STATUS_SENT);
    CHECK_EQ(S->tx_len[1], 122);
    CHECK_EQ(tx_status(0, too), SBA200_UNET_TX_STATUS_TOO_LONG);
    CHECK_EQ(S->stats[SHIM_STAT_TX_DROP_TOO_LONG], 1);
    CHECK_EQ(S->stats[SHIM_STAT_TX_BAD_DESCRIPTOR], 8);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_TX_REJECTED_OFS), 9);
    CHECK_EQ(S->tx_count, 2);

    /* An impossible sq_prod (more than 32 ahead) is never trusted: nothing is sent or completed. */
    be_put(page(0), SBA200_UNET_EPCB_SQ_PROD_OFS, epcb(0, SBA200_UNET_EPCB_SQ_PROD_OFS) + 33);
    CHECK_EQ(work(), 0);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_SQ_CONS_OFS), 11);
    teardown();
}

static void test_segment_bounds(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 8);
    open_chan(0, 0, 0, 40, 50);
    uint32_t offs1[1] = {SEG_LEN - 10};
    uint32_t lens1[1] = {11};
    uint32_t offs2[2] = {0, 0xFFFFFFF0u}; /* offset + length wraps 32 bits */
    uint32_t lens2[2] = {4, 0x20};
    uint32_t offs3[1] = {SEG_LEN - 10};
    uint32_t lens3[1] = {10};
    uint32_t d1 = post_buffers(0, 0, 1, offs1, lens1);
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(tx_status(0, d1), SBA200_UNET_TX_STATUS_SEG_BOUNDS);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_EP_STATUS_OFS), SBA200_UNET_EP_ACTIVE | SBA200_UNET_EP_SEGFAULT);
    uint32_t d2 = post_buffers(0, 0, 2, offs2, lens2);
    uint32_t d3 = post_buffers(0, 0, 1, offs3, lens3);
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(tx_status(0, d2), SBA200_UNET_TX_STATUS_SEG_BOUNDS);
    CHECK_EQ(tx_status(0, d3), SBA200_UNET_TX_STATUS_SENT); /* the last 10 bytes are the segment's own */
    CHECK_EQ(S->tx_count, 1);
    CHECK_EQ(S->stats[SHIM_STAT_TX_BAD_DESCRIPTOR], 2);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_TX_REJECTED_OFS), 2);
    CHECK_EQ(S->stats[SHIM_STAT_BUS_ERRORS], 0);
    teardown();
}

static void test_receive_inline_padded(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 8);
    open_chan(0, 9, 3, 40, 50);
    memset(rq_host[0], 0x5A, 64); /* a marker behind the inline bytes; VALID must stay clear for the card */
    be_put(rq_host[0], 0, 0);
    fake_set_time(5000000123ull);
    uint32_t n = build_frame(frame, BROADCAST, NICSHIM_UNET_ETHERTYPE_DEFAULT, cell_header(3, 50, 1), 3, 3, 60);
    CHECK_EQ(n, 60);
    CHECK_EQ(OPS->receive(card, frame, n), NICSHIM_EV_RX);
    uint8_t *r = rq_desc(0, 0, 8);
    CHECK_EQ(be_get(r, 0), SBA200_UNET_RX_VALID | SBA200_UNET_RX_INLINE | 9u << 16 | 3);
    CHECK_EQ(be_get(r, 4), 0);
    CHECK(pattern_ok(r + 8, 0, 3));
    CHECK_EQ(r[11], 0x5A); /* exactly LEN bytes: the pad is not written */
    CHECK_EQ(be_get(r, 56), 0);
    CHECK_EQ(be_get(r, 60), 5000000u);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_RQ_PROD_SHADOW_OFS), 1);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_PDUS_RX_OFS), 1);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_CELLS_RX_OFS), 1);
    CHECK_EQ(S->stats[SHIM_STAT_RX_FRAMES], 1);
    CHECK_EQ(S->stats[SHIM_STAT_RX_BYTES], 60);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_FQ_CONS_OFS), 0); /* inline takes no free buffer */
    /* 40 bytes is still inline; unpadded frames work too; a frame to this station's own MAC is taken. */
    uint8_t own[6];
    memcpy(own, S->mac, 6);
    n = build_frame(frame, own, NICSHIM_UNET_ETHERTYPE_DEFAULT, cell_header(3, 50, 1), 40, 40, 0);
    CHECK_EQ(n, 62);
    CHECK_EQ(OPS->receive(card, frame, n), NICSHIM_EV_RX);
    r = rq_desc(0, 1, 8);
    CHECK_EQ(be_get(r, 0), SBA200_UNET_RX_VALID | SBA200_UNET_RX_INLINE | 9u << 16 | 40);
    CHECK(pattern_ok(r + 8, 0, 40));
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_RQ_PROD_SHADOW_OFS), 2);
    /* EFCI set on the way (PTI 011) is still user data. */
    n = build_frame(frame, BROADCAST, NICSHIM_UNET_ETHERTYPE_DEFAULT, cell_header(3, 50, 3), 1, 1, 60);
    CHECK_EQ(OPS->receive(card, frame, n), NICSHIM_EV_RX);
    teardown();
}

static void test_receive_multi_buffer(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 8);
    open_chan(0, 1, 0, 40, 50);
    memset(seg_host[0], 0x77, SEG_LEN);
    post_free(0, 0x000, 64);
    post_free(0, 0x100, 64);
    post_free(0, 0x200, 64);
    post_free(0, 0x300, 64);
    CHECK_EQ(rx(0, 50, 150), NICSHIM_EV_RX);
    uint8_t *r = rq_desc(0, 0, 8);
    CHECK_EQ(be_get(r, 0), SBA200_UNET_RX_VALID | 3u << 24 | 1u << 16 | 150);
    CHECK_EQ(be_get(r, 4), 0);
    CHECK_EQ(be_get(r, 8), 0x000);
    CHECK_EQ(be_get(r, 12), 64);
    CHECK_EQ(be_get(r, 16), 0x100);
    CHECK_EQ(be_get(r, 20), 64);
    CHECK_EQ(be_get(r, 24), 0x200);
    CHECK_EQ(be_get(r, 28), 22);
    CHECK(pattern_ok(seg_host[0] + 0x000, 0, 64));
    CHECK(pattern_ok(seg_host[0] + 0x100, 64, 64));
    CHECK(pattern_ok(seg_host[0] + 0x200, 128, 22));
    CHECK_EQ(seg_host[0][0x200 + 22], 0x77); /* exactly LEN bytes */
    CHECK_EQ(seg_host[0][0x40], 0x77);
    CHECK_EQ(seg_host[0][0x300], 0x77);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_FQ_CONS_OFS), 3);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_CELLS_RX_OFS), 4); /* ceil(158 / 48) */
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_PDUS_RX_OFS), 1);
    CHECK_EQ(S->stats[SHIM_STAT_RX_FRAMES], 1);
    CHECK_EQ(S->stats[SHIM_STAT_RX_BYTES], 22 + 150);
    /* A 41-byte PDU is not inline: it takes the last buffer. */
    CHECK_EQ(rx(0, 50, 41), NICSHIM_EV_RX);
    r = rq_desc(0, 1, 8);
    CHECK_EQ(be_get(r, 0), SBA200_UNET_RX_VALID | 1u << 24 | 1u << 16 | 41);
    CHECK_EQ(be_get(r, 8), 0x300);
    CHECK_EQ(be_get(r, 12), 41);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_FQ_CONS_OFS), 4);
    /* A buffer larger than the PDU: one buffer holds it all. */
    post_free(0, 0x1000, 0x800);
    CHECK_EQ(rx(0, 50, 1400), NICSHIM_EV_RX);
    r = rq_desc(0, 2, 8);
    CHECK_EQ(be_get(r, 0), SBA200_UNET_RX_VALID | 1u << 24 | 1u << 16 | 1400);
    CHECK_EQ(be_get(r, 12), 1400);
    CHECK(pattern_ok(seg_host[0] + 0x1000, 0, 1400));
    teardown();
}

static void test_receive_drops(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 8);
    open_chan(0, 0, 2, 40, 50);
    /* Unknown VCI, VPI mismatch, VCI beyond the table: the card's counter and the shim's no-channel drop. */
    CHECK_EQ(rx(2, 51, 4), 0);
    CHECK_EQ(rx(1, 50, 4), 0);
    CHECK_EQ(rx(2, 50 + 1024, 4), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_DROP_UNKNOWN_VCI_OFS), 3);
    CHECK_EQ(S->stats[SHIM_STAT_RX_DROP_NO_CHANNEL], 3);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_CELLS_RX_OFS), 3);
    /* The SBA-200 drops (and counts) every cell of a PDU on an unknown VCI: a 100-byte PDU is 3 cells on ATM. */
    CHECK_EQ(rx(2, 51, 100), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_DROP_UNKNOWN_VCI_OFS), 3 + 3);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_CELLS_RX_OFS), 3 + 3);
    CHECK_EQ(S->stats[SHIM_STAT_RX_DROP_NO_CHANNEL], 4);
    /* Not our EtherType, or unicast to another station: the filter. */
    uint32_t n = build_frame(frame, BROADCAST, 0x0800, cell_header(2, 50, 1), 4, 4, 60);
    CHECK_EQ(OPS->receive(card, frame, n), 0);
    n = build_frame(frame, PEER, NICSHIM_UNET_ETHERTYPE_DEFAULT, cell_header(2, 50, 1), 4, 4, 60);
    CHECK_EQ(OPS->receive(card, frame, n), 0);
    CHECK_EQ(S->stats[SHIM_STAT_RX_DROP_FILTER], 2);
    /* Malformed: shorter than header + tag, PDU length beyond the bytes carried, a non-user (OAM) PTI. */
    n = build_frame(frame, BROADCAST, NICSHIM_UNET_ETHERTYPE_DEFAULT, cell_header(2, 50, 1), 4, 4, 60);
    CHECK_EQ(OPS->receive(card, frame, 21), 0);
    CHECK_EQ(OPS->receive(card, frame, 10), 0);
    n = build_frame(frame, BROADCAST, NICSHIM_UNET_ETHERTYPE_DEFAULT, cell_header(2, 50, 1), 39, 38, 0);
    CHECK_EQ(OPS->receive(card, frame, n), 0);
    n = build_frame(frame, BROADCAST, NICSHIM_UNET_ETHERTYPE_DEFAULT, cell_header(2, 50, 1), 39, 38, 64);
    CHECK_EQ(OPS->receive(card, frame, n), NICSHIM_EV_RX); /* the pad covers it: 39 bytes are carried */
    CHECK_EQ(be_get(rq_desc(0, 0, 8), 0), SBA200_UNET_RX_VALID | SBA200_UNET_RX_INLINE | 39);
    CHECK_EQ(rq_desc(0, 0, 8)[8 + 38], 0xEE);
    n = build_frame(frame, BROADCAST, NICSHIM_UNET_ETHERTYPE_DEFAULT, cell_header(2, 50, 5), 4, 4, 60);
    CHECK_EQ(OPS->receive(card, frame, n), 0);
    CHECK_EQ(S->stats[SHIM_STAT_RX_DROP_BAD_FRAME], 4);
    CHECK_EQ(S->stats[SHIM_STAT_RX_FRAMES], 1);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_HEC_ERRORS_OFS), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_AAL5_CRC_ERRORS_OFS), 0);
    /* PDU length 0 is AAL5's abort: an ERROR entry with code LENGTH, as the model reports it. */
    n = build_frame(frame, BROADCAST, NICSHIM_UNET_ETHERTYPE_DEFAULT, cell_header(2, 50, 1), 0, 0, 60);
    CHECK_EQ(OPS->receive(card, frame, n), NICSHIM_EV_RX);
    uint8_t *r = rq_desc(0, 1, 8);
    CHECK_EQ(be_get(r, 0), SBA200_UNET_RX_VALID | SBA200_UNET_RX_ERROR);
    CHECK_EQ(be_get(r, 4), SBA200_UNET_RX_ERR_LENGTH << 16);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_LENGTH_ERRORS_OFS), 1);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_RX_ERRORS_OFS), 1);
    CHECK_EQ(S->stats[SHIM_STAT_CARD_ERRORS], 1);
    /* A closed channel's VCI is unknown again. */
    CHECK_EQ(cmd(SBA200_UNET_OP_CH_CLOSE, 0, 0, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(rx(2, 50, 4), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_DROP_UNKNOWN_VCI_OFS), 7);
    teardown();
}

static void test_rq_overrun(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 2);
    open_chan(0, 0, 0, 40, 50);
    post_free(0, 0, 256);
    CHECK_EQ(rx(0, 50, 1), NICSHIM_EV_RX);
    CHECK_EQ(rx(0, 50, 2), NICSHIM_EV_RX);
    CHECK_EQ(rx(0, 50, 3), NICSHIM_EV_RX_STALL);  /* inline PDU, queue full */
    CHECK_EQ(rx(0, 50, 100), NICSHIM_EV_RX_STALL); /* multi-cell PDU: dropped before it takes buffers */
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_FQ_CONS_OFS), 0);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_DROP_RQ_FULL_OFS), 2);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_DROP_RQ_OVERRUN_OFS), 2);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_EP_STATUS_OFS), SBA200_UNET_EP_ACTIVE | SBA200_UNET_EP_RQ_OVERRUN);
    CHECK_EQ(S->stats[SHIM_STAT_RX_MISSED], 2);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_RQ_PROD_SHADOW_OFS), 2);
    CHECK_EQ(be_get(rq_desc(0, 0, 2), 0) & 0xFFFF, 1); /* the first entries are untouched */
    /* The user consumes the oldest entry: the next PDU lands in its slot. */
    rq_release(0, 0, 2);
    CHECK_EQ(rx(0, 50, 100), NICSHIM_EV_RX);
    CHECK_EQ(be_get(rq_desc(0, 2, 2), 0), SBA200_UNET_RX_VALID | 1u << 24 | 100);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_RQ_PROD_SHADOW_OFS), 3);
    CHECK_EQ(S->stats[SHIM_STAT_RX_FRAMES], 3);
    teardown();
}

static void test_free_buffer_exhaustion(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 16);
    open_chan(0, 4, 0, 40, 50);
    /* Two 64-byte buffers for a 200-byte PDU: NO_BUFFERS, listing the two buffers taken and 128 bytes. */
    post_free(0, 0x000, 64);
    post_free(0, 0x040, 64);
    CHECK_EQ(rx(0, 50, 200), NICSHIM_EV_RX | NICSHIM_EV_RX_STALL);
    uint8_t *r = rq_desc(0, 0, 16);
    CHECK_EQ(be_get(r, 0), SBA200_UNET_RX_VALID | SBA200_UNET_RX_ERROR | 2u << 24 | 4u << 16 | 128);
    CHECK_EQ(be_get(r, 4), SBA200_UNET_RX_ERR_NO_BUFFERS << 16);
    CHECK_EQ(be_get(r, 8), 0x000);
    CHECK_EQ(be_get(r, 12), 64);
    CHECK_EQ(be_get(r, 16), 0x040);
    CHECK_EQ(be_get(r, 20), 64);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_DROP_NO_FREE_BUF_OFS), 1);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_DROP_NO_FREE_BUF_OFS), 1);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_RX_ERRORS_OFS), 1);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_EP_STATUS_OFS), SBA200_UNET_EP_ACTIVE | SBA200_UNET_EP_NO_FREE_BUF);
    CHECK_EQ(S->stats[SHIM_STAT_RX_MISSED], 1);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_PDUS_RX_OFS), 0);
    /* Empty free queue: NO_BUFFERS with no buffer at all. */
    CHECK_EQ(rx(0, 50, 41), NICSHIM_EV_RX | NICSHIM_EV_RX_STALL);
    r = rq_desc(0, 1, 16);
    CHECK_EQ(be_get(r, 0), SBA200_UNET_RX_VALID | SBA200_UNET_RX_ERROR | 4u << 16);
    CHECK_EQ(be_get(r, 4), SBA200_UNET_RX_ERR_NO_BUFFERS << 16);
    /* Seven 64-byte buffers for 400 bytes: six are taken (384 bytes), then TOO_MANY_BUFS. */
    for (uint32_t i = 0; i < 7; i++) {
        post_free(0, 0x1000 + 64 * i, 64);
    }
    CHECK_EQ(rx(0, 50, 400), NICSHIM_EV_RX);
    r = rq_desc(0, 2, 16);
    CHECK_EQ(be_get(r, 0), SBA200_UNET_RX_VALID | SBA200_UNET_RX_ERROR | 6u << 24 | 4u << 16 | 384);
    CHECK_EQ(be_get(r, 4), SBA200_UNET_RX_ERR_TOO_MANY_BUFS << 16);
    CHECK_EQ(be_get(r, 8 + 8 * 5), 0x1000 + 64 * 5);
    CHECK(pattern_ok(seg_host[0] + 0x1000, 0, 384));
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_FQ_CONS_OFS), 2 + 6);
    CHECK_EQ(S->stats[SHIM_STAT_CARD_ERRORS], 1);
    /* Six buffers are enough for exactly 6 x 64 bytes. */
    for (uint32_t i = 0; i < 5; i++) {
        post_free(0, 0x2000 + 64 * i, 64);
    }
    CHECK_EQ(rx(0, 50, 384), NICSHIM_EV_RX);
    r = rq_desc(0, 3, 16);
    CHECK_EQ(be_get(r, 0), SBA200_UNET_RX_VALID | 6u << 24 | 4u << 16 | 384);
    CHECK_EQ(be_get(r, 8), 0x1000 + 64 * 6);
    /* A free buffer outside the segment, misaligned, or empty: a DMA error entry; the bad buffer is not listed. */
    memset(seg_host[0] + 0x3000, 0x33, 0x100);
    post_free(0, SEG_LEN, 64);
    CHECK_EQ(rx(0, 50, 100), NICSHIM_EV_RX);
    r = rq_desc(0, 4, 16);
    CHECK_EQ(be_get(r, 0), SBA200_UNET_RX_VALID | SBA200_UNET_RX_ERROR | 4u << 16);
    CHECK_EQ(be_get(r, 4), SBA200_UNET_RX_ERR_DMA << 16);
    post_free(0, 0x3000, 64);
    post_free(0, 0x3020, 64);
    CHECK_EQ(rx(0, 50, 100), NICSHIM_EV_RX);
    r = rq_desc(0, 5, 16);
    CHECK_EQ(be_get(r, 0), SBA200_UNET_RX_VALID | SBA200_UNET_RX_ERROR | 1u << 24 | 4u << 16 | 64);
    CHECK_EQ(be_get(r, 4), SBA200_UNET_RX_ERR_DMA << 16);
    post_free(0, 0x3080, 0);
    CHECK_EQ(rx(0, 50, 100), NICSHIM_EV_RX);
    CHECK_EQ(be_get(rq_desc(0, 6, 16), 4), SBA200_UNET_RX_ERR_DMA << 16);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_DMA_ERRORS_OFS), 3);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_EP_STATUS_OFS) & SBA200_UNET_EP_SEGFAULT, SBA200_UNET_EP_SEGFAULT);
    CHECK_EQ(seg_host[0][0x3040], 0x33); /* the misaligned buffer was never written */
    CHECK_EQ(S->stats[SHIM_STAT_CARD_ERRORS], 4);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_RX_ERRORS_OFS), 6);
    /* Two entries published; the first PDU takes one (the card has read fq_prod). A later impossible fq_prod does
     * not take back what was published: the second entry is still used (as the Java firmware's SPSC consumer
     * does); after it the impossible index is never trusted: the free queue reads as empty. */
    post_free(0, 0x3100, 256);
    post_free(0, 0x3200, 256);
    CHECK_EQ(rx(0, 50, 100), NICSHIM_EV_RX);
    CHECK_EQ(be_get(rq_desc(0, 7, 16), 8), 0x3100);
    be_put(page(0), SBA200_UNET_EPCB_FQ_PROD_OFS, epcb(0, SBA200_UNET_EPCB_FQ_CONS_OFS) + 1000);
    CHECK_EQ(rx(0, 50, 100), NICSHIM_EV_RX);
    CHECK_EQ(be_get(rq_desc(0, 8, 16), 0), SBA200_UNET_RX_VALID | 1u << 24 | 4u << 16 | 100);
    CHECK_EQ(be_get(rq_desc(0, 8, 16), 8), 0x3200);
    CHECK_EQ(rx(0, 50, 100), NICSHIM_EV_RX | NICSHIM_EV_RX_STALL);
    CHECK_EQ(be_get(rq_desc(0, 9, 16), 4), SBA200_UNET_RX_ERR_NO_BUFFERS << 16);
    teardown();
}

static void test_upcalls_and_interrupt(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 4);
    create_ep(1, SEG1_BUS, RQ1_BUS, 4);
    open_chan(0, 0, 0, 40, 50);
    open_chan(1, 0, 0, 41, 51);
    uint32_t pending_ofs = SBA200_UNET_UG_OFS + SBA200_UNET_UG_UPCALL_PENDING_OFS;
    uint32_t v;
    /* No upcall mode: nothing is signalled. */
    CHECK_EQ(rx(0, 50, 1), NICSHIM_EV_RX);
    CHECK_EQ(ug(SBA200_UNET_UG_UPCALL_PENDING_OFS), 0);
    rq_release(0, 0, 4); /* empty again: NONEMPTY is an edge */
    /* NONEMPTY with interrupts disabled: the pending bit, no interrupt. */
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_UPCALL, 0, SBA200_UNET_UPCALL_NONEMPTY, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(rx(0, 50, 1), NICSHIM_EV_RX);
    CHECK_EQ(ug(SBA200_UNET_UG_UPCALL_PENDING_OFS), 1u);
    CHECK_EQ(OPS->irq_level(card), 0);
    /* Enabled: the line rises, BCR reads 0x100 (also in the window). */
    CHECK_EQ(OPS->reg_write(card, NICSHIM_RANGE_SBA200_RAM, SBA200_UNET_UG_OFS + SBA200_UNET_UG_INTR_ENABLE_OFS,
                            SBA200_UNET_UG_INTR_ENABLE),
             NICSHIM_OK);
    CHECK_EQ(ug(SBA200_UNET_UG_INTR_ENABLE_OFS), SBA200_UNET_UG_INTR_ENABLE);
    /* Edge-triggered: a second message while the first is outstanding signals nothing new. */
    be_put(ram, pending_ofs, 0);
    CHECK_EQ(rx(0, 50, 1), NICSHIM_EV_RX);
    CHECK_EQ(ug(SBA200_UNET_UG_UPCALL_PENDING_OFS), 0);
    CHECK_EQ(OPS->irq_level(card), 0);
    rq_release(0, 1, 4);
    rq_release(0, 2, 4);
    CHECK_EQ(rx(0, 50, 1), NICSHIM_EV_RX);
    CHECK_EQ(OPS->irq_level(card), 1);
    CHECK_EQ(OPS->reg_read(card, NICSHIM_RANGE_SBA200_BCR, 0, &v), NICSHIM_OK);
    CHECK_EQ(v, SBA200_UNET_BCR_INTR_PENDING);
    CHECK_EQ(be_get(bcr, 0), SBA200_UNET_BCR_INTR_PENDING);
    /* The driver's serviceEvents: BCR clear first, then read and W1C the mask. */
    CHECK_EQ(OPS->reg_write(card, NICSHIM_RANGE_SBA200_BCR, 0, SBA200_UNET_BCR_CLEAR_INTR), NICSHIM_OK);
    CHECK_EQ(OPS->irq_level(card), 0);
    CHECK_EQ(OPS->reg_read(card, NICSHIM_RANGE_SBA200_BCR, 0, &v), NICSHIM_OK);
    CHECK_EQ(v, 0);
    CHECK_EQ(be_get(bcr, 0), 0);
    CHECK_EQ(OPS->reg_read(card, NICSHIM_RANGE_SBA200_RAM, pending_ofs, &v), NICSHIM_OK);
    CHECK_EQ(v, 1u);
    /* W1C leaves the bits it does not name (ep 1's, set by hand here) and never lowers the line itself. */
    be_put(ram, pending_ofs, 0x3u);
    CHECK_EQ(OPS->reg_write(card, NICSHIM_RANGE_SBA200_RAM, pending_ofs, 0x1u), NICSHIM_OK);
    CHECK_EQ(ug(SBA200_UNET_UG_UPCALL_PENDING_OFS), 0x2u);
    CHECK_EQ(OPS->reg_write(card, NICSHIM_RANGE_SBA200_RAM, pending_ofs, 0x2u), NICSHIM_OK);
    CHECK_EQ(ug(SBA200_UNET_UG_UPCALL_PENDING_OFS), 0);
    /* ALMOST_FULL (3/4 of RQ_LEN 4 = 3 outstanding) on endpoint 1. */
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_UPCALL, 1, SBA200_UNET_UPCALL_ALMOST_FULL, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(rx(0, 51, 1), NICSHIM_EV_RX);
    CHECK_EQ(rx(0, 51, 1), NICSHIM_EV_RX);
    CHECK_EQ(ug(SBA200_UNET_UG_UPCALL_PENDING_OFS), 0);
    CHECK_EQ(OPS->irq_level(card), 0);
    CHECK_EQ(rx(0, 51, 1), NICSHIM_EV_RX);
    CHECK_EQ(ug(SBA200_UNET_UG_UPCALL_PENDING_OFS), 0x2u);
    CHECK_EQ(OPS->irq_level(card), 1);
    CHECK_EQ(OPS->reg_write(card, NICSHIM_RANGE_SBA200_BCR, 0, SBA200_UNET_BCR_CLEAR_INTR), NICSHIM_OK);
    CHECK_EQ(OPS->reg_write(card, NICSHIM_RANGE_SBA200_RAM, pending_ofs, 0x2u), NICSHIM_OK);
    /* The user consumed two: 1 outstanding + 1 new = 2 < 3, no signal. */
    rq_release(1, 0, 4);
    rq_release(1, 1, 4);
    CHECK_EQ(rx(0, 51, 1), NICSHIM_EV_RX);
    CHECK_EQ(ug(SBA200_UNET_UG_UPCALL_PENDING_OFS), 0);
    CHECK_EQ(OPS->irq_level(card), 0);
    /* 3 outstanding: the threshold crossed again; 4: above it, no new edge. */
    CHECK_EQ(rx(0, 51, 1), NICSHIM_EV_RX);
    CHECK_EQ(ug(SBA200_UNET_UG_UPCALL_PENDING_OFS), 0x2u);
    CHECK_EQ(OPS->reg_write(card, NICSHIM_RANGE_SBA200_BCR, 0, SBA200_UNET_BCR_CLEAR_INTR), NICSHIM_OK);
    CHECK_EQ(OPS->reg_write(card, NICSHIM_RANGE_SBA200_RAM, pending_ofs, 0x2u), NICSHIM_OK);
    CHECK_EQ(rx(0, 51, 1), NICSHIM_EV_RX);
    CHECK_EQ(ug(SBA200_UNET_UG_UPCALL_PENDING_OFS), 0);
    CHECK_EQ(OPS->irq_level(card), 0);
    /* A command with the IRQ bit raises the line; EP_DESTROY drops the endpoint's pending bit. */
    CHECK_EQ(cmd(SBA200_UNET_OP_NOP, 0, 0, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(OPS->irq_level(card), 0);
    CHECK_EQ(cmd(SBA200_UNET_OP_NOP | SBA200_UNET_CMD_IRQ, 0, 0, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(OPS->irq_level(card), 1);
    /* Reset + clear in one write: the line drops, the card is in reset. */
    CHECK_EQ(OPS->reg_write(card, NICSHIM_RANGE_SBA200_BCR, 0, SBA200_UNET_BCR_RESET | SBA200_UNET_BCR_CLEAR_INTR),
             NICSHIM_OK);
    CHECK_EQ(OPS->irq_level(card), 0);
    CHECK_EQ(be_get(ram, SBA200_UNET_MONITOR_OFS + SBA200_UNET_MONITOR_BOOT_STATUS_OFS), SBA200_UNET_BOOT_COLD_START);
    teardown();
}

static void test_two_endpoints_isolated(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 8);
    create_ep(1, SEG1_BUS, RQ1_BUS, 8);
    open_chan(0, 0, 0, 40, 50);
    open_chan(1, 0, 0, 41, 51);
    memset(seg_host[1], 0xB1, SEG_LEN);
    static uint8_t snapshot[SEG_LEN];
    memcpy(snapshot, seg_host[1], SEG_LEN);
    static uint8_t rq1_snapshot[8 * 64];
    memcpy(rq1_snapshot, rq_host[1], sizeof(rq1_snapshot));
    uint8_t page1[SBA200_UNET_EP_PAGE_SIZE];
    memcpy(page1, page(1), sizeof(page1));
    /* Endpoint 0's segment ends where endpoint 1's begins in bus space: offset SEG_LEN would be ep 1's byte 0. */
    uint32_t offs[1] = {SEG_LEN};
    uint32_t lens[1] = {16};
    uint32_t d = post_buffers(0, 0, 1, offs, lens);
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(tx_status(0, d), SBA200_UNET_TX_STATUS_SEG_BOUNDS);
    CHECK_EQ(S->tx_count, 0);
    /* Hostile free buffers of endpoint 0 pointing past its segment: never written. */
    post_free(0, SEG_LEN, 64);
    post_free(0, SEG_LEN + 0x40, 0xFFFFFFC0u);
    CHECK_EQ(rx(0, 50, 100), NICSHIM_EV_RX);
    CHECK_EQ(rx(0, 50, 100), NICSHIM_EV_RX);
    CHECK_EQ(be_get(rq_desc(0, 0, 8), 4), SBA200_UNET_RX_ERR_DMA << 16);
    CHECK_EQ(be_get(rq_desc(0, 1, 8), 4), SBA200_UNET_RX_ERR_DMA << 16);
    /* A hostile channel number and a scribbled sq_cons / rq_prod_shadow on endpoint 0 only confuse endpoint 0. */
    be_put(page(0), SBA200_UNET_EPCB_SQ_CONS_OFS, 0x1234);
    be_put(page(0), SBA200_UNET_EPCB_RQ_PROD_SHADOW_OFS, 0x777);
    d = post_raw(0, w0_buffers(63, 16, 1), 1, offs, lens);
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(tx_status(0, d), SBA200_UNET_TX_STATUS_BAD_CHANNEL);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_SQ_CONS_OFS), 2);
    CHECK_EQ(rx(0, 50, 1), NICSHIM_EV_RX);
    CHECK_EQ(be_get(rq_desc(0, 2, 8), 0), SBA200_UNET_RX_VALID | SBA200_UNET_RX_INLINE | 1);
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_RQ_PROD_SHADOW_OFS), 3);
    /* Nothing of endpoint 1 changed. */
    CHECK(memcmp(snapshot, seg_host[1], SEG_LEN) == 0);
    CHECK(memcmp(rq1_snapshot, rq_host[1], sizeof(rq1_snapshot)) == 0);
    CHECK(memcmp(page1, page(1), sizeof(page1)) == 0);
    CHECK_EQ(epcb(1, SBA200_UNET_EPCB_EP_STATUS_OFS), SBA200_UNET_EP_ACTIVE);
    /* Endpoint 1 still works, with its own buffers and its own segment. */
    post_free(1, 0x80, 128);
    CHECK_EQ(rx(0, 51, 100), NICSHIM_EV_RX);
    CHECK_EQ(be_get(rq_desc(1, 0, 8), 0), SBA200_UNET_RX_VALID | 1u << 24 | 100);
    CHECK(pattern_ok(seg_host[1] + 0x80, 0, 100));
    uint32_t offs1[1] = {0x80};
    uint32_t lens1[1] = {100};
    d = post_buffers(1, 0, 1, offs1, lens1);
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(tx_status(1, d), SBA200_UNET_TX_STATUS_SENT);
    CHECK_EQ(S->tx_count, 1);
    CHECK_EQ(frame_be32(0, 14), cell_header(0, 41, 1));
    CHECK(pattern_ok(S->tx[0] + 22, 0, 100));
    teardown();
}

static void move_region(uint64_t from, uint64_t to) {
    for (int i = 0; i < S->region_count; i++) {
        if (S->regions[i].bus == from) {
            S->regions[i].bus = to;
        }
    }
}

static void test_restart_revalidates_regions(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 8);
    create_ep(1, SEG1_BUS, RQ1_BUS, 8);
    open_chan(0, 0, 0, 40, 50);
    open_chan(1, 0, 0, 41, 51);
    OPS->stop(card);
    /* While the link is down, endpoint 0's segment and endpoint 1's receive queue leave the DMA space. */
    move_region(SEG_BUS, 0x7F000000u);
    move_region(RQ1_BUS, 0x7E000000u);
    OPS->start(card);
    CHECK_EQ(S->stats[SHIM_STAT_BUS_ERRORS], 0); /* nothing used yet */
    CHECK_EQ(epcb(0, SBA200_UNET_EPCB_EP_STATUS_OFS), SBA200_UNET_EP_ACTIVE);
    /* Endpoint 0: a buffered send is a DMA error; an inline one needs no segment and goes. */
    uint32_t offs[1] = {0};
    uint32_t lens[1] = {64};
    uint32_t d = post_buffers(0, 0, 1, offs, lens);
    uint32_t di = post_inline(0, 0, "i", 1);
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE | NICSHIM_EV_BUS_ERR);
    CHECK_EQ(tx_status(0, d), SBA200_UNET_TX_STATUS_DMA_ERROR);
    CHECK_EQ(tx_status(0, di), SBA200_UNET_TX_STATUS_SENT);
    CHECK_EQ(S->tx_count, 1);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_DMA_ERRORS_OFS), 1);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_TX_REJECTED_OFS), 1);
    CHECK_EQ(S->stats[SHIM_STAT_BUS_ERRORS], 1);
    CHECK_EQ(S->stats[SHIM_STAT_TX_BAD_DESCRIPTOR], 0);
    /* Receive into a buffer: a DMA error entry listing the (empty) buffer taken; inline still delivered. */
    post_free(0, 0x100, 128);
    CHECK_EQ(rx(0, 50, 100), NICSHIM_EV_RX | NICSHIM_EV_BUS_ERR);
    uint8_t *r = rq_desc(0, 0, 8);
    CHECK_EQ(be_get(r, 0), SBA200_UNET_RX_VALID | SBA200_UNET_RX_ERROR | 1u << 24);
    CHECK_EQ(be_get(r, 4), SBA200_UNET_RX_ERR_DMA << 16);
    CHECK_EQ(be_get(r, 8), 0x100);
    CHECK_EQ(be_get(r, 12), 0);
    CHECK_EQ(rx(0, 50, 7), NICSHIM_EV_RX);
    CHECK_EQ(be_get(rq_desc(0, 1, 8), 0), SBA200_UNET_RX_VALID | SBA200_UNET_RX_INLINE | 7);
    CHECK_EQ(S->stats[SHIM_STAT_BUS_ERRORS], 2);
    CHECK_EQ(S->stats[SHIM_STAT_CARD_ERRORS], 0);
    /* Endpoint 1: its receive queue is unreachable, nothing can be delivered; its sends still work. */
    CHECK_EQ(rx(0, 51, 7), NICSHIM_EV_BUS_ERR);
    CHECK_EQ(S->stats[SHIM_STAT_BUS_ERRORS], 3);
    CHECK_EQ(ug(SBA200_UNET_UG_CNT_DMA_ERRORS_OFS), 3);
    CHECK_EQ(epcb(1, SBA200_UNET_EPCB_RQ_PROD_SHADOW_OFS), 0);
    post_inline(1, 0, "j", 1);
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(S->tx_count, 2);
    /* Registered again: reachable again after the next start. */
    OPS->stop(card);
    move_region(0x7F000000u, SEG_BUS);
    move_region(0x7E000000u, RQ1_BUS);
    OPS->start(card);
    d = post_buffers(0, 0, 1, offs, lens);
    CHECK_EQ(work(), NICSHIM_EV_TX_DONE);
    CHECK_EQ(tx_status(0, d), SBA200_UNET_TX_STATUS_SENT);
    CHECK_EQ(rx(0, 51, 7), NICSHIM_EV_RX);
    CHECK_EQ(be_get(rq_desc(1, 0, 8), 0), SBA200_UNET_RX_VALID | SBA200_UNET_RX_INLINE | 7);
    /* EP_DESTROY of an endpoint works whatever its memory's state. */
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_DESTROY, 0, 0, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_DESTROY, 1, 0, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    teardown();
}

/* ============================================================================================ main */

/* The card keeps an active endpoint's segment and receive queue as host pointers: those regions may not go while the
 * link runs, until EP_DESTROY; memory it never translated may. */
static void test_holds_endpoint_regions_until_destroy(void) {
    setup();
    create_ep(0, SEG_BUS, RQ_BUS, 16);
    uint8_t *other = fake_add_region(S, STATS_BUS, 64);
    const shim_card_ops_t *ops = &shim_sba200_eth_card;
    CHECK_EQ(ops->holds_region(card, seg_host[0], SEG_LEN), 1);
    CHECK_EQ(ops->holds_region(card, seg_host[0] + SEG_LEN - 1, 1), 1); /* its last byte */
    CHECK_EQ(ops->holds_region(card, rq_host[0], 16 * SBA200_UNET_RQ_ENTRY_SIZE), 1);
    CHECK_EQ(ops->holds_region(card, other, 64), 0);
    CHECK_EQ(cmd(SBA200_UNET_OP_EP_DESTROY, 0, 0, 0, 0, 0), SBA200_UNET_CMD_STATUS_DONE);
    CHECK_EQ(ops->holds_region(card, seg_host[0], SEG_LEN), 0);
    CHECK_EQ(ops->holds_region(card, rq_host[0], 16 * SBA200_UNET_RQ_ENTRY_SIZE), 0);
    teardown();
}

typedef struct test_case {
    const char *name;
    void (*run)(void);
} test_case_t;

int main(void) {
    static const test_case_t tests[] = {
        {"boot_values", test_boot_values},
        {"reset_and_release", test_reset_and_release},
        {"command_sequence", test_command_sequence},
        {"send_inline_frame", test_send_inline_frame},
        {"send_buffered_frame", test_send_buffered_frame},
        {"send_ring_full_and_round_robin", test_send_ring_full_and_round_robin},
        {"bad_descriptors", test_bad_descriptors},
        {"segment_bounds", test_segment_bounds},
        {"receive_inline_padded", test_receive_inline_padded},
        {"receive_multi_buffer", test_receive_multi_buffer},
        {"receive_drops", test_receive_drops},
        {"rq_overrun", test_rq_overrun},
        {"free_buffer_exhaustion", test_free_buffer_exhaustion},
        {"upcalls_and_interrupt", test_upcalls_and_interrupt},
        {"two_endpoints_isolated", test_two_endpoints_isolated},
        {"restart_revalidates_regions", test_restart_revalidates_regions},
        {"holds_endpoint_regions_until_destroy", test_holds_endpoint_regions_until_destroy},
    };
    S = malloc(sizeof(*S));
    if (S == NULL) {
        return 2;
    }
    int failed_tests = 0;
    size_t count = sizeof(tests) / sizeof(tests[0]);
    for (size_t i = 0; i < count; i++) {
        shim_test_name = tests[i].name;
        int before = shim_test_failures;
        tests[i].run();
        shim_test_count++;
        printf("%s %s\n", shim_test_failures == before ? "ok  " : "FAIL", tests[i].name);
        if (shim_test_failures != before) {
            failed_tests++;
        }
    }
    free(S);
    printf("sba200_eth_card_test: %d of %zu tests failed\n", failed_tests, count);
    return shim_test_summary("sba200_eth_card_test");
}
