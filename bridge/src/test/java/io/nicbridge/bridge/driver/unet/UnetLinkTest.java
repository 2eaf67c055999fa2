package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.bridge.driver.unet.UnetFixture.bytes;
import static io.nicbridge.bridge.driver.unet.UnetFixture.fill;
import static io.nicbridge.contract.Sba200Unet.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The U-Net framing of Link over three endpoints of the contract-level card: peer i = the channel to peer i, inline
 * or buffered chosen at commit, in-place receive one frame at a time, readiness without consumption, back-pressure
 * and onWritable, and misuse per Link's javadoc.
 */
class UnetLinkTest {
    private static final int MTU = 256;
    private static final int TX = 4;
    private static final int RX = 8;
    private final UnetFixture f = new UnetFixture();
    private final UnetEndpoint[] ep = new UnetEndpoint[3];
    private final UnetLink[] link = new UnetLink[3];

    @BeforeEach
    void open() {
        for (int i = 0; i < 3; i++) {
            ep[i] = f.endpoint(i, 64 * 1024);
        }
        // channel c on endpoint i leads to peer c (channel i itself is left closed): i <-> j on VCIs 100 + 10i + j
        for (int i = 0; i < 3; i++) {
            for (int j = i + 1; j < 3; j++) {
                f.connect(ep[i], j, ep[j], i, 100 + 10 * i + j, 100 + 10 * j + i);
            }
        }
        for (int i = 0; i < 3; i++) {
            link[i] = new UnetLink("u" + i, ep[i], i, new int[] {0, 1, 2}, 0, MTU, TX, RX);
        }
    }

    @AfterEach
    void close() {
        for (UnetLink l : link) {
            if (l != null) {
                l.close();
            }
        }
        f.close();
    }

    /** Remembers every frame: peer, bytes; releases at once unless told to hold. */
    private static final class Recorder implements LinkHandler {
        final List<Integer> peers = new ArrayList<>();
        final List<byte[]> frames = new ArrayList<>();
        final List<Long> addresses = new ArrayList<>();
        int writable;
        boolean hold;
        int held = Link.NONE;

        @Override
        public void onFrame(Link l, int h) {
            peers.add(l.rxPeer(h));
            frames.add(bytes(l.rxBuffer(h), 0, l.rxLength(h)));
            addresses.add(l.rxBuffer(h).address());
            if (hold) {
                held = h;
            } else {
                l.release(h);
            }
        }

        @Override
        public void onWritable(Link l) {
            writable++;
        }
    }

    private void send(UnetLink from, int peer, int length, int seed) {
        int h = from.claim(peer);
        assertNotEquals(Link.NONE, h, "claim to " + peer);
        assertEquals(MTU, from.txBuffer(h).byteSize());
        fill(from.txBuffer(h), 0, length, seed);
        from.commit(h, length);
    }

    private static byte[] expected(int length, int seed) {
        MemorySegment s = MemorySegment.ofArray(new byte[length]);
        fill(s, 0, length, seed);
        return bytes(s, 0, length);
    }

    @Test
    void framesOfEverySizeReachTheNamedPeerWithTheirBytesAndNoHeader() {
        int[] sizes = {1, 16, INLINE_MAX, INLINE_MAX + 1, 100, MTU};
        for (int from = 0; from < 3; from++) {
            for (int to = 0; to < 3; to++) {
                if (to == from) {
                    continue;
                }
                for (int len : sizes) {
                    send(link[from], to, len, len + from);
                }
                Recorder r = new Recorder();
                assertEquals(sizes.length, link[to].poll(r, 100));
                for (int i = 0; i < sizes.length; i++) {
                    assertEquals(from, r.peers.get(i), "the channel names the sender");
                    assertArrayEquals(expected(sizes[i], sizes[i] + from), r.frames.get(i), "length " + sizes[i]);
                    long rq = ep[to].receiveQueueSegment().address();
                    long inRq = r.addresses.get(i) - rq;
                    boolean inDescriptor = inRq >= 0 && inRq < (long) ep[to].receiveQueueLength() * RECV_DESC_SIZE;
                    assertEquals(sizes[i] <= INLINE_MAX, inDescriptor,
                            "length " + sizes[i] + ": inline read in its descriptor, longer in its receive buffer");
                }
            }
        }
        assertEquals(0, link[1].counters().rxErrors() + link[1].counters().rxDrops());
        assertEquals(2 * sizes.length, link[0].counters().txFrames());
    }

    @Test
    void inlineOrBufferedIsChosenAtCommitAndOnlyBufferedSendsKeepTheirBuffer() {
        f.card.holdTransmit = true; // the card takes no descriptor: nothing completes
        for (int i = 0; i < TX + 3; i++) {
            send(link[0], 1, INLINE_MAX, i); // inline: the bytes went into the descriptor, the buffer is free at once
        }
        for (int i = 0; i < TX; i++) {
            send(link[0], 1, INLINE_MAX + 1, i);
        }
        assertEquals(Link.NONE, link[0].claim(1), "every buffer in flight in a buffered send");
        assertEquals(1, link[0].counters().txBackPressure());
        assertEquals(2 * TX + 3, ep[0].sendsInFlight());
        f.card.resumeTransmit();
        Recorder r = new Recorder();
        assertEquals(2 * TX + 3, link[1].poll(r, 100));
        assertEquals(0, r.writable, "link 1 refused no claim");
        Recorder s = new Recorder();
        link[0].poll(s, 100);
        assertEquals(1, s.writable, "the completions freed the buffers: onWritable once");
        link[0].poll(s, 100);
        assertEquals(1, s.writable, "and only once");
        assertNotEquals(Link.NONE, link[0].claim(1));
    }

    @Test
    void aFullSendQueueIsBackPressureAndTheProbeCallsTheListenerUntilItDrains() {
        ManualScheduler scheduler = new ManualScheduler();
        link[0].writableProbe(scheduler, 1_000);
        int[] ready = new int[1];
        link[0].readinessListener(() -> ready[0]++);
        f.card.holdTransmit = true;
        int sent = 0;
        while (true) {
            int h = link[0].claim(2);
            if (h == Link.NONE) {
                break;
            }
            link[0].commit(h, 8);
            sent++;
        }
        assertEquals(SQ_LEN, sent, "inline sends: the send queue, not the buffers, is the limit");
        assertTrue(scheduler.armed(), "a refused claim arms the probe");
        scheduler.fire();
        assertEquals(1, ready[0], "the probe tells the runner to look");
        Recorder r = new Recorder();
        link[0].poll(r, 10);
        assertEquals(0, r.writable, "still full");
        assertTrue(scheduler.armed(), "still waiting: the probe is armed again");
        f.card.resumeTransmit();
        scheduler.fire();
        link[0].poll(r, 10);
        assertEquals(1, r.writable);
        assertFalse(scheduler.armed());
        scheduler.fire();
        assertEquals(2, ready[0], "nothing waits: an expired probe says nothing");
    }

    @Test
    void aClaimReservesItsSendDescriptorSoTwoOpenClaimsNeverOverfillTheSendQueue() {
        f.card.holdTransmit = true;
        for (int i = 0; i < SQ_LEN - 1; i++) {
            send(link[0], 1, 8, i);
        }
        int h = link[0].claim(1);
        assertNotEquals(Link.NONE, h, "one descriptor left");
        assertEquals(Link.NONE, link[0].claim(2), "the last descriptor is the open claim's");
        link[0].commit(h, 8); // never meets a full send queue
        assertEquals(SQ_LEN, ep[0].sendsInFlight());
        f.card.resumeTransmit();
        Recorder r = new Recorder();
        link[0].poll(r, 1);
        assertEquals(1, r.writable);
    }

    @Test
    void readinessAnnouncesWithoutConsumingAndHeldFramesBlockTheNext() {
        int[] ready = new int[1];
        link[1].readinessListener(() -> ready[0]++);
        send(link[0], 1, 10, 1);
        send(link[0], 1, 200, 2);
        assertEquals(1, ready[0], "one signal: the queue became non-empty once (edge-triggered)");
        Recorder r = new Recorder();
        r.hold = true;
        assertEquals(1, link[1].poll(r, 10), "one frame is held at a time: the receive queue is consumed in order");
        assertEquals(0, link[1].poll(r, 10), "nothing more while it is held");
        assertEquals(10, link[1].rxLength(r.held));
        link[1].release(r.held);
        r.hold = false;
        assertEquals(1, link[1].poll(r, 10));
        assertArrayEquals(expected(200, 2), r.frames.get(1));
        link[1].readinessListener(null);
        send(link[0], 1, 10, 3);
        assertEquals(1, ready[0], "removed");
        assertEquals(1, link[1].poll(r, 10));
    }

    @Test
    void damagedFramesAndFramesOnAChannelOfNoPeerAreCountedAndNeverDelivered() {
        f.card.failNextReceive(RX_ERR_CRC);
        send(link[0], 1, 100, 1);
        // a channel the kernel opened on endpoint 1 that the link maps to no peer (channel 1 is its own number)
        f.kernel.openChannel(ep[1], 1, 0, 300, 301);
        f.kernel.openChannel(ep[0], 9, 0, 301, 300);
        f.card.connect(301, 301);
        assertTrue(ep[0].send(9, 0, 64));
        send(link[0], 1, 50, 2);
        Recorder r = new Recorder();
        assertEquals(1, link[1].poll(r, 10));
        assertArrayEquals(expected(50, 2), r.frames.get(0));
        assertEquals(1, link[1].counters().rxErrors());
        assertEquals(1, link[1].counters().rxDrops());
        assertEquals(RX, ep[1].freeBuffersPosted(), "every buffer went back to the free queue");
    }

    @Test
    void misuseThrowsAndChangesNothing() {
        UnetLink l = link[0];
        assertThrows(IllegalArgumentException.class, () -> l.claim(0), "self");
        assertThrows(IllegalArgumentException.class, () -> l.claim(3));
        assertThrows(IllegalArgumentException.class, () -> l.claim(-3));
        IllegalArgumentException bc = assertThrows(IllegalArgumentException.class, () -> l.claim(Link.BROADCAST));
        assertTrue(bc.getMessage().contains("no broadcast"), bc.getMessage());
        assertFalse(l.canBroadcast());
        int h = l.claim(1);
        assertThrows(IllegalArgumentException.class, () -> l.commit(h, 0));
        assertThrows(IllegalArgumentException.class, () -> l.commit(h, MTU + 1));
        assertThrows(IllegalStateException.class, () -> l.commit(h + 1, 10), "never claimed");
        assertThrows(IllegalStateException.class, () -> l.txBuffer(-1));
        l.commit(h, 10); // still claimed after the refusals
        assertThrows(IllegalStateException.class, () -> l.commit(h, 10), "committed already");
        assertThrows(IllegalStateException.class, () -> l.abort(h));
        int a = l.claim(2);
        l.abort(a);
        assertThrows(IllegalStateException.class, () -> l.abort(a), "aborted already");
        assertEquals(1, l.counters().txFrames());

        Recorder r = new Recorder();
        r.hold = true;
        assertEquals(1, link[1].poll(r, 10));
        int held = r.held;
        assertThrows(IllegalStateException.class, () -> link[1].rxLength(held + 1));
        assertThrows(IllegalStateException.class, () -> link[1].release(Link.NONE));
        link[1].release(held);
        assertThrows(IllegalStateException.class, () -> link[1].release(held), "released already");
        assertThrows(IllegalStateException.class, () -> link[1].rxBuffer(held));

        l.close();
        l.close();
        assertThrows(IllegalStateException.class, () -> l.claim(1));
        assertThrows(IllegalStateException.class, () -> l.poll(r, 1));
        assertThrows(IllegalStateException.class, () -> l.readinessListener(() -> { }));
        assertEquals(MTU, l.mtu());
        assertEquals("u0", l.name());
        assertEquals(1, l.counters().txFrames());
    }

    @Test
    void setupRejectsBadArguments() {
        UnetEndpoint e = f.endpoint(5, 64 * 1024);
        f.kernel.openChannel(e, 0, 0, 500, 501);
        assertThrows(IllegalArgumentException.class, () -> new UnetLink("x", e, 1, new int[] {0, 1, 7}, 0, MTU, TX, RX),
                "channel 7 is not open");
        assertThrows(IllegalArgumentException.class, () -> new UnetLink("x", e, 1, new int[] {0, 1, 0}, 0, MTU, TX, RX),
                "one channel for two peers");
        assertThrows(IllegalArgumentException.class, () -> new UnetLink("x", e, 1, new int[] {0, 1}, 32, MTU, TX, RX),
                "misaligned area");
        assertThrows(IllegalArgumentException.class, () -> new UnetLink("x", e, 1, new int[] {0, 1}, 0, MTU, SQ_LEN + 1, RX));
        assertThrows(IllegalArgumentException.class, () -> new UnetLink("x", e, 1, new int[] {0, 1}, 0, MTU, TX, FQ_LEN + 1));
        assertThrows(IllegalArgumentException.class, () -> new UnetLink("x", e, 1, new int[] {0, 1}, 60_000, MTU, TX, RX),
                "does not fit the segment");
        assertThrows(IllegalArgumentException.class, () -> new UnetLink("x", e, 2, new int[] {0, 1}, 0, MTU, TX, RX));
        assertEquals(0, e.freeBuffersPosted(), "a refused setup posts nothing");
        assertEquals(FQ_LEN - RX + 1, e.postReceiveBuffers(0, FQ_LEN - RX + 1, MTU));
        assertThrows(IllegalStateException.class, () -> new UnetLink("x", e, 1, new int[] {0, 1}, 0, MTU, TX, RX),
                "the free queue has no room for all of the link's buffers");
        assertEquals(FQ_LEN - RX + 1, e.freeBuffersPosted(), "and nothing was posted");
        UnetEndpoint u = f.endpoint(6, 64 * 1024);
        f.kernel.openChannel(u, 0, 0, 600, 601);
        u.upcall((ep, d) -> { }, UPCALL_NONEMPTY);
        IllegalStateException up = assertThrows(IllegalStateException.class,
                () -> new UnetLink("x", u, 1, new int[] {0, 1}, 0, MTU, TX, RX), "an upcall would consume the frames");
        assertTrue(up.getMessage().contains("upcall"), up.getMessage());
        assertEquals(0, u.freeBuffersPosted());
    }

    /** A scheduler whose one timer the test fires by hand. */
    private static final class ManualScheduler implements io.nicbridge.bridge.time.Scheduler {
        private Runnable action;
        private boolean armed;
        private long deadline;

        @Override
        public io.nicbridge.bridge.time.Timer newTimer(String name, Runnable a) {
            this.action = a;
            return new io.nicbridge.bridge.time.Timer() {
                @Override
                public void armAfter(long delayNanos) {
                    armed = true;
                    deadline = delayNanos;
                }

                @Override
                public void armAt(long deadlineNanos) {
                    armed = true;
                    deadline = deadlineNanos;
                }

                @Override
                public void cancel() {
                    armed = false;
                }

                @Override
                public boolean isArmed() {
                    return armed;
                }

                @Override
                public long deadline() {
                    return deadline;
                }
            };
        }

        boolean armed() {
            return armed;
        }

        void fire() {
            armed = false;
            action.run();
        }

        @Override
        public boolean isVirtual() {
            return true;
        }

        @Override
        public long nanoTime() {
            return 0;
        }
    }
}
