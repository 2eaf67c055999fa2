package io.nicbridge.bridge.platform;

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

/**
 * The Linux calls the platform package needs (namespaces, packet sockets, poll), bound once as FFM downcalls
 * from the C library ({@link Linker#defaultLookup()}). No JNI.
 *
 * <p>Every call that can fail captures {@code errno} with {@link Linker.Option#captureCallState}: the first
 * argument of each method is a capture-state segment ({@link #newCallState}) that the caller owns. Setup paths
 * allocate one per call from a confined arena; data paths ({@link RawPacketSocket#send}/{@code receive}) keep one
 * per socket and direction, allocated when the socket opens, so a packet costs no allocation.
 *
 * <p>The methods return the raw C result (-1 on failure) and leave interpretation to the caller, who reads
 * {@link #errno(MemorySegment)} only when the result says the call failed (errno is undefined otherwise).
 * Bindings are resolved in the static initialiser; on a C library without one of these symbols (not Linux) the
 * class fails to initialise, which is why callers check {@link VethPair#availability()} first.
 */
final class Libc {
    /** errno values of Linux (asm-generic/errno-base.h, errno.h; x86-64 and AArch64 share them). */
    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int ENXIO = 6;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int EACCES = 13;
    static final int ENODEV = 19;
    static final int EINVAL = 22;
    static final int ENOSYS = 38;
    static final int ENOPROTOOPT = 92;
    static final int EAFNOSUPPORT = 97;
    static final int ENETDOWN = 100;
    static final int ENOBUFS = 105;
    static final int EMSGSIZE = 90;

    /** sched.h: the namespace type setns() is asked to join. */
    static final int CLONE_NEWNET = 0x4000_0000;
    /** fcntl.h. */
    static final int O_RDONLY = 0;
    static final int O_CLOEXEC = 0x8_0000;
    /** socket.h / linux/if_packet.h / linux/if_ether.h. */
    static final int AF_PACKET = 17;
    static final int SOCK_RAW = 3;
    static final int SOCK_CLOEXEC = O_CLOEXEC;
    static final int SOL_SOCKET = 1;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int SO_SNDBUFFORCE = 32;
    static final int SO_RCVBUFFORCE = 33;
    static final int SOL_PACKET = 263;
    static final int PACKET_STATISTICS = 6;
    static final int PACKET_IGNORE_OUTGOING = 23;
    static final int PACKET_OUTGOING = 4;
    static final int MSG_DONTWAIT = 0x40;
    static final int MSG_TRUNC = 0x20;
    /** netinet/in.h, netinet/tcp.h: TCP over IPv4 for the kernel TCP baseline. */
    static final int AF_INET = 2;
    static final int SOCK_STREAM = 1;
    static final int IPPROTO_TCP = 6;
    static final int TCP_NODELAY = 1;
    static final int SO_REUSEADDR = 2;
    /** asm-generic/socket.h: microseconds a blocking read busy-polls the device queue before it sleeps. */
    static final int SO_BUSY_POLL = 46;
    static final int MSG_NOSIGNAL = 0x4000;
    /** poll.h. */
    static final short POLLIN = 0x1;

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle SETNS;
    private static final MethodHandle OPEN;
    private static final MethodHandle CLOSE;
    private static final MethodHandle SOCKET;
    private static final MethodHandle BIND;
    private static final MethodHandle SETSOCKOPT;
    private static final MethodHandle GETSOCKOPT;
    private static final MethodHandle SEND;
    private static final MethodHandle RECVFROM;
    private static final MethodHandle PPOLL;
    private static final MethodHandle IF_NAMETOINDEX;
    private static final MethodHandle CONNECT;
    private static final MethodHandle LISTEN;
    private static final MethodHandle SHUTDOWN;
    private static final MethodHandle ACCEPT;
    private static final MethodHandle SCHED_SETAFFINITY;

    static {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        ValueLayout i32 = ValueLayout.JAVA_INT;
        ValueLayout i64 = ValueLayout.JAVA_LONG;
        ValueLayout ptr = ValueLayout.ADDRESS;
        SETNS = bind(linker, libc, "setns", FunctionDescriptor.of(i32, i32, i32), errno);
        // open(2) is variadic: the mode argument is passed as the first variadic one so the call follows the
        // variadic calling convention (on x86-64 %al must hold the number of vector registers used).
        OPEN = bind(linker, libc, "open", FunctionDescriptor.of(i32, ptr, i32, i32),
            errno, Linker.Option.firstVariadicArg(2));
        CLOSE = bind(linker, libc, "close", FunctionDescriptor.of(i32, i32), errno);
        SOCKET = bind(linker, libc, "socket", FunctionDescriptor.of(i32, i32, i32, i32), errno);
        BIND = bind(linker, libc, "bind", FunctionDescriptor.of(i32, i32, ptr, i32), errno);
        SETSOCKOPT = bind(linker, libc, "setsockopt", FunctionDescriptor.of(i32, i32, i32, i32, ptr, i32), errno);
        GETSOCKOPT = bind(linker, libc, "getsockopt", FunctionDescriptor.of(i32, i32, i32, i32, ptr, ptr), errno);
        SEND = bind(linker, libc, "send", FunctionDescriptor.of(i64, i32, ptr, i64, i32), errno);
        RECVFROM = bind(linker, libc, "recvfrom", FunctionDescriptor.of(i64, i32, ptr, i64, i32, ptr, ptr), errno);
        PPOLL = bind(linker, libc, "ppoll", FunctionDescriptor.of(i32, ptr, i64, ptr, ptr), errno);
        IF_NAMETOINDEX = bind(linker, libc, "if_nametoindex", FunctionDescriptor.of(i32, ptr), errno);
        CONNECT = bind(linker, libc, "connect", FunctionDescriptor.of(i32, i32, ptr, i32), errno);
        LISTEN = bind(linker, libc, "listen", FunctionDescriptor.of(i32, i32, i32), errno);
        SHUTDOWN = bind(linker, libc, "shutdown", FunctionDescriptor.of(i32, i32, i32), errno);
        ACCEPT = bind(linker, libc, "accept", FunctionDescriptor.of(i32, i32, ptr, ptr), errno);
        SCHED_SETAFFINITY = bind(linker, libc, "sched_setaffinity", FunctionDescriptor.of(i32, i32, i64, ptr),
            errno);
    }

    /**
     * struct timespec on LP64, as ppoll(2) reads its timeout.
     * <pre>
     *   0               8               16
     *   +---------------+---------------+
     *   | tv_sec  (i64) | tv_nsec (i64) |
     *   +---------------+---------------+
     * </pre>
     */
    static final StructLayout TIMESPEC = MemoryLayout.structLayout(
        ValueLayout.JAVA_LONG.withName("tv_sec"), ValueLayout.JAVA_LONG.withName("tv_nsec"));

    /**
     * struct pollfd.
     * <pre>
     *   0       4       6       8
     *   +-------+-------+-------+
     *   | fd    |events |revents|
     *   +-------+-------+-------+
     * </pre>
     */
    static final StructLayout POLLFD = MemoryLayout.structLayout(
        ValueLayout.JAVA_INT.withName("fd"), ValueLayout.JAVA_SHORT.withName("events"),
        ValueLayout.JAVA_SHORT.withName("revents"));

    /**
     * struct sockaddr_ll (linux/if_packet.h). {@code sll_protocol} is in network byte order.
     * <pre>
     *   0        2          4              8          10          11         12                20
     *   +--------+----------+--------------+----------+-----------+----------+-----------------+
     *   | family | protocol | ifindex (i32)| hatype   | pkttype   | halen    | addr[8]         |
     *   +--------+----------+--------------+----------+-----------+----------+-----------------+
     * </pre>
     */
    static final StructLayout SOCKADDR_LL = MemoryLayout.structLayout(
        ValueLayout.JAVA_SHORT.withName("sll_family"), ValueLayout.JAVA_SHORT.withName("sll_protocol"),
        ValueLayout.JAVA_INT.withName("sll_ifindex"), ValueLayout.JAVA_SHORT.withName("sll_hatype"),
        ValueLayout.JAVA_BYTE.withName("sll_pkttype"), ValueLayout.JAVA_BYTE.withName("sll_halen"),
        MemoryLayout.sequenceLayout(8, ValueLayout.JAVA_BYTE).withName("sll_addr"));
    static final long SLL_PROTOCOL = 2;
    static final long SLL_IFINDEX = 4;
    static final long SLL_PKTTYPE = 10;

    private Libc() {
    }

    private static MethodHandle bind(Linker linker, SymbolLookup libc, String name, FunctionDescriptor descriptor,
                                     Linker.Option... options) {
        MemorySegment symbol = libc.find(name)
            .orElseThrow(() -> new IllegalStateException("the C library has no " + name + "(): network namespaces"
                + " and raw packet sockets need Linux's glibc or musl"));
        return linker.downcallHandle(symbol, descriptor, options);
    }

    /** @return a capture-state segment for the calls below, owned by {@code arena} */
    static MemorySegment newCallState(Arena arena) {
        return arena.allocate(CAPTURE);
    }

    /** @return the errno the last failed call that used {@code state} left there */
    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    static int setns(MemorySegment state, int fd, int nstype) {
        try {
            return (int) SETNS.invokeExact(state, fd, nstype);
        } catch (Throwable t) {
            throw rethrow("setns", t);
        }
    }

    static int open(MemorySegment state, MemorySegment path, int flags) {
        try {
            return (int) OPEN.invokeExact(state, path, flags, 0);
        } catch (Throwable t) {
            throw rethrow("open", t);
        }
    }

    static int close(MemorySegment state, int fd) {
        try {
            return (int) CLOSE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw rethrow("close", t);
        }
    }

    static int socket(MemorySegment state, int domain, int type, int protocol) {
        try {
            return (int) SOCKET.invokeExact(state, domain, type, protocol);
        } catch (Throwable t) {
            throw rethrow("socket", t);
        }
    }

    static int bind(MemorySegment state, int fd, MemorySegment address, int length) {
        try {
            return (int) BIND.invokeExact(state, fd, address, length);
        } catch (Throwable t) {
            throw rethrow("bind", t);
        }
    }

    static int setsockopt(MemorySegment state, int fd, int level, int option, MemorySegment value, int length) {
        try {
            return (int) SETSOCKOPT.invokeExact(state, fd, level, option, value, length);
        } catch (Throwable t) {
            throw rethrow("setsockopt", t);
        }
    }

    static int getsockopt(MemorySegment state, int fd, int level, int option, MemorySegment value,
                          MemorySegment length) {
        try {
            return (int) GETSOCKOPT.invokeExact(state, fd, level, option, value, length);
        } catch (Throwable t) {
            throw rethrow("getsockopt", t);
        }
    }

    static long send(MemorySegment state, int fd, MemorySegment buffer, long length, int flags) {
        try {
            return (long) SEND.invokeExact(state, fd, buffer, length, flags);
        } catch (Throwable t) {
            throw rethrow("send", t);
        }
    }

    static long recvfrom(MemorySegment state, int fd, MemorySegment buffer, long length, int flags,
                         MemorySegment from, MemorySegment fromLength) {
        try {
            return (long) RECVFROM.invokeExact(state, fd, buffer, length, flags, from, fromLength);
        } catch (Throwable t) {
            throw rethrow("recvfrom", t);
        }
    }

    static int ppoll(MemorySegment state, MemorySegment fds, long count, MemorySegment timeout) {
        try {
            return (int) PPOLL.invokeExact(state, fds, count, timeout, MemorySegment.NULL);
        } catch (Throwable t) {
            throw rethrow("ppoll", t);
        }
    }

    static int ifNameToIndex(MemorySegment state, MemorySegment name) {
        try {
            return (int) IF_NAMETOINDEX.invokeExact(state, name);
        } catch (Throwable t) {
            throw rethrow("if_nametoindex", t);
        }
    }

    static int connect(MemorySegment state, int fd, MemorySegment address, int length) {
        try {
            return (int) CONNECT.invokeExact(state, fd, address, length);
        } catch (Throwable t) {
            throw rethrow("connect", t);
        }
    }

    static int listen(MemorySegment state, int fd, int backlog) {
        try {
            return (int) LISTEN.invokeExact(state, fd, backlog);
        } catch (Throwable t) {
            throw rethrow("listen", t);
        }
    }

    /** shutdown(2) with SHUT_RDWR. */
    static int shutdown(MemorySegment state, int fd) {
        try {
            return (int) SHUTDOWN.invokeExact(state, fd, 2);
        } catch (Throwable t) {
            throw rethrow("shutdown", t);
        }
    }

    static int accept(MemorySegment state, int fd) {
        try {
            return (int) ACCEPT.invokeExact(state, fd, MemorySegment.NULL, MemorySegment.NULL);
        } catch (Throwable t) {
            throw rethrow("accept", t);
        }
    }

    /** sched_setaffinity(2) of the calling thread ({@code pid} 0) to the CPUs set in {@code mask}. */
    static int schedSetaffinity(MemorySegment state, MemorySegment mask) {
        try {
            return (int) SCHED_SETAFFINITY.invokeExact(state, 0, mask.byteSize(), mask);
        } catch (Throwable t) {
            throw rethrow("sched_setaffinity", t);
        }
    }

    /** Downcalls throw only on misuse of the handle itself (wrong types, closed arena): surface that as is. */
    private static RuntimeException rethrow(String call, Throwable t) {
        if (t instanceof RuntimeException re) {
            return re;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("native " + call + "() call failed", t);
    }

    /** @return the symbolic name of a Linux errno, e.g. {@code "EPERM"} */
    static String errnoName(int errno) {
        return switch (errno) {
            case 0 -> "OK";
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EINTR -> "EINTR";
            case ENXIO -> "ENXIO";
            case EBADF -> "EBADF";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case ENODEV -> "ENODEV";
            case EINVAL -> "EINVAL";
            case ENOSYS -> "ENOSYS";
            case EMSGSIZE -> "EMSGSIZE";
            case ENOPROTOOPT -> "ENOPROTOOPT";
            case EAFNOSUPPORT -> "EAFNOSUPPORT";
            case ENETDOWN -> "ENETDOWN";
            case ENOBUFS -> "ENOBUFS";
            default -> "errno " + errno;
        };
    }

    /** Converts a 16-bit value to network byte order as the kernel reads it from a little- or big-endian host. */
    static short htons(int value) {
        short s = (short) value;
        return java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.BIG_ENDIAN ? s : Short.reverseBytes(s);
    }
}
