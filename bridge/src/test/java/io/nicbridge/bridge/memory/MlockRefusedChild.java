package io.nicbridge.bridge.memory;

/**
 * Run by {@link MlockFallbackProcessTest} in a child JVM with RLIMIT_MEMLOCK=0 and without CAP_IPC_LOCK:
 * allocates two comm segments, uses them, and prints what it saw.
 */
public final class MlockRefusedChild {
    private MlockRefusedChild() {
    }

    public static void main(String[] args) {
        MemoryLocking.Status status = MemoryLocking.probe();
        System.out.println("probe permitted=" + status.permitted() + " errno=" + status.errno() + " soft="
            + status.softLimit());
        try (CommSegment a = CommSegment.allocate("child-a", 8192);
             CommSegment b = CommSegment.allocate("child-b", 4096)) {
            a.carve(64, 8).fill((byte) 7);
            System.out.println("a pinned=" + a.isPinned() + " errno=" + a.lockErrno());
            System.out.println("b pinned=" + b.isPinned() + " errno=" + b.lockErrno());
            System.out.println("byte=" + a.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 63));
        }
    }
}
