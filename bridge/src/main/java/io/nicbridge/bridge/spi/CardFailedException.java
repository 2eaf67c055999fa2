package io.nicbridge.bridge.spi;

import java.util.Objects;

/**
 * The card can do no more work: its model (an emulated card's engine thread) or its backend (the native shim's card
 * thread) stopped on an error. From then on, waits on the card's {@link InterruptLine} and host accesses to its
 * {@link io.nicbridge.bridge.regs.Registers} throw this exception with the card's own error as the {@link #getCause()
 * cause}, so a driver fails at its next call instead of timing out. A failed card stays failed: close it.
 *
 * <p>An {@link IllegalStateException}: the driver's call is not wrong, the card it talks to is gone.
 */
public class CardFailedException extends IllegalStateException {
    private final String card;

    /**
     * @param card  the card's name
     * @param cause what stopped the card
     */
    public CardFailedException(String card, Throwable cause) {
        super("card '" + Objects.requireNonNull(card, "card") + "' failed: " + Objects.requireNonNull(cause, "cause"),
            cause);
        this.card = card;
    }

    /** @return the failed card's name */
    public String card() {
        return card;
    }

    /**
     * A new exception for the same failure, thrown at the caller's own call site (its stack trace is the caller's),
     * with the same card and cause.
     */
    public CardFailedException rethrown() {
        return new CardFailedException(card, getCause());
    }
}
