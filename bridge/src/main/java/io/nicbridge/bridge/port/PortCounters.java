package io.nicbridge.bridge.port;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Statistics of one {@link FramePort}, like a card's statistics registers.
 *
 * <p>Single writer per counter group: the transmit counters are updated only by the port's sending
 * thread, the receive counters only by its receiving thread (the {@link FramePort} threading contract).
 * Updates are opaque stores (no locked instruction on the hot path); readers on any thread see each
 * counter's value without tearing and eventually the latest one.
 */
public final class PortCounters {
    private static final VarHandle TX_FRAMES = handle("txFrames");
    private static final VarHandle TX_BYTES = handle("txBytes");
    private static final VarHandle TX_BACK_PRESSURE = handle("txBackPressure");
    private static final VarHandle TX_DROPS = handle("txDrops");
    private static final VarHandle TX_ERRORS = handle("txErrors");
    private static final VarHandle RX_FRAMES = handle("rxFrames");
    private static final VarHandle RX_BYTES = handle("rxBytes");
    private static final VarHandle RX_DROPS = handle("rxDrops");
    private static final VarHandle RX_ERRORS = handle("rxErrors");
    private static final VarHandle CARD_RESETS = handle("cardResets");

    private long txFrames;
    private long txBytes;
    private long txBackPressure;
    private long txDrops;
    private long txErrors;
    private long rxFrames;
    private long rxBytes;
    private long rxDrops;
    private long rxErrors;
    private long cardResets;

    private static VarHandle handle(String field) {
        try {
            return MethodHandles.lookup().findVarHandle(PortCounters.class, field, long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static void add(VarHandle h, PortCounters self, long delta) {
        h.setOpaque(self, (long) h.getOpaque(self) + delta);
    }

    // ---- sending thread

    /** A frame of {@code bytes} bytes was handed to the card/wire. */
    public void recordTx(int bytes) {
        add(TX_FRAMES, this, 1);
        add(TX_BYTES, this, bytes);
    }

    /** A claim found no free transmit buffer or descriptor. */
    public void recordTxBackPressure() {
        add(TX_BACK_PRESSURE, this, 1);
    }

    /** A committed frame was discarded (e.g. the far end is closed). */
    public void recordTxDrop() {
        add(TX_DROPS, this, 1);
    }

    /** The card reported a transmit error (underflow, collision limit, bus error, ...). */
    public void recordTxError() {
        add(TX_ERRORS, this, 1);
    }

    // ---- receiving thread

    /**
     * A good frame ({@link FrameStatus#OK}) of {@code bytes} bytes was delivered to the application. A frame delivered
     * with error bits counts in {@link #recordRxError()} instead, so rxFrames + rxErrors = frames delivered.
     */
    public void recordRx(int bytes) {
        add(RX_FRAMES, this, 1);
        add(RX_BYTES, this, bytes);
    }

    /** A frame arrived but was lost for want of a receive buffer or descriptor. */
    public void recordRxDrop() {
        add(RX_DROPS, this, 1);
    }

    /** A frame was delivered with error status bits ({@link FrameStatus}); it is not counted in rxFrames. */
    public void recordRxError() {
        add(RX_ERRORS, this, 1);
    }

    // ---- the driver's recovery (it runs on the sending and receiving thread)

    /**
     * The card lost its state (a hardware reset) and the driver re-initialised it: frames the card held or was
     * receiving meanwhile may be lost, and ones it had not reported sent may go twice. A protocol that relies on the
     * card losing nothing reads {@link #cardResets()} as evidence that the assumption broke.
     */
    public void recordCardReset() {
        add(CARD_RESETS, this, 1);
    }

    // ---- any thread

    public long txFrames() {
        return (long) TX_FRAMES.getOpaque(this);
    }

    public long txBytes() {
        return (long) TX_BYTES.getOpaque(this);
    }

    public long txBackPressure() {
        return (long) TX_BACK_PRESSURE.getOpaque(this);
    }

    public long txDrops() {
        return (long) TX_DROPS.getOpaque(this);
    }

    public long txErrors() {
        return (long) TX_ERRORS.getOpaque(this);
    }

    public long rxFrames() {
        return (long) RX_FRAMES.getOpaque(this);
    }

    public long rxBytes() {
        return (long) RX_BYTES.getOpaque(this);
    }

    public long rxDrops() {
        return (long) RX_DROPS.getOpaque(this);
    }

    public long rxErrors() {
        return (long) RX_ERRORS.getOpaque(this);
    }

    /** @return how often the driver found the card reset and re-initialised it ({@link #recordCardReset()}) */
    public long cardResets() {
        return (long) CARD_RESETS.getOpaque(this);
    }

    @Override
    public String toString() {
        return "tx " + txFrames() + " frames / " + txBytes() + " bytes (back-pressure " + txBackPressure()
            + ", drops " + txDrops() + ", errors " + txErrors() + "), rx " + rxFrames() + " frames / " + rxBytes()
            + " bytes (drops " + rxDrops() + ", errors " + rxErrors() + ")";
    }
}
