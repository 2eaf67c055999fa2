package io.nicbridge.bridge.memory;

import java.lang.foreign.MemorySegment;

/**
 * Package-private seam over mlock/munlock so a test can force the refusal path that an unprivileged
 * process with a small RLIMIT_MEMLOCK takes. Production code always uses {@link #NATIVE}.
 */
interface MemoryLocker {
    /** @return 0 when locked, else errno */
    int lock(MemorySegment segment);

    /** @return 0 when unlocked, else errno */
    int unlock(MemorySegment segment);

    MemoryLocker NATIVE = new MemoryLocker() {
        @Override
        public int lock(MemorySegment segment) {
            return NativeMemory.mlock(segment);
        }

        @Override
        public int unlock(MemorySegment segment) {
            return NativeMemory.munlock(segment);
        }
    };
}
