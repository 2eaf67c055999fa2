package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.bridge.driver.unet.UnetFixture.bytes;
import static io.nicbridge.bridge.driver.unet.UnetFixture.fill;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_BAD_CHANNEL;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_SENT;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.queue.QueueCode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Direct-access placement with bounds, and kernel-emulated endpoints demultiplexed by tag - with the same
 * {@link UnetLink} on them as on regular endpoints.
 */
class DirectAccessAndEmulationTest {
    private static final int SEG = 64 * 1024;
    private static final int WINDOW = 16 * 1024;
    private static final int WINDOW_LEN = 8 * 1024;
    private final UnetFixture f = new UnetFixture();
    private UnetEndpoint a;
    private UnetEndpoint b;

    @BeforeEach
    void open() {
        a = f.endpoint(0, SEG);
        b = f.endpoint(1, SEG);
        f.connect(a, 0, b, 0, 100, 101);
        b.postReceiveBuffers(32 * 1024, 32, 512);
        a.postReceiveBuffers(32 * 1024, 32, 512);
    }

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void theSenderNamesTheOffsetAndTheDataLandsThere() {
        DirectAccess.Window window = new DirectAccess.Window(b, WINDOW, WINDOW_LEN);
        fill(a.segment(), DirectAccess.HEADER_SIZE, 1200, 3);
        assertTrue(DirectAccess.send(a, 0, 0, 4000, 1200));
        long d = b.poll();
        assertEquals(1208, b.length(d));
        assertEquals(DirectAccess.PLACED, window.place(d));
        b.release(d);
        assertArrayEquals(bytes(a.segment(), DirectAccess.HEADER_SIZE, 1200), bytes(b.segment(), WINDOW + 4000, 1200));
        assertEquals(0, b.segment().get(ValueLayout.JAVA_BYTE, WINDOW + 3999), "nothing before the offset");
        assertEquals(0, b.segment().get(ValueLayout.JAVA_BYTE, WINDOW + 5200), "nothing after the data");

        fill(a.segment(), DirectAccess.HEADER_SIZE, 20, 9); // 28 bytes with the header: one inline cell
        assertTrue(DirectAccess.send(a, 0, 0, 16, 20));
        d = b.poll();
        assertTrue(b.isInline(d));
        assertEquals(DirectAccess.PLACED, window.place(d));
        b.release(d);
        assertArrayEquals(bytes(a.segment(), DirectAccess.HEADER_SIZE, 20), bytes(b.segment(), WINDOW + 16, 20));
        assertEquals(2, window.placed());
        assertEquals(1220, window.placedBytes());
    }

    @Test
    void outOfBoundsMalformedAndForeignMessagesAreRejectedWithoutWriting() {
        DirectAccess.Window window = new DirectAccess.Window(b, WINDOW, WINDOW_LEN);
        byte[] before = bytes(b.segment(), 0, SEG);
        fill(a.segment(), 8, 600, 1);
        int[] badOffsets = {WINDOW_LEN - 599, WINDOW_LEN, -1, Integer.MIN_VALUE, 0x7FFF_FFFF};
        for (int off : badOffsets) {
            DirectAccess.send(a, 0, 0, off, 600);
            long d = b.poll();
            assertEquals(DirectAccess.OUT_OF_BOUNDS, window.place(d), "offset " + off);
            b.release(d);
        }
        a.sendInline(0, MemorySegment.ofArray(new byte[4]), 0, 4); // shorter than a header
        long d = b.poll();
        assertEquals(DirectAccess.MALFORMED, window.place(d));
        b.release(d);
        a.send(0, 8, 100); // no magic
        d = b.poll();
        assertEquals(DirectAccess.NOT_DIRECT, window.place(d));
        b.release(d);
        f.card.failNextReceive(io.nicbridge.contract.Sba200Unet.RX_ERR_CRC);
        DirectAccess.send(a, 0, 0, 0, 100);
        d = b.poll();
        assertEquals(DirectAccess.RECEIVE_ERROR, window.place(d));
        b.release(d);
        assertEquals(8, window.rejected());
        byte[] after = bytes(b.segment(), 0, SEG);
        // receive buffers (from 32 KiB) were written by the card; the rest of the segment, the window included, not
        assertArrayEquals(java.util.Arrays.copyOf(before, 32 * 1024), java.util.Arrays.copyOf(after, 32 * 1024));
        assertThrows(IllegalArgumentException.class, () -> new DirectAccess.Window(b, SEG - 10, 11));
    }

    @Test
    void aUnetLinkRunsOnKernelEmulatedEndpointsAsOnRegularOnes() {
        EmulatedEndpointMux hostA = new EmulatedEndpointMux(a, 900, 0);
        EmulatedEndpointMux hostB = new EmulatedEndpointMux(b, 900, 0);
        try (hostA; hostB) {
            EmulatedEndpoint ea = hostA.create(7, 8192, 8);
            EmulatedEndpoint eb = hostB.create(23, 8192, 8);
            hostA.openChannel(ea, 0, 0, 23);
            hostB.openChannel(eb, 0, 0, 7);
            UnetLink la = new UnetLink("emu-a", ea, 0, new int[] {0, 0}, 0, 256, 4, 8);
            UnetLink lb = new UnetLink("emu-b", eb, 1, new int[] {0, 0}, 0, 256, 4, 8);
            try (la; lb) {
                int[] announced = {0};
                lb.readinessListener(() -> announced[0]++);
                java.util.List<byte[]> got = new java.util.ArrayList<>();
                io.nicbridge.bridge.link.LinkHandler h = new io.nicbridge.bridge.link.LinkHandler() {
                    @Override
                    public void onFrame(io.nicbridge.bridge.link.Link link, int rx) {
                        got.add(link.rxBuffer(rx).asSlice(0, link.rxLength(rx)).toArray(ValueLayout.JAVA_BYTE));
                        link.release(rx);
                    }

                    @Override
                    public void onWritable(io.nicbridge.bridge.link.Link link) {
                    }
                };
                for (int length : new int[] {10, 40, 41, 200, 256}) { // inline up to 40 B, one buffer above
                    int t = la.claim(1);
                    fill(la.txBuffer(t), 0, length, length);
                    byte[] sent = bytes(la.txBuffer(t), 0, length);
                    la.commit(t, length);
                    hostB.pump(); // the kernel demultiplexes the real endpoint's message into eb, and announces it
                    assertEquals(1, lb.poll(h, 4), length + " B");
                    assertArrayEquals(sent, got.getLast(), length + " B read in place");
                }
                assertEquals(5, announced[0], "the emulated endpoint announces each message it queues");
                assertEquals(0, lb.counters().rxErrors() + lb.counters().rxDrops());
                assertNull(la.capability(UnetGather.class), "an emulated send is a system call of one range");
            }
        }
    }

    @Test
    void emulatedEndpointsShareOneRealEndpointAndAreDemultiplexedByTagAndChannel() {
        EmulatedEndpointMux hostA = new EmulatedEndpointMux(a, 900, 0);
        EmulatedEndpointMux hostB = new EmulatedEndpointMux(b, 900, 0);
        try (hostA; hostB) {
            EmulatedEndpoint telnet = hostA.create(7, 8192, 8);
            EmulatedEndpoint ftp = hostA.create(8, 8192, 8);
            EmulatedEndpoint telnetd = hostB.create(23, 8192, 8);
            EmulatedEndpoint ftpd = hostB.create(21, 8192, 8);
            assertThrows(IllegalArgumentException.class, () -> hostB.create(23, 8192, 8));
            hostA.openChannel(telnet, 0, 0, 23);
            hostB.openChannel(telnetd, 0, 0, 7);
            hostA.openChannel(ftp, 3, 0, 21);
            hostB.openChannel(ftpd, 5, 0, 8);
            telnetd.postReceiveBuffers(0, 8, 512);
            ftpd.postReceiveBuffers(0, 8, 512);
            telnet.postReceiveBuffers(0, 8, 512);
            fill(telnet.segment(), 4096, 1024, 11);
            fill(ftp.segment(), 4096, 1024, 12);
            assertTrue(telnet.send(0, 4096, 10));   // inline: 14 bytes with the tag
            assertTrue(ftp.send(3, 4096, 900));     // buffers
            assertTrue(ftp.send(0, 4096, 5), "channel 0 is telnet's, not ftp's: refused by the kernel");
            assertEquals(TX_STATUS_SENT, telnet.pollSendCompletion());
            assertEquals(TX_STATUS_SENT, ftp.pollSendCompletion());
            assertEquals(TX_STATUS_BAD_CHANNEL, ftp.pollSendCompletion());
            hostB.pump();

            long d = telnetd.poll();
            assertTrue(telnetd.isInline(d));
            assertEquals(10, telnetd.length(d));
            assertEquals(0, telnetd.channel(d));
            assertArrayEquals(bytes(telnet.segment(), 4096, 10), copy(telnetd, d));
            telnetd.release(d);
            assertEquals(QueueCode.EMPTY, telnetd.poll(), "telnetd never sees ftp's message");

            d = ftpd.poll();
            assertFalse(ftpd.isInline(d));
            assertEquals(900, ftpd.length(d));
            assertEquals(5, ftpd.channel(d));
            assertEquals(2, ftpd.bufferCount(d), "900 bytes in 512-byte buffers of its own segment");
            assertArrayEquals(bytes(ftp.segment(), 4096, 900), copy(ftpd, d));
            ftpd.release(d);

            // replies through the same real endpoint, demultiplexed on A's side
            assertTrue(telnetd.send(0, 0, 3));
            hostA.pump();
            d = telnet.poll();
            assertEquals(3, telnet.length(d));
            telnet.release(d);
            assertEquals(QueueCode.EMPTY, ftp.poll());
            assertEquals(2, hostA.endpointCount());
            assertEquals(0, hostB.unknownTagDrops() + hostB.unknownChannelDrops());
            assertThrows(IllegalArgumentException.class, () -> ftpd.release(0), "no message held");
        }
    }

    @Test
    void aFullEmulatedReceiveQueueDropsOnlyForItsOwnerAndTheStagingFifoRecycles() {
        EmulatedEndpointMux hostA = new EmulatedEndpointMux(a, 256, 0);
        EmulatedEndpointMux hostB = new EmulatedEndpointMux(b, 256, 0);
        try (hostA; hostB) {
            EmulatedEndpoint src = hostA.create(1, 4096, 4);
            EmulatedEndpoint slow = hostB.create(2, 4096, 2);
            EmulatedEndpoint fast = hostB.create(3, 4096, 4);
            hostA.openChannel(src, 0, 0, 2);
            hostA.openChannel(src, 1, 0, 3);
            hostB.openChannel(slow, 0, 0, 1);
            hostB.openChannel(fast, 0, 0, 1);
            slow.postReceiveBuffers(0, 8, 256);
            fast.postReceiveBuffers(0, 8, 256);
            for (int round = 0; round < 100; round++) { // far more than SQ_LEN staging buffers
                assertTrue(src.send(0, 0, 100));
                assertTrue(src.send(1, 0, 100));
                assertEquals(2, src.reapSends());
                hostB.pump();
                long d = fast.poll();
                assertTrue(d >= 0);
                fast.release(d);
            }
            assertEquals(2, slow.received() + (slow.poll() >= 0 ? 2 : 0));
            assertEquals(98, slow.receiveQueueDrops());
            assertEquals(0, fast.receiveQueueDrops());
            assertEquals(100, fast.received());
            hostB.destroy(slow);
            assertThrows(IllegalStateException.class, slow::poll, "destroyed by the kernel");
            assertTrue(src.send(0, 0, 100));
            hostB.pump();
            assertEquals(1, hostB.unknownTagDrops());
        }
    }

    private static byte[] copy(Endpoint ep, long d) {
        byte[] out = new byte[ep.length(d)];
        assertEquals(out.length, ep.copyTo(d, MemorySegment.ofArray(out), 0));
        return out;
    }
}
