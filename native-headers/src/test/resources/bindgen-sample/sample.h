/* A small header in the contract conventions, used to test BindGen itself. */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <stdint.h>

#define SAMPLE_BIG_ENDIAN 1

#define SAMPLE_FLAG_OWN     (1u << 31)
#define SAMPLE_FLAG_LAST    0x00000002u
#define SAMPLE_RING_SIZE    64
#define SAMPLE_NEGATIVE     (-5)
#define SAMPLE_WIDE_MASK    0xFFFF000000000000ull
#define SAMPLE_HUGE         (1ull << 40)
#define SAMPLE_DERIVED      (SAMPLE_RING_SIZE * 2 + 1)
#define SAMPLE_ALIGN(x)     (((x) + 7u) & ~7u)

typedef struct sample_entry {
    uint16_t len;
    uint8_t  flags;
    /* one byte of padding here */
    uint32_t addr;
} sample_entry_t;

typedef struct sample_ring {
    uint32_t head;
    /* four bytes of padding: stamp is 8-aligned */
    uint64_t stamp;
    uint8_t  mac[6];
    sample_entry_t entries[4];
    int16_t  delta;
} sample_ring_t;

typedef struct sample_handle sample_handle_t;

int sample_open(sample_handle_t **out, const char *name);
void sample_close(sample_handle_t *handle);
uint64_t sample_count(const sample_handle_t *handle, uint32_t which);

#endif /* SAMPLE_H */
