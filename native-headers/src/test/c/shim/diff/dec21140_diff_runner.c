/*
 * dec21140_diff_runner.c - the C half of the 21140 differential test (sim-hardware
 * io.nicbridge.sim.diff.Dec21140DiffTest): runs a scenario of Dec21140Scenario on the shim's card (dec21140_card.c
 * on the fake platform, MTU 9000 so that only the chip's own limits apply) and prints the trace Dec21140JavaRunner
 * prints for the Java model. After every operation it does the card work a kick would (the Java model services
 * inline on each kick), until no transmit pass is left over.
 *
 * Usage: dec21140_diff_runner SCENARIO
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dec21140.h"
#include "fake_platform.h"
#define BUS 0x100000u
#define MEM 0x40000u
static shim_t S;
static _Alignas(8) uint8_t win[128];
static const uint8_t MAC[6] = {2,0,0,0,0,1}, PEER[6] = {2,0,0,0,0,2}, BCAST[6] = {255,255,255,255,255,255},
    MCAST[6] = {1,0,0x5e,0,0,1}, OTHER[6] = {2,0,0,0,0,0x77};
static uint32_t crc(const uint8_t *p, size_t n) { uint32_t r = ~0u; for (size_t i = 0; i < n; i++) { r ^= p[i]; for (int k = 0; k < 8; k++) r = (r & 1) ? (r >> 1) ^ 0xEDB88320u : r >> 1; } return ~r; }
static uint64_t val(const char *s) { return s[0] == '@' ? BUS + strtoull(s + 1, 0, 10) : strtoull(s, 0, 10); }
static const uint8_t *addr(const char *n) { return !strcmp(n,"MAC")?MAC:!strcmp(n,"PEER")?PEER:!strcmp(n,"BCAST")?BCAST:!strcmp(n,"MCAST")?MCAST:OTHER; }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
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
    char line[512];
    fake_init(&S); S.mtu = 9000; uint8_t *mem = fake_add_region(&S, BUS, MEM);
    const shim_card_ops_t *o = &shim_dec21140_card; void *card = o->create(&S, NULL); o->attach(card, 0, win);
    int k = 0;
    while (fgets(line, sizeof line, in)) {
        char *t[8] = {0}; int n = 0; char *sp;
        for (char *x = strtok_r(line, " \n", &sp); x && n < 8; x = strtok_r(NULL, " \n", &sp)) t[n++] = x;
        uint32_t v = 0;
        if (!strcmp(t[0], "W")) o->reg_write(card, 0, atoi(t[1]), (uint32_t)val(t[2]));
        else if (!strcmp(t[0], "R")) { o->reg_read(card, 0, atoi(t[1]), &v); printf("R %s %x\n", t[1], v); }
        else if (!strcmp(t[0], "D")) { uint8_t *d = mem + atoi(t[1]); put32(d+4,(uint32_t)val(t[3])); put32(d+8,(uint32_t)val(t[4])); put32(d+12,(uint32_t)val(t[5])); put32(d,(uint32_t)val(t[2])); }
        else if (!strcmp(t[0], "P")) { int off = atoi(t[1]), len = atoi(t[2]), s = atoi(t[3]); for (int i = 0; i < len; i++) mem[off+i] = (uint8_t)(i*7+s); }
        else if (!strcmp(t[0], "Z") || !strcmp(t[0], "H")) { uint8_t *s = mem + atoi(t[1]); memset(s, 0, 192);
            if (t[0][0] == 'Z') { for (int e = 0; e < 16; e++) { const uint8_t *a = e == 0 ? MCAST : e == 15 ? MAC : BCAST; uint8_t *p = s + 12*e; p[0]=a[0];p[1]=a[1];p[4]=a[2];p[5]=a[3];p[8]=a[4];p[9]=a[5]; } }
            else { const uint8_t *l[2] = {MCAST, BCAST}; for (int j = 0; j < 2; j++) { uint32_t i = ~crc(l[j], 6) & 0x1ff; s[4*(i>>4)+((i&15)>>3)] |= (uint8_t)(1u << (i&7)); }
                uint8_t *p = s + 156; p[0]=MAC[0];p[1]=MAC[1];p[4]=MAC[2];p[5]=MAC[3];p[8]=MAC[4];p[9]=MAC[5]; } }
        else if (!strcmp(t[0], "F")) { static uint8_t f[4096]; const uint8_t *dst = addr(t[1]); int len = atoi(t[2]), seed = atoi(t[3]), type = atoi(t[4]);
            memcpy(f, dst, 6); memcpy(f+6, dst == PEER ? MAC : PEER, 6); f[12] = (uint8_t)(type >> 8); f[13] = (uint8_t)type; for (int i = 14; i < len; i++) f[i] = (uint8_t)((i-14)*7+seed);
            o->receive(card, f, (uint32_t)len); }
        else if (!strcmp(t[0], "T")) { /* CSR11 = 1: one tick (at most 204.8 us), then the time passes */
            o->reg_write(card, 0, DEC21140_CSR11, 1); fake_set_time(shim_now_ns() + 250000u); o->tick(card, shim_now_ns()); }
        else if (!strcmp(t[0], "END")) {
            o->reg_read(card, 0, 0x30, &v); printf("CSR6 %x\n", v); o->reg_read(card, 0, 0x40, &v); printf("CSR8 %x\n", v);
            for (int off = 0; off < 0x2000; off += 4) { uint32_t w; memcpy(&w, mem + off, 4); if (w) printf("M %x %x\n", off, w); }
            for (int off = 0x8000; off < 0x10000; off += 0x100) printf("C %x %x\n", off, crc(mem + off, 0x100));
        }
        /* the Java model services inline on every kick; here: work until no pass is left over */
        o->work(card, S.kicks, 128); S.kicks = 0;
        while (o->next_deadline(card) == 0) o->tick(card, shim_now_ns());
        for (int i = 0; i < S.tx_count; i++) printf("TX %u %x\n", S.tx_len[i], crc(S.tx[i], S.tx_len[i]));
        S.tx_count = 0;
        o->reg_read(card, 0, 0x28, &v); printf("%d CSR5 %x\n", k++, v);
    }
    fclose(in);
    o->destroy(card); fake_free(&S); return 0;
}
