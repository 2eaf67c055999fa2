/* test_card.c - see test_card.h. Card code runs under the shim's lock, so it is plain single-threaded C. */
#include "test_card.h"

#include <stdlib.h>
#include <string.h>

test_card_t *test_card_last;

static void *tc_create(shim_t *shim, const nicshim_options_t *options) {
    (void)options;
    test_card_t *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        return NULL;
    }
    c->frames = calloc(TC_MAX_FRAMES, TC_FRAME_BYTES);
    if (c->frames == NULL) {
        free(c);
        return NULL;
    }
    c->shim = shim;
    c->deadline = UINT64_MAX;
    test_card_last = c;
    return c;
}

static void tc_destroy(void *card) {
    test_card_t *c = card;
    if (test_card_last == c) {
        test_card_last = NULL;
    }
    free(c->frames);
    free(c);
}

static void tc_attach(void *card, uint32_t range, uint8_t *base) {
    test_card_t *c = card;
    (void)range;
    c->window = base;
    memset(base, 0, TC_WINDOW_SIZE);
    c->ctrl = TC_CTRL_CAN_RECEIVE;
    shim_store_relaxed(base + TC_CTRL, c->ctrl);
}

static int32_t tc_reg_write(void *card, uint32_t range, uint32_t offset, uint32_t value) {
    test_card_t *c = card;
    (void)range;
    switch (offset) {
    case TC_TX_BUS_LO:
        c->tx_bus = (c->tx_bus & ~0xFFFFFFFFull) | value;
        break;
    case TC_TX_BUS_HI:
        c->tx_bus = (c->tx_bus & 0xFFFFFFFFull) | (uint64_t)value << 32;
        break;
    case TC_TX_LEN:
        c->tx_len = value;
        break;
    case TC_TX_STRIDE:
        c->tx_stride = value;
        break;
    case TC_TX_COUNT:
        c->tx_pending += value;
        break;
    case TC_CTRL:
        c->ctrl = value;
        shim_set_rx_mode(c->shim, ((value & TC_CTRL_PROMISC) != 0 ? SHIM_RXMODE_PROMISC : 0) |
                                      ((value & TC_CTRL_ALLMULTI) != 0 ? SHIM_RXMODE_ALLMULTI : 0));
        break;
    case TC_IRQ_ACK:
        c->irq = 0;
        break;
    case TC_TIMER:
        c->deadline = value == 0 ? UINT64_MAX : shim_now_ns() + (uint64_t)value * 1000u;
        break;
    default:
        break;
    }
    shim_store_relaxed(c->window + offset, value);
    return NICSHIM_OK;
}

static int32_t tc_reg_read(void *card, uint32_t range, uint32_t offset, uint32_t *value) {
    test_card_t *c = card;
    (void)range;
    switch (offset) {
    case TC_RX_COUNT:
        *value = c->rx_count;
        break;
    case TC_TX_SENT:
        *value = c->tx_sent;
        break;
    case TC_TX_BLOCKED:
        *value = c->tx_blocked;
        break;
    case TC_TICKS:
        *value = c->ticks;
        break;
    default:
        *value = shim_load_relaxed(c->window + offset);
        break;
    }
    return NICSHIM_OK;
}

static void tc_start(void *card) {
    ((test_card_t *)card)->started = 1;
}

static void tc_stop(void *card) {
    test_card_t *c = card;
    c->started = 0;
    c->tx_armed = 0;
}

static uint32_t tc_work(void *card, uint32_t kicks, uint32_t budget) {
    test_card_t *c = card;
    if ((kicks & NICSHIM_KICK_TX) != 0) {
        c->tx_armed = 1;
    }
    uint32_t events = 0;
    for (uint32_t n = 0; c->tx_armed && c->tx_pending > 0 && n < budget; n++) {
        shim_bus_fault_t fault;
        const uint8_t *src = shim_dma(c->shim, c->tx_bus + (uint64_t)c->tx_next * c->tx_stride, c->tx_len, &fault);
        if (src == NULL) {
            shim_count(c->shim, SHIM_STAT_BUS_ERRORS, 1);
            c->tx_pending = 0;
            events |= NICSHIM_EV_BUS_ERR;
            break;
        }
        uint8_t *dst = shim_tx_reserve(c->shim, c->tx_len);
        if (dst == NULL) {
            c->tx_blocked++;
            break;
        }
        memcpy(dst, src, c->tx_len);
        shim_tx_commit(c->shim, c->tx_len);
        shim_count(c->shim, SHIM_STAT_TX_FRAMES, 1);
        shim_count(c->shim, SHIM_STAT_TX_BYTES, c->tx_len);
        c->tx_sent++;
        c->tx_next++;
        c->tx_pending--;
        events |= NICSHIM_EV_TX_DONE;
    }
    if (c->tx_pending == 0) {
        c->tx_armed = 0;
    }
    return events;
}

static uint32_t tc_receive(void *card, const uint8_t *frame, uint32_t len) {
    test_card_t *c = card;
    if (c->rx_count < TC_MAX_FRAMES) {
        uint32_t keep = len < TC_FRAME_BYTES ? len : TC_FRAME_BYTES;
        memcpy(c->frames[c->rx_count], frame, keep);
        c->frame_len[c->rx_count] = len;
    }
    c->rx_count++;
    shim_count(c->shim, SHIM_STAT_RX_FRAMES, 1);
    shim_count(c->shim, SHIM_STAT_RX_BYTES, len);
    if ((c->ctrl & TC_CTRL_IRQ_ON_RX) != 0) {
        c->irq = 1;
    }
    return NICSHIM_EV_RX;
}

static int tc_can_receive(void *card) {
    return (((test_card_t *)card)->ctrl & TC_CTRL_CAN_RECEIVE) != 0;
}

static uint32_t tc_tick(void *card, uint64_t now_ns) {
    test_card_t *c = card;
    if (now_ns < c->deadline) {
        return 0;
    }
    c->deadline = UINT64_MAX;
    c->ticks++;
    return NICSHIM_EV_CMD_DONE;
}

static uint64_t tc_next_deadline(void *card) {
    return ((test_card_t *)card)->deadline;
}

static int tc_irq_level(void *card) {
    return ((test_card_t *)card)->irq;
}

const shim_card_ops_t shim_dec21140_card = {
    .kind = NICSHIM_CARD_DEC21140,
    .name = "test-card",
    .range_count = 1,
    .range_size = {TC_WINDOW_SIZE, 0},
    .max_frame = TC_MAX_FRAME,
    .create = tc_create,
    .destroy = tc_destroy,
    .attach = tc_attach,
    .reg_write = tc_reg_write,
    .reg_read = tc_reg_read,
    .start = tc_start,
    .stop = tc_stop,
    .work = tc_work,
    .receive = tc_receive,
    .can_receive = tc_can_receive,
    .tick = tc_tick,
    .next_deadline = tc_next_deadline,
    .irq_level = tc_irq_level,
};
