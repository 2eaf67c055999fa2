/*
 * sba200_diff_runner.c - the C half of the U-Net firmware differential test (sim-hardware
 * io.nicbridge.sim.diff.Sba200DiffTest): runs a scenario of Sba200Scenario on the shim's U-Net-over-Ethernet card
 * (sba200_eth_card.c on the fake platform, MTU 9000) and prints the trace Sba200JavaRunner prints for the Java
 * firmware (Sba200Model); the two must be identical. The scenario format and the trace are documented in
 * Sba200Scenario.java. Where the media differ the trace shows the PDU, not its framing: a transmitted PDU is
 * "TX vpi vci length crc32(payload)" whether it left as AAL5 cells or as one Ethernet frame, and a received PDU
 * is handed over as one frame here and as its AAL5 cells on the Java side.
 *
 * Usage: sba200_diff_runner SCENARIO
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_platform.h"
#include "nicshim.h"
#include "sba200_unet.h"

#define BUS 0x100000u
#define MEM 0x40000u
#define RQ_AREA 0x1000u   /* endpoint e's receive queue: RQ_AREA + e * 0x1000 */
#define SEG_AREA 0x8000u  /* endpoint e's segment: SEG_AREA + e * SEG_STRIDE */
#define SEG_STRIDE 0x8000u
#define ENDPOINTS 4
#define HEARTBEAT (SBA200_UNET_UG_OFS + SBA200_UNET_UG_HEARTBEAT_OFS)
#define FRAME_MAX (NICSHIM_UNET_ETH_HEADER_SIZE + NICSHIM_UNET_TAG_SIZE + SBA200_UNET_MAX_PDU)

static shim_t S;
static const shim_card_ops_t *O = &shim_sba200_eth_card;
static void *card;
static uint8_t *mem;
static _Alignas(8) uint8_t bcr[SBA200_UNET_BCR_RANGE_SIZE];
static _Alignas(8) uint8_t ram[SBA200_UNET_RAM_SIZE];
static uint32_t posted[ENDPOINTS]; /* send descriptors written but not yet rung (the runner's, as on the Java side) */

static uint32_t crc(const uint8_t *p, size_t n) {
    uint32_t r = ~0u;
    for (size_t i = 0; i < n; i++) {
        r ^= p[i];
        for (int k = 0; k < 8; k++) {
            r = (r & 1) ? (r >> 1) ^ 0xEDB88320u : r >> 1;
        }
    }
    return ~r;
}
static uint32_t num(const char *s) {
    return s[0] == '@' ? (uint32_t)(BUS + strtoull(s + 1, NULL, 10)) : (uint32_t)strtoull(s, NULL, 10);
}
static uint32_t rd(uint32_t off) {
    uint32_t v = 0;
    O->reg_read(card, NICSHIM_RANGE_SBA200_RAM, off, &v);
    return v;
}
static void wr(uint32_t off, uint32_t v) {
    O->reg_write(card, NICSHIM_RANGE_SBA200_RAM, off, v);
}
static uint32_t mem_be(uint32_t off) {
    uint32_t v;
    memcpy(&v, mem + off, 4);
    return be32toh(v);
}
static void mem_put_be(uint32_t off, uint32_t v) {
    v = htobe32(v);
    memcpy(mem + off, &v, 4);
}
static uint32_t page(uint32_t ep) {
    return SBA200_UNET_EP_PAGE_OFFSET(ep);
}

/* The card does what the i960 would after the operation: commands, send queues, until nothing is left. */
static void settle(void) {
    for (;;) {
        uint32_t ev = O->work(card, 0, 1024);
        for (int i = 0; i < S.tx_count; i++) {
            const uint8_t *f = S.tx[i];
            const uint8_t *tag = f + NICSHIM_UNET_ETH_HEADER_SIZE;
            uint32_t h = (uint32_t)tag[0] << 24 | (uint32_t)tag[1] << 16 | (uint32_t)tag[2] << 8 | tag[3];
            uint32_t len = (uint32_t)tag[4] << 8 | tag[5];
            uint32_t have = S.tx_len[i] - NICSHIM_UNET_ETH_HEADER_SIZE - NICSHIM_UNET_TAG_SIZE;
            int good = len <= have && (h & SBA200_UNET_HDR_PTI_MASK) >> SBA200_UNET_HDR_PTI_SHIFT == SBA200_UNET_PTI_AUU;
            printf("TX %u %u %u %x%s\n", (h & SBA200_UNET_HDR_VPI_MASK) >> SBA200_UNET_HDR_VPI_SHIFT,
                   (h & SBA200_UNET_HDR_VCI_MASK) >> SBA200_UNET_HDR_VCI_SHIFT, len,
                   crc(tag + NICSHIM_UNET_TAG_SIZE, len <= have ? len : have), good ? "" : " BADPDU");
        }
        int sent = S.tx_count;
        S.tx_count = 0;
        if (ev == 0 && sent == 0) {
            return;
        }
    }
}

static void command(char **t) {
    uint32_t prod = rd(SBA200_UNET_UG_OFS + SBA200_UNET_UG_CMD_PROD_OFS);
    uint32_t cons = rd(SBA200_UNET_UG_OFS + SBA200_UNET_UG_CMD_CONS_OFS);
    if (prod - cons >= SBA200_UNET_CMDQ_LEN) {
        printf("KFULL\n");
        return;
    }
    uint32_t slot = SBA200_UNET_CMD_OFFSET(prod & (SBA200_UNET_CMDQ_LEN - 1));
    for (int a = 0; a < 5; a++) {
        wr(slot + SBA200_UNET_CMD_ARG_OFS + 4 * a, num(t[2 + a]));
    }
    wr(slot + SBA200_UNET_CMD_ARG_OFS + 20, 0);
    wr(slot + SBA200_UNET_CMD_OP_OFS, num(t[1]));
    wr(slot + SBA200_UNET_CMD_STATUS_OFS, SBA200_UNET_CMD_STATUS_PENDING);
    wr(SBA200_UNET_UG_OFS + SBA200_UNET_UG_CMD_PROD_OFS, prod + 1);
}

static void send_descriptor(char **t) {
    uint32_t ep = num(t[1]);
    uint32_t p = page(ep);
    uint32_t prod = rd(p + SBA200_UNET_EPCB_SQ_PROD_OFS) + posted[ep];
    if (prod - rd(p + SBA200_UNET_EPCB_SQ_CONS_OFS) >= SBA200_UNET_SQ_LEN) {
        printf("SQFULL %u\n", ep);
        return;
    }
    uint32_t d = p + SBA200_UNET_SQ_SLOT_OFFSET(prod & (SBA200_UNET_SQ_LEN - 1));
    for (int w = 2; w < 14; w++) {
        wr(d + 4 * w, num(t[1 + w]));
    }
    wr(d + SBA200_UNET_SEND_DESC_STATUS_OFS, SBA200_UNET_TX_STATUS_PENDING);
    wr(d + SBA200_UNET_SEND_DESC_W0_OFS, num(t[2]));
    posted[ep]++;
}

static void free_buffer(uint32_t ep, uint32_t off, uint32_t len) {
    uint32_t p = page(ep);
    uint32_t prod = rd(p + SBA200_UNET_EPCB_FQ_PROD_OFS);
    if (prod - rd(p + SBA200_UNET_EPCB_FQ_CONS_OFS) >= SBA200_UNET_FQ_LEN) {
        printf("FQFULL %u\n", ep);
        return;
    }
    uint32_t slot = p + SBA200_UNET_FQ_SLOT_OFFSET(prod & (SBA200_UNET_FQ_LEN - 1));
    wr(slot, off);
    wr(slot + 4, len);
    wr(p + SBA200_UNET_EPCB_FQ_PROD_OFS, prod + 1);
}

/* The process's receive loop: up to n entries, printed as it sees them; L > 0 gives the buffers back as L bytes. */
static void consume(uint32_t ep, uint32_t n, uint32_t recycle) {
    uint32_t p = page(ep);
    uint32_t rq_len = rd(p + SBA200_UNET_EPCB_RQ_LEN_OFS);
    if (rq_len == 0) {
        return;
    }
    uint32_t q = RQ_AREA + ep * 0x1000u;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t cons = rd(p + SBA200_UNET_EPCB_RQ_CONS_OFS);
        uint32_t e = q + (cons & (rq_len - 1)) * SBA200_UNET_RQ_ENTRY_SIZE;
        uint32_t w0 = mem_be(e);
        if ((w0 & SBA200_UNET_RX_VALID) == 0) {
            return;
        }
        printf("RQ %u %x %x", ep, w0, mem_be(e + 4));
        uint32_t len = (w0 & SBA200_UNET_RX_LENGTH_MASK) >> SBA200_UNET_RX_LENGTH_SHIFT;
        uint32_t nbufs = (w0 & SBA200_UNET_RX_NBUFS_MASK) >> SBA200_UNET_RX_NBUFS_SHIFT;
        uint32_t bufs[SBA200_UNET_MAX_BUFS][2];
        uint32_t listed = 0;
        if ((w0 & SBA200_UNET_RX_INLINE) != 0) {
            printf(" I");
            for (uint32_t i = 0; i < len && i < SBA200_UNET_INLINE_MAX; i++) {
                printf("%02x", mem[e + SBA200_UNET_RECV_DESC_INLINE_OFS + i]);
            }
        } else {
            for (uint32_t b = 0; b < nbufs && b < SBA200_UNET_MAX_BUFS; b++) {
                uint32_t off = mem_be(e + 8 + 8 * b);
                uint32_t blen = mem_be(e + 12 + 8 * b);
                if ((uint64_t)off + blen <= SEG_STRIDE) {
                    printf(" %u:%u:%x", off, blen, crc(mem + SEG_AREA + ep * SEG_STRIDE + off, blen));
                } else {
                    printf(" %u:%u:oob", off, blen);
                }
                bufs[listed][0] = off;
                bufs[listed++][1] = blen;
            }
        }
        printf("\n");
        mem_put_be(e, 0);
        wr(p + SBA200_UNET_EPCB_RQ_CONS_OFS, cons + 1);
        for (uint32_t b = 0; recycle != 0 && b < listed; b++) {
            free_buffer(ep, bufs[b][0], recycle);
        }
    }
}

/* A PDU from the network: one frame with the U-Net tag (the Java side gets the same PDU as AAL5 cells). */
static void receive(char **t) {
    static uint8_t f[FRAME_MAX];
    uint32_t vpi = num(t[1]), vci = num(t[2]), len = num(t[3]), seed = num(t[4]);
    memset(f, 0xFF, 6);
    memcpy(f + 6, (const uint8_t[]){2, 0, 0, 0, 0, 2}, 6);
    f[12] = (uint8_t)(NICSHIM_UNET_ETHERTYPE_DEFAULT >> 8);
    f[13] = (uint8_t)NICSHIM_UNET_ETHERTYPE_DEFAULT;
    uint32_t h = htobe32(vpi << SBA200_UNET_HDR_VPI_SHIFT | vci << SBA200_UNET_HDR_VCI_SHIFT |
                         SBA200_UNET_PTI_AUU << SBA200_UNET_HDR_PTI_SHIFT);
    uint8_t *tag = f + NICSHIM_UNET_ETH_HEADER_SIZE;
    memcpy(tag, &h, 4);
    tag[4] = (uint8_t)(len >> 8);
    tag[5] = (uint8_t)len;
    tag[6] = tag[7] = 0;
    for (uint32_t i = 0; i < len; i++) {
        tag[NICSHIM_UNET_TAG_SIZE + i] = (uint8_t)(i * 13 + seed);
    }
    O->receive(card, f, NICSHIM_UNET_ETH_HEADER_SIZE + NICSHIM_UNET_TAG_SIZE + len);
}

static void dump(void) {
    for (uint32_t off = 0; off < SBA200_UNET_RAM_SIZE; off += 4) {
        uint32_t v = rd(off);
        if (v != 0 && off != HEARTBEAT) {
            printf("R %x %x\n", off, v);
        }
    }
    for (uint32_t off = 0; off < SEG_AREA; off += 4) {
        int timestamp = off >= RQ_AREA && off < RQ_AREA + ENDPOINTS * 0x1000u &&
                        (off & (SBA200_UNET_RQ_ENTRY_SIZE - 1)) >= SBA200_UNET_RECV_DESC_TIMESTAMP_OFS;
        uint32_t v = mem_be(off);
        if (v != 0 && !timestamp) {
            printf("M %x %x\n", off, v);
        }
    }
    for (uint32_t off = SEG_AREA; off < SEG_AREA + ENDPOINTS * SEG_STRIDE; off += 0x400) {
        printf("S %x %x\n", off, crc(mem + off, 0x400));
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s SCENARIO\n", argv[0]);
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (in == NULL) {
        perror(argv[1]);
        return 2;
    }
    fake_init(&S);
    S.mtu = 9000;
    mem = fake_add_region(&S, BUS, MEM);
    card = O->create(&S, NULL);
    O->attach(card, NICSHIM_RANGE_SBA200_BCR, bcr);
    O->attach(card, NICSHIM_RANGE_SBA200_RAM, ram);
    O->start(card);
    char line[1024];
    int k = 0;
    while (fgets(line, sizeof line, in)) {
        char *t[20] = {0};
        int n = 0;
        char *sp;
        for (char *x = strtok_r(line, " \n", &sp); x != NULL && n < 20; x = strtok_r(NULL, " \n", &sp)) {
            t[n++] = x;
        }
        if (n == 0) {
            continue;
        }
        if (!strcmp(t[0], "W")) {
            wr(num(t[1]), num(t[2]));
        } else if (!strcmp(t[0], "B")) {
            O->reg_write(card, NICSHIM_RANGE_SBA200_BCR, 0, num(t[1]));
        } else if (!strcmp(t[0], "K")) {
            command(t);
        } else if (!strcmp(t[0], "P")) {
            uint32_t off = num(t[1]), len = num(t[2]), seed = num(t[3]);
            for (uint32_t i = 0; i < len; i++) {
                mem[off + i] = (uint8_t)(i * 7 + seed);
            }
        } else if (!strcmp(t[0], "T")) {
            send_descriptor(t);
        } else if (!strcmp(t[0], "TD")) {
            uint32_t ep = num(t[1]);
            uint32_t p = page(ep);
            wr(p + SBA200_UNET_EPCB_SQ_PROD_OFS, rd(p + SBA200_UNET_EPCB_SQ_PROD_OFS) + posted[ep]);
            posted[ep] = 0;
        } else if (!strcmp(t[0], "F")) {
            free_buffer(num(t[1]), num(t[2]), num(t[3]));
        } else if (!strcmp(t[0], "RX")) {
            receive(t);
        } else if (!strcmp(t[0], "C")) {
            consume(num(t[1]), num(t[2]), num(t[3]));
        } else if (!strcmp(t[0], "END")) {
            dump();
        } else {
            fprintf(stderr, "unknown operation %s\n", t[0]);
            return 2;
        }
        settle();
        uint32_t irq = 0;
        O->reg_read(card, NICSHIM_RANGE_SBA200_BCR, 0, &irq);
        printf("%d BCR %x PEND %x CONS %u\n", k++, irq, rd(SBA200_UNET_UG_OFS + SBA200_UNET_UG_UPCALL_PENDING_OFS),
               rd(SBA200_UNET_UG_OFS + SBA200_UNET_UG_CMD_CONS_OFS));
    }
    fclose(in);
    O->stop(card);
    O->destroy(card);
    fake_free(&S);
    return 0;
}
