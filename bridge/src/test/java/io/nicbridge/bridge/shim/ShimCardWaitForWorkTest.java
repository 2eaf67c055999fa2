package io.nicbridge.bridge.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.port.FramePort;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ShimCard#waitForWork}: the blocking wait of a thread that does its own INLINE card's work - it sleeps in the
 * kernel until a frame arrives (and the frame is then in the driver's ring) or the timeout passes, and it is refused
 * for a THREADED card and for a bad timeout.
 */
class ShimCardWaitForWorkTest {
    VethPair veth;
    ShimCard cardA;
    ShimCard cardB;
    TulipDriver driverA;
    TulipDriver driverB;

    void open(String mode) throws Exception {
        ShimTestSupport.assumeShimAndVeth();
        veth = VethPair.builder().ipv4(false).create();
        cardA = ShimTestSupport.card(veth, true, "mode=inline&tx=send");
        cardB = ShimTestSupport.card(veth, false, "mode=" + mode);
        driverA = ShimTestSupport.driver(cardA, TulipConfig.defaults());
        driverB = ShimTestSupport.driver(cardB, TulipConfig.defaults());
    }

    @AfterEach
    void close() {
        for (AutoCloseable c : new AutoCloseable[] {driverA, driverB, cardA, cardB, veth}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }
        }
    }

    @Test
    void aWaitingThreadWakesWhenAFrameArrivesAndFindsItInTheRing() throws Exception {
        open("inline");
        assertEquals(FramePort.NONE, driverB.poll(), "nothing has been sent yet");
        long[] woke = new long[1];
        Thread sender = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            int h = driverA.claim();
            MemorySegment f = driverA.txBuffer(h);
            MacAddress.write(driverB.stationAddress().value(), f, 0);
            MacAddress.write(driverA.stationAddress().value(), f, 6);
            f.set(ValueLayout.JAVA_BYTE, 12, (byte) 0x88);
            f.set(ValueLayout.JAVA_BYTE, 13, (byte) 0xB5);
            f.set(ValueLayout.JAVA_BYTE, 14, (byte) 42);
            driverA.commit(h, 60); // the doorbell does card A's work on this thread (inline): the frame leaves now
        });
        long start = System.nanoTime();
        int h = FramePort.NONE;
        // one wait normally; a wake-up without the frame (a register write, the setup frame's echo) waits again
        while (h == FramePort.NONE && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5)) {
            cardB.waitForWork(TimeUnit.SECONDS.toNanos(1));
            h = driverB.poll();
        }
        woke[0] = System.nanoTime() - start;
        sender.join();
        assertNotEquals(FramePort.NONE, h, "the frame is in B's ring after the wait");
        assertEquals(42, driverB.rxBuffer(h).get(ValueLayout.JAVA_BYTE, 14));
        driverB.release(h);
        assertTrue(woke[0] < TimeUnit.MILLISECONDS.toNanos(900), "woken by the frame, not by the 1 s timeout: "
            + woke[0] / 1e6 + " ms");
    }

    @Test
    void withoutTrafficTheWaitLastsItsTimeout() throws Exception {
        open("inline");
        long start = System.nanoTime();
        cardB.waitForWork(TimeUnit.MILLISECONDS.toNanos(30));
        long waited = System.nanoTime() - start;
        assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(25), "slept in the shim: " + waited / 1e6 + " ms");
        assertEquals(FramePort.NONE, driverB.poll());
        cardB.waitForWork(0); // work without waiting
    }

    @Test
    void refusedForAThreadedCardAndForABadTimeout() throws Exception {
        open("threaded");
        IllegalStateException threaded = assertThrows(IllegalStateException.class, () -> cardB.waitForWork(1000));
        assertTrue(threaded.getMessage().contains("INLINE"), threaded.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
            () -> cardA.waitForWork(-1));
        assertTrue(negative.getMessage().contains("timeoutNanos"), negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> cardA.waitForWork(2_000_000_000L));
    }
}
