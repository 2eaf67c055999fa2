/*
 * shim_lib_test.c - checks the built libnicshim.so itself (the file the Java bindings load), not the sources:
 * it loads with dlopen, exports the nicshim_* API and hides the internal symbols (shim_dma, the card tables),
 * reports its ABI version, and answers calls that need no interface. It also prints which card models the
 * library contains (a kind whose model is missing answers NICSHIM_ERR_CARD_KIND).
 * Usage: shim_lib_test PATH/libnicshim.so
 */
#include "nicshim.h"
#include "shim_test.h"

#include <dlfcn.h>
#include <string.h>

static void *lib;

static void test_exports(void) {
    static const char *const api[] = {"nicshim_abi_version", "nicshim_open", "nicshim_close", "nicshim_get_info",
                                      "nicshim_attach_window", "nicshim_add_dma_region",
                                      "nicshim_remove_dma_region", "nicshim_reg_write", "nicshim_reg_read",
                                      "nicshim_start", "nicshim_stop", "nicshim_kick", "nicshim_poll",
                                      "nicshim_get_stats", "nicshim_strerror", "nicshim_set_umem",
                                      "nicshim_get_xdp_info", "nicshim_set_faults"};
    for (size_t i = 0; i < sizeof(api) / sizeof(api[0]); i++) {
        if (dlsym(lib, api[i]) == NULL) {
            fprintf(stderr, "  missing export %s\n", api[i]);
            CHECK(0);
        }
    }
    static const char *const hidden[] = {"shim_dma", "shim_count", "shim_tx_reserve", "shim_dec21140_card",
                                         "shim_sba200_eth_card", "shim_xsk_open", "shim_fault_next"};
    for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++) {
        if (dlsym(lib, hidden[i]) != NULL) {
            fprintf(stderr, "  internal symbol exported: %s\n", hidden[i]);
            CHECK(0);
        }
    }
}

static void test_calls(void) {
    uint32_t (*abi)(void) = (uint32_t (*)(void))dlsym(lib, "nicshim_abi_version");
    const char *(*strerror_)(int32_t) = (const char *(*)(int32_t))dlsym(lib, "nicshim_strerror");
    nicshim_t *(*open_)(const char *, uint32_t, const nicshim_options_t *, int32_t *) =
        (nicshim_t * (*)(const char *, uint32_t, const nicshim_options_t *, int32_t *)) dlsym(lib, "nicshim_open");
    if (abi == NULL || strerror_ == NULL || open_ == NULL) {
        CHECK(0);
        return;
    }
    CHECK_EQ(abi(), NICSHIM_ABI_VERSION);
    CHECK(strcmp(strerror_(NICSHIM_ERR_MTU), "unknown error") != 0);
    CHECK(strcmp(strerror_(NICSHIM_ERR_MIN - 1), "unknown error") == 0);
    int32_t err = 0;
    CHECK(open_(NULL, NICSHIM_CARD_DEC21140, NULL, &err) == NULL);
    CHECK_EQ(err, NICSHIM_ERR_INVALID);
    CHECK(open_("lo", 99, NULL, &err) == NULL);
    CHECK_EQ(err, NICSHIM_ERR_CARD_KIND);
    static const struct {
        uint32_t kind;
        const char *name;
    } kinds[] = {{NICSHIM_CARD_DEC21140, "dec21140"}, {NICSHIM_CARD_SBA200_UNET_ETH, "sba200-unet-eth"}};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        /* The kind is checked before the interface: NO_DEVICE means the model is there. */
        CHECK(open_("nbnosuch0", kinds[i].kind, NULL, &err) == NULL);
        CHECK(err == NICSHIM_ERR_NO_DEVICE || err == NICSHIM_ERR_CARD_KIND);
        printf("  card model %-16s %s\n", kinds[i].name, err == NICSHIM_ERR_NO_DEVICE ? "present" : "absent");
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: shim_lib_test PATH/libnicshim.so\n");
        return 2;
    }
    printf("shim_lib_test (%s)\n", argv[1]);
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    RUN(test_exports);
    RUN(test_calls);
    dlclose(lib);
    return shim_test_summary("shim_lib_test");
}
