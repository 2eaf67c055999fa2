package io.nicbridge.sim.backends;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.spi.Card;

/**
 * Two 21140 cards that can hear each other, each with a Tulip driver, on some backend: the emulator's wire or a
 * real veth pair served by the native shim. Conformance tests are written against this, so the same checks run on
 * every backend.
 */
interface TulipPair extends AutoCloseable {
    TulipDriver driver(int i);

    Card card(int i);

    /** The station address card {@code i} must report from its SROM. */
    MacAddress mac(int i);

    /**
     * Puts a frame on the wire towards card {@code i}, as a third station would: {@code frame} starts with the
     * destination address and has no FCS (the wire's sender adds a correct one).
     */
    void inject(int i, byte[] frame);

    /** Frames card {@code i} has taken off the wire: delivered, missed, filtered or dropped as too long. */
    long framesSeen(int i);

    /** Frames card {@code i}'s address filter rejected. */
    long framesFiltered(int i);

    /** Bus errors card {@code i} reported. */
    long busErrors(int i);

    /**
     * Unplugs card {@code i}'s cable ({@code plugged} false) or plugs it back: the emulator's segment station, or
     * the far end of the shim's veth pair going down (card {@code i}'s interface loses its carrier).
     */
    void plug(int i, boolean plugged);

    /**
     * What a test does while it waits for the cards: lets them work. Backends whose cards have threads just yield; an
     * inline shim card does its pending work on this thread (its progress hook), as a waiting driver would.
     */
    default void idle() {
        Thread.yield();
    }

    /** Waits until card {@code i} has seen {@code n} frames (see {@link #framesSeen}). */
    default void awaitFramesSeen(int i, long n, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        int spins = 0;
        while (framesSeen(i) < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(card(i).name() + ": saw " + framesSeen(i) + " frames, expected " + n);
            }
            if (++spins > 100) {
                idle();
            }
        }
    }

    @Override
    void close();
}
