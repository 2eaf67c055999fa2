/*
 * veth-bandwidth-floor.c - the one-way bandwidth floor of a veth pair for a user-level message stack on AF_PACKET,
 * beside kernel TCP, with nothing of nicbridge in the path (issue 15: what `nic pupa real-bandwidth` can reach at
 * best). Two threads, each in its own network namespace, stream N messages of BYTES one way:
 *   packet: each message as Pupa frames it - fragments of at most 1436 bytes, each in one Ethernet frame with a 48-byte
 *           header (Pupa's 20-byte frame and 28-byte message headers) - all fragments of a message with one sendmmsg()
 *           on an AF_PACKET socket (as the shim's tx=send does per card round); the body copied into each frame; the
 *           receiver on a TPACKET_V2 RX ring copying every body out into the message; a window of 15 messages (Pupa's
 *           64 KB send pool at 4 KB) kept through shared memory, so no ACK frames and no protocol: the kernel's
 *           per-frame work and two copies, which any user-level stack on AF_PACKET pays;
 *   tcp:    TCP_NODELAY (NAGLE=1 in the environment: Nagle's algorithm on, as a bulk sender would leave it), one send()
 *           of BYTES per message, the receiver reading exactly BYTES per message, as
 *           TcpBaseline.stream does.
 * WAIT block: the receiver sleeps in poll() (packet) / a blocking recv() (tcp) when it has caught up, as both stacks
 * do in `nic pupa real-bandwidth`; spin: it never sleeps (tcp: recv(MSG_DONTWAIT) with SO_BUSY_POLL 50 us).
 * Threads unpinned, as in the command, unless CPUS (A,B) pins the sender (A's thread) and the receiver (B's thread) - what
 * receive steering (veth-bandwidth-floor.sh STEER=rps) needs, since it sends each end's receive work to a named CPU. Mb/s = messages x BYTES x 8 / (last - first arrival); the process's CPU per
 * message (both threads, getrusage) beside it. Run through veth-bandwidth-floor.sh (root: it builds the pair).
 * Usage: veth-bandwidth-floor packet|tcp block|spin BYTES MESSAGES MAC_A MAC_B NS_A IF_A NS_B IF_B [CPU_A,CPU_B]
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
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FRAGMENT 1436
#define HEADERS (14 + 20 + 28)
#define MAX_FRAGS 16
#define RING_FRAMES 2048

static long N = 20000;
static int SIZE = 4096, SPIN = 0;
static const char *mode;
static uint8_t mac[2][6];
static uint64_t first, last;
static volatile int ready;
/* Messages the packet receiver has taken: the sender keeps at most WINDOW ahead of it, as Pupa's 64 KB send pool keeps
 * 15 4 KB messages in flight - but learns it through memory, so the floor pays nothing for acknowledgements. */
static long taken;
#define WINDOW 15

static uint64_t now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000ull + t.tv_nsec; }
static void enter(const char *ns) {
    char p[128]; snprintf(p, sizeof p, "/var/run/netns/%s", ns);
    int fd = open(p, O_RDONLY); if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) { perror("setns"); exit(1); }
    close(fd);
}
static void die(const char *what) { perror(what); exit(1); }
/* Per thread (sender 0, receiver 1): its own CPU time, ns. Softirq work the kernel runs on a CPU in the context of whatever
 * is running there is charged to that thread - on a veth the receiver's packet path lands on the sender's thread - and work
 * run while the CPU idles is charged to no thread: hence the per-CPU busy time beside it (/proc/stat, all of it). */
static uint64_t thread_cpu[2];
/* Busy jiffies of CPU 0 and 1 at the first and at the last arrival. */
static uint64_t busy0[2], busy1[2];
static void cpu_busy(uint64_t *busy) {
    FILE *f = fopen("/proc/stat", "r");
    char line[512];
    busy[0] = busy[1] = 0;
    while (f && fgets(line, sizeof line, f)) {
        int cpu; unsigned long long u, n, s, idle, io, irq, sirq, st;
        if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &u, &n, &s, &idle, &io, &irq, &sirq, &st) == 9
            && cpu >= 0 && cpu < 2) busy[cpu] = u + n + s + irq + sirq + st;
    }
    if (f) fclose(f);
}

typedef struct { const char *ns, *ifn; int side, cpu; } arg_t;

static void *packet_side(arg_t *a) {
    int fd = socket(AF_PACKET, SOCK_RAW, 0);
    if (fd < 0) die("socket");
    int ifindex = if_nametoindex(a->ifn);
    int frags = (SIZE + FRAGMENT - 1) / FRAGMENT;
    static uint8_t messages[2][MAX_FRAGS * FRAGMENT]; /* one per thread */
    uint8_t *message = messages[a->side];
    if (a->side == 1) {
        int v = TPACKET_V2; setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof v);
        struct tpacket_req r = {.tp_block_size = 4096 * 16, .tp_block_nr = RING_FRAMES / 32, .tp_frame_size = 2048,
                                .tp_frame_nr = RING_FRAMES};
        if (setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &r, sizeof r) < 0) die("PACKET_RX_RING");
        uint8_t *ring = mmap(NULL, (size_t)r.tp_block_size * r.tp_block_nr, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (ring == MAP_FAILED) die("mmap");
        int one = 1; setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
        struct sockaddr_ll sa = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = ifindex};
        if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) die("bind");
        ready = 1;
        unsigned head = 0;
        long got = 0;
        int frag = 0;
        while (got < N) {
            struct tpacket2_hdr *h = (void *)(ring + (size_t)head * 2048);
            if ((__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER) == 0) {
                if (!SPIN) {
                    struct pollfd p = {.fd = fd, .events = POLLIN};
                    poll(&p, 1, 1000);
                }
                continue;
            }
            uint8_t *f = (uint8_t *)h + h->tp_mac;
            if (h->tp_snaplen > HEADERS && f[12] == 0x88 && f[13] == 0xb5) {
                int body = h->tp_snaplen - HEADERS;
                memcpy(message + (size_t)frag * FRAGMENT, f + HEADERS, body);
                if (++frag == frags) {
                    uint64_t t = now();
                    if (got == 0) { first = t; cpu_busy(busy0); }
                    last = t;
                    if (got == N - 1) cpu_busy(busy1);
                    long n; memcpy(&n, message, sizeof n);
                    if (n != got) {
                        struct tpacket_stats st; socklen_t sl = sizeof st;
                        getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl);
                        fprintf(stderr, "message %ld arrived as %ld (a frame was lost; ring: %u frames, %u dropped)\n",
                                got, n, st.tp_packets, st.tp_drops);
                        exit(1);
                    }
                    frag = 0;
                    got++;
                    __atomic_store_n(&taken, got, __ATOMIC_RELEASE);
                }
            }
            __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
            head = (head + 1) % RING_FRAMES;
        }
        return NULL;
    }
    static uint8_t frames[MAX_FRAGS][2048];
    struct mmsghdr msgs[MAX_FRAGS];
    struct iovec iov[MAX_FRAGS];
    struct sockaddr_ll to = {.sll_family = AF_PACKET, .sll_ifindex = ifindex, .sll_halen = 6};
    memcpy(to.sll_addr, mac[1], 6);
    memset(msgs, 0, sizeof msgs);
    for (int i = 0; i < frags; i++) {
        int body = i < frags - 1 ? FRAGMENT : SIZE - FRAGMENT * (frags - 1);
        memcpy(frames[i], mac[1], 6); memcpy(frames[i] + 6, mac[0], 6); frames[i][12] = 0x88; frames[i][13] = 0xb5;
        iov[i].iov_base = frames[i]; iov[i].iov_len = HEADERS + body;
        msgs[i].msg_hdr.msg_iov = &iov[i]; msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_hdr.msg_name = &to; msgs[i].msg_hdr.msg_namelen = sizeof to;
    }
    while (!ready) usleep(1000);
    usleep(100000);
    for (long m = 0; m < N; m++) {
        while (m - __atomic_load_n(&taken, __ATOMIC_ACQUIRE) >= WINDOW) sched_yield();
        memcpy(message, &m, sizeof m);
        for (int i = 0; i < frags; i++) memcpy(frames[i] + HEADERS, message + (size_t)i * FRAGMENT, iov[i].iov_len - HEADERS);
        int done = 0;
        while (done < frags) {
            int s = sendmmsg(fd, msgs + done, frags - done, 0);
            if (s < 0 && errno != ENOBUFS && errno != EAGAIN) die("sendmmsg");
            if (s > 0) done += s;
        }
    }
    return NULL;
}

static void *tcp_side(arg_t *a) {
    int one = 1, busy = 50, nodelay = getenv("NAGLE") && strcmp(getenv("NAGLE"), "1") == 0 ? 0 : 1;
    static uint8_t bufs[2][65536];
    uint8_t *buf = bufs[a->side];
    int fd;
    if (a->side == 1) {
        int l = socket(AF_INET, SOCK_STREAM, 0); setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons(7778)};
        if (bind(l, (void *)&s, sizeof s) < 0 || listen(l, 1) < 0) die("listen");
        ready = 1;
        fd = accept(l, NULL, NULL);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
        if (SPIN) setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &busy, sizeof busy);
        for (long m = 0; m < N; m++) {
            int got = 0;
            while (got < SIZE) {
                int r = recv(fd, buf + got, SIZE - got, SPIN ? MSG_DONTWAIT : 0);
                if (r > 0) got += r;
                else if (r == 0 || (errno != EAGAIN && errno != EINTR)) die("recv");
            }
            long n; memcpy(&n, buf, sizeof n);
            if (n != m) { fprintf(stderr, "tcp: message %ld arrived as %ld\n", m, n); exit(1); }
            uint64_t t = now();
            if (m == 0) { first = t; cpu_busy(busy0); }
            last = t;
            if (m == N - 1) cpu_busy(busy1);
        }
        return NULL;
    }
    while (!ready) usleep(1000);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons(7778)};
    inet_pton(AF_INET, "10.99.1.2" /* veth-bandwidth-floor.sh: end B */, &s.sin_addr);
    if (connect(fd, (void *)&s, sizeof s) < 0) die("connect");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
    for (long m = 0; m < N; m++) {
        memcpy(buf, &m, sizeof m);
        int sent = 0;
        while (sent < SIZE) {
            int r = send(fd, buf + sent, SIZE - sent, MSG_NOSIGNAL);
            if (r > 0) sent += r;
            else if (errno != EINTR && errno != EAGAIN) die("send");
        }
    }
    return NULL;
}

static void *run(void *p) {
    arg_t *a = p;
    enter(a->ns);
    if (a->cpu >= 0) {
        cpu_set_t set; CPU_ZERO(&set); CPU_SET(a->cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) < 0) die("sched_setaffinity");
    }
    void *r = strcmp(mode, "packet") == 0 ? packet_side(a) : tcp_side(a);
    struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    thread_cpu[a->side] = t.tv_sec * 1000000000ull + t.tv_nsec;
    return r;
}

int main(int argc, char **argv) {
    if ((argc != 11 && argc != 12) || (strcmp(argv[1], "packet") && strcmp(argv[1], "tcp")) || (strcmp(argv[2], "block") && strcmp(argv[2], "spin"))) {
        fprintf(stderr, "usage: %s packet|tcp block|spin BYTES MESSAGES MAC_A MAC_B NS_A IF_A NS_B IF_B [CPU_A,CPU_B]\n", argv[0]);
        return 2;
    }
    mode = argv[1]; SPIN = strcmp(argv[2], "spin") == 0; SIZE = atoi(argv[3]); N = atol(argv[4]);
    if (N < 10 || SIZE < 8 || SIZE > MAX_FRAGS * FRAGMENT) { fprintf(stderr, "MESSAGES >= 10, BYTES 8..%d\n", MAX_FRAGS * FRAGMENT); return 2; }
    sscanf(argv[5], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0][0], &mac[0][1], &mac[0][2], &mac[0][3], &mac[0][4], &mac[0][5]);
    sscanf(argv[6], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[1][0], &mac[1][1], &mac[1][2], &mac[1][3], &mac[1][4], &mac[1][5]);
    arg_t A = {argv[7], argv[8], 0, -1}, B = {argv[9], argv[10], 1, -1};
    if (argc == 12 && sscanf(argv[11], "%d,%d", &A.cpu, &B.cpu) != 2) { fprintf(stderr, "CPUS must be A,B\n"); return 2; }
    alarm(120); /* a run that loses its last frames would wait for them for ever */
    struct rusage r0, r1;
    double tick = 1e6 / sysconf(_SC_CLK_TCK);
    getrusage(RUSAGE_SELF, &r0);
    pthread_t ta, tb;
    pthread_create(&tb, NULL, run, &B); pthread_create(&ta, NULL, run, &A);
    pthread_join(ta, NULL); pthread_join(tb, NULL);
    getrusage(RUSAGE_SELF, &r1);
    double cpu = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1e6
        + (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec - r0.ru_stime.tv_usec);
    printf("%s %s%s %d B: %.1f Mb/s, %.2f us CPU per message (both threads; %ld messages); thread CPU us/msg sender %.2f,"
           " receiver %.2f; busy us/msg CPU0 %.2f, CPU1 %.2f\n", mode, argv[2], A.cpu >= 0 ? " pinned" : "", SIZE,
           N * (double)SIZE * 8e3 / (double)(last - first), cpu / N, N, thread_cpu[0] / 1e3 / N, thread_cpu[1] / 1e3 / N, (busy1[0] - busy0[0]) * tick / (N - 1),
           (busy1[1] - busy0[1]) * tick / (N - 1));
    return 0;
}
