package io.nicbridge.sim.misuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.medusa.MedusaConfig;
import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.spi.CardFailedException;
import io.nicbridge.contract.Medusa;
import io.nicbridge.sim.engine.ThreadedEngine;
import io.nicbridge.sim.medusa.MedusaCard;
import io.nicbridge.sim.sba200.Sba200Card;
import io.nicbridge.sim.sba200.Sba200Network;
import io.nicbridge.sim.testbed.EmulatedTestbed;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A card model that throws on its engine thread fails its card loudly: the engine logs it once and the card's drivers
 * throw {@link CardFailedException} with the model's exception as the cause at their next call - within milliseconds,
 * not after a timeout (before, the exception was stored where nothing read it and drivers waited into timeouts). A
 * driver thread already blocked in a wait wakes and throws too.
 */
class CardFailureTest {
    /** Far above what failing fast takes, far below the waits the drivers would otherwise sit out. */
    static final long FAST_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private static FaultyEngine faultyEngine() {
        return new FaultyEngine(new ThreadedEngine(new BackoffIdle()));
    }

    @Test
    void tulipDriverThrowsWithTheModelsExceptionAtItsNextCall() throws Exception {
        FaultyEngine engine = faultyEngine();
        try (TulipTestbed bed = TulipTestbed.builder().engine(engine).nodes(2)
                .config(i -> TulipConfig.builder().interruptMode(TulipConfig.InterruptMode.INTERRUPT).build())
                .build()) {
            bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            TulipDriver a = bed.driver(0);
            sendOne(a, bed.driver(1)); // the pair works
            CompletableFuture<Throwable> blocked = blockedWait(a);

            IllegalStateException boom = new IllegalStateException("injected model bug");
            long t0 = System.nanoTime();
            engine.explode(bed.card(0).name(), boom);
            Throwable woken = blocked.get(5, TimeUnit.SECONDS);
            assertFailedWith(boom, woken, "a thread blocked in await wakes and throws");
            assertTrue(System.nanoTime() - t0 < FAST_NANOS, "the blocked waiter failed fast");

            long t1 = System.nanoTime();
            long txBefore = a.counters().txFrames();
            assertFailedWith(boom, assertThrows(CardFailedException.class, a::claim), "claim");
            assertFailedWith(boom, assertThrows(CardFailedException.class, a::poll), "poll");
            assertEquals(txBefore, a.counters().txFrames(), "a refused call changes no counter");
            assertFailedWith(boom, assertThrows(CardFailedException.class, () -> a.await(10, TimeUnit.SECONDS)),
                "await");
            assertTrue(System.nanoTime() - t1 < FAST_NANOS, "no call waited into a timeout");
            assertSame(boom, engine.threaded().failure());
            sendOne(bed.driver(1), null); // the other card still works
        }
    }

    @Test
    void pollingTulipDriverFailsInsteadOfWaitingOnMemory() throws Exception {
        FaultyEngine engine = faultyEngine();
        try (TulipTestbed bed = TulipTestbed.builder().engine(engine).nodes(2)
                .config(i -> TulipConfig.builder().interruptMode(TulipConfig.InterruptMode.POLLING).build())
                .build()) {
            bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            TulipDriver a = bed.driver(0);
            CompletableFuture<Throwable> blocked = blockedWait(a);
            IllegalStateException boom = new IllegalStateException("injected model bug");
            engine.explode(bed.card(0).name(), boom);
            assertFailedWith(boom, blocked.get(5, TimeUnit.SECONDS), "a polling await notices the failed card");
        }
    }

    @Test
    void medusaDriverThrowsWithTheModelsExceptionAtItsNextCall() throws Exception {
        FaultyEngine engine = faultyEngine();
        try (EmulatedTestbed bed = EmulatedTestbed.on(engine)) {
            MedusaCard ca = bed.medusa("medusa-a", bed.fddiRing("ring"), "02:00:00:00:00:0a");
            try (MedusaDriver a = MedusaDriver.open(ca, MedusaConfig.builder().stationAddress(0x02_00_00_00_00_0AL)
                    .interruptMode(MedusaConfig.InterruptMode.INTERRUPT).build())) {
                CompletableFuture<Throwable> blocked = blockedWait(a);
                RuntimeException boom = new ArithmeticException("injected model bug");
                long t0 = System.nanoTime();
                engine.explode(ca.name(), boom);
                assertFailedWith(boom, blocked.get(5, TimeUnit.SECONDS), "blocked await");
                assertFailedWith(boom, assertThrows(CardFailedException.class, a::poll), "poll reads RX_FIFO");
                assertFailedWith(boom, assertThrows(CardFailedException.class, () -> a.send(MedusaDriver.BROADCAST,
                    Medusa.FC_LLC_ASYNC_DEFAULT, MemorySegment.ofArray(new byte[4]), 0, 4,
                    MemorySegment.ofArray(new byte[4]), 0, 4)), "send");
                assertTrue(System.nanoTime() - t0 < FAST_NANOS, "failed fast");
                assertSame(boom, ca.failure().getCause());
            }
        }
    }

    @Test
    void unetKernelDriverThrowsWithTheModelsExceptionAtItsNextCommand() throws Exception {
        FaultyEngine engine = faultyEngine();
        try (EmulatedTestbed bed = EmulatedTestbed.on(engine)) {
            Sba200Network net = bed.atm("asx");
            Sba200Card card = bed.sba200("sba-a", net);
            UnetKernelDriver kernel = UnetKernelDriver.open(card, card.bcr(), null);
            kernel.nop(); // the card answers
            RuntimeException boom = new IllegalStateException("injected i960 bug");
            long t0 = System.nanoTime();
            engine.explode(card.name(), boom);
            await(() -> card.failure() != null);
            assertFailedWith(boom, assertThrows(CardFailedException.class, kernel::nop), "a command's doorbell");
            assertFailedWith(boom, assertThrows(CardFailedException.class,
                () -> card.interrupt().await(10, TimeUnit.SECONDS)), "a wait on the line");
            assertTrue(System.nanoTime() - t0 < FAST_NANOS, "failed fast, not after the 5 s command timeout");
        }
    }

    private static void assertFailedWith(Throwable cause, Throwable thrown, String what) {
        assertTrue(thrown instanceof CardFailedException, what + ": " + thrown);
        assertSame(cause, thrown.getCause(), what + ": the model's own exception is the cause");
    }

    /** A thread blocked in {@code port.await(30 s)}; completes with what it threw (or fails the test). */
    private static CompletableFuture<Throwable> blockedWait(FramePort port) throws InterruptedException {
        CompletableFuture<Throwable> result = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().name("blocked-await").start(() -> {
            try {
                int h = port.await(30, TimeUnit.SECONDS);
                result.completeExceptionally(new AssertionError("await returned " + h + " instead of throwing"));
            } catch (Throwable e) {
                result.complete(e);
            }
        });
        Thread.sleep(50); // let it block
        assertTrue(t.isAlive() && !result.isDone(), "the waiter is blocked");
        return result;
    }

    /** One broadcast frame from {@code from}; received by {@code to} when given. */
    private static void sendOne(TulipDriver from, TulipDriver to) throws InterruptedException {
        int h = from.claim();
        assertNotEquals(FramePort.NONE, h);
        MemorySegment b = from.txBuffer(h);
        for (int i = 0; i < 12; i++) {
            b.set(ValueLayout.JAVA_BYTE, i, (byte) (i < 6 ? 0xFF : 0x02));
        }
        from.commit(h, 60);
        if (to != null) {
            int r = to.await(5, TimeUnit.SECONDS);
            assertNotEquals(FramePort.NONE, r, "the frame arrived");
            assertEquals(60, to.rxLength(r));
            to.release(r);
        }
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not reached in 5 s");
            Thread.sleep(1);
        }
    }
}
