/*
 * veth-latency-floor.c - the latency floor of a veth pair for a user-level stack, beside the kernel's own sockets, with
 * nothing of nicbridge in the path. Two threads, pinned to CPU 0 and CPU 1, each in its own network namespace,
 * ping-pong one frame:
 *   packet:     (issue 15: what `nic pupa real-latency --waits spin --pinning pinned` can reach at best) one send() on
 *               an AF_PACKET socket per hop, the receiver spinning on a TPACKET_V2 RX ring - the kernel work the shim's
 *               inline 21140 does per hop, and no card model, driver, protocol core or FFM;
 *   tcp:        TCP_NODELAY, SO_BUSY_POLL 50 us, send() and a spinning recv(MSG_DONTWAIT), as TcpBaseline's busy mode;
 *   xdp-spin:   (issue 18: what `nic unet real-pingpong`'s direct endpoint can reach at best) an AF_XDP socket on each
 *               end, bound and attached as shim:afxdp binds them on a veth (copy mode, the same six-instruction
 *               bpf_redirect_map program attached natively by a BPF link, headroom 0, 2048-byte chunks): the sender
 *               copies the frame into a TX chunk, publishes it and kicks with sendto(MSG_DONTWAIT); the receiver spins
 *               on the RX ring's producer index and hands the chunk back to FILL - one system call per hop;
 *   xdp-block:  the same, the receiver sleeping in poll(POLLIN) on the socket when RX is empty (the direct endpoint's
 *               await: sendto to send, ppoll to wait - two system calls per hop);
 *   xdp-poll:   xdp-block with the socket bound XDP_USE_NEED_WAKEUP, so that poll() drives copy-mode TX itself
 *               (xsk_poll calls xsk_generic_xmit while TX "needs a wake-up", which copy mode says for good): the send
 *               only publishes the descriptor and the wait's poll() transmits it - one system call per hop;
 *   udp-spin, udp-block: kernel UDP, connected sockets, send() and recv(MSG_DONTWAIT) spinning, or a blocking recv()
 *               (UdpBaseline's two waits; no SO_BUSY_POLL, as UdpBaseline sets none).
 * And the frame-rate ceiling (issue 18, `nic unet real-flood`): A sends ROUND_TRIPS frames as fast as it can, each with
 * its sequence number, B counts them spinning (its CPU does not wake up, so it costs the sender nothing); the rate is
 * B's, first to last frame:
 *   xdp-flood:      the rings as above (4096 entries), 256 descriptors per kick, B publishing RX and FILL once per
 *                   batch it finds;
 *   udp-flood:      one send() per datagram (what `nic unet real-flood`'s UDP baseline does), B recv(MSG_DONTWAIT);
 *   udp-mmsg-flood: sendmmsg() of 256 datagrams per call, B recvmmsg(MSG_DONTWAIT) of up to 256: kernel UDP batched
 *                   as the AF_XDP sender batches its kicks.
 * BYTES is the frame less its 14-byte Ethernet header (packet and xdp send BYTES + 14, at least 60; udp sends
 * BYTES - 28 of payload, so the frame on the veth is the same; tcp sends BYTES of stream). One-way = RTT / 2; p50
 * and p90 after a 10% warm-up. Run through veth-latency-floor.sh (root: it builds the pair).
 * Usage: veth-latency-floor MODE BYTES ROUND_TRIPS MAC_A MAC_B NS_A IF_A NS_B IF_B
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int N = 20000, SIZE = 64;
static const char *mode;
static uint8_t mac[2][6];
static double rtt[1000000];

static uint64_t now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000ull + t.tv_nsec; }
static void enter(const char *ns, int cpu) {
    char p[128]; snprintf(p, sizeof p, "/var/run/netns/%s", ns);
    int fd = open(p, O_RDONLY); if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) { perror("setns"); exit(1); }
    cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}
typedef struct { int fd; uint8_t *ring; unsigned head, frames, fsize; int ifindex; } pk_t;
static void pk_open(pk_t *k, const char *ifn) {
    k->fd = socket(AF_PACKET, SOCK_RAW, 0);
    int v = TPACKET_V2; setsockopt(k->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof v);
    struct tpacket_req r = {.tp_block_size = 4096 * 64, .tp_block_nr = 4, .tp_frame_size = 2048, .tp_frame_nr = 4 * 128};
    if (setsockopt(k->fd, SOL_PACKET, PACKET_RX_RING, &r, sizeof r) < 0) { perror("ring"); exit(1); }
    k->ring = mmap(NULL, r.tp_block_size * r.tp_block_nr, PROT_READ | PROT_WRITE, MAP_SHARED, k->fd, 0);
    k->frames = r.tp_frame_nr; k->fsize = 2048; k->head = 0;
    int one = 1; setsockopt(k->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
    k->ifindex = if_nametoindex(ifn);
    struct sockaddr_ll a = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = k->ifindex};
    if (bind(k->fd, (struct sockaddr *)&a, sizeof a) < 0) { perror("bind"); exit(1); }
}
static int pk_recv(pk_t *k, uint8_t *out) {
    for (;;) {
        struct tpacket2_hdr *h = (void *)(k->ring + (size_t)k->head * k->fsize);
        if ((__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER) == 0) continue;
        int len = h->tp_snaplen; uint8_t *f = (uint8_t *)h + h->tp_mac;
        int ours = f[12] == 0x88 && f[13] == 0xb5;
        if (ours) memcpy(out, f, len);
        __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
        k->head = (k->head + 1) % k->frames;
        if (ours) return len;
    }
}
typedef struct { int side; const char *ns, *ifn; int cpu; } arg_t;
/* ---- AF_XDP: one socket per end, as shim:afxdp opens it on a veth (xsk.c) ---- */
#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif
#define XCHUNK 2048u
/* Entries of each ring (64 for a ping-pong, 4096 for a flood); chunks 0..XRING-1 receive (on FILL), XRING..2*XRING-1
 * transmit. */
static uint32_t XRING = 64;
typedef struct { uint32_t *prod, *cons, *flags; uint8_t *desc; uint32_t cached; } xring_t;
typedef struct { int fd, link, map, prog; uint8_t *umem; xring_t fill, comp, rx, tx; uint32_t sent; int poll_tx; } xk_t;
static pthread_barrier_t ready; /* both sockets open and attached before the first frame */

static int xbpf(int cmd, union bpf_attr *a) { return (int)syscall(__NR_bpf, cmd, a, sizeof(*a)); }
static void die(const char *what) { perror(what); exit(1); }
static void xmap_ring(xk_t *k, xring_t *r, const struct xdp_ring_offset *o, size_t esz, off_t pgoff) {
    uint8_t *m = mmap(NULL, o->desc + XRING * esz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, k->fd, pgoff);
    if (m == MAP_FAILED) die("mmap ring");
    r->prod = (uint32_t *)(m + o->producer); r->cons = (uint32_t *)(m + o->consumer);
    r->flags = (uint32_t *)(m + o->flags); r->desc = m + o->desc; r->cached = 0;
}
/* Socket, UMEM, rings, FILL primed, bind (copy mode; XDP_USE_NEED_WAKEUP for xdp-poll), XSKMAP[0] = socket, the
 * program (bpf_redirect_map(xsks, rx_queue_index, XDP_PASS): xsk.c's six instructions) attached natively by a link. */
static void xk_open(xk_t *k, const char *ifn, int need_wakeup) {
    memset(k, 0, sizeof *k);
    k->poll_tx = need_wakeup;
    k->umem = mmap(NULL, 2 * XRING * XCHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (k->umem == MAP_FAILED) die("umem");
    k->fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (k->fd < 0) die("AF_XDP socket");
    struct xdp_umem_reg reg; memset(&reg, 0, sizeof reg);
    reg.addr = (uint64_t)(uintptr_t)k->umem; reg.len = 2 * XRING * XCHUNK; reg.chunk_size = XCHUNK;
    int n = XRING;
    if (setsockopt(k->fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof reg) < 0) die("XDP_UMEM_REG");
    if (setsockopt(k->fd, SOL_XDP, XDP_UMEM_FILL_RING, &n, sizeof n) < 0 ||
        setsockopt(k->fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &n, sizeof n) < 0 ||
        setsockopt(k->fd, SOL_XDP, XDP_RX_RING, &n, sizeof n) < 0 || setsockopt(k->fd, SOL_XDP, XDP_TX_RING, &n, sizeof n) < 0)
        die("ring sizes");
    struct xdp_mmap_offsets off; socklen_t ol = sizeof off;
    unsigned budget = XRING; /* one kick may take the whole TX ring (6.18; xsk.c does the same); best effort */
    (void)setsockopt(k->fd, SOL_XDP, 9 /* XDP_MAX_TX_SKB_BUDGET */, &budget, sizeof budget);
    if (getsockopt(k->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &ol) < 0) die("XDP_MMAP_OFFSETS");
    xmap_ring(k, &k->fill, &off.fr, 8, (off_t)XDP_UMEM_PGOFF_FILL_RING);
    xmap_ring(k, &k->comp, &off.cr, 8, (off_t)XDP_UMEM_PGOFF_COMPLETION_RING);
    xmap_ring(k, &k->rx, &off.rx, sizeof(struct xdp_desc), XDP_PGOFF_RX_RING);
    xmap_ring(k, &k->tx, &off.tx, sizeof(struct xdp_desc), XDP_PGOFF_TX_RING);
    for (uint32_t i = 0; i < XRING; i++) ((uint64_t *)k->fill.desc)[i] = (uint64_t)i * XCHUNK;
    k->fill.cached = XRING;
    __atomic_store_n(k->fill.prod, XRING, __ATOMIC_RELEASE);
    unsigned ifindex = if_nametoindex(ifn);
    struct sockaddr_xdp sx = {.sxdp_family = AF_XDP, .sxdp_ifindex = ifindex, .sxdp_queue_id = 0,
                              .sxdp_flags = XDP_COPY | (need_wakeup ? XDP_USE_NEED_WAKEUP : 0)};
    /* The previous run's socket on the queue is freed asynchronously (EBUSY meanwhile, xsk.c): retried for 2 s. */
    for (int tries = 0; bind(k->fd, (struct sockaddr *)&sx, sizeof sx) < 0; tries++) {
        if (errno != EBUSY || tries == 1000) die("bind AF_XDP");
        usleep(2000);
    }
    union bpf_attr a; memset(&a, 0, sizeof a);
    a.map_type = BPF_MAP_TYPE_XSKMAP; a.key_size = 4; a.value_size = 4; a.max_entries = 1;
    if ((k->map = xbpf(BPF_MAP_CREATE, &a)) < 0) die("XSKMAP");
    uint32_t key = 0; int value = k->fd;
    memset(&a, 0, sizeof a);
    a.map_fd = (uint32_t)k->map; a.key = (uint64_t)(uintptr_t)&key; a.value = (uint64_t)(uintptr_t)&value;
    if (xbpf(BPF_MAP_UPDATE_ELEM, &a) < 0) die("XSKMAP update");
    struct bpf_insn insns[] = {
        {.code = BPF_LDX | BPF_W | BPF_MEM, .dst_reg = 2, .src_reg = 1, .off = 16},
        {.code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 1, .src_reg = BPF_PSEUDO_MAP_FD, .imm = k->map},
        {.code = 0},
        {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 3, .imm = XDP_PASS},
        {.code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_redirect_map},
        {.code = BPF_JMP | BPF_EXIT},
    };
    memset(&a, 0, sizeof a);
    a.prog_type = BPF_PROG_TYPE_XDP; a.insn_cnt = 6; a.insns = (uint64_t)(uintptr_t)insns;
    a.license = (uint64_t)(uintptr_t) "GPL"; a.expected_attach_type = BPF_XDP;
    if ((k->prog = xbpf(BPF_PROG_LOAD, &a)) < 0) die("BPF_PROG_LOAD");
    memset(&a, 0, sizeof a);
    a.link_create.prog_fd = (uint32_t)k->prog; a.link_create.target_ifindex = ifindex;
    a.link_create.attach_type = BPF_XDP; a.link_create.flags = XDP_FLAGS_DRV_MODE;
    if ((k->link = xbpf(BPF_LINK_CREATE, &a)) < 0) die("BPF_LINK_CREATE (native XDP)");
}
/* Closing the link detaches the program; closing the socket unpins the UMEM. */
static void xk_close(xk_t *k) {
    close(k->link); close(k->prog); close(k->map); close(k->fd);
    munmap(k->umem, 2 * XRING * XCHUNK);
}
/* The frame into the next transmit chunk, its descriptor on TX (release), the kick unless poll() will transmit. */
static void xk_send(xk_t *k, const uint8_t *frame, uint32_t len) {
    uint32_t done = __atomic_load_n(k->comp.prod, __ATOMIC_ACQUIRE);
    if (done != k->comp.cached) { k->comp.cached = done; __atomic_store_n(k->comp.cons, done, __ATOMIC_RELEASE); }
    while (k->tx.cached - __atomic_load_n(k->tx.cons, __ATOMIC_ACQUIRE) >= XRING) sched_yield();
    uint64_t addr = (uint64_t)(XRING + k->sent++ % XRING) * XCHUNK; /* a chunk comes back long before its turn */
    memcpy(k->umem + addr, frame, len);
    struct xdp_desc *d = (struct xdp_desc *)k->tx.desc + (k->tx.cached & (XRING - 1));
    d->addr = addr; d->len = len; d->options = 0;
    __atomic_store_n(k->tx.prod, ++k->tx.cached, __ATOMIC_RELEASE);
    if (!k->poll_tx && sendto(k->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN && errno != EBUSY)
        die("kick");
}
/* The next frame of ours (EtherType 0x88b5) copied to out, its chunk back on FILL; spinning or in poll(). */
static int xk_recv(xk_t *k, uint8_t *out, int block) {
    for (;;) {
        if (__atomic_load_n(k->rx.prod, __ATOMIC_ACQUIRE) != k->rx.cached) {
            struct xdp_desc *d = (struct xdp_desc *)k->rx.desc + (k->rx.cached & (XRING - 1));
            uint64_t addr = d->addr; uint32_t len = d->len;
            const uint8_t *f = k->umem + addr;
            int ours = len >= 14 && f[12] == 0x88 && f[13] == 0xb5;
            if (ours) memcpy(out, f, len);
            __atomic_store_n(k->rx.cons, ++k->rx.cached, __ATOMIC_RELEASE);
            ((uint64_t *)k->fill.desc)[k->fill.cached & (XRING - 1)] = addr - addr % XCHUNK;
            __atomic_store_n(k->fill.prod, ++k->fill.cached, __ATOMIC_RELEASE);
            if (ours) return (int)len;
        } else if (block) {
            struct pollfd p = {.fd = k->fd, .events = POLLIN};
            if (poll(&p, 1, 2000) == 0) { fprintf(stderr, "xdp: no frame for 2 s\n"); exit(1); }
        } else {
            __builtin_ia32_pause();
        }
    }
}
static void run_xdp(arg_t *a, uint8_t *buf, int block, int need_wakeup) {
    xk_t k; xk_open(&k, a->ifn, need_wakeup);
    memcpy(buf, mac[1 - a->side], 6); memcpy(buf + 6, mac[a->side], 6); buf[12] = 0x88; buf[13] = 0xb5;
    int len = SIZE + 14 < 60 ? 60 : SIZE + 14;
    pthread_barrier_wait(&ready);
    if (a->side == 0) usleep(20000); /* B in its receive loop */
    for (int i = 0; i < N; i++) {
        if (a->side == 0) {
            uint64_t t0 = now();
            xk_send(&k, buf, (uint32_t)len); xk_recv(&k, buf + 1024, block);
            rtt[i] = (now() - t0) / 2.0;
        } else {
            int n = xk_recv(&k, buf + 1024, block); memcpy(buf + 1024, mac[0], 6); memcpy(buf + 1030, mac[1], 6);
            xk_send(&k, buf + 1024, (uint32_t)n);
        }
    }
    if (k.poll_tx && sendto(k.fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN) die("kick");
    /* (xdp-poll: B's last reply would otherwise wait for a poll() that never comes.) */
    pthread_barrier_wait(&ready); /* A's last reply is in before B's program goes */
    xk_close(&k);
}
/* ---- kernel UDP, connected sockets on the pair's addresses (veth-latency-floor.sh: 10.99.0.1 and .2) ---- */
static void run_udp(arg_t *a, uint8_t *buf, int block) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in me = {.sin_family = AF_INET, .sin_port = htons(7000 + a->side)}, peer = me;
    inet_pton(AF_INET, a->side == 0 ? "10.99.0.1" : "10.99.0.2", &me.sin_addr);
    inet_pton(AF_INET, a->side == 0 ? "10.99.0.2" : "10.99.0.1", &peer.sin_addr);
    peer.sin_port = htons(7001 - a->side);
    if (bind(fd, (void *)&me, sizeof me) < 0 || connect(fd, (void *)&peer, sizeof peer) < 0) die("udp");
    int payload = SIZE - 28;
    pthread_barrier_wait(&ready);
    if (a->side == 0) usleep(20000);
    for (int i = 0; i < N; i++) {
        uint64_t t0 = now();
        if (a->side == 1) while (recv(fd, buf, 2048, block ? 0 : MSG_DONTWAIT) < 0) __builtin_ia32_pause();
        if (send(fd, buf, payload, 0) != payload) die("udp send");
        if (a->side == 0) {
            while (recv(fd, buf, 2048, block ? 0 : MSG_DONTWAIT) < 0) __builtin_ia32_pause();
            rtt[i] = (now() - t0) / 2.0;
        }
    }
    pthread_barrier_wait(&ready);
    close(fd);
}

/* ---- floods: the frame-rate ceiling (A sends FRAMES frames as fast as it can, B counts them, spinning) ---- */
#define FLOOD_BATCH 256 /* frames per kick (xdp) and per sendmmsg (udp-mmsg), as `nic unet real-flood --kick-batch` */
static volatile int flood_done;
static uint64_t flood_first, flood_last, flood_received, flood_out_of_order, flood_sent;
/* B's counting loop: a frame's sequence number is its 4 bytes at `at`; stops 100 ms after A is done and B idle. */
static void count_frame(const uint8_t *f, int at, uint32_t *highest) {
    uint32_t seq; memcpy(&seq, f + at, 4);
    uint64_t t = now();
    if (flood_received++ == 0) flood_first = t;
    flood_last = t;
    if (flood_received > 1 && seq <= *highest) flood_out_of_order++; else *highest = seq;
}
static int flood_idle(uint64_t *idle_since) {
    uint64_t t = now();
    if (*idle_since == 0) *idle_since = t;
    __builtin_ia32_pause();
    return flood_done && t - *idle_since > 100000000ull;
}
static void run_xdp_flood(arg_t *a, uint8_t *buf) {
    xk_t k; xk_open(&k, a->ifn, 0);
    memcpy(buf, mac[1 - a->side], 6); memcpy(buf + 6, mac[a->side], 6); buf[12] = 0x88; buf[13] = 0xb5;
    uint32_t len = SIZE + 14 < 60 ? 60 : SIZE + 14;
    pthread_barrier_wait(&ready);
    if (a->side == 0) {
        usleep(20000);
        uint64_t completed = 0;
        for (uint32_t seq = 0; seq < (uint32_t)N;) {
            uint32_t done = __atomic_load_n(k.comp.prod, __ATOMIC_ACQUIRE);
            completed += done - k.comp.cached; k.comp.cached = done;
            __atomic_store_n(k.comp.cons, done, __ATOMIC_RELEASE);
            uint32_t n = 0;
            while (n < FLOOD_BATCH && seq < (uint32_t)N && k.sent - completed < XRING) {
                uint64_t addr = (uint64_t)(XRING + k.sent++ % XRING) * XCHUNK;
                memcpy(k.umem + addr, buf, len); memcpy(k.umem + addr + 14, &seq, 4); seq++;
                struct xdp_desc *d = (struct xdp_desc *)k.tx.desc + (k.tx.cached++ & (XRING - 1));
                d->addr = addr; d->len = len; d->options = 0;
                n++;
            }
            __atomic_store_n(k.tx.prod, k.tx.cached, __ATOMIC_RELEASE);
            if (sendto(k.fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN && errno != EBUSY && errno != ENOBUFS)
                die("kick");
        }
        while (__atomic_load_n(k.tx.cons, __ATOMIC_ACQUIRE) != k.tx.cached) sendto(k.fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
        flood_sent = k.sent;
        flood_done = 1;
    } else {
        uint32_t highest = 0; uint64_t idle_since = 0;
        for (;;) {
            uint32_t p = __atomic_load_n(k.rx.prod, __ATOMIC_ACQUIRE);
            if (p == k.rx.cached) { if (flood_idle(&idle_since)) break; continue; }
            idle_since = 0;
            while (k.rx.cached != p) { /* the whole batch, then one publication of RX and FILL each */
                struct xdp_desc *d = (struct xdp_desc *)k.rx.desc + (k.rx.cached++ & (XRING - 1));
                const uint8_t *f = k.umem + d->addr;
                if (d->len >= 18 && f[12] == 0x88 && f[13] == 0xb5) count_frame(f, 14, &highest);
                ((uint64_t *)k.fill.desc)[k.fill.cached++ & (XRING - 1)] = d->addr - d->addr % XCHUNK;
            }
            __atomic_store_n(k.rx.cons, k.rx.cached, __ATOMIC_RELEASE);
            __atomic_store_n(k.fill.prod, k.fill.cached, __ATOMIC_RELEASE);
        }
    }
    pthread_barrier_wait(&ready);
    xk_close(&k);
}
static volatile int flood_primed;
static void run_udp_flood(arg_t *a, int mmsg) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in me = {.sin_family = AF_INET, .sin_port = htons(7000 + a->side)}, peer = me;
    inet_pton(AF_INET, a->side == 0 ? "10.99.0.1" : "10.99.0.2", &me.sin_addr);
    inet_pton(AF_INET, a->side == 0 ? "10.99.0.2" : "10.99.0.1", &peer.sin_addr);
    peer.sin_port = htons(7001 - a->side);
    int rcvbuf = 8 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf);
    if (bind(fd, (void *)&me, sizeof me) < 0 || connect(fd, (void *)&peer, sizeof peer) < 0) die("udp");
    int payload = SIZE - 28;
    uint8_t (*bufs)[2048] = malloc(sizeof(uint8_t[FLOOD_BATCH][2048])); /* each thread its own */
    if (bufs == NULL) die("malloc");
    struct mmsghdr mh[FLOOD_BATCH]; struct iovec iov[FLOOD_BATCH];
    for (int i = 0; i < FLOOD_BATCH; i++) {
        iov[i].iov_base = bufs[i]; iov[i].iov_len = a->side == 0 ? (size_t)payload : 2048;
        memset(&mh[i], 0, sizeof mh[i]); mh[i].msg_hdr.msg_iov = &iov[i]; mh[i].msg_hdr.msg_iovlen = 1;
    }
    pthread_barrier_wait(&ready);
    if (a->side == 0) {
        usleep(20000);
        /* ARP first: a primer until B has seen one (the flood's frames would queue behind the resolution) */
        uint32_t primer = 0xffffffffu;
        while (!flood_primed) { send(fd, &primer, 4 > payload ? payload : 4, 0); usleep(1000); }
        uint32_t seq = 0;
        while (seq < (uint32_t)N) {
            if (mmsg) {
                int n = N - (int)seq < FLOOD_BATCH ? N - (int)seq : FLOOD_BATCH;
                for (int i = 0; i < n; i++) { uint32_t q = seq + i; memcpy(bufs[i], &q, 4); }
                int r = sendmmsg(fd, mh, n, 0);
                if (r < 0) die("sendmmsg");
                seq += r;
            } else {
                memcpy(bufs[0], &seq, 4);
                if (send(fd, bufs[0], payload, 0) == payload) seq++;
            }
        }
        flood_sent = seq;
        flood_done = 1;
    } else {
        uint32_t highest = 0; uint64_t idle_since = 0;
        for (;;) {
            int n = mmsg ? recvmmsg(fd, mh, FLOOD_BATCH, MSG_DONTWAIT, NULL) : (int)(recv(fd, bufs[0], 2048, MSG_DONTWAIT) >= 0);
            if (n <= 0) { if (flood_idle(&idle_since)) break; continue; }
            idle_since = 0;
            for (int i = 0; i < n; i++) {
                uint32_t q; memcpy(&q, bufs[i], 4);
                if (q == 0xffffffffu) { flood_primed = 1; continue; } /* a primer, not counted */
                count_frame(bufs[i], 0, &highest);
            }
        }
    }
    pthread_barrier_wait(&ready);
    close(fd);
    free(bufs);
}
static void *run(void *p) {
    arg_t *a = p; enter(a->ns, a->cpu);
    uint8_t buf[2048] = {0};
    if (strcmp(mode, "xdp-flood") == 0) {
        run_xdp_flood(a, buf);
        return NULL;
    }
    if (strcmp(mode, "udp-flood") == 0 || strcmp(mode, "udp-mmsg-flood") == 0) {
        run_udp_flood(a, strcmp(mode, "udp-mmsg-flood") == 0);
        return NULL;
    }
    if (strncmp(mode, "xdp-", 4) == 0) {
        run_xdp(a, buf, strcmp(mode, "xdp-spin") != 0, strcmp(mode, "xdp-poll") == 0);
        return NULL;
    }
    if (strncmp(mode, "udp-", 4) == 0) {
        run_udp(a, buf, strcmp(mode, "udp-block") == 0);
        return NULL;
    }
    if (strcmp(mode, "packet") == 0) {
        pk_t k; pk_open(&k, a->ifn);
        memcpy(buf, mac[1 - a->side], 6); memcpy(buf + 6, mac[a->side], 6); buf[12] = 0x88; buf[13] = 0xb5;
        int len = SIZE + 14 < 60 ? 60 : SIZE + 14;
        usleep(200000);
        for (int i = 0; i < N; i++) {
            if (a->side == 0) {
                uint64_t t0 = now();
                send(k.fd, buf, len, 0); pk_recv(&k, buf + 1024);
                rtt[i] = (now() - t0) / 2.0;
            } else {
                int n = pk_recv(&k, buf + 1024); memcpy(buf + 1024, mac[0], 6); memcpy(buf + 1030, mac[1], 6);
                send(k.fd, buf + 1024, n, 0);
            }
        }
        return NULL;
    }
    int one = 1, busy = 50;
    int fd;
    if (a->side == 1) {
        int l = socket(AF_INET, SOCK_STREAM, 0); setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons(7777)};
        bind(l, (void *)&s, sizeof s); listen(l, 1); fd = accept(l, NULL, NULL);
    } else {
        usleep(200000);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons(7777)}; inet_pton(AF_INET, "10.99.0.2" /* veth-latency-floor.sh: end B */, &s.sin_addr);
        if (connect(fd, (void *)&s, sizeof s) < 0) { perror("connect"); exit(1); }
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &busy, sizeof busy);
    for (int i = 0; i < N; i++) {
        if (a->side == 0) {
            uint64_t t0 = now(); send(fd, buf, SIZE, 0);
            int got = 0; while (got < SIZE) { int r = recv(fd, buf + got, SIZE - got, MSG_DONTWAIT); if (r > 0) got += r; }
            rtt[i] = (now() - t0) / 2.0;
        } else {
            int got = 0; while (got < SIZE) { int r = recv(fd, buf + got, SIZE - got, MSG_DONTWAIT); if (r > 0) got += r; }
            send(fd, buf, SIZE, 0);
        }
    }
    return NULL;
}
static int cmp(const void *x, const void *y) { double a = *(double *)x, b = *(double *)y; return a < b ? -1 : a > b; }
int main(int argc, char **argv) {
    if (argc != 10) {
        fprintf(stderr, "usage: %s MODE BYTES ROUND_TRIPS MAC_A MAC_B NS_A IF_A NS_B IF_B\n", argv[0]);
        return 2;
    }
    mode = argv[1]; SIZE = atoi(argv[2]); N = atoi(argv[3]);
    if (N < 10 || N > (strstr(mode, "-flood") ? 100000000 : 1000000) || SIZE < 1 || SIZE > 1400) { fprintf(stderr, "ROUND_TRIPS 10..1000000, BYTES 1..1400\n"); return 2; }
    const char *modes[] = {"packet", "tcp", "xdp-spin", "xdp-block", "xdp-poll", "udp-spin", "udp-block", "xdp-flood",
                           "udp-flood", "udp-mmsg-flood"};
    int flood = strstr(mode, "-flood") != NULL;
    if (flood) XRING = 4096;
    int known = 0;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) known |= strcmp(mode, modes[i]) == 0;
    if (!known) { fprintf(stderr, "MODE: packet, tcp, xdp-spin, xdp-block, xdp-poll, udp-spin, udp-block, xdp-flood, udp-flood or udp-mmsg-flood, was %s\n", mode); return 2; }
    if (strncmp(mode, "udp-", 4) == 0 && SIZE < 29) { fprintf(stderr, "udp: BYTES >= 29 (a 1-byte datagram)\n"); return 2; }
    pthread_barrier_init(&ready, NULL, 2);
    sscanf(argv[4], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0][0], &mac[0][1], &mac[0][2], &mac[0][3], &mac[0][4], &mac[0][5]);
    sscanf(argv[5], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[1][0], &mac[1][1], &mac[1][2], &mac[1][3], &mac[1][4], &mac[1][5]);
    arg_t A = {0, argv[6], argv[7], 0}, B = {1, argv[8], argv[9], 1};
    pthread_t ta, tb; pthread_create(&tb, NULL, run, &B); pthread_create(&ta, NULL, run, &A);
    pthread_join(ta, NULL); pthread_join(tb, NULL);
    if (flood) {
        printf("%s %d B: %.0f frames/s at B (%llu sent, %llu received, %llu out of order)\n", mode, SIZE,
               flood_received > 1 ? (flood_received - 1) * 1e9 / (double)(flood_last - flood_first) : 0.0,
               (unsigned long long)flood_sent, (unsigned long long)flood_received, (unsigned long long)flood_out_of_order);
        return 0;
    }
    int w = N / 10; qsort(rtt + w, N - w, sizeof(double), cmp);
    printf("%s %d B: one-way p50 %.2f us, p90 %.2f us (n=%d after %d warm-up)\n", mode, SIZE, rtt[w + (N - w) / 2] / 1000, rtt[w + (N - w) * 9 / 10] / 1000, N - w, w);
    return 0;
}
