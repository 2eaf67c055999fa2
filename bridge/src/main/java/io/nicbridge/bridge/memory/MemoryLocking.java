package io.nicbridge.bridge.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this process may pin memory with {@code mlock}, and the RLIMIT_MEMLOCK it runs under.
 *
 * <p>Pinning keeps communication segments resident so a card (or the native shim) never touches a page
 * that is being swapped. It is a quality property, not a correctness one for the emulator: when the kernel
 * refuses, {@link CommSegment} logs one warning per process and carries on with unpinned memory.
 */
public final class MemoryLocking {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryLocking.class);
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private MemoryLocking() {
    }

    /**
     * What {@link #probe()} found.
     *
     * @param permitted   true when a one-page mlock succeeded here
     * @param errno       0 when permitted, else the errno mlock returned (1 EPERM, 12 ENOMEM, 38 no mlock)
     * @param softLimit   RLIMIT_MEMLOCK soft limit in bytes; -1 unlimited; -2 unknown
     * @param hardLimit   RLIMIT_MEMLOCK hard limit in bytes; -1 unlimited; -2 unknown
     * @param pageSize    the OS page size in bytes
     */
    public record Status(boolean permitted, int errno, long softLimit, long hardLimit, long pageSize) {
        /** @return one line for humans, e.g. {@code mlock permitted (RLIMIT_MEMLOCK soft 8192 KiB, hard 8192 KiB)} */
        public String describe() {
            String limits = "RLIMIT_MEMLOCK soft " + NativeMemory.formatLimit(softLimit)
                + ", hard " + NativeMemory.formatLimit(hardLimit) + ", page size " + pageSize + " bytes";
            return permitted
                ? "mlock permitted (" + limits + ")"
                : "mlock not permitted: " + NativeMemory.errnoName(errno) + " (" + limits + ")";
        }
    }

    /**
     * Locks and unlocks one page to find out whether pinning works in this process. Setup-time only:
     * it creates and closes an arena.
     */
    public static Status probe() {
        long[] limits = NativeMemory.memlockLimit();
        long page = NativeMemory.pageSize();
        int errno;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment probe = arena.allocate(page, page);
            errno = NativeMemory.mlock(probe);
            if (errno == 0) {
                NativeMemory.munlock(probe);
            }
        }
        return new Status(errno == 0, errno, limits[0], limits[1], page);
    }

    /** @return the OS page size in bytes */
    public static long pageSize() {
        return PageSize.VALUE;
    }

    /**
     * Logs the "not pinned" warning the first time a lock is refused in this process; later refusals
     * are silent (every CommSegment still reports {@link CommSegment#isPinned()}).
     *
     * @return true when this call logged the warning
     */
    static boolean warnOnce(String segmentName, long size, int errno) {
        if (!WARNED.compareAndSet(false, true)) {
            return false;
        }
        long[] limits = NativeMemory.memlockLimit();
        LOG.warn("mlock not permitted ({}, RLIMIT_MEMLOCK={}) while pinning comm segment '{}' of {} bytes: "
                + "comm segments are not pinned; raise the limit with `ulimit -l` or run with CAP_IPC_LOCK",
            NativeMemory.errnoName(errno), NativeMemory.formatLimit(limits[0]), segmentName, size);
        return true;
    }

    /** Test hook: whether the process-wide warning has been logged. */
    static boolean warned() {
        return WARNED.get();
    }

    private static final class PageSize {
        static final long VALUE = NativeMemory.pageSize();
    }
}
