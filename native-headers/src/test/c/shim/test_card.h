/*
 * test_card.h - a TEST-ONLY card model for the platform tests (nicshim.c linked directly, no real card).
 *
 * It defines the strong symbol shim_dec21140_card (kind NICSHIM_CARD_DEC21140), so linking test_card.c with
 * nicshim.c replaces the platform's weak reference; shim_sba200_eth_card stays missing (kind unknown).
 *
 * One register range of TC_WINDOW_SIZE bytes; the test drives it through nicshim_reg_write/reg_read:
 *
 *   0x00 TX_BUS_LO  0x04 TX_BUS_HI   bus address of frame 0 of the transmit batch (in a DMA region)
 *   0x08 TX_LEN     bytes per frame  0x0C TX_STRIDE  bus distance between frames
 *   0x10 TX_COUNT   write: add this many frames to the batch (sent only after a NICSHIM_KICK_TX, like a
 *                   suspended transmit process waiting for its poll demand)
 *   0x14 CTRL       TC_CTRL_* bits      0x18 IRQ_ACK (write: lower the interrupt line)
 *   0x1C TIMER      write: tick() fires this many microseconds from now (0 = disarm)
 *   0x20 RX_COUNT   0x24 TX_SENT   0x28 TX_BLOCKED (reserve returned NULL)   0x2C TICKS   (read-only)
 *
 * Transmit: frame i comes from TX_BUS + i * TX_STRIDE, translated with shim_dma (a failure is a bus error:
 * counted, batch dropped, NICSHIM_EV_BUS_ERR); a full TX ring keeps the frame for the next round. Receive: every
 * frame is copied into the card's record (first TC_MAX_FRAMES kept) and counted.
 */
#ifndef NICBRIDGE_TEST_CARD_H
#define NICBRIDGE_TEST_CARD_H

#include "shim_internal.h"

#define TC_WINDOW_SIZE 128
#define TC_MAX_FRAME   1514
#define TC_MAX_FRAMES  256
#define TC_FRAME_BYTES 2048

#define TC_TX_BUS_LO  0x00
#define TC_TX_BUS_HI  0x04
#define TC_TX_LEN     0x08
#define TC_TX_STRIDE  0x0C
#define TC_TX_COUNT   0x10
#define TC_CTRL       0x14
#define TC_IRQ_ACK    0x18
#define TC_TIMER      0x1C
#define TC_RX_COUNT   0x20
#define TC_TX_SENT    0x24
#define TC_TX_BLOCKED 0x28
#define TC_TICKS      0x2C

#define TC_CTRL_CAN_RECEIVE (1u << 0) /* can_receive() answers yes (set at attach) */
#define TC_CTRL_IRQ_ON_RX   (1u << 1) /* raise the interrupt line on every received frame */
#define TC_CTRL_PROMISC     (1u << 2) /* shim_set_rx_mode(SHIM_RXMODE_PROMISC) */
#define TC_CTRL_ALLMULTI    (1u << 3) /* shim_set_rx_mode(SHIM_RXMODE_ALLMULTI) */

typedef struct test_card {
    shim_t *shim;
    uint8_t *window;
    int started;
    uint64_t tx_bus;
    uint32_t tx_len, tx_stride, tx_next, tx_pending;
    int tx_armed;
    uint32_t ctrl;
    int irq;
    uint64_t deadline;
    uint32_t rx_count, tx_sent, tx_blocked, ticks;
    uint8_t (*frames)[TC_FRAME_BYTES];
    uint32_t frame_len[TC_MAX_FRAMES];
} test_card_t;

/** The card of the most recently opened shim (tests read its record after their own poll returned). */
extern test_card_t *test_card_last;

#endif
