/*
 * medusa.h - device contract of the emulated HP "Medusa" FDDI adapter.
 *
 * Almost nothing register-level about the real Medusa survives in the literature
 * (docs/hardware-facts.md C.1), so this whole register contract is the project's PROPOSAL of
 * docs/hardware-facts.md section C.2 [P], shaped by the facts that are known:
 * 1 MB of on-board buffer memory in 128 buffers of 8 KB, host access by programmed I/O only
 * (the host CPU makes the single copy), a checksum unit that sums data as the host copies it,
 * and FIFOs of buffer numbers used as doorbells. FDDI wire constants come from section D.3.
 *
 * Design rules (C.2): big-endian (PA-RISC host); 32-bit registers; buffer RAM accepts byte,
 * halfword and word PIO; no bus-master DMA at all.
 *
 * Naming: every constant is MEDUSA_<REGISTER or STRUCTURE>_<FIELD>. Single-bit fields are a
 * mask in place ((1u << n)); multi-bit fields come as a _SHIFT / _MASK pair (mask in place).
 */
#ifndef NICBRIDGE_MEDUSA_H
#define NICBRIDGE_MEDUSA_H

#include <stddef.h>
#include <stdint.h>

/** Byte order of the window and of the structs below (1 = big-endian). */
#define MEDUSA_BIG_ENDIAN 1

/* ============================================================================================
 * C.2 Window (2 MiB)
 *
 *   0x000000 +--------------------------------------+
 *            | buffer RAM, 1 MiB                    |  buffer n (0-127) at n x 0x2000, 8 KiB each
 *   0x100000 +--------------------------------------+
 *            | control/status registers, 256 B      |
 *   0x100100 +--------------------------------------+
 *            | reserved (reads 0, writes ignored)[P]|
 *   0x100800 +--------------------------------------+
 *            | buffer status table, 128 x 16 B      |
 *   0x101000 +--------------------------------------+
 *            | reserved up to 2 MiB [P]             |
 *   0x200000 +--------------------------------------+
 * ========================================================================================== */

#define MEDUSA_WINDOW_SIZE        (0x200000)
#define MEDUSA_BUF_RAM_OFS        (0x000000)
#define MEDUSA_BUF_RAM_SIZE       (0x100000)
#define MEDUSA_BUF_COUNT          128
#define MEDUSA_BUF_SIZE           (0x2000)
/** Buffer numbers are 7 bits wide everywhere they appear (FIFOs). */
#define MEDUSA_BUF_NUM_MASK       (0x7Fu)
#define MEDUSA_REGS_OFS           (0x100000)
#define MEDUSA_REGS_SIZE          256
#define MEDUSA_BUF_STATUS_OFS     (0x100800)
#define MEDUSA_BUF_STATUS_SIZE    (0x800)
#define MEDUSA_BUF_STATUS_ENTRY_SIZE 16

/** Window offset of buffer n (convenience; the generator ignores function-like macros). */
#define MEDUSA_BUF_OFFSET(n)        ((n) * MEDUSA_BUF_SIZE)
/** Window offset of buffer n's status entry. */
#define MEDUSA_BUF_STATUS_OFFSET(n) (MEDUSA_BUF_STATUS_OFS + (n) * MEDUSA_BUF_STATUS_ENTRY_SIZE)

/*
 * Frame placement in a buffer (C.2). The stored frame is FC, DA(6), SA(6), INFO - no preamble,
 * SD, ED or FS. With FRAME_OFS = 3 (the default, CTRL.FRAME_OFS3 = 1) FC sits at byte 3, the
 * LLC/SNAP header at 16 and the IP header at 24, so IP is word-aligned for the host. The card
 * appends the FCS on transmit and strips it on receive unless CTRL.KEEP_FCS is set.
 *
 *   byte 0   3   4          10         16             24
 *        +---+---+----------+----------+--------------+---------------
 *        |pad|FC |    DA    |    SA    | LLC/SNAP (8) | IP header ...
 *        +---+---+----------+----------+--------------+---------------
 */
#define MEDUSA_FRAME_OFS_DEFAULT  3
#define MEDUSA_FRAME_OFS_ALT      0
#define MEDUSA_FRAME_FC_OFS       0   /* relative to the frame start */
#define MEDUSA_FRAME_DA_OFS       1
#define MEDUSA_FRAME_SA_OFS       7
#define MEDUSA_FRAME_LLC_OFS      13
#define MEDUSA_FRAME_IP_OFS       21  /* FC + DA + SA + LLC/SNAP */

/* ============================================================================================
 * C.2 Registers (offsets from MEDUSA_REGS_OFS = 0x100000), all 32-bit big-endian
 *
 *   +0x00 ID          RO   0x4D445341 "MDSA"     +0x20 TREQ_US     RW  requested TTRT, us
 *   +0x04 REV         RO   revision              +0x24 TX_FIFO     WO  push buffer number
 *   +0x08 CTRL        RW                         +0x28 TXDONE_FIFO RO  pop (0 when empty)
 *   +0x0C STATUS      RO                         +0x2C RX_FIFO     RO  pop (0 when empty)
 *   +0x10 ISR         W1C                        +0x30 FREE_FIFO   WO  push buffer number
 *   +0x14 IMR         RW                         +0x34 FIFO_LEVEL  RO
 *   +0x18 MACADDR_HI  RW                         +0x38 RXCK_START  RW
 *   +0x1C MACADDR_LO  RW                         +0x3C PIO_CKSUM   RW
 *   +0x40..0x5C counters (RO), 8 x 32 bit        +0x60..0xFF reserved [P]
 * ========================================================================================== */

#define MEDUSA_REG_ID          0x00
#define MEDUSA_REG_REV         0x04
#define MEDUSA_REG_CTRL        0x08
#define MEDUSA_REG_STATUS      0x0C
#define MEDUSA_REG_ISR         0x10
#define MEDUSA_REG_IMR         0x14
#define MEDUSA_REG_MACADDR_HI  0x18
#define MEDUSA_REG_MACADDR_LO  0x1C
#define MEDUSA_REG_TREQ_US     0x20
#define MEDUSA_REG_TX_FIFO     0x24
#define MEDUSA_REG_TXDONE_FIFO 0x28
#define MEDUSA_REG_RX_FIFO     0x2C
#define MEDUSA_REG_FREE_FIFO   0x30
#define MEDUSA_REG_FIFO_LEVEL  0x34
#define MEDUSA_REG_RXCK_START  0x38
#define MEDUSA_REG_PIO_CKSUM   0x3C
/*
 * Counters (RO, 32-bit, wrap). C.2 names six of the eight slots; [P] the last two are the two
 * error outcomes the buffer status codes can report but no other counter covers: receive
 * frames stored TRUNCATED, and transmit completions popped with the TXDONE ERROR bit.
 */
#define MEDUSA_REG_CNT_FRAMES_TX     0x40
#define MEDUSA_REG_CNT_FRAMES_RX     0x44
#define MEDUSA_REG_CNT_FCS_ERRORS    0x48
#define MEDUSA_REG_CNT_NOBUF_DROPS   0x4C
#define MEDUSA_REG_CNT_RING_REINITS  0x50
#define MEDUSA_REG_CNT_TOKENS_SEEN   0x54
#define MEDUSA_REG_CNT_RX_TRUNCATED  0x58 /* [P] */
#define MEDUSA_REG_CNT_TX_ERRORS     0x5C /* [P] */
#define MEDUSA_REG_COUNTERS_OFS      0x40
#define MEDUSA_REG_COUNTERS_COUNT    8

/** Window offsets of the registers (MEDUSA_REGS_OFS + register offset). */
#define MEDUSA_WIN_REG(reg) (MEDUSA_REGS_OFS + (reg))

/* ID / REV. */
#define MEDUSA_ID_VALUE   (0x4D445341u) /* "MDSA" in big-endian bytes */
/** [P] The revision this contract describes. */
#define MEDUSA_REV_VALUE  (0x00000001u)

/*
 * CTRL (RW)
 *
 *   31      11  10   9    8    7    6    5    4    3    2    1    0
 *  +----------+----+----+----+----+----+----+----+----+----+----+----+
 *  |    0     |LONG|FO3 |RJ  |LB  |KFC |RXCK|AM  |PRM |TXE |RXE |RST |
 *  +----------+----+----+----+----+----+----+----+----+----+----+----+
 */
#define MEDUSA_CTRL_RESET       (1u << 0) /* self-clearing */
#define MEDUSA_CTRL_RX_EN       (1u << 1)
#define MEDUSA_CTRL_TX_EN       (1u << 2)
#define MEDUSA_CTRL_PROMISC     (1u << 3)
#define MEDUSA_CTRL_ALLMULTI    (1u << 4)
#define MEDUSA_CTRL_RX_CKSUM_EN (1u << 5) /* RX checksum unit fills RXCK */
#define MEDUSA_CTRL_KEEP_FCS    (1u << 6) /* store the 4-byte FCS after INFO on receive */
#define MEDUSA_CTRL_LOOPBACK    (1u << 7)
#define MEDUSA_CTRL_RING_JOIN   (1u << 8) /* insert into the ring (claim process starts) */
#define MEDUSA_CTRL_FRAME_OFS3  (1u << 9) /* 1: frames start at byte 3; 0: at byte 0 */
/*
 * [P] LONG_FRAMES: accept and send frames up to the buffer size (MEDUSA_MAX_FRAME_LONG) instead of the FDDI
 * standard's 4500 bytes. The careful-protocols paper (section 6) ran its tests with frames up to 8 KB: "the
 * Medusa board is capable of dealing with frames up to 8 KB ... we did not limit frames to the FDDI standard
 * MTU". Off after reset, so the default card enforces the standard.
 */
#define MEDUSA_CTRL_LONG_FRAMES (1u << 10)
/** CTRL after reset: only FRAME_OFS3 (its default is 1). */
#define MEDUSA_CTRL_RESET_VALUE (MEDUSA_CTRL_FRAME_OFS3)

/*
 * STATUS (RO)
 *
 *   31          16 15          8 7        2    1       0
 *  +--------------+-------------+----------+-------+-------+
 *  |      0       | ring state  |    0     |TX_BUSY|RING_OP|
 *  +--------------+-------------+----------+-------+-------+
 */
#define MEDUSA_STATUS_RING_OP          (1u << 0)
#define MEDUSA_STATUS_TX_BUSY          (1u << 1)
#define MEDUSA_STATUS_RING_STATE_SHIFT 8
#define MEDUSA_STATUS_RING_STATE_MASK  (0xFFu << 8)
/* Ring-state field values (unshifted). */
#define MEDUSA_RING_STATE_ISOLATED     0u
#define MEDUSA_RING_STATE_CLAIM        1u
#define MEDUSA_RING_STATE_BEACON       2u
#define MEDUSA_RING_STATE_OPERATIONAL  3u
#define MEDUSA_STATUS_RING_STATE(s) (((s) & MEDUSA_STATUS_RING_STATE_MASK) >> MEDUSA_STATUS_RING_STATE_SHIFT)

/*
 * ISR (write 1 to clear) and IMR (RW): same bits. The single interrupt line is asserted while
 * (ISR & IMR) != 0.
 *
 *   31           6      5      4         3              2            1          0
 *  +-------------+------+------+-----------+---------------+---------+----------+
 *  |      0      |RX_ERR|TX_ERR|RING_CHANGE|RX_DROP_NOBUF  | TX_DONE | RX_READY |
 *  +-------------+------+------+-----------+---------------+---------+----------+
 */
#define MEDUSA_INT_RX_READY      (1u << 0)
#define MEDUSA_INT_TX_DONE       (1u << 1)
#define MEDUSA_INT_RX_DROP_NOBUF (1u << 2)
#define MEDUSA_INT_RING_CHANGE   (1u << 3)
#define MEDUSA_INT_TX_ERR        (1u << 4)
#define MEDUSA_INT_RX_ERR        (1u << 5)
#define MEDUSA_INT_ALL           (0x3Fu)
#define MEDUSA_ISR_RX_READY      MEDUSA_INT_RX_READY
#define MEDUSA_ISR_TX_DONE       MEDUSA_INT_TX_DONE
#define MEDUSA_ISR_RX_DROP_NOBUF MEDUSA_INT_RX_DROP_NOBUF
#define MEDUSA_ISR_RING_CHANGE   MEDUSA_INT_RING_CHANGE
#define MEDUSA_ISR_TX_ERR        MEDUSA_INT_TX_ERR
#define MEDUSA_ISR_RX_ERR        MEDUSA_INT_RX_ERR
#define MEDUSA_IMR_RX_READY      MEDUSA_INT_RX_READY
#define MEDUSA_IMR_TX_DONE       MEDUSA_INT_TX_DONE
#define MEDUSA_IMR_RX_DROP_NOBUF MEDUSA_INT_RX_DROP_NOBUF
#define MEDUSA_IMR_RING_CHANGE   MEDUSA_INT_RING_CHANGE
#define MEDUSA_IMR_TX_ERR        MEDUSA_INT_TX_ERR
#define MEDUSA_IMR_RX_ERR        MEDUSA_INT_RX_ERR

/*
 * MACADDR_HI / MACADDR_LO: the station address in canonical (Ethernet) bit order, big-endian:
 *
 *   MACADDR_HI:  31          16 15      8 7       0
 *               +--------------+---------+---------+
 *               |      0       | byte 0  | byte 1  |
 *               +--------------+---------+---------+
 *   MACADDR_LO:  31     24 23     16 15      8 7       0
 *               +---------+---------+---------+---------+
 *               | byte 2  | byte 3  | byte 4  | byte 5  |
 *               +---------+---------+---------+---------+
 */
#define MEDUSA_MACADDR_HI_MASK (0xFFFFu)
#define MEDUSA_MACADDR_LO_MASK (0xFFFFFFFFu)

/** TREQ_US default: requested TTRT of 8000 us (8 ms). */
#define MEDUSA_TREQ_US_DEFAULT 8000u

/*
 * TX_FIFO (WO) and FREE_FIFO (WO): push a buffer number in bits 6:0. For TX the length comes
 * from the buffer's status entry.
 *
 * Buffer ownership (issue 5): a buffer is the card's only while it sits in the FREE FIFO or between
 * its TX_FIFO push and its TXDONE entry; every other buffer is the host's (all 128 after RESET).
 * After TXDONE the data is still in card memory, so the host may queue the same buffer again (TCP
 * retransmission straight from card memory). [P] A push of a value with bits above 6:0 set, or of a
 * buffer the host does not own, is rejected: nothing is queued and no FIFO entry is produced; ISR
 * TX_ERR (TX_FIFO) or RX_ERR (FREE_FIFO) is raised. A queued TX buffer whose LEN is bad completes at
 * once with the TXDONE ERROR bit (STAT TRUNCATED when LEN + FCS is over the limit or the buffer).
 */
#define MEDUSA_TX_FIFO_BUF_SHIFT   0
#define MEDUSA_TX_FIFO_BUF_MASK    (0x7Fu << 0)
#define MEDUSA_FREE_FIFO_BUF_SHIFT 0
#define MEDUSA_FREE_FIFO_BUF_MASK  (0x7Fu << 0)

/*
 * TXDONE_FIFO and RX_FIFO (RO, a read pops): reads 0 when empty, so VALID tells an entry from
 * an empty FIFO.
 *
 *   31     30      29            7 6        0
 *  +-----+-------+----------------+----------+
 *  |VALID|ERROR* |       0        |  buffer  |     * TXDONE only; 0 in RX_FIFO
 *  +-----+-------+----------------+----------+
 */
#define MEDUSA_FIFO_VALID          (1u << 31)
#define MEDUSA_FIFO_ERROR          (1u << 30)
#define MEDUSA_FIFO_BUF_SHIFT      0
#define MEDUSA_FIFO_BUF_MASK       (0x7Fu << 0)
#define MEDUSA_TXDONE_FIFO_VALID   MEDUSA_FIFO_VALID
#define MEDUSA_TXDONE_FIFO_ERROR   MEDUSA_FIFO_ERROR
#define MEDUSA_TXDONE_FIFO_BUF_SHIFT MEDUSA_FIFO_BUF_SHIFT
#define MEDUSA_TXDONE_FIFO_BUF_MASK  MEDUSA_FIFO_BUF_MASK
#define MEDUSA_RX_FIFO_VALID       MEDUSA_FIFO_VALID
#define MEDUSA_RX_FIFO_BUF_SHIFT   MEDUSA_FIFO_BUF_SHIFT
#define MEDUSA_RX_FIFO_BUF_MASK    MEDUSA_FIFO_BUF_MASK
/** Every FIFO is as deep as there are buffers, so it can never overflow. */
#define MEDUSA_FIFO_DEPTH          128

/*
 * FIFO_LEVEL (RO): entries queued in each FIFO. A level of 128 does not fit 7 bits, hence the
 * 8-bit fields.
 *
 *   31       24 23       16 15        8 7         0
 *  +-----------+-----------+-----------+-----------+
 *  |   FREE    |    RX     |  TXDONE   | TX queued |
 *  +-----------+-----------+-----------+-----------+
 */
#define MEDUSA_FIFO_LEVEL_TX_SHIFT     0
#define MEDUSA_FIFO_LEVEL_TX_MASK      (0xFFu << 0)
#define MEDUSA_FIFO_LEVEL_TXDONE_SHIFT 8
#define MEDUSA_FIFO_LEVEL_TXDONE_MASK  (0xFFu << 8)
#define MEDUSA_FIFO_LEVEL_RX_SHIFT     16
#define MEDUSA_FIFO_LEVEL_RX_MASK      (0xFFu << 16)
#define MEDUSA_FIFO_LEVEL_FREE_SHIFT   24
#define MEDUSA_FIFO_LEVEL_FREE_MASK    (0xFFu << 24)

/*
 * RXCK_START (RW): bits 12:0 = first frame byte, counted from FC, that the receive checksum unit
 * sums. Default 21 = FC + DA + SA + LLC/SNAP, i.e. the start of the IP header.
 */
#define MEDUSA_RXCK_START_SHIFT   0
#define MEDUSA_RXCK_START_MASK    (0x1FFFu << 0)
#define MEDUSA_RXCK_START_DEFAULT 21u

/*
 * PIO_CKSUM (RW): 16-bit ones'-complement accumulator updated by every host PIO write AND read
 * of buffer RAM, summing big-endian halfwords; write 0 to clear; a read returns the folded sum
 * in bits 15:0. [P] A byte access adds its byte in the halfword lane given by its address (even
 * address: bits 15:8, odd: bits 7:0), so byte-wise copies give the same sum as word copies.
 */
#define MEDUSA_PIO_CKSUM_SHIFT 0
#define MEDUSA_PIO_CKSUM_MASK  (0xFFFFu << 0)

/*
 * The register block as a struct (256 bytes at MEDUSA_REGS_OFS). Registers with side effects
 * (W1C, FIFO pops and pushes) must go through the register API, never plain loads and stores.
 */
typedef struct medusa_regs {
    uint32_t id;                /* 0x00 */
    uint32_t rev;               /* 0x04 */
    uint32_t ctrl;              /* 0x08 */
    uint32_t status;            /* 0x0C */
    uint32_t isr;               /* 0x10 */
    uint32_t imr;               /* 0x14 */
    uint32_t macaddr_hi;        /* 0x18 */
    uint32_t macaddr_lo;        /* 0x1C */
    uint32_t treq_us;           /* 0x20 */
    uint32_t tx_fifo;           /* 0x24 */
    uint32_t txdone_fifo;       /* 0x28 */
    uint32_t rx_fifo;           /* 0x2C */
    uint32_t free_fifo;         /* 0x30 */
    uint32_t fifo_level;        /* 0x34 */
    uint32_t rxck_start;        /* 0x38 */
    uint32_t pio_cksum;         /* 0x3C */
    uint32_t cnt_frames_tx;     /* 0x40 */
    uint32_t cnt_frames_rx;     /* 0x44 */
    uint32_t cnt_fcs_errors;    /* 0x48 */
    uint32_t cnt_nobuf_drops;   /* 0x4C */
    uint32_t cnt_ring_reinits;  /* 0x50 */
    uint32_t cnt_tokens_seen;   /* 0x54 */
    uint32_t cnt_rx_truncated;  /* 0x58 [P] */
    uint32_t cnt_tx_errors;     /* 0x5C [P] */
    uint32_t reserved[40];      /* 0x60..0xFF */
} medusa_regs_t;

_Static_assert(sizeof(medusa_regs_t) == MEDUSA_REGS_SIZE, "medusa_regs_t must be 256 bytes");
_Static_assert(offsetof(medusa_regs_t, ctrl) == MEDUSA_REG_CTRL, "CTRL at 0x08");
_Static_assert(offsetof(medusa_regs_t, isr) == MEDUSA_REG_ISR, "ISR at 0x10");
_Static_assert(offsetof(medusa_regs_t, tx_fifo) == MEDUSA_REG_TX_FIFO, "TX_FIFO at 0x24");
_Static_assert(offsetof(medusa_regs_t, fifo_level) == MEDUSA_REG_FIFO_LEVEL, "FIFO_LEVEL at 0x34");
_Static_assert(offsetof(medusa_regs_t, pio_cksum) == MEDUSA_REG_PIO_CKSUM, "PIO_CKSUM at 0x3C");
_Static_assert(offsetof(medusa_regs_t, cnt_frames_tx) == MEDUSA_REG_CNT_FRAMES_TX, "counters at 0x40");
_Static_assert(offsetof(medusa_regs_t, cnt_tokens_seen) == MEDUSA_REG_CNT_TOKENS_SEEN, "tokens at 0x54");
_Static_assert(offsetof(medusa_regs_t, cnt_tx_errors) == MEDUSA_REG_CNT_TX_ERRORS, "tx errors at 0x5C");
_Static_assert(offsetof(medusa_regs_t, reserved) == 0x60, "reserved from 0x60");

/* ============================================================================================
 * C.2 Buffer status table: entry n at 0x100800 + 16n
 *
 *  +0x0  LEN     31          13 12                        0
 *               +--------------+---------------------------+
 *               |      0       | frame bytes FC..INFO      |   host writes before TX, card on RX
 *               +--------------+---------------------------+
 *  +0x4  STAT    31          16 15         8 7             0
 *               +--------------+------------+---------------+
 *               |      0       | FC copy    | status code   |   card writes
 *               +--------------+------------+---------------+
 *  +0x8  RXCK    31          16 15                        0
 *               +--------------+---------------------------+
 *               |      0       | ones'-complement sum      |   RX: RXCK_START..LEN; TX: unused
 *               +--------------+---------------------------+
 *  +0xC  TSTAMP  microsecond counter at completion (card writes)
 *
 * LEN excludes the FCS. [P] The status code occupies bits 7:0 (C.2 gives only its values).
 * ========================================================================================== */

typedef struct medusa_buf_status {
    uint32_t len;    /* +0x0 */
    uint32_t stat;   /* +0x4 */
    uint32_t rxck;   /* +0x8 */
    uint32_t tstamp; /* +0xC */
} medusa_buf_status_t;

#define MEDUSA_BUF_STATUS_LEN_OFS    0
#define MEDUSA_BUF_STATUS_STAT_OFS   4
#define MEDUSA_BUF_STATUS_RXCK_OFS   8
#define MEDUSA_BUF_STATUS_TSTAMP_OFS 12

_Static_assert(sizeof(medusa_buf_status_t) == MEDUSA_BUF_STATUS_ENTRY_SIZE,
               "medusa_buf_status_t must be 16 bytes");
_Static_assert(offsetof(medusa_buf_status_t, len) == MEDUSA_BUF_STATUS_LEN_OFS, "LEN at +0");
_Static_assert(offsetof(medusa_buf_status_t, stat) == MEDUSA_BUF_STATUS_STAT_OFS, "STAT at +4");
_Static_assert(offsetof(medusa_buf_status_t, rxck) == MEDUSA_BUF_STATUS_RXCK_OFS, "RXCK at +8");
_Static_assert(offsetof(medusa_buf_status_t, tstamp) == MEDUSA_BUF_STATUS_TSTAMP_OFS, "TSTAMP at +C");

/** The whole table (2 KiB at MEDUSA_BUF_STATUS_OFS). */
typedef struct medusa_buf_status_table {
    medusa_buf_status_t entry[128];
} medusa_buf_status_table_t;

_Static_assert(sizeof(medusa_buf_status_table_t) == MEDUSA_BUF_STATUS_SIZE,
               "medusa_buf_status_table_t must be 2 KiB");
_Static_assert(offsetof(medusa_buf_status_table_t, entry) == 0, "table starts with entry 0");

#define MEDUSA_LEN_SHIFT        0
#define MEDUSA_LEN_MASK         (0x1FFFu << 0)
#define MEDUSA_STAT_CODE_SHIFT  0
#define MEDUSA_STAT_CODE_MASK   (0xFFu << 0)   /* [P] position */
#define MEDUSA_STAT_FC_SHIFT    8
#define MEDUSA_STAT_FC_MASK     (0xFFu << 8)
#define MEDUSA_RXCK_SUM_SHIFT   0
#define MEDUSA_RXCK_SUM_MASK    (0xFFFFu << 0)

/*
 * STAT codes. C.2 lists them as "0 DONE, 1 FCS_ERR, 2 E, 3 A, 4 C, 5 TRUNCATED" in the same style as the
 * CTRL bit list, and the E/A/C indicators are independent, so [P] each code is a BIT NUMBER in the status
 * code field: the card sets bit (1 << code) for every condition that holds (MEDUSA_STAT_*_BIT below).
 * DONE is set on every completed entry, so STAT == DONE_BIT means "completed, nothing to report".
 */
#define MEDUSA_STAT_DONE        0u
#define MEDUSA_STAT_FCS_ERR     1u
#define MEDUSA_STAT_E_INDICATOR 2u /* frame-status E (error detected) set */
#define MEDUSA_STAT_A_INDICATOR 3u /* frame-status A (address recognised) */
#define MEDUSA_STAT_C_INDICATOR 4u /* frame-status C (frame copied) */
#define MEDUSA_STAT_TRUNCATED   5u /* over 4500 bytes or over the buffer */
#define MEDUSA_STAT_DONE_BIT        (1u << 0)
#define MEDUSA_STAT_FCS_ERR_BIT     (1u << 1)
#define MEDUSA_STAT_E_BIT           (1u << 2)
#define MEDUSA_STAT_A_BIT           (1u << 3)
#define MEDUSA_STAT_C_BIT           (1u << 4)
#define MEDUSA_STAT_TRUNCATED_BIT   (1u << 5)

/** Largest frame the card stores or sends, FC through INFO plus FCS (D.3). */
#define MEDUSA_MAX_FRAME        4500
/** [P] Largest frame (FC through INFO plus FCS) with CTRL.LONG_FRAMES: limited only by the 8 KiB buffer. */
#define MEDUSA_MAX_FRAME_LONG   8192

/* ============================================================================================
 * D.3 FDDI wire facts
 * ========================================================================================== */

#define MEDUSA_FDDI_DATA_RATE_BPS     100000000
#define MEDUSA_FDDI_BAUD              125000000 /* 4B/5B + NRZI */
#define MEDUSA_FDDI_NS_PER_SYMBOL     40        /* one symbol = 4 data bits */
#define MEDUSA_FDDI_NS_PER_BYTE       80
#define MEDUSA_FDDI_PREAMBLE_SYMBOLS  16        /* at least 16 idle symbols */
#define MEDUSA_FDDI_SD_SYMBOLS        2         /* J K */
#define MEDUSA_FDDI_FC_SYMBOLS        2
#define MEDUSA_FDDI_ADDR_SYMBOLS      12        /* 48-bit address */
#define MEDUSA_FDDI_FCS_SYMBOLS       8
#define MEDUSA_FDDI_ED_SYMBOLS        1         /* T */
#define MEDUSA_FDDI_FS_SYMBOLS        3         /* at least E, A, C */
#define MEDUSA_FDDI_TOKEN_SYMBOLS     22        /* preamble, SD, FC, ED (T T) */
#define MEDUSA_FDDI_TOKEN_NS          880
#define MEDUSA_FDDI_MAX_FRAME_SYMBOLS 9000
#define MEDUSA_FDDI_MAX_FRAME_NS      360000    /* 4500 bytes x 80 ns */
#define MEDUSA_FDDI_MIN_ENCAP_BYTES   22
#define MEDUSA_FDDI_IP_MTU            4352      /* RFC 2019 default */
#define MEDUSA_FDDI_ADDR_LEN          6
#define MEDUSA_FDDI_MAC_HEADER_LEN    13        /* FC + DA + SA */
#define MEDUSA_FDDI_LLC_SNAP_LEN      8         /* AA AA 03 00 00 00 + EtherType */
#define MEDUSA_FDDI_FCS_LEN           4
#define MEDUSA_FDDI_MAX_STATIONS      500
#define MEDUSA_FDDI_MAX_RING_M        100000
#define MEDUSA_FDDI_MAX_HOP_MM_M      2000      /* multimode fibre between stations */

/* LLC/SNAP header bytes for IP (RFC 1042/1188 style), followed by the 16-bit EtherType. */
#define MEDUSA_LLC_DSAP_SNAP (0xAAu)
#define MEDUSA_LLC_SSAP_SNAP (0xAAu)
#define MEDUSA_LLC_CTRL_UI   (0x03u)
#define MEDUSA_SNAP_OUI      (0x000000u)

/* FC values (D.3, [V WS]). */
#define MEDUSA_FC_VOID                (0x00u)
#define MEDUSA_FC_TOKEN_NONRESTRICTED (0x80u)
#define MEDUSA_FC_TOKEN_RESTRICTED    (0xC0u)
#define MEDUSA_FC_SMT_INFO            (0x41u)
#define MEDUSA_FC_SMT_NSA             (0x4Fu)
#define MEDUSA_FC_MAC_BEACON          (0xC2u)
#define MEDUSA_FC_MAC_CLAIM           (0xC3u)
#define MEDUSA_FC_LLC_ASYNC           (0x50u) /* priority 0; 0x50-0x57 */
#define MEDUSA_FC_LLC_ASYNC_DEFAULT   (0x54u) /* the typical priority-4 value */
#define MEDUSA_FC_LLC_ASYNC_PRIO_MASK (0x07u)
#define MEDUSA_FC_LLC_ASYNC_BASE_MASK (0xF8u) /* FC & this == 0x50 for async LLC */
#define MEDUSA_FC_LLC_SYNC            (0xD0u)
#define MEDUSA_FC_IMPL_ASYNC          (0x60u)
#define MEDUSA_FC_IMPL_SYNC           (0xE0u)

/* Timed-token MAC (D.3, [R]). */
#define MEDUSA_TTRT_TYPICAL_MIN_US  4000
#define MEDUSA_TTRT_TYPICAL_MAX_US  8000
#define MEDUSA_T_MAX_DEFAULT_US     165000

/*
 * FCS [R]: CRC-32 with the 802.3 generator over FC..INFO, computed MSB-first (FDDI sends octets MSB
 * first, as AAL5 does): init all ones, result complemented ("CRC-32/BZIP2" parameters). Only
 * consistency inside the emulator matters; pcap carries no FCS.
 */
#define MEDUSA_FCS_POLY   (0x04C11DB7u)
#define MEDUSA_FCS_INIT   (0xFFFFFFFFu)
#define MEDUSA_FCS_XOROUT (0xFFFFFFFFu)
#define MEDUSA_FCS_CHECK  (0xFC891918u) /* of "123456789" */

/* Address bit order: the group bit is 0x01 of byte 0 in canonical form, 0x80 in native form. */
#define MEDUSA_ADDR_GROUP_BIT_CANONICAL (0x01u)
#define MEDUSA_ADDR_GROUP_BIT_NATIVE    (0x80u)

/** pcap linktype for FDDI captures (D.4): FC, DA, SA, LLC...; DA/SA written bit-swapped. */
#define MEDUSA_PCAP_LINKTYPE_FDDI 10

#endif /* NICBRIDGE_MEDUSA_H */
