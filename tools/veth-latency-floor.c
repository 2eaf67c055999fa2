/*
 * veth-latency-floor.c - the one-way latency floor of a veth pair for a user-level stack on AF_PACKET, beside kernel
 * TCP, with nothing of nicbridge in the path (issue 15: what `nic pupa real-latency --waits spin --pinning pinned`
 * can reach at best). Two threads, pinned to CPU 0 and CPU 1, each in its own network namespace, ping-pong a message:
 *   packet: one send() on an AF_PACKET socket per hop, the receiver spinning on a TPACKET_V2 RX ring (exactly the
 *           kernel work the shim's inline 21140 does per hop - no card model, driver, protocol core or FFM);
 *   tcp:    TCP_NODELAY, SO_BUSY_POLL 50 us, send() and a spinning recv(MSG_DONTWAIT), as TcpBaseline's busy mode.
 * One-way = RTT / 2; p50 and p90 after a 10% warm-up. Run through veth-latency-floor.sh (root: it builds the pair).
 * Usage: veth-latency-floor packet|tcp BYTES ROUND_TRIPS MAC_A MAC_B NS_A IF_A NS_B IF_B
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
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
static void *run(void *p) {
    arg_t *a = p; enter(a->ns, a->cpu);
    uint8_t buf[2048] = {0};
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
        fprintf(stderr, "usage: %s packet|tcp BYTES ROUND_TRIPS MAC_A MAC_B NS_A IF_A NS_B IF_B\n", argv[0]);
        return 2;
    }
    mode = argv[1]; SIZE = atoi(argv[2]); N = atoi(argv[3]);
    if (N < 10 || N > 1000000 || SIZE < 1 || SIZE > 1400) { fprintf(stderr, "ROUND_TRIPS 10..1000000, BYTES 1..1400\n"); return 2; }
    sscanf(argv[4], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0][0], &mac[0][1], &mac[0][2], &mac[0][3], &mac[0][4], &mac[0][5]);
    sscanf(argv[5], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[1][0], &mac[1][1], &mac[1][2], &mac[1][3], &mac[1][4], &mac[1][5]);
    arg_t A = {0, argv[6], argv[7], 0}, B = {1, argv[8], argv[9], 1};
    pthread_t ta, tb; pthread_create(&tb, NULL, run, &B); pthread_create(&ta, NULL, run, &A);
    pthread_join(ta, NULL); pthread_join(tb, NULL);
    int w = N / 10; qsort(rtt + w, N - w, sizeof(double), cmp);
    printf("%s %d B: one-way p50 %.2f us, p90 %.2f us (n=%d after %d warm-up)\n", mode, SIZE, rtt[w + (N - w) / 2] / 1000, rtt[w + (N - w) * 9 / 10] / 1000, N - w, w);
    return 0;
}
