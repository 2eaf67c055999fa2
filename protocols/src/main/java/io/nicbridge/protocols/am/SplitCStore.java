package io.nicbridge.protocols.am;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Split-C's remote store on Active Messages (U-Net paper section 6, Table 3's "Split-C store"): a global pointer's
 * store {@code *p := v} is a request to the node holding {@code p}, whose handler writes the word and replies; a
 * bulk store is an Active Messages block store whose handler replies. {@link #sync()} (Split-C's
 * {@code store_sync}) is true once every store issued has been acknowledged by such a reply.
 *
 * <p>Handler indices {@link #PUT}, {@link #BULK} and {@link #DONE} of the core are taken (register nothing else
 * there); every node of the program builds one over its core. Words are big-endian 32-bit at byte addresses of the
 * node's {@link AmCore#memory()}. Nothing allocates.
 */
public final class SplitCStore {
    public static final int PUT = 250;
    public static final int BULK = 251;
    public static final int DONE = 252;

    private static final ValueLayout.OfInt WORD = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final AmCore am;
    private long pending;
    private long acknowledged;

    public SplitCStore(AmCore am) {
        this.am = am;
        am.register(PUT, (t, address, value, unused2, unused3) -> {
            if (address >= 0 && address <= am.memory().byteSize() - 4) {
                am.memory().set(WORD, address, value);
            }
            am.reply(t, DONE, 0, 0, 0, 0);
        });
        am.register(BULK, (t, address, nbytes, arg, unused) -> am.reply(t, DONE, 0, 0, 0, 0));
        am.register(DONE, (t, a0, a1, a2, a3) -> {
            pending--;
            acknowledged++;
        });
    }

    /**
     * {@code *(peer, address) := value}. @return {@link AmCore#OK} or {@link AmCore#BACK_PRESSURE} (poll, retry)
     *
     * @throws IllegalArgumentException for a bad peer or an address whose word is outside the memory
     */
    public int put(int peer, int address, int value) {
        if (address < 0 || address > am.memory().byteSize() - 4) {
            throw new IllegalArgumentException("address " + address + " does not hold a word of the "
                    + am.memory().byteSize() + "-byte memory");
        }
        int r = am.request(peer, PUT, address, value, 0, 0);
        if (r == AmCore.OK) {
            pending++;
        }
        return r;
    }

    /** Bulk store of {@code nbytes} of {@code src} to {@code address} on {@code peer}: as {@link AmCore#store}. */
    public int bulkPut(int peer, MemorySegment src, long srcOffset, int address, int nbytes) {
        int r = am.store(peer, src, srcOffset, address, nbytes, BULK, 0);
        if (r == AmCore.OK) {
            pending++;
        }
        return r;
    }

    /** @return true when every store issued has been acknowledged (Split-C's store_sync condition) */
    public boolean sync() {
        return pending == 0;
    }

    /** @return stores acknowledged so far */
    public long acknowledged() {
        return acknowledged;
    }
}
