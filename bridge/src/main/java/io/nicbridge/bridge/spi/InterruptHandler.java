package io.nicbridge.bridge.spi;

/** Called in the asserting thread (the card's) each time an {@link InterruptLine} goes from low to high. */
@FunctionalInterface
public interface InterruptHandler {
    void onInterrupt(InterruptLine line);
}
