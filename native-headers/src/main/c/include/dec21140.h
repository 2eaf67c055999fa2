/*
 * dec21140.h - device contract of the DEC 21140 "Tulip" PCI Fast Ethernet controller.
 *
 * This header is the single source of truth for the 21140 as nicbridge sees it: the Java
 * bindings are generated from it, the emulator (sim-hardware) implements it and the native
 * shim serves it. Facts come from docs/hardware-facts.md section A (chip) and
 * D.1 (Ethernet wire); the section is named next to each group. Anything tagged [P] is a choice
 * of this project, not a fact of the chip. Tags [V]/[R] are that page's confidence tags.
 *
 * Naming: every constant is DEC21140_<REGISTER or STRUCTURE>_<FIELD>. Single-bit fields are a
 * mask in place ((1u << n)); multi-bit fields come as a _SHIFT / _MASK pair (mask in place) plus
 * named values of the field already shifted into place where the values have names.
 *
 * Byte order: registers and (unless CSR0.DBO is set) descriptors are little-endian.
 * DEC21140_BIG_ENDIAN is the byte order in which the Java layouts of this header's structs are
 * generated.
 */
#ifndef NICBRIDGE_DEC21140_H
#define NICBRIDGE_DEC21140_H

#include <stddef.h>
#include <stdint.h>

/** Byte order of the structs below (0 = little-endian). A.0: the 21140 is little-endian. */
#define DEC21140_BIG_ENDIAN 0

/* ============================================================================================
 * A.0 Identity, bus and board
 * ========================================================================================== */

#define DEC21140_PCI_VENDOR_DEC        (0x1011u) /* Digital Equipment Corporation */
#define DEC21140_PCI_DEVICE_21140      (0x0009u) /* 21140 and 21140A */
#define DEC21140_PCI_DEVICE_21040      (0x0002u)
#define DEC21140_PCI_DEVICE_21041      (0x0014u)
#define DEC21140_PCI_DEVICE_21142      (0x0019u) /* 21142 and 21143 */
#define DEC21140_PCI_CLASS_NETWORK     (0x02u)
#define DEC21140_PCI_SUBCLASS_ETHERNET (0x00u)
/** 24-bit PCI class code (class, subclass, prog-if). */
#define DEC21140_PCI_CLASS_CODE        (0x020000u)
/** BAR0 = CSRs in I/O space ("CBIO"), BAR1 = the same CSRs in memory space ("CBMA"). */
#define DEC21140_PCI_BAR_CBIO          0
#define DEC21140_PCI_BAR_CBMA          1

/* ============================================================================================
 * A.1 CSR map
 *
 * 16 CSRs of 32 bits at an 8-byte stride (offset = CSR# x 8), so the window is 128 bytes. Only
 * aligned 32-bit accesses are allowed (QEMU enforces this; the emulator does too). The upper 4
 * bytes of each 8-byte slot are not a register.
 *
 *   0x00 CSR0 bus mode      0x40 CSR8  missed frames (clear on read)
 *   0x08 CSR1 TX poll       0x48 CSR9  SROM / boot ROM / MII
 *   0x10 CSR2 RX poll       0x50 CSR10 boot-ROM address (21041+; reserved on 21140)
 *   0x18 CSR3 RX list base  0x58 CSR11 general-purpose timer
 *   0x20 CSR4 TX list base  0x60 CSR12 general-purpose port (GPIO)
 *   0x28 CSR5 status (W1C)  0x68 CSR13 reserved on 21140 (SIA on 21041/21143)
 *   0x30 CSR6 op mode       0x70 CSR14 reserved on 21140 (SIA on 21041/21143)
 *   0x38 CSR7 irq enable    0x78 CSR15 watchdog (21140)
 * ========================================================================================== */

#define DEC21140_CSR_COUNT       16
#define DEC21140_CSR_STRIDE      8
#define DEC21140_CSR_WIDTH       4
/** Size of each BAR and of the register window nicbridge shares with the card. */
#define DEC21140_CSR_WINDOW_SIZE 128
/** Linux's chip-table I/O size for the 21140 (A.0). */
#define DEC21140_IO_SIZE         128

/** Offset of CSR n (convenience; the generator ignores function-like macros). */
#define DEC21140_CSR_OFFSET(n) ((n) * DEC21140_CSR_STRIDE)

#define DEC21140_CSR0  0x00 /* bus mode */
#define DEC21140_CSR1  0x08 /* transmit poll demand (any write) */
#define DEC21140_CSR2  0x10 /* receive poll demand (any write) */
#define DEC21140_CSR3  0x18 /* receive list base address */
#define DEC21140_CSR4  0x20 /* transmit list base address */
#define DEC21140_CSR5  0x28 /* status */
#define DEC21140_CSR6  0x30 /* operating mode */
#define DEC21140_CSR7  0x38 /* interrupt enable */
#define DEC21140_CSR8  0x40 /* missed frames / overflow counter */
#define DEC21140_CSR9  0x48 /* SROM, boot ROM, MII management */
#define DEC21140_CSR10 0x50 /* boot ROM programming address (21041+) */
#define DEC21140_CSR11 0x58 /* general-purpose timer */
#define DEC21140_CSR12 0x60 /* general-purpose port */
#define DEC21140_CSR13 0x68 /* reserved on 21140 */
#define DEC21140_CSR14 0x70 /* reserved on 21140 */
#define DEC21140_CSR15 0x78 /* watchdog timer */

/** CSR3/CSR4: bits 1:0 of a list base are ignored (descriptors are longword-aligned). */
#define DEC21140_CSR3_ADDR_MASK (0xFFFFFFFCu)
#define DEC21140_CSR4_ADDR_MASK (0xFFFFFFFCu)

/*
 * QEMU reset values (A.1, [V QT], from QEMU's 21143 model). The emulator loads these on power-up
 * and on CSR0.SWR. CSR3, CSR4 and CSR10 have no listed reset value (A.1): [P] they reset to 0.
 */
#define DEC21140_CSR0_RESET  (0xFE000000u)
#define DEC21140_CSR1_RESET  (0xFFFFFFFFu)
#define DEC21140_CSR2_RESET  (0xFFFFFFFFu)
#define DEC21140_CSR3_RESET  (0x00000000u) /* [P] */
#define DEC21140_CSR4_RESET  (0x00000000u) /* [P] */
#define DEC21140_CSR5_RESET  (0xF0000000u)
#define DEC21140_CSR6_RESET  (0x32000040u)
#define DEC21140_CSR7_RESET  (0xF3FE0000u)
#define DEC21140_CSR8_RESET  (0xE0000000u)
#define DEC21140_CSR9_RESET  (0xFFF483FFu)
#define DEC21140_CSR10_RESET (0x00000000u) /* [P] */
#define DEC21140_CSR11_RESET (0xFFFE0000u)
#define DEC21140_CSR12_RESET (0x000000C6u)
#define DEC21140_CSR13_RESET (0xFFFF0000u)
#define DEC21140_CSR14_RESET (0xFFFFFFFFu)
#define DEC21140_CSR15_RESET (0x8FF00000u)

/* ============================================================================================
 * A.2 CSR0 - bus mode
 *
 *   31     25 24  23  22 21  20  19  17 16  15 14 13    8 7   6     2  1   0
 *  +--------+---+---+---+---+---+-------+---+-----+-------+---+-------+---+---+
 *  |   --   |WIE|RLE| - |RME|DBO|  TAP  |DAS| CAL |  PBL  |BLE|  DSL  |BAR|SWR|
 *  +--------+---+---+---+---+---+-------+---+-----+-------+---+-------+---+---+
 * ========================================================================================== */

#define DEC21140_CSR0_SWR       (1u << 0)  /* software reset: every CSR back to its reset value */
#define DEC21140_CSR0_BAR       (1u << 1)  /* bus arbitration: 0 RX priority, 1 round-robin [R] */
#define DEC21140_CSR0_DSL_SHIFT 2          /* descriptor skip length in longwords (ring mode) */
#define DEC21140_CSR0_DSL_MASK  (0x1Fu << 2)
#define DEC21140_CSR0_BLE       (1u << 7)  /* data buffers big-endian */
#define DEC21140_CSR0_PBL_SHIFT 8          /* programmable burst length in longwords */
#define DEC21140_CSR0_PBL_MASK  (0x3Fu << 8)
#define DEC21140_CSR0_CAL_SHIFT 14         /* cache alignment */
#define DEC21140_CSR0_CAL_MASK  (0x3u << 14)
#define DEC21140_CSR0_DAS       (1u << 16) /* diagnostic address space; must be 0 */
#define DEC21140_CSR0_TAP_SHIFT 17         /* transmit automatic polling */
#define DEC21140_CSR0_TAP_MASK  (0x7u << 17)
#define DEC21140_CSR0_DBO       (1u << 20) /* descriptors big-endian (21041+, QEMU honours it) */
#define DEC21140_CSR0_RME       (1u << 21) /* memory read multiple (21140A) */
#define DEC21140_CSR0_RLE       (1u << 23) /* read line (21140A) */
#define DEC21140_CSR0_WIE       (1u << 24) /* write and invalidate (21140A) */

/* PBL field values (unshifted): burst length in longwords; 0 = unlimited. */
#define DEC21140_PBL_UNLIMITED 0u
#define DEC21140_PBL_1         1u
#define DEC21140_PBL_2         2u
#define DEC21140_PBL_4         4u
#define DEC21140_PBL_8         8u
#define DEC21140_PBL_16        16u
#define DEC21140_PBL_32        32u

/* CAL field values (unshifted). */
#define DEC21140_CAL_NONE 0u
#define DEC21140_CAL_8LW  1u
#define DEC21140_CAL_16LW 2u
#define DEC21140_CAL_32LW 3u

/* TAP field values (unshifted) and their polling periods at 10 Mb/s in ns (de4x5 figures). */
#define DEC21140_TAP_OFF       0u
#define DEC21140_TAP_200US     1u
#define DEC21140_TAP_800US     2u
#define DEC21140_TAP_1600US    3u
#define DEC21140_TAP_12_8US    4u /* 21041+ per NetBSD */
#define DEC21140_TAP_25_6US    5u /* 21041+ per NetBSD */
#define DEC21140_TAP_51_2US    6u /* 21041+ per NetBSD */
#define DEC21140_TAP_102_4US   7u /* 21041+ per NetBSD */
#define DEC21140_TAP1_PERIOD_NS 200000u
#define DEC21140_TAP2_PERIOD_NS 800000u
#define DEC21140_TAP3_PERIOD_NS 1600000u
#define DEC21140_TAP4_PERIOD_NS 12800u
#define DEC21140_TAP5_PERIOD_NS 25600u
#define DEC21140_TAP6_PERIOD_NS 51200u
#define DEC21140_TAP7_PERIOD_NS 102400u

/** Linux MWI fallback when no cache-line size is usable: PBL = 8, CAL = 1 (A.2, [V LT]). */
#define DEC21140_LINUX_CSR0_MWI_FALLBACK \
    ((DEC21140_PBL_8 << DEC21140_CSR0_PBL_SHIFT) | (DEC21140_CAL_8LW << DEC21140_CSR0_CAL_SHIFT))

/* ============================================================================================
 * A.3 CSR5 - status
 *
 * Bits 0-16 and 26-27 are write-1-to-clear; RS, TS and EB are read-only.
 *
 *   31 28 27 26 25 23 22 20 19 17 16  15  14  13  12  11  10  9   8   7   6   5   4   3   2   1   0
 *  +-----+--+--+-----+-----+-----+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
 *  |  -  |LC|GP| EB  | TS  | RS  |NIS|AIS|ERI|FBE| - |GTE|ETI|RWT|RPS|RU |RI |UNF| - |TJT|TU |TPS|TI |
 *  +-----+--+--+-----+-----+-----+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
 * ========================================================================================== */

#define DEC21140_CSR5_TI  (1u << 0)  /* transmit interrupt (LS descriptor had IC) - normal */
#define DEC21140_CSR5_TPS (1u << 1)  /* transmit process stopped - abnormal */
#define DEC21140_CSR5_TU  (1u << 2)  /* transmit buffer unavailable (suspended) - normal */
#define DEC21140_CSR5_TJT (1u << 3)  /* transmit jabber timeout - abnormal */
#define DEC21140_CSR5_LNP (1u << 4)  /* 21041/21143 link pass; unused on 21140 */
#define DEC21140_CSR5_UNF (1u << 5)  /* transmit underflow - abnormal */
#define DEC21140_CSR5_RI  (1u << 6)  /* receive interrupt (frame complete) - normal */
#define DEC21140_CSR5_RU  (1u << 7)  /* receive buffer unavailable (suspended) - ABNORMAL */
#define DEC21140_CSR5_RPS (1u << 8)  /* receive process stopped - abnormal */
#define DEC21140_CSR5_RWT (1u << 9)  /* receive watchdog timeout (> 2048 bytes) - abnormal */
#define DEC21140_CSR5_ETI (1u << 10) /* early transmit interrupt (21140A) - abnormal */
#define DEC21140_CSR5_GTE (1u << 11) /* general-purpose timer expired - abnormal (not QEMU, A.3) */
#define DEC21140_CSR5_LNF (1u << 12) /* 21041/21143 link fail; unused on 21140 */
#define DEC21140_CSR5_FBE (1u << 13) /* fatal bus error, code in EB - abnormal */
#define DEC21140_CSR5_ERI (1u << 14) /* early receive interrupt (21140A) - normal */
#define DEC21140_CSR5_AIS (1u << 15) /* abnormal interrupt summary */
#define DEC21140_CSR5_NIS (1u << 16) /* normal interrupt summary */
#define DEC21140_CSR5_RS_SHIFT 17    /* receive process state */
#define DEC21140_CSR5_RS_MASK  (0x7u << 17)
#define DEC21140_CSR5_TS_SHIFT 20    /* transmit process state */
#define DEC21140_CSR5_TS_MASK  (0x7u << 20)
#define DEC21140_CSR5_EB_SHIFT 23    /* error bits, valid when FBE */
#define DEC21140_CSR5_EB_MASK  (0x7u << 23)
#define DEC21140_CSR5_GPI (1u << 26) /* 21142/21143 only */
#define DEC21140_CSR5_LC  (1u << 27) /* 21142/21143 only */

/** All write-1-to-clear bits (0-16, 26, 27). */
#define DEC21140_CSR5_W1C_MASK (0x0C01FFFFu)
/**
 * Sources that feed NIS when also enabled in CSR7 (A.3): TI, TU, RI, ERI.
 * Note the asymmetry: TU is normal but RU is abnormal.
 */
#define DEC21140_CSR5_NORMAL_SOURCES \
    (DEC21140_CSR5_TI | DEC21140_CSR5_TU | DEC21140_CSR5_RI | DEC21140_CSR5_ERI)
/**
 * Sources that feed AIS when also enabled in CSR7 (21140 bits; 21143 adds LNP, LNF, GPI, LC). GTE is one
 * (A.3, unlike QEMU): Linux's too-much-work path enables only AbnormalIntr | TimerInt and waits for the timer.
 */
#define DEC21140_CSR5_ABNORMAL_SOURCES \
    (DEC21140_CSR5_TPS | DEC21140_CSR5_TJT | DEC21140_CSR5_UNF | DEC21140_CSR5_RU | \
     DEC21140_CSR5_RPS | DEC21140_CSR5_RWT | DEC21140_CSR5_ETI | DEC21140_CSR5_GTE | DEC21140_CSR5_FBE)
/** The 21143-only sources that QEMU also puts under AIS. */
#define DEC21140_CSR5_ABNORMAL_SOURCES_21143 \
    (DEC21140_CSR5_LNP | DEC21140_CSR5_LNF | DEC21140_CSR5_GPI | DEC21140_CSR5_LC)
/** RS|TS together: Linux polls CSR5 against this until both processes read stopped (A.4). */
#define DEC21140_CSR5_RS_TS_MASK (0x007E0000u)

/* Receive process states (RS field values, unshifted). */
#define DEC21140_RS_STOPPED       0u
#define DEC21140_RS_FETCH_DESC    1u /* running: fetch receive descriptor */
#define DEC21140_RS_CHECK_END     2u /* running: check for end of receive packet */
#define DEC21140_RS_WAIT_PACKET   3u /* running: wait for receive packet */
#define DEC21140_RS_SUSPENDED     4u /* suspended: next descriptor is host-owned */
#define DEC21140_RS_CLOSE_DESC    5u /* running: close receive descriptor */
#define DEC21140_RS_FLUSH_FIFO    6u /* running: flush the current frame (no buffer) */
#define DEC21140_RS_QUEUE_FIFO    7u /* running: queue the receive FIFO into the buffer */

/* Transmit process states (TS field values, unshifted). */
#define DEC21140_TS_STOPPED       0u
#define DEC21140_TS_FETCH_DESC    1u /* running: fetch transmit descriptor */
#define DEC21140_TS_WAIT_END      2u /* running: wait for end of transmission */
#define DEC21140_TS_READ_BUFFER   3u /* running: read buffer from memory into the FIFO */
#define DEC21140_TS_RESERVED      4u
#define DEC21140_TS_SETUP         5u /* running: setup packet */
#define DEC21140_TS_SUSPENDED     6u /* suspended: underflow or host-owned descriptor */
#define DEC21140_TS_CLOSE_DESC    7u /* running: close transmit descriptor */

/* Fatal bus error codes (EB field values, unshifted; meaningful only with FBE). */
#define DEC21140_EB_PARITY        0u
#define DEC21140_EB_MASTER_ABORT  1u
#define DEC21140_EB_TARGET_ABORT  2u

/** Field extraction conveniences (function-like; the generator ignores them). */
#define DEC21140_CSR5_RS(csr5) (((csr5) & DEC21140_CSR5_RS_MASK) >> DEC21140_CSR5_RS_SHIFT)
#define DEC21140_CSR5_TS(csr5) (((csr5) & DEC21140_CSR5_TS_MASK) >> DEC21140_CSR5_TS_SHIFT)
#define DEC21140_CSR5_EB(csr5) (((csr5) & DEC21140_CSR5_EB_MASK) >> DEC21140_CSR5_EB_SHIFT)

/* ============================================================================================
 * A.4 CSR6 - operating mode
 *
 *   31  30  29 26  25  24  23  22  21  20  19  18  17  16  15 14  13  12  11 10  9   8   7   6   5   4   3   2   1   0
 *  +---+---+-----+---+---+---+---+---+---+---+---+---+---+-----+---+---+-----+---+---+---+---+---+---+---+---+---+---+
 *  |SC |RA |  -  |MBO|SCR|PCS|TTM|SF | - |HBD|PS |CA | - | TR  |ST |FC | OM  |FD |FKD|PM |PR |SB |IF |PB |HO |SR |HP |
 *  +---+---+-----+---+---+---+---+---+---+---+---+---+---+-----+---+---+-----+---+---+---+---+---+---+---+---+---+---+
 * ========================================================================================== */

#define DEC21140_CSR6_HP       (1u << 0)  /* hash/perfect filter mode (read-only; from setup frame) */
#define DEC21140_CSR6_SR       (1u << 1)  /* start/stop receive */
#define DEC21140_CSR6_HO       (1u << 2)  /* hash-only filtering (read-only) */
#define DEC21140_CSR6_PB       (1u << 3)  /* pass bad frames */
#define DEC21140_CSR6_IF       (1u << 4)  /* inverse filtering (read-only) */
#define DEC21140_CSR6_SB       (1u << 5)  /* start/stop backoff counter */
#define DEC21140_CSR6_PR       (1u << 6)  /* promiscuous */
#define DEC21140_CSR6_PM       (1u << 7)  /* pass all multicast */
#define DEC21140_CSR6_FKD      (1u << 8)  /* flaky oscillator disable */
#define DEC21140_CSR6_FD       (1u << 9)  /* full duplex */
#define DEC21140_CSR6_OM_SHIFT 10         /* operating (loopback) mode */
#define DEC21140_CSR6_OM_MASK  (0x3u << 10)
#define DEC21140_CSR6_FC       (1u << 12) /* force collision (loopback test) */
#define DEC21140_CSR6_ST       (1u << 13) /* start/stop transmit */
#define DEC21140_CSR6_TR_SHIFT 14         /* transmit FIFO threshold */
#define DEC21140_CSR6_TR_MASK  (0x3u << 14)
#define DEC21140_CSR6_CA       (1u << 17) /* capture effect enable */
#define DEC21140_CSR6_PS       (1u << 18) /* port select: 1 MII/symbol 100 Mb, 0 10 Mb serial */
#define DEC21140_CSR6_HBD      (1u << 19) /* heartbeat (SQE) disable */
#define DEC21140_CSR6_SF       (1u << 21) /* store and forward (TR ignored) */
#define DEC21140_CSR6_TTM      (1u << 22) /* transmit threshold mode: 1 = 10 Mb thresholds */
#define DEC21140_CSR6_PCS      (1u << 23) /* PCS functions (symbol mode) */
#define DEC21140_CSR6_SCR      (1u << 24) /* scrambler mode */
#define DEC21140_CSR6_MBO      (1u << 25) /* must be one (21140) */
#define DEC21140_CSR6_RA       (1u << 30) /* receive all (failures passed with RDES0.FF) */
#define DEC21140_CSR6_SC       (1u << 31) /* special capture effect */

/** The read-only CSR6 bits that the setup frame's filter type controls. */
#define DEC21140_CSR6_FILTER_RO_MASK (DEC21140_CSR6_HP | DEC21140_CSR6_HO | DEC21140_CSR6_IF)

/* OM field values (unshifted). */
#define DEC21140_OM_NORMAL            0u
#define DEC21140_OM_INTERNAL_LOOPBACK 1u
#define DEC21140_OM_EXTERNAL_LOOPBACK 2u

/* TR field thresholds in bytes, indexed by the TR value (0-3). */
#define DEC21140_TR0_BYTES_10MB  72
#define DEC21140_TR1_BYTES_10MB  96
#define DEC21140_TR2_BYTES_10MB  128
#define DEC21140_TR3_BYTES_10MB  160
#define DEC21140_TR0_BYTES_100MB 128
#define DEC21140_TR1_BYTES_100MB 256
#define DEC21140_TR2_BYTES_100MB 512
#define DEC21140_TR3_BYTES_100MB 1024

/** Linux's receive-filter update clears these bits, then sets PR|PM or PM (A.4, [V LT]). */
#define DEC21140_LINUX_CSR6_FILTER_CLEAR (0x000000D5u)

/* ============================================================================================
 * A.5 CSR7 - interrupt enable: same positions as CSR5 bits 0-16
 * ========================================================================================== */

#define DEC21140_CSR7_TIM (1u << 0)
#define DEC21140_CSR7_TSM (1u << 1)
#define DEC21140_CSR7_TUM (1u << 2)
#define DEC21140_CSR7_TJM (1u << 3)
#define DEC21140_CSR7_LPM (1u << 4)  /* 21041/21143 */
#define DEC21140_CSR7_UNM (1u << 5)
#define DEC21140_CSR7_RIM (1u << 6)
#define DEC21140_CSR7_RUM (1u << 7)
#define DEC21140_CSR7_RSM (1u << 8)
#define DEC21140_CSR7_RWM (1u << 9)
#define DEC21140_CSR7_ETM (1u << 10)
#define DEC21140_CSR7_GTM (1u << 11)
#define DEC21140_CSR7_LFM (1u << 12) /* 21041/21143 */
#define DEC21140_CSR7_FBM (1u << 13) /* also called SEM */
#define DEC21140_CSR7_ERM (1u << 14)
#define DEC21140_CSR7_AIM (1u << 15)
#define DEC21140_CSR7_NIM (1u << 16)
/** All CSR7 mask bits (positions 0-16). */
#define DEC21140_CSR7_MASK_ALL (0x0001FFFFu)

/* ============================================================================================
 * A.5 CSR8 - missed frames (cleared by a read)
 *
 *   31 29  28  27            17  16  15                   0
 *  +-----+---+----------------+---+------------------------+
 *  |  -  |OCO|      FOC       |MFO|          MFC           |
 *  +-----+---+----------------+---+------------------------+
 * ========================================================================================== */

#define DEC21140_CSR8_MFC_SHIFT 0          /* frames missed: no descriptor available */
#define DEC21140_CSR8_MFC_MASK  (0xFFFFu << 0)
#define DEC21140_CSR8_MFO       (1u << 16) /* MFC overflowed */
#define DEC21140_CSR8_FOC_SHIFT 17         /* FIFO overflow counter (21140 only) */
#define DEC21140_CSR8_FOC_MASK  (0x7FFu << 17)
#define DEC21140_CSR8_OCO       (1u << 28) /* FOC overflowed */

/* ============================================================================================
 * A.5 CSR9 - SROM, boot ROM, MII management (bit-banged)
 *
 *   31  20  19  18  17  16  15  14  13  12  11  10  9  8  7          0
 *  +------+---+---+---+---+---+---+---+---+---+---+-----+------------+
 *  |  --  |MDI|MII|MDO|MDC| - |RD |WR |BR |SR |REG| --  | data / pins|
 *  +------+---+---+---+---+---+---+---+---+---+---+-----+------------+
 *  With SR selected, bits 3:0 are the SROM pins DO DI SK CS.
 * ========================================================================================== */

#define DEC21140_CSR9_SROM_CS    (1u << 0)  /* SROM chip select */
#define DEC21140_CSR9_SROM_SK    (1u << 1)  /* SROM serial clock */
#define DEC21140_CSR9_SROM_DI    (1u << 2)  /* data in to the SROM */
#define DEC21140_CSR9_SROM_DO    (1u << 3)  /* data out from the SROM */
#define DEC21140_CSR9_DATA_SHIFT 0          /* boot ROM data */
#define DEC21140_CSR9_DATA_MASK  (0xFFu << 0)
#define DEC21140_CSR9_REG        (1u << 10) /* external register select */
#define DEC21140_CSR9_SR         (1u << 11) /* select serial ROM */
#define DEC21140_CSR9_BR         (1u << 12) /* select boot ROM */
#define DEC21140_CSR9_WR         (1u << 13) /* write strobe */
#define DEC21140_CSR9_RD         (1u << 14) /* read strobe */
#define DEC21140_CSR9_MDC        (1u << 16) /* MII management clock */
#define DEC21140_CSR9_MDO        (1u << 17) /* MII management data out */
#define DEC21140_CSR9_MII        (1u << 18) /* MII direction: 1 = PHY drives (read) */
#define DEC21140_CSR9_MDI        (1u << 19) /* MII management data in */

/* ============================================================================================
 * A.5 CSR11 - general-purpose timer
 *
 *   31    17  16  15                 0
 *  +--------+---+--------------------+
 *  |   --   |CON|     timer value    |
 *  +--------+---+--------------------+
 * ========================================================================================== */

#define DEC21140_CSR11_TIM_SHIFT 0
#define DEC21140_CSR11_TIM_MASK  (0xFFFFu << 0)
#define DEC21140_CSR11_CON       (1u << 16) /* continuous: reload on expiry */
/** Linux arms CSR11 = 0x12 when it masks sources for too much work per interrupt (A.3). */
#define DEC21140_LINUX_CSR11_MITIGATION 0x12u
/** Linux arms CSR11 = 12 as the retry timer when the RX ring is out of buffers (A.3). */
#define DEC21140_LINUX_CSR11_RX_REFILL  12u

/* ============================================================================================
 * A.5 CSR12 - general-purpose port (21140)
 *
 *   31          9   8   7             0
 *  +-------------+---+----------------+
 *  |     --      |GPC|  pins / mask   |
 *  +-------------+---+----------------+
 *  A write with GPC set loads bits 7:0 as the direction mask (1 = output); a write without GPC
 *  sets the output pin values. Drivers write the direction first, then the data.
 * ========================================================================================== */

#define DEC21140_CSR12_PINS_SHIFT 0
#define DEC21140_CSR12_PINS_MASK  (0xFFu << 0)
#define DEC21140_CSR12_GPC        (1u << 8)

/* SMC EtherPower 10/100 (SMC9332DST) GPIO use (A.0, [V NB, LT eeprom.c]). */
#define DEC21140_SMC9332_GPIO_DIRECTION   (0x3Fu)
#define DEC21140_SMC9332_GPIO_SD_100MB    (1u << 6) /* 100 Mb signal-detect input */
#define DEC21140_SMC9332_GPIO_SD_10MB     (1u << 7) /* 10 Mb signal-detect input */
#define DEC21140_SMC9332_GPIO_INITIAL     (0x09u)
#define DEC21140_SMC9332_GPIO_10BASET     (0x00u)
#define DEC21140_SMC9332_CMD_10BASET      (0x009Eu)
#define DEC21140_SMC9332_GPIO_100BASETX   (0x09u)
#define DEC21140_SMC9332_CMD_100BASETX    (0x006Du)
/** SMC's OUI 00:00:C0, as the first three MAC bytes packed big-endian into 24 bits. */
#define DEC21140_SMC_OUI                  (0x0000C0u)

/* ============================================================================================
 * A.5 CSR15 - watchdog timer (21140)
 *
 *   31         6   5   4   3   2   1   0
 *  +------------+---+---+---+---+---+---+
 *  |     --     |RWR|RWD| - |JCK|HUJ|JBD|
 *  +------------+---+---+---+---+---+---+
 * ========================================================================================== */

#define DEC21140_CSR15_JBD (1u << 0) /* jabber disable */
#define DEC21140_CSR15_HUJ (1u << 1) /* host unjab */
#define DEC21140_CSR15_JCK (1u << 2) /* jabber clock */
#define DEC21140_CSR15_RWD (1u << 4) /* receive watchdog disable */
#define DEC21140_CSR15_RWR (1u << 5) /* receive watchdog release */

/* ============================================================================================
 * A.0 / A.3 Linux constants worth having ([V LT])
 * ========================================================================================== */

/**
 * Linux's valid-interrupt mask for the 21140: bits 0-3, 5-9, 11, 13-16, i.e. every 21140
 * source and both summaries except the 21140A-only ETI (bit 10).
 */
#define DEC21140_LINUX_VALID_INTRS     (0x0001EBEFu)
/** Linux acknowledges an interrupt by writing back csr5 & this mask. */
#define DEC21140_LINUX_CSR5_ACK_MASK   (0x0001FFFFu)
/** Linux writes this to CSR5 after handling the abnormal sources. */
#define DEC21140_LINUX_CSR5_ABNORMAL_CLEAR (0x0800F7BAu)

/* ============================================================================================
 * A.6 Descriptors: 16 bytes = 4 longwords, longword-aligned, little-endian unless CSR0.DBO
 *
 *  byte  +-----------------------------------------------+
 *   0x0  | des0: status   (OWN bit 31; written by chip)  |
 *   0x4  | des1: control  (sizes, ring/chain; by host)   |
 *   0x8  | des2: buffer 1 bus address                    |
 *   0xC  | des3: buffer 2 bus address / next descriptor  |
 *        +-----------------------------------------------+
 *
 * Ownership handoff: the host fills des1..des3 first and sets des0.OWN last (release); the chip
 * writes status into des0 with OWN clear as its last store. Readers test OWN with acquire.
 * Ring walking (A.7): end-of-ring beats chain; chain follows des3; otherwise the next descriptor
 * is at current + 16 + 4 x CSR0.DSL. Linux stores the next address in des3 even in ring mode,
 * so des3 must be ignored unless RCH/TCH is set, and a zero RBS2/TBS2 means "no buffer 2".
 * ========================================================================================== */

typedef struct dec21140_desc {
    uint32_t des0; /* RDES0 / TDES0: status and OWN */
    uint32_t des1; /* RDES1 / TDES1: control and buffer sizes */
    uint32_t des2; /* buffer 1 address */
    uint32_t des3; /* buffer 2 address or next-descriptor address */
} dec21140_desc_t;

#define DEC21140_DESC_SIZE      16
#define DEC21140_DESC_ALIGN     4
#define DEC21140_DESC_DES0_OFS  0
#define DEC21140_DESC_DES1_OFS  4
#define DEC21140_DESC_DES2_OFS  8
#define DEC21140_DESC_DES3_OFS  12
/** Unit of CSR0.DSL: the skip between ring-mode descriptors is DSL x 4 bytes. */
#define DEC21140_DSL_UNIT_BYTES 4
/** Largest byte count a single buffer-size field can hold (11 bits). */
#define DEC21140_BUFFER_SIZE_MAX 2047

_Static_assert(sizeof(dec21140_desc_t) == DEC21140_DESC_SIZE, "dec21140_desc_t must be 16 bytes");
_Static_assert(offsetof(dec21140_desc_t, des0) == DEC21140_DESC_DES0_OFS, "des0 at 0");
_Static_assert(offsetof(dec21140_desc_t, des1) == DEC21140_DESC_DES1_OFS, "des1 at 4");
_Static_assert(offsetof(dec21140_desc_t, des2) == DEC21140_DESC_DES2_OFS, "des2 at 8");
_Static_assert(offsetof(dec21140_desc_t, des3) == DEC21140_DESC_DES3_OFS, "des3 at 12");

/*
 * RDES0 - receive status (written by the chip)
 *
 *   31  30  29            16  15  14  13 12  11  10  9   8   7   6   5   4   3   2   1   0
 *  +---+---+----------------+---+---+-----+---+---+---+---+---+---+---+---+---+---+---+---+
 *  |OWN|FF |  FL (incl FCS) |ES |DE | DT  |RF |MF |FS |LS |TL |CS |FT |RW |RE |DB |CE |OF |
 *  +---+---+----------------+---+---+-----+---+---+---+---+---+---+---+---+---+---+---+---+
 */
#define DEC21140_RDES0_OF       (1u << 0)  /* FIFO overflow (21140) */
#define DEC21140_RDES0_CE       (1u << 1)  /* CRC error */
#define DEC21140_RDES0_DB       (1u << 2)  /* dribbling bit */
#define DEC21140_RDES0_RE       (1u << 3)  /* MII receive error */
#define DEC21140_RDES0_RW       (1u << 4)  /* receive watchdog: frame over 2048 bytes */
#define DEC21140_RDES0_FT       (1u << 5)  /* frame type: type/length field > 1500 */
#define DEC21140_RDES0_CS       (1u << 6)  /* collision seen */
#define DEC21140_RDES0_TL       (1u << 7)  /* frame too long (over 1518) */
#define DEC21140_RDES0_LS       (1u << 8)  /* last descriptor of the frame */
#define DEC21140_RDES0_FS       (1u << 9)  /* first descriptor of the frame */
#define DEC21140_RDES0_MF       (1u << 10) /* multicast frame */
#define DEC21140_RDES0_RF       (1u << 11) /* runt frame (under 64 bytes) */
#define DEC21140_RDES0_DT_SHIFT 12         /* data type */
#define DEC21140_RDES0_DT_MASK  (0x3u << 12)
#define DEC21140_RDES0_DE       (1u << 14) /* descriptor error: truncated, next was host-owned */
#define DEC21140_RDES0_ES       (1u << 15) /* error summary: CE|CS|TL|RF|DE */
#define DEC21140_RDES0_FL_SHIFT 16         /* frame length including the 4-byte FCS (LS only) */
#define DEC21140_RDES0_FL_MASK  (0x3FFFu << 16)
#define DEC21140_RDES0_FF       (1u << 30) /* filtering fail (RA / promiscuous only) */
#define DEC21140_RDES0_OWN      (1u << 31) /* 1 = owned by the chip */
/** The error bits that ES summarises. */
#define DEC21140_RDES0_ES_SOURCES \
    (DEC21140_RDES0_CE | DEC21140_RDES0_CS | DEC21140_RDES0_TL | DEC21140_RDES0_RF | DEC21140_RDES0_DE)

/* DT field values (unshifted). */
#define DEC21140_DT_SERIAL            0u
#define DEC21140_DT_INTERNAL_LOOPBACK 1u
#define DEC21140_DT_EXTERNAL_LOOPBACK 2u

/**
 * Linux accepts a received frame only if (rdes0 & mask) == value: FS and LS set and none of
 * FL bits 29:27, RW, CE, CS, RF, DE (ES itself is not tested). Hence the emulator must put the
 * real FCS in the buffer and count it in FL.
 */
#define DEC21140_LINUX_RX_ACCEPT_MASK  (0x38004B52u)
#define DEC21140_LINUX_RX_ACCEPT_VALUE (0x00000300u)
/** Linux's RX buffer: 1536 + 4 bytes, one buffer per descriptor (A.7). */
#define DEC21140_LINUX_RX_BUF_SIZE     1540
#define DEC21140_LINUX_RX_RING_SIZE    128
#define DEC21140_LINUX_TX_RING_SIZE    32

/*
 * RDES1 - receive control (written by the host)
 *
 *   31   26  25  24  23 22  21          11  10           0
 *  +-------+---+---+-----+----------------+--------------+
 *  |   0   |RER|RCH|  0  |      RBS2      |     RBS1     |
 *  +-------+---+---+-----+----------------+--------------+
 */
#define DEC21140_RDES1_RBS1_SHIFT 0          /* buffer 1 size, multiple of 4 */
#define DEC21140_RDES1_RBS1_MASK  (0x7FFu << 0)
#define DEC21140_RDES1_RBS2_SHIFT 11         /* buffer 2 size, multiple of 4; ignored with RCH */
#define DEC21140_RDES1_RBS2_MASK  (0x7FFu << 11)
#define DEC21140_RDES1_RCH        (1u << 24) /* des3 is the next-descriptor address */
#define DEC21140_RDES1_RER        (1u << 25) /* end of ring: next is CSR3 */
/** Bits that must be written 0. */
#define DEC21140_RDES1_RESERVED_MASK (0xFCC00000u)

/*
 * TDES0 - transmit status (written by the chip; meaningful in the LS descriptor)
 *
 *   31  30  16  15  14  13 12  11  10  9   8   7   6   3   2   1   0
 *  +---+------+---+---+-----+---+---+---+---+---+------+---+---+---+
 *  |OWN|  --  |ES |TO | --  |LO |NC |LC |EC |HF |  CC  |LF |UF |DE |
 *  +---+------+---+---+-----+---+---+---+---+---+------+---+---+---+
 */
#define DEC21140_TDES0_DE       (1u << 0)  /* deferred */
#define DEC21140_TDES0_UF       (1u << 1)  /* underflow */
#define DEC21140_TDES0_LF       (1u << 2)  /* link fail (2104x/21143) */
#define DEC21140_TDES0_CC_SHIFT 3          /* collision count */
#define DEC21140_TDES0_CC_MASK  (0xFu << 3)
#define DEC21140_TDES0_HF       (1u << 7)  /* heartbeat fail */
#define DEC21140_TDES0_EC       (1u << 8)  /* excessive collisions (16) */
#define DEC21140_TDES0_LC       (1u << 9)  /* late collision */
#define DEC21140_TDES0_NC       (1u << 10) /* no carrier */
#define DEC21140_TDES0_LO       (1u << 11) /* loss of carrier */
#define DEC21140_TDES0_TO       (1u << 14) /* transmit jabber timeout */
#define DEC21140_TDES0_ES       (1u << 15) /* error summary [R: of UF, EC, LC, NC, LO, TO] */
#define DEC21140_TDES0_OWN      (1u << 31) /* 1 = owned by the chip */
/** QEMU writes this status for setup frames and for descriptors with both sizes zero. */
#define DEC21140_TDES0_QEMU_SETUP_DONE (0x7FFFFFFFu)

/* Linux TX error accounting masks over TDES0 (A.6, [V LT]). */
#define DEC21140_LINUX_TDES0_ABORTED   (0x4104u) /* TO | EC | LF */
#define DEC21140_LINUX_TDES0_CARRIER   (0x0C00u) /* LO | NC */
#define DEC21140_LINUX_TDES0_WINDOW    (0x0200u) /* LC */
#define DEC21140_LINUX_TDES0_FIFO      (0x0002u) /* UF */
#define DEC21140_LINUX_TDES0_HEARTBEAT (0x0080u) /* HF */

/*
 * TDES1 - transmit control (written by the host)
 *
 *   31  30  29  28  27  26  25  24  23  22  21          11  10           0
 *  +---+---+---+---+---+---+---+---+---+---+----------------+--------------+
 *  |IC |LS |FS |FT1|SET|AC |TER|TCH|DPD|FT0|      TBS2      |     TBS1     |
 *  +---+---+---+---+---+---+---+---+---+---+----------------+--------------+
 */
#define DEC21140_TDES1_TBS1_SHIFT 0          /* buffer 1 byte count (max 2047; byte-aligned ok) */
#define DEC21140_TDES1_TBS1_MASK  (0x7FFu << 0)
#define DEC21140_TDES1_TBS2_SHIFT 11         /* buffer 2 byte count */
#define DEC21140_TDES1_TBS2_MASK  (0x7FFu << 11)
#define DEC21140_TDES1_FT0        (1u << 22) /* filter type bit 0 (setup frames) */
#define DEC21140_TDES1_DPD        (1u << 23) /* disable padding to 64 bytes */
#define DEC21140_TDES1_TCH        (1u << 24) /* des3 is the next-descriptor address */
#define DEC21140_TDES1_TER        (1u << 25) /* end of ring: next is CSR4 */
#define DEC21140_TDES1_AC         (1u << 26) /* add-CRC disable */
#define DEC21140_TDES1_SET        (1u << 27) /* setup packet */
#define DEC21140_TDES1_FT1        (1u << 28) /* filter type bit 1 (setup frames) */
#define DEC21140_TDES1_FS         (1u << 29) /* first segment */
#define DEC21140_TDES1_LS         (1u << 30) /* last segment */
#define DEC21140_TDES1_IC         (1u << 31) /* interrupt on completion */

/** Linux's per-frame TX flags (FS|LS), and with IC at half ring and ring end (A.7). */
#define DEC21140_LINUX_TDES1_FRAME     (0x60000000u)
#define DEC21140_LINUX_TDES1_FRAME_IC  (0xE0000000u)
/** Linux's setup descriptor control words: perfect (SET|192) and hash (SET|FT0|192) (A.8). */
#define DEC21140_LINUX_TDES1_SETUP_PERFECT (0x080000C0u)
#define DEC21140_LINUX_TDES1_SETUP_HASH    (0x084000C0u)

/* ============================================================================================
 * A.8 Setup frame (address filter)
 *
 * Queued as a TX descriptor with SET = 1 and TBS1 = 192 bytes (48 longwords); never sent on the
 * wire; processed in TS state 5. Only the LOW 16 BITS of each longword are used (Linux writes
 * each half twice so the frame works from either host byte order). With the little-endian
 * layout, the low half of longword k is bytes 4k and 4k+1 of the frame.
 *
 * Filter type FT1:FT0 (TDES1 bits 28 and 22):
 *   00 perfect          16 addresses accepted
 *   01 hash             512-bit multicast hash table + 1 perfect physical address
 *   10 inverse perfect  16 addresses rejected
 *   11 hash-only        every address hashed
 *
 * Perfect / inverse layout: entry n (0-15) = longwords 3n..3n+2 = bytes 12n..12n+11:
 *
 *   byte 12n+0  : MAC[0]   12n+1 : MAC[1]   12n+2,3   : ignored (Linux repeats MAC[0..1])
 *   byte 12n+4  : MAC[2]   12n+5 : MAC[3]   12n+6,7   : ignored
 *   byte 12n+8  : MAC[4]   12n+9 : MAC[5]   12n+10,11 : ignored
 *
 *   Unused slots must repeat a valid address (Linux: multicast first, ff:ff:ff:ff:ff:ff in
 *   unused slots, station address in slot 15).
 *
 * Hash layout: longwords 0-31, low halves, form the 512-bit table; bit i is in longword i >> 4,
 * bit i & 15, i.e. frame byte 4(i >> 4) + ((i & 15) >> 3), bit i & 7. The perfect physical
 * address is at byte 156 (longwords 39-41), in the same 3-longword form as a perfect entry.
 * Hash index = (~crc32_zlib(dst, 6)) & 0x1FF (the un-complemented reflected CRC); broadcast
 * hashes to 255, which Linux always sets. QEMU always accepts broadcast and needs TBS1 == 192.
 *
 * One representation is used (48 longwords); perfect entries and the hash table are overlays
 * described by the offsets below.
 * ========================================================================================== */

typedef struct dec21140_setup_frame {
    uint32_t lw[48];
} dec21140_setup_frame_t;

#define DEC21140_SETUP_FRAME_SIZE       192
#define DEC21140_SETUP_FRAME_LONGWORDS  48

_Static_assert(sizeof(dec21140_setup_frame_t) == DEC21140_SETUP_FRAME_SIZE,
               "dec21140_setup_frame_t must be 192 bytes");
_Static_assert(offsetof(dec21140_setup_frame_t, lw) == 0, "setup frame starts with its longwords");

/* Filter type codes FT1:FT0 (unshifted, 2 bits: FT1 is bit 1). */
#define DEC21140_FT_PERFECT         0u
#define DEC21140_FT_HASH            1u
#define DEC21140_FT_INVERSE         2u
#define DEC21140_FT_HASH_ONLY       3u
/** The same codes as TDES1 bit patterns (FT1 = bit 28, FT0 = bit 22). */
#define DEC21140_TDES1_FT_PERFECT   (0u)
#define DEC21140_TDES1_FT_HASH      (DEC21140_TDES1_FT0)
#define DEC21140_TDES1_FT_INVERSE   (DEC21140_TDES1_FT1)
#define DEC21140_TDES1_FT_HASH_ONLY (DEC21140_TDES1_FT1 | DEC21140_TDES1_FT0)
#define DEC21140_TDES1_FT_MASK      (DEC21140_TDES1_FT1 | DEC21140_TDES1_FT0)

/* Perfect / inverse filtering. */
#define DEC21140_SETUP_PERFECT_ENTRIES    16
#define DEC21140_SETUP_PERFECT_ENTRY_SIZE 12 /* bytes: three longwords per address */
/** Byte position of MAC byte k inside a perfect entry (little-endian longwords). */
#define DEC21140_SETUP_PERFECT_MAC0_OFS   0
#define DEC21140_SETUP_PERFECT_MAC1_OFS   1
#define DEC21140_SETUP_PERFECT_MAC2_OFS   4
#define DEC21140_SETUP_PERFECT_MAC3_OFS   5
#define DEC21140_SETUP_PERFECT_MAC4_OFS   8
#define DEC21140_SETUP_PERFECT_MAC5_OFS   9
/** Byte offset of MAC byte k (0-5) of perfect entry n (0-15): 12n + 4(k/2) + (k%2). */
#define DEC21140_SETUP_PERFECT_MAC_OFS(n, k) \
    ((n) * DEC21140_SETUP_PERFECT_ENTRY_SIZE + ((k) >> 1) * 4 + ((k) & 1))
/** Linux puts the station address in the last slot. */
#define DEC21140_SETUP_PERFECT_STATION_SLOT 15

/* Hash filtering. */
#define DEC21140_SETUP_HASH_BITS          512
#define DEC21140_SETUP_HASH_LONGWORDS     32      /* longwords 0-31, low 16 bits each */
#define DEC21140_SETUP_HASH_BITS_PER_LW   16
#define DEC21140_SETUP_HASH_INDEX_MASK    (0x1FFu)
/** Byte offset of the perfect physical address in hash mode (longwords 39-41). */
#define DEC21140_SETUP_HASH_PHYS_OFS      156
#define DEC21140_SETUP_HASH_PHYS_LW       39
/** Hash index of ff:ff:ff:ff:ff:ff (computed and checked in A.8). */
#define DEC21140_SETUP_HASH_BROADCAST_INDEX 255
/** Longword and bit of hash index i (conveniences). */
#define DEC21140_SETUP_HASH_LW(i)  ((i) >> 4)
#define DEC21140_SETUP_HASH_BIT(i) ((i) & 15)

/* ============================================================================================
 * A.9 SROM and MII
 *
 * 93C46-style Microwire EEPROM of 16-bit words, 6 address bits (64 words) or 8 (256 words).
 * DEC SROM layout (byte offsets):
 *
 *   0..15   subsystem IDs / reserved     20..25  MAC address
 *   16      ID-block CRC byte            26      device number
 *   18      format version               27..28  info-leaf offset
 *   19      controller count             126..127 CRC: low 16 bits of CRC-32 over bytes 0..125
 *
 * Old boards store the MAC at byte 0; Linux uses 20 when bytes 0..7 differ from bytes 16..23.
 * ========================================================================================== */

#define DEC21140_SROM_SUBSYS_OFS           0
#define DEC21140_SROM_SUBSYS_SIZE          16
#define DEC21140_SROM_ID_CRC_OFS           16
#define DEC21140_SROM_FORMAT_VERSION_OFS   18
#define DEC21140_SROM_CONTROLLER_COUNT_OFS 19
#define DEC21140_SROM_MAC_OFS              20
#define DEC21140_SROM_MAC_SIZE             6
#define DEC21140_SROM_DEVICE_NUMBER_OFS    26
#define DEC21140_SROM_INFO_LEAF_OFS        27 /* 16-bit, bytes 27..28 */
#define DEC21140_SROM_CRC_OFS              126 /* 16-bit, bytes 126..127 */
#define DEC21140_SROM_CRC_COVERED_BYTES    126
#define DEC21140_SROM_LEGACY_MAC_OFS       0
#define DEC21140_SROM_WORDS_SMALL          64  /* 6 address bits; what QEMU keeps */
#define DEC21140_SROM_WORDS_LARGE          256 /* 8 address bits */
#define DEC21140_SROM_ADDR_BITS_SMALL      6
#define DEC21140_SROM_ADDR_BITS_LARGE      8
/** Microwire read opcode, binary 110 (3 bits, sent after the start bit). */
#define DEC21140_SROM_OP_READ              (0x6u)
#define DEC21140_SROM_OP_BITS              3

/* MII management frame: 32 ones, start 01, op, PHY address 5, register 5, turnaround 2, data 16. */
#define DEC21140_MII_PREAMBLE_BITS 32
#define DEC21140_MII_START         (0x1u) /* binary 01 */
#define DEC21140_MII_OP_READ       (0x2u) /* binary 10 */
#define DEC21140_MII_OP_WRITE      (0x1u) /* binary 01 */
#define DEC21140_MII_PHY_ADDR_BITS 5
#define DEC21140_MII_REG_ADDR_BITS 5
#define DEC21140_MII_TURNAROUND_BITS 2
#define DEC21140_MII_DATA_BITS     16
/** QEMU models one PHY at this address. */
#define DEC21140_MII_QEMU_PHY_ADDR 1

/* ============================================================================================
 * D.1 Ethernet (10/100) - what the wire model and the emulator need
 * ========================================================================================== */

#define DEC21140_ETH_ADDR_LEN        6
#define DEC21140_ETH_HEADER_LEN      14
#define DEC21140_ETH_FCS_LEN         4
#define DEC21140_ETH_MIN_FRAME       64   /* including FCS */
#define DEC21140_ETH_MIN_FRAME_NOFCS 60   /* TX pads shorter frames to this unless DPD */
#define DEC21140_ETH_MIN_PAYLOAD     46
#define DEC21140_ETH_MAX_FRAME       1518 /* including FCS; RDES0.TL above this */
#define DEC21140_ETH_MAX_FRAME_VLAN  1522 /* with an 802.1Q tag */
#define DEC21140_ETH_MAX_PAYLOAD     1500
/** RDES0.FT is set when the type/length field exceeds this. */
#define DEC21140_ETH_MAX_LENGTH_FIELD 1500
/** RDES0.RW / CSR5.RWT: frames over this many bytes trip the receive watchdog. */
#define DEC21140_RX_WATCHDOG_BYTES   2048
#define DEC21140_ETH_PREAMBLE_LEN    7
#define DEC21140_ETH_PREAMBLE_BYTE   (0x55u)
#define DEC21140_ETH_SFD_BYTE        (0xD5u)
#define DEC21140_ETH_PREAMBLE_SFD_LEN 8
#define DEC21140_ETH_IFG_BYTES       12   /* 96 bit times */
/** Wire occupancy of an N-byte frame is (N + 20) byte times: preamble+SFD 8 + IFG 12. */
#define DEC21140_ETH_WIRE_OVERHEAD   20
#define DEC21140_ETH_BIT_TIME_NS_100MB 10
#define DEC21140_ETH_BIT_TIME_NS_10MB  100
#define DEC21140_ETH_BYTE_TIME_NS_100MB 80
#define DEC21140_ETH_BYTE_TIME_NS_10MB  800
#define DEC21140_ETH_SLOT_BITS       512
#define DEC21140_ETH_JAM_BITS        32
#define DEC21140_ETH_ATTEMPT_LIMIT   16
#define DEC21140_ETH_BACKOFF_LIMIT   10
/** Worked figures from D.1 (ns at 100 Mb/s): 64 B -> 6.72 us, 1518 B -> 123.04 us. */
#define DEC21140_ETH_MIN_FRAME_WIRE_NS_100MB 6720
#define DEC21140_ETH_MAX_FRAME_WIRE_NS_100MB 123040

/* FCS: CRC-32 as zlib computes it; appended least-significant byte first. */
#define DEC21140_FCS_POLY            (0x04C11DB7u)
#define DEC21140_FCS_POLY_REFLECTED  (0xEDB88320u)
#define DEC21140_FCS_INIT            (0xFFFFFFFFu)
#define DEC21140_FCS_XOROUT          (0xFFFFFFFFu)
/** crc32("123456789") with the parameters above. */
#define DEC21140_FCS_CHECK           (0xCBF43926u)
/** crc32(frame || FCS) of a good frame (zlib value, i.e. after the final XOR). */
#define DEC21140_FCS_RESIDUE         (0x2144DF1Cu)
/** The same residue as the raw shift register before the final XOR. */
#define DEC21140_FCS_RESIDUE_RAW     (0xDEBB20E3u)

#endif /* NICBRIDGE_DEC21140_H */
