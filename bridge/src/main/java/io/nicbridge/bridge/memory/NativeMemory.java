package io.nicbridge.bridge.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Locale;

/**
 * The few libc calls the memory layer needs, bound once through FFM downcalls.
 *
 * <p>{@code mlock}/{@code munlock} capture {@code errno} with {@link Linker.Option#captureCallState}, so the
 * reason a lock was refused (EPERM without CAP_IPC_LOCK, ENOMEM over RLIMIT_MEMLOCK) survives the call.
 * On a platform whose libc lacks a symbol the handle is {@code null} and callers report the call as
 * unavailable instead of failing at class initialisation.
 */
final class NativeMemory {
    /** errno values of Linux (x86-64 and AArch64 share them). */
    static final int EPERM = 1;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int EINVAL = 22;
    /** Returned by {@link #mlock}/{@link #munlock} when this libc has no such call. */
    static final int ENOSYS = 38;

    /** Sentinel for "no value" from {@link #memlockLimit}. */
    static final long UNKNOWN = -2L;
    /** RLIM_INFINITY is ~0UL, i.e. -1 when read as a Java long. */
    static final long UNLIMITED = -1L;

    private static final boolean LINUX =
        System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    /** RLIMIT_MEMLOCK on Linux x86-64/AArch64 (asm-generic/resource.h); macOS uses 6. */
    private static final int RLIMIT_MEMLOCK = LINUX ? 8 : 6;

    /**
     * struct rlimit on LP64:
     * <pre>
     *   0               8               16
     *   +---------------+---------------+
     *   | rlim_cur (u64)| rlim_max (u64)|
     *   +---------------+---------------+
     * </pre>
     */
    private static final StructLayout RLIMIT = MemoryLayout.structLayout(
        ValueLayout.JAVA_LONG.withName("rlim_cur"), ValueLayout.JAVA_LONG.withName("rlim_max"));

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
        CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle MLOCK;
    private static final MethodHandle MUNLOCK;
    private static final MethodHandle GETRLIMIT;
    private static final MethodHandle GETPAGESIZE;

    static {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        FunctionDescriptor lockDesc = FunctionDescriptor.of(
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG);
        MLOCK = libc.find("mlock").map(s -> linker.downcallHandle(s, lockDesc, errno)).orElse(null);
        MUNLOCK = libc.find("munlock").map(s -> linker.downcallHandle(s, lockDesc, errno)).orElse(null);
        GETRLIMIT = libc.find("getrlimit").map(s -> linker.downcallHandle(s,
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS)))
            .orElse(null);
        GETPAGESIZE = libc.find("getpagesize").map(s -> linker.downcallHandle(s,
            FunctionDescriptor.of(ValueLayout.JAVA_INT))).orElse(null);
    }

    private NativeMemory() {
    }

    /** @return 0 when the range is locked, else the errno (ENOSYS when libc has no mlock). */
    static int mlock(MemorySegment segment) {
        return lockCall(MLOCK, segment);
    }

    /** @return 0 when the range is unlocked, else the errno (ENOSYS when libc has no munlock). */
    static int munlock(MemorySegment segment) {
        return lockCall(MUNLOCK, segment);
    }

    private static int lockCall(MethodHandle handle, MemorySegment segment) {
        if (handle == null) {
            return ENOSYS;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            int rc = (int) handle.invokeExact(state, segment, segment.byteSize());
            return rc == 0 ? 0 : (int) ERRNO.get(state, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("native mlock/munlock call failed", t);
        }
    }

    /**
     * @return {soft, hard} RLIMIT_MEMLOCK in bytes, {@link #UNLIMITED} for RLIM_INFINITY,
     *         {@link #UNKNOWN} when getrlimit is not available or fails
     */
    static long[] memlockLimit() {
        if (GETRLIMIT == null) {
            return new long[] {UNKNOWN, UNKNOWN};
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment rlimit = arena.allocate(RLIMIT);
            int rc = (int) GETRLIMIT.invokeExact(RLIMIT_MEMLOCK, rlimit);
            if (rc != 0) {
                return new long[] {UNKNOWN, UNKNOWN};
            }
            return new long[] {rlimit.get(ValueLayout.JAVA_LONG, 0), rlimit.get(ValueLayout.JAVA_LONG, 8)};
        } catch (Throwable t) {
            throw new IllegalStateException("native getrlimit call failed", t);
        }
    }

    /** @return the OS page size, 4096 when libc cannot tell */
    static long pageSize() {
        if (GETPAGESIZE == null) {
            return 4096;
        }
        try {
            int size = (int) GETPAGESIZE.invokeExact();
            return size > 0 ? size : 4096;
        } catch (Throwable t) {
            throw new IllegalStateException("native getpagesize call failed", t);
        }
    }

    static String errnoName(int errno) {
        return switch (errno) {
            case 0 -> "OK";
            case EPERM -> "EPERM";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EINVAL -> "EINVAL";
            case ENOSYS -> "ENOSYS";
            default -> "errno " + errno;
        };
    }

    static String formatLimit(long limit) {
        if (limit == UNLIMITED) {
            return "unlimited";
        }
        if (limit == UNKNOWN) {
            return "unknown";
        }
        if (limit >= 1024 && limit % 1024 == 0) {
            return (limit / 1024) + " KiB";
        }
        return limit + " bytes";
    }
}
