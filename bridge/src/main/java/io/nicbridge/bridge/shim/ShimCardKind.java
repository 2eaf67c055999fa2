package io.nicbridge.bridge.shim;

import static io.nicbridge.contract.Dec21140.CSR0;
import static io.nicbridge.contract.Dec21140.CSR1;
import static io.nicbridge.contract.Dec21140.CSR15;
import static io.nicbridge.contract.Dec21140.CSR2;
import static io.nicbridge.contract.Dec21140.CSR5;
import static io.nicbridge.contract.Dec21140.CSR5_AIS;
import static io.nicbridge.contract.Dec21140.CSR5_NIS;
import static io.nicbridge.contract.Dec21140.CSR7;
import static io.nicbridge.contract.Dec21140.CSR8;
import static io.nicbridge.contract.Dec21140.CSR9;
import static io.nicbridge.contract.Dec21140.CSR11;
import static io.nicbridge.contract.Dec21140.CSR_STRIDE;

import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.contract.NicShim;
import io.nicbridge.contract.Sba200Unet;
import java.nio.ByteOrder;
import java.util.Locale;

/**
 * The card contracts the native shim serves, and what the Java side must know about each: its register ranges,
 * which register words have side effects (so the {@link io.nicbridge.bridge.regs.Registers} hook sends them to the
 * shim), which of those are doorbells (a {@code nicshim_kick}), and how to read the interrupt line's level back.
 */
public enum ShimCardKind {
    /** DEC 21140: one 128-byte CSR window, little-endian; every CSR goes to the shim, CSR1/CSR2 are doorbells. */
    DEC21140("dec21140", NicShim.CARD_DEC21140, ByteOrder.LITTLE_ENDIAN, new int[] {NicShim.DEC21140_CSR_WINDOW_SIZE}) {
        @Override
        int[] hookedOffsets(int range) {
            int[] csrs = new int[CSR15 / CSR_STRIDE + 1];
            for (int i = 0; i < csrs.length; i++) {
                csrs[i] = CSR0 + i * CSR_STRIDE;
            }
            return csrs;
        }

        @Override
        int doorbell(int range, int offset) {
            return offset == CSR1 ? NicShim.KICK_TX : offset == CSR2 ? NicShim.KICK_RX : 0;
        }

        @Override
        boolean doorbellOnly(int range, int offset) {
            return doorbell(range, offset) != 0; // a poll demand has no stored value: CSR1/CSR2 read as all ones
        }

        @Override
        boolean readHasSideEffects(int range, int offset) {
            // poll demands read as all ones, CSR8 clears on read, CSR9 is the SROM's pins, CSR11 counts down
            return offset == CSR1 || offset == CSR2 || offset == CSR8 || offset == CSR9 || offset == CSR11;
        }

        @Override
        boolean interruptLevel(NativeShim shim, Registers[] windows) {
            // The card stores CSR5 and CSR7 into the shared window with release: no call into the shim needed.
            Registers csr = windows[NicShim.RANGE_DEC21140_CSR];
            return (csr.loadRaw(CSR5) & csr.loadRaw(CSR7) & (CSR5_NIS | CSR5_AIS)) != 0;
        }
    },

    /**
     * Fore SBA-200 with U-Net firmware over Ethernet: range 0 is the 4-byte BCR, range 1 the 256 KiB board RAM (both
     * big-endian). Hooked RAM words are the ones the emulated firmware hooks: cmd_prod and every endpoint's sq_prod
     * (doorbells) and the write-1-to-clear upcall pending mask; every other RAM word is plain shared memory.
     */
    SBA200("sba200", NicShim.CARD_SBA200_UNET_ETH, ByteOrder.BIG_ENDIAN,
        new int[] {NicShim.SBA200_BCR_SIZE, NicShim.SBA200_RAM_SIZE}) {
        @Override
        int[] hookedOffsets(int range) {
            if (range == NicShim.RANGE_SBA200_BCR) {
                return new int[] {Sba200Unet.BCR_OFS};
            }
            int[] hooked = new int[2 + Sba200Unet.MAX_ENDPOINTS];
            hooked[0] = Sba200Unet.UG_OFS + Sba200Unet.UG_CMD_PROD_OFS;
            hooked[1] = Sba200Unet.UG_OFS + Sba200Unet.UG_UPCALL_PENDING_OFS;
            for (int e = 0; e < Sba200Unet.MAX_ENDPOINTS; e++) {
                hooked[2 + e] = sqProducer(e);
            }
            return hooked;
        }

        @Override
        int doorbell(int range, int offset) {
            if (range != NicShim.RANGE_SBA200_RAM) {
                return 0;
            }
            if (offset == Sba200Unet.UG_OFS + Sba200Unet.UG_CMD_PROD_OFS) {
                return NicShim.KICK_CMD;
            }
            int page = offset - Sba200Unet.EP_PAGE_BASE;
            if (page >= 0 && page % Sba200Unet.EP_PAGE_SIZE == Sba200Unet.EPCB_SQ_PROD_OFS) {
                return NicShim.KICK_TX;
            }
            return 0;
        }

        @Override
        boolean doorbellOnly(int range, int offset) {
            return false; // the producer index is stored (the firmware reads it back), then the card is kicked
        }

        @Override
        boolean readHasSideEffects(int range, int offset) {
            return range == NicShim.RANGE_SBA200_BCR; // the BCR reads the line; RAM words are plain memory
        }

        @Override
        boolean interruptLevel(NativeShim shim, Registers[] windows) {
            return (shim.regRead(NicShim.RANGE_SBA200_BCR, Sba200Unet.BCR_OFS) & Sba200Unet.BCR_INTR_PENDING) != 0;
        }

        private int sqProducer(int endpoint) {
            return Sba200Unet.EP_PAGE_BASE + endpoint * Sba200Unet.EP_PAGE_SIZE + Sba200Unet.EPCB_SQ_PROD_OFS;
        }
    };

    private final String cardName;
    private final int code;
    private final ByteOrder order;
    private final int[] rangeSizes;

    ShimCardKind(String cardName, int code, ByteOrder order, int[] rangeSizes) {
        this.cardName = cardName;
        this.code = code;
        this.order = order;
        this.rangeSizes = rangeSizes;
    }

    /** @return the card name used in device specs ({@code card=...}) */
    public String cardName() {
        return cardName;
    }

    /** @return {@code NicShim.CARD_*} */
    public int code() {
        return code;
    }

    public ByteOrder byteOrder() {
        return order;
    }

    public int rangeCount() {
        return rangeSizes.length;
    }

    public int rangeSize(int range) {
        return rangeSizes[range];
    }

    /** Register words of {@code range} whose accesses go to the shim. */
    abstract int[] hookedOffsets(int range);

    /** {@code NicShim.KICK_*} bits a write to this word rings (0 = none). */
    abstract int doorbell(int range, int offset);

    /** Whether a write to this word is only a doorbell (no register write reaches the shim). */
    abstract boolean doorbellOnly(int range, int offset);

    /**
     * Whether reading this hooked word has a side effect or a value only the shim computes (then the read goes to
     * {@code nicshim_reg_read}); otherwise the value the card keeps in the shared window is the register.
     */
    abstract boolean readHasSideEffects(int range, int offset);

    /** Reads the card's interrupt line level back from its registers (reads without side effects only). */
    abstract boolean interruptLevel(NativeShim shim, Registers[] windows);

    /** @throws IllegalArgumentException naming the supported cards */
    public static ShimCardKind forName(String name) {
        for (ShimCardKind k : values()) {
            if (k.cardName.equals(name.toLowerCase(Locale.ROOT))) {
                return k;
            }
        }
        throw new IllegalArgumentException("the native shim serves cards dec21140 and sba200, not '" + name + "'");
    }
}
