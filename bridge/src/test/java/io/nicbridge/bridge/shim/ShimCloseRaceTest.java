package io.nicbridge.bridge.shim;

import static io.nicbridge.contract.Dec21140.CSR1;
import static io.nicbridge.contract.Dec21140.CSR5;
import static io.nicbridge.contract.Dec21140.CSR7;
import static io.nicbridge.contract.Dec21140.CSR8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.spi.CardFailedException;
import io.nicbridge.contract.NicShim;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Closing a shim card while other threads are inside the shim: waiting on the interrupt line (in INLINE mode that
 * thread blocks in the shim's own wait), pumping ({@code nicshim_poll} with the longest timeout), ringing doorbells and
 * accessing side-effect registers. Close must free the native shim only after every one of them has left it: before
 * the in-flight guard, close freed the handle under a thread blocked in {@code epoll_wait}, a use after free that
 * killed the JVM. Each blocked call returns or throws {@link IllegalStateException}; later calls throw it; the shim
 * reports its memory freed (not leaked). Repeated {@value #DEFAULT_ROUNDS} times per mode with random close timing;
 * {@code -Dnicbridge.shim.closeRaceRounds=N} runs more.
 */
class ShimCloseRaceTest {
    static final int DEFAULT_ROUNDS = 15;
    static final int ROUNDS = Integer.getInteger("nicbridge.shim.closeRaceRounds", DEFAULT_ROUNDS);

    @ParameterizedTest
    @ValueSource(strings = {"afpacket", "afxdp"})
    void threadedCardClosedUnderBlockedCallers(String target) throws Exception {
        ShimTestSupport.assumeShimAndVeth(target);
        rounds(target, "mode=threaded", 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"afpacket", "afxdp"})
    void inlineCardClosedUnderBlockedCallers(String target) throws Exception {
        ShimTestSupport.assumeShimAndVeth(target);
        rounds(target, "mode=inline", 2);
    }

    private static void rounds(String target, String params, long seed) throws Exception {
        Random random = new Random(seed);
        try (VethPair veth = VethPair.builder().ipv4(false).create()) {
            for (int round = 0; round < ROUNDS; round++) {
                closeUnderLoad(ShimTestSupport.card(target, veth, true, params), random.nextInt(3_000),
                    random.nextBoolean(), "round " + round + " (" + target + ", " + params + ")");
            }
        }
    }

    /**
     * @param closeAfterMicros how long the callers run before the close
     * @param closeFromOwnThread close from a fresh thread (true) or the test's thread
     */
    private static void closeUnderLoad(ShimCard card, int closeAfterMicros, boolean closeFromOwnThread, String what)
            throws Exception {
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(4);
        List<Thread> callers = new ArrayList<>();
        callers.add(caller("line waiter", started, stop, unexpected, () -> card.interrupt().await(1, TimeUnit.SECONDS)));
        callers.add(caller("pumper", started, stop, unexpected,
            () -> card.shim().poll(NicShim.POLL_MAX_TIMEOUT_NS)));
        callers.add(caller("doorbells", started, stop, unexpected, () -> {
            card.registers().write(CSR1, 1); // TX poll demand: nicshim_kick
            card.registers().write(CSR5, 0); // write-1-to-clear (nothing): nicshim_reg_write
            card.registers().read(CSR8);     // clear-on-read: nicshim_reg_read
            card.registers().write(CSR7, 0);
        }));
        callers.add(caller("statistics", started, stop, unexpected, () -> {
            card.statistics();
            card.progress().run();
        }));
        callers.forEach(Thread::start);
        assertTrue(started.await(5, TimeUnit.SECONDS), what + ": callers started");
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(closeAfterMicros));
        if (closeFromOwnThread) {
            Thread closer = Thread.ofPlatform().name("closer").start(card::close);
            card.close(); // two closers at once: both return after the one close
            closer.join(TimeUnit.NANOSECONDS.toMillis(NativeShim.DRAIN_TIMEOUT_NANOS) + 5_000);
            assertFalse(closer.isAlive(), what + ": the second closer returned");
        } else {
            card.close();
        }
        // Every caller leaves promptly: a blocked call was woken by the close, it did not wait out its timeout.
        long closedAt = System.nanoTime();
        for (Thread t : callers) {
            t.join(5_000);
            if (t.isAlive()) {
                stop.set(true);
                fail(what + ": " + t.getName() + " still runs 5 s after the close");
            }
        }
        if (!unexpected.isEmpty()) {
            AssertionError e = new AssertionError(what + ": callers saw exceptions other than IllegalStateException");
            unexpected.forEach(e::addSuppressed);
            throw e;
        }
        assertTrue(System.nanoTime() - closedAt < TimeUnit.SECONDS.toNanos(2),
            what + ": callers left within 2 s of the close");
        assertEquals(NativeShim.CloseOutcome.FREED, card.shim().closeOutcome(), what + ": native memory freed");
        assertEquals(0, card.shim().callsInFlight(), what);

        // Later calls: IllegalStateException, the card's way (CardFailedException names the close as the cause).
        assertThrows(IllegalStateException.class, () -> card.shim().poll(0));
        assertThrows(IllegalStateException.class, () -> card.shim().kick(NicShim.KICK_TX));
        assertThrows(IllegalStateException.class, card::statistics);
        assertThrows(IllegalStateException.class, () -> card.progress().run());
        CardFailedException viaRegisters = assertThrows(CardFailedException.class,
            () -> card.registers().write(CSR1, 1));
        assertTrue(viaRegisters.getCause().getMessage().contains("closed"), viaRegisters.getMessage());
        assertThrows(CardFailedException.class, () -> card.interrupt().await(10, TimeUnit.SECONDS));
        card.close(); // idempotent
    }

    private interface Call {
        void run() throws Exception;
    }

    /** A thread that repeats {@code call} until it throws IllegalStateException (the card closed) or is stopped. */
    private static Thread caller(String name, CountDownLatch started, AtomicBoolean stop,
                                 ConcurrentLinkedQueue<Throwable> unexpected, Call call) {
        return Thread.ofPlatform().name(name).unstarted(() -> {
            started.countDown();
            while (!stop.get()) {
                try {
                    call.run();
                } catch (IllegalStateException closed) {
                    return; // documented: the card was closed before or during the call
                } catch (Throwable t) {
                    unexpected.add(t);
                    return;
                }
            }
        });
    }
}
