package io.nicbridge.bridge.driver.tulip;

import static io.nicbridge.contract.Dec21140.*;

import io.nicbridge.bridge.queue.Dec21140DescriptorRing.ListMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link TulipDriver} sets the chip up. Defaults are Linux's tulip driver's: RX ring 128, TX ring 32, RX
 * buffers 1540 bytes (1536 + 4), ring mode with the next-descriptor address also in word 3, PBL 8 / CAL 1 (the
 * fallback when no cache-line size is known), interrupts on, perfect filtering with station + broadcast.
 *
 * <p>Immutable; build with {@link #builder()}. Every bound is checked in {@link Builder#build()} with a message
 * that names the bad value.
 */
public final class TulipConfig {
    /** How the driver learns about work: the chip's interrupt line, or by looking at the descriptors. */
    public enum InterruptMode {
        /** CSR7 enables Linux's valid interrupt sources; {@link TulipDriver#await} parks on the line. */
        INTERRUPT,
        /** CSR7 = 0; the driver polls descriptors (and backs off while waiting). */
        POLLING
    }

    /** Most multicast addresses perfect filtering holds: 16 slots minus station and broadcast (Linux: 14). */
    public static final int PERFECT_MULTICAST_LIMIT = SETUP_PERFECT_ENTRIES - 2;
    /** Smallest RX buffer: a maximum frame with FCS, rounded up to the 4-byte size unit. */
    public static final int MIN_RX_BUFFER = (ETH_MAX_FRAME + 3) & ~3;
    /** Largest RX buffer: the biggest multiple of 4 the 11-bit RBS1 field holds. */
    public static final int MAX_RX_BUFFER = BUFFER_SIZE_MAX & ~3;
    /** Largest ring (either direction) this driver sets up. */
    public static final int MAX_RING = 4096;
    /** A setup frame behind a dummy descriptor takes two TX entries; one more is needed for a frame. */
    public static final int MIN_TX_RING = 3;

    private final int rxRingSize;
    private final int txRingSize;
    private final int rxBufferSize;
    private final ListMode listMode;
    private final int skipLongwords;
    private final InterruptMode interruptMode;
    private final List<MacAddress> multicast;
    private final boolean promiscuous;
    private final boolean allMulticast;
    private final boolean fullDuplex;
    private final int burstLength;
    private final int cacheAlignment;
    private final long resetTimeoutNanos;
    private final long stopTimeoutNanos;

    private TulipConfig(Builder b) {
        this.rxRingSize = b.rxRingSize;
        this.txRingSize = b.txRingSize;
        this.rxBufferSize = b.rxBufferSize;
        this.listMode = b.listMode;
        this.skipLongwords = b.skipLongwords;
        this.interruptMode = b.interruptMode;
        this.multicast = List.copyOf(b.multicast);
        this.promiscuous = b.promiscuous;
        this.allMulticast = b.allMulticast;
        this.fullDuplex = b.fullDuplex;
        this.burstLength = b.burstLength;
        this.cacheAlignment = b.cacheAlignment;
        this.resetTimeoutNanos = b.resetTimeoutNanos;
        this.stopTimeoutNanos = b.stopTimeoutNanos;
    }

    public static TulipConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding this configuration's values */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.rxRingSize = rxRingSize;
        b.txRingSize = txRingSize;
        b.rxBufferSize = rxBufferSize;
        b.listMode = listMode;
        b.skipLongwords = skipLongwords;
        b.interruptMode = interruptMode;
        b.multicast.addAll(multicast);
        b.promiscuous = promiscuous;
        b.allMulticast = allMulticast;
        b.fullDuplex = fullDuplex;
        b.burstLength = burstLength;
        b.cacheAlignment = cacheAlignment;
        b.resetTimeoutNanos = resetTimeoutNanos;
        b.stopTimeoutNanos = stopTimeoutNanos;
        return b;
    }

    public int rxRingSize() {
        return rxRingSize;
    }

    public int txRingSize() {
        return txRingSize;
    }

    public int rxBufferSize() {
        return rxBufferSize;
    }

    public ListMode listMode() {
        return listMode;
    }

    /** CSR0.DSL: longwords between ring-mode descriptors (0 in chain mode, where it is not used). */
    public int skipLongwords() {
        return skipLongwords;
    }

    public InterruptMode interruptMode() {
        return interruptMode;
    }

    public List<MacAddress> multicast() {
        return multicast;
    }

    public boolean promiscuous() {
        return promiscuous;
    }

    public boolean allMulticast() {
        return allMulticast;
    }

    public boolean fullDuplex() {
        return fullDuplex;
    }

    /** CSR0.PBL in longwords. */
    public int burstLength() {
        return burstLength;
    }

    /** CSR0.CAL code. */
    public int cacheAlignment() {
        return cacheAlignment;
    }

    public long resetTimeoutNanos() {
        return resetTimeoutNanos;
    }

    public long stopTimeoutNanos() {
        return stopTimeoutNanos;
    }

    @Override
    public String toString() {
        return "TulipConfig[rx " + rxRingSize + " x " + rxBufferSize + " B, tx " + txRingSize + ", " + listMode
            + (skipLongwords > 0 ? " DSL " + skipLongwords : "") + ", " + interruptMode + ", multicast "
            + multicast.size() + (promiscuous ? ", promiscuous" : "") + (allMulticast ? ", all-multicast" : "")
            + (fullDuplex ? ", full duplex" : "") + ", PBL " + burstLength + ", CAL " + cacheAlignment + "]";
    }

    /** Mutable builder; {@link #build()} validates. */
    public static final class Builder {
        private int rxRingSize = LINUX_RX_RING_SIZE;
        private int txRingSize = LINUX_TX_RING_SIZE;
        private int rxBufferSize = LINUX_RX_BUF_SIZE;
        private ListMode listMode = ListMode.RING;
        private int skipLongwords;
        private InterruptMode interruptMode = InterruptMode.INTERRUPT;
        private final List<MacAddress> multicast = new ArrayList<>();
        private boolean promiscuous;
        private boolean allMulticast;
        private boolean fullDuplex;
        private int burstLength = PBL_8;
        private int cacheAlignment = CAL_8LW;
        private long resetTimeoutNanos = 10_000_000L;
        private long stopTimeoutNanos = 10_000_000L;

        private Builder() {
        }

        public Builder rxRingSize(int n) {
            this.rxRingSize = n;
            return this;
        }

        public Builder txRingSize(int n) {
            this.txRingSize = n;
            return this;
        }

        public Builder rxBufferSize(int bytes) {
            this.rxBufferSize = bytes;
            return this;
        }

        public Builder listMode(ListMode mode) {
            this.listMode = Objects.requireNonNull(mode, "listMode");
            return this;
        }

        public Builder skipLongwords(int dsl) {
            this.skipLongwords = dsl;
            return this;
        }

        public Builder interruptMode(InterruptMode mode) {
            this.interruptMode = Objects.requireNonNull(mode, "interruptMode");
            return this;
        }

        /** Replaces the multicast list. */
        public Builder multicast(List<MacAddress> addresses) {
            Objects.requireNonNull(addresses, "addresses");
            this.multicast.clear();
            for (MacAddress a : addresses) {
                addMulticast(a);
            }
            return this;
        }

        public Builder addMulticast(MacAddress address) {
            Objects.requireNonNull(address, "address");
            this.multicast.add(address);
            return this;
        }

        public Builder promiscuous(boolean on) {
            this.promiscuous = on;
            return this;
        }

        public Builder allMulticast(boolean on) {
            this.allMulticast = on;
            return this;
        }

        public Builder fullDuplex(boolean on) {
            this.fullDuplex = on;
            return this;
        }

        public Builder burstLength(int pbl) {
            this.burstLength = pbl;
            return this;
        }

        public Builder cacheAlignment(int cal) {
            this.cacheAlignment = cal;
            return this;
        }

        public Builder resetTimeoutNanos(long nanos) {
            this.resetTimeoutNanos = nanos;
            return this;
        }

        public Builder stopTimeoutNanos(long nanos) {
            this.stopTimeoutNanos = nanos;
            return this;
        }

        /** @throws IllegalArgumentException naming the first bad value */
        public TulipConfig build() {
            if (rxRingSize < 1 || rxRingSize > MAX_RING) {
                throw new IllegalArgumentException("RX ring size must be 1.." + MAX_RING + ", was " + rxRingSize);
            }
            if (txRingSize < MIN_TX_RING || txRingSize > MAX_RING) {
                throw new IllegalArgumentException("TX ring size must be " + MIN_TX_RING + ".." + MAX_RING
                    + " (a setup frame behind Linux's dummy descriptor takes 2 entries), was " + txRingSize);
            }
            if (rxBufferSize < MIN_RX_BUFFER || rxBufferSize > MAX_RX_BUFFER || (rxBufferSize & 3) != 0) {
                throw new IllegalArgumentException("RX buffer size must be a multiple of 4 in " + MIN_RX_BUFFER + ".."
                    + MAX_RX_BUFFER + " (a maximum frame with FCS, up to the RBS1 field), was " + rxBufferSize);
            }
            int maxDsl = CSR0_DSL_MASK >>> CSR0_DSL_SHIFT;
            if (skipLongwords < 0 || skipLongwords > maxDsl) {
                throw new IllegalArgumentException("descriptor skip length (CSR0.DSL) must be 0.." + maxDsl
                    + " longwords, was " + skipLongwords);
            }
            if (burstLength != PBL_UNLIMITED && burstLength != PBL_1 && burstLength != PBL_2 && burstLength != PBL_4
                && burstLength != PBL_8 && burstLength != PBL_16 && burstLength != PBL_32) {
                throw new IllegalArgumentException("burst length (CSR0.PBL) must be 0, 1, 2, 4, 8, 16 or 32 longwords,"
                    + " was " + burstLength);
            }
            if (cacheAlignment < CAL_NONE || cacheAlignment > CAL_32LW) {
                throw new IllegalArgumentException("cache alignment (CSR0.CAL) must be 0..3, was " + cacheAlignment);
            }
            for (MacAddress a : multicast) {
                if (!a.isMulticast()) {
                    throw new IllegalArgumentException("multicast list entry " + a
                        + " is not a group address (bit 0 of the first byte is clear)");
                }
            }
            if (resetTimeoutNanos <= 0 || stopTimeoutNanos <= 0) {
                throw new IllegalArgumentException("reset and stop timeouts must be positive, were "
                    + resetTimeoutNanos + " and " + stopTimeoutNanos + " ns");
            }
            return new TulipConfig(this);
        }
    }
}
