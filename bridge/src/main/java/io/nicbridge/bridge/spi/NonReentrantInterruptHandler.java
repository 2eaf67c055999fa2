package io.nicbridge.bridge.spi;

import java.util.Objects;

/**
 * An {@link InterruptHandler} that never nests: it runs one round of interrupt service, and if the line is raised
 * again while that round runs - the listener's own work raised it, which happens in the same thread with inline
 * engines - it does not call itself recursively but notes the edge and runs another round once the current one is
 * done. So a driver's service code never re-enters itself, the stack stays flat however many edges the listener
 * causes, and no edge raised during a round is lost.
 *
 * <p>Used from the thread that asserts the line (the card's) and, once, from the thread that installs the handler
 * while the line is already high; the driver ensures those do not overlap, as it did before this class existed.
 * The state is therefore plain fields; nothing here allocates per interrupt.
 */
public final class NonReentrantInterruptHandler implements InterruptHandler {
    private final Runnable round;
    private boolean inRound;
    private boolean raisedAgain;

    /** @param round one round of service: acknowledge the card, then tell the driver's listener */
    public NonReentrantInterruptHandler(Runnable round) {
        this.round = Objects.requireNonNull(round, "round");
    }

    @Override
    public void onInterrupt(InterruptLine line) {
        if (inRound) {
            raisedAgain = true; // the round's own work raised the line again: loop below, do not nest
            return;
        }
        inRound = true;
        try {
            do {
                raisedAgain = false;
                round.run();
            } while (raisedAgain);
        } finally {
            inRound = false;
        }
    }
}
