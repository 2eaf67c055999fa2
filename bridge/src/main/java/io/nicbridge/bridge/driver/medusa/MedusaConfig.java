package io.nicbridge.bridge.driver.medusa;

import io.nicbridge.contract.Medusa;

/**
 * How a {@link MedusaDriver} sets its card up. Immutable; build with {@link #builder()}.
 *
 * <p>Buffer split: the card has {@value Medusa#BUF_COUNT} buffers of 8 KiB. At init the driver gives
 * {@link #receiveBuffers()} of them to the card's FREE FIFO (buffers 0..R-1) and keeps the rest
 * (R..127) as its own transmit buffers. The paper's careful protocol used the same split (R receive buffers,
 * windows of floor(R/P) per peer).
 */
public final class MedusaConfig {
    /** Whether the driver sleeps on the card's interrupt line or polls the FIFOs. */
    public enum InterruptMode { INTERRUPT, POLLING }

    private final long stationAddress;
    private final int receiveBuffers;
    private final int treqMicros;
    private final boolean frameOffset3;
    private final boolean promiscuous;
    private final boolean keepFcs;
    private final boolean receiveChecksum;
    private final int receiveChecksumStart;
    private final InterruptMode interruptMode;
    private final boolean longFrames;

    private MedusaConfig(Builder b) {
        this.longFrames = b.longFrames;
        this.stationAddress = b.stationAddress;
        this.receiveBuffers = b.receiveBuffers;
        this.treqMicros = b.treqMicros;
        this.frameOffset3 = b.frameOffset3;
        this.promiscuous = b.promiscuous;
        this.keepFcs = b.keepFcs;
        this.receiveChecksum = b.receiveChecksum;
        this.receiveChecksumStart = b.receiveChecksumStart;
        this.interruptMode = b.interruptMode;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** @return the 48-bit station address, canonical bit order, byte 0 in bits 47:40 */
    public long stationAddress() {
        return stationAddress;
    }

    public int receiveBuffers() {
        return receiveBuffers;
    }

    public int transmitBuffers() {
        return Medusa.BUF_COUNT - receiveBuffers;
    }

    public int treqMicros() {
        return treqMicros;
    }

    /** @return true when frames start at byte 3 of a buffer (the card default), false for byte 0 */
    public boolean frameOffset3() {
        return frameOffset3;
    }

    public int frameOffset() {
        return frameOffset3 ? Medusa.FRAME_OFS_DEFAULT : Medusa.FRAME_OFS_ALT;
    }

    public boolean promiscuous() {
        return promiscuous;
    }

    public boolean keepFcs() {
        return keepFcs;
    }

    public boolean receiveChecksum() {
        return receiveChecksum;
    }

    public int receiveChecksumStart() {
        return receiveChecksumStart;
    }

    public InterruptMode interruptMode() {
        return interruptMode;
    }

    /** @return true when CTRL.LONG_FRAMES is set: frames up to the 8 KiB buffer, as the paper's board ran */
    public boolean longFrames() {
        return longFrames;
    }

    /**
     * @return the largest frame (FC..INFO, no FCS) the driver accepts: 4496 (FDDI's 4500 less the FCS), or with
     *         {@link #longFrames()} whatever fits the 8 KiB buffer after the frame offset and the FCS
     */
    public int maxFrameLength() {
        return longFrames ? Medusa.BUF_SIZE - frameOffset() - Medusa.FDDI_FCS_LEN
            : Medusa.MAX_FRAME - Medusa.FDDI_FCS_LEN;
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.stationAddress = stationAddress;
        b.receiveBuffers = receiveBuffers;
        b.treqMicros = treqMicros;
        b.frameOffset3 = frameOffset3;
        b.promiscuous = promiscuous;
        b.keepFcs = keepFcs;
        b.receiveChecksum = receiveChecksum;
        b.receiveChecksumStart = receiveChecksumStart;
        b.interruptMode = interruptMode;
        b.longFrames = longFrames;
        return b;
    }

    @Override
    public String toString() {
        return "MedusaConfig[mac=" + MedusaDriver.formatAddress(stationAddress) + ", rx=" + receiveBuffers + ", tx="
            + transmitBuffers() + ", treq=" + treqMicros + "us, frameOfs=" + frameOffset() + ", maxFrame=" + maxFrameLength() + ", irq=" + interruptMode
            + "]";
    }

    /** Builder with the card's defaults: 64 receive buffers, T_Req 8000 us, frame offset 3, RX checksum on. */
    public static final class Builder {
        private long stationAddress = 0x02_00_00_00_00_01L;
        private int receiveBuffers = 64;
        private int treqMicros = Medusa.TREQ_US_DEFAULT;
        private boolean frameOffset3 = true;
        private boolean promiscuous;
        private boolean keepFcs;
        private boolean receiveChecksum = true;
        private int receiveChecksumStart = Medusa.RXCK_START_DEFAULT;
        private InterruptMode interruptMode = InterruptMode.POLLING;
        private boolean longFrames;

        private Builder() {
        }

        /** Frames up to the 8 KiB buffer (CTRL.LONG_FRAMES) instead of FDDI's 4500 bytes. */
        public Builder longFrames(boolean on) {
            this.longFrames = on;
            return this;
        }

        /**
         * @param address 48-bit canonical station address (byte 0 in bits 47:40); must be an individual
         *                address (group bit 0x01 of byte 0 clear)
         */
        public Builder stationAddress(long address) {
            if ((address & ~0xFFFF_FFFF_FFFFL) != 0) {
                throw new IllegalArgumentException("station address must fit 48 bits, was 0x" + Long.toHexString(address));
            }
            if (((address >>> 40) & Medusa.ADDR_GROUP_BIT_CANONICAL) != 0) {
                throw new IllegalArgumentException("station address " + MedusaDriver.formatAddress(address)
                    + " has the group bit set; a station needs an individual address");
            }
            this.stationAddress = address;
            return this;
        }

        /** @param count buffers given to the card for receiving, 1..127 (at least one stays for transmit) */
        public Builder receiveBuffers(int count) {
            if (count < 1 || count > Medusa.BUF_COUNT - 1) {
                throw new IllegalArgumentException("receive buffers must be in [1, " + (Medusa.BUF_COUNT - 1)
                    + "] so at least one of the " + Medusa.BUF_COUNT + " buffers remains for transmit, was " + count);
            }
            this.receiveBuffers = count;
            return this;
        }

        /** @param micros requested TTRT bid in microseconds, 1..165000 (T_Max) */
        public Builder treqMicros(int micros) {
            if (micros < 1 || micros > Medusa.T_MAX_DEFAULT_US) {
                throw new IllegalArgumentException("T_Req must be in [1, " + Medusa.T_MAX_DEFAULT_US + "] us, was "
                    + micros);
            }
            this.treqMicros = micros;
            return this;
        }

        public Builder frameOffset3(boolean on) {
            this.frameOffset3 = on;
            return this;
        }

        public Builder promiscuous(boolean on) {
            this.promiscuous = on;
            return this;
        }

        public Builder keepFcs(boolean on) {
            this.keepFcs = on;
            return this;
        }

        public Builder receiveChecksum(boolean on) {
            this.receiveChecksum = on;
            return this;
        }

        /** @param start first frame byte (from FC) the receive checksum unit sums, 0..8191 */
        public Builder receiveChecksumStart(int start) {
            if (start < 0 || start > Medusa.RXCK_START_MASK) {
                throw new IllegalArgumentException("RXCK_START must be in [0, " + Medusa.RXCK_START_MASK + "], was "
                    + start);
            }
            this.receiveChecksumStart = start;
            return this;
        }

        public Builder interruptMode(InterruptMode mode) {
            if (mode == null) {
                throw new IllegalArgumentException("interrupt mode must not be null");
            }
            this.interruptMode = mode;
            return this;
        }

        public MedusaConfig build() {
            return new MedusaConfig(this);
        }
    }
}
