/*
 * fuzz_api.c - libFuzzer harness of the shim's public API (nicshim.h) with hostile arguments, linked with the real
 * platform and both real cards (every .c file of src/main/c/shim, what libnicshim.so holds).
 *
 * The shims open the loopback interface of a network namespace of their own (LLVMFuzzerInitialize unshares one and
 * brings its lo up; exit status SHIM_TEST_SKIPPED where the machine does not allow that: root, or CAP_SYS_ADMIN and
 * CAP_NET_RAW), so their PACKET_MMAP rings are real, the frames the card sends come back to it through the kernel,
 * and nothing else on the machine sees them.
 *
 * The input is a script of calls (one opcode byte modulo OP_COUNT, then its arguments; integers little-endian, see
 * fuzz_input.h). Arguments are passed as read: unknown card kinds, option structs with any size, flags, ring
 * geometry and reserved bytes, unknown ranges, wrong lengths, misaligned windows and offsets, region ids and bus
 * addresses of any value, bus ranges that wrap, host ranges that wrap the address space, NULL out-pointers, poll
 * timeouts of any sign, error codes of any value, calls in every state (before open, stopped, running, after
 * close: the NULL handle). The only arguments bounded are host memory the harness owns: a window or an arena DMA
 * region always lies inside the harness's buffers (a caller that hands over memory it does not own is outside the
 * contract), and a positive poll timeout waits at most 1 microsecond (the fuzzer's speed).
 *
 *   0 OPEN     ifname u8 (0 lo, 1 "", 2 no such interface, 3 16 chars, else 20 bytes from the input), kind u32,
 *              has_options u8, [40 bytes nicshim_options_t]      (closes an open shim first)
 *   1 CLOSE                        2 INFO    out u8 (0 = NULL)
 *   3 ATTACH   range u32, offset u8 (into the window buffer), length u64
 *   4 ADD      bus u64, where u8 (0 arena, 1 the last page of the address space, else NULL), offset u32, length u64
 *   5 REMOVE   id i32              6 REG_WRITE range u32, offset u32, value u32
 *   7 REG_READ range u32, offset u32, out u8 (0 = NULL)
 *   8 START    9 STOP             10 KICK    what u32
 *  11 POLL     timeout i64        12 STATS   out u8 (0 = NULL)       13 STRERROR code i32
 *  14 POKE     where u8 (0 window 0, 1 arena, 2 window 1), offset u32, value u32   (the Java side's plain stores)
 *
 * Oracles: the sanitizers; every error is a defined NICSHIM_ERR_* code; every call on the NULL handle is
 * NICSHIM_ERR_INVALID; a region whose host range wraps the address space is refused; nicshim_strerror always
 * returns text.
 */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "nicshim.h"
#include "shim_test.h" /* SHIM_TEST_SKIPPED */

enum { OP_OPEN, OP_CLOSE, OP_INFO, OP_ATTACH, OP_ADD, OP_REMOVE, OP_REG_WRITE, OP_REG_READ, OP_START, OP_STOP,
       OP_KICK, OP_POLL, OP_STATS, OP_STRERROR, OP_POKE, OP_COUNT };

#define ARENA_BYTES  0x10000u
#define WINDOW_SLACK 256u /* an attach may start up to 255 bytes into its buffer */

static _Alignas(4096) uint8_t arena[ARENA_BYTES];
static _Alignas(4096) uint8_t windows[2][NICSHIM_SBA200_RAM_SIZE + WINDOW_SLACK];

static void check(int ok, const char *what, int32_t rc) {
    if (!ok) {
        fprintf(stderr, "fuzz_api: invariant broken: %s (rc %d)\n", what, rc);
        abort();
    }
}

/** A result: a value >= 0, or one of the defined error codes. */
static int32_t result(int32_t rc) {
    check(rc >= NICSHIM_ERR_MIN, "an error code this ABI defines", rc);
    return rc;
}

/** With no shim open every call must refuse the NULL handle. */
static void on_null(nicshim_t *shim, int32_t rc) {
    result(rc);
    if (shim == NULL) {
        check(rc == NICSHIM_ERR_INVALID, "NICSHIM_ERR_INVALID for the NULL handle", rc);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    if (unshare(CLONE_NEWNET) != 0) {
        fprintf(stderr, "fuzz_api: SKIPPED: cannot make a network namespace (unshare: %s); needs root\n",
                strerror(errno));
        exit(SHIM_TEST_SKIPPED);
    }
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    strcpy(ifr.ifr_name, "lo");
    if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) != 0 || (ifr.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &ifr)) != 0) {
        fprintf(stderr, "fuzz_api: SKIPPED: cannot bring lo up in the new namespace: %s\n", strerror(errno));
        exit(SHIM_TEST_SKIPPED);
    }
    close(fd);
    return 0;
}

static nicshim_t *do_open(fuzz_input_t *in) {
    char name[21] = {0};
    switch (fuzz_u8(in)) {
    case 0: strcpy(name, "lo"); break;
    case 1: break;
    case 2: strcpy(name, "nbnosuchif0"); break;
    case 3: memset(name, 'a', 16); break; /* one more than IFNAMSIZ - 1 */
    default: fuzz_bytes(in, name, 20); break;
    }
    uint32_t kind = fuzz_u32(in);
    nicshim_options_t options;
    int has_options = fuzz_u8(in) & 1;
    if (has_options) {
        fuzz_bytes(in, &options, sizeof(options));
    }
    int32_t error = 1;
    nicshim_t *shim = nicshim_open(name, kind, has_options ? &options : NULL, &error);
    if (shim == NULL) {
        check(error < 0 && error >= NICSHIM_ERR_MIN, "open fails with a defined code", error);
    } else {
        check(error == NICSHIM_OK, "open succeeds with NICSHIM_OK", error);
    }
    return shim;
}

static void do_add(nicshim_t *shim, fuzz_input_t *in) {
    uint64_t bus = fuzz_u64(in);
    uint8_t where = fuzz_u8(in);
    uint32_t offset = fuzz_u32(in);
    uint64_t length = fuzz_u64(in);
    if (where == 0) {
        offset %= ARENA_BYTES;
        length %= (uint64_t)(ARENA_BYTES - offset) + 1; /* inside the arena (0 included: must be refused) */
        on_null(shim, nicshim_add_dma_region(shim, bus, arena + offset, length));
    } else if (where == 1) {
        /* The last page of the address space: no memory there, so the shim must refuse any length that runs past
         * the end, and one it accepts is removed at once (the card never reaches it). */
        uintptr_t host = UINTPTR_MAX - (offset & 0xFFFu);
        int32_t rc = nicshim_add_dma_region(shim, bus, (void *)host, length);
        on_null(shim, rc);
        if (rc >= 0) {
            check(length <= UINTPTR_MAX - host, "a host range that wraps the address space is refused", rc);
            check(nicshim_remove_dma_region(shim, rc) == NICSHIM_OK, "a region just added can be removed", rc);
        }
    } else {
        on_null(shim, nicshim_add_dma_region(shim, bus, NULL, length));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input_t in = {data, size};
    nicshim_t *shim = NULL;
    while (fuzz_more(&in)) {
        switch (fuzz_u8(&in) % OP_COUNT) {
        case OP_OPEN:
            nicshim_close(shim);
            shim = do_open(&in);
            break;
        case OP_CLOSE:
            nicshim_close(shim);
            shim = NULL;
            break;
        case OP_INFO: {
            nicshim_info_t info;
            on_null(shim, nicshim_get_info(shim, (fuzz_u8(&in) != 0) ? &info : NULL));
            break;
        }
        case OP_ATTACH: {
            uint32_t range = fuzz_u32(&in);
            uint8_t offset = fuzz_u8(&in);
            uint64_t length = fuzz_u64(&in);
            /* whatever length the shim accepts is a range size, and every range fits the buffer from `offset` */
            on_null(shim, nicshim_attach_window(shim, range, windows[range & 1] + offset, length));
            break;
        }
        case OP_ADD:
            do_add(shim, &in);
            break;
        case OP_REMOVE:
            on_null(shim, nicshim_remove_dma_region(shim, (int32_t)fuzz_u32(&in)));
            break;
        case OP_REG_WRITE: {
            uint32_t range = fuzz_u32(&in);
            uint32_t offset = fuzz_u32(&in);
            on_null(shim, nicshim_reg_write(shim, range, offset, fuzz_u32(&in)));
            break;
        }
        case OP_REG_READ: {
            uint32_t range = fuzz_u32(&in);
            uint32_t offset = fuzz_u32(&in);
            uint32_t value;
            on_null(shim, nicshim_reg_read(shim, range, offset, fuzz_u8(&in) != 0 ? &value : NULL));
            break;
        }
        case OP_START:
            on_null(shim, nicshim_start(shim));
            break;
        case OP_STOP:
            on_null(shim, nicshim_stop(shim));
            break;
        case OP_KICK:
            on_null(shim, nicshim_kick(shim, fuzz_u32(&in)));
            break;
        case OP_POLL: {
            int64_t timeout = (int64_t)fuzz_u64(&in);
            if (timeout > 0 && timeout <= NICSHIM_POLL_MAX_TIMEOUT_NS) {
                timeout %= 1000;
            }
            on_null(shim, nicshim_poll(shim, timeout));
            break;
        }
        case OP_STATS: {
            nicshim_stats_t stats;
            on_null(shim, nicshim_get_stats(shim, fuzz_u8(&in) != 0 ? &stats : NULL));
            break;
        }
        case OP_STRERROR: {
            const char *text = nicshim_strerror((int32_t)fuzz_u32(&in));
            check(text != NULL && text[0] != '\0', "strerror returns text", 0);
            break;
        }
        case OP_POKE: {
            uint8_t where = fuzz_u8(&in) % 3;
            uint8_t *base = where == 1 ? arena : windows[where >> 1];
            uint32_t limit = where == 1 ? ARENA_BYTES : NICSHIM_SBA200_RAM_SIZE + WINDOW_SLACK;
            uint32_t offset = (fuzz_u32(&in) % limit) & ~3u;
            uint32_t value = fuzz_u32(&in);
            __atomic_store_n((uint32_t *)(base + offset), value, __ATOMIC_RELEASE);
            break;
        }
        default:
            abort();
        }
    }
    nicshim_close(shim);
    return 0;
}
