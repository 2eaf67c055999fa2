/*
 * fake_platform.h - a test double of the shim's platform (shim_internal.h), for unit tests of one card model
 * without sockets: DMA regions are plain malloc'd memory, transmitted frames are captured in order, received
 * frames are handed to the card by the test, counters are plain arrays.
 */
#ifndef NICBRIDGE_FAKE_PLATFORM_H
#define NICBRIDGE_FAKE_PLATFORM_H

#include "shim_internal.h"

#define FAKE_MAX_REGIONS 8
#define FAKE_MAX_TX      64
#define FAKE_FRAME_MAX   9216

typedef struct fake_region {
    uint64_t bus;
    uint8_t *host;
    uint64_t len;
} fake_region_t;

/** The fake shim: tests read and set these fields directly. */
struct nicshim {
    fake_region_t regions[FAKE_MAX_REGIONS];
    int region_count;
    uint8_t mac[6];
    uint32_t mtu;
    uint32_t rx_mode;
    /* transmitted frames, oldest first */
    uint8_t tx[FAKE_MAX_TX][FAKE_FRAME_MAX];
    uint32_t tx_len[FAKE_MAX_TX];
    int tx_count;
    int tx_capacity;     /* frames the "ring" takes before shim_tx_reserve returns NULL (<= FAKE_MAX_TX) */
    int tx_reserved;     /* 1 while a reservation is open */
    uint64_t stats[SHIM_STAT_COUNT];
    uint32_t kicks;      /* NICSHIM_KICK_* bits rung through nicshim_kick() (tests clear it) */
    int rx_mode_calls;   /* shim_set_rx_mode() calls */
};

/** Resets the fake: no regions, MAC 02:00:00:00:00:01, MTU 1500, room for FAKE_MAX_TX frames. */
void fake_init(shim_t *shim);
/** Registers [bus, bus + len) -> a fresh zeroed buffer; returns the host pointer. */
uint8_t *fake_add_region(shim_t *shim, uint64_t bus, uint64_t len);
/** Sets what shim_now_ns() returns (tests advance time by hand). */
void fake_set_time(uint64_t now_ns);
/* The fake also defines nicshim_kick() (a card may ring its own doorbell): it ORs `what` into shim->kicks. */

/** Frees every region. */
void fake_free(shim_t *shim);

#endif
