package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.time.StepScheduler;

/**
 * The U-Net kernel driver against a misbehaving firmware ({@link HostileUnetFirmware}): whatever the firmware does
 * with the command queue - any completion status, error code and upper bits, completions for commands never issued
 * or twice, none at all, out of order across slots, board restarts at any time (during a command, during the
 * driver's replay of its endpoints) and false signs of one - between the host's endpoint creates and destroys,
 * channel opens and closes, upcall modes, NOPs, statistics, raw commands and time passing, with or without the
 * firmware watchdog, all in virtual time (every wait ends at its virtual deadline):
 * <ul>
 *   <li>only documented exceptions: {@link UnetCommandException}, {@link IllegalStateException} while the driver
 *       recovers, {@link IllegalArgumentException} for the host's own bad arguments;</li>
 *   <li>every call's outcome is what the firmware told it: DONE is success; ERROR with a code is that code; no
 *       completion while the call waited is {@link UnetCommandException#TIMEOUT} (one the firmware writes only
 *       later - on the doorbell of the EP_DESTROY behind an unanswered EP_CREATE - was never read by the call: the
 *       firmware's record of what a command was told closes at the next doorbell); a slot that reads FREE again is
 *       {@link UnetCommandException#LOST}; any other w1 is {@link UnetCommandException#BAD_COMPLETION}, counted in
 *       {@link UnetKernelDriver#badCompletions()} (a restart found while the call waited makes it LOST);</li>
 *   <li>the host's state is what it was told: its endpoints are exactly those created and not destroyed, and the
 *       channels of each are exactly those opened and not closed successfully (a replay after a restart only keeps
 *       or drops channels, it never makes one up); the driver's counters never go back;</li>
 *   <li>once the firmware behaves, a watchdog'ed driver recovers in bounded virtual time: no endpoint restarting, each
 *       live on the card with its own bus addresses (an endpoint whose create was told DONE undone may be refused for
 *       good: the driver then retries it at every check, and the state is looked at between two such replays); and
 *       the card holds no endpoint on bus addresses the DMA space has given to anything else (a create the driver
 *       gave up on is destroyed behind it).</li>
 * </ul>
 * Corpus: {@code src/test/resources/io/nicbridge/bridge/driver/unet/UnetKernelDriverFuzzTestInputs/hostileFirmware/}.
 */
class UnetKernelDriverFuzzTest {
    private static final int ENDPOINTS = 4;
    private static final int CHANNELS = 4;
    private static final long TIMEOUT_NANOS = 100_000;
    private static final long WATCHDOG_NANOS = 50_000;
    /**
     * Longer than one replay against a firmware that behaves: at most 4 endpoints x (EP_DESTROY, EP_CREATE, 4 CH_OPEN,
     * EP_UPCALL) = 28 commands, posted 16 at a time and collected every 20 us.
     */
    private static final long REPLAY_BOUND_NANOS = 1_000_000;

    @FuzzTest(maxDuration = "30s")
    void hostileFirmware(FuzzedDataProvider script) {
        StepScheduler world = new StepScheduler();
        boolean watchdog = script.consumeBoolean();
        CommSegment[] segments = new CommSegment[ENDPOINTS];
        try (HostileUnetFirmware card = new HostileUnetFirmware(script)) {
            UnetKernelDriver kernel = card.driver(TIMEOUT_NANOS, () -> {
                card.step();
                world.step();
            });
            kernel.timeOn(world);
            if (watchdog) {
                kernel.watchdog(world, WATCHDOG_NANOS);
            }
            Host host = new Host(card, kernel);
            try {
                for (int e = 0; e < ENDPOINTS; e++) {
                    segments[e] = CommSegment.allocate("seg" + e, 8192);
                }
                for (int step = 0; step < 40 && script.remainingBytes() > 0; step++) {
                    host.step(script, segments, world);
                    host.check();
                }
                card.behave();
                passTime(card, world, 2_000_000); // a replay of 32 endpoints is some hundred command round trips
                host.check();
                if (watchdog) {
                    if (holdsAnEndpointLiedAbout(card, kernel)) {
                        // A create told DONE without being done may be one the card refuses for good (an RQ_LEN below
                        // its minimum): the driver tries to re-create it at every check (its documented retry), so it
                        // recovers for a few command round trips each period. Look between two such replays.
                        world.runUntil(() -> !kernel.isRecovering(), world.nanoTime() + REPLAY_BOUND_NANOS);
                    }
                    assertFalse(kernel.isRecovering(), "the driver still recovers from a restart of a firmware that"
                        + " behaves");
                    for (int e = 0; e < ENDPOINTS; e++) {
                        UnetEndpoint ep = kernel.endpoint(e);
                        if (ep != null && !card.liedAbout[e]) { // a create told DONE undone may be one it refuses
                            assertFalse(ep.isRestarting(), "endpoint " + e + " still restarting");
                            assertTrue(card.active(e), "endpoint " + e + " live on the host, not on the card");
                            assertEquals(ep.segmentBusAddress(), card.segBus(e), "endpoint " + e + " segment bus");
                            assertEquals(ep.receiveQueueBusAddress(), card.rqBus(e), "endpoint " + e + " RQ bus");
                        }
                    }
                }
                for (int e = 0; e < MAX_ENDPOINTS; e++) {
                    if (card.active(e) && !card.liedAbout[e]
                            && card.dma.translate(card.segBus(e), 1) >= 0) {
                        UnetEndpoint ep = kernel.endpoint(e);
                        assertTrue(ep != null && ep.segmentBusAddress() == card.segBus(e)
                                && ep.receiveQueueBusAddress() == card.rqBus(e), "the card's endpoint " + e
                                + " is on bus 0x" + Long.toHexString(card.segBus(e)) + ", which the DMA space maps for"
                                + " something else");
                    }
                }
            } finally {
                kernel.close();
                for (CommSegment s : segments) {
                    if (s != null) {
                        s.close();
                    }
                }
            }
        }
    }

    /** Whether the host holds an endpoint whose EP_CREATE or EP_DESTROY the firmware lied about. */
    private static boolean holdsAnEndpointLiedAbout(HostileUnetFirmware card, UnetKernelDriver kernel) {
        for (int e = 0; e < ENDPOINTS; e++) {
            if (kernel.endpoint(e) != null && card.liedAbout[e]) {
                return true;
            }
        }
        return false;
    }

    /** Virtual time passes, the firmware taking a step every microsecond. */
    private static void passTime(HostileUnetFirmware card, StepScheduler world, long nanos) {
        long end = world.nanoTime() + nanos;
        while (world.nanoTime() < end) {
            card.step();
            world.runUntil(world.nanoTime() + 1_000);
        }
    }

    /** The host's side: what it was told, and the checks of the driver against it. */
    private static final class Host {
        final HostileUnetFirmware card;
        final UnetKernelDriver kernel;
        final UnetEndpoint[] endpoints = new UnetEndpoint[ENDPOINTS];
        final long[] channels = new long[ENDPOINTS];
        long restartsSeen;
        long[] last = new long[6];

        Host(HostileUnetFirmware card, UnetKernelDriver kernel) {
            this.card = card;
            this.kernel = kernel;
        }

        void step(FuzzedDataProvider script, CommSegment[] segments, StepScheduler world) {
            int e = script.consumeInt(0, ENDPOINTS - 1);
            int c = script.consumeInt(0, CHANNELS - 1);
            UnetEndpoint ep = endpoints[e];
            int op = script.consumeInt(0, 8);
            if (op == 7) {
                passTime(card, world, script.consumeInt(1, 400) * 1_000L);
                return;
            }
            int bell = card.doorbells();
            long restarts = kernel.firmwareRestarts();
            try {
                switch (op) {
                    case 0 -> {
                        int rqLen = script.consumeBoolean() ? 16 : script.consumeInt(0, 300);
                        UnetEndpoint made = kernel.createEndpoint(e, segments[e], rqLen);
                        assertTrue(ep == null, "created endpoint " + e + " twice");
                        endpoints[e] = made;
                        channels[e] = 0;
                    }
                    case 1 -> {
                        if (ep == null) {
                            return;
                        }
                        endpoints[e] = null; // gone from the host whatever the firmware says
                        kernel.destroyEndpoint(ep);
                    }
                    case 2 -> {
                        if (ep == null) {
                            return;
                        }
                        kernel.openChannel(ep, c, script.consumeInt(0, 1), script.consumeInt(30, 40),
                            script.consumeInt(30, 40));
                        channels[e] |= 1L << c;
                    }
                    case 3 -> {
                        if (ep == null) {
                            return;
                        }
                        kernel.closeChannel(ep, c);
                        channels[e] &= ~(1L << c);
                    }
                    case 4 -> {
                        if (ep == null) {
                            return;
                        }
                        kernel.setUpcallMode(ep, script.consumeBoolean() ? UPCALL_NONE : script.consumeInt(0, 4));
                    }
                    case 5 -> kernel.nop();
                    case 6 -> kernel.readStatistics();
                    default -> {
                        int w1 = kernel.execute(script.consumeInt(0, 9), script.consumeInt(), 0, 0, 0, 0, 0);
                        assertEquals(card.told(bell), Integer.valueOf(w1), "raw command's w1");
                    }
                }
                if (card.doorbells() != bell && op != 8) { // a raw command returns ERROR too (checked above)
                    assertEquals(Integer.valueOf(CMD_STATUS_DONE), card.told(bell), "what call " + op + " was told");
                }
            } catch (UnetCommandException x) {
                if (kernel.firmwareRestarts() != restarts && x.errorCode() == UnetCommandException.LOST) {
                    return; // the restart found while it waited made it lost
                }
                if (card.doorbells() == bell) {
                    assertEquals(UnetCommandException.LOST, x.errorCode(), "command exception without a command: " + x);
                    return; // not posted: the board's RAM was wiped under the driver
                }
                int expected = expectedCode(card.told(bell), x);
                assertEquals(expected, x.errorCode(), "what the call threw for w1 " + card.told(bell) + ": " + x);
            } catch (IllegalStateException x) {
                assertTrue(kernel.isRecovering() && x.getMessage().contains("isRecovering"), "unexpected " + x);
                assertEquals(bell, card.doorbells(), "refused while recovering, yet a command went out");
            } catch (IllegalArgumentException x) {
                assertTrue(x.getMessage().contains("hostile"), "unexplained refusal " + x);
                assertEquals(bell, card.doorbells(), "refused on the host side, yet a command went out");
            }
        }

        private static int expectedCode(Integer w1, UnetCommandException x) {
            if (w1 == null) {
                return UnetCommandException.TIMEOUT;
            }
            int v = w1;
            if (v == CMD_STATUS_FREE) {
                return UnetCommandException.LOST;
            }
            boolean error = (v & ~(CMD_STATUS_MASK | CMD_ERROR_MASK)) == 0 && (v & CMD_STATUS_MASK) == CMD_STATUS_ERROR
                && (v & CMD_ERROR_MASK) != 0;
            if (error) {
                return (v & CMD_ERROR_MASK) >>> CMD_ERROR_SHIFT;
            }
            if (v == CMD_STATUS_DONE) {
                fail("told DONE, yet the call threw " + x);
            }
            return UnetCommandException.BAD_COMPLETION;
        }

        void check() {
            for (int e = 0; e < ENDPOINTS; e++) {
                assertSame(endpoints[e], kernel.endpoint(e), "the driver's endpoint " + e);
            }
            if (!kernel.isRecovering()) {
                boolean restarted = kernel.firmwareRestarts() != restartsSeen;
                restartsSeen = kernel.firmwareRestarts();
                for (int e = 0; e < ENDPOINTS; e++) {
                    UnetEndpoint ep = endpoints[e];
                    if (ep == null) {
                        continue;
                    }
                    long open = 0;
                    for (int c = 0; c < MAX_CHANNELS; c++) {
                        open |= ep.isChannelOpen(c) ? 1L << c : 0;
                    }
                    if (restarted) {
                        assertEquals(0, open & ~channels[e], "endpoint " + e + ": channels the replay made up");
                        channels[e] = open; // a refused replay drops channels
                    } else {
                        assertEquals(channels[e], open, "endpoint " + e + ": channels opened and not closed");
                    }
                }
            }
            long[] now = {kernel.commandTimeouts(), kernel.commandsLost(), kernel.badCompletions(),
                kernel.firmwareRestarts(), kernel.replayErrors(), kernel.replayStalls()};
            for (int i = 0; i < now.length; i++) {
                assertTrue(now[i] >= last[i], "counter " + i + " went from " + last[i] + " to " + now[i]);
            }
            last = now;
        }
    }
}
