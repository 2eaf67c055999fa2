/*
 * nicshim.h - C API of the nicbridge native driver shim.
 *
 * The shim serves one card contract (dec21140.h, or sba200_unet.h carried over Ethernet) on a
 * real Linux network interface: Java allocates the card's register window and every DMA-able
 * region as pinned off-heap memory, hands them to the shim, and from then on both sides work on
 * the same bytes - Java as the driver, the shim as the card. Frames move through AF_PACKET with
 * PACKET_MMAP rings, or (ABI 1.2) through an AF_XDP socket whose UMEM is Java's memory (see "AF_XDP" below;
 * ARCHITECTURE.md, "Backends"). This header only defines the API; the
 * implementation lives next to it in native-headers.
 *
 * Rules of the API
 *  - Every function returns 0 or a non-negative value on success and a negative NICSHIM_ERR_*
 *    code on failure; nicshim_strerror() turns a code into text. Bad input is rejected with an
 *    error, never by crashing: the shim touches only the memory it was given.
 *  - The card never dereferences a bus address directly: every descriptor or buffer address is
 *    translated through the DMA regions registered with nicshim_add_dma_region(); an address
 *    (plus length) not wholly inside one region is a bus error, reported the card's way
 *    (21140: CSR5.FBE with EB = master abort; U-Net: descriptor error status) and counted in
 *    nicshim_stats_t.bus_errors.
 *  - Threads: every call except nicshim_open() and nicshim_close() may come from any thread at any
 *    time, as a real card's registers may. The shim serialises card work with one internal lock
 *    that nicshim_poll() releases while it waits, so a driver thread's register accesses proceed
 *    while another thread waits in poll (ABI 1.1; 1.0 asked callers to serialise). nicshim_kick()
 *    and nicshim_get_stats() never take that lock. nicshim_close() must not race any other call.
 *  - Ownership handoffs inside the shared memory follow the card contract: the writer stores the
 *    payload first and the ownership word last with release; the reader loads it with acquire.
 *
 * Naming: constants NICSHIM_*, types nicshim_*_t, functions nicshim_*. All structs are in host
 * byte order (this header has no byte-order marker) and use fixed-width fields only.
 */
#ifndef NICBRIDGE_NICSHIM_H
#define NICBRIDGE_NICSHIM_H

#include <stddef.h>
#include <stdint.h>

/* ============================================================================================
 * ABI version: major in bits 31:16, minor in bits 15:0. A library is usable when its major
 * equals NICSHIM_ABI_VERSION_MAJOR and its minor is >= the header's minor.
 * ========================================================================================== */

#define NICSHIM_ABI_VERSION_MAJOR 1
#define NICSHIM_ABI_VERSION_MINOR 4
#define NICSHIM_ABI_VERSION       (0x00010004u)
#define NICSHIM_ABI_MAJOR_SHIFT   16
#define NICSHIM_ABI_MAJOR_MASK    (0xFFFFu << 16)
#define NICSHIM_ABI_MINOR_SHIFT   0
#define NICSHIM_ABI_MINOR_MASK    (0xFFFFu << 0)

/* ============================================================================================
 * Error codes (negative; 0 = success)
 * ========================================================================================== */

#define NICSHIM_OK                 0
#define NICSHIM_ERR_INVALID       (-1)  /* a NULL pointer, zero length or out-of-range argument */
#define NICSHIM_ERR_NOMEM         (-2)  /* the shim could not allocate its own state */
#define NICSHIM_ERR_NO_DEVICE     (-3)  /* no network interface of that name */
#define NICSHIM_ERR_PERMISSION    (-4)  /* AF_PACKET needs CAP_NET_RAW */
#define NICSHIM_ERR_SYSTEM        (-5)  /* another system call failed (socket, mmap, poll, ...) */
#define NICSHIM_ERR_CARD_KIND     (-6)  /* unknown NICSHIM_CARD_* value */
#define NICSHIM_ERR_ABI           (-7)  /* options.size does not match this library's struct */
#define NICSHIM_ERR_STATE         (-8)  /* call not allowed in the current state (see each call) */
#define NICSHIM_ERR_WINDOW        (-9)  /* window range unknown, length wrong or misaligned */
#define NICSHIM_ERR_DMA_OVERLAP   (-10) /* DMA region overlaps a registered region (bus or host) */
#define NICSHIM_ERR_DMA_FULL      (-11) /* already NICSHIM_MAX_DMA_REGIONS regions */
#define NICSHIM_ERR_NOT_FOUND     (-12) /* no DMA region with that id */
#define NICSHIM_ERR_MTU           (-13) /* interface MTU too small for the card's largest frame */
#define NICSHIM_ERR_REGISTER      (-14) /* register offset outside the window or not 4-aligned */
#define NICSHIM_ERR_IFACE_DOWN    (-15) /* the interface is administratively down */
#define NICSHIM_ERR_XDP_BUSY      (-16) /* AF_XDP: another XDP program (not ours) is attached, or the queue is taken */
#define NICSHIM_ERR_XDP_UNSUPPORTED (-17) /* AF_XDP: the kernel or driver refuses the requested mode or the socket */
#define NICSHIM_ERR_UMEM          (-18) /* AF_XDP: no UMEM set, or it is misaligned / too small for the rings */
/** The most negative code defined; codes below it are unknown to this ABI version. */
#define NICSHIM_ERR_MIN           (-18)

/* ============================================================================================
 * Card kinds
 * ========================================================================================== */

/** DEC 21140 (dec21140.h): one register range of 128 bytes; frames are plain Ethernet. */
#define NICSHIM_CARD_DEC21140       1u
/**
 * Fore SBA-200 with U-Net firmware (sba200_unet.h) whose ATM link is carried over Ethernet:
 * every AAL5 PDU travels as one Ethernet frame tagged with its cell header (see "U-Net over
 * Ethernet" below). Two register ranges: BCR (4 bytes) and board RAM (0x40000 bytes).
 */
#define NICSHIM_CARD_SBA200_UNET_ETH 2u
/**
 * (ABI 1.3) No card: the caller is the user-space side of the AF_XDP socket's four rings itself - a direct-access
 * U-Net endpoint whose free / receive / send queues are FILL / RX / TX and whose send completions are COMPLETION
 * (AF_XDP backend only, else NICSHIM_ERR_CARD_KIND). No register ranges. nicshim_start() opens the socket with
 * every ring empty (the caller posts its receive chunks on FILL) and the shim never touches a ring again:
 * nicshim_kick(NICSHIM_KICK_TX) makes the kernel transmit what the caller put on TX (sendto MSG_DONTWAIT, in the
 * calling thread; copy mode sends there and then), and nicshim_poll() only waits (poll() on the socket, without the
 * state lock) until RX holds a frame, returning NICSHIM_EV_RX, or 0 at the timeout. Since one thread owns the rings,
 * kick and poll on this kind must not race nicshim_stop() (as no call may race nicshim_close()). Frames are whatever
 * the caller writes: the U-Net over Ethernet format below is the caller's business.
 */
#define NICSHIM_CARD_XSK_DIRECT      3u

/* Register window ranges, per card kind (the `range` argument of nicshim_attach_window). */
#define NICSHIM_RANGE_DEC21140_CSR   0u
#define NICSHIM_RANGE_SBA200_BCR     0u
#define NICSHIM_RANGE_SBA200_RAM     1u
/* Required lengths of those ranges (mirror dec21140.h / sba200_unet.h; asserted by the tests). */
#define NICSHIM_DEC21140_CSR_WINDOW_SIZE 128
#define NICSHIM_SBA200_BCR_SIZE          4
#define NICSHIM_SBA200_RAM_SIZE          (0x40000)
/** Every window range must be aligned to this (all register accesses are 32-bit). */
#define NICSHIM_WINDOW_ALIGN             8

/* ============================================================================================
 * U-Net over Ethernet [P]
 *
 * One AAL5 PDU per Ethernet frame (no cells, no AAL5 trailer: the Ethernet FCS protects the
 * data). The frame is
 *
 *   +--------+--------+-----------+---------------------+-------------+---------+-------------+
 *   | DA (6) | SA (6) | type (2)  | tag: cell header    | PDU length  | 0 (2)   | PDU payload |
 *   |        |        | ethertype | word, BE (4)        | BE (2)      |         | (<= MTU-8)  |
 *   +--------+--------+-----------+---------------------+-------------+---------+-------------+
 *   0        6        12          14                    18            20        22
 *
 * The tag's first word is the first cell header of the PDU without HEC (GFC 0, VPI, VCI,
 * PTI = 001, CLP 0), laid out as sba200_unet.h's SBA200_UNET_HDR_* fields, so the receiving shim
 * demultiplexes on VCI exactly as the card does. The length is needed because Ethernet pads
 * frames shorter than 60 bytes: the receiver takes exactly `PDU len` bytes and ignores any pad;
 * a length larger than the frame carries is a malformed frame (rx_drop_bad_frame). The last two
 * tag bytes are 0 (receivers ignore them). A PDU longer than MTU - 8 completes with send status
 * TOO_LONG. (ABI 1.1: ABI 1.0 defined a 4-byte tag with no length, which padding made ambiguous.)
 * ========================================================================================== */

/** IEEE 802 "local experimental" EtherType 1, the default tag type. */
#define NICSHIM_UNET_ETHERTYPE_DEFAULT (0x88B5u)
#define NICSHIM_UNET_TAG_SIZE          8
#define NICSHIM_UNET_TAG_HEADER_OFFSET 0
#define NICSHIM_UNET_TAG_LENGTH_OFFSET 4
#define NICSHIM_UNET_ETH_HEADER_SIZE   14

/* ============================================================================================
 * Options for nicshim_open()
 *
 *   0x00 size            sizeof(nicshim_options_t): the ABI check (40, the ABI 1.1 layout without the
 *                        fields from 0x28 on, is accepted too and means AF_PACKET)
 *   0x04 flags           NICSHIM_OPT_*
 *   0x08 rx_ring_frames  RX ring frames (0 = 256; power of two). AF_XDP: the RX and FILL ring size
 *   0x0C tx_ring_frames  TX ring frames (0 = 256; power of two). AF_XDP: the TX and COMPLETION ring size
 *   0x10 frame_size      PACKET_MMAP frame size in bytes (0 = 2048; multiple of 16).
 *                        AF_XDP: the UMEM chunk size, 2048 or 4096 (0 = 2048)
 *   0x14 poll_budget     max frames moved per direction per nicshim_poll() (0 = 64)
 *   0x18 unet_ethertype  SBA200_UNET_ETH: tag EtherType (0 = NICSHIM_UNET_ETHERTYPE_DEFAULT)
 *   0x1A reserved0       must be 0
 *   0x1C unet_dst_mac    SBA200_UNET_ETH: destination MAC (all zero = broadcast)
 *   0x22 reserved1       must be 0
 *   0x28 backend         NICSHIM_BACKEND_* (ABI 1.2; 0 = AF_PACKET)
 *   0x2C xdp_queue       AF_XDP: the interface's queue id the socket binds to
 *   0x30 xdp_flags       AF_XDP: NICSHIM_XDP_BIND_* | NICSHIM_XDP_ATTACH_*
 *   0x34 busy_poll_us    AF_XDP: SO_BUSY_POLL on the socket, microseconds (0 = off)
 *   0x38 (size)
 * ========================================================================================== */

typedef struct nicshim_options {
    uint32_t size;
    uint32_t flags;
    uint32_t rx_ring_frames;
    uint32_t tx_ring_frames;
    uint32_t frame_size;
    uint32_t poll_budget;
    uint16_t unet_ethertype;
    uint16_t reserved0;
    uint8_t unet_dst_mac[6];
    uint8_t reserved1[6];
    uint32_t backend;
    uint32_t xdp_queue;
    uint32_t xdp_flags;
    uint32_t busy_poll_us;
} nicshim_options_t;

_Static_assert(sizeof(nicshim_options_t) == 56, "nicshim_options_t must be 56 bytes");
_Static_assert(offsetof(nicshim_options_t, flags) == 4, "flags at 0x04");
_Static_assert(offsetof(nicshim_options_t, poll_budget) == 0x14, "poll_budget at 0x14");
_Static_assert(offsetof(nicshim_options_t, unet_ethertype) == 0x18, "unet_ethertype at 0x18");
_Static_assert(offsetof(nicshim_options_t, unet_dst_mac) == 0x1C, "unet_dst_mac at 0x1C");
_Static_assert(offsetof(nicshim_options_t, reserved1) == 0x22, "reserved1 at 0x22");
_Static_assert(offsetof(nicshim_options_t, backend) == 0x28, "backend at 0x28");
_Static_assert(offsetof(nicshim_options_t, busy_poll_us) == 0x34, "busy_poll_us at 0x34");

/** options.size of the ABI 1.1 layout (no backend fields): still accepted, as AF_PACKET. */
#define NICSHIM_OPTIONS_SIZE_V1_1 40

#define NICSHIM_OPT_PROMISC        (1u << 0) /* put the interface in promiscuous mode while open */
#define NICSHIM_OPT_QDISC_BYPASS   (1u << 1) /* PACKET_QDISC_BYPASS on the TX socket */
/**
 * Transmit with send() instead of through a PACKET_MMAP TX ring (ABI 1.1 addition; unknown to a library without it,
 * which rejects the flag with NICSHIM_ERR_INVALID): the frames one card round assembles go out at its end with one
 * send() (one frame) or one sendmmsg() (several: a doorbell that hands the card a burst costs one system call). The
 * ring's slots are user pages the kernel sends zero-copy, so a receiver that keeps the frame (a veth peer, a packet
 * socket) makes the kernel copy them again; send() copies once into a linear buffer. Best on virtual links;
 * tx_ring_frames is then unused. Frames the socket has no room for (EAGAIN) stay with the shim, which retries them
 * (the card sees back-pressure once a round's worth waits); a frame the kernel dropped after taking it (ENOBUFS: a
 * full device queue) counts in tx_drop_kernel.
 */
#define NICSHIM_OPT_TX_SEND        (1u << 2)
#define NICSHIM_OPT_ALL            (0x7u)

#define NICSHIM_DEFAULT_RING_FRAMES 256
#define NICSHIM_DEFAULT_FRAME_SIZE  2048
#define NICSHIM_DEFAULT_POLL_BUDGET 64

/* ============================================================================================
 * AF_XDP (ABI 1.2)
 *
 * With options.backend = NICSHIM_BACKEND_AF_XDP the card's frames move through one AF_XDP socket bound to
 * (interface, options.xdp_queue) instead of PACKET_MMAP rings. The UMEM - the memory every frame lives in,
 * U-Net's communication segment - is the caller's: nicshim_set_umem() hands over a page-aligned region before
 * nicshim_start(), which registers it with the kernel (XDP_UMEM_REG; the kernel pins its pages). It is cut into
 * chunks of options.frame_size bytes:
 *
 *   chunk 0 .. rx_ring_frames-1                       receive chunks: on the FILL ring, the RX ring, or in the card
 *   chunk rx_ring_frames .. +tx_ring_frames-1         transmit chunks: free, on the TX ring, or on COMPLETION
 *
 * so it must hold at least (rx_ring_frames + tx_ring_frames) chunks. A received frame is read by the card in place
 * (XDP delivers it at chunk + 256: XDP_PACKET_HEADROOM), a transmitted one is assembled by the card in place; no
 * frame is copied between a shim buffer and the UMEM.
 *
 * nicshim_start() loads a six-instruction XDP program through the bpf() syscall -
 *   return bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS);
 * named "nicshim_xsk", with a one-slot-per-queue XSKMAP - and attaches it with a BPF link (BPF_LINK_CREATE): the
 * kernel detaches it when the link's last fd closes, so nicshim_stop(), nicshim_close() and a killed process all
 * remove it. A program named "nicshim_xsk" attached the old way (netlink: it outlives its process) is stale and is
 * replaced; any other program already on the interface is left alone and start fails with NICSHIM_ERR_XDP_BUSY.
 * Native (driver) XDP is tried first and generic (SKB) XDP where the driver has none (NICSHIM_XDP_ATTACH_AUTO);
 * the bind asks for zero-copy and takes copy mode where the driver has none (NICSHIM_XDP_BIND_AUTO).
 * nicshim_get_xdp_info() reports what was obtained and where the four rings are mapped.
 * Needs CAP_NET_RAW (the socket), CAP_BPF + CAP_NET_ADMIN or CAP_SYS_ADMIN (map and program), and
 * RLIMIT_MEMLOCK room for the UMEM unless CAP_IPC_LOCK.
 * ========================================================================================== */

#define NICSHIM_BACKEND_AF_PACKET 0u
#define NICSHIM_BACKEND_AF_XDP    1u

/* options.xdp_flags: how the socket binds (bits 1:0) and how the program attaches (bits 3:2). */
#define NICSHIM_XDP_BIND_MASK      (0x3u)
#define NICSHIM_XDP_BIND_AUTO      (0x0u)  /* zero-copy where the driver has it, else copy */
#define NICSHIM_XDP_BIND_COPY      (0x1u)  /* XDP_COPY */
#define NICSHIM_XDP_BIND_ZEROCOPY  (0x2u)  /* XDP_ZEROCOPY: NICSHIM_ERR_XDP_UNSUPPORTED where the driver has none */
#define NICSHIM_XDP_ATTACH_MASK    (0xCu)
#define NICSHIM_XDP_ATTACH_AUTO    (0x0u)  /* native (driver) XDP, else generic */
#define NICSHIM_XDP_ATTACH_NATIVE  (0x4u)  /* XDP_FLAGS_DRV_MODE only */
#define NICSHIM_XDP_ATTACH_GENERIC (0x8u)  /* XDP_FLAGS_SKB_MODE only */
#define NICSHIM_XDP_FLAGS_ALL      (0xFu)

/* nicshim_xdp_info_t.attach_mode / bind_mode: what was obtained (0 = not running). */
#define NICSHIM_XDP_ATTACHED_NATIVE  1u
#define NICSHIM_XDP_ATTACHED_GENERIC 2u
#define NICSHIM_XDP_BOUND_COPY       1u
#define NICSHIM_XDP_BOUND_ZEROCOPY   2u

/** The XDP program's name (BPF_OBJ_NAME_LEN 16 with the NUL). */
#define NICSHIM_XDP_PROG_NAME "nicshim_xsk"
/** Where a received frame starts inside its chunk (XDP_PACKET_HEADROOM; the UMEM headroom is 0). */
#define NICSHIM_XDP_RX_OFFSET 256

/* ============================================================================================
 * One mapped AF_XDP ring, as the kernel lays it out (offsets from XDP_MMAP_OFFSETS, host addresses here):
 *
 *   0x00 producer  address of the u32 producer index (free-running; slot = index & (size - 1))
 *   0x08 consumer  address of the u32 consumer index
 *   0x10 flags     address of the u32 flags word (XDP_RING_NEED_WAKEUP)
 *   0x18 desc      address of entry 0: struct xdp_desc {u64 addr; u32 len; u32 options} (RX, TX) or u64 addr
 *                  (FILL, COMPLETION)
 *   0x20 size      entries (a power of two)
 *   0x24 entry_size 16 (RX, TX) or 8 (FILL, COMPLETION)
 *
 * The producer side writes entries, then stores the producer index with release; the consumer loads it with
 * acquire, reads the entries, then stores the consumer index with release. While the shim runs the card it is
 * the user-space side of all four rings: these addresses are for observation (tests, diagnostics) only.
 * ========================================================================================== */

typedef struct nicshim_xsk_ring {
    uint64_t producer;
    uint64_t consumer;
    uint64_t flags;
    uint64_t desc;
    uint32_t size;
    uint32_t entry_size;
} nicshim_xsk_ring_t;

_Static_assert(sizeof(nicshim_xsk_ring_t) == 40, "nicshim_xsk_ring_t must be 40 bytes");

/* ============================================================================================
 * AF_XDP state (nicshim_get_xdp_info)
 *
 *   0x00 attach_mode  NICSHIM_XDP_ATTACHED_*     0x18 umem_base     host address of the UMEM
 *   0x04 bind_mode    NICSHIM_XDP_BOUND_*        0x20 umem_length   bytes
 *   0x08 queue        queue id bound             0x28 fill, 0x50 rx, 0x78 tx, 0xA0 completion (nicshim_xsk_ring_t)
 *   0x0C prog_id      the program's kernel id    0xC8 rx_dropped .. 0xF0 tx_ring_empty_descs: XDP_STATISTICS
 *   0x10 chunk_size   UMEM chunk bytes           0xF8 (size)
 *   0x14 flags        NICSHIM_XDP_INFO_*
 * ========================================================================================== */

typedef struct nicshim_xdp_info {
    uint32_t attach_mode;
    uint32_t bind_mode;
    uint32_t queue;
    uint32_t prog_id;
    uint32_t chunk_size;
    uint32_t flags;
    uint64_t umem_base;
    uint64_t umem_length;
    nicshim_xsk_ring_t fill;
    nicshim_xsk_ring_t rx;
    nicshim_xsk_ring_t tx;
    nicshim_xsk_ring_t completion;
    uint64_t rx_dropped;
    uint64_t rx_invalid_descs;
    uint64_t tx_invalid_descs;
    uint64_t rx_ring_full;
    uint64_t rx_fill_ring_empty_descs;
    uint64_t tx_ring_empty_descs;
} nicshim_xdp_info_t;

_Static_assert(sizeof(nicshim_xdp_info_t) == 0xF8, "nicshim_xdp_info_t must be 248 bytes");
_Static_assert(offsetof(nicshim_xdp_info_t, umem_base) == 0x18, "umem_base at 0x18");
_Static_assert(offsetof(nicshim_xdp_info_t, fill) == 0x28, "fill at 0x28");
_Static_assert(offsetof(nicshim_xdp_info_t, completion) == 0xA0, "completion at 0xA0");
_Static_assert(offsetof(nicshim_xdp_info_t, rx_dropped) == 0xC8, "rx_dropped at 0xC8");

#define NICSHIM_XDP_INFO_RUNNING     (1u << 0) /* the socket is open (between start and stop) */
#define NICSHIM_XDP_INFO_BUSY_POLL   (1u << 1) /* SO_BUSY_POLL was accepted on the socket */
/* Our program is no longer on the interface (detached through its BPF link by someone else, or the interface was
 * deleted): the interface's frames go to the stack and the socket receives nothing. Read from the link when the
 * info is taken. */
#define NICSHIM_XDP_INFO_DETACHED    (1u << 2)

/* ============================================================================================
 * Interface information
 *
 *   0x00 card_kind  0x04 ifindex  0x08 mtu  0x0C flags (NICSHIM_INFO_*)  0x10 mac[6] 0x16 pad[2]
 * ========================================================================================== */

typedef struct nicshim_info {
    uint32_t card_kind;
    uint32_t ifindex;
    uint32_t mtu;
    uint32_t flags;
    uint8_t mac[6];
    uint8_t reserved[2];
} nicshim_info_t;

_Static_assert(sizeof(nicshim_info_t) == 24, "nicshim_info_t must be 24 bytes");
_Static_assert(offsetof(nicshim_info_t, flags) == 12, "flags at 0x0C");
_Static_assert(offsetof(nicshim_info_t, mac) == 16, "mac at 0x10");

#define NICSHIM_INFO_LINK_UP (1u << 0) /* carrier present */
#define NICSHIM_INFO_RUNNING (1u << 1) /* between nicshim_start() and nicshim_stop() */

/* ============================================================================================
 * Statistics: counters since nicshim_open(), all uint64_t, monotonic
 *
 *   0x00 tx_frames            0x40 rx_drop_too_long       0x80 kicks
 *   0x08 tx_bytes             0x48 rx_drop_bad_frame      0x88 polls
 *   0x10 rx_frames            0x50 rx_drop_no_channel     0x90 interrupts
 *   0x18 rx_bytes             0x58 tx_drop_too_long       0x98 card_errors
 *   0x20 rx_missed            0x60 tx_drop_kernel         0xA0 fault_drops      (ABI 1.4)
 *   0x28 rx_drop_filter       0x68 tx_bad_descriptor      0xA8 fault_duplicates (ABI 1.4)
 *   0x30 rx_drop_kernel       0x70 bus_errors             0xB0 fault_reorders   (ABI 1.4)
 *   0x38 rx_drop_truncated    0x78 link_changes           0xB8 fault_corrupts   (ABI 1.4)
 *
 * rx_missed: frames dropped because the card had no card-owned descriptor / free buffer /
 * receive-queue slot (21140 CSR8 missed frames; U-Net RQ full or no free buffer).
 * rx_drop_kernel: frames the kernel dropped before the shim saw them (PACKET_STATISTICS).
 * rx_drop_truncated: frames longer than the PACKET_MMAP frame. rx_drop_bad_frame: runts and
 * malformed tags. rx_drop_no_channel: U-Net tag with no open channel for its VCI.
 * tx_drop_kernel: frames the kernel refused (send error or TX ring full after the budget).
 * tx_bad_descriptor: descriptors rejected by the card's checks (lengths, segment bounds).
 * bus_errors: DMA addresses outside every registered region. card_errors: other card-visible
 * error completions. interrupts: rising edges of the card's interrupt line.
 * fault_*: frames the fault injector (nicshim_set_faults) dropped, duplicated, held back or corrupted, both
 * directions together; 0 while it is off. (ABI 1.3 had reserved[4], always 0, at 0xA0.)
 * ========================================================================================== */

typedef struct nicshim_stats {
    uint64_t tx_frames;
    uint64_t tx_bytes;
    uint64_t rx_frames;
    uint64_t rx_bytes;
    uint64_t rx_missed;
    uint64_t rx_drop_filter;
    uint64_t rx_drop_kernel;
    uint64_t rx_drop_truncated;
    uint64_t rx_drop_too_long;
    uint64_t rx_drop_bad_frame;
    uint64_t rx_drop_no_channel;
    uint64_t tx_drop_too_long;
    uint64_t tx_drop_kernel;
    uint64_t tx_bad_descriptor;
    uint64_t bus_errors;
    uint64_t link_changes;
    uint64_t kicks;
    uint64_t polls;
    uint64_t interrupts;
    uint64_t card_errors;
    uint64_t fault_drops;
    uint64_t fault_duplicates;
    uint64_t fault_reorders;
    uint64_t fault_corrupts;
} nicshim_stats_t;

_Static_assert(sizeof(nicshim_stats_t) == 192, "nicshim_stats_t must be 192 bytes");
_Static_assert(offsetof(nicshim_stats_t, rx_missed) == 0x20, "rx_missed at 0x20");
_Static_assert(offsetof(nicshim_stats_t, bus_errors) == 0x70, "bus_errors at 0x70");
_Static_assert(offsetof(nicshim_stats_t, card_errors) == 0x98, "card_errors at 0x98");
_Static_assert(offsetof(nicshim_stats_t, fault_drops) == 0xA0, "fault_drops at 0xA0");
_Static_assert(offsetof(nicshim_stats_t, fault_corrupts) == 0xB8, "fault_corrupts at 0xB8");

/* ============================================================================================
 * Fault injection (ABI 1.4): the link misbehaving on purpose, to test protocols against a real peer
 *
 * The shim can drop, duplicate, reorder or corrupt the frames it moves between the card and the interface, in
 * either direction, on both backends (AF_PACKET and AF_XDP; not NICSHIM_CARD_XSK_DIRECT, whose frames the shim
 * never sees). Every frame of a direction that is on draws one number from that direction's generator (seeded
 * from `seed`, so a seed gives the same sequence of decisions for the same sequence of frames) and suffers at most
 * one fault, with the probabilities below in parts per million (their sum at most 1000000):
 *   drop       the frame vanishes (TX: the card completed it; RX: the card never sees it)
 *   duplicate  the frame goes on twice, back to back (TX: when the ring has room for the copy, else only once and
 *              not counted)
 *   reorder    the frame is held back and goes on right after the next frame of its direction, or after
 *              NICSHIM_FAULT_HOLD_NS when no frame follows (one frame held at a time; a frame drawn for reorder
 *              while one is held passes unharmed and is not counted)
 *   corrupt    one byte after the 14-byte Ethernet header (any byte of a shorter frame) is inverted, so the
 *              frame still reaches the peer and its checksums must catch it
 * Each injected fault is counted in nicshim_stats_t.fault_*. A frame held back when the shim stops is lost.
 *
 *   0x00 size           sizeof(nicshim_faults_t) (32): the ABI check
 *   0x04 directions     NICSHIM_FAULT_RX | NICSHIM_FAULT_TX (0 = off)
 *   0x08 seed           any value (the RX and TX generators are derived from it differently)
 *   0x10 drop_ppm       0x14 duplicate_ppm       0x18 reorder_ppm       0x1C corrupt_ppm
 *   0x20 (size)
 * ========================================================================================== */

typedef struct nicshim_faults {
    uint32_t size;
    uint32_t directions;
    uint64_t seed;
    uint32_t drop_ppm;
    uint32_t duplicate_ppm;
    uint32_t reorder_ppm;
    uint32_t corrupt_ppm;
} nicshim_faults_t;

_Static_assert(sizeof(nicshim_faults_t) == 32, "nicshim_faults_t must be 32 bytes");
_Static_assert(offsetof(nicshim_faults_t, seed) == 0x08, "seed at 0x08");
_Static_assert(offsetof(nicshim_faults_t, drop_ppm) == 0x10, "drop_ppm at 0x10");
_Static_assert(offsetof(nicshim_faults_t, corrupt_ppm) == 0x1C, "corrupt_ppm at 0x1C");

#define NICSHIM_FAULT_RX          (1u << 0) /* frames from the interface to the card */
#define NICSHIM_FAULT_TX          (1u << 1) /* frames from the card to the interface */
#define NICSHIM_FAULT_DIRECTIONS  (0x3u)
/** The probabilities' unit: 1000000 ppm = every frame. */
#define NICSHIM_FAULT_PPM_ONE     1000000u
/** How long a frame held back for reordering waits for a follower before it goes on alone: 1 ms. */
#define NICSHIM_FAULT_HOLD_NS     1000000

/* ============================================================================================
 * Kicks (doorbells) and events
 * ========================================================================================== */

/** 21140: CSR1 write (TX poll demand). U-Net: an endpoint's sq_prod changed. */
#define NICSHIM_KICK_TX  (1u << 0)
/** 21140: CSR2 write (RX poll demand). U-Net: an endpoint's fq_prod or rq_cons changed. */
#define NICSHIM_KICK_RX  (1u << 1)
/** U-Net: the kernel command producer (UG cmd_prod) changed. Ignored by the 21140. */
#define NICSHIM_KICK_CMD (1u << 2)
#define NICSHIM_KICK_ALL (0x7u)

/* Event bits returned by nicshim_poll() (always < 2^31, so a return value >= 0 is a bit set). */
#define NICSHIM_EV_RX       (1u << 0) /* frames were delivered into host receive buffers */
#define NICSHIM_EV_TX_DONE  (1u << 1) /* transmit descriptors were completed */
#define NICSHIM_EV_IRQ      (1u << 2) /* the card's interrupt line is asserted */
#define NICSHIM_EV_LINK     (1u << 3) /* the interface's carrier changed */
#define NICSHIM_EV_RX_STALL (1u << 4) /* a frame found no card-owned buffer (missed) */
#define NICSHIM_EV_BUS_ERR  (1u << 5) /* a DMA address fell outside every region */
#define NICSHIM_EV_CMD_DONE (1u << 6) /* U-Net: kernel commands completed */
#define NICSHIM_EV_ALL      (0x7Fu)

/** Largest timeout nicshim_poll() accepts: 1 s, so a driver thread never blocks unboundedly. */
#define NICSHIM_POLL_MAX_TIMEOUT_NS (1000000000)
#define NICSHIM_MAX_DMA_REGIONS     64

/* ============================================================================================
 * Functions
 * ========================================================================================== */

/** Opaque shim handle. */
typedef struct nicshim nicshim_t;

/** The ABI version the library was built with (NICSHIM_ABI_VERSION layout). */
uint32_t nicshim_abi_version(void);

/**
 * Open a shim serving card contract `card_kind` on Linux interface `ifname`.
 * `options` may be NULL for defaults; otherwise options->size must be sizeof(nicshim_options_t)
 * and reserved fields 0. On failure returns NULL and stores a NICSHIM_ERR_* code in
 * *out_error (if out_error is not NULL); on success stores NICSHIM_OK.
 */
nicshim_t *nicshim_open(const char *ifname, uint32_t card_kind, const nicshim_options_t *options,
                        int32_t *out_error);

/** Stop (if running) and free the shim. NULL is ignored. Shared memory is left untouched. */
void nicshim_close(nicshim_t *shim);

/** Fill *out with the interface's identity and state. */
int32_t nicshim_get_info(const nicshim_t *shim, nicshim_info_t *out);

/**
 * Attach one register range of the card (host memory shared with Java, NICSHIM_RANGE_*).
 * `length` must equal the range's size and `base` be NICSHIM_WINDOW_ALIGN-aligned. Loads the
 * card's reset values into the range. Only while stopped (else NICSHIM_ERR_STATE).
 */
int32_t nicshim_attach_window(nicshim_t *shim, uint32_t range, void *base, uint64_t length);

/**
 * Register a DMA region: bus addresses [bus_base, bus_base + length) map to host memory
 * [host, host + length). Regions may not overlap in bus or host space. Returns the region id
 * (>= 0). Allowed while running: the new region becomes visible to the card atomically.
 */
int32_t nicshim_add_dma_region(nicshim_t *shim, uint64_t bus_base, void *host, uint64_t length);

/**
 * Remove DMA region `region_id`. While running, only if the card holds no translated pointer into it
 * (else NICSHIM_ERR_STATE): the 21140 translates on every access and never does; the U-Net card
 * does for an endpoint's segment and receive queue from EP_CREATE until EP_DESTROY. Once this
 * returns, the card no longer reaches the region's memory.
 */
int32_t nicshim_remove_dma_region(nicshim_t *shim, int32_t region_id);

/**
 * Register access with side effects (write-1-to-clear, clear-on-read, start/stop, reset, SROM
 * and MII bit-banging, doorbells): the bridge's Registers API routes such accesses here instead
 * of touching the shared window directly. `range` is a NICSHIM_RANGE_*, `offset` a 4-aligned
 * byte offset inside it; values are in host order (the shim applies the card's byte order).
 */
int32_t nicshim_reg_write(nicshim_t *shim, uint32_t range, uint32_t offset, uint32_t value);
int32_t nicshim_reg_read(nicshim_t *shim, uint32_t range, uint32_t offset, uint32_t *value);

/**
 * Start moving frames (opens the PACKET_MMAP rings). Needs every register range of the card
 * attached (else NICSHIM_ERR_STATE). Starting a running shim is NICSHIM_ERR_STATE.
 */
int32_t nicshim_start(nicshim_t *shim);

/** Stop moving frames; the card's processes go to their stopped states. Idempotent. */
int32_t nicshim_stop(nicshim_t *shim);

/**
 * Doorbell: `what` is a set of NICSHIM_KICK_* bits. Thread-safe and non-blocking: it records the
 * kick and ends a concurrent nicshim_poll() wait early; the work itself happens in poll.
 */
int32_t nicshim_kick(nicshim_t *shim, uint32_t what);

/**
 * Do pending card work (kicked rings, received frames, timers), then, if no event is pending
 * and timeout_ns > 0, wait up to timeout_ns (0..NICSHIM_POLL_MAX_TIMEOUT_NS) for one and do
 * that work too. Returns the NICSHIM_EV_* bits that occurred (0 = none), or a negative error.
 */
int32_t nicshim_poll(nicshim_t *shim, int64_t timeout_ns);

/**
 * AF_XDP (ABI 1.2): the UMEM, `length` bytes at `base` (page-aligned; a multiple of the chunk size and at least
 * (rx_ring_frames + tx_ring_frames) chunks). The memory must stay valid until nicshim_close(). Only while stopped
 * (else NICSHIM_ERR_STATE) and only for the AF_XDP backend (else NICSHIM_ERR_INVALID); misaligned or too small is
 * NICSHIM_ERR_UMEM. The kernel registers it at nicshim_start().
 */
int32_t nicshim_set_umem(nicshim_t *shim, void *base, uint64_t length);

/**
 * AF_XDP (ABI 1.2): the modes obtained, the program id, where the rings are mapped and the socket's
 * XDP_STATISTICS. Zero modes and ring addresses while stopped. NICSHIM_ERR_INVALID for an AF_PACKET shim.
 */
int32_t nicshim_get_xdp_info(nicshim_t *shim, nicshim_xdp_info_t *out);

/**
 * (ABI 1.4) Fault injection (see "Fault injection" above): `faults` NULL or with directions 0 turns it off. Only
 * while stopped (else NICSHIM_ERR_STATE); faults->size must be sizeof(nicshim_faults_t) (else NICSHIM_ERR_ABI);
 * unknown direction bits or probabilities adding up to more than NICSHIM_FAULT_PPM_ONE are NICSHIM_ERR_INVALID, and
 * so is any fault on a NICSHIM_CARD_XSK_DIRECT shim. Restarts the generators from the seed.
 */
int32_t nicshim_set_faults(nicshim_t *shim, const nicshim_faults_t *faults);

/** Copy a consistent-per-counter snapshot of the statistics into *out. Thread-safe. */
int32_t nicshim_get_stats(const nicshim_t *shim, nicshim_stats_t *out);

/** Static English text for a NICSHIM_OK / NICSHIM_ERR_* code ("unknown error" otherwise). */
const char *nicshim_strerror(int32_t error);

#endif /* NICBRIDGE_NICSHIM_H */
