/*
 * sba200_eth_card.c - the Fore SBA-200 with U-Net firmware (sba200_unet.h, docs/hardware-facts.md B.4) served by the
 * native shim, its ATM link replaced by Ethernet ("U-Net over Ethernet" in nicshim.h).
 *
 * This is the C twin of the Java emulated card io.nicbridge.sim.sba200.Sba200Model: the same board RAM, the same
 * BCR, the same kernel commands, descriptor checks, status codes, counters, upcalls and interrupt, so that the
 * Java UnetKernelDriver and UnetEndpoint run unchanged on it. Only the link differs:
 *
 *   Sba200Model (ATM)                             this card (Ethernet)
 *   AAL5 CPCS-PDU cut into 53-byte cells  ----->  ONE Ethernet frame per PDU:
 *   (GFC 0, VPI/VCI, PTI 000..001, HEC,            DA | SA | EtherType | tag | payload
 *    trailer with LEN and CRC-32)                  tag = cell header word (PTI 001) BE, PDU length BE, 0, 0
 *   reassembly per VCI, CRC/LEN check             the whole PDU arrives at once; the tag's length says how
 *                                                 many bytes are payload (Ethernet may have padded the frame)
 *   hec_errors / aal5_crc_errors                  never counted: the Ethernet FCS protects the frame
 *   cells_tx / cells_rx / drop_unknown_vci        counted as the cells the PDU would take on ATM
 *                                                 (ceil((len + 8) / 48)), so the counters stay comparable
 *
 * State and memory
 *
 *   board RAM (Java's pinned 256 KiB window, big-endian words)   the card's private state (this file)
 *   +-------------------------------------------+                +-------------------------------------------+
 *   | 0x0400 monitor block (boot status)        |                | protection record per endpoint:           |
 *   | 0x1000 UG block: doorbell cmd_prod,       |                |   segment host pointer + length, RQ host   |
 *   |        pending mask (W1C), counters       |                |   pointer + RQ_LEN (translated ONCE at     |
 *   | 0x1100 command queue 16 x 32 B            |                |   EP_CREATE through shim_dma()), NI-side   |
 *   | 0x2000 VCI demux table (CH_OPEN writes)   |                |   indices sq_cons / fq_cons / rq_prod,     |
 *   | 0x20000 endpoint pages (EPCB, SQ, FQ)     |                |   open channels and their TX cell headers |
 *   +-------------------------------------------+                +-------------------------------------------+
 *
 * Every offset a process writes (send buffers, free buffers) is checked against ITS OWN endpoint's segment
 * length before any byte moves (from a snapshot of the descriptor, never a second read), and the host pointer
 * used is that endpoint's own segment pointer, so a hostile descriptor can never reach another endpoint's memory
 * or anything outside the registered DMA regions. The NI-side queue indices live here, not in RAM: a process
 * that scribbles over sq_cons / fq_cons / rq_prod_shadow in its page only confuses itself. Regions can be
 * removed only while the shim is stopped, so start() re-translates every record; memory that is gone by then is
 * the card's bus error on each use (TX_STATUS_DMA_ERROR / RX_ERR_DMA, dma_errors, shim bus_errors).
 *
 * Work: work() runs the kernel command queue, then the send queues of the active endpoints round robin (the
 * i960 polls them, so a missed doorbell costs only latency). receive() demultiplexes one frame on the RAM VCI
 * table and delivers it INLINE (<= 40 bytes) or into free-queue buffers (at most 6). Everything runs under the
 * platform's lock, so this file is single-threaded; shared words are accessed with the atomic helpers of
 * shim_internal.h and converted from/to big-endian here.
 *
 * Handoffs (the contract's): a send descriptor is read after the acquire load of sq_prod, completed by writing
 * w1 (status), w0 without VALID, then sq_cons with release. A free-queue entry is read after the acquire load of
 * fq_prod and given back with a release store of fq_cons. A receive descriptor's slot is claimed by an acquire
 * load of w0 (VALID clear = the user is done with it); the body is written first, then w0 with VALID (release),
 * then rq_prod_shadow (release). A kernel command's w1 (DONE / ERROR) is stored with release before cmd_cons.
 */
#include "shim_internal.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "sba200_unet.h"

_Static_assert(NICSHIM_SBA200_RAM_SIZE == SBA200_UNET_RAM_SIZE, "RAM window size mirrors the contract");
_Static_assert(NICSHIM_SBA200_BCR_SIZE == SBA200_UNET_BCR_RANGE_SIZE, "BCR range size mirrors the contract");

/** [P] monitor version word the emulated boot monitor reports (Sba200Model.MONITOR_VERSION). */
#define SBA_MONITOR_VERSION 0x00010000u
/** Bytes in front of the payload: Ethernet header + U-Net tag. */
#define SBA_FRAME_OVERHEAD (NICSHIM_UNET_ETH_HEADER_SIZE + NICSHIM_UNET_TAG_SIZE)
/** The tag's cell header carries PTI 001: every frame is the last (only) "cell" of its PDU. */
#define SBA_PTI_LAST ((uint32_t)SBA200_UNET_PTI_AUU << SBA200_UNET_HDR_PTI_SHIFT)
/** PTI bit 2 set: OAM / RM, not AAL5 user data. */
#define SBA_PTI_NON_USER ((uint32_t)SBA200_UNET_PTI_NON_USER << SBA200_UNET_HDR_PTI_SHIFT)
#define SBA_UG(ofs) (SBA200_UNET_UG_OFS + (ofs))

/* Result of one send attempt. */
enum { TX_DONE = 0, TX_BLOCKED = 1, TX_BUS_ERROR = 2 };

/** Receive-side scratch for one PDU: the free buffers taken so far and how far each is filled. */
typedef struct sba_rx_bufs {
    uint32_t nbufs;
    uint32_t error;
    uint32_t bytes;
    int bus_error; /* the error was the segment being unreachable (counted as a bus error already) */
    uint32_t offset[SBA200_UNET_MAX_BUFS];
    uint32_t capacity[SBA200_UNET_MAX_BUFS];
    uint32_t fill[SBA200_UNET_MAX_BUFS];
} sba_rx_bufs_t;

/** The i960's protection record of one endpoint (valid while its bit is set in active_mask). */
typedef struct sba_endpoint {
    uint8_t *page;       /* its 4 KiB page in board RAM */
    uint8_t *segment;    /* host pointer of the communication segment, seg_len bytes */
    uint64_t seg_bus;
    uint64_t seg_len;
    uint8_t *rq;         /* host pointer of the receive queue, rq_len * 64 bytes */
    uint64_t rq_bus;
    uint32_t rq_len;
    uint32_t sq_cons;    /* NI-side indices: the truth, RAM holds copies for the user */
    uint32_t fq_cons;
    uint32_t rq_prod;
    uint32_t sq_prod_seen; /* the producer indices last read and trusted (see sq_poll) */
    uint32_t fq_prod_seen;
    uint64_t channels_open;                          /* bit c = channel c open */
    uint32_t tx_header[SBA200_UNET_MAX_CHANNELS];    /* GFC 0, VPI, TX VCI, PTI 0, CLP 0 */
    uint16_t rx_vci[SBA200_UNET_MAX_CHANNELS];       /* the RX VCI each channel registered */
} sba_endpoint_t;

typedef struct sba_card {
    shim_t *shim;
    uint8_t *ram;
    uint8_t *bcr;
    uint16_t ethertype;
    uint8_t dst_mac[6];
    int started;
    int reset_asserted;
    int irq;
    uint32_t active_mask;
    uint32_t tx_next;            /* round robin: the endpoint after the last one served */
    /* bit v = TX VCI v used by an open channel: the firmware protects the tags (Sba200Firmware.txVcisInUse) */
    uint64_t tx_vcis_in_use[SBA200_UNET_VCI_TABLE_ENTRIES / 64];
    sba_endpoint_t ep[SBA200_UNET_MAX_ENDPOINTS];
} sba_card_t;

/* ============================================================================================ word access */

static uint32_t rd32(const uint8_t *base, uint32_t ofs) {
    return be32toh(shim_load_relaxed(base + ofs));
}
static uint32_t rd32_acquire(const uint8_t *base, uint32_t ofs) {
    return be32toh(shim_load_acquire(base + ofs));
}
static void wr32(uint8_t *base, uint32_t ofs, uint32_t v) {
    shim_store_relaxed(base + ofs, htobe32(v));
}
static void wr32_release(uint8_t *base, uint32_t ofs, uint32_t v) {
    shim_store_release(base + ofs, htobe32(v));
}
/** Firmware counters are written only by the card (under the lock); the store is atomic so readers see whole words. */
static void add32(uint8_t *base, uint32_t ofs, uint32_t delta) {
    wr32(base, ofs, rd32(base, ofs) + delta);
}
static void ug_count(sba_card_t *c, uint32_t ug_ofs, uint32_t delta) {
    add32(c->ram, SBA_UG(ug_ofs), delta);
}
static void set_status_bits(sba_endpoint_t *e, uint32_t bits) {
    wr32(e->page, SBA200_UNET_EPCB_EP_STATUS_OFS, rd32(e->page, SBA200_UNET_EPCB_EP_STATUS_OFS) | bits);
}
static uint32_t aal5_cells(uint32_t len) {
    return SBA200_UNET_AAL5_CELLS(len);
}

/* ============================================================================================ interrupt */

static void set_irq(sba_card_t *c, int level) {
    c->irq = level;
    if (c->bcr != NULL) {
        /* Mirror the line into the BCR window so that a plain read of it agrees with reg_read. */
        wr32(c->bcr, SBA200_UNET_BCR_OFS, level ? SBA200_UNET_BCR_INTR_PENDING : 0);
    }
}

/** Raises the SBus interrupt if the kernel enabled interrupts in the UG block (Sba200Model.signalHost). */
static void signal_host(sba_card_t *c) {
    if ((rd32_acquire(c->ram, SBA_UG(SBA200_UNET_UG_INTR_ENABLE_OFS)) & SBA200_UNET_UG_INTR_ENABLE) != 0) {
        set_irq(c, 1);
    }
}

/* ============================================================================================ boot */

static void forget_endpoint(sba_card_t *c, uint32_t ep) {
    memset(&c->ep[ep], 0, sizeof(c->ep[ep]));
    c->active_mask &= ~(1u << ep);
}

/** Power-on / reset release: clears all state and RAM, writes the monitor block and the UG block. */
static void boot(sba_card_t *c) {
    for (uint32_t e = 0; e < SBA200_UNET_MAX_ENDPOINTS; e++) {
        forget_endpoint(c, e);
    }
    c->active_mask = 0;
    c->tx_next = 0;
    memset(c->tx_vcis_in_use, 0, sizeof(c->tx_vcis_in_use));
    c->reset_asserted = 0;
    uint8_t *ram = c->ram;
    memset(ram, 0, SBA200_UNET_RAM_SIZE);
    wr32(ram, SBA200_UNET_MONITOR_OFS + SBA200_UNET_MONITOR_APP_BASE_OFS, SBA200_UNET_FIRMWARE_OFS);
    wr32(ram, SBA200_UNET_MONITOR_OFS + SBA200_UNET_MONITOR_VERSION_OFS, SBA_MONITOR_VERSION);
    wr32(ram, SBA_UG(SBA200_UNET_UG_MAGIC_OFS), SBA200_UNET_UG_MAGIC);
    wr32(ram, SBA_UG(SBA200_UNET_UG_VERSION_OFS), SBA200_UNET_UG_VERSION);
    wr32(ram, SBA_UG(SBA200_UNET_UG_MAX_ENDPOINTS_OFS), SBA200_UNET_MAX_ENDPOINTS);
    wr32(ram, SBA_UG(SBA200_UNET_UG_EP_PAGE_BASE_OFS), SBA200_UNET_EP_PAGE_BASE);
    wr32(ram, SBA_UG(SBA200_UNET_UG_EP_PAGE_SIZE_OFS), SBA200_UNET_EP_PAGE_SIZE);
    wr32(ram, SBA_UG(SBA200_UNET_UG_CMDQ_BASE_OFS), SBA200_UNET_CMDQ_OFS);
    wr32(ram, SBA_UG(SBA200_UNET_UG_CMDQ_LEN_OFS), SBA200_UNET_CMDQ_LEN);
    /* The model reports carrier once it has an uplink; here the link exists between start() and stop(). */
    wr32(ram, SBA_UG(SBA200_UNET_UG_LINK_STATUS_OFS), c->started ? SBA200_UNET_UG_LINK_CARRIER : 0);
    set_irq(c, 0);
    /* The boot status is the last word written: a kernel polling for CP_RUNNING then sees everything above. */
    wr32_release(ram, SBA200_UNET_MONITOR_OFS + SBA200_UNET_MONITOR_BOOT_STATUS_OFS, SBA200_UNET_BOOT_CP_RUNNING);
}

/* ============================================================================================ commands */

static int active(const sba_card_t *c, uint32_t ep) {
    return ep < SBA200_UNET_MAX_ENDPOINTS && (c->active_mask & (1u << ep)) != 0;
}

static int power_of_two(uint32_t v) {
    return v != 0 && (v & (v - 1)) == 0;
}

static int ep_create(sba_card_t *c, uint32_t ep, uint32_t seg_base, uint32_t seg_len, uint32_t rq_base,
                     uint32_t rq_len) {
    if (ep >= SBA200_UNET_MAX_ENDPOINTS) {
        return SBA200_UNET_CMD_ERR_BAD_ENDPOINT;
    }
    if (active(c, ep)) {
        return SBA200_UNET_CMD_ERR_EP_ACTIVE;
    }
    if (seg_len == 0 || (seg_base & (SBA200_UNET_SEG_ALIGN - 1)) != 0) {
        return SBA200_UNET_CMD_ERR_BAD_SEGMENT;
    }
    /* The protection record: the segment is translated once, here; every later offset is checked against it. */
    uint8_t *segment = shim_dma(c->shim, seg_base, seg_len, NULL);
    if (segment == NULL) {
        shim_count(c->shim, SHIM_STAT_BUS_ERRORS, 1);
        return SBA200_UNET_CMD_ERR_BAD_SEGMENT;
    }
    /* rq_len is a signed int in the model: "negative" values fail the range check as well. */
    if (rq_len < SBA200_UNET_RQ_LEN_MIN || rq_len > SBA200_UNET_RQ_LEN_MAX || !power_of_two(rq_len) ||
        (rq_base & (SBA200_UNET_RQ_ALIGN - 1)) != 0) {
        return SBA200_UNET_CMD_ERR_BAD_RQ;
    }
    uint8_t *rq = shim_dma(c->shim, rq_base, (uint64_t)rq_len * SBA200_UNET_RQ_ENTRY_SIZE, NULL);
    if (rq == NULL) {
        shim_count(c->shim, SHIM_STAT_BUS_ERRORS, 1);
        return SBA200_UNET_CMD_ERR_BAD_RQ;
    }
    if (((uintptr_t)rq & (sizeof(uint32_t) - 1)) != 0) {
        /* The card stores whole words into the queue (VALID last, atomically): a region whose host memory is not
         * word-aligned under a 64-aligned bus address cannot hold one. */
        return SBA200_UNET_CMD_ERR_BAD_RQ;
    }
    sba_endpoint_t *e = &c->ep[ep];
    memset(e, 0, sizeof(*e));
    e->page = c->ram + SBA200_UNET_EP_PAGE_OFFSET(ep);
    memset(e->page, 0, SBA200_UNET_EP_PAGE_SIZE);
    /* The receive queue starts empty: the firmware clears every VALID bit by DMA. */
    for (uint32_t i = 0; i < rq_len; i++) {
        wr32(rq, i * SBA200_UNET_RQ_ENTRY_SIZE + SBA200_UNET_RECV_DESC_W0_OFS, 0);
    }
    wr32(e->page, SBA200_UNET_EPCB_RQ_LEN_OFS, rq_len);
    wr32(e->page, SBA200_UNET_EPCB_SEG_LEN_OFS, seg_len);
    e->segment = segment;
    e->seg_bus = seg_base;
    e->seg_len = seg_len;
    e->rq = rq;
    e->rq_bus = rq_base;
    e->rq_len = rq_len;
    wr32_release(e->page, SBA200_UNET_EPCB_EP_STATUS_OFS, SBA200_UNET_EP_ACTIVE);
    c->active_mask |= 1u << ep;
    return SBA200_UNET_CMD_ERR_NONE;
}

static void close_channel(sba_card_t *c, uint32_t ep, uint32_t chan) {
    sba_endpoint_t *e = &c->ep[ep];
    wr32_release(c->ram, SBA200_UNET_VCI_ENTRY_OFFSET(e->rx_vci[chan]), 0);
    uint32_t tx_vci = (e->tx_header[chan] & SBA200_UNET_HDR_VCI_MASK) >> SBA200_UNET_HDR_VCI_SHIFT;
    c->tx_vcis_in_use[tx_vci / 64] &= ~(1ull << (tx_vci % 64));
    e->channels_open &= ~(1ull << chan);
}

static void ug_pending_clear(sba_card_t *c, uint32_t bits) {
    __atomic_fetch_and((uint32_t *)(c->ram + SBA_UG(SBA200_UNET_UG_UPCALL_PENDING_OFS)), htobe32(~bits),
                       __ATOMIC_ACQ_REL);
}

static void ug_pending_set(sba_card_t *c, uint32_t bits) {
    __atomic_fetch_or((uint32_t *)(c->ram + SBA_UG(SBA200_UNET_UG_UPCALL_PENDING_OFS)), htobe32(bits),
                      __ATOMIC_ACQ_REL);
}

/** Closes every channel, clears the page, forgets the protection record and the pending upcall bit. */
static void destroy_endpoint(sba_card_t *c, uint32_t ep) {
    for (uint32_t ch = 0; ch < SBA200_UNET_MAX_CHANNELS; ch++) {
        if ((c->ep[ep].channels_open & (1ull << ch)) != 0) {
            close_channel(c, ep, ch);
        }
    }
    memset(c->ep[ep].page, 0, SBA200_UNET_EP_PAGE_SIZE);
    forget_endpoint(c, ep);
    ug_pending_clear(c, 1u << ep);
}

static int ep_destroy(sba_card_t *c, uint32_t ep) {
    if (ep >= SBA200_UNET_MAX_ENDPOINTS) {
        return SBA200_UNET_CMD_ERR_BAD_ENDPOINT;
    }
    if (!active(c, ep)) {
        return SBA200_UNET_CMD_ERR_EP_INACTIVE;
    }
    destroy_endpoint(c, ep);
    return SBA200_UNET_CMD_ERR_NONE;
}

static int user_vci(uint32_t vci) {
    return vci >= SBA200_UNET_VCI_FIRST_USER && vci < SBA200_UNET_VCI_TABLE_ENTRIES;
}

static int ch_open(sba_card_t *c, uint32_t ep, uint32_t chan, uint32_t vpi, uint32_t tx_vci, uint32_t rx_vci) {
    if (ep >= SBA200_UNET_MAX_ENDPOINTS) {
        return SBA200_UNET_CMD_ERR_BAD_ENDPOINT;
    }
    if (!active(c, ep)) {
        return SBA200_UNET_CMD_ERR_EP_INACTIVE;
    }
    if (chan >= SBA200_UNET_MAX_CHANNELS) {
        return SBA200_UNET_CMD_ERR_BAD_CHANNEL;
    }
    sba_endpoint_t *e = &c->ep[ep];
    if ((e->channels_open & (1ull << chan)) != 0) {
        return SBA200_UNET_CMD_ERR_CHANNEL_OPEN;
    }
    if (vpi > 0xFF || !user_vci(tx_vci) || !user_vci(rx_vci)) {
        return SBA200_UNET_CMD_ERR_BAD_VCI;
    }
    uint32_t entry_ofs = SBA200_UNET_VCI_ENTRY_OFFSET(rx_vci);
    if ((rd32(c->ram, entry_ofs) & SBA200_UNET_VCI_VALID) != 0 ||
        (c->tx_vcis_in_use[tx_vci / 64] & (1ull << (tx_vci % 64))) != 0) {
        return SBA200_UNET_CMD_ERR_VCI_IN_USE;
    }
    c->tx_vcis_in_use[tx_vci / 64] |= 1ull << (tx_vci % 64);
    e->tx_header[chan] = vpi << SBA200_UNET_HDR_VPI_SHIFT | tx_vci << SBA200_UNET_HDR_VCI_SHIFT;
    e->rx_vci[chan] = (uint16_t)rx_vci;
    e->channels_open |= 1ull << chan;
    wr32_release(c->ram, entry_ofs, SBA200_UNET_VCI_ENTRY(ep, chan, vpi));
    return SBA200_UNET_CMD_ERR_NONE;
}

static int ch_close(sba_card_t *c, uint32_t ep, uint32_t chan) {
    if (ep >= SBA200_UNET_MAX_ENDPOINTS) {
        return SBA200_UNET_CMD_ERR_BAD_ENDPOINT;
    }
    if (!active(c, ep)) {
        return SBA200_UNET_CMD_ERR_EP_INACTIVE;
    }
    if (chan >= SBA200_UNET_MAX_CHANNELS || (c->ep[ep].channels_open & (1ull << chan)) == 0) {
        return SBA200_UNET_CMD_ERR_BAD_CHANNEL;
    }
    close_channel(c, ep, chan);
    return SBA200_UNET_CMD_ERR_NONE;
}

static int ep_upcall(sba_card_t *c, uint32_t ep, uint32_t mode) {
    if (ep >= SBA200_UNET_MAX_ENDPOINTS) {
        return SBA200_UNET_CMD_ERR_BAD_ENDPOINT;
    }
    if (!active(c, ep)) {
        return SBA200_UNET_CMD_ERR_EP_INACTIVE;
    }
    if ((mode & ~SBA200_UNET_UPCALL_BOTH) != 0) { /* NONE, NONEMPTY, ALMOST_FULL or both */
        return SBA200_UNET_CMD_ERR_BAD_MODE;
    }
    wr32(c->ep[ep].page, SBA200_UNET_EPCB_UPCALL_MODE_OFS, mode);
    return SBA200_UNET_CMD_ERR_NONE;
}

/** GET_STATS: the 64-byte counter block, big-endian words as in RAM, copied by DMA to host memory. */
static int get_stats(sba_card_t *c, uint32_t address) {
    uint8_t *dst = shim_dma(c->shim, address, SBA200_UNET_STATS_SIZE, NULL);
    if (dst == NULL) {
        ug_count(c, SBA200_UNET_UG_CNT_DMA_ERRORS_OFS, 1);
        shim_count(c->shim, SHIM_STAT_BUS_ERRORS, 1);
        return SBA200_UNET_CMD_ERR_DMA;
    }
    memcpy(dst, c->ram + SBA_UG(SBA200_UNET_UG_STATS_OFS), SBA200_UNET_STATS_SIZE);
    return SBA200_UNET_CMD_ERR_NONE;
}

static uint32_t cmd_arg(const sba_card_t *c, uint32_t slot, uint32_t ofs) {
    return rd32(c->ram, slot + ofs);
}

/** @return 0 or a CMD_ERR_* code */
static int execute(sba_card_t *c, uint32_t opcode, uint32_t slot) {
    switch (opcode) {
    case SBA200_UNET_OP_EP_CREATE:
        return ep_create(c, cmd_arg(c, slot, SBA200_UNET_CMD_EP_CREATE_EP_OFS),
                         cmd_arg(c, slot, SBA200_UNET_CMD_EP_CREATE_SEG_BASE_OFS),
                         cmd_arg(c, slot, SBA200_UNET_CMD_EP_CREATE_SEG_LEN_OFS),
                         cmd_arg(c, slot, SBA200_UNET_CMD_EP_CREATE_RQ_BASE_OFS),
                         cmd_arg(c, slot, SBA200_UNET_CMD_EP_CREATE_RQ_LEN_OFS));
    case SBA200_UNET_OP_EP_DESTROY:
        return ep_destroy(c, cmd_arg(c, slot, SBA200_UNET_CMD_EP_DESTROY_EP_OFS));
    case SBA200_UNET_OP_CH_OPEN:
        return ch_open(c, cmd_arg(c, slot, SBA200_UNET_CMD_CH_OPEN_EP_OFS),
                       cmd_arg(c, slot, SBA200_UNET_CMD_CH_OPEN_CHAN_OFS),
                       cmd_arg(c, slot, SBA200_UNET_CMD_CH_OPEN_VPI_OFS),
                       cmd_arg(c, slot, SBA200_UNET_CMD_CH_OPEN_TX_VCI_OFS),
                       cmd_arg(c, slot, SBA200_UNET_CMD_CH_OPEN_RX_VCI_OFS));
    case SBA200_UNET_OP_CH_CLOSE:
        return ch_close(c, cmd_arg(c, slot, SBA200_UNET_CMD_CH_CLOSE_EP_OFS),
                        cmd_arg(c, slot, SBA200_UNET_CMD_CH_CLOSE_CHAN_OFS));
    case SBA200_UNET_OP_EP_UPCALL:
        return ep_upcall(c, cmd_arg(c, slot, SBA200_UNET_CMD_EP_UPCALL_EP_OFS),
                         cmd_arg(c, slot, SBA200_UNET_CMD_EP_UPCALL_MODE_OFS));
    case SBA200_UNET_OP_GET_STATS:
        return get_stats(c, cmd_arg(c, slot, SBA200_UNET_CMD_GET_STATS_ADDR_OFS));
    case SBA200_UNET_OP_NOP:
        return SBA200_UNET_CMD_ERR_NONE;
    default:
        return SBA200_UNET_CMD_ERR_BAD_OPCODE;
    }
}

/** Runs up to `budget` pending kernel commands in order. @return commands completed */
static uint32_t run_commands(sba_card_t *c, uint32_t budget) {
    uint8_t *ram = c->ram;
    uint32_t cons = rd32(ram, SBA_UG(SBA200_UNET_UG_CMD_CONS_OFS));
    /* Acquire pairs with the kernel's release of cmd_prod: the slots before it are complete. */
    uint32_t prod = rd32_acquire(ram, SBA_UG(SBA200_UNET_UG_CMD_PROD_OFS));
    uint32_t pending = prod - cons;
    if (pending == 0) {
        return 0;
    }
    if (pending > SBA200_UNET_CMDQ_LEN) {
        return 0; /* an impossible producer index is never trusted: the queue reads as empty */
    }
    uint32_t done = 0;
    while (cons != prod && done < budget) {
        uint32_t slot = SBA200_UNET_CMD_OFFSET(cons & (SBA200_UNET_CMDQ_LEN - 1));
        uint32_t op = rd32(ram, slot + SBA200_UNET_CMD_OP_OFS);
        int result = execute(c, op & SBA200_UNET_CMD_OPCODE_MASK, slot);
        uint32_t status = result == SBA200_UNET_CMD_ERR_NONE
                              ? SBA200_UNET_CMD_STATUS_DONE
                              : (SBA200_UNET_CMD_STATUS_ERROR |
                                 (((uint32_t)result << SBA200_UNET_CMD_ERROR_SHIFT) & SBA200_UNET_CMD_ERROR_MASK));
        if (result != SBA200_UNET_CMD_ERR_NONE) {
            shim_count(c->shim, SHIM_STAT_CARD_ERRORS, 1);
        }
        /* Handoff: the status (release) before the consumer index, which the kernel may read to know it is done. */
        wr32_release(ram, slot + SBA200_UNET_CMD_STATUS_OFS, status);
        cons++;
        wr32_release(ram, SBA_UG(SBA200_UNET_UG_CMD_CONS_OFS), cons);
        if ((op & SBA200_UNET_CMD_IRQ) != 0) {
            signal_host(c);
        }
        done++;
    }
    return done;
}

/* ============================================================================================ transmit */

/**
 * Oldest posted send descriptor's page offset, or 0 when none (a descriptor is never at page offset 0).
 *
 * The producer index is read again only when the descriptors it last announced are used up (an SPSC consumer's
 * cached producer, as the Java firmware's queues): what was published stays published, even if the process later
 * scribbles an impossible sq_prod over its page; that one is never trusted, and the queue reads as empty.
 */
static uint32_t sq_poll(sba_endpoint_t *e) {
    if (e->sq_cons == e->sq_prod_seen) {
        /* Acquire pairs with the user's release of sq_prod: the whole descriptor is visible. */
        uint32_t prod = rd32_acquire(e->page, SBA200_UNET_EPCB_SQ_PROD_OFS);
        uint32_t available = prod - e->sq_cons;
        if (available == 0 || available > SBA200_UNET_SQ_LEN) {
            return 0;
        }
        e->sq_prod_seen = prod;
    }
    return SBA200_UNET_SQ_SLOT_OFFSET(e->sq_cons & (SBA200_UNET_SQ_LEN - 1));
}

/** w1 := status, w0 := w0 without VALID, then sq_cons with release (the slot is the user's again). */
static void sq_complete(sba_endpoint_t *e, uint32_t d, uint32_t status) {
    wr32(e->page, d + SBA200_UNET_SEND_DESC_STATUS_OFS, status);
    wr32(e->page, d + SBA200_UNET_SEND_DESC_W0_OFS,
         rd32(e->page, d + SBA200_UNET_SEND_DESC_W0_OFS) & ~SBA200_UNET_TX_VALID);
    e->sq_cons++;
    wr32_release(e->page, SBA200_UNET_EPCB_SQ_CONS_OFS, e->sq_cons);
}

/** A descriptor the firmware refuses: its status, tx_rejected in the UG block and in the page. */
static void reject(sba_card_t *c, sba_endpoint_t *e, uint32_t d, uint32_t status, enum shim_stat why) {
    sq_complete(e, d, status);
    ug_count(c, SBA200_UNET_UG_CNT_TX_REJECTED_OFS, 1);
    add32(e->page, SBA200_UNET_EPCB_TX_REJECTED_OFS, 1);
    shim_count(c->shim, why, 1);
}

static uint32_t buf_offset(const sba_endpoint_t *e, uint32_t d, uint32_t i) {
    return rd32(e->page, d + SBA200_UNET_SEND_DESC_BUFS_OFS + i * 8);
}
static uint32_t buf_length(const sba_endpoint_t *e, uint32_t d, uint32_t i) {
    return rd32(e->page, d + SBA200_UNET_SEND_DESC_BUFS_OFS + i * 8 + 4);
}

/** Writes the Ethernet header and the U-Net tag in front of the payload. */
static void put_frame_header(const sba_card_t *c, uint8_t *f, uint32_t cell_header, uint32_t length) {
    memcpy(f, c->dst_mac, 6);
    memcpy(f + 6, shim_mac(c->shim), 6);
    f[12] = (uint8_t)(c->ethertype >> 8);
    f[13] = (uint8_t)c->ethertype;
    uint8_t *tag = f + NICSHIM_UNET_ETH_HEADER_SIZE;
    uint32_t h = htobe32(cell_header | SBA_PTI_LAST);
    memcpy(tag + NICSHIM_UNET_TAG_HEADER_OFFSET, &h, 4);
    tag[NICSHIM_UNET_TAG_LENGTH_OFFSET] = (uint8_t)(length >> 8);
    tag[NICSHIM_UNET_TAG_LENGTH_OFFSET + 1] = (uint8_t)length;
    tag[6] = 0;
    tag[7] = 0;
}

/**
 * Checks, gathers and sends the descriptor at page offset d (Sba200Model.sendOne). The payload goes straight
 * from the segment (or the inline words) into the reserved TX-ring frame.
 * @return TX_BLOCKED when the TX ring is full: the descriptor stays posted and is retried later
 */
static int send_one(sba_card_t *c, uint32_t ep, uint32_t d) {
    sba_endpoint_t *e = &c->ep[ep];
    /* VALID with acquire before the other words (the contract's ownership bit). */
    uint32_t w0 = rd32_acquire(e->page, d + SBA200_UNET_SEND_DESC_W0_OFS);
    if ((w0 & SBA200_UNET_TX_VALID) == 0) {
        reject(c, e, d, SBA200_UNET_TX_STATUS_BAD_DESC, SHIM_STAT_TX_BAD_DESCRIPTOR);
        return TX_DONE;
    }
    uint32_t length = (w0 & SBA200_UNET_TX_LENGTH_MASK) >> SBA200_UNET_TX_LENGTH_SHIFT;
    uint32_t chan = (w0 & SBA200_UNET_TX_CHAN_MASK) >> SBA200_UNET_TX_CHAN_SHIFT;
    if ((e->channels_open & (1ull << chan)) == 0) {
        reject(c, e, d, SBA200_UNET_TX_STATUS_BAD_CHANNEL, SHIM_STAT_TX_BAD_DESCRIPTOR);
        return TX_DONE;
    }
    if (length == SBA200_UNET_AAL5_LENGTH_ABORT) {
        /* [P] AAL5 reserves LEN 0 for "abort": the receiver would discard it, so the firmware refuses it. */
        reject(c, e, d, SBA200_UNET_TX_STATUS_BAD_DESC, SHIM_STAT_TX_BAD_DESCRIPTOR);
        return TX_DONE;
    }
    int is_inline = (w0 & SBA200_UNET_TX_INLINE) != 0;
    uint32_t off_snap[SBA200_UNET_MAX_BUFS];
    uint32_t len_snap[SBA200_UNET_MAX_BUFS];
    uint32_t nbufs = (w0 & SBA200_UNET_TX_NBUFS_MASK) >> SBA200_UNET_TX_NBUFS_SHIFT;
    if (is_inline) {
        if (length > SBA200_UNET_INLINE_MAX) {
            reject(c, e, d, SBA200_UNET_TX_STATUS_TOO_LONG, SHIM_STAT_TX_BAD_DESCRIPTOR);
            return TX_DONE;
        }
    } else {
        if (nbufs < 1 || nbufs > SBA200_UNET_MAX_BUFS) {
            reject(c, e, d, SBA200_UNET_TX_STATUS_BAD_DESC, SHIM_STAT_TX_BAD_DESCRIPTOR);
            return TX_DONE;
        }
        uint64_t sum = 0;
        for (uint32_t i = 0; i < nbufs; i++) {
            /* Snapshot: the process may rewrite its descriptor at any time, so the extents checked here are the
             * ones gathered below - never a second read of its words. */
            off_snap[i] = buf_offset(e, d, i);
            len_snap[i] = buf_length(e, d, i);
            uint64_t off = off_snap[i];
            uint64_t len = len_snap[i];
            if (len > SBA200_UNET_MAX_PDU) {
                reject(c, e, d, SBA200_UNET_TX_STATUS_TOO_LONG, SHIM_STAT_TX_BAD_DESCRIPTOR);
                return TX_DONE;
            }
            if (off + len > e->seg_len) {
                set_status_bits(e, SBA200_UNET_EP_SEGFAULT);
                reject(c, e, d, SBA200_UNET_TX_STATUS_SEG_BOUNDS, SHIM_STAT_TX_BAD_DESCRIPTOR);
                return TX_DONE;
            }
            sum += len;
        }
        if (sum != length) {
            reject(c, e, d, SBA200_UNET_TX_STATUS_BAD_DESC, SHIM_STAT_TX_BAD_DESCRIPTOR);
            return TX_DONE;
        }
        if (e->segment == NULL) {
            /* The segment left the DMA space while the link was down: a bus error, reported the card's way. */
            ug_count(c, SBA200_UNET_UG_CNT_DMA_ERRORS_OFS, 1);
            reject(c, e, d, SBA200_UNET_TX_STATUS_DMA_ERROR, SHIM_STAT_BUS_ERRORS);
            return TX_BUS_ERROR;
        }
    }
    /* The link's own limit: one PDU per frame, so a PDU must fit the interface MTU after the tag. */
    uint32_t mtu = shim_mtu(c->shim);
    if (mtu < NICSHIM_UNET_TAG_SIZE || length > mtu - NICSHIM_UNET_TAG_SIZE) {
        reject(c, e, d, SBA200_UNET_TX_STATUS_TOO_LONG, SHIM_STAT_TX_DROP_TOO_LONG);
        return TX_DONE;
    }
    uint32_t frame_len = SBA_FRAME_OVERHEAD + length;
    uint8_t *f = shim_tx_reserve(c->shim, frame_len);
    if (f == NULL) {
        return TX_BLOCKED;
    }
    put_frame_header(c, f, e->tx_header[chan], length);
    uint8_t *p = f + SBA_FRAME_OVERHEAD;
    if (is_inline) {
        memcpy(p, e->page + d + SBA200_UNET_SEND_DESC_INLINE_OFS, length);
    } else {
        /* Every extent was bounds-checked above against this endpoint's own segment. */
        for (uint32_t i = 0; i < nbufs; i++) {
            memcpy(p, e->segment + off_snap[i], len_snap[i]);
            p += len_snap[i];
        }
    }
    shim_tx_commit(c->shim, frame_len);
    ug_count(c, SBA200_UNET_UG_CNT_CELLS_TX_OFS, aal5_cells(length));
    ug_count(c, SBA200_UNET_UG_CNT_PDUS_TX_OFS, 1);
    shim_count(c->shim, SHIM_STAT_TX_FRAMES, 1);
    shim_count(c->shim, SHIM_STAT_TX_BYTES, frame_len);
    sq_complete(e, d, SBA200_UNET_TX_STATUS_SENT);
    return TX_DONE;
}

/**
 * Round robin over the active endpoints, starting after the last one served. @return descriptors completed;
 * *bus_error set when one of them found its segment unreachable
 */
static uint32_t transmit(sba_card_t *c, uint32_t budget, int *bus_error) {
    uint32_t work = 0;
    while (c->active_mask != 0 && work < budget) {
        uint32_t found = SBA200_UNET_MAX_ENDPOINTS;
        uint32_t d = 0;
        for (uint32_t k = 0; k < SBA200_UNET_MAX_ENDPOINTS; k++) {
            uint32_t ep = (c->tx_next + k) & (SBA200_UNET_MAX_ENDPOINTS - 1);
            if (active(c, ep) && (d = sq_poll(&c->ep[ep])) != 0) {
                found = ep;
                break;
            }
        }
        if (found == SBA200_UNET_MAX_ENDPOINTS) {
            break;
        }
        int result = send_one(c, found, d);
        if (result == TX_BLOCKED) {
            c->tx_next = found; /* the same descriptor goes first when the ring has room again */
            break;
        }
        if (result == TX_BUS_ERROR) {
            *bus_error = 1;
        }
        c->tx_next = found + 1;
        work++;
    }
    return work;
}

/* ============================================================================================ receive */

/** True when the next receive-queue slot is free (its VALID bit is clear), read with acquire. */
static int rq_has_room(const sba_endpoint_t *e) {
    uint32_t slot = (e->rq_prod & (e->rq_len - 1)) * SBA200_UNET_RQ_ENTRY_SIZE;
    return (rd32_acquire(e->rq, slot + SBA200_UNET_RECV_DESC_W0_OFS) & SBA200_UNET_RX_VALID) == 0;
}

static uint8_t *rq_slot(const sba_endpoint_t *e) {
    return e->rq + (e->rq_prod & (e->rq_len - 1)) * SBA200_UNET_RQ_ENTRY_SIZE;
}

/** RQ full: the PDU is dropped and counted (Sba200Model.dropOverrun). */
static uint32_t drop_overrun(sba_card_t *c, sba_endpoint_t *e) {
    ug_count(c, SBA200_UNET_UG_CNT_DROP_RQ_FULL_OFS, 1);
    add32(e->page, SBA200_UNET_EPCB_DROP_RQ_OVERRUN_OFS, 1);
    set_status_bits(e, SBA200_UNET_EP_RQ_OVERRUN);
    shim_count(c->shim, SHIM_STAT_RX_MISSED, 1);
    return NICSHIM_EV_RX_STALL;
}

/** w1 = error | UU | CPI (UU and CPI are 0: there is no AAL5 trailer on Ethernet), then the timestamp. */
static void rq_put_status_and_time(uint8_t *slot, uint32_t error) {
    wr32(slot, SBA200_UNET_RECV_DESC_W1_OFS, (error << SBA200_UNET_RX_ERR_SHIFT) & SBA200_UNET_RX_ERR_MASK);
    uint64_t us = shim_now_ns() / 1000;
    wr32(slot, SBA200_UNET_RECV_DESC_TIMESTAMP_OFS, (uint32_t)(us >> 32));
    wr32(slot, SBA200_UNET_RECV_DESC_TIMESTAMP_OFS + 4, (uint32_t)us);
}

/** w0 with VALID last (release), then rq_prod_shadow (release). */
static void rq_publish(sba_endpoint_t *e, uint8_t *slot, uint32_t length, uint32_t chan, uint32_t nbufs,
                       uint32_t flags) {
    uint32_t w0 = flags | nbufs << SBA200_UNET_RX_NBUFS_SHIFT | chan << SBA200_UNET_RX_CHAN_SHIFT |
                  length << SBA200_UNET_RX_LENGTH_SHIFT;
    wr32_release(slot, SBA200_UNET_RECV_DESC_W0_OFS, w0 | SBA200_UNET_RX_VALID);
    e->rq_prod++;
    wr32_release(e->page, SBA200_UNET_EPCB_RQ_PROD_SHADOW_OFS, e->rq_prod);
}

/** Upcall check after a descriptor was published, edge-triggered per mode bit (Sba200Firmware.afterDelivery). */
static void after_delivery(sba_card_t *c, uint32_t ep) {
    sba_endpoint_t *e = &c->ep[ep];
    uint32_t mode = rd32(e->page, SBA200_UNET_EPCB_UPCALL_MODE_OFS);
    if (mode == SBA200_UNET_UPCALL_NONE) {
        return;
    }
    uint64_t outstanding = (uint32_t)(e->rq_prod - rd32_acquire(e->page, SBA200_UNET_EPCB_RQ_CONS_OFS));
    uint64_t threshold = (uint64_t)e->rq_len * SBA200_UNET_UPCALL_ALMOST_FULL_NUM;
    int fire = ((mode & SBA200_UNET_UPCALL_NONEMPTY) != 0 && outstanding == 1) ||
               ((mode & SBA200_UNET_UPCALL_ALMOST_FULL) != 0 &&
                outstanding * SBA200_UNET_UPCALL_ALMOST_FULL_DEN >= threshold &&
                (outstanding - 1) * SBA200_UNET_UPCALL_ALMOST_FULL_DEN < threshold);
    if (fire) {
        ug_pending_set(c, 1u << ep);
        signal_host(c);
    }
}

static uint32_t deliver_inline(sba_card_t *c, uint32_t ep, uint32_t chan, const uint8_t *payload, uint32_t length,
                               uint32_t frame_len) {
    sba_endpoint_t *e = &c->ep[ep];
    if (!rq_has_room(e)) {
        return drop_overrun(c, e);
    }
    uint8_t *slot = rq_slot(e);
    memcpy(slot + SBA200_UNET_RECV_DESC_INLINE_OFS, payload, length);
    rq_put_status_and_time(slot, SBA200_UNET_RX_ERR_NONE);
    rq_publish(e, slot, length, chan, 0, SBA200_UNET_RX_INLINE);
    ug_count(c, SBA200_UNET_UG_CNT_PDUS_RX_OFS, 1);
    shim_count(c->shim, SHIM_STAT_RX_FRAMES, 1);
    shim_count(c->shim, SHIM_STAT_RX_BYTES, frame_len);
    after_delivery(c, ep);
    return NICSHIM_EV_RX;
}

/**
 * Pops one free-queue entry; 0 when the free queue is empty (or its producer index is impossible). As in sq_poll,
 * fq_prod is read again only when the entries it last announced are used up.
 */
static int fq_pop(sba_endpoint_t *e, uint32_t *offset, uint32_t *length) {
    if (e->fq_cons == e->fq_prod_seen) {
        /* Acquire pairs with the user's release of fq_prod: the entry is visible. */
        uint32_t prod = rd32_acquire(e->page, SBA200_UNET_EPCB_FQ_PROD_OFS);
        uint32_t available = prod - e->fq_cons;
        if (available == 0 || available > SBA200_UNET_FQ_LEN) {
            return 0; /* an impossible fq_prod is never trusted: the free queue reads as empty */
        }
        e->fq_prod_seen = prod;
    }
    uint32_t slot = SBA200_UNET_FQ_SLOT_OFFSET(e->fq_cons & (SBA200_UNET_FQ_LEN - 1));
    *offset = rd32(e->page, slot);
    *length = rd32(e->page, slot + 4);
    e->fq_cons++;
    /* Release: the entry's slot is free for the user only after it has been read. */
    wr32_release(e->page, SBA200_UNET_EPCB_FQ_CONS_OFS, e->fq_cons);
    return 1;
}

/**
 * Copies n payload bytes into the endpoint's free buffers, popping more as needed (Sba200Model.writeBuffers);
 * sets b->error and stops on NO_BUFFERS, TOO_MANY_BUFS or a free buffer outside the segment (DMA).
 */
static void write_buffers(sba_card_t *c, sba_endpoint_t *e, sba_rx_bufs_t *b, const uint8_t *src, uint32_t n) {
    while (n > 0) {
        uint32_t i = b->nbufs;
        if (i == 0 || b->fill[i - 1] == b->capacity[i - 1]) {
            if (b->nbufs == SBA200_UNET_MAX_BUFS) {
                b->error = SBA200_UNET_RX_ERR_TOO_MANY_BUFS;
                return;
            }
            uint32_t off;
            uint32_t len;
            if (!fq_pop(e, &off, &len)) {
                b->error = SBA200_UNET_RX_ERR_NO_BUFFERS;
                ug_count(c, SBA200_UNET_UG_CNT_DROP_NO_FREE_BUF_OFS, 1);
                add32(e->page, SBA200_UNET_EPCB_DROP_NO_FREE_BUF_OFS, 1);
                set_status_bits(e, SBA200_UNET_EP_NO_FREE_BUF);
                return;
            }
            if (len == 0 || (off & (SBA200_UNET_FQ_BUF_ALIGN - 1)) != 0 || (uint64_t)off + len > e->seg_len) {
                /* A free buffer outside the process's own segment: never written, reported as a DMA error. */
                b->error = SBA200_UNET_RX_ERR_DMA;
                ug_count(c, SBA200_UNET_UG_CNT_DMA_ERRORS_OFS, 1);
                set_status_bits(e, SBA200_UNET_EP_SEGFAULT);
                return;
            }
            b->offset[i] = off;
            b->capacity[i] = len;
            b->fill[i] = 0;
            b->nbufs = ++i;
        }
        if (e->segment == NULL) {
            /* The segment left the DMA space while the link was down (the model's "released under the card"):
             * the buffer just taken is listed, empty, so the process can recycle it. */
            b->error = SBA200_UNET_RX_ERR_DMA;
            b->bus_error = 1;
            ug_count(c, SBA200_UNET_UG_CNT_DMA_ERRORS_OFS, 1);
            shim_count(c->shim, SHIM_STAT_BUS_ERRORS, 1);
            return;
        }
        uint32_t k = b->capacity[i - 1] - b->fill[i - 1];
        if (k > n) {
            k = n;
        }
        memcpy(e->segment + (uint64_t)b->offset[i - 1] + b->fill[i - 1], src, k);
        b->fill[i - 1] += k;
        b->bytes += k;
        src += k;
        n -= k;
    }
}

/** Publishes a buffer entry (good or ERROR, the latter still listing the buffers taken so they can be recycled). */
static uint32_t deliver_buffers(sba_card_t *c, uint32_t ep, uint32_t chan, const sba_rx_bufs_t *b, uint32_t length,
                                uint32_t frame_len) {
    sba_endpoint_t *e = &c->ep[ep];
    if (!rq_has_room(e)) {
        return drop_overrun(c, e);
    }
    uint8_t *slot = rq_slot(e);
    for (uint32_t i = 0; i < b->nbufs; i++) {
        wr32(slot, SBA200_UNET_RECV_DESC_BUFS_OFS + i * 8, b->offset[i]);
        wr32(slot, SBA200_UNET_RECV_DESC_BUFS_OFS + i * 8 + 4, b->fill[i]);
    }
    rq_put_status_and_time(slot, b->error);
    rq_publish(e, slot, length > SBA200_UNET_MAX_PDU ? SBA200_UNET_MAX_PDU : length, chan, b->nbufs,
               b->error == SBA200_UNET_RX_ERR_NONE ? 0 : SBA200_UNET_RX_ERROR);
    uint32_t ev = NICSHIM_EV_RX;
    if (b->error == SBA200_UNET_RX_ERR_NONE) {
        ug_count(c, SBA200_UNET_UG_CNT_PDUS_RX_OFS, 1);
        shim_count(c->shim, SHIM_STAT_RX_FRAMES, 1);
        shim_count(c->shim, SHIM_STAT_RX_BYTES, frame_len);
    } else {
        add32(e->page, SBA200_UNET_EPCB_RX_ERRORS_OFS, 1);
        if (b->error == SBA200_UNET_RX_ERR_NO_BUFFERS) {
            /* The data is lost for want of a free buffer: the shim's "missed" frame. */
            shim_count(c->shim, SHIM_STAT_RX_MISSED, 1);
            ev |= NICSHIM_EV_RX_STALL;
        } else if (b->bus_error) {
            ev |= NICSHIM_EV_BUS_ERR;
        } else {
            shim_count(c->shim, SHIM_STAT_CARD_ERRORS, 1);
        }
    }
    after_delivery(c, ep);
    return ev;
}

/** Frames addressed to this station, or to a group (broadcast / multicast) address, as an Ethernet NIC filters. */
static int for_us(const sba_card_t *c, const uint8_t *frame) {
    return (frame[0] & 1) != 0 || memcmp(frame, shim_mac(c->shim), 6) == 0;
}

static uint32_t receive_frame(sba_card_t *c, const uint8_t *frame, uint32_t len) {
    if (len < NICSHIM_UNET_ETH_HEADER_SIZE) {
        shim_count(c->shim, SHIM_STAT_RX_DROP_BAD_FRAME, 1);
        return 0;
    }
    uint32_t type = (uint32_t)frame[12] << 8 | frame[13];
    if (type != c->ethertype || !for_us(c, frame)) {
        shim_count(c->shim, SHIM_STAT_RX_DROP_FILTER, 1);
        return 0;
    }
    if (len < SBA_FRAME_OVERHEAD) {
        shim_count(c->shim, SHIM_STAT_RX_DROP_BAD_FRAME, 1);
        return 0;
    }
    const uint8_t *tag = frame + NICSHIM_UNET_ETH_HEADER_SIZE;
    uint32_t header;
    memcpy(&header, tag + NICSHIM_UNET_TAG_HEADER_OFFSET, 4);
    header = be32toh(header);
    uint32_t length = (uint32_t)tag[NICSHIM_UNET_TAG_LENGTH_OFFSET] << 8 | tag[NICSHIM_UNET_TAG_LENGTH_OFFSET + 1];
    /* Ethernet pads short frames: the tag's length, not the frame's, says where the PDU ends. */
    if (length > len - SBA_FRAME_OVERHEAD || (header & SBA_PTI_NON_USER) != 0) {
        shim_count(c->shim, SHIM_STAT_RX_DROP_BAD_FRAME, 1);
        return 0;
    }
    ug_count(c, SBA200_UNET_UG_CNT_CELLS_RX_OFS, aal5_cells(length));
    uint32_t vci = (header & SBA200_UNET_HDR_VCI_MASK) >> SBA200_UNET_HDR_VCI_SHIFT;
    uint32_t vpi = (header & SBA200_UNET_HDR_VPI_MASK) >> SBA200_UNET_HDR_VPI_SHIFT;
    uint32_t entry = vci < SBA200_UNET_VCI_TABLE_ENTRIES ? rd32_acquire(c->ram, SBA200_UNET_VCI_ENTRY_OFFSET(vci)) : 0;
    uint32_t ep = SBA200_UNET_VCI_EP(entry);
    if ((entry & SBA200_UNET_VCI_VALID) == 0 ||
        (entry & SBA200_UNET_VCI_VPI_MASK) >> SBA200_UNET_VCI_VPI_SHIFT != vpi || !active(c, ep)) {
        /* The i960 drops every cell of a PDU on an unknown VCI, and counts each: the cells this PDU would take. */
        ug_count(c, SBA200_UNET_UG_CNT_DROP_UNKNOWN_VCI_OFS, aal5_cells(length));
        shim_count(c->shim, SHIM_STAT_RX_DROP_NO_CHANNEL, 1);
        return 0;
    }
    uint32_t chan = SBA200_UNET_VCI_CHAN(entry);
    const uint8_t *payload = tag + NICSHIM_UNET_TAG_SIZE;
    if (c->ep[ep].rq == NULL) {
        /* The receive queue left the DMA space while the link was down: nowhere to deliver, a bus error. */
        ug_count(c, SBA200_UNET_UG_CNT_DMA_ERRORS_OFS, 1);
        shim_count(c->shim, SHIM_STAT_BUS_ERRORS, 1);
        return NICSHIM_EV_BUS_ERR;
    }
    sba_rx_bufs_t b = {0};
    if (length == SBA200_UNET_AAL5_LENGTH_ABORT) {
        /* AAL5's LEN 0 means "abort": the model reports it as a LENGTH error entry with no buffers. */
        b.error = SBA200_UNET_RX_ERR_LENGTH;
        ug_count(c, SBA200_UNET_UG_CNT_LENGTH_ERRORS_OFS, 1);
        return deliver_buffers(c, ep, chan, &b, 0, len);
    }
    if (length <= SBA200_UNET_INLINE_MAX) {
        return deliver_inline(c, ep, chan, payload, length, len);
    }
    sba_endpoint_t *e = &c->ep[ep];
    /* A multi-cell PDU that starts while the queue is full is discarded before it takes buffers. */
    if (!rq_has_room(e)) {
        return drop_overrun(c, e);
    }
    write_buffers(c, e, &b, payload, length);
    return deliver_buffers(c, ep, chan, &b, b.error == SBA200_UNET_RX_ERR_NONE ? length : b.bytes, len);
}

/* ============================================================================================ card ops */

static void *sba_create(shim_t *shim, const nicshim_options_t *options) {
    sba_card_t *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        return NULL;
    }
    c->shim = shim;
    c->ethertype = NICSHIM_UNET_ETHERTYPE_DEFAULT;
    memset(c->dst_mac, 0xFF, sizeof(c->dst_mac));
    if (options != NULL) {
        if (options->unet_ethertype != 0) {
            c->ethertype = options->unet_ethertype;
        }
        static const uint8_t zero[6] = {0};
        if (memcmp(options->unet_dst_mac, zero, 6) != 0) {
            memcpy(c->dst_mac, options->unet_dst_mac, 6);
        }
    }
    return c;
}

static void sba_destroy(void *card) {
    free(card);
}

static void sba_attach(void *card, uint32_t range, uint8_t *base) {
    sba_card_t *c = card;
    if (range == NICSHIM_RANGE_SBA200_BCR) {
        c->bcr = base;
        wr32(c->bcr, SBA200_UNET_BCR_OFS, c->irq ? SBA200_UNET_BCR_INTR_PENDING : 0);
    } else if (range == NICSHIM_RANGE_SBA200_RAM) {
        c->ram = base;
        boot(c); /* reset values: the firmware is resident and running, as in the model's constructor */
    }
}

/** Board RAM writes with side effects: the W1C pending mask; every other word is stored (the doorbells are polled). */
static void ram_write(sba_card_t *c, uint32_t offset, uint32_t value) {
    if (offset == SBA_UG(SBA200_UNET_UG_UPCALL_PENDING_OFS)) {
        ug_pending_clear(c, value);
        return;
    }
    /* cmd_prod and sq_prod are doorbells: the release store publishes the slot; work() polls them. */
    wr32_release(c->ram, offset, value);
}

/** BCR: 0x01 assert reset, 0x00 release (the firmware boots), 0x04 clear the interrupt. */
static void bcr_write(sba_card_t *c, uint32_t value) {
    if ((value & SBA200_UNET_BCR_CLEAR_INTR) != 0) {
        set_irq(c, 0);
    }
    if ((value & SBA200_UNET_BCR_RESET) != 0) {
        c->reset_asserted = 1;
        if (c->ram != NULL) {
            wr32_release(c->ram, SBA200_UNET_MONITOR_OFS + SBA200_UNET_MONITOR_BOOT_STATUS_OFS,
                         SBA200_UNET_BOOT_COLD_START);
        }
    } else if (value == SBA200_UNET_BCR_RELEASE && c->reset_asserted) {
        /* The model boots on the i960's next pass; here at once (a latency of zero), so the kernel's
         * wait for CP_RUNNING never depends on when the platform next calls work(). */
        c->reset_asserted = 0;
        if (c->ram != NULL) {
            boot(c);
        }
    }
}

static int32_t sba_reg_write(void *card, uint32_t range, uint32_t offset, uint32_t value) {
    sba_card_t *c = card;
    if (range == NICSHIM_RANGE_SBA200_BCR) {
        bcr_write(c, value);
        return NICSHIM_OK;
    }
    if (range == NICSHIM_RANGE_SBA200_RAM && c->ram != NULL) {
        ram_write(c, offset, value);
        return NICSHIM_OK;
    }
    return NICSHIM_ERR_STATE;
}

static int32_t sba_reg_read(void *card, uint32_t range, uint32_t offset, uint32_t *value) {
    sba_card_t *c = card;
    if (range == NICSHIM_RANGE_SBA200_BCR) {
        *value = c->irq ? SBA200_UNET_BCR_INTR_PENDING : 0;
        return NICSHIM_OK;
    }
    if (range == NICSHIM_RANGE_SBA200_RAM && c->ram != NULL) {
        *value = rd32_acquire(c->ram, offset);
        return NICSHIM_OK;
    }
    return NICSHIM_ERR_STATE;
}

/**
 * The link is open. DMA regions can only be removed while stopped, so each endpoint's protection record is
 * re-translated here. A segment or receive queue that left the DMA space is never touched through a stale
 * pointer: it is marked unreachable (NULL) and every later use of it is the card's bus error, reported as the
 * model reports memory released under the card (TX_STATUS_DMA_ERROR, RX_ERR_DMA, dma_errors); it becomes
 * reachable again at a later start if its bus range is registered again.
 */
static void sba_start(void *card) {
    sba_card_t *c = card;
    c->started = 1;
    if (c->ram == NULL) {
        return;
    }
    wr32(c->ram, SBA_UG(SBA200_UNET_UG_LINK_STATUS_OFS), SBA200_UNET_UG_LINK_CARRIER);
    for (uint32_t ep = 0; ep < SBA200_UNET_MAX_ENDPOINTS; ep++) {
        if (!active(c, ep)) {
            continue;
        }
        sba_endpoint_t *e = &c->ep[ep];
        e->segment = shim_dma(c->shim, e->seg_bus, e->seg_len, NULL);
        e->rq = shim_dma(c->shim, e->rq_bus, (uint64_t)e->rq_len * SBA200_UNET_RQ_ENTRY_SIZE, NULL);
    }
}

static void sba_stop(void *card) {
    sba_card_t *c = card;
    c->started = 0;
    if (c->ram != NULL) {
        wr32(c->ram, SBA_UG(SBA200_UNET_UG_LINK_STATUS_OFS), 0);
    }
}

static uint32_t sba_work(void *card, uint32_t kicks, uint32_t budget) {
    sba_card_t *c = card;
    /* The i960 polls its queues, so kicks only wake us up: every call looks at commands and send queues. */
    (void)kicks;
    if (c->ram == NULL || c->reset_asserted) {
        return 0;
    }
    uint32_t ev = 0;
    uint32_t cmds = run_commands(c, budget);
    if (cmds > 0) {
        ev |= NICSHIM_EV_CMD_DONE;
    }
    int bus_error = 0;
    uint32_t sent = c->started ? transmit(c, budget, &bus_error) : 0;
    if (sent > 0) {
        ev |= NICSHIM_EV_TX_DONE;
    }
    if (bus_error) {
        ev |= NICSHIM_EV_BUS_ERR;
    }
    if (cmds + sent > 0) {
        ug_count(c, SBA200_UNET_UG_HEARTBEAT_OFS, 1);
    }
    return ev;
}

static uint32_t sba_receive(void *card, const uint8_t *frame, uint32_t len) {
    sba_card_t *c = card;
    if (c->ram == NULL || c->reset_asserted) {
        /* The firmware is not running: the model's ingress is discarded at boot. */
        shim_count(c->shim, SHIM_STAT_RX_MISSED, 1);
        return NICSHIM_EV_RX_STALL;
    }
    uint32_t ev = receive_frame(c, frame, len);
    ug_count(c, SBA200_UNET_UG_HEARTBEAT_OFS, 1);
    return ev;
}

static int sba_irq_level(void *card) {
    return ((sba_card_t *)card)->irq;
}

/* An active endpoint's segment and receive queue were translated once, at EP_CREATE, into host pointers the card
 * uses until EP_DESTROY: such memory must stay registered while the link runs. */
static int sba_holds_region(void *card, const uint8_t *host, uint64_t len) {
    const sba_card_t *c = card;
    for (uint32_t ep = 0; ep < SBA200_UNET_MAX_ENDPOINTS; ep++) {
        if (!active(c, ep)) {
            continue;
        }
        const sba_endpoint_t *e = &c->ep[ep];
        uint64_t rq_bytes = (uint64_t)e->rq_len * SBA200_UNET_RQ_ENTRY_SIZE;
        if ((e->segment != NULL && e->segment < host + len && host < e->segment + e->seg_len) ||
            (e->rq != NULL && e->rq < host + len && host < e->rq + rq_bytes)) {
            return 1;
        }
    }
    return 0;
}

const shim_card_ops_t shim_sba200_eth_card = {
    .kind = NICSHIM_CARD_SBA200_UNET_ETH,
    .name = "sba200-unet-eth",
    .range_count = 2,
    .range_size = {NICSHIM_SBA200_BCR_SIZE, NICSHIM_SBA200_RAM_SIZE},
    /* The least the link must carry: a single-cell (INLINE-sized) PDU; longer ones than MTU - 8 are TOO_LONG. */
    .max_frame = SBA_FRAME_OVERHEAD + SBA200_UNET_INLINE_MAX,
    .create = sba_create,
    .destroy = sba_destroy,
    .attach = sba_attach,
    .reg_write = sba_reg_write,
    .reg_read = sba_reg_read,
    .start = sba_start,
    .stop = sba_stop,
    .work = sba_work,
    .receive = sba_receive,
    .can_receive = NULL,
    .tick = NULL,
    .next_deadline = NULL,
    .irq_level = sba_irq_level,
    .holds_region = sba_holds_region,
};
