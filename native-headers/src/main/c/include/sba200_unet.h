/*
 * sba200_unet.h - device contract of the emulated "U-Net on Fore SBA-200" ATM adapter.
 *
 * The real SBA-200 bus shape is kept (docs/hardware-facts.md B.1/B.2, [V FE, HA]): a Board Control
 * Register plus a 256 KiB board-RAM window, 32-bit big-endian word accesses only, and Fore's i960 boot
 * handshake (monitor block at 0x400, boot status 0xCE11FEED). Everything U-Net-specific lives
 * in board RAM at fixed offsets. The U-Net part is the project's PROPOSAL of
 * docs/hardware-facts.md section B.4 [P], modelled on the U-Net SBA-200
 * firmware described in B.3 (send and free queues in board RAM mapped into the process, receive
 * queue in host memory written by DMA, a kernel-only command queue). ATM cell and AAL5 constants
 * come from section D.2. Details that B.4 leaves open are filled in here and tagged [P].
 *
 * Naming: every constant is SBA200_UNET_<STRUCTURE>_<FIELD>. Single-bit fields are a mask in
 * place ((1u << n)); multi-bit fields come as a _SHIFT / _MASK pair (mask in place).
 *
 * Byte order: every 32-bit word of board RAM and of the host-memory receive queue is big-endian
 * (the host is a SPARCstation; the Fore host structures are host-endian, i.e. big-endian there).
 * Inline payload bytes are stored in wire order at increasing byte addresses, so payload byte 0
 * is the most significant byte of the first inline word.
 */
#ifndef NICBRIDGE_SBA200_UNET_H
#define NICBRIDGE_SBA200_UNET_H

#include <stddef.h>
#include <stdint.h>

/** Byte order of board RAM, the receive queue and the structs below (1 = big-endian). */
#define SBA200_UNET_BIG_ENDIAN 1

/* ============================================================================================
 * B.1 / B.4 Bus: two ranges, as in the SBA-200's OpenPROM "reg" property ("FORE,sba-200")
 *
 *   range 0: BCR, 4 bytes      range 1: board RAM, 0x40000 bytes (32-bit word accesses only)
 *
 * BCR writes (B.1, [V HA]): 0x01 assert reset, 0x00 release reset, 0x04 clear the SBus interrupt.
 * BCR reads [P]: bit 0x100 = interrupt pending; every other bit reads 0.
 *
 *   31                      9     8      7                  0
 *  +------------------------+------------+-------------------+
 *  |           0            |INTR_PENDING|        0          |   (read)
 *  +------------------------+------------+-------------------+
 * ========================================================================================== */

#define SBA200_UNET_BCR_RANGE_SIZE   4
#define SBA200_UNET_BCR_OFS          0      /* offset of the BCR inside its own range */
#define SBA200_UNET_BCR_RESET        (0x01u) /* write: assert reset */
#define SBA200_UNET_BCR_RELEASE      (0x00u) /* write: release reset (firmware boots) */
#define SBA200_UNET_BCR_CLEAR_INTR   (0x04u) /* write: clear the SBus interrupt */
#define SBA200_UNET_BCR_INTR_PENDING (0x100u) /* read [P] */

#define SBA200_UNET_RAM_SIZE         (0x40000)
/** Board RAM is accessed only with aligned 32-bit words (B.1, [V HA]). */
#define SBA200_UNET_RAM_ACCESS_WIDTH 4

/* ============================================================================================
 * B.4 RAM map
 *
 *   0x00000 +----------------------------------+ reserved (1 KiB)
 *   0x00400 +----------------------------------+ monitor block, 20 B (Fore layout)      kernel
 *   0x01000 +----------------------------------+ UG global block, 256 B                 kernel
 *   0x01100 +----------------------------------+ kernel command queue, 16 x 32 B        kernel
 *   0x02000 +----------------------------------+ VCI demux table, 1024 x 4 B            kernel (RO)
 *   0x03000 +----------------------------------+ firmware code, reassembly state, cell staging
 *           |                                  | (not part of the contract)
 *   0x20000 +----------------------------------+ endpoint pages 0..31, 4 KiB each       owner (mmap)
 *   0x40000 +----------------------------------+
 * ========================================================================================== */

#define SBA200_UNET_RESERVED_OFS      (0x00000)
#define SBA200_UNET_RESERVED_SIZE     (0x400)
#define SBA200_UNET_MONITOR_OFS       (0x00400)
#define SBA200_UNET_MONITOR_SIZE      20
#define SBA200_UNET_UG_OFS            (0x01000)
#define SBA200_UNET_UG_SIZE           256
#define SBA200_UNET_CMDQ_OFS          (0x01100)
#define SBA200_UNET_CMDQ_LEN          16
#define SBA200_UNET_CMD_SIZE          32
#define SBA200_UNET_CMDQ_SIZE         512
#define SBA200_UNET_VCI_TABLE_OFS     (0x02000)
#define SBA200_UNET_VCI_TABLE_ENTRIES 1024
#define SBA200_UNET_VCI_ENTRY_SIZE    4
#define SBA200_UNET_VCI_TABLE_SIZE    (0x1000)
#define SBA200_UNET_FIRMWARE_OFS      (0x03000)
#define SBA200_UNET_FIRMWARE_END      (0x20000) /* exclusive */
#define SBA200_UNET_EP_PAGE_BASE      (0x20000)
#define SBA200_UNET_EP_PAGE_SIZE      (0x1000)
#define SBA200_UNET_MAX_ENDPOINTS     32

/** RAM offset of endpoint page e (convenience; the generator ignores function-like macros). */
#define SBA200_UNET_EP_PAGE_OFFSET(e) (SBA200_UNET_EP_PAGE_BASE + (e) * SBA200_UNET_EP_PAGE_SIZE)
/** RAM offset of kernel command slot i. */
#define SBA200_UNET_CMD_OFFSET(i)     (SBA200_UNET_CMDQ_OFS + (i) * SBA200_UNET_CMD_SIZE)
/** RAM offset of the demux entry of incoming VCI v. */
#define SBA200_UNET_VCI_ENTRY_OFFSET(v) (SBA200_UNET_VCI_TABLE_OFS + (v) * SBA200_UNET_VCI_ENTRY_SIZE)

/* ============================================================================================
 * B.2 Monitor block at 0x400 (Fore i960 monitor layout, [V FE, HA]), 5 words:
 *
 *   +0x00 soft-UART send     host -> i960 character
 *   +0x04 soft-UART receive  i960 -> host character
 *   +0x08 boot status        codes below
 *   +0x0C application base
 *   +0x10 monitor version
 *
 * Soft UART: the character (low 8 bits) is valid while bit 0x01000000 is set; the reader writes
 * 0 to acknowledge. Reset: write COLD_START to boot status, pulse BCR reset about 10 ms, wait for
 * SELFTEST_OK; the emulated firmware is already resident and then reports CP_RUNNING.
 * ========================================================================================== */

typedef struct sba200_unet_monitor {
    uint32_t uart_send;   /* +0x00 */
    uint32_t uart_recv;   /* +0x04 */
    uint32_t boot_status; /* +0x08 */
    uint32_t app_base;    /* +0x0C */
    uint32_t mon_version; /* +0x10 */
} sba200_unet_monitor_t;

#define SBA200_UNET_MONITOR_UART_SEND_OFS   0x00
#define SBA200_UNET_MONITOR_UART_RECV_OFS   0x04
#define SBA200_UNET_MONITOR_BOOT_STATUS_OFS 0x08
#define SBA200_UNET_MONITOR_APP_BASE_OFS    0x0C
#define SBA200_UNET_MONITOR_VERSION_OFS     0x10

_Static_assert(sizeof(sba200_unet_monitor_t) == SBA200_UNET_MONITOR_SIZE, "monitor block is 20 bytes");
_Static_assert(offsetof(sba200_unet_monitor_t, boot_status) == SBA200_UNET_MONITOR_BOOT_STATUS_OFS,
               "boot status at +8");
_Static_assert(offsetof(sba200_unet_monitor_t, mon_version) == SBA200_UNET_MONITOR_VERSION_OFS,
               "monitor version at +0x10");

#define SBA200_UNET_UART_AVAIL     (0x01000000u)
#define SBA200_UNET_UART_CHAR_MASK (0xFFu)

/* Boot-status codes (B.2, [V FE, HA]). */
#define SBA200_UNET_BOOT_COLD_START    (0xC01DC01Du)
#define SBA200_UNET_BOOT_SELFTEST_OK   (0x02201958u)
#define SBA200_UNET_BOOT_SELFTEST_FAIL (0xADBADBADu)
#define SBA200_UNET_BOOT_CP_RUNNING    (0xCE11FEEDu) /* firmware running */
#define SBA200_UNET_BOOT_MONITOR_FAIL  (0x10ADED00u) /* monitor too big */
/** Fore firmware image magic: "fore" as a little-endian word (B.2). */
#define SBA200_UNET_FW_MAGIC           (0x65726F66u)

/* ============================================================================================
 * B.4 UG global block at 0x1000 (256 bytes)
 *
 *   +0x00 magic "UNET"           +0x20 command-queue base (RAM offset)
 *   +0x04 version 0x00020000     +0x24 command-queue length
 *   +0x08 max endpoints = 32     +0x28 command producer (kernel writes; the doorbell)
 *   +0x0C endpoint page base     +0x2C command consumer (firmware writes)
 *   +0x10 endpoint page size     +0x30 link status (bit 0 carrier)
 *   +0x14 heartbeat (firmware)   +0x34..0x3F reserved
 *   +0x18 global interrupt enable
 *   +0x1C upcall-pending mask (bit e = endpoint e; write 1 to clear)
 *   +0x40..0x7F counters (sba200_unet_stats_t, also what GET_STATS copies out)
 *   +0x80..0xFF reserved
 * ========================================================================================== */

/*
 * Counters (32-bit, wrapping, firmware-written). The first eight are B.4's; [P] the next four
 * count what else the firmware can reject or complete (send descriptors rejected, whole PDUs
 * sent/received, DMA addresses outside the registered regions), then [P] the cells lost because the
 * card's input cell FIFO was full (the i960 fell behind the fibre; a card without such a FIFO, like
 * the shim's Ethernet card, leaves it 0). The last three words are reserved so that the block is
 * exactly 64 bytes.
 *
 *   +0x00 cells_tx          +0x10 length_errors      +0x20 pdus_tx      [P]  +0x30 drop_fifo_overflow [P]
 *                                                                            +0x34..0x3C reserved
 *   +0x04 cells_rx          +0x14 drop_unknown_vci   +0x24 pdus_rx      [P]
 *   +0x08 hec_errors        +0x18 drop_no_free_buf   +0x28 tx_rejected  [P]
 *   +0x0C aal5_crc_errors   +0x1C drop_rq_full       +0x2C dma_errors   [P]
 */
typedef struct sba200_unet_stats {
    uint32_t cells_tx;
    uint32_t cells_rx;
    uint32_t hec_errors;
    uint32_t aal5_crc_errors;
    uint32_t length_errors;
    uint32_t drop_unknown_vci;
    uint32_t drop_no_free_buf;
    uint32_t drop_rq_full;
    uint32_t pdus_tx;
    uint32_t pdus_rx;
    uint32_t tx_rejected;
    uint32_t dma_errors;
    uint32_t drop_fifo_overflow;
    uint32_t reserved[3];
} sba200_unet_stats_t;

#define SBA200_UNET_STATS_SIZE 64
_Static_assert(sizeof(sba200_unet_stats_t) == SBA200_UNET_STATS_SIZE, "stats block is 64 bytes");
_Static_assert(offsetof(sba200_unet_stats_t, drop_rq_full) == 0x1C, "drop_rq_full at +0x1C");
_Static_assert(offsetof(sba200_unet_stats_t, dma_errors) == 0x2C, "dma_errors at +0x2C");

typedef struct sba200_unet_ug {
    uint32_t magic;             /* +0x00 */
    uint32_t version;           /* +0x04 */
    uint32_t max_endpoints;     /* +0x08 */
    uint32_t ep_page_base;      /* +0x0C */
    uint32_t ep_page_size;      /* +0x10 */
    uint32_t heartbeat;         /* +0x14 */
    uint32_t intr_enable;       /* +0x18 */
    uint32_t upcall_pending;    /* +0x1C */
    uint32_t cmdq_base;         /* +0x20 */
    uint32_t cmdq_len;          /* +0x24 */
    uint32_t cmd_prod;          /* +0x28 */
    uint32_t cmd_cons;          /* +0x2C */
    uint32_t link_status;       /* +0x30 */
    uint32_t reserved0[3];      /* +0x34 */
    sba200_unet_stats_t stats;  /* +0x40 */
    uint32_t reserved1[32];     /* +0x80 */
} sba200_unet_ug_t;

#define SBA200_UNET_UG_MAGIC_OFS          0x00
#define SBA200_UNET_UG_VERSION_OFS        0x04
#define SBA200_UNET_UG_MAX_ENDPOINTS_OFS  0x08
#define SBA200_UNET_UG_EP_PAGE_BASE_OFS   0x0C
#define SBA200_UNET_UG_EP_PAGE_SIZE_OFS   0x10
#define SBA200_UNET_UG_HEARTBEAT_OFS      0x14
#define SBA200_UNET_UG_INTR_ENABLE_OFS    0x18
#define SBA200_UNET_UG_UPCALL_PENDING_OFS 0x1C
#define SBA200_UNET_UG_CMDQ_BASE_OFS      0x20
#define SBA200_UNET_UG_CMDQ_LEN_OFS       0x24
#define SBA200_UNET_UG_CMD_PROD_OFS       0x28
#define SBA200_UNET_UG_CMD_CONS_OFS       0x2C
#define SBA200_UNET_UG_LINK_STATUS_OFS    0x30
#define SBA200_UNET_UG_STATS_OFS          0x40
/* Each counter's own offset within the UG block. */
#define SBA200_UNET_UG_CNT_CELLS_TX_OFS         0x40
#define SBA200_UNET_UG_CNT_CELLS_RX_OFS         0x44
#define SBA200_UNET_UG_CNT_HEC_ERRORS_OFS       0x48
#define SBA200_UNET_UG_CNT_AAL5_CRC_ERRORS_OFS  0x4C
#define SBA200_UNET_UG_CNT_LENGTH_ERRORS_OFS    0x50
#define SBA200_UNET_UG_CNT_DROP_UNKNOWN_VCI_OFS 0x54
#define SBA200_UNET_UG_CNT_DROP_NO_FREE_BUF_OFS 0x58
#define SBA200_UNET_UG_CNT_DROP_RQ_FULL_OFS     0x5C
#define SBA200_UNET_UG_CNT_PDUS_TX_OFS          0x60 /* [P] */
#define SBA200_UNET_UG_CNT_PDUS_RX_OFS          0x64 /* [P] */
#define SBA200_UNET_UG_CNT_TX_REJECTED_OFS      0x68 /* [P] */
#define SBA200_UNET_UG_CNT_DMA_ERRORS_OFS       0x6C /* [P] */
#define SBA200_UNET_UG_CNT_DROP_FIFO_OVERFLOW_OFS 0x70 /* [P] cells lost: input FIFO full */

_Static_assert(sizeof(sba200_unet_ug_t) == SBA200_UNET_UG_SIZE, "UG block is 256 bytes");
_Static_assert(offsetof(sba200_unet_ug_t, upcall_pending) == SBA200_UNET_UG_UPCALL_PENDING_OFS,
               "upcall mask at +0x1C");
_Static_assert(offsetof(sba200_unet_ug_t, cmd_prod) == SBA200_UNET_UG_CMD_PROD_OFS, "cmd prod at +0x28");
_Static_assert(offsetof(sba200_unet_ug_t, link_status) == SBA200_UNET_UG_LINK_STATUS_OFS,
               "link status at +0x30");
_Static_assert(offsetof(sba200_unet_ug_t, stats) == SBA200_UNET_UG_STATS_OFS, "counters at +0x40");
_Static_assert(offsetof(sba200_unet_ug_t, stats) + offsetof(sba200_unet_stats_t, drop_rq_full) ==
               SBA200_UNET_UG_CNT_DROP_RQ_FULL_OFS, "drop_rq_full at UG+0x5C");
_Static_assert(offsetof(sba200_unet_ug_t, reserved1) == 0x80, "reserved from +0x80");

#define SBA200_UNET_UG_MAGIC         (0x554E4554u) /* "UNET" */
#define SBA200_UNET_UG_VERSION       (0x00020000u)
/** UG intr_enable [P]: bit 0 lets the firmware raise the SBus interrupt at all. */
#define SBA200_UNET_UG_INTR_ENABLE   (1u << 0)
/** UG link_status: bit 0 = carrier (TAXI link up). */
#define SBA200_UNET_UG_LINK_CARRIER  (1u << 0)

/* ============================================================================================
 * B.4 Kernel command queue at 0x1100: 16 x 32 bytes, reachable only by the kernel.
 *
 * Protocol [P where B.4 is silent]: the kernel fills slot (cmd_prod mod 16) - arguments, then
 * w0, then w1 = PENDING - and increments UG cmd_prod with release: that write is the doorbell.
 * The firmware executes commands in order, writes w1 = DONE or ERROR (error code in bits 15:8)
 * and then increments cmd_cons. If w0 bit 8 is set and UG intr_enable allows, it raises the
 * SBus interrupt on completion.
 *
 *   w0   31            9    8    7          0
 *       +---------------+-----+-------------+
 *       |       0       | IRQ |   opcode    |
 *       +---------------+-----+-------------+
 *   w1   31           16 15          8 7          0
 *       +---------------+-------------+------------+
 *       |       0       | error code  |   status   |
 *       +---------------+-------------+------------+
 *   w2..w7  arguments (per opcode, below)
 * ========================================================================================== */

typedef struct sba200_unet_cmd {
    uint32_t op;     /* w0 */
    uint32_t status; /* w1 */
    uint32_t arg[6]; /* w2..w7 */
} sba200_unet_cmd_t;

#define SBA200_UNET_CMD_OP_OFS     0
#define SBA200_UNET_CMD_STATUS_OFS 4
#define SBA200_UNET_CMD_ARG_OFS    8
#define SBA200_UNET_CMD_ARG_COUNT  6

_Static_assert(sizeof(sba200_unet_cmd_t) == SBA200_UNET_CMD_SIZE, "command is 32 bytes");
_Static_assert(offsetof(sba200_unet_cmd_t, status) == SBA200_UNET_CMD_STATUS_OFS, "status at w1");
_Static_assert(offsetof(sba200_unet_cmd_t, arg) == SBA200_UNET_CMD_ARG_OFS, "arguments from w2");

#define SBA200_UNET_CMD_OPCODE_SHIFT 0
#define SBA200_UNET_CMD_OPCODE_MASK  (0xFFu << 0)
#define SBA200_UNET_CMD_IRQ          (1u << 8) /* interrupt on completion */

#define SBA200_UNET_CMD_STATUS_SHIFT 0        /* [P] position of the status code */
#define SBA200_UNET_CMD_STATUS_MASK  (0xFFu << 0)
#define SBA200_UNET_CMD_ERROR_SHIFT  8
#define SBA200_UNET_CMD_ERROR_MASK   (0xFFu << 8)

/* Command status codes (w1 bits 7:0). */
#define SBA200_UNET_CMD_STATUS_FREE    0u
#define SBA200_UNET_CMD_STATUS_PENDING 1u
#define SBA200_UNET_CMD_STATUS_DONE    2u
#define SBA200_UNET_CMD_STATUS_ERROR   3u

/* Command error codes (w1 bits 15:8, with STATUS_ERROR) [P]. */
#define SBA200_UNET_CMD_ERR_NONE          0u
#define SBA200_UNET_CMD_ERR_BAD_OPCODE    1u /* unknown opcode */
#define SBA200_UNET_CMD_ERR_BAD_ENDPOINT  2u /* endpoint number >= 32 */
#define SBA200_UNET_CMD_ERR_EP_ACTIVE     3u /* EP_CREATE on an active endpoint */
#define SBA200_UNET_CMD_ERR_EP_INACTIVE   4u /* command needs an active endpoint */
#define SBA200_UNET_CMD_ERR_BAD_CHANNEL   5u /* channel >= 64, or CH_CLOSE of a closed channel */
#define SBA200_UNET_CMD_ERR_CHANNEL_OPEN  6u /* CH_OPEN of an open channel */
#define SBA200_UNET_CMD_ERR_BAD_VCI       7u /* VCI reserved (< 32) or >= 1024, or VPI > 255 */
#define SBA200_UNET_CMD_ERR_VCI_IN_USE    8u /* RX VCI already routed to a channel, or TX VCI used by an open channel of this card */
#define SBA200_UNET_CMD_ERR_BAD_SEGMENT   9u /* segment length 0, base not 64-aligned, or not in a DMA region */
#define SBA200_UNET_CMD_ERR_BAD_RQ        10u /* RQ_LEN not a power of two in range, base not 64-aligned, or not in a DMA region */
#define SBA200_UNET_CMD_ERR_BAD_MODE      11u /* EP_UPCALL mode has bits other than NONEMPTY | ALMOST_FULL */
#define SBA200_UNET_CMD_ERR_DMA           12u /* GET_STATS address not in a registered DMA region */

/* Opcodes (w0 bits 7:0). */
#define SBA200_UNET_OP_EP_CREATE  (0x01u)
#define SBA200_UNET_OP_EP_DESTROY (0x02u)
#define SBA200_UNET_OP_CH_OPEN    (0x03u)
#define SBA200_UNET_OP_CH_CLOSE   (0x04u)
#define SBA200_UNET_OP_EP_UPCALL  (0x05u)
#define SBA200_UNET_OP_GET_STATS  (0x06u)
#define SBA200_UNET_OP_NOP        (0x07u) /* echo: completes DONE with no effect */

/*
 * Argument word positions per opcode: _W is the command word index (2..7), _OFS its byte offset
 * inside the command. arg[k] of sba200_unet_cmd_t is word k + 2.
 */
/* EP_CREATE: ep, segment DMA base, segment length, RQ DMA base, RQ_LEN. */
#define SBA200_UNET_CMD_EP_CREATE_EP_W        2
#define SBA200_UNET_CMD_EP_CREATE_SEG_BASE_W  3
#define SBA200_UNET_CMD_EP_CREATE_SEG_LEN_W   4
#define SBA200_UNET_CMD_EP_CREATE_RQ_BASE_W   5
#define SBA200_UNET_CMD_EP_CREATE_RQ_LEN_W    6
#define SBA200_UNET_CMD_EP_CREATE_EP_OFS        8
#define SBA200_UNET_CMD_EP_CREATE_SEG_BASE_OFS  12
#define SBA200_UNET_CMD_EP_CREATE_SEG_LEN_OFS   16
#define SBA200_UNET_CMD_EP_CREATE_RQ_BASE_OFS   20
#define SBA200_UNET_CMD_EP_CREATE_RQ_LEN_OFS    24
/* EP_DESTROY: ep. Closes every channel of the endpoint and clears its VCI entries. */
#define SBA200_UNET_CMD_EP_DESTROY_EP_W       2
#define SBA200_UNET_CMD_EP_DESTROY_EP_OFS     8
/* CH_OPEN: ep, chan, VPI, TX VCI, RX VCI; fills the VCI demux entry of RX VCI. */
#define SBA200_UNET_CMD_CH_OPEN_EP_W          2
#define SBA200_UNET_CMD_CH_OPEN_CHAN_W        3
#define SBA200_UNET_CMD_CH_OPEN_VPI_W         4
#define SBA200_UNET_CMD_CH_OPEN_TX_VCI_W      5
#define SBA200_UNET_CMD_CH_OPEN_RX_VCI_W      6
#define SBA200_UNET_CMD_CH_OPEN_EP_OFS        8
#define SBA200_UNET_CMD_CH_OPEN_CHAN_OFS      12
#define SBA200_UNET_CMD_CH_OPEN_VPI_OFS       16
#define SBA200_UNET_CMD_CH_OPEN_TX_VCI_OFS    20
#define SBA200_UNET_CMD_CH_OPEN_RX_VCI_OFS    24
/* CH_CLOSE: ep, chan. */
#define SBA200_UNET_CMD_CH_CLOSE_EP_W         2
#define SBA200_UNET_CMD_CH_CLOSE_CHAN_W       3
#define SBA200_UNET_CMD_CH_CLOSE_EP_OFS       8
#define SBA200_UNET_CMD_CH_CLOSE_CHAN_OFS     12
/* EP_UPCALL: ep, mode (SBA200_UNET_UPCALL_*). */
#define SBA200_UNET_CMD_EP_UPCALL_EP_W        2
#define SBA200_UNET_CMD_EP_UPCALL_MODE_W      3
#define SBA200_UNET_CMD_EP_UPCALL_EP_OFS      8
#define SBA200_UNET_CMD_EP_UPCALL_MODE_OFS    12
/* GET_STATS: host DMA address; [P] the firmware DMA's the 64-byte sba200_unet_stats_t there. */
#define SBA200_UNET_CMD_GET_STATS_ADDR_W      2
#define SBA200_UNET_CMD_GET_STATS_ADDR_OFS    8

/* ============================================================================================
 * B.4 VCI demux table at 0x2000: 1024 x 4 bytes, indexed by the incoming VCI; kernel-written
 * through CH_OPEN/CH_CLOSE only (read-only to everyone else).
 *
 * B.4 gives the fields {valid:1, ep:5, chan:6, ...}; [P] their bit positions, and the "..."
 * as the VPI the channel was opened with (a cell whose VPI differs counts as unknown VCI):
 *
 *   31   30  29 28     24 23 22 21      16 15        8 7          0
 *  +-----+------+--------+-----+----------+------------+------------+
 *  |VALID|  0   |   EP   |  0  |   CHAN   |     0      |    VPI     |
 *  +-----+------+--------+-----+----------+------------+------------+
 * ========================================================================================== */

#define SBA200_UNET_VCI_VALID      (1u << 31)
#define SBA200_UNET_VCI_EP_SHIFT   24
#define SBA200_UNET_VCI_EP_MASK    (0x1Fu << 24)
#define SBA200_UNET_VCI_CHAN_SHIFT 16
#define SBA200_UNET_VCI_CHAN_MASK  (0x3Fu << 16)
#define SBA200_UNET_VCI_VPI_SHIFT  0
#define SBA200_UNET_VCI_VPI_MASK   (0xFFu << 0)
/** Valid VCIs index the table directly: 10 VCI bits, as on Fore's firmware (1024 connections). */
#define SBA200_UNET_VCI_INDEX_MASK (0x3FFu)
#define SBA200_UNET_VCI_FIRST_USER 32  /* VCIs 0-31 are reserved (D.2) */

/** Conveniences. */
#define SBA200_UNET_VCI_ENTRY(ep, chan, vpi) \
    (SBA200_UNET_VCI_VALID | ((uint32_t)(ep) << SBA200_UNET_VCI_EP_SHIFT) | \
     ((uint32_t)(chan) << SBA200_UNET_VCI_CHAN_SHIFT) | ((uint32_t)(vpi) << SBA200_UNET_VCI_VPI_SHIFT))
#define SBA200_UNET_VCI_EP(e)   (((e) & SBA200_UNET_VCI_EP_MASK) >> SBA200_UNET_VCI_EP_SHIFT)
#define SBA200_UNET_VCI_CHAN(e) (((e) & SBA200_UNET_VCI_CHAN_MASK) >> SBA200_UNET_VCI_CHAN_SHIFT)

/* ============================================================================================
 * B.4 Descriptors and queue entries
 *
 * Buffer pair {offset, length}: an extent of the endpoint's communication segment.
 * ========================================================================================== */

typedef struct sba200_unet_buf {
    uint32_t offset; /* byte offset into the segment */
    uint32_t length; /* bytes */
} sba200_unet_buf_t;

_Static_assert(sizeof(sba200_unet_buf_t) == 8, "buffer pair is 8 bytes");
_Static_assert(offsetof(sba200_unet_buf_t, length) == 4, "length at +4");

#define SBA200_UNET_MAX_BUFS    6     /* buffer pairs per descriptor */
#define SBA200_UNET_INLINE_MAX  40    /* 48-byte cell payload - 8-byte AAL5 trailer */
#define SBA200_UNET_MAX_PDU     65535
#define SBA200_UNET_MAX_CHANNELS 64   /* per endpoint (6-bit channel) */

/*
 * Send descriptor (64 bytes, SQ slot in board RAM; user writes by PIO, VALID in w0 last).
 *
 *   w0   31   30   29   28 27  24 23 22 21    16 15                0
 *       +-----+---+------+---+-----+-----+--------+-------------------+
 *       |VALID| 0 |INLINE| 0 |NBUFS|  0  |  CHAN  |      LENGTH       |
 *       +-----+---+------+---+-----+-----+--------+-------------------+
 *   w1   NI status (SBA200_UNET_TX_*), written by the NI before it advances sq_cons
 *   w2..w13  bufs[0..5] {offset, length}      -- or, with INLINE --
 *   w2..w11  up to 40 payload bytes (byte offsets 8..47, wire order)
 *   w14..w15 reserved
 *
 * The NI never writes w0 [P]; a slot may be rewritten once sq_cons has passed it.
 */
typedef struct sba200_unet_send_desc {
    uint32_t w0;                 /* +0x00 */
    uint32_t status;             /* +0x04 */
    sba200_unet_buf_t bufs[6];   /* +0x08, overlaid by the inline payload */
    uint32_t reserved[2];        /* +0x38 */
} sba200_unet_send_desc_t;

#define SBA200_UNET_SEND_DESC_SIZE       64
#define SBA200_UNET_SEND_DESC_W0_OFS     0
#define SBA200_UNET_SEND_DESC_STATUS_OFS 4
#define SBA200_UNET_SEND_DESC_BUFS_OFS   8
/** Inline overlay: payload bytes occupy [8, 48) of the descriptor (w2..w11). */
#define SBA200_UNET_SEND_DESC_INLINE_OFS  8
#define SBA200_UNET_SEND_DESC_INLINE_SIZE 40

_Static_assert(sizeof(sba200_unet_send_desc_t) == SBA200_UNET_SEND_DESC_SIZE, "send descriptor is 64 bytes");
_Static_assert(offsetof(sba200_unet_send_desc_t, status) == SBA200_UNET_SEND_DESC_STATUS_OFS, "status at w1");
_Static_assert(offsetof(sba200_unet_send_desc_t, bufs) == SBA200_UNET_SEND_DESC_BUFS_OFS, "bufs at w2");
_Static_assert(offsetof(sba200_unet_send_desc_t, reserved) == 56, "reserved at w14");

#define SBA200_UNET_TX_LENGTH_SHIFT 0
#define SBA200_UNET_TX_LENGTH_MASK  (0xFFFFu << 0)
#define SBA200_UNET_TX_CHAN_SHIFT   16
#define SBA200_UNET_TX_CHAN_MASK    (0x3Fu << 16)
#define SBA200_UNET_TX_NBUFS_SHIFT  24
#define SBA200_UNET_TX_NBUFS_MASK   (0xFu << 24)
#define SBA200_UNET_TX_INLINE       (1u << 29)
#define SBA200_UNET_TX_VALID        (1u << 31)

/* Send status codes (w1). */
#define SBA200_UNET_TX_STATUS_PENDING     0u
#define SBA200_UNET_TX_STATUS_SENT        1u
#define SBA200_UNET_TX_STATUS_BAD_CHANNEL 2u /* channel not open on this endpoint */
#define SBA200_UNET_TX_STATUS_SEG_BOUNDS  3u /* offset + length beyond the segment */
#define SBA200_UNET_TX_STATUS_TOO_LONG    4u /* length > 65535, or INLINE with length > 40 */
#define SBA200_UNET_TX_STATUS_BAD_DESC    5u /* [P] nbufs 0 or > 6, or lengths do not sum to length */
#define SBA200_UNET_TX_STATUS_DMA_ERROR   6u /* [P] segment bytes not reachable by DMA (bus error) */

/*
 * Receive descriptor (64 bytes, RQ slot in HOST memory, written by NI DMA; RQ_LEN chosen at
 * EP_CREATE, default 64). The NI writes w1..w15 first and w0 (with VALID) last; the user reads
 * w0 with acquire, consumes the entry, clears VALID and advances rq_cons.
 *
 *   w0   31    30     29   28 27  24 23 22 21    16 15                0
 *       +-----+------+-----+---+-----+-----+--------+-------------------+
 *       |VALID|INLINE|ERROR| 0 |NBUFS|  0  |  CHAN  |      LENGTH       |
 *       +-----+------+-----+---+-----+-----+--------+-------------------+
 *   w1   31     24 23        16 15          8 7           0
 *       +---------+------------+-------------+-------------+
 *       |    0    | error code |  AAL5 UU    |  AAL5 CPI   |
 *       +---------+------------+-------------+-------------+
 *   w2..w13  bufs[0..5] {offset, length}, free buffers in free-queue order -- or, INLINE --
 *   w2..w11  the <= 40 bytes of a single-cell message (consumes no free buffer)
 *   w14..w15 timestamp in microseconds (64-bit, big-endian: w14 high, w15 low; 0 if unused)
 */
typedef struct sba200_unet_recv_desc {
    uint32_t w0;                 /* +0x00 */
    uint32_t w1;                 /* +0x04 */
    sba200_unet_buf_t bufs[6];   /* +0x08, overlaid by the inline payload */
    uint64_t timestamp_us;       /* +0x38 */
} sba200_unet_recv_desc_t;

#define SBA200_UNET_RECV_DESC_SIZE          64
#define SBA200_UNET_RECV_DESC_W0_OFS        0
#define SBA200_UNET_RECV_DESC_W1_OFS        4
#define SBA200_UNET_RECV_DESC_BUFS_OFS      8
#define SBA200_UNET_RECV_DESC_TIMESTAMP_OFS 56
/** Inline overlay: payload bytes occupy [8, 48) of the descriptor (w2..w11). */
#define SBA200_UNET_RECV_DESC_INLINE_OFS    8
#define SBA200_UNET_RECV_DESC_INLINE_SIZE   40

_Static_assert(sizeof(sba200_unet_recv_desc_t) == SBA200_UNET_RECV_DESC_SIZE, "receive descriptor is 64 bytes");
_Static_assert(offsetof(sba200_unet_recv_desc_t, w1) == SBA200_UNET_RECV_DESC_W1_OFS, "w1 at +4");
_Static_assert(offsetof(sba200_unet_recv_desc_t, bufs) == SBA200_UNET_RECV_DESC_BUFS_OFS, "bufs at w2");
_Static_assert(offsetof(sba200_unet_recv_desc_t, timestamp_us) == SBA200_UNET_RECV_DESC_TIMESTAMP_OFS,
               "timestamp at w14");

#define SBA200_UNET_RX_LENGTH_SHIFT 0
#define SBA200_UNET_RX_LENGTH_MASK  (0xFFFFu << 0)
#define SBA200_UNET_RX_CHAN_SHIFT   16
#define SBA200_UNET_RX_CHAN_MASK    (0x3Fu << 16)
#define SBA200_UNET_RX_NBUFS_SHIFT  24
#define SBA200_UNET_RX_NBUFS_MASK   (0xFu << 24)
#define SBA200_UNET_RX_ERROR        (1u << 29)
#define SBA200_UNET_RX_INLINE       (1u << 30)
#define SBA200_UNET_RX_VALID        (1u << 31)

#define SBA200_UNET_RX_CPI_SHIFT    0
#define SBA200_UNET_RX_CPI_MASK     (0xFFu << 0)
#define SBA200_UNET_RX_UU_SHIFT     8
#define SBA200_UNET_RX_UU_MASK      (0xFFu << 8)
#define SBA200_UNET_RX_ERR_SHIFT    16
#define SBA200_UNET_RX_ERR_MASK     (0xFFu << 16)

/* Receive error codes (w1 bits 23:16, with w0 ERROR). */
#define SBA200_UNET_RX_ERR_NONE          0u
#define SBA200_UNET_RX_ERR_CRC           1u /* AAL5 CRC-32 mismatch */
#define SBA200_UNET_RX_ERR_LENGTH        2u /* AAL5 length field inconsistent with the cells */
#define SBA200_UNET_RX_ERR_NO_BUFFERS    3u /* free queue exhausted mid-PDU */
#define SBA200_UNET_RX_ERR_TOO_MANY_BUFS 4u /* PDU needs more than 6 free buffers */
#define SBA200_UNET_RX_ERR_DMA           5u /* [P] free buffer not reachable by DMA (bus error) */

/*
 * Free-queue entry (8 bytes, FQ slot in board RAM, user writes): a free buffer of the segment.
 *
 *   +0 offset (64-byte aligned)   +4 length
 */
typedef struct sba200_unet_fq_entry {
    uint32_t offset;
    uint32_t length;
} sba200_unet_fq_entry_t;

#define SBA200_UNET_FQ_ENTRY_SIZE    8
#define SBA200_UNET_FQ_BUF_ALIGN     64
_Static_assert(sizeof(sba200_unet_fq_entry_t) == SBA200_UNET_FQ_ENTRY_SIZE, "free-queue entry is 8 bytes");
_Static_assert(offsetof(sba200_unet_fq_entry_t, length) == 4, "length at +4");

/* ============================================================================================
 * B.4 Endpoint page (4 KiB, mapped into exactly one process)
 *
 *   0x000 +----------------------------+ EPCB, 64 B
 *   0x040 +----------------------------+ reserved, 960 B
 *   0x400 +----------------------------+ send queue: 32 x 64 B send descriptors
 *   0xC00 +----------------------------+ free queue: 128 x 8 B entries
 *   0x1000+----------------------------+
 *
 * EPCB (word offsets; "user" = the owning process writes, "NI" = the firmware writes):
 *
 *   +0x00 sq_prod        user (doorbell: the NI's poll of the send queue)
 *   +0x04 sq_cons        NI
 *   +0x08 fq_prod        user
 *   +0x0C fq_cons        NI
 *   +0x10 rq_cons        user
 *   +0x14 rq_prod_shadow NI (how far the NI has written the host receive queue)
 *   +0x18 ep_status      NI: bit 0 ACTIVE, 1 SEGFAULT, 2 RQ_OVERRUN, 3 NO_FREE_BUF (sticky)
 *   +0x1C upcall_mode    kernel via EP_UPCALL (0 none, 1 on non-empty, 2 on almost full, 3 both)
 *   +0x20 drop counter: RQ overrun          [P] names of the four drop counters
 *   +0x24 drop counter: no free buffer      [P]
 *   +0x28 drop counter: PDUs delivered with ERROR (CRC, length, buffers)  [P]
 *   +0x2C drop counter: send descriptors rejected (status >= 2)           [P]
 *   +0x30 rq_len         NI copy of RQ_LEN from EP_CREATE [P]
 *   +0x34 seg_len        NI copy of the segment length from EP_CREATE [P]
 *   +0x38..0x3F reserved
 *
 * Queue indices are free-running 32-bit counters; slot = index mod length (every length is a
 * power of two so that the wrap at 2^32 keeps slots in sequence). Empty: prod == cons; full:
 * prod - cons == length. The producer writes the entry first and its index last (release).
 * ========================================================================================== */

typedef struct sba200_unet_epcb {
    uint32_t sq_prod;          /* +0x00 */
    uint32_t sq_cons;          /* +0x04 */
    uint32_t fq_prod;          /* +0x08 */
    uint32_t fq_cons;          /* +0x0C */
    uint32_t rq_cons;          /* +0x10 */
    uint32_t rq_prod_shadow;   /* +0x14 */
    uint32_t ep_status;        /* +0x18 */
    uint32_t upcall_mode;      /* +0x1C */
    uint32_t drop_rq_overrun;  /* +0x20 */
    uint32_t drop_no_free_buf; /* +0x24 */
    uint32_t rx_errors;        /* +0x28 */
    uint32_t tx_rejected;      /* +0x2C */
    uint32_t rq_len;           /* +0x30 [P] */
    uint32_t seg_len;          /* +0x34 [P] */
    uint32_t reserved[2];      /* +0x38 */
} sba200_unet_epcb_t;

#define SBA200_UNET_EPCB_SIZE                 64
#define SBA200_UNET_EPCB_SQ_PROD_OFS          0x00
#define SBA200_UNET_EPCB_SQ_CONS_OFS          0x04
#define SBA200_UNET_EPCB_FQ_PROD_OFS          0x08
#define SBA200_UNET_EPCB_FQ_CONS_OFS          0x0C
#define SBA200_UNET_EPCB_RQ_CONS_OFS          0x10
#define SBA200_UNET_EPCB_RQ_PROD_SHADOW_OFS   0x14
#define SBA200_UNET_EPCB_EP_STATUS_OFS        0x18
#define SBA200_UNET_EPCB_UPCALL_MODE_OFS      0x1C
#define SBA200_UNET_EPCB_DROP_RQ_OVERRUN_OFS  0x20
#define SBA200_UNET_EPCB_DROP_NO_FREE_BUF_OFS 0x24
#define SBA200_UNET_EPCB_RX_ERRORS_OFS        0x28
#define SBA200_UNET_EPCB_TX_REJECTED_OFS      0x2C
#define SBA200_UNET_EPCB_RQ_LEN_OFS           0x30
#define SBA200_UNET_EPCB_SEG_LEN_OFS          0x34

_Static_assert(sizeof(sba200_unet_epcb_t) == SBA200_UNET_EPCB_SIZE, "EPCB is 64 bytes");
_Static_assert(offsetof(sba200_unet_epcb_t, rq_prod_shadow) == SBA200_UNET_EPCB_RQ_PROD_SHADOW_OFS,
               "rq_prod_shadow at +0x14");
_Static_assert(offsetof(sba200_unet_epcb_t, ep_status) == SBA200_UNET_EPCB_EP_STATUS_OFS, "ep_status at +0x18");
_Static_assert(offsetof(sba200_unet_epcb_t, drop_rq_overrun) == SBA200_UNET_EPCB_DROP_RQ_OVERRUN_OFS,
               "drop counters at +0x20");
_Static_assert(offsetof(sba200_unet_epcb_t, seg_len) == SBA200_UNET_EPCB_SEG_LEN_OFS, "seg_len at +0x34");

/* ep_status bits. */
#define SBA200_UNET_EP_ACTIVE      (1u << 0)
#define SBA200_UNET_EP_SEGFAULT    (1u << 1) /* a send descriptor violated the segment bounds */
#define SBA200_UNET_EP_RQ_OVERRUN  (1u << 2) /* a PDU was dropped: next RQ slot still VALID */
#define SBA200_UNET_EP_NO_FREE_BUF (1u << 3) /* a PDU found the free queue empty */

/* Upcall modes. */
/* Upcall mode: a bit mask of conditions, each edge-triggered (signalled once when it becomes true at a delivery:
 * NONEMPTY when the entry just published is the only one outstanding, rq_prod - rq_cons == 1; ALMOST_FULL when
 * that entry crossed the threshold below). Both bits together signal on either edge (paper 3.1). */
#define SBA200_UNET_UPCALL_NONE        0u
#define SBA200_UNET_UPCALL_NONEMPTY    1u /* signal when the receive queue becomes non-empty */
#define SBA200_UNET_UPCALL_ALMOST_FULL 2u /* signal when it reaches the threshold below */
#define SBA200_UNET_UPCALL_BOTH        3u /* either edge */
/** [P] "Almost full" = at least 3/4 of RQ_LEN entries outstanding. */
#define SBA200_UNET_UPCALL_ALMOST_FULL_NUM 3
#define SBA200_UNET_UPCALL_ALMOST_FULL_DEN 4

/* Queues. */
#define SBA200_UNET_EP_RESERVED_OFS  (0x040)
#define SBA200_UNET_EP_RESERVED_SIZE 960
#define SBA200_UNET_SQ_OFS           (0x400)
#define SBA200_UNET_SQ_LEN           32
#define SBA200_UNET_SQ_SIZE          (0x800)
#define SBA200_UNET_FQ_OFS           (0xC00)
#define SBA200_UNET_FQ_LEN           128
#define SBA200_UNET_FQ_SIZE          (0x400)
#define SBA200_UNET_RQ_LEN_DEFAULT   64
#define SBA200_UNET_RQ_LEN_MIN       2    /* [P] power of two */
#define SBA200_UNET_RQ_LEN_MAX       4096 /* [P] power of two */
#define SBA200_UNET_RQ_ENTRY_SIZE    64
/** [P] EP_CREATE alignment rules: RQ DMA base and segment DMA base 64-byte aligned (as Fore's
 *  64-byte buffer alignment), so every RQ entry - including its 64-bit timestamp - is aligned. */
#define SBA200_UNET_RQ_ALIGN         64
#define SBA200_UNET_SEG_ALIGN        64

typedef struct sba200_unet_ep_page {
    sba200_unet_epcb_t epcb;               /* 0x000 */
    uint8_t reserved[960];                 /* 0x040 */
    sba200_unet_send_desc_t sq[32];        /* 0x400 */
    sba200_unet_fq_entry_t fq[128];        /* 0xC00 */
} sba200_unet_ep_page_t;

_Static_assert(sizeof(sba200_unet_ep_page_t) == SBA200_UNET_EP_PAGE_SIZE, "endpoint page is 4 KiB");
_Static_assert(offsetof(sba200_unet_ep_page_t, reserved) == SBA200_UNET_EP_RESERVED_OFS, "reserved at 0x40");
_Static_assert(offsetof(sba200_unet_ep_page_t, sq) == SBA200_UNET_SQ_OFS, "send queue at 0x400");
_Static_assert(offsetof(sba200_unet_ep_page_t, fq) == SBA200_UNET_FQ_OFS, "free queue at 0xC00");

/** Conveniences: page-relative offsets of SQ slot i and FQ slot i (i already reduced mod len). */
#define SBA200_UNET_SQ_SLOT_OFFSET(i) (SBA200_UNET_SQ_OFS + (i) * SBA200_UNET_SEND_DESC_SIZE)
#define SBA200_UNET_FQ_SLOT_OFFSET(i) (SBA200_UNET_FQ_OFS + (i) * SBA200_UNET_FQ_ENTRY_SIZE)

/* ============================================================================================
 * D.2 ATM cell and AAL5
 *
 * UNI cell header as a big-endian 32-bit word (bytes 0-3; the HEC is byte 4):
 *
 *   31  28 27        20 19                            4 3   1  0
 *  +------+------------+-------------------------------+-----+---+
 *  | GFC  |    VPI     |              VCI              | PTI |CLP|
 *  +------+------------+-------------------------------+-----+---+
 * ========================================================================================== */

#define SBA200_UNET_CELL_SIZE          53
#define SBA200_UNET_CELL_HEADER_SIZE   5
#define SBA200_UNET_CELL_HEADER_NO_HEC 4
#define SBA200_UNET_CELL_PAYLOAD       48
#define SBA200_UNET_HDR_GFC_SHIFT      28
#define SBA200_UNET_HDR_GFC_MASK       (0xFu << 28)
#define SBA200_UNET_HDR_VPI_SHIFT      20
#define SBA200_UNET_HDR_VPI_MASK       (0xFFu << 20)   /* UNI: 0x0FF00000 */
#define SBA200_UNET_HDR_VPI_NNI_MASK   (0xFFFu << 20)  /* NNI: 0xFFF00000 */
#define SBA200_UNET_HDR_VCI_SHIFT      4
#define SBA200_UNET_HDR_VCI_MASK       (0xFFFFu << 4)  /* 0x000FFFF0 */
#define SBA200_UNET_HDR_PTI_SHIFT      1
#define SBA200_UNET_HDR_PTI_MASK       (0x7u << 1)     /* 0x0000000E */
#define SBA200_UNET_HDR_CLP            (1u << 0)

/* PTI values (unshifted). 0xx = user data: bit 1 EFCI, bit 0 AUU (end of AAL5 PDU). */
#define SBA200_UNET_PTI_USER_DATA      0u
#define SBA200_UNET_PTI_AUU            (0x1u) /* last cell of an AAL5 PDU */
#define SBA200_UNET_PTI_EFCI           (0x2u) /* congestion experienced */
#define SBA200_UNET_PTI_NON_USER       (0x4u) /* set: not user data */
#define SBA200_UNET_PTI_OAM_F5_SEGMENT 4u
#define SBA200_UNET_PTI_OAM_F5_E2E     5u
#define SBA200_UNET_PTI_RM             6u
#define SBA200_UNET_PTI_RESERVED       7u

/* Reserved VCIs on VPI 0 (D.2, [R]). */
#define SBA200_UNET_VCI_UNASSIGNED     0
#define SBA200_UNET_VCI_F4_OAM_SEGMENT 3
#define SBA200_UNET_VCI_F4_OAM_E2E     4
#define SBA200_UNET_VCI_SIGNALLING     5
#define SBA200_UNET_VCI_ILMI           16

/* HEC: CRC-8 x^8 + x^2 + x + 1, MSB-first over header bytes 0-3 from 0, XORed with the coset. */
#define SBA200_UNET_HEC_POLY           (0x07u)  /* 0x107 without the x^8 term */
#define SBA200_UNET_HEC_COSET          (0x55u)
#define SBA200_UNET_IDLE_CELL_HEADER   (0x00000001u)
#define SBA200_UNET_IDLE_CELL_HEC      (0x52u)
#define SBA200_UNET_ZERO_HEADER_HEC    (0x55u)

/*
 * AAL5 CPCS-PDU: payload (0-65535) + PAD (0-47) + 8-byte trailer, total a multiple of 48.
 *
 *   trailer byte  0        1        2      3      4                     7
 *                +--------+--------+--------------+-----------------------+
 *                |CPCS-UU |  CPI   | Length (BE)  |     CRC-32 (BE)       |
 *                +--------+--------+--------------+-----------------------+
 */
#define SBA200_UNET_AAL5_TRAILER_SIZE  8
#define SBA200_UNET_AAL5_UU_OFS        0
#define SBA200_UNET_AAL5_CPI_OFS       1
#define SBA200_UNET_AAL5_LENGTH_OFS    2
#define SBA200_UNET_AAL5_CRC_OFS       4
#define SBA200_UNET_AAL5_MAX_PAD       47
#define SBA200_UNET_AAL5_MAX_PDU       65535
#define SBA200_UNET_AAL5_LENGTH_ABORT  0     /* Length 0 = abort */
/** Single-cell capacity: 48 - 8. */
#define SBA200_UNET_AAL5_SINGLE_CELL_MAX 40
/** Cells needed for a payload of len bytes: ceil((len + 8) / 48). */
#define SBA200_UNET_AAL5_CELLS(len) (((len) + SBA200_UNET_AAL5_TRAILER_SIZE + SBA200_UNET_CELL_PAYLOAD - 1) / \
                                     SBA200_UNET_CELL_PAYLOAD)

/* AAL5 CRC: CRC-32/BZIP2 parameters (MSB-first, not reflected), over payload+pad+UU+CPI+Length. */
#define SBA200_UNET_AAL5_CRC_POLY      (0x04C11DB7u)
#define SBA200_UNET_AAL5_CRC_INIT      (0xFFFFFFFFu)
#define SBA200_UNET_AAL5_CRC_XOROUT    (0xFFFFFFFFu)
#define SBA200_UNET_AAL5_CRC_CHECK     (0xFC891918u) /* of "123456789" */
/* Test vectors: 40-byte payload, UU = 0, CPI = 0, LEN = 0x0028. */
#define SBA200_UNET_AAL5_CRC_TV_ZEROS  (0x864D7F99u) /* 40 x 0x00 */
#define SBA200_UNET_AAL5_CRC_TV_ONES   (0xC55E457Au) /* 40 x 0xFF */
#define SBA200_UNET_AAL5_CRC_TV_COUNT  (0xBF671ED0u) /* bytes 0x01..0x28 */

/* Link timing (B.1, D.2): 140 Mb/s TAXI. */
#define SBA200_UNET_LINK_BPS           140000000
#define SBA200_UNET_CELL_TIME_NS       3029      /* 53 x 8 / 140e6 s = 3.029 us */
#define SBA200_UNET_CELL_TIME_PS       3028571   /* the same, to the picosecond */
#define SBA200_UNET_CELLS_PER_SEC      330188    /* floor(140e6 / 424) */
#define SBA200_UNET_AAL5_PAYLOAD_BPS   126792452 /* 140e6 x 48 / 53 */
#define SBA200_UNET_OC3_LINE_BPS       155520000
#define SBA200_UNET_OC3_PCR            353207    /* cells/s (Linux ATM_OC3_PCR) */

/* pcap linktypes for U-Net captures (D.4). */
#define SBA200_UNET_PCAP_LINKTYPE_SUNATM 123
#define SBA200_UNET_PCAP_LINKTYPE_ERF    197

#endif /* NICBRIDGE_SBA200_UNET_H */
