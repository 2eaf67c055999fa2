package io.nicbridge.bridge.shim;

import static io.nicbridge.contract.Sba200Unet.TX_STATUS_SENT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.queue.QueueCode;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * AF_XDP when someone else touches the interface while the socket is open: the XDP program detached, the interface
 * taken down and up, the interface deleted. No crash, no leak, a clear status, and recovery where the kernel allows
 * it. On the direct-access endpoint, whose rings are the socket's own, so what is tested is the kernel's behaviour
 * as this project's code sees it. Skipped with the reason without root or AF_XDP.
 */
class AfXdpReliabilityTest {
    static final int CHANNEL = 0;
    static final long SEGMENT = 1024 * 1024;
    static final long RX_AREA = 256 * 1024;
    static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    VethPair veth;
    XskUnetEndpoint a;
    XskUnetEndpoint b;

    @AfterEach
    void close() {
        for (AutoCloseable c : new AutoCloseable[] {a, b, veth}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new AssertionError("close failed: " + e, e);
                }
            }
        }
    }

    XskUnetEndpoint direct(boolean endA) {
        String spec = "shim:afxdp?if=" + (endA ? veth.interfaceA() : veth.interfaceB()) + "&card=unet-direct&netns="
            + (endA ? veth.namespaceA() : veth.namespaceB()).name() + "&peer="
            + (endA ? veth.macB() : veth.macA()).toString().replace(':', '-');
        XskUnetEndpoint ep = ShimBackendProvider.openUnetEndpoint(spec, SEGMENT);
        ep.openChannel(CHANNEL, 0, endA ? 100 : 101, endA ? 101 : 100);
        ep.postReceiveBuffers(RX_AREA, 256, 2048);
        return ep;
    }

    /** Sends {@code n} 100-byte messages numbered from {@code first}, waiting out back-pressure. */
    static void send(XskUnetEndpoint from, int first, int n) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        for (int i = first; i < first + n; i++) {
            from.segment().set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
            while (!from.send(CHANNEL, 0, 100)) {
                from.reapSends();
                assertTrue(System.nanoTime() < deadline, "send queue stayed full");
                Thread.yield();
            }
        }
    }

    /** The numbers of what arrives until nothing came for {@code quietNanos}, in arrival order. */
    static int[] receive(XskUnetEndpoint to, int max, long quietNanos) throws InterruptedException {
        int[] got = new int[max];
        int n = 0;
        MemorySegment scratch = MemorySegment.ofArray(new byte[4]);
        while (n < max) {
            long d = to.await(quietNanos, TimeUnit.NANOSECONDS);
            if (d == QueueCode.EMPTY) {
                break;
            }
            to.copyRange(d, 0, scratch, 0, 4);
            to.release(d);
            got[n++] = scratch.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
        }
        return java.util.Arrays.copyOf(got, n);
    }

    /** Reaps until {@code n} sends completed SENT, or fails after the timeout. */
    static void awaitSent(XskUnetEndpoint ep, long n) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (ep.sendCompletions(TX_STATUS_SENT) < n) {
            ep.reapSends();
            assertTrue(System.nanoTime() < deadline, ep.sendCompletions(TX_STATUS_SENT) + " of " + n + " sent");
            Thread.yield();
        }
    }

    static int[] range(int first, int n) {
        return java.util.stream.IntStream.range(first, first + n).toArray();
    }

    @Test
    void ipCannotDetachTheProgramAndALinkDetachedBySomeoneElseIsReported() throws Throwable {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        veth = VethPair.builder().ipv4(false).create();
        a = direct(true);
        b = direct(false);
        send(a, 0, 10);
        assertEquals(10, receive(b, 10, TIMEOUT_NANOS).length);

        // ip link set ... xdp off asks netlink to detach: the kernel refuses, the program is held by our BPF link.
        Process ip = new ProcessBuilder("ip", "-n", veth.namespaceB().name(), "link", "set", "dev",
            veth.interfaceB(), "xdp", "off").redirectErrorStream(true).start();
        String said = new String(ip.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(ip.waitFor(10, TimeUnit.SECONDS));
        assertNotEquals(0, ip.exitValue(), "the kernel let ip detach a link-held program: " + said);
        assertFalse(b.kernelStatistics().detached(), b.kernelStatistics().describe());
        send(a, 10, 10);
        assertEquals(10, receive(b, 10, TIMEOUT_NANOS).length, "still redirected after ip's attempt");

        // What bpftool link detach does: BPF_LINK_DETACH on the link. The socket stays open and says so.
        int programB = b.xdpInfo().programId();
        assertEquals(1, BpfLinks.detachXdpLinksOf(programB), "one XDP link runs B's program");
        assertTrue(b.kernelStatistics().detached(), b.kernelStatistics().describe());
        assertTrue(b.kernelStatistics().describe().contains("PROGRAM DETACHED"));
        assertFalse(a.kernelStatistics().detached(), "A's program is still on its interface");
        send(a, 20, 10);
        assertEquals(0, receive(b, 10, QUIET_NANOS).length, "frames go to B's stack now, not into its socket");
        awaitSent(a, 30); // A's sends complete: the kernel took them, B's stack got them

        // Closing the detached socket is clean, and a fresh one takes the hook again.
        b.close();
        b = direct(false);
        assertFalse(b.kernelStatistics().detached());
        send(a, 30, 10);
        assertTrue(java.util.Arrays.equals(range(30, 10), receive(b, 10, TIMEOUT_NANOS)), "recovered");
    }

    @Test
    void ownInterfaceDownHoldsTheSendsAndUpDeliversThemInOrder() throws Exception {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        veth = VethPair.builder().ipv4(false).create();
        a = direct(true);
        b = direct(false);
        send(a, 0, 5);
        assertTrue(java.util.Arrays.equals(range(0, 5), receive(b, 5, TIMEOUT_NANOS)));

        veth.setUp(true, false);
        send(a, 5, 20); // accepted: the kick says ENETDOWN, the frames stay on TX (back-pressure, not an exception)
        assertEquals(0, receive(b, 20, QUIET_NANOS).length, "nothing leaves a down interface");
        veth.setUp(true, true);
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        int[] got = new int[0];
        while (got.length == 0 && System.nanoTime() < deadline) {
            send(a, 25, 1); // the next send kicks the kernel again: everything on TX goes
            got = concat(got, receive(b, 21, QUIET_NANOS));
        }
        got = concat(got, receive(b, 21 - got.length, QUIET_NANOS));
        assertTrue(got.length > 0, "traffic resumed after up");
        for (int i = 1; i < got.length; i++) {
            assertTrue(got[i] > got[i - 1], "in order: " + java.util.Arrays.toString(got));
        }
        assertEquals(5, got[0], "the first frame held while down arrives first: " + java.util.Arrays.toString(got));
    }

    @Test
    void peerDownDropsInTheKernelAndTrafficResumesAfterUp() throws Exception {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        veth = VethPair.builder().ipv4(false).create();
        a = direct(true);
        b = direct(false);
        veth.setUp(false, false);
        send(a, 0, 20); // the veth has no carrier: the kernel drops the frames and completes them
        veth.setUp(false, true);
        assertEquals(0, receive(b, 20, QUIET_NANOS).length, "what went out while B was down is gone");
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        int[] got = new int[0];
        for (int i = 100; got.length == 0 && System.nanoTime() < deadline; i++) {
            send(a, i, 1);
            got = receive(b, 1, QUIET_NANOS);
        }
        assertEquals(1, got.length, "traffic resumed after B came up again");
        assertFalse(b.kernelStatistics().detached(), "down and up keep the program on the interface");
    }

    @Test
    void aDeletedInterfaceIsReportedAndTheSocketClosesCleanly() throws Exception {
        ShimTestSupport.assumeShimAndVeth("afxdp");
        veth = VethPair.builder().ipv4(false).create();
        a = direct(true);
        new ProcessBuilder("ip", "-n", veth.namespaceA().name(), "link", "del", "dev", veth.interfaceA())
            .inheritIO().start().waitFor(10, TimeUnit.SECONDS);
        XdpInfo info = a.kernelStatistics();
        assertTrue(info.detached(), info.describe());
        try {
            send(a, 0, 1);
        } catch (ShimException e) {
            assertTrue(e.getMessage().contains("nicshim_kick"), e.getMessage()); // the kick names the vanished device
        }
        a.close(); // no crash, no leak: valgrind and the close's own checks run in the C tests
        a = null;
    }

    static int[] concat(int[] x, int[] y) {
        int[] r = java.util.Arrays.copyOf(x, x.length + y.length);
        System.arraycopy(y, 0, r, x.length, y.length);
        return r;
    }

    /** The bpf() calls {@code bpftool link detach} makes, for the test's "someone else". */
    static final class BpfLinks {
        static final int BPF_OBJ_GET_INFO_BY_FD = 15;
        static final int BPF_LINK_GET_FD_BY_ID = 30;
        static final int BPF_LINK_GET_NEXT_ID = 31;
        static final int BPF_LINK_DETACH = 34;
        static final int BPF_LINK_TYPE_XDP = 6;
        static final long SYS_BPF = 321;
        static final long SYS_CLOSE = 3;
        private static final MethodHandle SYSCALL = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("syscall").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG), Linker.Option.firstVariadicArg(1));
        private static final MethodHandle CLOSE = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("syscall").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
            Linker.Option.firstVariadicArg(1));

        /** Detaches every XDP link that runs program {@code programId}; returns how many. */
        static int detachXdpLinksOf(int programId) throws Throwable {
            int detached = 0;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment attr = arena.allocate(128, 8);
                MemorySegment info = arena.allocate(128, 8);
                int id = 0;
                while (true) {
                    attr.fill((byte) 0);
                    attr.set(ValueLayout.JAVA_INT, 0, id);
                    if ((long) SYSCALL.invokeExact(SYS_BPF, (long) BPF_LINK_GET_NEXT_ID, attr, 128L) != 0) {
                        return detached; // ENOENT: no more links
                    }
                    id = attr.get(ValueLayout.JAVA_INT, 4);
                    attr.fill((byte) 0);
                    attr.set(ValueLayout.JAVA_INT, 0, id);
                    long fd = (long) SYSCALL.invokeExact(SYS_BPF, (long) BPF_LINK_GET_FD_BY_ID, attr, 128L);
                    if (fd < 0) {
                        continue;
                    }
                    try {
                        info.fill((byte) 0);
                        attr.fill((byte) 0);
                        attr.set(ValueLayout.JAVA_INT, 0, (int) fd);
                        attr.set(ValueLayout.JAVA_INT, 4, (int) info.byteSize());
                        attr.set(ValueLayout.JAVA_LONG, 8, info.address());
                        // struct bpf_link_info: type @0, id @4, prog_id @8
                        if ((long) SYSCALL.invokeExact(SYS_BPF, (long) BPF_OBJ_GET_INFO_BY_FD, attr, 128L) == 0
                            && info.get(ValueLayout.JAVA_INT, 0) == BPF_LINK_TYPE_XDP
                            && info.get(ValueLayout.JAVA_INT, 8) == programId) {
                            attr.fill((byte) 0);
                            attr.set(ValueLayout.JAVA_INT, 0, (int) fd);
                            if ((long) SYSCALL.invokeExact(SYS_BPF, (long) BPF_LINK_DETACH, attr, 128L) != 0) {
                                throw new IOException("BPF_LINK_DETACH of link " + id + " failed");
                            }
                            detached++;
                        }
                    } finally {
                        long ignored = (long) CLOSE.invokeExact(SYS_CLOSE, fd);
                    }
                }
            }
        }
    }
}
