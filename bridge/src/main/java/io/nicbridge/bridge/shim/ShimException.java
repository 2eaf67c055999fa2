package io.nicbridge.bridge.shim;

/** A native shim call failed; {@link #code()} is the {@code NICSHIM_ERR_*} value it returned. */
public final class ShimException extends RuntimeException {
    private final int code;

    ShimException(String what, int code) {
        super(what + ": " + ShimLibrary.describe(code));
        this.code = code;
    }

    /** @return the negative {@code NICSHIM_ERR_*} code */
    public int code() {
        return code;
    }
}
