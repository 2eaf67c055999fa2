package io.nicbridge.bridge.platform;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named Linux network namespace ({@code /var/run/netns/NAME}, the convention of {@code ip netns}) and a
 * dedicated platform thread that lives inside it.
 *
 * <p>Linux keeps the network namespace per thread: {@code setns(fd, CLONE_NEWNET)} moves only the calling thread,
 * and every socket records the namespace of the thread that created it, for its whole life. So the way to get a
 * socket into a namespace from Java is to create it on a thread that entered the namespace first:
 * <pre>
 *   JVM process (root namespace)
 *   +-- main / test threads ............ root netns   sockets created here see the host's interfaces
 *   +-- "netns-A" (this class) ......... netns A      call()/run() tasks: DatagramChannel.open(), RawPacketSocket,
 *   |                                                 native code that opens sockets (the shim) ... live in A
 *   +-- newThread(loop) ................ netns A      long-running loops (an echo server, a card thread)
 * </pre>
 * Once created, a socket can be used from any thread: send/receive never consult the caller's namespace. What does
 * depend on the calling thread is everything that resolves names or opens things: {@code socket()},
 * {@code if_nametoindex()}, {@code /proc/sys/net/...}, {@code /proc/thread-self/net/...}.
 *
 * <p>Threads are platform threads, never virtual ones: a virtual thread can move between carrier threads, and the
 * namespace belongs to the carrier.
 *
 * <p>Lifecycle: {@link #create}/{@link #open} start the thread and wait until it has entered the namespace, so a
 * refusal (EPERM without CAP_SYS_ADMIN) surfaces there as an {@link IOException}. {@link #close()} stops the
 * thread and releases the descriptor but leaves the namespace; {@link #delete()} also removes it
 * ({@code ip netns del}). The kernel frees the namespace, and the interfaces in it, only when the last socket and
 * thread inside it are gone, so close sockets created in it first.
 */
public final class NetworkNamespace implements AutoCloseable {
    /** Where {@code ip netns} bind-mounts named namespaces. */
    public static final Path NETNS_DIR = Path.of("/var/run/netns");

    private static final Logger LOG = LoggerFactory.getLogger(NetworkNamespace.class);
    /** Names {@code ip netns} accepts as a file name, conservatively. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final long SETNS_WAIT_SECONDS = 10;
    private static final AtomicInteger THREAD_COUNTER = new AtomicInteger();
    /** Queued by close(): the worker leaves its loop when it takes this. */
    private static final Runnable STOP = () -> { };

    private final String name;
    private final Path path;
    private final long inode;
    private final int fd;
    private final Thread worker;
    private final BlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    /**
     * Read side: threads calling setns(fd); write side: close() before it closes fd. Without it a thread started
     * after close could pass a descriptor number the process has since reused for something else to setns.
     */
    private final ReentrantReadWriteLock fdLock = new ReentrantReadWriteLock();
    /** Guards submission against close so no task is queued behind the worker's stop marker. */
    private final Object submitLock = new Object();
    private boolean closed;

    private NetworkNamespace(String name, Path path, long inode, int fd) {
        this.name = name;
        this.path = path;
        this.inode = inode;
        this.fd = fd;
        this.worker = Thread.ofPlatform().name("netns-" + name).daemon(true).unstarted(this::workerLoop);
    }

    /**
     * Creates a named namespace with {@code ip netns add NAME} and opens it.
     *
     * @param name a file name: letters, digits, '_', '.', '-'; at most 64 characters
     * @throws IllegalArgumentException when the name is not acceptable
     * @throws IOException when {@code ip netns add} fails (not root, exists already, no iproute2), quoting its
     *                     message, or when the new namespace cannot be entered
     */
    public static NetworkNamespace create(String name) throws IOException {
        checkName(name);
        IpCommand.check("netns", "add", name);
        try {
            return open(name);
        } catch (IOException | RuntimeException e) {
            IpCommand.Result del = IpCommand.run("netns", "del", name);
            if (!del.ok()) {
                e.addSuppressed(new IOException("cleanup: ip netns del " + name + ": " + del.output().strip()));
            }
            throw e;
        }
    }

    /**
     * Opens an existing named namespace and starts its thread, which enters it before this method returns.
     *
     * @throws IOException when {@code /var/run/netns/NAME} does not exist or cannot be opened, or when setns is
     *                     refused (EPERM: the process lacks CAP_SYS_ADMIN)
     */
    public static NetworkNamespace open(String name) throws IOException {
        checkName(name);
        Path path = NETNS_DIR.resolve(name);
        if (!Files.exists(path)) {
            throw new NoSuchFileException(path.toString(), null,
                "no network namespace named '" + name + "' (create it with ip netns add " + name + ")");
        }
        long inode = ((Number) Files.getAttribute(path, "unix:ino")).longValue();
        int fd;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            fd = Libc.open(state, arena.allocateFrom(path.toString()), Libc.O_RDONLY | Libc.O_CLOEXEC);
            if (fd < 0) {
                int errno = Libc.errno(state);
                throw new IOException("cannot open " + path + ": " + Libc.errnoName(errno)
                    + (errno == Libc.EACCES || errno == Libc.EPERM ? " (run as root)" : ""));
            }
        }
        NetworkNamespace ns = new NetworkNamespace(name, path, inode, fd);
        ns.startWorker();
        LOG.debug("entered network namespace {} (inode {}) on thread {}", name, inode, ns.worker.getName());
        return ns;
    }

    /** @return whether a named namespace {@code name} exists ({@code /var/run/netns/NAME}) */
    public static boolean exists(String name) {
        checkName(name);
        return Files.exists(NETNS_DIR.resolve(name));
    }

    /**
     * The namespace the calling thread is in, as the inode number of {@code /proc/thread-self/ns/net}
     * (what {@code readlink} shows as {@code net:[INODE]}). Two threads are in the same network namespace exactly
     * when these numbers are equal.
     */
    public static long currentThreadNamespaceInode() throws IOException {
        String link = Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net")).toString();
        int open = link.indexOf('[');
        int close = link.indexOf(']');
        if (!link.startsWith("net:") || open < 0 || close < open) {
            throw new IOException("unexpected /proc/thread-self/ns/net link: " + link);
        }
        return Long.parseLong(link.substring(open + 1, close));
    }

    private static void checkName(String name) {
        Objects.requireNonNull(name, "namespace name");
        if (!NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("network namespace name '" + name
                + "' must be 1-64 characters of letters, digits, '_', '.', '-'");
        }
    }

    private void startWorker() throws IOException {
        CompletableFuture<Integer> entered = new CompletableFuture<>();
        tasks.add(() -> entered.complete(enterOnCurrentThread()));
        worker.start();
        int errno;
        try {
            errno = entered.get(SETNS_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IOException("interrupted while thread " + worker.getName() + " entered namespace " + name, e);
        } catch (ExecutionException | TimeoutException e) {
            close();
            throw new IOException("thread " + worker.getName() + " did not enter namespace " + name, e);
        }
        if (errno != 0) {
            close();
            throw new IOException("setns(" + path + ", CLONE_NEWNET) refused: " + Libc.errnoName(errno)
                + (errno == Libc.EPERM ? " (entering a network namespace needs CAP_SYS_ADMIN; run as root)" : ""));
        }
    }

    /** @return 0 when the calling thread is now in this namespace, else the errno (EBADF once closed) */
    private int enterOnCurrentThread() {
        fdLock.readLock().lock();
        try {
            if (closed()) {
                return Libc.EBADF;
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = Libc.newCallState(arena);
                return Libc.setns(state, fd, Libc.CLONE_NEWNET) == 0 ? 0 : Libc.errno(state);
            }
        } finally {
            fdLock.readLock().unlock();
        }
    }

    private void workerLoop() {
        while (true) {
            Runnable task;
            try {
                task = tasks.take();
            } catch (InterruptedException e) {
                // Nobody interrupts this private thread except JVM shutdown paths: stop serving.
                return;
            }
            if (task == STOP) {
                return;
            }
            task.run();
        }
    }

    /** @return the namespace name as {@code ip netns} knows it */
    public String name() {
        return name;
    }

    /** @return {@code /var/run/netns/NAME} */
    public Path path() {
        return path;
    }

    /** @return the namespace's inode number, equal to {@link #currentThreadNamespaceInode()} on its threads */
    public long inode() {
        return inode;
    }

    /** @return whether the calling thread is this namespace's dedicated {@link #call}/{@link #run} thread */
    public boolean isNamespaceThread() {
        return Thread.currentThread() == worker;
    }

    /**
     * Runs {@code task} on this namespace's thread and returns its result. Tasks run one at a time in submission
     * order. Called from the namespace thread itself, the task runs inline (no deadlock).
     *
     * @throws Exception what the task threw (its stack trace carries a suppressed note with the caller's site)
     * @throws IllegalStateException when the namespace has been closed
     */
    public <T> T call(Callable<T> task) throws Exception {
        Objects.requireNonNull(task, "task");
        if (isNamespaceThread()) {
            return task.call();
        }
        FutureTask<T> future = new FutureTask<>(task);
        synchronized (submitLock) {
            if (closed) {
                throw new IllegalStateException("network namespace " + name + " is closed");
            }
            tasks.add(future);
        }
        try {
            return future.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            cause.addSuppressed(new Exception("task ran in network namespace " + name + ", submitted here"));
            if (cause instanceof Exception ex) {
                throw ex;
            }
            throw (Error) cause;
        }
    }

    /**
     * Runs {@code task} on this namespace's thread and waits for it.
     *
     * @throws RuntimeException what the task threw
     * @throws IllegalStateException when the namespace has been closed, or when the caller was interrupted while
     *                               waiting (the interrupt flag is set again)
     */
    public void run(Runnable task) {
        Objects.requireNonNull(task, "task");
        try {
            call(() -> {
                task.run();
                return null;
            });
        } catch (RuntimeException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a task in network namespace " + name, e);
        } catch (Exception e) {
            // A Runnable cannot throw a checked exception; only call()'s own waiting can, handled above.
            throw new IllegalStateException(e);
        }
    }

    /**
     * An unstarted platform (daemon) thread that enters this namespace and then runs {@code body}: for loops that
     * run as long as a test or benchmark does (an echo server, a card's poll loop). If the namespace was closed
     * before the thread starts, or setns fails, the thread throws {@link IllegalStateException} without running
     * {@code body}.
     */
    public Thread newThread(Runnable body) {
        return newThread("netns-" + name + "-" + THREAD_COUNTER.incrementAndGet(), body);
    }

    /** {@link #newThread(Runnable)} with a thread name of the caller's choice. */
    public Thread newThread(String threadName, Runnable body) {
        Objects.requireNonNull(body, "body");
        return Thread.ofPlatform().name(threadName).daemon(true).unstarted(() -> {
            int errno = enterOnCurrentThread();
            if (errno != 0) {
                throw new IllegalStateException("thread " + Thread.currentThread().getName()
                    + " cannot enter network namespace " + name + ": "
                    + (errno == Libc.EBADF && closed() ? "it was closed" : "setns " + Libc.errnoName(errno)));
            }
            body.run();
        });
    }

    private boolean closed() {
        synchronized (submitLock) {
            return closed;
        }
    }

    /**
     * Stops the namespace thread (after the tasks already submitted) and releases the namespace descriptor. The
     * namespace itself stays ({@link #delete()} removes it). Idempotent.
     */
    @Override
    public void close() {
        synchronized (submitLock) {
            if (closed) {
                return;
            }
            closed = true;
            tasks.add(STOP);
        }
        if (!isNamespaceThread() && worker.isAlive()) {
            try {
                worker.join(TimeUnit.SECONDS.toMillis(SETNS_WAIT_SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (worker.isAlive()) {
                LOG.warn("thread {} still runs a task after close of namespace {}", worker.getName(), name);
            }
        }
        fdLock.writeLock().lock();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(arena);
            if (Libc.close(state, fd) != 0) {
                LOG.warn("close of namespace {} descriptor {} failed: {}", name, fd,
                    Libc.errnoName(Libc.errno(state)));
            }
        } finally {
            fdLock.writeLock().unlock();
        }
    }

    /**
     * Closes this handle and removes the namespace with {@code ip netns del}. Interfaces inside it (a veth end)
     * disappear once no socket or thread holds the namespace any more.
     *
     * @throws IOException quoting {@code ip} when the deletion fails
     */
    public void delete() throws IOException {
        close();
        if (Files.exists(path)) {
            IpCommand.check("netns", "del", name);
            LOG.debug("deleted network namespace {}", name);
        }
    }

    @Override
    public String toString() {
        return "netns " + name + " (inode " + inode + ")";
    }
}
