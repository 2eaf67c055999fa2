package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.bridge.driver.unet.UnetFixture.bytes;
import static io.nicbridge.bridge.driver.unet.UnetFixture.fill;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.bridge.driver.unet.EmulatedEndpointMux.EmulatedEndpoint;
import io.nicbridge.bridge.queue.QueueCode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Direct-access placement with bounds, and kernel-emulated endpoints demultiplexed by tag. */
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
    void emulatedEndpointsShareOneRealEndpointAndAreDemultiplexedByTag() {
        EmulatedEndpointMux hostA = new EmulatedEndpointMux(a, 900, 0);
        EmulatedEndpointMux hostB = new EmulatedEndpointMux(b, 900, 0);
        try (hostA; hostB) {
            EmulatedEndpoint telnet = hostA.create(7, 8);
            EmulatedEndpoint ftp = hostA.create(8, 8);
            EmulatedEndpoint telnetd = hostB.create(23, 8);
            EmulatedEndpoint ftpd = hostB.create(21, 8);
            assertThrows(IllegalArgumentException.class, () -> hostB.create(23, 8));
            MemorySegment msg = MemorySegment.ofArray(new byte[1024]);
            fill(msg, 0, 1024, 11);
            assertTrue(telnet.send(0, 23, msg, 0, 10));   // inline: 14 bytes with the tag
            assertTrue(ftp.send(0, 21, msg, 0, 900));     // buffers
            assertTrue(ftp.send(0, 99, msg, 0, 5));       // nobody owns tag 99
            assertEquals(2, hostB.pump());
            assertEquals(1, hostB.unknownTagDrops());

            int h = telnetd.poll();
            assertEquals(10, telnetd.length(h));
            assertEquals(7, telnetd.sourceTag(h));
            assertArrayEquals(bytes(msg, 0, 10), bytes(telnetd.buffer(h), 0, 10));
            telnetd.release(h);
            assertEquals(QueueCode.EMPTY, telnetd.poll(), "telnetd never sees ftp's message");

            h = ftpd.poll();
            assertEquals(900, ftpd.length(h));
            assertEquals(8, ftpd.sourceTag(h));
            assertArrayEquals(bytes(msg, 0, 900), bytes(ftpd.buffer(h), 0, 900));
            ftpd.release(h);

            // replies through the same real endpoint, demultiplexed on A's side
            assertTrue(telnetd.send(0, 7, msg, 0, 3));
            assertEquals(1, hostA.pump());
            assertEquals(3, telnet.length(telnet.poll()));
            assertEquals(QueueCode.EMPTY, ftp.poll());
            assertEquals(2, hostA.endpointCount());
            assertThrows(IllegalStateException.class, () -> ftpd.release(0), "no message held");
        }
    }

    @Test
    void aFullEmulatedRingDropsOnlyForItsOwnerAndTheStagingFifoRecycles() {
        EmulatedEndpointMux hostA = new EmulatedEndpointMux(a, 256, 0);
        EmulatedEndpointMux hostB = new EmulatedEndpointMux(b, 256, 0);
        try (hostA; hostB) {
            EmulatedEndpoint src = hostA.create(1, 4);
            EmulatedEndpoint slow = hostB.create(2, 2);
            EmulatedEndpoint fast = hostB.create(3, 4);
            MemorySegment msg = MemorySegment.ofArray(new byte[256]);
            for (int round = 0; round < 100; round++) { // far more than SQ_LEN staging buffers
                assertTrue(src.send(0, 2, msg, 0, 100));
                assertTrue(src.send(0, 3, msg, 0, 100));
                hostB.pump();
                int h = fast.poll();
                assertTrue(h >= 0);
                fast.release(h);
            }
            assertEquals(2, slow.received() + (slow.poll() >= 0 ? 2 : 0));
            assertEquals(98, slow.drops());
            assertEquals(0, fast.drops());
            assertEquals(100, fast.received());
            hostB.destroy(slow);
            src.send(0, 2, msg, 0, 100);
            hostB.pump();
            assertEquals(1, hostB.unknownTagDrops());
        }
    }
}
