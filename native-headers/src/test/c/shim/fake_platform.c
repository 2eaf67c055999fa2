/* fake_platform.c - see fake_platform.h. */
#include "fake_platform.h"

#include <stdlib.h>
#include <string.h>

static uint64_t fake_clock;

void fake_init(shim_t *shim) {
    memset(shim, 0, sizeof(*shim));
    static const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
    memcpy(shim->mac, mac, sizeof(mac));
    shim->mtu = 1500;
    shim->tx_capacity = FAKE_MAX_TX;
}

uint8_t *fake_add_region(shim_t *shim, uint64_t bus, uint64_t len) {
    if (shim->region_count == FAKE_MAX_REGIONS) {
        abort();
    }
    uint8_t *host = calloc(1, len);
    if (host == NULL) {
        abort();
    }
    shim->regions[shim->region_count++] = (fake_region_t){bus, host, len};
    return host;
}

void fake_free(shim_t *shim) {
    for (int i = 0; i < shim->region_count; i++) {
        free(shim->regions[i].host);
    }
    shim->region_count = 0;
}

void *shim_dma(shim_t *shim, uint64_t bus, uint64_t len, shim_bus_fault_t *fault) {
    shim_bus_fault_t f = SHIM_BUS_NO_REGION;
    uint64_t n = len == 0 ? 1 : len;
    if (bus + n < bus) {
        f = SHIM_BUS_WRAP;
    } else {
        for (int i = 0; i < shim->region_count; i++) {
            const fake_region_t *r = &shim->regions[i];
            if (bus >= r->bus && bus - r->bus < r->len) {
                if (n <= r->len - (bus - r->bus)) {
                    if (fault != NULL) {
                        *fault = SHIM_BUS_OK;
                    }
                    return r->host + (bus - r->bus);
                }
                f = SHIM_BUS_PAST_END;
                break;
            }
        }
    }
    if (fault != NULL) {
        *fault = f;
    }
    return NULL;
}

uint8_t *shim_tx_reserve(shim_t *shim, uint32_t max_len) {
    if (shim->tx_reserved || shim->tx_count >= shim->tx_capacity || max_len > FAKE_FRAME_MAX) {
        return NULL;
    }
    shim->tx_reserved = 1;
    return shim->tx[shim->tx_count];
}

void shim_tx_commit(shim_t *shim, uint32_t len) {
    if (!shim->tx_reserved || len < 14 || len > FAKE_FRAME_MAX) {
        abort(); /* a card bug: the test must fail loudly */
    }
    shim->tx_reserved = 0;
    shim->tx_len[shim->tx_count++] = len;
}

void shim_tx_abort(shim_t *shim) {
    shim->tx_reserved = 0;
}

int shim_tx_frame(shim_t *shim, const uint8_t *frame, uint32_t len) {
    uint8_t *slot = shim_tx_reserve(shim, len);
    if (slot == NULL) {
        return 0;
    }
    memcpy(slot, frame, len);
    shim_tx_commit(shim, len);
    return 1;
}

const uint8_t *shim_mac(const shim_t *shim) {
    return shim->mac;
}

uint32_t shim_mtu(const shim_t *shim) {
    return shim->mtu;
}

void shim_set_rx_mode(shim_t *shim, uint32_t mode) {
    shim->rx_mode = mode;
    shim->rx_mode_calls++;
}

int32_t nicshim_kick(nicshim_t *shim, uint32_t what) {
    if (shim == NULL || (what & ~NICSHIM_KICK_ALL) != 0) {
        return NICSHIM_ERR_INVALID;
    }
    shim->kicks |= what;
    shim->stats[SHIM_STAT_KICKS]++;
    return NICSHIM_OK;
}

void fake_set_time(uint64_t now_ns) {
    fake_clock = now_ns;
}

uint64_t shim_now_ns(void) {
    return fake_clock;
}

void shim_count(shim_t *shim, enum shim_stat stat, uint64_t n) {
    shim->stats[stat] += n;
}
