/*
 * fuzz_card.c - libFuzzer harness of one card model of the shim (compiled once per card: -DFUZZ_CARD_DEC21140 or
 * -DFUZZ_CARD_SBA200), on the fake platform (../shim/fake_platform.c: DMA regions are malloc'd buffers, the link
 * is an array of captured frames, the clock is set by hand).
 *
 * The input is a script that plays every side the card does not trust, in any order: the "Java" driver writing
 * registers with side effects and storing words straight into the shared register window and the DMA regions
 * (descriptors, rings, setup frames, command slots, endpoint pages, all built by the fuzzer), the wire delivering
 * frames of any length and content, the platform calling work/tick/link/start/stop with any doorbells, budgets and
 * times, and a transmit ring that fills up. The card sees exactly what the real platform (nicshim.c) lets through:
 * register offsets in range and 4-aligned, receive lengths 1..FAKE_FRAME_MAX, budgets >= 1, work/receive/tick
 * only while started. Everything else is the fuzzer's.
 *
 * Operations (one opcode byte, taken modulo OP_COUNT, then its arguments; integers little-endian; see fuzz_input.h):
 *
 *   0 REG_WRITE    range u8, offset u32, value u32   nicshim_reg_write as the platform passes it on
 *   1 REG_READ     range u8, offset u32              nicshim_reg_read
 *   2 WINDOW_POKE  range u8, offset u32, value u32   a plain store into the window (card byte order)
 *   3 DMA_POKE     region u8, offset u32, value u32  a 32-bit store into a DMA region (card byte order)
 *   4 DMA_FILL     region u8, offset u32, n u16, n bytes   raw bytes into a DMA region (cut at its end)
 *   5 RECEIVE      len u16, len bytes                one frame from the wire (len taken 1..FAKE_FRAME_MAX)
 *   6 WORK         kicks u8, budget u8               work(kicks & NICSHIM_KICK_ALL, budget + 1)
 *   7 TIME         delta u32                         the clock advances delta microseconds; tick if due
 *   8 LINK         up u8                             carrier change (cards with a PHY pin)
 *   9 RUN          start u8                          start (odd) or stop (even), as nicshim_start/stop allow
 *  10 TX_ROOM      frames u8                         the kernel drained the TX ring, which now takes `frames`
 *  11 QUERY        -                                 irq_level, can_receive, holds_region of every region
 *
 * Oracles: AddressSanitizer and UndefinedBehaviorSanitizer (any report aborts), the fake platform (a commit
 * shorter than 14 bytes or longer than the reservation aborts), and the checks below (the interrupt line is 0 or
 * 1, every frame on the link is 14..MTU + 18 bytes, counters only grow). The seed corpus is made by gen-seeds.py.
 */
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_platform.h"
#include "fuzz_input.h"

#if defined(FUZZ_CARD_DEC21140)
#include "dec21140.h"
#define CARD (&shim_dec21140_card)
/* The 21140's descriptors and setup frames are little-endian (CSR0.DBO clear). */
#define CARD_WORD(v) htole32(v)
/* One work area (rings, setup frame, buffers) and two at the top of 32-bit bus space, where bus + length wraps. */
static const fake_region_t REGIONS[] = {
    {0x00100000u, NULL, 0x10000u},
    {0x7FFFF000u, NULL, 0x1000u},
    {0xFFFFF000u, NULL, 0x1000u},
};
#elif defined(FUZZ_CARD_SBA200)
#include "sba200_unet.h"
#define CARD (&shim_sba200_eth_card)
/* The SBA-200's board RAM and host structures are big-endian. */
#define CARD_WORD(v) htobe32(v)
/* Two segments side by side, a receive queue, a statistics buffer, and one at the top of 32-bit bus space. */
static const fake_region_t REGIONS[] = {
    {0x00100000u, NULL, 0x4000u},
    {0x00104000u, NULL, 0x4000u},
    {0x00200000u, NULL, 0x1000u},
    {0x00400000u, NULL, 0x1000u},
    {0xFFFFF000u, NULL, 0x1000u},
};
#else
#error "compile with -DFUZZ_CARD_DEC21140 or -DFUZZ_CARD_SBA200"
#endif

#define REGION_COUNT (sizeof(REGIONS) / sizeof(REGIONS[0]))
#define WINDOW_BYTES NICSHIM_SBA200_RAM_SIZE /* the largest range of either card */

enum { OP_REG_WRITE, OP_REG_READ, OP_WINDOW_POKE, OP_DMA_POKE, OP_DMA_FILL, OP_RECEIVE, OP_WORK, OP_TIME, OP_LINK,
       OP_RUN, OP_TX_ROOM, OP_QUERY, OP_COUNT };

static shim_t shim;                      /* large (captured frames): static, reset per input */
static _Alignas(4096) uint8_t windows[2][WINDOW_BYTES];
static uint8_t frame[FAKE_FRAME_MAX];

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_card(%s): invariant broken: %s\n", CARD->name, what);
        abort();
    }
}

static uint32_t range_of(fuzz_input_t *in) {
    return fuzz_u8(in) % CARD->range_count;
}

/** A 4-aligned offset inside `size` bytes (the platform's register check; also where a 32-bit store fits). */
static uint32_t offset_in(fuzz_input_t *in, uint64_t size) {
    return (uint32_t)(fuzz_u32(in) % size) & ~3u;
}

static void store_word(uint8_t *p, uint32_t v) {
    v = CARD_WORD(v);
    memcpy(p, &v, 4);
}

/** The link's frames so far must be ones the card may send; then the ring is empty again. */
static void check_and_drain_link(void) {
    for (int i = 0; i < shim.tx_count; i++) {
        /* the platform's bound: the interface MTU plus the Ethernet header and one 802.1Q tag */
        check(shim.tx_len[i] >= 14 && shim.tx_len[i] <= shim.mtu + 14 + 4, "a transmitted frame's length");
    }
    shim.tx_count = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input_t in = {data, size};
    fake_init(&shim);
    fake_set_time(1000000000ull);
    uint8_t *host[REGION_COUNT];
    for (size_t r = 0; r < REGION_COUNT; r++) {
        host[r] = fake_add_region(&shim, REGIONS[r].bus, REGIONS[r].len);
    }
    void *card = CARD->create(&shim, NULL);
    check(card != NULL, "create");
    for (uint32_t r = 0; r < CARD->range_count; r++) {
        memset(windows[r], 0xA5, CARD->range_size[r]); /* garbage: attach loads the reset values */
        CARD->attach(card, r, windows[r]);
    }
    CARD->start(card);
    if (CARD->link != NULL) {
        CARD->link(card, 1);
    }
    int running = 1;
    uint64_t now = 1000000000ull;
    uint64_t before[SHIM_STAT_COUNT];

    while (fuzz_more(&in)) {
        memcpy(before, shim.stats, sizeof(before));
        uint8_t op = fuzz_u8(&in) % OP_COUNT;
        switch (op) {
        case OP_REG_WRITE: {
            uint32_t range = range_of(&in);
            uint32_t offset = offset_in(&in, CARD->range_size[range]);
            check(CARD->reg_write(card, range, offset, fuzz_u32(&in)) == NICSHIM_OK, "reg_write of a valid offset");
            break;
        }
        case OP_REG_READ: {
            uint32_t range = range_of(&in);
            uint32_t offset = offset_in(&in, CARD->range_size[range]);
            uint32_t value;
            check(CARD->reg_read(card, range, offset, &value) == NICSHIM_OK, "reg_read of a valid offset");
            break;
        }
        case OP_WINDOW_POKE: {
            uint32_t range = range_of(&in);
            uint32_t offset = offset_in(&in, CARD->range_size[range]);
            store_word(windows[range] + offset, fuzz_u32(&in));
            break;
        }
        case OP_DMA_POKE: {
            uint32_t r = fuzz_u8(&in) % REGION_COUNT;
            uint32_t offset = offset_in(&in, REGIONS[r].len);
            store_word(host[r] + offset, fuzz_u32(&in));
            break;
        }
        case OP_DMA_FILL: {
            uint32_t r = fuzz_u8(&in) % REGION_COUNT;
            uint32_t offset = fuzz_u32(&in) % REGIONS[r].len;
            uint32_t n = fuzz_u16(&in);
            if (n > REGIONS[r].len - offset) {
                n = (uint32_t)(REGIONS[r].len - offset);
            }
            fuzz_bytes(&in, host[r] + offset, n);
            break;
        }
        case OP_RECEIVE: {
            uint32_t len = fuzz_u16(&in) % FAKE_FRAME_MAX + 1;
            fuzz_bytes(&in, frame, len);
            if (running) {
                CARD->receive(card, frame, len);
            }
            break;
        }
        case OP_WORK: {
            uint32_t kicks = fuzz_u8(&in) & NICSHIM_KICK_ALL;
            uint32_t budget = (uint32_t)fuzz_u8(&in) + 1;
            if (running) {
                kicks |= shim.kicks; /* doorbells the card rang itself (nicshim_kick), as the platform collects them */
                shim.kicks = 0;
                CARD->work(card, kicks, budget);
            }
            break;
        }
        case OP_TIME: {
            now += (uint64_t)fuzz_u32(&in) * 1000u;
            fake_set_time(now);
            if (running && CARD->tick != NULL) {
                uint64_t deadline = CARD->next_deadline == NULL ? 0 : CARD->next_deadline(card);
                if (deadline <= now) {
                    CARD->tick(card, now);
                }
            }
            break;
        }
        case OP_LINK: {
            int up = fuzz_u8(&in) & 1;
            if (running && CARD->link != NULL) {
                CARD->link(card, up);
            }
            break;
        }
        case OP_RUN:
            if ((fuzz_u8(&in) & 1) != 0) {
                if (!running) {
                    CARD->start(card);
                    if (CARD->link != NULL) {
                        CARD->link(card, 1);
                    }
                    running = 1;
                }
            } else if (running) {
                CARD->stop(card);
                running = 0;
            }
            break;
        case OP_TX_ROOM:
            check_and_drain_link();
            shim.tx_capacity = fuzz_u8(&in) % (FAKE_MAX_TX + 1);
            break;
        case OP_QUERY: {
            int irq = CARD->irq_level(card);
            check(irq == 0 || irq == 1, "irq_level is 0 or 1");
            if (CARD->can_receive != NULL) {
                CARD->can_receive(card);
            }
            if (CARD->holds_region != NULL) {
                for (size_t r = 0; r < REGION_COUNT; r++) {
                    CARD->holds_region(card, host[r], REGIONS[r].len);
                }
            }
            break;
        }
        default:
            abort();
        }
        for (int s = 0; s < SHIM_STAT_COUNT; s++) {
            check(shim.stats[s] >= before[s], "statistics only grow");
        }
        if (shim.tx_count == FAKE_MAX_TX) {
            check_and_drain_link();
        }
    }
#ifdef FUZZ_TRACE /* -DFUZZ_TRACE: what an input reached, for checking that the seeds go where they should */
    fprintf(stderr, "%s: tx %d frames; stats", CARD->name, shim.tx_count);
    for (int s = 0; s < SHIM_STAT_COUNT; s++) {
        fprintf(stderr, " %llu", (unsigned long long)shim.stats[s]);
    }
    fprintf(stderr, "\n");
#endif
    check_and_drain_link();
    if (running) {
        CARD->stop(card);
    }
    CARD->destroy(card);
    fake_free(&shim);
    return 0;
}
