/*
 * xsk.c - the AF_XDP transport (shim_xsk.h): socket, UMEM registration, the four rings, and the XDP program that
 * redirects the interface's frames into the socket. No libbpf/libxdp: the program is six instructions loaded through
 * the bpf() syscall, attached with BPF_LINK_CREATE, and the kernel structures come from the uapi headers (Debian 12's
 * linux-libc-dev 6.1 has everything used here). Facts and their sources: shared/reference/afxdp-facts.md (cited as
 * "facts §N").
 *
 * Setup order (facts §1): socket -> XDP_UMEM_REG -> ring sizes -> XDP_MMAP_OFFSETS -> mmap the four rings -> prime
 * FILL -> bind (EBUSY for ~20 ms after a previous socket on the same queue closed: retried) -> XSKMAP[queue] = fd ->
 * program load -> attach by link (native first, then generic). The map slot is filled before the program is attached,
 * so the first redirected frame finds the socket.
 */
#include "shim_xsk.h"

#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif
#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif
#ifndef XDP_MAX_TX_SKB_BUDGET
#define XDP_MAX_TX_SKB_BUDGET 9 /* 6.18 uapi; Debian 12's 6.1 header lacks it (facts §1.8) */
#endif
/* Copy mode's default descriptors per sendto (the kernel's TX_BATCH_SIZE, facts §2). */
#define XSK_DEFAULT_TX_BUDGET 32u

/* The previous socket's pool on the queue is freed asynchronously (a work item): about 20 ms on an idle machine (facts
 * §1.6), but a loaded machine's workqueues take longer (seen: over 100 ms at load 13 on 2 CPUs). Bind retries EBUSY
 * every 2 ms for up to this long before it reports the queue as taken. */
#define XSK_BIND_BUSY_WAIT_NS (2000ull * 1000000ull)

/* ---------------------------------------------------------------------------------------------
 * bpf()
 * ------------------------------------------------------------------------------------------- */

static int xsk_bpf(int cmd, union bpf_attr *attr) {
    return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int xsk_map_create(uint32_t entries) {
    union bpf_attr a;
    memset(&a, 0, sizeof(a));
    a.map_type = BPF_MAP_TYPE_XSKMAP;
    a.key_size = 4;
    a.value_size = 4;
    a.max_entries = entries;
    memcpy(a.map_name, "nicshim_xsks", sizeof("nicshim_xsks"));
    return xsk_bpf(BPF_MAP_CREATE, &a);
}

static int xsk_map_set(int map_fd, uint32_t key, int value) {
    union bpf_attr a;
    memset(&a, 0, sizeof(a));
    a.map_fd = (uint32_t)map_fd;
    a.key = (uint64_t)(uintptr_t)&key;
    a.value = (uint64_t)(uintptr_t)&value;
    a.flags = BPF_ANY;
    return xsk_bpf(BPF_MAP_UPDATE_ELEM, &a);
}

/*
 * The program (facts §3):
 *   r2 = *(u32 *)(r1 + 16)        ctx->rx_queue_index
 *   r1 = map (ld_imm64, BPF_PSEUDO_MAP_FD)
 *   r3 = XDP_PASS                 returned when the slot is empty: the frame goes to the stack, as without us
 *   call bpf_redirect_map
 *   exit
 */
static int xsk_prog_load(int map_fd) {
    struct bpf_insn insns[] = {
        {.code = BPF_LDX | BPF_W | BPF_MEM, .dst_reg = 2, .src_reg = 1, .off = 16, .imm = 0},
        {.code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 1, .src_reg = BPF_PSEUDO_MAP_FD, .off = 0, .imm = map_fd},
        {.code = 0, .dst_reg = 0, .src_reg = 0, .off = 0, .imm = 0},
        {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 3, .src_reg = 0, .off = 0, .imm = XDP_PASS},
        {.code = BPF_JMP | BPF_CALL, .dst_reg = 0, .src_reg = 0, .off = 0, .imm = BPF_FUNC_redirect_map},
        {.code = BPF_JMP | BPF_EXIT, .dst_reg = 0, .src_reg = 0, .off = 0, .imm = 0},
    };
    static const char license[] = "GPL"; /* bpf_redirect_map is GPL-only */
    union bpf_attr a;
    memset(&a, 0, sizeof(a));
    a.prog_type = BPF_PROG_TYPE_XDP;
    a.insn_cnt = sizeof(insns) / sizeof(insns[0]);
    a.insns = (uint64_t)(uintptr_t)insns;
    a.license = (uint64_t)(uintptr_t)license;
    a.expected_attach_type = BPF_XDP;
    memcpy(a.prog_name, NICSHIM_XDP_PROG_NAME, sizeof(NICSHIM_XDP_PROG_NAME));
    return xsk_bpf(BPF_PROG_LOAD, &a);
}

static int xsk_prog_info(int prog_fd, struct bpf_prog_info *info) {
    union bpf_attr a;
    memset(&a, 0, sizeof(a));
    memset(info, 0, sizeof(*info));
    a.info.bpf_fd = (uint32_t)prog_fd;
    a.info.info_len = sizeof(*info);
    a.info.info = (uint64_t)(uintptr_t)info;
    return xsk_bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
}

static int xsk_link_create(int prog_fd, uint32_t ifindex, uint32_t mode_flag) {
    union bpf_attr a;
    memset(&a, 0, sizeof(a));
    a.link_create.prog_fd = (uint32_t)prog_fd;
    a.link_create.target_ifindex = ifindex;
    a.link_create.attach_type = BPF_XDP;
    a.link_create.flags = mode_flag;
    return xsk_bpf(BPF_LINK_CREATE, &a);
}

/* ---------------------------------------------------------------------------------------------
 * rtnetlink: which XDP program is on the interface, and detaching a netlink-attached one (facts §3 "Crash behaviour")
 * ------------------------------------------------------------------------------------------- */

/** Sends one request and reads the answer into buf; returns its length or -1. */
static ssize_t xsk_netlink(void *req, size_t len, uint8_t *buf, size_t cap) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) {
        return -1;
    }
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
    ssize_t got = -1;
    if (sendto(fd, req, len, 0, (struct sockaddr *)&sa, sizeof(sa)) == (ssize_t)len) {
        got = recv(fd, buf, cap, 0);
    }
    int err = errno;
    close(fd);
    errno = err;
    return got;
}

/** The XDP program attached to `ifindex`: *mode = IFLA_XDP_ATTACHED value (0 none), return its id (0 none), -1. */
static int64_t xsk_attached_prog(uint32_t ifindex, uint32_t *mode) {
    struct {
        struct nlmsghdr nh;
        struct ifinfomsg ifi;
    } req;
    memset(&req, 0, sizeof(req));
    req.nh.nlmsg_len = sizeof(req);
    req.nh.nlmsg_type = RTM_GETLINK;
    req.nh.nlmsg_flags = NLM_F_REQUEST;
    req.nh.nlmsg_seq = 1;
    req.ifi.ifi_family = AF_UNSPEC;
    req.ifi.ifi_index = (int)ifindex;
    uint8_t buf[16384];
    ssize_t got = xsk_netlink(&req, sizeof(req), buf, sizeof(buf));
    *mode = 0;
    if (got < (ssize_t)sizeof(struct nlmsghdr)) {
        return -1;
    }
    struct nlmsghdr *nh = (struct nlmsghdr *)buf;
    if (!NLMSG_OK(nh, (size_t)got) || nh->nlmsg_type != RTM_NEWLINK) {
        return -1;
    }
    struct ifinfomsg *ifi = NLMSG_DATA(nh);
    int len = (int)IFLA_PAYLOAD(nh);
    uint32_t id = 0;
    for (struct rtattr *rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
        if ((rta->rta_type & NLA_TYPE_MASK) != IFLA_XDP) {
            continue;
        }
        int inner = (int)RTA_PAYLOAD(rta);
        for (struct rtattr *x = RTA_DATA(rta); RTA_OK(x, inner); x = RTA_NEXT(x, inner)) {
            if (x->rta_type == IFLA_XDP_ATTACHED && RTA_PAYLOAD(x) >= 1) {
                *mode = *(uint8_t *)RTA_DATA(x);
            } else if (x->rta_type == IFLA_XDP_PROG_ID && RTA_PAYLOAD(x) >= 4) {
                memcpy(&id, RTA_DATA(x), 4);
            }
        }
    }
    return id;
}

/** Netlink detach (IFLA_XDP_FD = -1) of the program attached in `mode` (IFLA_XDP_ATTACHED value). */
static int xsk_netlink_detach(uint32_t ifindex, uint32_t mode) {
    struct {
        struct nlmsghdr nh;
        struct ifinfomsg ifi;
        uint8_t attrs[64];
    } req;
    memset(&req, 0, sizeof(req));
    req.nh.nlmsg_type = RTM_SETLINK;
    req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    req.nh.nlmsg_seq = 2;
    req.ifi.ifi_family = AF_UNSPEC;
    req.ifi.ifi_index = (int)ifindex;
    struct rtattr *xdp = (struct rtattr *)req.attrs;
    xdp->rta_type = IFLA_XDP | NLA_F_NESTED;
    struct rtattr *fd_attr = (struct rtattr *)((uint8_t *)xdp + RTA_LENGTH(0));
    fd_attr->rta_type = IFLA_XDP_FD;
    fd_attr->rta_len = RTA_LENGTH(sizeof(int32_t));
    int32_t none = -1;
    memcpy(RTA_DATA(fd_attr), &none, sizeof(none));
    struct rtattr *flags_attr = (struct rtattr *)((uint8_t *)fd_attr + RTA_ALIGN(fd_attr->rta_len));
    flags_attr->rta_type = IFLA_XDP_FLAGS;
    flags_attr->rta_len = RTA_LENGTH(sizeof(uint32_t));
    uint32_t flags = mode == 2 ? XDP_FLAGS_SKB_MODE : mode == 3 ? XDP_FLAGS_HW_MODE : XDP_FLAGS_DRV_MODE;
    memcpy(RTA_DATA(flags_attr), &flags, sizeof(flags));
    xdp->rta_len = (unsigned short)(RTA_LENGTH(0) + RTA_ALIGN(fd_attr->rta_len) + RTA_ALIGN(flags_attr->rta_len));
    req.nh.nlmsg_len = (uint32_t)(NLMSG_LENGTH(sizeof(struct ifinfomsg)) + RTA_ALIGN(xdp->rta_len));
    uint8_t buf[1024];
    ssize_t got = xsk_netlink(&req, req.nh.nlmsg_len, buf, sizeof(buf));
    if (got < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
        return -1;
    }
    struct nlmsghdr *nh = (struct nlmsghdr *)buf;
    if (nh->nlmsg_type != NLMSG_ERROR) {
        return -1;
    }
    struct nlmsgerr *e = NLMSG_DATA(nh);
    errno = -e->error;
    return e->error == 0 ? 0 : -1;
}

/**
 * Something holds the interface's XDP hook (LINK_CREATE said EBUSY/EEXIST). If it is a stale program of ours,
 * attached by netlink (which outlives its process), detach it and return 0 so the caller retries; otherwise -1.
 * A link-attached program of ours belongs to a live process (the kernel detaches a dead one's): left alone.
 */
static int xsk_remove_stale(uint32_t ifindex) {
    uint32_t mode = 0;
    int64_t id = xsk_attached_prog(ifindex, &mode);
    if (id <= 0) {
        return id == 0 ? 0 : -1; /* gone meanwhile: retry */
    }
    union bpf_attr a;
    memset(&a, 0, sizeof(a));
    a.prog_id = (uint32_t)id;
    int fd = xsk_bpf(BPF_PROG_GET_FD_BY_ID, &a);
    if (fd < 0) {
        return -1;
    }
    struct bpf_prog_info info;
    int ours = xsk_prog_info(fd, &info) == 0 && strcmp(info.name, NICSHIM_XDP_PROG_NAME) == 0;
    close(fd);
    if (!ours) {
        return -1;
    }
    /* Netlink refuses to detach a link's program (EBUSY): then it is a live link of another process of ours. */
    return xsk_netlink_detach(ifindex, mode);
}

/* ---------------------------------------------------------------------------------------------
 * Rings
 * ------------------------------------------------------------------------------------------- */

static int32_t xsk_map_ring(shim_xsk_t *x, shim_xsk_ring_t *r, const struct xdp_ring_offset *off, uint32_t size,
                            uint32_t entry_size, off_t pgoff) {
    r->map_len = off->desc + (size_t)size * entry_size;
    void *map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, x->fd, pgoff);
    if (map == MAP_FAILED) {
        r->map = NULL;
        return errno == ENOMEM ? NICSHIM_ERR_NOMEM : NICSHIM_ERR_SYSTEM;
    }
    r->map = map;
    r->producer = (uint32_t *)((uint8_t *)map + off->producer);
    r->consumer = (uint32_t *)((uint8_t *)map + off->consumer);
    r->flags = (uint32_t *)((uint8_t *)map + off->flags);
    r->desc = (uint8_t *)map + off->desc;
    r->size = size;
    r->mask = size - 1;
    r->entry_size = entry_size;
    r->cached = 0;
    return NICSHIM_OK;
}

static void xsk_unmap_ring(shim_xsk_ring_t *r) {
    if (r->map != NULL) {
        munmap(r->map, r->map_len);
    }
    memset(r, 0, sizeof(*r));
}

/* Producer side: entries written, then the index with release. Consumer side: the index with acquire first. */
static uint32_t xsk_acquire(const uint32_t *p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static void xsk_release(uint32_t *p, uint32_t v) {
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/** Free slots of a ring we produce into (FILL, TX): acquire on the kernel's consumer index (facts §2). */
static uint32_t xsk_prod_free(const shim_xsk_ring_t *r) {
    return r->size - (r->cached - xsk_acquire(r->consumer));
}

static void xsk_fill_put(shim_xsk_t *x, uint64_t addr) {
    shim_xsk_ring_t *f = &x->fill;
    memcpy(f->desc + (size_t)(f->cached & f->mask) * 8, &addr, 8);
    f->cached++;
    xsk_release(f->producer, f->cached);
}

/* ---------------------------------------------------------------------------------------------
 * Open / close
 * ------------------------------------------------------------------------------------------- */

void shim_xsk_init(shim_xsk_t *x) {
    memset(x, 0, sizeof(*x));
    x->fd = -1;
    x->map_fd = -1;
    x->prog_fd = -1;
    x->link_fd = -1;
}

static int32_t xsk_errno(int err) {
    switch (err) {
    case EPERM:
    case EACCES:
        return NICSHIM_ERR_PERMISSION;
    case ENOMEM:
        return NICSHIM_ERR_NOMEM;
    case ENOBUFS: /* XDP_UMEM_REG over RLIMIT_MEMLOCK (facts §6) */
        return NICSHIM_ERR_UMEM;
    case ENODEV:
    case ENXIO:
        return NICSHIM_ERR_NO_DEVICE;
    case EBUSY:
    case EEXIST:
        return NICSHIM_ERR_XDP_BUSY;
    case EOPNOTSUPP:
    case EAFNOSUPPORT:
    case EPROTONOSUPPORT:
        return NICSHIM_ERR_XDP_UNSUPPORTED;
    default:
        return NICSHIM_ERR_SYSTEM;
    }
}

static int32_t xsk_socket(shim_xsk_t *x, uint32_t ifindex, const nicshim_options_t *opt) {
    x->fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (x->fd < 0) {
        return xsk_errno(errno);
    }
    struct xdp_umem_reg reg;
    memset(&reg, 0, sizeof(reg)); /* all 32 bytes: tx_metadata_len sits in 6.1's padding (facts §1.2) */
    reg.addr = (uint64_t)(uintptr_t)x->umem;
    reg.len = x->umem_len;
    reg.chunk_size = x->chunk;
    reg.headroom = 0;
    int fill = (int)x->rx_frames, rx = (int)x->rx_frames, tx = (int)x->tx_frames, comp = (int)x->tx_frames;
    if (setsockopt(x->fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)) < 0) {
        return errno == EINVAL ? NICSHIM_ERR_UMEM : xsk_errno(errno);
    }
    if (setsockopt(x->fd, SOL_XDP, XDP_UMEM_FILL_RING, &fill, sizeof(fill)) < 0 ||
        setsockopt(x->fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &comp, sizeof(comp)) < 0 ||
        setsockopt(x->fd, SOL_XDP, XDP_RX_RING, &rx, sizeof(rx)) < 0 ||
        setsockopt(x->fd, SOL_XDP, XDP_TX_RING, &tx, sizeof(tx)) < 0) {
        return xsk_errno(errno);
    }
    /* Copy mode transmits at most 32 descriptors per kick and says EAGAIN with the rest queued, so a full ring took
     * tx_frames / 32 system calls; one kick may take the whole ring where the kernel has the option (6.18: range
     * [32, TX ring size], facts §1.8). Best effort: older kernels send the same frames in more kicks. */
    if (x->tx_frames > XSK_DEFAULT_TX_BUDGET) {
        unsigned int budget = x->tx_frames;
        (void)setsockopt(x->fd, SOL_XDP, XDP_MAX_TX_SKB_BUDGET, &budget, sizeof(budget));
    }
    struct xdp_mmap_offsets off;
    socklen_t off_len = sizeof(off);
    if (getsockopt(x->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &off_len) < 0 || off_len != sizeof(off)) {
        return NICSHIM_ERR_SYSTEM;
    }
    int32_t rc = xsk_map_ring(x, &x->fill, &off.fr, x->rx_frames, 8, (off_t)XDP_UMEM_PGOFF_FILL_RING);
    if (rc == NICSHIM_OK) {
        rc = xsk_map_ring(x, &x->comp, &off.cr, x->tx_frames, 8, (off_t)XDP_UMEM_PGOFF_COMPLETION_RING);
    }
    if (rc == NICSHIM_OK) {
        rc = xsk_map_ring(x, &x->rx, &off.rx, x->rx_frames, sizeof(struct xdp_desc), XDP_PGOFF_RX_RING);
    }
    if (rc == NICSHIM_OK) {
        rc = xsk_map_ring(x, &x->tx, &off.tx, x->tx_frames, sizeof(struct xdp_desc), XDP_PGOFF_TX_RING);
    }
    if (rc != NICSHIM_OK) {
        return rc;
    }
    /* Every receive chunk on FILL before the first frame can arrive (copy mode drops a frame that finds FILL
     * empty: facts §7.1). The rings are fresh: our cached indices start at 0 like the kernel's. Direct access
     * (NICSHIM_CARD_XSK_DIRECT): the caller owns FILL and the transmit chunks, so nothing is primed. */
    for (uint32_t i = 0; !x->direct && i < x->rx_frames; i++) {
        uint64_t addr = (uint64_t)i * x->chunk;
        memcpy(x->fill.desc + (size_t)i * 8, &addr, 8);
    }
    x->fill.cached = x->direct ? 0 : x->rx_frames;
    xsk_release(x->fill.producer, x->fill.cached);
    x->tx_free_count = 0;
    for (uint32_t i = 0; !x->direct && i < x->tx_frames; i++) {
        x->tx_free[x->tx_free_count++] = (uint64_t)(x->rx_frames + i) * x->chunk;
    }
    if (opt->busy_poll_us != 0) {
        int us = (int)opt->busy_poll_us, one = 1, budget = (int)opt->poll_budget;
        if (setsockopt(x->fd, SOL_SOCKET, SO_BUSY_POLL, &us, sizeof(us)) == 0) {
            x->info_flags |= NICSHIM_XDP_INFO_BUSY_POLL;
            /* Best effort (CAP_NET_ADMIN): without them busy polling still spins, just not preferred. */
            (void)setsockopt(x->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one));
            (void)setsockopt(x->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget));
        }
    }
    uint32_t bind_req = opt->xdp_flags & NICSHIM_XDP_BIND_MASK;
    struct sockaddr_xdp sxdp;
    memset(&sxdp, 0, sizeof(sxdp));
    sxdp.sxdp_family = AF_XDP;
    sxdp.sxdp_ifindex = ifindex;
    sxdp.sxdp_queue_id = x->queue;
    sxdp.sxdp_flags = bind_req == NICSHIM_XDP_BIND_COPY       ? XDP_COPY
                      : bind_req == NICSHIM_XDP_BIND_ZEROCOPY ? XDP_ZEROCOPY
                                                              : 0;
    int bound = -1;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        bound = bind(x->fd, (struct sockaddr *)&sxdp, sizeof(sxdp));
        if (bound == 0 || errno != EBUSY) {
            break;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t waited = (uint64_t)(now.tv_sec - start.tv_sec) * 1000000000ull + (uint64_t)now.tv_nsec -
                          (uint64_t)start.tv_nsec;
        if (waited >= XSK_BIND_BUSY_WAIT_NS) {
            errno = EBUSY;
            break;
        }
        struct timespec two_ms = {0, 2000000};
        nanosleep(&two_ms, NULL);
    }
    if (bound < 0) {
        return errno == EINVAL ? NICSHIM_ERR_INVALID : xsk_errno(errno); /* EINVAL: no such queue (facts §1.6) */
    }
    struct xdp_options xo;
    socklen_t xo_len = sizeof(xo);
    x->bind_mode = getsockopt(x->fd, SOL_XDP, XDP_OPTIONS, &xo, &xo_len) == 0 && (xo.flags & XDP_OPTIONS_ZEROCOPY)
                       ? NICSHIM_XDP_BOUND_ZEROCOPY
                       : NICSHIM_XDP_BOUND_COPY;
    return NICSHIM_OK;
}

static int32_t xsk_attach(shim_xsk_t *x, uint32_t ifindex, uint32_t attach_req) {
    x->map_fd = xsk_map_create(x->queue + 1);
    if (x->map_fd < 0) {
        return xsk_errno(errno);
    }
    if (xsk_map_set(x->map_fd, x->queue, x->fd) < 0) {
        return xsk_errno(errno);
    }
    x->prog_fd = xsk_prog_load(x->map_fd);
    if (x->prog_fd < 0) {
        return xsk_errno(errno);
    }
    struct bpf_prog_info info;
    if (xsk_prog_info(x->prog_fd, &info) == 0) {
        x->prog_id = info.id;
    }
    const uint32_t modes[2] = {XDP_FLAGS_DRV_MODE, XDP_FLAGS_SKB_MODE};
    int err = 0;
    for (int m = 0; m < 2 && x->link_fd < 0; m++) {
        if ((m == 0 && attach_req == NICSHIM_XDP_ATTACH_GENERIC) || (m == 1 && attach_req == NICSHIM_XDP_ATTACH_NATIVE)) {
            continue;
        }
        for (int attempt = 0; attempt < 2 && x->link_fd < 0; attempt++) {
            x->link_fd = xsk_link_create(x->prog_fd, ifindex, modes[m]);
            if (x->link_fd >= 0) {
                x->attach_mode = m == 0 ? NICSHIM_XDP_ATTACHED_NATIVE : NICSHIM_XDP_ATTACHED_GENERIC;
                break;
            }
            err = errno;
            if ((err != EBUSY && err != EEXIST) || xsk_remove_stale(ifindex) != 0) {
                break;
            }
        }
        if (x->link_fd < 0 && (err == EBUSY || err == EEXIST)) {
            break; /* occupied by someone else's program: trying the other mode would only fail the same way */
        }
    }
    return x->link_fd >= 0 ? NICSHIM_OK : xsk_errno(err);
}

int32_t shim_xsk_open(shim_xsk_t *x, uint32_t ifindex, const nicshim_options_t *opt, uint8_t *umem,
                      uint64_t umem_len, int direct) {
    shim_xsk_init(x);
    x->direct = direct;
    x->umem = umem;
    x->umem_len = umem_len;
    x->chunk = opt->frame_size;
    x->rx_frames = opt->rx_ring_frames;
    x->tx_frames = opt->tx_ring_frames;
    x->queue = opt->xdp_queue;
    x->tx_free = malloc(sizeof(uint64_t) * x->tx_frames);
    if (x->tx_free == NULL) {
        return NICSHIM_ERR_NOMEM;
    }
    int32_t rc = xsk_socket(x, ifindex, opt);
    if (rc == NICSHIM_OK) {
        rc = xsk_attach(x, ifindex, opt->xdp_flags & NICSHIM_XDP_ATTACH_MASK);
    }
    if (rc != NICSHIM_OK) {
        shim_xsk_close(x);
        return rc;
    }
    x->info_flags |= NICSHIM_XDP_INFO_RUNNING;
    uint64_t ignore[2];
    (void)shim_xsk_kernel_drops(x, ignore); /* baseline: nothing counted before start belongs to us */
    return NICSHIM_OK;
}

void shim_xsk_close(shim_xsk_t *x) {
    /* The link first: from here on the interface's frames go to the stack again, not into a closing socket. */
    if (x->link_fd >= 0) {
        close(x->link_fd);
    }
    if (x->prog_fd >= 0) {
        close(x->prog_fd);
    }
    if (x->map_fd >= 0) {
        close(x->map_fd);
    }
    xsk_unmap_ring(&x->fill);
    xsk_unmap_ring(&x->comp);
    xsk_unmap_ring(&x->rx);
    xsk_unmap_ring(&x->tx);
    if (x->fd >= 0) {
        close(x->fd); /* the kernel unpins the UMEM when the socket is released */
    }
    free(x->tx_free);
    shim_xsk_init(x);
}

/* ---------------------------------------------------------------------------------------------
 * Data path (allocates nothing, makes no system call)
 * ------------------------------------------------------------------------------------------- */

uint32_t shim_xsk_reap(shim_xsk_t *x) {
    shim_xsk_ring_t *c = &x->comp;
    uint32_t prod = xsk_acquire(c->producer);
    uint32_t n = 0;
    while (c->cached != prod && x->tx_free_count < x->tx_frames) {
        uint64_t addr;
        memcpy(&addr, c->desc + (size_t)(c->cached & c->mask) * 8, 8);
        /* Only addresses of transmit chunks go back on the stack: a corrupted entry cannot make a receive chunk
         * (or memory outside the UMEM) a transmit buffer. */
        uint64_t base = addr - addr % x->chunk;
        if (base >= (uint64_t)x->rx_frames * x->chunk && base < x->umem_len) {
            x->tx_free[x->tx_free_count++] = base;
        }
        c->cached++;
        n++;
    }
    if (n != 0) {
        xsk_release(c->consumer, c->cached);
    }
    return n;
}

uint8_t *shim_xsk_tx_reserve(shim_xsk_t *x) {
    if (x->tx_free_count == 0) {
        shim_xsk_reap(x);
    }
    if (x->tx_free_count == 0 || xsk_prod_free(&x->tx) == 0) {
        return NULL;
    }
    x->tx_reserved_addr = x->tx_free[--x->tx_free_count];
    return x->umem + x->tx_reserved_addr;
}

void shim_xsk_tx_commit(shim_xsk_t *x, uint32_t len) {
    shim_xsk_ring_t *t = &x->tx;
    struct xdp_desc d = {.addr = x->tx_reserved_addr, .len = len, .options = 0};
    memcpy(t->desc + (size_t)(t->cached & t->mask) * sizeof(d), &d, sizeof(d));
    t->cached++;
    /* Release: the frame bytes and the descriptor are visible before the kernel sees the new producer index. */
    xsk_release(t->producer, t->cached);
}

void shim_xsk_tx_abort(shim_xsk_t *x) {
    x->tx_free[x->tx_free_count++] = x->tx_reserved_addr;
}

uint32_t shim_xsk_tx_pending(const shim_xsk_t *x) {
    return x->tx.cached - xsk_acquire(x->tx.consumer);
}

uint32_t shim_xsk_rx_ready(const shim_xsk_t *x) {
    return xsk_acquire(x->rx.producer) - x->rx.cached;
}

const uint8_t *shim_xsk_rx_peek(const shim_xsk_t *x, uint32_t *len) {
    struct xdp_desc d;
    memcpy(&d, x->rx.desc + (size_t)(x->rx.cached & x->rx.mask) * sizeof(d), sizeof(d));
    /* The kernel writes only addresses of chunks we put on FILL; still, never hand the card bytes outside the
     * UMEM. A bad descriptor reads as an empty frame, which the card drops as a runt. */
    if (d.addr >= x->umem_len || d.len > x->umem_len - d.addr || d.len > x->chunk) {
        *len = 0;
        return x->umem;
    }
    *len = d.len;
    return x->umem + d.addr;
}

void shim_xsk_rx_release(shim_xsk_t *x) {
    struct xdp_desc d;
    memcpy(&d, x->rx.desc + (size_t)(x->rx.cached & x->rx.mask) * sizeof(d), sizeof(d));
    x->rx.cached++;
    xsk_release(x->rx.consumer, x->rx.cached);
    uint64_t base = d.addr - d.addr % x->chunk;
    if (base < (uint64_t)x->rx_frames * x->chunk) {
        xsk_fill_put(x, base); /* FILL has room: it and RX together never hold more than rx_frames chunks */
    }
}

int shim_xsk_kernel_drops(shim_xsk_t *x, uint64_t out[2]) {
    struct xdp_statistics st;
    socklen_t len = sizeof(st);
    out[0] = 0;
    out[1] = 0;
    if (x->fd < 0 || getsockopt(x->fd, SOL_XDP, XDP_STATISTICS, &st, &len) < 0 || len != sizeof(st)) {
        return -1;
    }
    /* rx_dropped already includes fill-ring-empty drops (facts §1.8); rx_ring_full is separate in the v2 layout. */
    uint64_t now[6] = {st.rx_dropped, st.rx_invalid_descs, st.tx_invalid_descs, st.rx_ring_full,
                       st.rx_fill_ring_empty_descs, st.tx_ring_empty_descs};
    out[0] = (now[0] - x->kstats_seen[0]) + (now[3] - x->kstats_seen[3]);
    out[1] = now[2] - x->kstats_seen[2];
    memcpy(x->kstats_seen, now, sizeof(now));
    return 0;
}

static void xsk_ring_info(const shim_xsk_ring_t *r, nicshim_xsk_ring_t *out) {
    out->producer = (uint64_t)(uintptr_t)r->producer;
    out->consumer = (uint64_t)(uintptr_t)r->consumer;
    out->flags = (uint64_t)(uintptr_t)r->flags;
    out->desc = (uint64_t)(uintptr_t)r->desc;
    out->size = r->size;
    out->entry_size = r->entry_size;
}

/** Whether our BPF link lost its interface: detached (BPF_LINK_DETACH by someone else) or the interface deleted. The
 * kernel then reports the link's ifindex as 0. Netlink cannot detach a link's program ("Can't replace active BPF XDP
 * link", facts §3), so `ip link set dev X xdp off` is refused and leaves it attached. */
static int xsk_link_detached(const shim_xsk_t *x) {
    if (x->link_fd < 0) {
        return 0;
    }
    struct bpf_link_info li;
    union bpf_attr a;
    memset(&li, 0, sizeof(li));
    memset(&a, 0, sizeof(a));
    a.info.bpf_fd = (uint32_t)x->link_fd;
    a.info.info_len = sizeof(li);
    a.info.info = (uint64_t)(uintptr_t)&li;
    if (xsk_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) < 0) {
        return 0; /* cannot tell: reported as attached, as at open */
    }
    return li.type == BPF_LINK_TYPE_XDP && li.xdp.ifindex == 0;
}

void shim_xsk_info(shim_xsk_t *x, nicshim_xdp_info_t *out) {
    out->attach_mode = x->attach_mode;
    out->bind_mode = x->bind_mode;
    out->queue = x->queue;
    out->prog_id = x->prog_id;
    out->chunk_size = x->chunk;
    out->flags = x->info_flags | (xsk_link_detached(x) ? NICSHIM_XDP_INFO_DETACHED : 0u);
    xsk_ring_info(&x->fill, &out->fill);
    xsk_ring_info(&x->rx, &out->rx);
    xsk_ring_info(&x->tx, &out->tx);
    xsk_ring_info(&x->comp, &out->completion);
    struct xdp_statistics st;
    socklen_t len = sizeof(st);
    if (x->fd >= 0 && getsockopt(x->fd, SOL_XDP, XDP_STATISTICS, &st, &len) == 0 && len == sizeof(st)) {
        out->rx_dropped = st.rx_dropped;
        out->rx_invalid_descs = st.rx_invalid_descs;
        out->tx_invalid_descs = st.tx_invalid_descs;
        out->rx_ring_full = st.rx_ring_full;
        out->rx_fill_ring_empty_descs = st.rx_fill_ring_empty_descs;
        out->tx_ring_empty_descs = st.tx_ring_empty_descs;
    }
}
