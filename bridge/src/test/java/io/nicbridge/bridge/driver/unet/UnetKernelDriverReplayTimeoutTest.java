package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.time.StepScheduler;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A replayed command the firmware takes and never completes (UnetKernelDriverFuzzTest's
 * {@code replay-waits-for-ever-on-a-consumed-command}, {@code -2}): the replay used to wait for its slot for ever, the
 * driver stayed recovering and refused every setup call. Now the command counts as timed out after the command
 * timeout and the replay starts over from the host's books; an EP_DESTROY of an endpoint destroyed meanwhile is
 * posted again rather than given up. In virtual time, against {@link HostileUnetFirmware} behaving but for the
 * commands it is told to swallow.
 */
class UnetKernelDriverReplayTimeoutTest {
    private static final long TIMEOUT_NANOS = 100_000;
    private static final long WATCHDOG_NANOS = 50_000;

    private final StepScheduler world = new StepScheduler();
    private final HostileUnetFirmware card = new HostileUnetFirmware(null);
    private final CommSegment segment = CommSegment.allocate("seg", 8192);
    private UnetKernelDriver kernel;

    @BeforeEach
    void open() {
        kernel = card.driver(TIMEOUT_NANOS, () -> {
            card.step();
            world.step();
        });
        kernel.timeOn(world);
        kernel.watchdog(world, WATCHDOG_NANOS);
    }

    @AfterEach
    void close() {
        kernel.close();
        segment.close();
        card.close();
    }

    @Test
    void aReplayedCreateTheFirmwareTookAndNeverCompletedTimesOutAndTheReplayStartsOver() {
        UnetEndpoint ep = kernel.createEndpoint(0, segment, 16);
        kernel.openChannel(ep, 2, 0, 33, 34);
        card.swallow(OP_EP_CREATE, 0, 1);
        card.restart(2);

        runUntil(() -> card.swallowed == 1, 1_000_000);
        assertTrue(kernel.isRecovering());
        runUntil(() -> !kernel.isRecovering(), 1_000_000);

        assertEquals(1, kernel.commandTimeouts(), "the swallowed EP_CREATE timed out");
        assertTrue(kernel.replayStalls() >= 1);
        assertEquals(1, kernel.firmwareRestarts(), "one restart: the second run of the replay is not one");
        assertFalse(ep.isRestarting());
        assertTrue(card.active(0), "re-created on the card");
        assertEquals(ep.segmentBusAddress(), card.segBus(0));
        assertEquals(ep.receiveQueueBusAddress(), card.rqBus(0));
        assertTrue(ep.isChannelOpen(2), "the owner's channel survives the card's lost command");
        assertEquals(33, card.txVci(0, 2));
        assertEquals(34, card.rxVci(0, 2));
        kernel.nop(); // setup calls work again
    }

    @Test
    void anEndpointDestroyedDuringAStalledReplayIsDestroyedOnTheCardAtLast() {
        UnetEndpoint ep = kernel.createEndpoint(0, segment, 16);
        // a false sign of a restart: the card keeps endpoint 0; it swallows the replay's EP_DESTROY and the one the
        // destroy below adds, and executes the third
        card.swallow(OP_EP_DESTROY, 0, 2);
        runFor(200_000); // the heartbeat grows past what the next check compares with
        card.heartbeatGoesBack(card.w.getIntAcquire(UG_OFS + UG_HEARTBEAT_OFS)); // to 0

        runUntil(() -> card.swallowed == 1, 1_000_000);
        assertTrue(kernel.isRecovering());
        long segBus = ep.segmentBusAddress();
        kernel.destroyEndpoint(ep); // while recovering: its EP_DESTROY goes with the replay
        runUntil(() -> !kernel.isRecovering(), 1_000_000);

        assertEquals(2, card.swallowed);
        assertEquals(2, kernel.commandTimeouts(), "each swallowed EP_DESTROY timed out once");
        assertFalse(card.active(0), "the card keeps no endpoint on bus 0x" + Long.toHexString(segBus)
                + ", which left the DMA space");
        kernel.nop();
    }

    private void runFor(long nanos) {
        long end = world.nanoTime() + nanos;
        runUntil(() -> world.nanoTime() >= end, nanos + 1_000);
    }

    /** Virtual time passes (the firmware taking a step every microsecond) until {@code done}, within {@code nanos}. */
    private void runUntil(BooleanSupplier done, long nanos) {
        long end = world.nanoTime() + nanos;
        while (!done.getAsBoolean()) {
            assertTrue(world.nanoTime() < end, "not within " + nanos + " ns of virtual time");
            card.step();
            world.runUntil(world.nanoTime() + 1_000);
        }
    }
}
