/*
 * shim_internal.h - how the parts of the native shim fit together (not part of the public ABI).
 *
 *   nicshim.h API  -->  nicshim.c (the platform)            <-->  card models (one per card kind)
 *                       - state lock, kicks, poll/wait           dec21140_card.c  (NICSHIM_CARD_DEC21140)
 *                       - DMA region table + translation         sba200_eth_card.c (NICSHIM_CARD_SBA200_UNET_ETH)
 *                       - AF_PACKET + PACKET_MMAP RX/TX rings, or AF_XDP
 *                         (xsk.c, shim_xsk.h: the same calls below, over XSK rings in the caller's UMEM)
 *                       - statistics, link state
 *                       - fault injection on both directions (fault.c, shim_fault.h: the decisions; nicshim.c
 *                         applies them where frames cross between the card and the transport)
 *
 * Threads: every card entry point below is called with the shim's state lock held (nicshim.c takes it in
 * reg_read/reg_write/start/stop/poll/attach/add/remove), so a card model is single-threaded code. Only
 * nicshim_kick() and nicshim_get_stats() run without the lock: the first sets bits in an atomic word that
 * poll() drains, the second reads counters that the card updates with shim_count() (relaxed atomics).
 *
 * Shared memory: register windows and DMA memory are Java's pinned segments, read and written concurrently by
 * the Java driver. A card model touches them only through the helpers here (atomic 32-bit loads/stores with
 * acquire/release where the contract hands ownership over; memcpy for payload bytes).
 */
#ifndef NICBRIDGE_SHIM_INTERNAL_H
#define NICBRIDGE_SHIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "nicshim.h"

typedef struct nicshim shim_t;

/* ---------------------------------------------------------------------------------------------
 * Shared-memory word access (host byte order; the card applies its own byte order on top).
 * ------------------------------------------------------------------------------------------- */

static inline uint32_t shim_load_acquire(const void *p) {
    return __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
}
static inline uint32_t shim_load_relaxed(const void *p) {
    return __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED);
}
static inline void shim_store_release(void *p, uint32_t v) {
    __atomic_store_n((uint32_t *)p, v, __ATOMIC_RELEASE);
}
static inline void shim_store_relaxed(void *p, uint32_t v) {
    __atomic_store_n((uint32_t *)p, v, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------------------------------------
 * DMA: bus address -> host pointer, bounds-checked against the registered regions.
 * ------------------------------------------------------------------------------------------- */

/** Why a translation failed (maps onto the card's own error reporting, e.g. 21140 CSR5.EB). */
typedef enum shim_bus_fault {
    SHIM_BUS_OK = 0,
    SHIM_BUS_NO_REGION = 1, /* the start address is in no region: 21140 master abort */
    SHIM_BUS_PAST_END = 2,  /* starts inside a region, runs past its end: 21140 target abort */
    SHIM_BUS_WRAP = 3,      /* bus + len overflows the address space: master abort */
} shim_bus_fault_t;

/**
 * Host pointer for [bus, bus + len), or NULL with *fault set (fault may be NULL). len 0 is checked as len 1.
 * Counts nothing: the card decides whether a failed translation is a bus error (and then calls
 * shim_count(shim, SHIM_STAT_BUS_ERRORS, 1)).
 */
void *shim_dma(shim_t *shim, uint64_t bus, uint64_t len, shim_bus_fault_t *fault);

/* ---------------------------------------------------------------------------------------------
 * The link: one Ethernet frame at a time, destination address first, no FCS (the kernel / NIC adds it).
 * ------------------------------------------------------------------------------------------- */

/**
 * Space for one outgoing frame of up to `max_len` bytes in the PACKET_MMAP TX ring (AF_XDP: a free transmit chunk of
 * the UMEM), or NULL when the ring is full (back-pressure: the card keeps its descriptor and retries on a later poll,
 * which waits for POLLOUT, or for AF_XDP a short retry timer while completions come back).
 * At most one reservation is open at a time.
 */
uint8_t *shim_tx_reserve(shim_t *shim, uint32_t max_len);
/** Hands the reserved frame of `len` bytes (14..max_len) to the kernel ring; sent at the next flush. */
void shim_tx_commit(shim_t *shim, uint32_t len);
/** Drops an open reservation. */
void shim_tx_abort(shim_t *shim);
/**
 * One whole frame of `len` bytes from the card's own buffer: reserve + copy + commit. Returns 1 when the frame was
 * taken (queued for the flush, or refused and counted as commit would), 0 for back-pressure (nothing taken: retry
 * later). Not while a reservation is open.
 */
int shim_tx_frame(shim_t *shim, const uint8_t *frame, uint32_t len);
/* The platform flushes (sendto; send mode: send or sendmmsg) after each card call that committed frames; cards never
 * call send. */

/** The interface's station address (what the 21140's SROM holds; the U-Net source MAC). */
const uint8_t *shim_mac(const shim_t *shim);
/** The interface MTU (payload bytes after the 14-byte header). */
uint32_t shim_mtu(const shim_t *shim);

/** Receive filter requests from the card (e.g. CSR6.PR / PM, multicast entries in a setup frame). */
#define SHIM_RXMODE_PROMISC  (1u << 0)
#define SHIM_RXMODE_ALLMULTI (1u << 1)
/** Applies PACKET_MR_PROMISC / PACKET_MR_ALLMULTI memberships; the card still filters in software. */
void shim_set_rx_mode(shim_t *shim, uint32_t mode);

/** Monotonic nanoseconds (CLOCK_MONOTONIC), for card timers. */
uint64_t shim_now_ns(void);

/* ---------------------------------------------------------------------------------------------
 * Statistics (nicshim_stats_t fields, by index = byte offset / 8).
 * ------------------------------------------------------------------------------------------- */

enum shim_stat {
    SHIM_STAT_TX_FRAMES = 0,
    SHIM_STAT_TX_BYTES,
    SHIM_STAT_RX_FRAMES,
    SHIM_STAT_RX_BYTES,
    SHIM_STAT_RX_MISSED,
    SHIM_STAT_RX_DROP_FILTER,
    SHIM_STAT_RX_DROP_KERNEL,
    SHIM_STAT_RX_DROP_TRUNCATED,
    SHIM_STAT_RX_DROP_TOO_LONG,
    SHIM_STAT_RX_DROP_BAD_FRAME,
    SHIM_STAT_RX_DROP_NO_CHANNEL,
    SHIM_STAT_TX_DROP_TOO_LONG,
    SHIM_STAT_TX_DROP_KERNEL,
    SHIM_STAT_TX_BAD_DESCRIPTOR,
    SHIM_STAT_BUS_ERRORS,
    SHIM_STAT_LINK_CHANGES,
    SHIM_STAT_KICKS,
    SHIM_STAT_POLLS,
    SHIM_STAT_INTERRUPTS,
    SHIM_STAT_CARD_ERRORS,
    SHIM_STAT_FAULT_DROPS,
    SHIM_STAT_FAULT_DUPLICATES,
    SHIM_STAT_FAULT_REORDERS,
    SHIM_STAT_FAULT_CORRUPTS,
    SHIM_STAT_COUNT
};
_Static_assert(SHIM_STAT_CARD_ERRORS * 8 == offsetof(nicshim_stats_t, card_errors), "stat index = offset / 8");
_Static_assert(SHIM_STAT_FAULT_CORRUPTS * 8 == offsetof(nicshim_stats_t, fault_corrupts), "stat index = offset / 8");
_Static_assert(SHIM_STAT_COUNT * 8 == sizeof(nicshim_stats_t), "every counter has an index");

/** Adds `n` to one counter (caller holds the state lock: relaxed load + store, so nicshim_get_stats may read
 * concurrently without tearing; kicks, counted without the lock, add atomically). */
void shim_count(shim_t *shim, enum shim_stat stat, uint64_t n);

/* ---------------------------------------------------------------------------------------------
 * A card model: what nicshim.c calls. Every function pointer is required unless marked optional.
 * `card` is the model's own state, made by create().
 * ------------------------------------------------------------------------------------------- */

typedef struct shim_card_ops {
    uint32_t kind;                 /* NICSHIM_CARD_* */
    const char *name;              /* "dec21140", "sba200-unet-eth" */
    uint32_t range_count;          /* register ranges (windows) */
    uint64_t range_size[2];        /* required length of each range */
    uint32_t max_frame;            /* longest frame the card sends (without FCS), for the MTU check */

    /** Allocates the model's state for `shim` (options already validated). NULL = out of memory. */
    void *(*create)(shim_t *shim, const nicshim_options_t *options);
    void (*destroy)(void *card);

    /** A register range was attached: remember `base` and load the reset values into it. */
    void (*attach)(void *card, uint32_t range, uint8_t *base);

    /** Register access with side effects; offset is checked (in range, 4-aligned) by the platform. */
    int32_t (*reg_write)(void *card, uint32_t range, uint32_t offset, uint32_t value);
    int32_t (*reg_read)(void *card, uint32_t range, uint32_t offset, uint32_t *value);

    /** nicshim_start / nicshim_stop: the link is open / about to close. */
    void (*start)(void *card);
    void (*stop)(void *card);

    /**
     * Card work: `kicks` is the set of NICSHIM_KICK_* bits rung since the last call (0 = none; a card that polls
     * its queues may look anyway). Process at most `budget` transmit descriptors / commands.
     * Returns NICSHIM_EV_* bits (without EV_IRQ, which the platform derives from irq_level()).
     */
    uint32_t (*work)(void *card, uint32_t kicks, uint32_t budget);

    /**
     * One received frame (destination address first, no FCS; VLAN tag already re-inserted) of `len` bytes
     * (0 < len <= the ring's frame size). The card filters, DMAs and completes it, or drops and counts it.
     * Returns NICSHIM_EV_* bits.
     */
    uint32_t (*receive)(void *card, const uint8_t *frame, uint32_t len);

    /** Whether the card would take a frame now (optional; NULL = always). False leaves frames in the kernel ring. */
    int (*can_receive)(void *card);

    /** Timers: called on every poll with the current time; returns EV bits. (optional) */
    uint32_t (*tick)(void *card, uint64_t now_ns);
    /** Next time tick() needs to run, or UINT64_MAX. (optional) */
    uint64_t (*next_deadline)(void *card);

    /**
     * The link's carrier (the interface is running): once at start, then on every change the platform's link check
     * sees. A card with a PHY status pin shows it to its driver (optional; NULL = the card has none).
     */
    void (*link)(void *card, int up);

    /** The interrupt line's level right now (1 = asserted). */
    int (*irq_level)(void *card);

    /**
     * Whether the card keeps a translated pointer into host memory [host, host + len) across calls, so the region
     * may not be removed while running (optional; NULL = assume it does: removal only while stopped).
     */
    int (*holds_region)(void *card, const uint8_t *host, uint64_t len);
} shim_card_ops_t;

extern const shim_card_ops_t shim_dec21140_card;
extern const shim_card_ops_t shim_sba200_eth_card;

#endif /* NICBRIDGE_SHIM_INTERNAL_H */
