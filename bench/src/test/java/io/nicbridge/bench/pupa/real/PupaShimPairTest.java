package io.nicbridge.bench.pupa.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.nicbridge.bench.pupa.real.PupaShimPair.Node;
import io.nicbridge.bench.pupa.real.PupaShimPair.Wait;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipStatistics;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.shim.ShimTulipLinks;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.contract.Dec21140;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageHandler;
import io.nicbridge.protocols.pupa.PupaConfig;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The two Pupa nodes of {@code nic pupa real-latency} on a real veth pair (skipped with the reason where namespaces,
 * veth pairs or the shim are missing), driven by the test's one thread: a busy-polling pair runs its 21140s without
 * interrupts (CSR7 = 0, {@link TulipConfig.InterruptMode#POLLING}) and delivers exactly what a blocking pair, whose
 * chips interrupt, delivers - every message once, in order, byte for byte, with its tag - and a node's timers still
 * run on the looks that find nothing (the ACK timer answers a message that asked for no acknowledgement).
 */
class PupaShimPairTest {
    private static final int[] SIZES = {4, 31, 32, 64, 128, 129, 256, 1000, 1436};

    @BeforeEach
    void needsRealLinks() {
        Availability shim = new ShimBackendProvider().availability();
        Requirements.assume(Capability.SHIM, shim.available(), shim::reason);
        Availability veth = VethPair.availability();
        Requirements.assume(Capability.NET, veth.available(), veth::reason);
    }

    @Test
    void busyPollingNodesRunTheirChipsWithoutInterruptsAndDeliverWhatInterruptedNodesDeliver() throws Exception {
        List<String> spinning;
        List<String> blocking;
        try (VethPair veth = VethPair.create()) {
            try (PupaShimPair pair = pair(veth, Wait.SPIN)) {
                for (int i = 0; i < 2; i++) {
                    assertEquals(TulipConfig.InterruptMode.POLLING, pair.driver(i).config().interruptMode());
                }
                spinning = pingPong(pair);
                for (int i = 0; i < 2; i++) {
                    assertEquals(0, pair.driver(i).card().registers().readPlain(Dec21140.CSR7),
                        "a busy-polling node's chip has every interrupt masked");
                    assertEquals(0, pair.driver(i).statistics().get(TulipStatistics.Counter.INTERRUPTS));
                    assertEquals(0, pair.node(i).cardStatistics().interrupts(), "the card raised no interrupt");
                }
            }
            try (PupaShimPair pair = pair(veth, Wait.BLOCK)) {
                assertEquals(TulipConfig.InterruptMode.INTERRUPT, pair.driver(0).config().interruptMode());
                blocking = pingPong(pair);
                assertTrue(pair.driver(0).statistics().get(TulipStatistics.Counter.INTERRUPTS) > 0,
                    "a blocking node's chip interrupts and its driver acknowledges");
            }
        }
        assertEquals(expected(), spinning, "busy polling (no interrupts) delivers every message as sent");
        assertEquals(spinning, blocking, "the same messages either way");
    }

    @Test
    void aBusyPollingNodeRunsItsAckTimerOnTheLooksThatFindNothing() throws Exception {
        try (VethPair veth = VethPair.create(); PupaShimPair pair = pair(veth, Wait.SPIN)) {
            Node a = pair.node(0);
            Node b = pair.node(1);
            int free = a.core().sendFifoFree(1);
            MemorySegment message = MemorySegment.ofArray(new byte[64]);
            assertEquals(MessageChannel.OK, a.core().send(1, message, 0, 64, 7, true));
            assertTrue(a.core().sendFifoFree(1) < free, "the message holds its send-FIFO entry until acknowledged");
            int[] delivered = {0};
            MessageHandler count = (peer, data, off, len) -> delivered[0]++;
            long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            // B answers nothing: only its ACK timer (10 ms) can acknowledge the message and free A's entry.
            while (a.core().sendFifoFree(1) < free) {
                b.step(count);
                a.step(count);
                if (System.nanoTime() - limit > 0) {
                    fail("no acknowledgement within 5 s: " + a + "; " + b);
                }
            }
            assertEquals(1, delivered[0]);
            assertTrue(b.core().counters().timerAcks() >= 1, "acknowledged by B's ACK timer: " + b);
        }
    }

    private static PupaShimPair pair(VethPair veth, Wait wait) {
        return new PupaShimPair(veth, wait, PupaShimPair.realTime(PupaConfig.defaults()),
            ShimTulipLinks.Transport.AF_PACKET);
    }

    /** "tag:size:first byte:last byte" of every message the ping-pong should deliver to A, in order. */
    private static List<String> expected() {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < SIZES.length * 3; k++) {
            int size = SIZES[k % SIZES.length];
            out.add(k + ":" + size + ":" + (byte) (k * 7 + size) + ":" + (byte) (k + size));
        }
        return out;
    }

    /**
     * A sends each message, B is stepped until it has it and echoes it with its tag, A is stepped until the echo is
     * there. @return what A got back, as {@link #expected()} lists it
     */
    private static List<String> pingPong(PupaShimPair pair) {
        Node a = pair.node(0);
        Node b = pair.node(1);
        List<String> got = new ArrayList<>();
        MemorySegment message = MemorySegment.ofArray(new byte[1436]);
        MemorySegment echo = MemorySegment.ofArray(new byte[1436]);
        int[] held = {-1};
        int[] tag = {0};
        MessageHandler atB = (peer, data, off, len) -> {
            MemorySegment.copy(data, off, echo, 0, len);
            held[0] = len;
            tag[0] = b.core().lastTag();
        };
        MessageHandler atA = (peer, data, off, len) -> got.add(a.core().lastTag() + ":" + len + ":"
            + data.get(ValueLayout.JAVA_BYTE, off) + ":" + data.get(ValueLayout.JAVA_BYTE, off + len - 1));
        for (int k = 0; k < SIZES.length * 3; k++) {
            int size = SIZES[k % SIZES.length];
            message.fill((byte) (k + size));
            message.set(ValueLayout.JAVA_BYTE, 0, (byte) (k * 7 + size));
            long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (a.core().send(1, message, 0, size, k, true) != MessageChannel.OK) {
                a.step(atA);
                check(limit, pair);
            }
            held[0] = -1;
            while (held[0] < 0) {
                b.step(atB);
                check(limit, pair);
            }
            while (b.core().send(0, echo, 0, held[0], tag[0], true) != MessageChannel.OK) {
                b.step(atB);
                check(limit, pair);
            }
            int before = got.size();
            while (got.size() == before) {
                a.step(atA);
                check(limit, pair);
            }
        }
        return got;
    }

    private static void check(long limit, PupaShimPair pair) {
        if (System.nanoTime() - limit > 0) {
            fail("no progress within 5 s: " + pair.node(0) + "; " + pair.node(1) + "; " + pair.cardStatistics());
        }
    }
}
