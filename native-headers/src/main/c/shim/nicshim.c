/*
 * nicshim.c - the platform of the native driver shim: everything in nicshim.h that is not a card model.
 *
 *   Java driver (pinned segments)                       nicshim.c                              card model
 *   -----------------------------                       ---------                              ----------
 *   register window  --nicshim_attach_window--------->  windows[range] ------------attach-->  reset values
 *   DMA segments     --nicshim_add_dma_region-------->  region table  <----shim_dma--------   descriptors, buffers
 *   side-effect regs --nicshim_reg_read/reg_write---->  lock + checks ------------reg_*--->
 *   doorbells        --nicshim_kick (no lock)-------->  kicks word (+ eventfd wake-up)
 *   card thread      --nicshim_poll------------------>  lock; work(kicks) --------work---->  TX descriptors
 *                                                        RX ring frames -----------receive->  RX descriptors
 *                                                        timers -------------------tick---->
 *                                                        link state, kernel drops
 *                                                        unlock; epoll_pwait2; lock; again
 *   interface <== AF_PACKET TX ring (PACKET_MMAP, TPACKET_V2) <== shim_tx_reserve/commit ===  frames
 *   interface ==> AF_PACKET RX ring (PACKET_MMAP, TPACKET_V2) =========================>  receive()
 *
 * Threads and the lock. One pthread mutex serialises every call into the card model, so card code is
 * single-threaded. nicshim_poll() does the pending work under the lock and, when nothing happened and the caller
 * allows a wait, releases the lock for the wait (epoll, see shim_wait) so that the driver's register accesses (reg_read/reg_write on
 * another thread) are never blocked by a waiting poller. nicshim_kick() never takes the lock: it ORs the doorbell
 * bits into `kicks` and, if a poller is (about to be) asleep, writes the eventfd. The handshake is Dekker's with
 * sequentially consistent atomics: the poller increments `sleeping` and then re-reads `kicks` before it sleeps; the
 * kicker ORs `kicks` and then reads `sleeping`. Whatever the interleaving, either the poller sees the kick and
 * does not sleep, or the kicker sees the sleeper and wakes it. A poll returns when the card reports events
 * (a new interrupt comes with one; a line that merely stays asserted does not end the wait), after a round that handled a kick
 * (even one that produced no event: the doorbell ends the wait, as nicshim.h promises), at its timeout, or with
 * NICSHIM_ERR_STATE when another thread stopped the shim meanwhile (stop wakes it). A register write wakes a
 * sleeping poller only to re-evaluate (it may have changed the card's timer or readiness) and it sleeps on.
 *
 * The sockets. nicshim_open() opens one AF_PACKET control socket of protocol 0 (it receives nothing): it proves
 * CAP_NET_RAW early (NICSHIM_ERR_PERMISSION), serves the interface ioctls (flags, address, MTU) and holds the
 * PACKET_MR_PROMISC / PACKET_MR_ALLMULTI memberships, which the kernel drops when the socket closes.
 * nicshim_start() opens the two rings, nicshim_stop() closes them:
 *  - RX: ETH_P_ALL bound to the interface, TPACKET_V2 ring, PACKET_IGNORE_OUTGOING (and PACKET_OUTGOING frames
 *    are skipped in software as well, so our own transmissions never come back). TPACKET_V2 reports an 802.1Q tag
 *    that the kernel stripped in tp_vlan_tci; the shim re-inserts it so the card sees the frame as it was on the
 *    wire. A frame longer than the ring frame (tp_len > tp_snaplen) is counted in rx_drop_truncated and never
 *    reaches the card. When the card says it cannot take a frame (can_receive), frames stay in the kernel ring
 *    (which then drops and counts, PACKET_STATISTICS -> rx_drop_kernel) and the wait leaves the RX socket out.
 *  - TX (NICSHIM_OPT_TX_SEND): protocol 0 bound to the interface, no ring: shim_tx_reserve hands out a slot of a
 *    batch of linear buffers, shim_tx_commit queues the frame, and the flush after the card call sends the round's
 *    frames with one send() (one frame) or one sendmmsg() (more): one copy into a linear skb each, where a ring's
 *    zero-copy pages are copied again by a veth whose peer keeps the frame, and one system call per transmit poll
 *    demand however many descriptors it takes. Frames the socket has no room for stay queued (a full batch is
 *    back-pressure, the wait includes POLLOUT) and are retried; ENOBUFS (dropped by a full device queue) is counted.
 *  - TX (default): protocol 0 bound to the interface (receives nothing), TPACKET_V2 ring, PACKET_LOSS (a malformed frame is
 *    skipped by the kernel instead of jamming the ring at its head), PACKET_QDISC_BYPASS on request. The card
 *    fills one slot at a time (shim_tx_reserve/commit); after each card call that committed frames the platform
 *    flushes with one sendto(MSG_DONTWAIT). A full ring is back-pressure: reserve returns NULL, the card keeps its
 *    descriptor, and the next wait includes POLLOUT on the TX socket.
 *
 * Who counts what. The card model counts what it decides (tx/rx frames and bytes, missed, filtered, too long,
 * bad frames/descriptors, bus errors, card errors) with shim_count(). The platform counts kicks, polls,
 * interrupts (rising edges of irq_level, sampled after every card call), link_changes, rx_drop_kernel,
 * rx_drop_truncated, tx_drop_kernel and tx_drop_too_long for frames the kernel would refuse. rx_drop_kernel comes
 * from PACKET_STATISTICS, read at most once per SHIM_KSTATS_NS while frames flow, and before the card thread sleeps
 * whenever drops since the last read are possible, so an idle card's counters are exact (a reader never waits for
 * traffic to see a drop; one exception: a card that holds frames in the ring for want of room sleeps with RX
 * unregistered, and drops the kernel makes meanwhile are counted at its next wake-up, at most one poll timeout later).
 * The kernel drops only when every RX slot holds a frame the card has not taken; so if the
 * card is about to sleep on an empty ring and has taken fewer frames than the ring has slots since the last read, the
 * ring cannot have been full since then and there is nothing to read. That keeps the syscall off the ping-pong path
 * (one frame per wake-up) and on the flood path, where it is one per SHIM_KSTATS_NS or per ring of frames.
 *
 * DMA regions. A table indexed by region id (the id is the slot) plus an array of ids sorted by bus address;
 * shim_dma() tries the region of the previous hit first (descriptor rings and buffers cluster), then binary
 * search. Regions never overlap in bus or host space, so "the last region starting at or below the address" is
 * the only candidate. Adding is allowed while running (under the lock, so the card sees the new region whole);
 * removing is not (the card may hold addresses into it).
 *
 * AF_XDP (options.backend = NICSHIM_BACKEND_AF_XDP, ABI 1.2). The same platform over an AF_XDP socket (xsk.c): the
 * card's frames live in the caller's UMEM. RX: the receive loop takes frames off the XSK RX ring and hands the card a
 * pointer into the UMEM (no copy; the card's own DMA copies into its driver's buffers), then puts the chunk back on
 * FILL. TX: shim_tx_reserve hands the card a free transmit chunk of the UMEM to assemble the frame in, commit puts
 * it on the TX ring, and the flush kicks the kernel (sendto MSG_DONTWAIT: copy mode transmits in the call, at most
 * 32 descriptors per call, so the flush repeats while it says EAGAIN) and reaps COMPLETION. No free chunk is
 * back-pressure like a full PACKET_MMAP ring; it is retried after SHIM_TX_RETRY_SOON_NS, since completions on a
 * veth arrive when the peer frees the frame and raise no POLLOUT. The socket is rx_fd; tx_fd is a dup() of it, so
 * that the epoll set can hold it a second time with its own events. rx_drop_kernel comes from XDP_STATISTICS
 * (rx_dropped + rx_ring_full), with the same "may be stale" rule as PACKET_STATISTICS: FILL and RX share the
 * rx_ring_frames receive chunks, so the kernel drops only when all of them sit unread on RX.
 *
 * Fault injection (nicshim_set_faults, ABI 1.4). The frames cross between the card and the transport at two points,
 * whichever backend carries them: shim_deliver() hands every received frame to the card, and shim_tx_commit() (which
 * shim_tx_frame uses too while faults are on) hands every transmitted frame to the ring, socket or UMEM. There each
 * frame draws its fate (fault.c): dropped (not delivered / the reservation aborted), duplicated (delivered twice /
 * a second reservation with a copy), held back (a copy in fault_rx_hold / fault_tx_hold, delivered or committed
 * right after the next frame of its direction, or when NICSHIM_FAULT_HOLD_NS passes first: shim_work checks the
 * deadline and shim_wait wakes for it) or corrupted (one byte inverted, in a copy on RX since the ring slot is
 * the kernel's, in place on TX since the card's reservation is ours until commit). The buffers are allocated by
 * nicshim_set_faults, so the data path still allocates nothing.
 *
 * Memory. Everything is allocated in nicshim_open() (state, scratch frame for VLAN re-insertion) and
 * nicshim_start() (the rings, by the kernel); the data path (poll, kick, reg access, reserve/commit) allocates
 * nothing.
 */
#include "shim_fault.h"
#include "shim_internal.h"
#include "shim_xsk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

/* ---------------------------------------------------------------------------------------------
 * The card table. The card models live in their own files; a weak reference lets this file build, link and be
 * tested without them (a missing card's address is NULL and its kind is reported as unknown). Once a card file
 * is linked in, its strong definition wins and the weak attribute changes nothing.
 * ------------------------------------------------------------------------------------------- */

extern const shim_card_ops_t shim_dec21140_card __attribute__((weak));
extern const shim_card_ops_t shim_sba200_eth_card __attribute__((weak));

/*
 * NICSHIM_CARD_XSK_DIRECT (ABI 1.3): no card model at all. The caller is the user side of the four AF_XDP rings; the
 * platform opens the socket and afterwards only kicks the kernel (nicshim_kick) and waits for RX (nicshim_poll), both
 * of which branch off before any card entry point. So this entry has no work, receive or register functions; what
 * the platform calls on every kind (create, destroy, start, stop, irq_level) has nothing to do.
 */
static void *shim_direct_create(shim_t *shim, const nicshim_options_t *options) {
    (void)options;
    return shim; /* no state of its own; non-NULL means "created" */
}
static void shim_direct_nothing(void *card) {
    (void)card;
}
static int shim_direct_irq_level(void *card) {
    (void)card;
    return 0; /* no interrupt line: the caller waits in nicshim_poll */
}
static const shim_card_ops_t shim_xsk_direct = {
    .kind = NICSHIM_CARD_XSK_DIRECT,
    .name = "xsk-direct",
    .range_count = 0,
    .max_frame = ETH_FRAME_LEN,
    .create = shim_direct_create,
    .destroy = shim_direct_nothing,
    .start = shim_direct_nothing,
    .stop = shim_direct_nothing,
    .irq_level = shim_direct_irq_level,
};

static const shim_card_ops_t *shim_find_card(uint32_t kind) {
    const shim_card_ops_t *const cards[] = {&shim_dec21140_card, &shim_sba200_eth_card, &shim_xsk_direct};
    for (size_t i = 0; i < sizeof(cards) / sizeof(cards[0]); i++) {
        if (cards[i] != NULL && cards[i]->kind == kind) {
            return cards[i];
        }
    }
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Constants
 * ------------------------------------------------------------------------------------------- */

/* Where the frame starts inside a TPACKET_V2 slot. RX: the kernel puts the network header at
 * TPACKET_ALIGN(TPACKET2_HDRLEN + 16) and the 14-byte MAC header right before it. TX (no PACKET_TX_HAS_OFF):
 * the frame starts at TPACKET2_HDRLEN - sizeof(struct sockaddr_ll). */
#define SHIM_RX_MAC_OFFSET (TPACKET_ALIGN(TPACKET2_HDRLEN + 16) - ETH_HLEN)
#define SHIM_TX_DATA_OFFSET (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))
#define SHIM_VLAN_HLEN 4

#define SHIM_MAX_RING_FRAMES (1u << 16)
#define SHIM_MAX_FRAME_SIZE (1u << 17)

#define SHIM_MS 1000000ull
/* Interface flags are re-read at most this often (one ioctl; carrier changes are rare). */
#define SHIM_LINK_CHECK_NS (10 * SHIM_MS)
/* PACKET_STATISTICS (which resets the kernel's counters) at most this often. */
#define SHIM_KSTATS_NS (1 * SHIM_MS)
/* A flush the kernel refused for lack of room (EAGAIN/ENOBUFS) is retried this soon; other errors (interface
 * down) later. The frames stay queued in the ring either way: nothing is lost. */
#define SHIM_TX_RETRY_SOON_NS 100000ull
/* Send mode: frames committed in one card round wait here for the round's flush, which hands them to the kernel with
 * one sendmmsg() - the 21140's transmit poll demand takes every descriptor the driver owns, so a driver that rings
 * once per burst pays one system call per burst, not one per frame. More commits than this in one round are
 * back-pressure until the flush (the card keeps its descriptor, the wait includes POLLOUT). */
#define SHIM_TX_BATCH 64u
#define SHIM_TX_RETRY_LATER_NS (10 * SHIM_MS)

/* ---------------------------------------------------------------------------------------------
 * State
 * ------------------------------------------------------------------------------------------- */

/** One PACKET_MMAP ring: `frames` slots of `frame_size` bytes, `per_block` to a block of `block_size` bytes. */
typedef struct shim_ring {
    uint8_t *map;
    size_t map_len;
    uint32_t frames;
    uint32_t frame_size;
    uint32_t per_block;
    uint32_t block_size;
    uint32_t head; /* next slot the shim looks at */
} shim_ring_t;

typedef struct shim_region {
    uint64_t bus;
    uint8_t *host;
    uint64_t len;
    int used;
} shim_region_t;

struct nicshim {
    pthread_mutex_t lock;
    const shim_card_ops_t *ops;
    void *card;
    nicshim_options_t opt; /* defaults resolved */

    char ifname[IFNAMSIZ];
    uint32_t ifindex;
    uint32_t mtu;
    uint8_t mac[6];

    int ctl_fd;   /* whole life: ioctls, memberships */
    int event_fd; /* whole life: kick wake-ups */
    int ep_fd;    /* whole life: the epoll set a poller sleeps in (event_fd, timer_fd; rx_fd, tx_fd while running) */
    int timer_fd; /* whole life: ends a wait at its deadline (CLOCK_MONOTONIC, absolute) */
    uint64_t timer_at; /* when timer_fd fires (shim_now_ns time), 0 = never armed */
    int ep_waiter;     /* a poller sleeps in epoll_wait on ep_fd (at most one: it owns timer_fd) */
    int rx_fd;    /* between start and stop, else -1 */
    int tx_fd;
    uint32_t ep_rx; /* the events rx_fd is registered for in ep_fd right now */
    uint32_t ep_tx; /* EPOLLOUT while tx_fd is in ep_fd (only while the card waits for room), else 0: not in it */

    uint8_t *window[2];

    shim_region_t regions[NICSHIM_MAX_DMA_REGIONS]; /* by id */
    uint8_t order[NICSHIM_MAX_DMA_REGIONS];         /* ids sorted by bus address */
    uint32_t region_count;
    int32_t last_hit; /* id of the region of the last successful translation, -1 = none */

    shim_ring_t rx;
    shim_ring_t tx;       /* ring mode: the TX ring (send mode: only its geometry, for the slot capacity) */
    uint8_t *scratch;     /* one frame + a VLAN tag: where a stripped 802.1Q tag is put back */
    int tx_send;          /* NICSHIM_OPT_TX_SEND: frames leave by send()/sendmmsg() from tx_batch, no TX ring */
    uint8_t *tx_batch;    /* send mode: SHIM_TX_BATCH slots of tx.frame_size bytes, filled in commit order */
    uint32_t tx_batch_len[SHIM_TX_BATCH];
    uint32_t tx_head;     /* send mode: slots [tx_head, tx_queued) hold committed frames the kernel has not taken */
    uint32_t tx_queued;   /* send mode: the next free slot (SHIM_TX_BATCH = full: back-pressure) */
    struct mmsghdr tx_msgs[SHIM_TX_BATCH]; /* send mode: sendmmsg's vector, rebuilt per flush (no allocation) */
    struct iovec tx_iov[SHIM_TX_BATCH];

    int running; /* atomic: read by get_info without the lock */
    int tx_reserved;
    int tx_committed; /* frames committed since the last flush */
    int tx_blocked;   /* the card found the TX ring full in this round: wait for POLLOUT */
    int tx_retry;     /* the last flush failed: frames still queued */
    uint64_t tx_retry_at;
    int rx_held; /* the card refused a frame in this round: do not wait on the RX socket */
    int rx_more; /* the receive loop stopped on its budget with frames left: do not sleep */
    uint32_t rx_mode;
    int irq_prev;
    int link_up;
    uint64_t next_link_check;
    uint64_t next_kstats;
    uint32_t kstats_taken; /* frames taken from the RX ring since PACKET_STATISTICS was last read (saturating) */
    int kstats_held;       /* frames were left in the RX ring for want of room in the card since that read */

    uint32_t kicks; /* atomic: NICSHIM_KICK_* rung since the last work() */
    int sleeping;   /* atomic: pollers inside (or about to enter) the wait */
    int kicked;     /* the last work() round handled a kick: poll returns even without events */

    uint64_t stats[SHIM_STAT_COUNT]; /* atomic (relaxed) */

    int xdp;             /* options.backend == NICSHIM_BACKEND_AF_XDP */
    uint8_t *umem;       /* nicshim_set_umem: the caller's memory */
    uint64_t umem_len;
    shim_xsk_t xsk;      /* between start and stop */
    int direct;          /* NICSHIM_CARD_XSK_DIRECT: the caller owns the rings; kick and poll only wake and wait */

    shim_fault_dir_t fault_rx; /* nicshim_set_faults: the two directions' injectors (off when zero) */
    shim_fault_dir_t fault_tx;
    uint8_t *fault_buf;        /* set_faults: three frames - a corrupted RX copy, the held RX frame, the held TX frame */
    uint32_t fault_frame;      /* the size of each of the three */
    uint32_t fault_rx_held;    /* length of the RX frame held back for reordering (0 = none) */
    uint32_t fault_tx_held;
    uint64_t fault_rx_until;   /* when a held frame goes on without a follower */
    uint64_t fault_tx_until;
};

/* ---------------------------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------------------------- */

uint64_t shim_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Housekeeping time (link checks, kernel counters): CLOCK_MONOTONIC_COARSE reads the vDSO's last tick, no TSC read,
 * so a poll round that has no timer of the card's pending reads no precise clock at all. Its jiffy resolution is
 * plenty for things done every few milliseconds; it is never compared with shim_now_ns() values. */
static uint64_t shim_coarse_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Every caller holds the state lock (card code, poll, register access), so each counter has one writer at a time and
 * a plain load and store suffice: relaxed atomics keep nicshim_get_stats' lock-free reads tear-free, and there is no
 * locked read-modify-write (tens of ns each, several per frame). Only kicks, counted without the lock, add atomically
 * (nicshim_kick). */
void shim_count(shim_t *shim, enum shim_stat stat, uint64_t n) {
    if ((unsigned)stat < SHIM_STAT_COUNT && stat != SHIM_STAT_KICKS) {
        uint64_t v = __atomic_load_n(&shim->stats[stat], __ATOMIC_RELAXED);
        __atomic_store_n(&shim->stats[stat], v + n, __ATOMIC_RELAXED);
    } else if (stat == SHIM_STAT_KICKS) {
        __atomic_fetch_add(&shim->stats[stat], n, __ATOMIC_RELAXED);
    }
}

const uint8_t *shim_mac(const shim_t *shim) {
    return shim->mac;
}

uint32_t shim_mtu(const shim_t *shim) {
    return shim->mtu;
}

static int shim_is_power_of_two(uint32_t v) {
    return v != 0 && (v & (v - 1)) == 0;
}

static int32_t shim_errno_code(int err) {
    switch (err) {
    case EPERM:
    case EACCES:
        return NICSHIM_ERR_PERMISSION;
    case ENOMEM:
    case ENOBUFS:
        return NICSHIM_ERR_NOMEM;
    case ENODEV:
    case ENXIO:
        return NICSHIM_ERR_NO_DEVICE;
    default:
        return NICSHIM_ERR_SYSTEM;
    }
}

static void shim_close_fd(int *fd) {
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/** Interface flags (IFF_*) by ioctl on the control socket; -1 when the interface is gone. */
static int shim_iface_flags(const shim_t *shim) {
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    memcpy(ifr.ifr_name, shim->ifname, sizeof(ifr.ifr_name));
    if (ioctl(shim->ctl_fd, SIOCGIFFLAGS, &ifr) < 0) {
        return -1;
    }
    return (uint16_t)ifr.ifr_flags;
}

/** The interrupt line after a card call: counts rising edges; returns NICSHIM_EV_IRQ while asserted. */
static uint32_t shim_irq_sample(shim_t *shim) {
    int level = shim->ops->irq_level(shim->card) != 0;
    if (level && !shim->irq_prev) {
        shim_count(shim, SHIM_STAT_INTERRUPTS, 1);
    }
    shim->irq_prev = level;
    return level ? NICSHIM_EV_IRQ : 0;
}

/** Ends a poller's wait early (eventfd write; a full counter still means "readable", so errors are harmless). */
static void shim_wake(shim_t *shim) {
    uint64_t one = 1;
    ssize_t n = write(shim->event_fd, &one, sizeof(one));
    (void)n;
}

/* ---------------------------------------------------------------------------------------------
 * Options and geometry
 * ------------------------------------------------------------------------------------------- */

static int32_t shim_resolve_options(const nicshim_options_t *in, nicshim_options_t *out) {
    memset(out, 0, sizeof(*out));
    if (in != NULL) {
        if (in->size == NICSHIM_OPTIONS_SIZE_V1_1) {
            memcpy(out, in, NICSHIM_OPTIONS_SIZE_V1_1); /* ABI 1.1 caller: the backend fields stay 0 (AF_PACKET) */
        } else if (in->size == sizeof(nicshim_options_t)) {
            *out = *in;
        } else {
            return NICSHIM_ERR_ABI;
        }
    }
    out->size = sizeof(nicshim_options_t);
    if ((out->flags & ~NICSHIM_OPT_ALL) != 0 || out->reserved0 != 0) {
        return NICSHIM_ERR_INVALID;
    }
    for (size_t i = 0; i < sizeof(out->reserved1); i++) {
        if (out->reserved1[i] != 0) {
            return NICSHIM_ERR_INVALID;
        }
    }
    if (out->rx_ring_frames == 0) {
        out->rx_ring_frames = NICSHIM_DEFAULT_RING_FRAMES;
    }
    if (out->tx_ring_frames == 0) {
        out->tx_ring_frames = NICSHIM_DEFAULT_RING_FRAMES;
    }
    if (out->frame_size == 0) {
        out->frame_size = NICSHIM_DEFAULT_FRAME_SIZE;
    }
    if (out->poll_budget == 0) {
        out->poll_budget = NICSHIM_DEFAULT_POLL_BUDGET;
    }
    if (out->unet_ethertype == 0) {
        out->unet_ethertype = NICSHIM_UNET_ETHERTYPE_DEFAULT;
    }
    if (!shim_is_power_of_two(out->rx_ring_frames) || out->rx_ring_frames > SHIM_MAX_RING_FRAMES ||
        !shim_is_power_of_two(out->tx_ring_frames) || out->tx_ring_frames > SHIM_MAX_RING_FRAMES) {
        return NICSHIM_ERR_INVALID;
    }
    if (out->frame_size % TPACKET_ALIGNMENT != 0 || out->frame_size > SHIM_MAX_FRAME_SIZE) {
        return NICSHIM_ERR_INVALID;
    }
    /* Values below 0x0600 are 802.3 lengths, not EtherTypes: such a tag would be misread by every receiver. */
    if (out->unet_ethertype < 0x0600) {
        return NICSHIM_ERR_INVALID;
    }
    if (out->backend > NICSHIM_BACKEND_AF_XDP || (out->xdp_flags & ~NICSHIM_XDP_FLAGS_ALL) != 0 ||
        (out->xdp_flags & NICSHIM_XDP_BIND_MASK) == NICSHIM_XDP_BIND_MASK ||
        (out->xdp_flags & NICSHIM_XDP_ATTACH_MASK) == NICSHIM_XDP_ATTACH_MASK) {
        return NICSHIM_ERR_INVALID;
    }
    if (out->backend == NICSHIM_BACKEND_AF_PACKET) {
        /* The AF_XDP fields mean nothing here: a caller that sets them asked for something it will not get. */
        if (out->xdp_queue != 0 || out->xdp_flags != 0 || out->busy_poll_us != 0) {
            return NICSHIM_ERR_INVALID;
        }
    } else if ((out->frame_size != 2048 && out->frame_size != 4096) || (out->flags & NICSHIM_OPT_TX_SEND) != 0 ||
               (out->flags & NICSHIM_OPT_QDISC_BYPASS) != 0) {
        /* UMEM chunks in aligned mode: a power of two in [2048, page] (facts §1.2); AF_XDP copy mode always
         * bypasses the qdisc and has no send() path. */
        return NICSHIM_ERR_INVALID;
    }
    return NICSHIM_OK;
}

/*
 * The kernel wants tp_block_size a multiple of the page size and tp_frame_nr == (block / frame) * block_nr
 * exactly. Ring sizes are powers of two, so the frames per block must be too: the block is the requested frame
 * size rounded up to pages, the frames per block the largest power of two that fits (at most the ring size), and
 * the slot size block / frames-per-block - never smaller than what was asked for, so a frame_size that does not
 * divide a page (e.g. 1360) still works; the slot just has a little more room.
 */
static void shim_ring_geometry(shim_ring_t *ring, uint32_t frames, uint32_t frame_size) {
    uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
    uint32_t block = (frame_size + page - 1) / page * page;
    uint32_t per_block = 1;
    while (per_block * 2 <= block / frame_size && per_block * 2 <= frames) {
        per_block *= 2;
    }
    memset(ring, 0, sizeof(*ring));
    ring->frames = frames;
    ring->block_size = block;
    ring->per_block = per_block;
    ring->frame_size = block / per_block;
    ring->map_len = (size_t)block * (frames / per_block);
}

static struct tpacket2_hdr *shim_ring_slot(const shim_ring_t *ring, uint32_t index) {
    uint32_t block = index / ring->per_block;
    uint32_t slot = index % ring->per_block;
    return (struct tpacket2_hdr *)(ring->map + (size_t)block * ring->block_size + (size_t)slot * ring->frame_size);
}

/* ---------------------------------------------------------------------------------------------
 * Opening and closing the rings (nicshim_start / nicshim_stop)
 * ------------------------------------------------------------------------------------------- */

/**
 * A TPACKET_V2 socket of protocol 0 (nothing is received before bind) with one mmap'ed ring. For the TX ring,
 * PACKET_LOSS is set first (the kernel refuses it once a ring exists): without it a frame the kernel rejects is
 * marked TP_STATUS_WRONG_FORMAT and stays at the kernel's ring head, where it stops every later frame for good.
 */
static int32_t shim_ring_socket(shim_t *shim, shim_ring_t *ring, int ring_option, int *out_fd) {
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return shim_errno_code(errno);
    }
    int one = 1;
    int version = TPACKET_V2;
    int tx = ring_option == PACKET_TX_RING;
    struct tpacket_req req = {
        .tp_block_size = ring->block_size,
        .tp_block_nr = ring->frames / ring->per_block,
        .tp_frame_size = ring->frame_size,
        .tp_frame_nr = ring->frames,
    };
    if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &version, sizeof(version)) < 0 ||
        (tx && setsockopt(fd, SOL_PACKET, PACKET_LOSS, &one, sizeof(one)) < 0) ||
        (tx && (shim->opt.flags & NICSHIM_OPT_QDISC_BYPASS) != 0 &&
         setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) < 0) ||
        setsockopt(fd, SOL_PACKET, ring_option, &req, sizeof(req)) < 0) {
        int32_t rc = shim_errno_code(errno);
        close(fd);
        return rc;
    }
    void *map = mmap(NULL, ring->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        int32_t rc = shim_errno_code(errno);
        close(fd);
        return rc;
    }
    ring->map = map;
    ring->head = 0;
    *out_fd = fd;
    return NICSHIM_OK;
}

static void shim_ring_close(shim_ring_t *ring, int *fd) {
    if (ring->map != NULL) {
        munmap(ring->map, ring->map_len);
        ring->map = NULL;
    }
    shim_close_fd(fd);
}

static int32_t shim_bind(int fd, uint32_t ifindex, uint16_t protocol) {
    struct sockaddr_ll sll;
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(protocol);
    sll.sll_ifindex = (int)ifindex;
    if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
        return shim_errno_code(errno);
    }
    return NICSHIM_OK;
}

static int32_t shim_open_rx(shim_t *shim) {
    int32_t rc = shim_ring_socket(shim, &shim->rx, PACKET_RX_RING, &shim->rx_fd);
    if (rc != NICSHIM_OK) {
        return rc;
    }
    /* Our own transmissions would otherwise come back as PACKET_OUTGOING copies. Kernels before 4.20 lack the
     * option; the receive loop skips PACKET_OUTGOING anyway, so a failure only costs some work. */
    int one = 1;
    (void)setsockopt(shim->rx_fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
    /* Bound last: the ring exists before the first frame can arrive. */
    rc = shim_bind(shim->rx_fd, shim->ifindex, ETH_P_ALL);
    if (rc != NICSHIM_OK) {
        shim_ring_close(&shim->rx, &shim->rx_fd);
    }
    return rc;
}

/** Send mode: a plain packet socket (no ring), PACKET_QDISC_BYPASS on request. */
static int32_t shim_send_socket(shim_t *shim, int *out_fd) {
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return shim_errno_code(errno);
    }
    int one = 1;
    if ((shim->opt.flags & NICSHIM_OPT_QDISC_BYPASS) != 0 &&
        setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) < 0) {
        int32_t rc = shim_errno_code(errno);
        close(fd);
        return rc;
    }
    *out_fd = fd;
    return NICSHIM_OK;
}

static int32_t shim_open_tx(shim_t *shim) {
    int32_t rc = shim->tx_send ? shim_send_socket(shim, &shim->tx_fd)
                               : shim_ring_socket(shim, &shim->tx, PACKET_TX_RING, &shim->tx_fd);
    if (rc != NICSHIM_OK) {
        return rc;
    }
    /* Protocol 0: bound to the interface for sending, but no receive hook is registered. */
    rc = shim_bind(shim->tx_fd, shim->ifindex, 0);
    if (rc != NICSHIM_OK) {
        shim_ring_close(&shim->tx, &shim->tx_fd);
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * TX ring (the card side: shim_internal.h)
 * ------------------------------------------------------------------------------------------- */

static uint32_t shim_tx_capacity(const shim_t *shim) {
    return shim->xdp ? shim->opt.frame_size : shim->tx.frame_size - (uint32_t)SHIM_TX_DATA_OFFSET;
}

static uint8_t *shim_tx_slot(const shim_t *shim, uint32_t i) {
    return shim->tx_batch + (size_t)i * shim->tx.frame_size;
}

/**
 * Send mode: hands the queued frames to the kernel in commit order - one send() for a lone frame (the ping-pong
 * path), one sendmmsg() for more. ENOBUFS (the kernel took the frame and a full device queue dropped it) counts that
 * frame in tx_drop_kernel and goes on with the next. On EAGAIN (no room in the socket: the next wait includes
 * POLLOUT) or a down interface (retried later) the rest stay queued, as frames in a ring would, and the card sees
 * back-pressure once the batch is full.
 */
static void shim_tx_send_queued(shim_t *shim) {
    shim->tx_retry = 0;
    int err = 0;
    while (shim->tx_head < shim->tx_queued && shim->tx_fd >= 0) {
        uint32_t first = shim->tx_head;
        uint32_t n = shim->tx_queued - first;
        int sent;
        if (n == 1) {
            sent = send(shim->tx_fd, shim_tx_slot(shim, first), shim->tx_batch_len[first], MSG_DONTWAIT) >= 0 ? 1 : -1;
        } else {
            for (uint32_t i = 0; i < n; i++) {
                shim->tx_iov[i] = (struct iovec){.iov_base = shim_tx_slot(shim, first + i),
                                                 .iov_len = shim->tx_batch_len[first + i]};
                shim->tx_msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &shim->tx_iov[i], .msg_iovlen = 1}};
            }
            sent = sendmmsg(shim->tx_fd, shim->tx_msgs, n, MSG_DONTWAIT);
        }
        if (sent > 0) {
            shim->tx_head += (uint32_t)sent; /* a short count: the next call reports what stopped it */
            continue;
        }
        err = errno;
        if (err != ENOBUFS) {
            break;
        }
        shim_count(shim, SHIM_STAT_TX_DROP_KERNEL, 1);
        shim->tx_head++;
    }
    if (shim->tx_head == shim->tx_queued) {
        shim->tx_head = 0;
        shim->tx_queued = 0;
        return;
    }
    if (err == EAGAIN || err == EWOULDBLOCK) {
        shim->tx_blocked = 1; /* the socket's send buffer is full: the next wait includes POLLOUT */
    } else {
        /* Interface down (ENETDOWN, ENXIO) or interrupted: the frames wait, as frames queued in a ring would. */
        shim->tx_retry = 1;
        shim->tx_retry_at = shim_now_ns() + (err == EINTR ? SHIM_TX_RETRY_SOON_NS : SHIM_TX_RETRY_LATER_NS);
    }
}

/** Whether the kernel takes a frame of `len` bytes starting with `frame`; counts the ones it would refuse. */
static int shim_tx_length_ok(shim_t *shim, const uint8_t *frame, uint32_t len) {
    /* The kernel refuses frames shorter than the Ethernet header and longer than MTU + header (+ an 802.1Q tag);
     * with PACKET_LOSS it would drop them without a trace, so they are counted here instead of sent. */
    if (len < ETH_HLEN || len > shim_tx_capacity(shim)) {
        shim_count(shim, SHIM_STAT_TX_DROP_KERNEL, 1);
        return 0;
    }
    /* Like the kernel (packet_extra_vlan_len_allowed): only an 802.1Q frame may carry its 4-byte tag on top. */
    uint32_t tag = frame[12] == (ETH_P_8021Q >> 8) && frame[13] == (ETH_P_8021Q & 0xFF) ? SHIM_VLAN_HLEN : 0;
    if (len > shim->mtu + ETH_HLEN + tag) {
        shim_count(shim, SHIM_STAT_TX_DROP_TOO_LONG, 1);
        return 0;
    }
    return 1;
}

uint8_t *shim_tx_reserve(shim_t *shim, uint32_t max_len) {
    /* A request larger than a slot can never be met; NULL tells the card "not now" and it must itself check
     * lengths against shim_mtu() (a slot always holds max_frame, checked at open). */
    if (shim->tx_fd < 0 || shim->tx_reserved || max_len > shim_tx_capacity(shim)) {
        return NULL;
    }
    if (shim->xdp) {
        uint8_t *chunk = shim_xsk_tx_reserve(&shim->xsk);
        if (chunk == NULL) {
            /* Every transmit chunk is queued or waiting for its completion: kick and reap again soon. */
            if (!shim->tx_retry) {
                shim->tx_retry = 1;
                shim->tx_retry_at = shim_now_ns() + SHIM_TX_RETRY_SOON_NS;
            }
            return NULL;
        }
        shim->tx_reserved = 1;
        return chunk;
    }
    if (shim->tx_send) {
        if (shim->tx_queued == SHIM_TX_BATCH) {
            shim->tx_blocked = !shim->tx_retry; /* the flush, room in the socket or the retry timer ends the wait */
            return NULL;
        }
        shim->tx_reserved = 1;
        return shim_tx_slot(shim, shim->tx_queued);
    }
    struct tpacket2_hdr *hdr = shim_ring_slot(&shim->tx, shim->tx.head);
    /* Acquire: the kernel's completion (status back to AVAILABLE) happens-before we rewrite the slot. */
    uint32_t status = shim_load_acquire(&hdr->tp_status);
    if ((status & TP_STATUS_WRONG_FORMAT) != 0) {
        /* Only without PACKET_LOSS; counted and reused, never silently. */
        shim_count(shim, SHIM_STAT_TX_DROP_KERNEL, 1);
        status = TP_STATUS_AVAILABLE;
    }
    if ((status & (TP_STATUS_SEND_REQUEST | TP_STATUS_SENDING)) != 0) {
        shim->tx_blocked = 1;
        return NULL;
    }
    shim->tx_reserved = 1;
    return (uint8_t *)hdr + SHIM_TX_DATA_OFFSET;
}

/** Hands the reserved frame to the kernel (ring, socket or UMEM), past the fault injector. */
static void shim_tx_commit_now(shim_t *shim, uint32_t len) {
    if (!shim->tx_reserved) {
        return;
    }
    shim->tx_reserved = 0;
    if (shim->xdp) {
        if (!shim_tx_length_ok(shim, shim->xsk.umem + shim->xsk.tx_reserved_addr, len)) {
            shim_xsk_tx_abort(&shim->xsk);
            return;
        }
        shim_xsk_tx_commit(&shim->xsk, len);
        shim->tx_committed = 1;
        return;
    }
    if (len < ETH_HLEN || len > shim_tx_capacity(shim)) {
        shim_count(shim, SHIM_STAT_TX_DROP_KERNEL, 1);
        return;
    }
    struct tpacket2_hdr *hdr = shim->tx_send ? NULL : shim_ring_slot(&shim->tx, shim->tx.head);
    const uint8_t *frame =
        shim->tx_send ? shim_tx_slot(shim, shim->tx_queued) : (const uint8_t *)hdr + SHIM_TX_DATA_OFFSET;
    if (!shim_tx_length_ok(shim, frame, len)) {
        return;
    }
    if (shim->tx_send) {
        /* Queued for the flush that ends this card round: one sendmmsg() for every frame of the round. */
        shim->tx_batch_len[shim->tx_queued++] = len;
        shim->tx_committed = 1;
        return;
    }
    hdr->tp_len = len;
    /* Release: the frame bytes and tp_len are visible before the kernel sees SEND_REQUEST. */
    shim_store_release(&hdr->tp_status, TP_STATUS_SEND_REQUEST);
    shim->tx.head = (shim->tx.head + 1) & (shim->tx.frames - 1);
    shim->tx_committed = 1;
}

/** The frame the card is filling: the open reservation's bytes. */
static uint8_t *shim_tx_reserved_frame(shim_t *shim) {
    if (shim->xdp) {
        return shim->xsk.umem + shim->xsk.tx_reserved_addr;
    }
    if (shim->tx_send) {
        return shim_tx_slot(shim, shim->tx_queued);
    }
    return (uint8_t *)shim_ring_slot(&shim->tx, shim->tx.head) + SHIM_TX_DATA_OFFSET;
}

/** A frame the fault injector adds (a duplicate, a held frame going on): 1 when it went to the kernel, 0 when there
 * was no room (the caller keeps or forgets it). */
static int shim_tx_inject(shim_t *shim, const uint8_t *frame, uint32_t len) {
    uint8_t *slot = shim_tx_reserve(shim, len);
    if (slot == NULL) {
        return 0;
    }
    memcpy(slot, frame, len);
    shim_tx_commit_now(shim, len);
    return 1;
}

/** The held TX frame goes on (after its follower, or at its deadline); it stays held while there is no room. */
static void shim_tx_release_held(shim_t *shim) {
    uint8_t *held = shim->fault_buf + 2 * (size_t)shim->fault_frame;
    if (shim->fault_tx_held != 0 && shim_tx_inject(shim, held, shim->fault_tx_held)) {
        shim->fault_tx_held = 0;
    }
}

void shim_tx_commit(shim_t *shim, uint32_t len) {
    if (!shim->fault_tx.on || !shim->tx_reserved || len == 0 || len > shim->fault_frame) {
        shim_tx_commit_now(shim, len);
        return;
    }
    uint8_t *frame = shim_tx_reserved_frame(shim);
    uint8_t *copy = shim->fault_buf; /* the duplicate's bytes: the committed slot is the kernel's once committed */
    int duplicate = 0;
    switch (shim_fault_next(&shim->fault_tx)) {
    case SHIM_FAULT_DROP:
        shim_count(shim, SHIM_STAT_FAULT_DROPS, 1);
        shim_tx_abort(shim);
        return;
    case SHIM_FAULT_DUPLICATE:
        memcpy(copy, frame, len);
        duplicate = 1;
        break;
    case SHIM_FAULT_REORDER:
        if (shim->fault_tx_held == 0) {
            memcpy(shim->fault_buf + 2 * (size_t)shim->fault_frame, frame, len);
            shim->fault_tx_held = len;
            shim->fault_tx_until = shim_now_ns() + NICSHIM_FAULT_HOLD_NS;
            shim_count(shim, SHIM_STAT_FAULT_REORDERS, 1);
            shim_tx_abort(shim);
            return;
        }
        break;
    case SHIM_FAULT_CORRUPT:
        frame[shim_fault_corrupt_at(&shim->fault_tx, len)] ^= 0xFF;
        shim_count(shim, SHIM_STAT_FAULT_CORRUPTS, 1);
        break;
    case SHIM_FAULT_NONE:
        break;
    }
    shim_tx_commit_now(shim, len);
    if (duplicate && shim_tx_inject(shim, copy, len)) {
        shim_count(shim, SHIM_STAT_FAULT_DUPLICATES, 1);
    }
    shim_tx_release_held(shim);
}

int shim_tx_frame(shim_t *shim, const uint8_t *frame, uint32_t len) {
    uint8_t *slot = shim_tx_reserve(shim, len);
    if (slot == NULL) {
        return 0;
    }
    memcpy(slot, frame, len);
    shim_tx_commit(shim, len);
    return 1;
}

void shim_tx_abort(shim_t *shim) {
    if (shim->xdp && shim->tx_reserved) {
        shim_xsk_tx_abort(&shim->xsk);
    }
    shim->tx_reserved = 0;
}

/** AF_XDP flush: kick until the kernel has consumed every TX descriptor (or refuses), reaping COMPLETION between
 * kicks (a full COMPLETION ring stalls copy-mode TX: facts §7.3). What is left is retried like a failed flush. */
static void shim_xsk_flush(shim_t *shim) {
    shim->tx_committed = 0;
    shim->tx_retry = 0;
    int err = 0;
    /* Copy mode sends at most 32 descriptors per call and says EAGAIN with the rest queued (facts §2). */
    uint32_t tries = shim->xsk.tx_frames / 32 + 2;
    for (uint32_t i = 0; i < tries && shim_xsk_tx_pending(&shim->xsk) != 0; i++) {
        err = sendto(shim->tx_fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 ? errno : 0;
        shim_xsk_reap(&shim->xsk);
        if (err != 0 && err != EAGAIN && err != EBUSY && err != EINTR) {
            break;
        }
    }
    shim_xsk_reap(&shim->xsk);
    if (shim_xsk_tx_pending(&shim->xsk) != 0 || shim->xsk.tx_free_count == 0) {
        shim->tx_retry = 1;
        shim->tx_retry_at = shim_now_ns() + (err == 0 || err == EAGAIN || err == EBUSY || err == EINTR
                                                 ? SHIM_TX_RETRY_SOON_NS
                                                 : SHIM_TX_RETRY_LATER_NS);
    }
}

/** Hands committed frames to the kernel: one sendto walks every SEND_REQUEST slot from the kernel's head; send mode,
 * one send()/sendmmsg() for every frame queued (frames a failed call left are retried here too). */
static void shim_tx_flush(shim_t *shim) {
    if ((!shim->tx_committed && !shim->tx_retry) || shim->tx_fd < 0) {
        return;
    }
    if (shim->tx_send) {
        shim->tx_committed = 0;
        shim_tx_send_queued(shim);
        return;
    }
    if (shim->xdp) {
        shim_xsk_flush(shim);
        return;
    }
    shim->tx_committed = 0;
    shim->tx_retry = 0;
    if (sendto(shim->tx_fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0) {
        int err = errno;
        /* The frames the kernel could not take stay SEND_REQUEST in the ring; try again later. */
        shim->tx_retry = 1;
        shim->tx_retry_at = shim_now_ns() + (err == EAGAIN || err == ENOBUFS || err == EINTR ? SHIM_TX_RETRY_SOON_NS
                                                                                             : SHIM_TX_RETRY_LATER_NS);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Receive filter memberships (on the control socket: they live as long as the shim)
 * ------------------------------------------------------------------------------------------- */

static int shim_membership(const shim_t *shim, int add, unsigned short type) {
    struct packet_mreq mreq;
    memset(&mreq, 0, sizeof(mreq));
    mreq.mr_ifindex = (int)shim->ifindex;
    mreq.mr_type = type;
    return setsockopt(shim->ctl_fd, SOL_PACKET, add ? PACKET_ADD_MEMBERSHIP : PACKET_DROP_MEMBERSHIP, &mreq,
                      sizeof(mreq));
}

void shim_set_rx_mode(shim_t *shim, uint32_t mode) {
    static const struct {
        uint32_t bit;
        unsigned short type;
    } modes[] = {{SHIM_RXMODE_PROMISC, PACKET_MR_PROMISC}, {SHIM_RXMODE_ALLMULTI, PACKET_MR_ALLMULTI}};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        uint32_t want = mode & modes[i].bit;
        if (want != (shim->rx_mode & modes[i].bit) && shim_membership(shim, want != 0, modes[i].type) == 0) {
            /* On failure the mode stays as it was; the card filters in software regardless. */
            shim->rx_mode = (shim->rx_mode & ~modes[i].bit) | want;
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * DMA regions
 * ------------------------------------------------------------------------------------------- */

/** Index into `order` of the last region whose bus base is <= bus, or -1. */
static int shim_region_floor(const shim_t *shim, uint64_t bus) {
    int lo = 0;
    int hi = (int)shim->region_count - 1;
    int found = -1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (shim->regions[shim->order[mid]].bus <= bus) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return found;
}

void *shim_dma(shim_t *shim, uint64_t bus, uint64_t len, shim_bus_fault_t *fault) {
    uint64_t n = len == 0 ? 1 : len;
    shim_bus_fault_t f = SHIM_BUS_NO_REGION;
    void *host = NULL;
    if (bus + n < bus) {
        f = SHIM_BUS_WRAP;
    } else {
        const shim_region_t *r = NULL;
        int32_t id = shim->last_hit;
        if (id >= 0 && bus >= shim->regions[id].bus && bus - shim->regions[id].bus < shim->regions[id].len) {
            r = &shim->regions[id];
        } else {
            int k = shim_region_floor(shim, bus);
            if (k >= 0) {
                id = shim->order[k];
                if (bus - shim->regions[id].bus < shim->regions[id].len) {
                    r = &shim->regions[id];
                }
            }
        }
        if (r != NULL) {
            uint64_t offset = bus - r->bus;
            if (n <= r->len - offset) {
                f = SHIM_BUS_OK;
                host = r->host + offset;
                shim->last_hit = id;
            } else {
                f = SHIM_BUS_PAST_END;
            }
        }
    }
    if (fault != NULL) {
        *fault = f;
    }
    return host;
}

static int shim_ranges_overlap(uint64_t a, uint64_t a_len, uint64_t b, uint64_t b_len) {
    return a < b + b_len && b < a + a_len;
}

int32_t nicshim_add_dma_region(nicshim_t *shim, uint64_t bus_base, void *host, uint64_t length) {
    if (shim == NULL || host == NULL || length == 0 || length > UINT64_MAX - bus_base ||
        length > UINTPTR_MAX - (uintptr_t)host) {
        return NICSHIM_ERR_INVALID;
    }
    uint64_t host_base = (uintptr_t)host;
    pthread_mutex_lock(&shim->lock);
    int32_t rc;
    if (shim->region_count == NICSHIM_MAX_DMA_REGIONS) {
        rc = NICSHIM_ERR_DMA_FULL;
    } else {
        rc = NICSHIM_OK;
        for (uint32_t k = 0; k < shim->region_count; k++) {
            const shim_region_t *r = &shim->regions[shim->order[k]];
            if (shim_ranges_overlap(bus_base, length, r->bus, r->len) ||
                shim_ranges_overlap(host_base, length, (uintptr_t)r->host, r->len)) {
                rc = NICSHIM_ERR_DMA_OVERLAP;
                break;
            }
        }
    }
    if (rc == NICSHIM_OK) {
        int32_t id = 0;
        while (shim->regions[id].used) {
            id++;
        }
        shim->regions[id] = (shim_region_t){bus_base, host, length, 1};
        int k = shim_region_floor(shim, bus_base) + 1;
        memmove(&shim->order[k + 1], &shim->order[k], shim->region_count - (uint32_t)k);
        shim->order[k] = (uint8_t)id;
        shim->region_count++;
        rc = id;
    }
    pthread_mutex_unlock(&shim->lock);
    return rc;
}

int32_t nicshim_remove_dma_region(nicshim_t *shim, int32_t region_id) {
    if (shim == NULL) {
        return NICSHIM_ERR_INVALID;
    }
    pthread_mutex_lock(&shim->lock);
    int32_t rc = NICSHIM_OK;
    if (region_id < 0 || region_id >= NICSHIM_MAX_DMA_REGIONS || !shim->regions[region_id].used) {
        rc = NICSHIM_ERR_NOT_FOUND;
    } else if (__atomic_load_n(&shim->running, __ATOMIC_RELAXED) &&
               (shim->ops->holds_region == NULL ||
                shim->ops->holds_region(shim->card, shim->regions[region_id].host, shim->regions[region_id].len))) {
        rc = NICSHIM_ERR_STATE; /* the card may still reach it through a pointer it translated earlier */
    } else {
        uint32_t k = 0;
        while (shim->order[k] != region_id) {
            k++;
        }
        memmove(&shim->order[k], &shim->order[k + 1], shim->region_count - k - 1);
        shim->region_count--;
        memset(&shim->regions[region_id], 0, sizeof(shim->regions[region_id]));
        if (shim->last_hit == region_id) {
            shim->last_hit = -1;
        }
    }
    pthread_mutex_unlock(&shim->lock);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Open / close / info
 * ------------------------------------------------------------------------------------------- */

uint32_t nicshim_abi_version(void) {
    return NICSHIM_ABI_VERSION;
}

/** Interface lookup on the control socket: up, Ethernet framing, MAC and MTU. */
static int32_t shim_probe_interface(shim_t *shim) {
    int flags = shim_iface_flags(shim);
    if (flags < 0) {
        return errno == ENODEV ? NICSHIM_ERR_NO_DEVICE : NICSHIM_ERR_SYSTEM;
    }
    if ((flags & IFF_UP) == 0) {
        return NICSHIM_ERR_IFACE_DOWN;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    memcpy(ifr.ifr_name, shim->ifname, sizeof(ifr.ifr_name));
    if (ioctl(shim->ctl_fd, SIOCGIFHWADDR, &ifr) < 0) {
        return shim_errno_code(errno);
    }
    /* The cards speak Ethernet frames: anything else (IP tunnels, InfiniBand) would hand them other headers.
     * Loopback carries Ethernet framing too. */
    if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER && ifr.ifr_hwaddr.sa_family != ARPHRD_LOOPBACK) {
        return NICSHIM_ERR_INVALID;
    }
    memcpy(shim->mac, ifr.ifr_hwaddr.sa_data, sizeof(shim->mac));
    memset(&ifr, 0, sizeof(ifr));
    memcpy(ifr.ifr_name, shim->ifname, sizeof(ifr.ifr_name));
    if (ioctl(shim->ctl_fd, SIOCGIFMTU, &ifr) < 0) {
        return shim_errno_code(errno);
    }
    shim->mtu = (uint32_t)ifr.ifr_mtu;
    if (shim->mtu + ETH_HLEN < shim->ops->max_frame) {
        return NICSHIM_ERR_MTU;
    }
    return NICSHIM_OK;
}

static void shim_free(shim_t *shim) {
    if (shim->card != NULL) {
        shim->ops->destroy(shim->card);
    }
    shim_close_fd(&shim->ctl_fd);
    shim_close_fd(&shim->ep_fd);
    shim_close_fd(&shim->timer_fd);
    shim_close_fd(&shim->event_fd);
    free(shim->scratch);
    free(shim->tx_batch);
    free(shim->fault_buf);
    pthread_mutex_destroy(&shim->lock);
    free(shim);
}

static int32_t shim_open_checked(shim_t *shim, const char *ifname, uint32_t card_kind,
                                 const nicshim_options_t *options) {
    if (ifname == NULL || ifname[0] == '\0' || strnlen(ifname, IFNAMSIZ) >= IFNAMSIZ) {
        return NICSHIM_ERR_INVALID;
    }
    int32_t rc = shim_resolve_options(options, &shim->opt);
    if (rc != NICSHIM_OK) {
        return rc;
    }
    shim->ops = shim_find_card(card_kind);
    if (shim->ops == NULL) {
        return NICSHIM_ERR_CARD_KIND;
    }
    shim->xdp = shim->opt.backend == NICSHIM_BACKEND_AF_XDP;
    shim->direct = shim->ops->kind == NICSHIM_CARD_XSK_DIRECT;
    if (shim->direct && !shim->xdp) {
        return NICSHIM_ERR_CARD_KIND; /* direct access is to AF_XDP rings; AF_PACKET has none to give */
    }
    /* Every frame the card can send or receive must fit one ring slot (AF_XDP: one chunk after the XDP headroom)
     * whole. */
    uint32_t slot_overhead = shim->xdp ? NICSHIM_XDP_RX_OFFSET : (uint32_t)SHIM_RX_MAC_OFFSET;
    if (shim->opt.frame_size < slot_overhead + shim->ops->max_frame) {
        return NICSHIM_ERR_INVALID;
    }
    memcpy(shim->ifname, ifname, strlen(ifname) + 1);
    shim->ifindex = if_nametoindex(ifname);
    if (shim->ifindex == 0) {
        return NICSHIM_ERR_NO_DEVICE;
    }
    shim->ctl_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (shim->ctl_fd < 0) {
        return shim_errno_code(errno);
    }
    rc = shim_probe_interface(shim);
    if (rc != NICSHIM_OK) {
        return rc;
    }
    shim->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (shim->event_fd < 0) {
        return shim_errno_code(errno);
    }
    shim->ep_fd = epoll_create1(EPOLL_CLOEXEC);
    shim->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (shim->ep_fd < 0 || shim->timer_fd < 0) {
        return shim_errno_code(errno);
    }
    /* Edge-triggered and never read: see shim_wait. */
    struct epoll_event kick_ev = {.events = EPOLLIN | EPOLLET, .data.fd = shim->event_fd};
    struct epoll_event timer_ev = {.events = EPOLLIN | EPOLLET, .data.fd = shim->timer_fd};
    if (epoll_ctl(shim->ep_fd, EPOLL_CTL_ADD, shim->event_fd, &kick_ev) < 0 ||
        epoll_ctl(shim->ep_fd, EPOLL_CTL_ADD, shim->timer_fd, &timer_ev) < 0) {
        return shim_errno_code(errno);
    }
    shim_ring_geometry(&shim->rx, shim->opt.rx_ring_frames, shim->opt.frame_size);
    shim_ring_geometry(&shim->tx, shim->opt.tx_ring_frames, shim->opt.frame_size);
    shim->scratch = malloc(shim->rx.frame_size + SHIM_VLAN_HLEN);
    if (shim->scratch == NULL) {
        return NICSHIM_ERR_NOMEM;
    }
    shim->tx_send = (shim->opt.flags & NICSHIM_OPT_TX_SEND) != 0;
    if (shim->tx_send) {
        shim->tx_batch = malloc((size_t)SHIM_TX_BATCH * shim->tx.frame_size);
        if (shim->tx_batch == NULL) {
            return NICSHIM_ERR_NOMEM;
        }
    }
    if ((shim->opt.flags & NICSHIM_OPT_PROMISC) != 0 && shim_membership(shim, 1, PACKET_MR_PROMISC) < 0) {
        return shim_errno_code(errno);
    }
    shim->card = shim->ops->create(shim, &shim->opt);
    if (shim->card == NULL) {
        return NICSHIM_ERR_NOMEM;
    }
    shim->irq_prev = shim->ops->irq_level(shim->card) != 0;
    return NICSHIM_OK;
}

nicshim_t *nicshim_open(const char *ifname, uint32_t card_kind, const nicshim_options_t *options,
                        int32_t *out_error) {
    shim_t *shim = calloc(1, sizeof(*shim));
    int32_t rc = NICSHIM_ERR_NOMEM;
    if (shim != NULL) {
        shim->ctl_fd = -1;
        shim->event_fd = -1;
        shim->ep_fd = -1;
        shim->timer_fd = -1;
        shim->rx_fd = -1;
        shim->tx_fd = -1;
        shim->last_hit = -1;
        shim_xsk_init(&shim->xsk);
        if (pthread_mutex_init(&shim->lock, NULL) != 0) {
            free(shim);
            shim = NULL;
        } else {
            rc = shim_open_checked(shim, ifname, card_kind, options);
            if (rc != NICSHIM_OK) {
                shim_free(shim);
                shim = NULL;
            }
        }
    }
    if (out_error != NULL) {
        *out_error = rc;
    }
    return shim;
}

void nicshim_close(nicshim_t *shim) {
    if (shim == NULL) {
        return;
    }
    nicshim_stop(shim);
    shim_free(shim);
}

int32_t nicshim_get_info(const nicshim_t *shim, nicshim_info_t *out) {
    if (shim == NULL || out == NULL) {
        return NICSHIM_ERR_INVALID;
    }
    memset(out, 0, sizeof(*out));
    out->card_kind = shim->ops->kind;
    out->ifindex = shim->ifindex;
    out->mtu = shim->mtu;
    int flags = shim_iface_flags(shim);
    if (flags >= 0 && (flags & IFF_RUNNING) != 0) {
        out->flags |= NICSHIM_INFO_LINK_UP;
    }
    if (__atomic_load_n(&shim->running, __ATOMIC_ACQUIRE)) {
        out->flags |= NICSHIM_INFO_RUNNING;
    }
    memcpy(out->mac, shim->mac, sizeof(out->mac));
    return NICSHIM_OK;
}

int32_t nicshim_set_faults(nicshim_t *shim, const nicshim_faults_t *faults) {
    if (shim == NULL) {
        return NICSHIM_ERR_INVALID;
    }
    int32_t rc = shim_fault_check(faults);
    if (rc != NICSHIM_OK) {
        return rc;
    }
    int on = faults != NULL && faults->directions != 0
        && (faults->drop_ppm | faults->duplicate_ppm | faults->reorder_ppm | faults->corrupt_ppm) != 0;
    if (on && shim->direct) {
        return NICSHIM_ERR_INVALID; /* the caller moves those frames itself; the shim never sees them */
    }
    pthread_mutex_lock(&shim->lock);
    if (__atomic_load_n(&shim->running, __ATOMIC_RELAXED)) {
        rc = NICSHIM_ERR_STATE;
    } else if (on && shim->fault_buf == NULL) {
        /* Any frame either way fits: an RX slot's frame with a re-inserted VLAN tag, a TX slot, an XDP chunk. */
        shim->fault_frame = shim->opt.frame_size + SHIM_VLAN_HLEN;
        shim->fault_buf = malloc(3 * (size_t)shim->fault_frame);
        if (shim->fault_buf == NULL) {
            rc = NICSHIM_ERR_NOMEM;
        }
    }
    if (rc == NICSHIM_OK) {
        shim_fault_init(&shim->fault_rx, on ? faults : NULL, NICSHIM_FAULT_RX);
        shim_fault_init(&shim->fault_tx, on ? faults : NULL, NICSHIM_FAULT_TX);
    }
    pthread_mutex_unlock(&shim->lock);
    return rc;
}

int32_t nicshim_get_stats(const nicshim_t *shim, nicshim_stats_t *out) {
    if (shim == NULL || out == NULL) {
        return NICSHIM_ERR_INVALID;
    }
    uint64_t *dst = (uint64_t *)out;
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < SHIM_STAT_COUNT; i++) {
        dst[i] = __atomic_load_n(&shim->stats[i], __ATOMIC_RELAXED);
    }
    return NICSHIM_OK;
}

const char *nicshim_strerror(int32_t error) {
    switch (error) {
    case NICSHIM_OK:
        return "success";
    case NICSHIM_ERR_INVALID:
        return "invalid argument (NULL pointer, zero length or value out of range)";
    case NICSHIM_ERR_NOMEM:
        return "out of memory";
    case NICSHIM_ERR_NO_DEVICE:
        return "no network interface of that name";
    case NICSHIM_ERR_PERMISSION:
        return "permission denied: AF_PACKET sockets need CAP_NET_RAW";
    case NICSHIM_ERR_SYSTEM:
        return "a system call failed";
    case NICSHIM_ERR_CARD_KIND:
        return "unknown card kind (or that card model is not in this library)";
    case NICSHIM_ERR_ABI:
        return "options.size does not match this library's nicshim_options_t (ABI mismatch)";
    case NICSHIM_ERR_STATE:
        return "call not allowed in the shim's current state (running or stopped)";
    case NICSHIM_ERR_WINDOW:
        return "register window range unknown or not attached, or its length or alignment is wrong";
    case NICSHIM_ERR_DMA_OVERLAP:
        return "DMA region overlaps a registered region in bus or host address space";
    case NICSHIM_ERR_DMA_FULL:
        return "too many DMA regions (NICSHIM_MAX_DMA_REGIONS)";
    case NICSHIM_ERR_NOT_FOUND:
        return "no DMA region with that id";
    case NICSHIM_ERR_MTU:
        return "interface MTU too small for the card's largest frame";
    case NICSHIM_ERR_REGISTER:
        return "register offset outside the window or not 4-byte aligned";
    case NICSHIM_ERR_IFACE_DOWN:
        return "network interface is administratively down";
    case NICSHIM_ERR_XDP_BUSY:
        return "AF_XDP: another XDP program is attached to the interface, or its queue is bound by another socket";
    case NICSHIM_ERR_XDP_UNSUPPORTED:
        return "AF_XDP: the kernel or the driver does not support the requested socket, bind or attach mode";
    case NICSHIM_ERR_UMEM:
        return "AF_XDP: no UMEM set, or it is misaligned, too small for the rings, or over RLIMIT_MEMLOCK";
    default:
        return "unknown error";
    }
}

/* ---------------------------------------------------------------------------------------------
 * Windows and registers
 * ------------------------------------------------------------------------------------------- */

int32_t nicshim_attach_window(nicshim_t *shim, uint32_t range, void *base, uint64_t length) {
    if (shim == NULL || base == NULL) {
        return NICSHIM_ERR_INVALID;
    }
    if (range >= shim->ops->range_count || length != shim->ops->range_size[range] ||
        (uintptr_t)base % NICSHIM_WINDOW_ALIGN != 0) {
        return NICSHIM_ERR_WINDOW;
    }
    pthread_mutex_lock(&shim->lock);
    int32_t rc = NICSHIM_OK;
    if (__atomic_load_n(&shim->running, __ATOMIC_RELAXED)) {
        rc = NICSHIM_ERR_STATE;
    } else {
        shim->window[range] = base;
        shim->ops->attach(shim->card, range, base);
        shim_irq_sample(shim);
    }
    pthread_mutex_unlock(&shim->lock);
    return rc;
}

static int32_t shim_check_register(const shim_t *shim, uint32_t range, uint32_t offset) {
    if (range >= shim->ops->range_count) {
        return NICSHIM_ERR_WINDOW;
    }
    if (offset >= shim->ops->range_size[range] || offset % 4 != 0) {
        return NICSHIM_ERR_REGISTER;
    }
    return NICSHIM_OK;
}

/** After a register access: interrupt edge and frames the access sent. After a write, a sleeping poller wakes
 * to re-evaluate (the write may have changed what the card waits for, e.g. a start bit or a timer); reads stay
 * cheap (an interrupt handler's status reads must not cost the card thread a wake-up each). */
static void shim_after_register(shim_t *shim, int write) {
    shim_irq_sample(shim);
    shim_tx_flush(shim);
    if (write && __atomic_load_n(&shim->sleeping, __ATOMIC_SEQ_CST) > 0) {
        shim_wake(shim);
    }
}

int32_t nicshim_reg_write(nicshim_t *shim, uint32_t range, uint32_t offset, uint32_t value) {
    if (shim == NULL) {
        return NICSHIM_ERR_INVALID;
    }
    int32_t rc = shim_check_register(shim, range, offset);
    if (rc != NICSHIM_OK) {
        return rc;
    }
    pthread_mutex_lock(&shim->lock);
    if (shim->window[range] == NULL) {
        rc = NICSHIM_ERR_WINDOW;
    } else {
        rc = shim->ops->reg_write(shim->card, range, offset, value);
        shim_after_register(shim, 1);
    }
    pthread_mutex_unlock(&shim->lock);
    return rc;
}

int32_t nicshim_reg_read(nicshim_t *shim, uint32_t range, uint32_t offset, uint32_t *value) {
    if (shim == NULL || value == NULL) {
        return NICSHIM_ERR_INVALID;
    }
    int32_t rc = shim_check_register(shim, range, offset);
    if (rc != NICSHIM_OK) {
        return rc;
    }
    pthread_mutex_lock(&shim->lock);
    if (shim->window[range] == NULL) {
        rc = NICSHIM_ERR_WINDOW;
    } else {
        rc = shim->ops->reg_read(shim->card, range, offset, value);
        shim_after_register(shim, 0);
    }
    pthread_mutex_unlock(&shim->lock);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Start / stop
 * ------------------------------------------------------------------------------------------- */

/** AF_XDP: the socket, its rings and the program (xsk.c); rx_fd is the socket, tx_fd a dup of it (see the top). */
static int32_t shim_open_xsk(shim_t *shim) {
    if (shim->umem == NULL) {
        return NICSHIM_ERR_UMEM;
    }
    int32_t rc = shim_xsk_open(&shim->xsk, shim->ifindex, &shim->opt, shim->umem, shim->umem_len, shim->direct);
    if (rc != NICSHIM_OK) {
        return rc;
    }
    shim->rx_fd = shim->xsk.fd;
    shim->tx_fd = fcntl(shim->xsk.fd, F_DUPFD_CLOEXEC, 0);
    if (shim->tx_fd < 0) {
        rc = shim_errno_code(errno);
        shim->rx_fd = -1;
        shim_xsk_close(&shim->xsk);
    }
    return rc;
}

/** Closes whichever transport start opened. */
static void shim_close_transport(shim_t *shim) {
    if (shim->xdp) {
        shim_close_fd(&shim->tx_fd);
        shim->rx_fd = -1; /* the socket itself: closed by shim_xsk_close */
        shim_xsk_close(&shim->xsk);
        return;
    }
    shim_ring_close(&shim->rx, &shim->rx_fd);
    shim_ring_close(&shim->tx, &shim->tx_fd);
}

int32_t nicshim_set_umem(nicshim_t *shim, void *base, uint64_t length) {
    if (shim == NULL || base == NULL || length == 0 || !shim->xdp) {
        return NICSHIM_ERR_INVALID;
    }
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t chunk = shim->opt.frame_size;
    uint64_t needed = ((uint64_t)shim->opt.rx_ring_frames + shim->opt.tx_ring_frames) * chunk;
    if ((uintptr_t)base % page != 0 || length % chunk != 0 || length < needed) {
        return NICSHIM_ERR_UMEM;
    }
    pthread_mutex_lock(&shim->lock);
    int32_t rc = NICSHIM_OK;
    if (__atomic_load_n(&shim->running, __ATOMIC_RELAXED)) {
        rc = NICSHIM_ERR_STATE;
    } else {
        shim->umem = base;
        shim->umem_len = length;
    }
    pthread_mutex_unlock(&shim->lock);
    return rc;
}

int32_t nicshim_get_xdp_info(nicshim_t *shim, nicshim_xdp_info_t *out) {
    if (shim == NULL || out == NULL || !shim->xdp) {
        return NICSHIM_ERR_INVALID;
    }
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&shim->lock);
    out->umem_base = (uint64_t)(uintptr_t)shim->umem;
    out->umem_length = shim->umem_len;
    out->queue = shim->opt.xdp_queue;
    out->chunk_size = shim->opt.frame_size;
    if (__atomic_load_n(&shim->running, __ATOMIC_RELAXED)) {
        shim_xsk_info(&shim->xsk, out);
    }
    pthread_mutex_unlock(&shim->lock);
    return NICSHIM_OK;
}

int32_t nicshim_start(nicshim_t *shim) {
    if (shim == NULL) {
        return NICSHIM_ERR_INVALID;
    }
    pthread_mutex_lock(&shim->lock);
    int32_t rc = NICSHIM_OK;
    if (__atomic_load_n(&shim->running, __ATOMIC_RELAXED)) {
        rc = NICSHIM_ERR_STATE;
    }
    for (uint32_t r = 0; rc == NICSHIM_OK && r < shim->ops->range_count; r++) {
        if (shim->window[r] == NULL) {
            rc = NICSHIM_ERR_STATE;
        }
    }
    if (rc == NICSHIM_OK && shim->xdp) {
        rc = shim_open_xsk(shim);
    } else if (rc == NICSHIM_OK) {
        rc = shim_open_rx(shim);
        if (rc == NICSHIM_OK) {
            rc = shim_open_tx(shim);
            if (rc != NICSHIM_OK) {
                shim_ring_close(&shim->rx, &shim->rx_fd);
            }
        }
    }
    if (rc == NICSHIM_OK && !shim->direct) {
        /* RX is registered for the link's life; shim_wait changes its events only when the card's needs change. TX
         * joins the set only while the card waits for room in it (shim_ep_tx). Not with direct access: its caller
         * waits in ppoll (shim_direct_poll), and a registered socket has an epoll entry on its wait queue for good, so
         * the kernel would take that queue's lock and run the entry's callback for every frame it delivers (the
         * flush's sock_def_readable) and every transmitted frame it frees (sock_wfree's write_space): a tenth of a
         * batched flood's sending CPU (README, "Direct-access U-Net on the AF_XDP rings"). */
        struct epoll_event rx_ev = {.events = EPOLLIN | EPOLLET, .data.fd = shim->rx_fd};
        if (epoll_ctl(shim->ep_fd, EPOLL_CTL_ADD, shim->rx_fd, &rx_ev) < 0) {
            rc = shim_errno_code(errno);
            shim_close_transport(shim); /* closing removes a registered fd from the set */
        }
        shim->ep_rx = EPOLLIN | EPOLLET;
        shim->ep_tx = 0;
    }
    if (rc == NICSHIM_OK) {
        uint64_t now = shim_coarse_ns();
        int flags = shim_iface_flags(shim);
        shim->link_up = flags >= 0 && (flags & IFF_RUNNING) != 0;
        shim->next_link_check = now + SHIM_LINK_CHECK_NS;
        shim->next_kstats = now;
        shim->tx_reserved = 0;
        shim->tx_committed = 0;
        shim->tx_blocked = 0;
        shim->tx_retry = 0;
        shim->tx_head = 0;
        shim->tx_queued = 0;
        shim->rx_held = 0;
        shim->rx_more = 0;
        shim->kstats_taken = 0;
        shim->kstats_held = 0;
        shim->fault_rx_held = 0;
        shim->fault_tx_held = 0;
        if (!shim->xdp) {
            /* Discard what the kernel counted for the new socket so far (nothing: it was just bound). */
            struct tpacket_stats kst;
            socklen_t kst_len = sizeof(kst);
            (void)getsockopt(shim->rx_fd, SOL_PACKET, PACKET_STATISTICS, &kst, &kst_len);
        }
        shim->ops->start(shim->card);
        if (shim->ops->link != NULL) {
            shim->ops->link(shim->card, shim->link_up);
        }
        __atomic_store_n(&shim->running, 1, __ATOMIC_RELEASE);
        shim_irq_sample(shim);
        shim_tx_flush(shim);
    }
    pthread_mutex_unlock(&shim->lock);
    return rc;
}

/** Adds what the kernel dropped on the RX socket since the last read (the read resets its counters). */
static void shim_kernel_stats(shim_t *shim, uint64_t now, int force) {
    if (!force && now < shim->next_kstats) {
        return;
    }
    shim->next_kstats = now + SHIM_KSTATS_NS;
    if (shim->xdp) {
        uint64_t drops[2];
        if (shim_xsk_kernel_drops(&shim->xsk, drops) == 0) {
            shim->kstats_taken = 0;
            shim->kstats_held = 0;
            if (drops[0] != 0) {
                shim_count(shim, SHIM_STAT_RX_DROP_KERNEL, drops[0]);
            }
            if (drops[1] != 0) {
                shim_count(shim, SHIM_STAT_TX_DROP_KERNEL, drops[1]);
            }
        }
        return;
    }
    struct tpacket_stats kst;
    socklen_t kst_len = sizeof(kst);
    if (getsockopt(shim->rx_fd, SOL_PACKET, PACKET_STATISTICS, &kst, &kst_len) == 0) {
        /* Only a read that succeeded clears the "drops possible" state (see shim_kstats_may_be_stale). */
        shim->kstats_taken = 0;
        shim->kstats_held = 0;
        if (kst.tp_drops != 0) {
            shim_count(shim, SHIM_STAT_RX_DROP_KERNEL, kst.tp_drops);
        }
    }
}

int32_t nicshim_stop(nicshim_t *shim) {
    if (shim == NULL) {
        return NICSHIM_ERR_INVALID;
    }
    pthread_mutex_lock(&shim->lock);
    if (__atomic_load_n(&shim->running, __ATOMIC_RELAXED)) {
        shim->ops->stop(shim->card);
        shim_irq_sample(shim);
        /* What the card committed before stopping still goes out; the kernel finishes the ring on close. Send mode:
         * one last try for queued frames, which are otherwise lost and counted. */
        shim_tx_flush(shim);
        if (shim->tx_send) {
            shim_tx_send_queued(shim);
            shim_count(shim, SHIM_STAT_TX_DROP_KERNEL, shim->tx_queued - shim->tx_head);
        }
        shim_kernel_stats(shim, shim_coarse_ns(), 1);
        (void)epoll_ctl(shim->ep_fd, EPOLL_CTL_DEL, shim->rx_fd, NULL);
        (void)epoll_ctl(shim->ep_fd, EPOLL_CTL_DEL, shim->tx_fd, NULL);
        shim_close_transport(shim);
        shim->tx_reserved = 0;
        shim->tx_committed = 0;
        shim->tx_retry = 0;
        shim->tx_head = 0;
        shim->tx_queued = 0;
        shim->fault_rx_held = 0; /* a frame held back for reordering is lost with the link (nicshim.h) */
        shim->fault_tx_held = 0;
        __atomic_store_n(&shim->running, 0, __ATOMIC_RELEASE);
        /* A poller waiting on the closed sockets returns NICSHIM_ERR_STATE now, not at its timeout. */
        shim_wake(shim);
    }
    pthread_mutex_unlock(&shim->lock);
    return NICSHIM_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Kick and poll
 * ------------------------------------------------------------------------------------------- */

/*
 * Direct access: the kick is the kernel's doorbell itself. TX: sendto(MSG_DONTWAIT) makes the kernel take what the
 * caller released on TX (copy mode transmits in the call, up to 32 descriptors, so it repeats while EAGAIN says more
 * is left - bounded, as the card mode's flush is); EAGAIN / EBUSY / ENOBUFS with entries still on TX is back-pressure
 * the caller sees as a TX ring that drains later. RX and CMD need no kernel call (the kernel fills RX by itself).
 */
static int32_t shim_direct_kick(shim_t *shim, uint32_t what) {
    if (!__atomic_load_n(&shim->running, __ATOMIC_ACQUIRE)) {
        return NICSHIM_ERR_STATE;
    }
    if ((what & NICSHIM_KICK_TX) == 0) {
        return NICSHIM_OK;
    }
    uint32_t tries = shim->xsk.tx_frames / 32 + 2;
    for (uint32_t i = 0; i < tries; i++) {
        if (sendto(shim->xsk.fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN && errno != EBUSY &&
            errno != ENOBUFS && errno != ENETDOWN) {
            return shim_errno_code(errno);
        }
        const shim_xsk_ring_t *tx = &shim->xsk.tx;
        if (__atomic_load_n(tx->consumer, __ATOMIC_ACQUIRE) == __atomic_load_n(tx->producer, __ATOMIC_ACQUIRE)) {
            break;
        }
    }
    return NICSHIM_OK;
}

/*
 * Direct access: waits (ppoll, no lock: the caller's thread owns the rings) until RX is not empty, or the timeout.
 *
 * The timeout is the shim's timerfd in the poll set, not ppoll's own: ppoll's timeout starts an hrtimer on every
 * call and cancels it when a frame ends the wait first, and a 1 ms hrtimer is usually the CPU's next timer event (the
 * tick is 4 ms), so both reprogram the local APIC's deadline - in a VM a trapped MSR write each. A blocking
 * ping-pong's waits end by a frame long before their timeout, so that was two exits per wait for nothing: measured on
 * the 2-vCPU VM, U-Net UDP's blocking round trip on one CPU took 19.7 us against 9.8 us with a 1 s timeout (README,
 * "Blocking U-Net, unpinned"). The timerfd is armed as shim_wait arms it for a card: only when it would fire after
 * this wait's deadline or has fired already, so a caller that waits with the same timeout again and again re-arms it
 * once per timeout, not once per wait. A wait ended early by a timer armed for an earlier, shorter wait loops and
 * waits on (nicshim_poll's "up to timeout_ns" holds). Neither the socket nor the timerfd joins an epoll set: an epoll
 * entry would stay on the socket's wait queue and cost every delivered and freed frame its callback (see
 * nicshim_start); ppoll's entries live for one wait.
 */
static int32_t shim_direct_poll(shim_t *shim, int64_t timeout_ns) {
    if (!__atomic_load_n(&shim->running, __ATOMIC_ACQUIRE)) {
        return NICSHIM_ERR_STATE;
    }
    shim_count(shim, SHIM_STAT_POLLS, 1);
    const shim_xsk_ring_t *rx = &shim->xsk.rx;
    if (__atomic_load_n(rx->producer, __ATOMIC_ACQUIRE) != __atomic_load_n(rx->consumer, __ATOMIC_ACQUIRE)) {
        return NICSHIM_EV_RX;
    }
    if (timeout_ns == 0) {
        return 0;
    }
    uint64_t now = shim_now_ns();
    uint64_t until = now + (uint64_t)timeout_ns;
    while (now < until) {
        if (shim->timer_at <= now || shim->timer_at > until) {
            /* Arming resets the timerfd's expiry count, so a timer that fired for an earlier wait reads idle again. */
            struct itimerspec at = {.it_value = {.tv_sec = (time_t)(until / 1000000000ull),
                                                 .tv_nsec = (long)(until % 1000000000ull)}};
            if (timerfd_settime(shim->timer_fd, TFD_TIMER_ABSTIME, &at, NULL) < 0) {
                return shim_errno_code(errno);
            }
            shim->timer_at = until;
        }
        struct pollfd p[2] = {{.fd = shim->xsk.fd, .events = POLLIN}, {.fd = shim->timer_fd, .events = POLLIN}};
        int n = ppoll(p, 2, NULL, NULL);
        if (n < 0) {
            return errno == EINTR ? 0 : shim_errno_code(errno);
        }
        if ((p[0].revents & POLLIN) != 0) {
            return (int32_t)NICSHIM_EV_RX;
        }
        if ((p[1].revents & POLLIN) == 0) {
            return 0; /* POLLERR or POLLHUP on the socket: the caller's next ring access tells */
        }
        now = shim_now_ns(); /* the timer fired: this wait's deadline, or an earlier wait's (then wait on) */
    }
    return 0;
}

int32_t nicshim_kick(nicshim_t *shim, uint32_t what) {
    if (shim == NULL || (what & ~NICSHIM_KICK_ALL) != 0) {
        return NICSHIM_ERR_INVALID;
    }
    if (what == 0) {
        return NICSHIM_OK;
    }
    shim_count(shim, SHIM_STAT_KICKS, 1);
    if (shim->direct) {
        return shim_direct_kick(shim, what);
    }
    /* Dekker, kicker side: publish the kick, then look for a sleeper (both seq_cst). */
    __atomic_fetch_or(&shim->kicks, what, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&shim->sleeping, __ATOMIC_SEQ_CST) > 0) {
        shim_wake(shim);
    }
    return NICSHIM_OK;
}

/** The held RX frame goes to the card (after its follower, or at its deadline). */
static uint32_t shim_rx_release_held(shim_t *shim) {
    uint32_t len = shim->fault_rx_held;
    shim->fault_rx_held = 0;
    return len == 0 ? 0 : shim->ops->receive(shim->card, shim->fault_buf + shim->fault_frame, len);
}

/** One received frame to the card, through the fault injector when it is on for RX. */
static uint32_t shim_deliver(shim_t *shim, const uint8_t *frame, uint32_t len) {
    if (!shim->fault_rx.on || len > shim->fault_frame) {
        return shim->ops->receive(shim->card, frame, len);
    }
    int duplicate = 0;
    switch (shim_fault_next(&shim->fault_rx)) {
    case SHIM_FAULT_DROP:
        shim_count(shim, SHIM_STAT_FAULT_DROPS, 1);
        return 0;
    case SHIM_FAULT_DUPLICATE:
        duplicate = 1;
        shim_count(shim, SHIM_STAT_FAULT_DUPLICATES, 1);
        break;
    case SHIM_FAULT_REORDER:
        if (shim->fault_rx_held == 0) {
            memcpy(shim->fault_buf + shim->fault_frame, frame, len);
            shim->fault_rx_held = len;
            shim->fault_rx_until = shim_now_ns() + NICSHIM_FAULT_HOLD_NS;
            shim_count(shim, SHIM_STAT_FAULT_REORDERS, 1);
            return 0;
        }
        break;
    case SHIM_FAULT_CORRUPT: {
        /* A copy: the ring slot belongs to the kernel (AF_PACKET) or is the caller's UMEM chunk. */
        uint8_t *copy = shim->fault_buf;
        memcpy(copy, frame, len);
        copy[shim_fault_corrupt_at(&shim->fault_rx, len)] ^= 0xFF;
        frame = copy;
        shim_count(shim, SHIM_STAT_FAULT_CORRUPTS, 1);
        break;
    }
    case SHIM_FAULT_NONE:
        break;
    }
    uint32_t events = shim->ops->receive(shim->card, frame, len);
    if (duplicate) {
        events |= shim->ops->receive(shim->card, frame, len);
    }
    return events | shim_rx_release_held(shim);
}

/** Frames held back for reordering whose follower did not come in time go on alone. */
static uint32_t shim_fault_deadlines(shim_t *shim) {
    if (shim->fault_rx_held == 0 && shim->fault_tx_held == 0) {
        return 0;
    }
    uint64_t now = shim_now_ns();
    uint32_t events = 0;
    if (shim->fault_rx_held != 0 && now >= shim->fault_rx_until) {
        events |= shim_rx_release_held(shim);
    }
    if (shim->fault_tx_held != 0 && now >= shim->fault_tx_until) {
        shim_tx_release_held(shim);
    }
    return events;
}

/** AF_XDP: received frames into the card straight from the UMEM, at most `budget`. */
static uint32_t shim_receive_xsk(shim_t *shim, uint32_t budget) {
    uint32_t events = 0;
    for (uint32_t n = 0; n < budget && shim_xsk_rx_ready(&shim->xsk) != 0; n++) {
        if (shim->ops->can_receive != NULL && !shim->ops->can_receive(shim->card)) {
            shim->rx_held = 1; /* frames stay on RX; the kernel drops (and counts) once every receive chunk is there */
            shim->kstats_held = 1;
            break;
        }
        uint32_t len;
        const uint8_t *frame = shim_xsk_rx_peek(&shim->xsk, &len);
        if (len == 0) {
            shim_count(shim, SHIM_STAT_RX_DROP_BAD_FRAME, 1);
        } else {
            events |= shim_deliver(shim, frame, len);
        }
        shim_xsk_rx_release(&shim->xsk);
        if (shim->kstats_taken < UINT32_MAX) {
            shim->kstats_taken++;
        }
        if (n + 1 == budget) {
            shim->rx_more = shim_xsk_rx_ready(&shim->xsk) != 0;
        }
    }
    return events;
}

/** Received frames into the card, at most `budget` ring slots. */
static uint32_t shim_receive(shim_t *shim, uint32_t budget) {
    if (shim->xdp) {
        return shim_receive_xsk(shim, budget);
    }
    uint32_t events = 0;
    shim_ring_t *ring = &shim->rx;
    for (uint32_t n = 0; n < budget; n++) {
        struct tpacket2_hdr *hdr = shim_ring_slot(ring, ring->head);
        /* Acquire: the kernel wrote the frame and header before it set TP_STATUS_USER. */
        uint32_t status = shim_load_acquire(&hdr->tp_status);
        if ((status & TP_STATUS_USER) == 0) {
            break;
        }
        const struct sockaddr_ll *sll =
            (const struct sockaddr_ll *)((const uint8_t *)hdr + TPACKET_ALIGN(sizeof(struct tpacket2_hdr)));
        if (sll->sll_pkttype != PACKET_OUTGOING) {
            if (hdr->tp_len > hdr->tp_snaplen || (uint64_t)hdr->tp_mac + hdr->tp_snaplen > ring->frame_size) {
                shim_count(shim, SHIM_STAT_RX_DROP_TRUNCATED, 1);
            } else {
                if (shim->ops->can_receive != NULL && !shim->ops->can_receive(shim->card)) {
                    /* Leave this and later frames to the kernel ring until the card has room. */
                    shim->rx_held = 1;
                    shim->kstats_held = 1;
                    break;
                }
                const uint8_t *frame = (const uint8_t *)hdr + hdr->tp_mac;
                uint32_t len = hdr->tp_snaplen;
                if ((status & TP_STATUS_VLAN_VALID) != 0 && len >= 2 * ETH_ALEN) {
                    /* Put the tag the kernel stripped back between the addresses and the EtherType. */
                    uint16_t tpid = (status & TP_STATUS_VLAN_TPID_VALID) != 0 ? hdr->tp_vlan_tpid : ETH_P_8021Q;
                    uint8_t *out = shim->scratch;
                    memcpy(out, frame, 2 * ETH_ALEN);
                    out[12] = (uint8_t)(tpid >> 8);
                    out[13] = (uint8_t)tpid;
                    out[14] = (uint8_t)(hdr->tp_vlan_tci >> 8);
                    out[15] = (uint8_t)hdr->tp_vlan_tci;
                    memcpy(out + 2 * ETH_ALEN + SHIM_VLAN_HLEN, frame + 2 * ETH_ALEN, len - 2 * ETH_ALEN);
                    frame = out;
                    len += SHIM_VLAN_HLEN;
                }
                events |= shim_deliver(shim, frame, len);
            }
        }
        /* Release: we are done reading the slot before the kernel may refill it. */
        shim_store_release(&hdr->tp_status, TP_STATUS_KERNEL);
        ring->head = (ring->head + 1) & (ring->frames - 1);
        if (shim->kstats_taken < UINT32_MAX) {
            shim->kstats_taken++;
        }
        if (n + 1 == budget) {
            /* Frames may be left with no wake-up to come for them (the RX socket is edge-triggered in ep_fd). */
            shim->rx_more = (shim_load_acquire(&shim_ring_slot(ring, ring->head)->tp_status) & TP_STATUS_USER) != 0;
        }
    }
    return events;
}

static uint32_t shim_link_check(shim_t *shim, uint64_t now) {
    if (now < shim->next_link_check) {
        return 0;
    }
    shim->next_link_check = now + SHIM_LINK_CHECK_NS;
    int flags = shim_iface_flags(shim);
    int up = flags >= 0 && (flags & IFF_RUNNING) != 0;
    if (up == shim->link_up) {
        return 0;
    }
    shim->link_up = up;
    shim_count(shim, SHIM_STAT_LINK_CHANGES, 1);
    if (shim->ops->link != NULL) {
        shim->ops->link(shim->card, up);
    }
    return NICSHIM_EV_LINK;
}

/** One round of card work under the lock: doorbells, received frames, timers, link, kernel counters. The precise clock
 * is read only when a card timer or a flush retry is pending: most rounds have neither. */
static uint32_t shim_work(shim_t *shim) {
    uint32_t budget = shim->opt.poll_budget;
    uint32_t events = 0;
    shim->tx_blocked = 0;
    shim->rx_held = 0;
    shim->rx_more = 0;
    if (shim->tx_retry && shim_now_ns() >= shim->tx_retry_at) {
        shim_tx_flush(shim);
    } else if (shim->tx_send && shim->tx_head < shim->tx_queued && !shim->tx_retry) {
        shim_tx_send_queued(shim); /* woken by room in the socket (or anything else): try again */
    }
    /* A plain load first: most rounds have no kick, and the exchange is a locked instruction. A kick that lands after
     * the load is seen by the wait's Dekker check or the next round. */
    uint32_t kicks = __atomic_load_n(&shim->kicks, __ATOMIC_RELAXED) != 0
                         ? __atomic_exchange_n(&shim->kicks, 0, __ATOMIC_SEQ_CST)
                         : 0;
    shim->kicked = kicks != 0;
    events |= shim_fault_deadlines(shim);
    events |= shim->ops->work(shim->card, kicks, budget);
    shim_tx_flush(shim);
    events |= shim_receive(shim, budget);
    shim_tx_flush(shim);
    if (shim->ops->tick != NULL) {
        uint64_t deadline = shim->ops->next_deadline == NULL ? 0 : shim->ops->next_deadline(shim->card);
        if (deadline != UINT64_MAX) {
            uint64_t now = shim_now_ns();
            if (deadline <= now) {
                events |= shim->ops->tick(shim->card, now);
                shim_tx_flush(shim);
            }
        }
    }
    uint64_t coarse = shim_coarse_ns();
    events |= shim_link_check(shim, coarse);
    shim_kernel_stats(shim, coarse, 0);
    return events & NICSHIM_EV_ALL & ~NICSHIM_EV_IRQ;
}

/** Registers `fd` in ep_fd for `events` (0 = registered, waits for nothing) when that differs from *current. */
static int shim_ep_set(shim_t *shim, int fd, uint32_t events, uint32_t *current) {
    if (events == *current) {
        return 0;
    }
    struct epoll_event ev = {.events = events, .data.fd = fd};
    if (epoll_ctl(shim->ep_fd, EPOLL_CTL_MOD, fd, &ev) < 0) {
        return -1;
    }
    *current = events;
    return 0;
}

/**
 * Puts tx_fd into ep_fd for POLLOUT while the card is blocked on it, and takes it out otherwise. Kept registered with no
 * events, the socket's wait queue would hold epoll's entry, and the kernel would take and release that entry's lock
 * with interrupts off for every frame it frees after sending (sock_def_write_space): on a veth, about a tenth of a
 * microsecond per frame for nothing. Blocked rounds are rare, so the two epoll_ctl calls are too.
 */
static int shim_ep_tx(shim_t *shim, int blocked) {
    uint32_t want = blocked ? EPOLLOUT : 0;
    if (want == shim->ep_tx) {
        return 0;
    }
    struct epoll_event ev = {.events = want, .data.fd = shim->tx_fd};
    if (epoll_ctl(shim->ep_fd, want != 0 ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, shim->tx_fd, &ev) < 0) {
        return -1;
    }
    shim->ep_tx = want;
    return 0;
}

/**
 * Whether the kernel may have dropped RX frames since PACKET_STATISTICS was last read (see "Who counts what"): frames
 * were left in the ring (for want of room in the card, or still pending), or the card took at least a ring's worth,
 * which it must have done before the ring is empty again if the ring was ever full after the read.
 */
static int shim_kstats_may_be_stale(const shim_t *shim) {
    if (shim->rx_fd < 0) {
        return 0;
    }
    if (shim->xdp) {
        return shim->kstats_held || shim->kstats_taken >= shim->xsk.rx_frames
            || (shim->kstats_taken != 0 && shim_xsk_rx_ready(&shim->xsk) != 0);
    }
    const shim_ring_t *ring = &shim->rx;
    if (shim->kstats_held || shim->kstats_taken >= ring->frames) {
        return 1;
    }
    /* Acquire, as in shim_receive: a frame pending at the head means the ring is not known to be empty. */
    return shim->kstats_taken != 0
        && (shim_load_acquire(&shim_ring_slot(ring, ring->head)->tp_status) & TP_STATUS_USER) != 0;
}

/**
 * Waits (lock released) until `until` or the card's next timer, for a kick, a received frame (unless the card
 * refused one), TX room (if the card found the ring or socket full) or a flush retry. `now` is a recent clock
 * reading (the poll's start for its first wait). Returns with the lock held.
 *
 * The usual poller waits in epoll_wait on ep_fd, where every fd but TX stays registered from start to stop: nothing
 * is set up or torn down per wait (ppoll re-registered each fd and armed and cancelled a timer on every call). Its
 * deadline is a timerfd in the same set, armed only when the wait must end earlier than it is armed for, or after it
 * fired: a driver that waits with the same timeout again and again re-arms it once per timeout, and a wait ended
 * early by a stale, earlier deadline only loops once (nicshim_poll re-reads the clock and waits on). The RX socket,
 * the eventfd and the timerfd are edge-triggered: the kernel's wake-up callback runs on every frame, eventfd write
 * and expiry, and epoll re-checks readiness before it reports, so an edge is never stale and never lost; only frames
 * already in the ring without a new wake-up would be missed, and those are the ones the receive loop left on its
 * budget (rx_more: no sleep at all). Neither the eventfd nor the timerfd needs a read (arming resets the timerfd).
 * The TX socket is level-triggered, registered for POLLOUT only while the card is blocked on it.
 *
 * epoll wakes one waiter per event and the timerfd has one deadline, so only one poller at a time waits there
 * (ep_waiter). A second, concurrent poller (two threads pumping one inline card) waits as every poller did before:
 * ppoll on the eventfd, the RX socket and (when blocked) the TX socket with its own timeout, reading the eventfd when
 * it fired. Its read does not hide a kick from the epoll waiter: the kick is in `kicks`, which either poller's next
 * round handles, exactly as when two ppoll waiters raced for it.
 */
static int32_t shim_wait(shim_t *shim, uint64_t until, uint64_t now) {
    if (shim->rx_more) {
        return NICSHIM_OK;
    }
    uint64_t wake = until;
    if (shim->ops->next_deadline != NULL) {
        uint64_t deadline = shim->ops->next_deadline(shim->card);
        wake = deadline < wake ? deadline : wake;
    }
    if (shim->tx_retry && shim->tx_retry_at < wake) {
        wake = shim->tx_retry_at;
    }
    if (shim->fault_rx_held != 0 && shim->fault_rx_until < wake) {
        wake = shim->fault_rx_until;
    }
    if (shim->fault_tx_held != 0 && shim->fault_tx_until < wake) {
        wake = shim->fault_tx_until;
    }
    if (wake <= now) {
        return NICSHIM_OK;
    }
    if (shim_kstats_may_be_stale(shim)) {
        /* The rounds since the last read skipped it (at most one per SHIM_KSTATS_NS) and the card may sleep long:
         * read the kernel's drops now, so that an idle card's counters are exact, not late by a sleep. */
        shim_kernel_stats(shim, shim_coarse_ns(), 1);
    }
    int on_ep = !shim->ep_waiter;
    struct pollfd fds[3];
    nfds_t n = 0;
    if (on_ep) {
        if (shim_ep_set(shim, shim->rx_fd, shim->rx_held ? 0 : EPOLLIN | EPOLLET, &shim->ep_rx) < 0 ||
            shim_ep_tx(shim, shim->tx_blocked) < 0) {
            return NICSHIM_ERR_SYSTEM;
        }
        if (shim->timer_at <= now || shim->timer_at > wake) {
            struct itimerspec at = {.it_value = {.tv_sec = (time_t)(wake / 1000000000ull),
                                                 .tv_nsec = (long)(wake % 1000000000ull)}};
            if (timerfd_settime(shim->timer_fd, TFD_TIMER_ABSTIME, &at, NULL) < 0) {
                return NICSHIM_ERR_SYSTEM;
            }
            shim->timer_at = wake;
        }
    } else {
        fds[n++] = (struct pollfd){.fd = shim->event_fd, .events = POLLIN};
        if (!shim->rx_held) {
            fds[n++] = (struct pollfd){.fd = shim->rx_fd, .events = POLLIN};
        }
        if (shim->tx_blocked) {
            fds[n++] = (struct pollfd){.fd = shim->tx_fd, .events = POLLOUT};
        }
    }
    struct timespec ts = {.tv_sec = (time_t)((wake - now) / 1000000000ull),
                          .tv_nsec = (long)((wake - now) % 1000000000ull)};
    int32_t rc = NICSHIM_OK;
    /* Dekker, poller side: announce the sleep, then look for kicks (both seq_cst). */
    __atomic_add_fetch(&shim->sleeping, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&shim->kicks, __ATOMIC_SEQ_CST) == 0) {
        struct epoll_event ready[4];
        shim->ep_waiter |= on_ep;
        pthread_mutex_unlock(&shim->lock);
        int r = on_ep ? epoll_wait(shim->ep_fd, ready, 4, -1) : ppoll(fds, n, &ts, NULL);
        int err = errno;
        pthread_mutex_lock(&shim->lock);
        if (on_ep) {
            shim->ep_waiter = 0;
        }
        if (r < 0 && err != EINTR) {
            rc = NICSHIM_ERR_SYSTEM;
        }
        if (!on_ep && r > 0 && (fds[0].revents & POLLIN) != 0) {
            uint64_t count;
            ssize_t got = read(shim->event_fd, &count, sizeof(count));
            (void)got;
        }
    }
    __atomic_sub_fetch(&shim->sleeping, 1, __ATOMIC_SEQ_CST);
    return rc;
}

int32_t nicshim_poll(nicshim_t *shim, int64_t timeout_ns) {
    if (shim == NULL || timeout_ns < 0 || timeout_ns > NICSHIM_POLL_MAX_TIMEOUT_NS) {
        return NICSHIM_ERR_INVALID;
    }
    if (shim->direct) {
        return shim_direct_poll(shim, timeout_ns);
    }
    pthread_mutex_lock(&shim->lock);
    if (!__atomic_load_n(&shim->running, __ATOMIC_RELAXED)) {
        pthread_mutex_unlock(&shim->lock);
        return NICSHIM_ERR_STATE;
    }
    shim_count(shim, SHIM_STAT_POLLS, 1);
    /* The clock is read only by a poll that may wait: once at the start, and again only after a wait that ended
     * without events (see shim_wait). */
    uint64_t now = timeout_ns > 0 ? shim_now_ns() : 0;
    uint64_t until = now + (uint64_t)timeout_ns;
    int32_t rc = NICSHIM_OK;
    uint32_t events = shim_work(shim);
    /* A handled kick ends the wait (the doorbell's promise), even when the card found nothing to do. An asserted
     * interrupt line does not: it stays high until the driver acknowledges, and the driver waits on its own copy
     * of the line, so a card thread that returned at once while it is high would only spin on a busy core. */
    while (events == 0 && !shim->kicked && timeout_ns > 0 && now < until) {
        rc = shim_wait(shim, until, now);
        if (rc != NICSHIM_OK) {
            break;
        }
        if (!__atomic_load_n(&shim->running, __ATOMIC_RELAXED)) {
            rc = NICSHIM_ERR_STATE; /* stopped by another thread while we waited */
            break;
        }
        events = shim_work(shim);
        if (events == 0 && !shim->kicked) {
            now = shim_now_ns(); /* woken without events (an earlier deadline, a register write): wait on? */
        }
    }
    if (rc == NICSHIM_OK) {
        events |= shim_irq_sample(shim);
    }
    pthread_mutex_unlock(&shim->lock);
    return rc != NICSHIM_OK ? rc : (int32_t)events;
}
