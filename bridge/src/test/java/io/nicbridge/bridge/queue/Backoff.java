package io.nicbridge.bridge.queue;

import java.util.concurrent.locks.LockSupport;

/** Test idle strategy: spin briefly, then yield, then park, so two busy test threads share 2 cores politely. */
final class Backoff {
    private int idle;

    void reset() {
        idle = 0;
    }

    void idle() {
        int n = idle++;
        if (n < 50) {
            Thread.onSpinWait();
        } else if (n < 100) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(20_000);
        }
    }

    /** A well-mixed 32-bit function of {@code x} (murmur3 finaliser), used as a payload checksum. */
    static int mix(int x) {
        x ^= x >>> 16;
        x *= 0x85EBCA6B;
        x ^= x >>> 13;
        x *= 0xC2B2AE35;
        x ^= x >>> 16;
        return x;
    }
}
