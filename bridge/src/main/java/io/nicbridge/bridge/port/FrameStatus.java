package io.nicbridge.bridge.port;

/**
 * Status bits of a received frame, card-independent. {@link #OK} (0) is a good frame; anything else is
 * a set of error bits that a driver maps from its card's descriptor status (21140 RDES0 ES/CE/TL/..., U-Net
 * descriptor error codes). A frame with error bits is still delivered so the caller may count or inspect
 * it; it must be released like any other.
 */
public final class FrameStatus {
    /** A good frame. */
    public static final int OK = 0;
    /** Frame check sequence (CRC) did not match. */
    public static final int CRC_ERROR = 1;
    /** Shorter than the medium's minimum or longer than its maximum. */
    public static final int LENGTH_ERROR = 1 << 1;
    /** Longer than the receive buffer: only the first part was stored. */
    public static final int TRUNCATED = 1 << 2;
    /** The card lost part of the frame (FIFO overflow). */
    public static final int OVERRUN = 1 << 3;
    /** The card hit a bus error or a bad descriptor while storing the frame. */
    public static final int DMA_ERROR = 1 << 4;

    private FrameStatus() {
    }

    /** @return true when {@code status} has no error bit */
    public static boolean isOk(int status) {
        return status == OK;
    }

    /** @return e.g. {@code "OK"} or {@code "CRC_ERROR|TRUNCATED"} (allocates: diagnostics only) */
    public static String describe(int status) {
        if (status == OK) {
            return "OK";
        }
        StringBuilder sb = new StringBuilder();
        String[] names = {"CRC_ERROR", "LENGTH_ERROR", "TRUNCATED", "OVERRUN", "DMA_ERROR"};
        for (int bit = 0; bit < 32; bit++) {
            if ((status & (1 << bit)) != 0) {
                if (!sb.isEmpty()) {
                    sb.append('|');
                }
                sb.append(bit < names.length ? names[bit] : "BIT" + bit);
            }
        }
        return sb.toString();
    }
}
