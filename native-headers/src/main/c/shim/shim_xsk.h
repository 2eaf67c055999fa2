/*
 * shim_xsk.h - the AF_XDP transport of the native shim (xsk.c), used by nicshim.c when options.backend is
 * NICSHIM_BACKEND_AF_XDP. Not part of the public ABI; the card models never see it (they keep calling
 * shim_tx_reserve/commit and get frames through receive(), whichever transport carries them).
 *
 *   UMEM (the caller's memory, nicshim_set_umem)
 *   +------------------------------+-------------------------------+
 *   | rx chunks 0 .. rx_frames-1   | tx chunks rx_frames .. +tx-1  |     chunk = options.frame_size bytes
 *   +------------------------------+-------------------------------+
 *     FILL --kernel--> RX --shim/card--> FILL         free stack --card--> TX --kernel--> COMPLETION --> free stack
 *
 * Every receive chunk is always on exactly one of FILL, RX or in the card's hands (between consume and refill, within
 * one receive() call), and FILL holds rx_frames entries, so refilling never finds FILL full. Every transmit chunk is
 * on the free stack, reserved by the card, on TX, or in the kernel until COMPLETION gives it back.
 */
#ifndef NICBRIDGE_SHIM_XSK_H
#define NICBRIDGE_SHIM_XSK_H

#include <stdint.h>

#include "nicshim.h"

/** One mapped ring with the user side's cached view of the other side's index (libxdp's cached_prod/cons idea). */
typedef struct shim_xsk_ring {
    uint32_t *producer;
    uint32_t *consumer;
    uint32_t *flags;
    uint8_t *desc;
    uint32_t size;
    uint32_t mask;
    uint32_t entry_size;
    uint32_t cached; /* producer rings: our producer index; consumer rings: our consumer index */
    void *map;
    size_t map_len;
} shim_xsk_ring_t;

typedef struct shim_xsk {
    int fd;      /* the AF_XDP socket, -1 when closed */
    int map_fd;  /* XSKMAP */
    int prog_fd; /* the program */
    int link_fd; /* the BPF link that keeps it attached: closing it detaches */
    uint32_t prog_id;
    uint32_t attach_mode; /* NICSHIM_XDP_ATTACHED_* */
    uint32_t bind_mode;   /* NICSHIM_XDP_BOUND_* */
    uint32_t info_flags;  /* NICSHIM_XDP_INFO_* */
    uint32_t queue;
    uint8_t *umem;
    uint64_t umem_len;
    uint32_t chunk;
    uint32_t rx_frames;
    uint32_t tx_frames;
    shim_xsk_ring_t fill, rx, tx, comp;
    uint64_t *tx_free; /* stack of free transmit chunk addresses (UMEM offsets) */
    uint32_t tx_free_count;
    uint64_t tx_reserved_addr; /* the chunk the card is filling (valid while the platform's tx_reserved) */
    uint64_t kstats_seen[6];   /* XDP_STATISTICS already counted (the kernel's counters never reset) */
    int direct;                /* NICSHIM_CARD_XSK_DIRECT: the caller is the user side of every ring; none primed */
} shim_xsk_t;

/** Empty state (fds -1). */
void shim_xsk_init(shim_xsk_t *x);

/**
 * Opens the socket on (ifindex, queue) with `umem` registered, maps and primes the rings (every receive chunk on
 * FILL; with `direct` none: the caller owns the rings), loads and attaches the program and puts the socket in its
 * map. Returns NICSHIM_OK or an error; on error everything opened is closed again.
 */
int32_t shim_xsk_open(shim_xsk_t *x, uint32_t ifindex, const nicshim_options_t *opt, uint8_t *umem,
                      uint64_t umem_len, int direct);

/** Detaches (closes the link), closes the socket, unmaps the rings. Idempotent. */
void shim_xsk_close(shim_xsk_t *x);

/** Moves completed transmit chunks back to the free stack; returns how many. */
uint32_t shim_xsk_reap(shim_xsk_t *x);

/** A free transmit chunk for one frame (its host address), or NULL when none is free or TX is full. */
uint8_t *shim_xsk_tx_reserve(shim_xsk_t *x);
/** Puts the reserved chunk on TX with `len` bytes (released to the kernel at once; sent at the next kick). */
void shim_xsk_tx_commit(shim_xsk_t *x, uint32_t len);
/** Gives the reserved chunk back. */
void shim_xsk_tx_abort(shim_xsk_t *x);
/** Descriptors on TX the kernel has not consumed yet. */
uint32_t shim_xsk_tx_pending(const shim_xsk_t *x);

/** Frames waiting on RX (acquire load of the producer). */
uint32_t shim_xsk_rx_ready(const shim_xsk_t *x);
/** The next received frame without consuming it: host address, *len set. Only when shim_xsk_rx_ready() > 0. */
const uint8_t *shim_xsk_rx_peek(const shim_xsk_t *x, uint32_t *len);
/** Consumes the peeked frame and puts its chunk back on FILL. */
void shim_xsk_rx_release(shim_xsk_t *x);

/**
 * XDP_STATISTICS since the last call, as deltas: out[0] rx_dropped + rx_ring_full (frames the kernel dropped
 * before the card saw them), out[1] tx_invalid_descs. Returns 0, or -1 when the read failed.
 */
int shim_xsk_kernel_drops(shim_xsk_t *x, uint64_t out[2]);

/** Fills the AF_XDP part of nicshim_xdp_info_t. */
void shim_xsk_info(shim_xsk_t *x, nicshim_xdp_info_t *out);

#endif /* NICBRIDGE_SHIM_XSK_H */
