package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static io.nicbridge.sim.dec21140.CardHarness.*;
import static org.junit.jupiter.api.Assertions.*;

import io.nicbridge.sim.testing.RecordingDmaView;
import io.nicbridge.sim.testing.RecordingDmaView.Access;
import io.nicbridge.sim.testing.RecordingDmaView.Mode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The order in which the card touches host memory, recorded at its DMA port (the check Agrona's ring buffer tests
 * make with a mocked buffer): for every descriptor the card handed back, it read word 0 with acquire before the
 * other words; every byte of the descriptor's buffers was read (transmit) or written (receive) before word 0 was
 * written; word 0 - status and OWN clear in one word - was written exactly once, with release; and the card
 * touched neither the descriptor nor its buffers after that. A host that sees OWN clear therefore sees the payload
 * and the status (docs/hardware-facts.md A.7; ARCHITECTURE.md "Ownership by release/acquire").
 */
class Dec21140DmaOrderTest {
    private RecordingDmaView bus;
    private CardHarness h;

    @AfterEach
    void close() {
        if (h != null) {
            h.close();
        }
    }

    private void card(boolean virtual) {
        h = new CardHarness(virtual, virtual ? Dec21140Timing.PCI_33MHZ : Dec21140Timing.ZERO, view -> {
            bus = new RecordingDmaView(view);
            return bus;
        });
    }

    /** A descriptor as the test set it up: its bus address and its buffers' bus ranges (address, length pairs). */
    record Descriptor(String label, long address, long... buffers) {
        boolean touches(Access a) {
            if (a.overlaps(address, DESC_SIZE)) {
                return true;
            }
            for (int i = 0; i < buffers.length; i += 2) {
                if (a.overlaps(buffers[i], buffers[i + 1])) {
                    return true;
                }
            }
            return false;
        }

        boolean isPayload(Access a) {
            for (int i = 0; i < buffers.length; i += 2) {
                if (a.overlaps(buffers[i], buffers[i + 1])) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public String toString() {
            return label + "@0x" + Long.toHexString(address);
        }
    }

    /**
     * Checks the handoff order of each descriptor in {@code log}. {@code payloadWrites}: receive (the card writes
     * the buffers) or transmit (it reads them).
     */
    static void assertHandoffOrder(List<Access> log, List<Descriptor> descriptors, boolean payloadWrites) {
        for (Descriptor d : descriptors) {
            int fetch = -1;
            int release = -1;
            int payload = 0;
            for (int i = 0; i < log.size(); i++) {
                Access a = log.get(i);
                if (!d.touches(a)) {
                    continue;
                }
                String where = d + ", access #" + i + " " + a + " in " + log;
                if (release >= 0) {
                    fail("the card touched " + d + " after handing it back: " + where);
                }
                if (fetch < 0) {
                    assertTrue(!a.write() && a.mode() == Mode.ACQUIRE && a.bus() == d.address(),
                        "the first access to a descriptor reads word 0 with acquire: " + where);
                    fetch = i;
                    continue;
                }
                if (d.isPayload(a)) {
                    assertEquals(payloadWrites, a.write(), "payload direction: " + where);
                    payload++;
                    continue;
                }
                if (a.write()) { // a write to the descriptor itself: only word 0, once, with release
                    assertEquals(d.address(), a.bus(), "the card writes only word 0 of a descriptor: " + where);
                    assertEquals(Mode.RELEASE, a.mode(), "word 0 (status, OWN clear) is written with release: "
                        + where);
                    release = i;
                } else {
                    assertEquals(Mode.PLAIN, a.mode(), "words 1..3 are plain reads after the acquire: " + where);
                }
            }
            assertTrue(fetch >= 0, d + " was never fetched: " + log);
            assertTrue(release > fetch, d + " was never handed back: " + log);
            if (d.buffers().length > 0) {
                assertTrue(payload > 0, d + ": no payload access before its release: " + log);
            }
        }
    }

    private static long d(long ring, int i) {
        return ring + 16L * i;
    }

    @Test
    void transmitReadsEveryBufferBeforeHandingItsDescriptorBack() {
        transmit(false);
    }

    @Test
    void transmitInVirtualTimeHandsTheLastDescriptorBackAfterTheFrameLeft() {
        transmit(true);
    }

    private void transmit(boolean virtual) {
        card(virtual);
        List<Descriptor> ds = new ArrayList<>();
        // d0: a perfect-filter setup frame
        long setup = TX_BUF + 0x2000;
        h.put(setup, perfectSetup(MAC, BROADCAST));
        h.desc(d(TX_RING, 0), TDES0_OWN, LINUX_TDES1_SETUP_PERFECT, h.bus(setup), 0);
        ds.add(new Descriptor("setup", h.bus(d(TX_RING, 0)), h.bus(setup), SETUP_FRAME_SIZE));
        // d1..d3: one frame over three descriptors, both buffers in the first and last
        byte[] f = frame(PEER, MAC, 0x86DD, 300);
        int rest = f.length - 150;
        h.put(TX_BUF, Arrays.copyOfRange(f, 0, 20));
        h.put(TX_BUF + 0x100, Arrays.copyOfRange(f, 20, 50));
        h.put(TX_BUF + 0x200, Arrays.copyOfRange(f, 50, 150));
        h.put(TX_BUF + 0x400, Arrays.copyOfRange(f, 150, 100 + rest));
        h.put(TX_BUF + 0x600, Arrays.copyOfRange(f, 100 + rest, f.length));
        h.desc(d(TX_RING, 1), TDES0_OWN, TDES1_FS | 20 | (30 << TDES1_TBS2_SHIFT), h.bus(TX_BUF), h.bus(TX_BUF + 0x100));
        h.desc(d(TX_RING, 2), TDES0_OWN, 100, h.bus(TX_BUF + 0x200), 0);
        h.desc(d(TX_RING, 3), TDES0_OWN, TDES1_LS | TDES1_IC | (rest - 50) | (50 << TDES1_TBS2_SHIFT),
            h.bus(TX_BUF + 0x400), h.bus(TX_BUF + 0x600));
        ds.add(new Descriptor("FS", h.bus(d(TX_RING, 1)), h.bus(TX_BUF), 20, h.bus(TX_BUF + 0x100), 30));
        ds.add(new Descriptor("middle", h.bus(d(TX_RING, 2)), h.bus(TX_BUF + 0x200), 100));
        ds.add(new Descriptor("LS", h.bus(d(TX_RING, 3)), h.bus(TX_BUF + 0x400), rest - 50, h.bus(TX_BUF + 0x600), 50));
        // d4: a single-descriptor frame; d5 stays host-owned (the process suspends there)
        byte[] g = frame(BROADCAST, MAC, 0x0800, 46);
        h.put(TX_BUF + 0x800, g);
        h.desc(d(TX_RING, 4), TDES0_OWN, TDES1_FS | TDES1_LS | TDES1_IC | g.length, h.bus(TX_BUF + 0x800), 0);
        ds.add(new Descriptor("FS|LS", h.bus(d(TX_RING, 4)), h.bus(TX_BUF + 0x800), g.length));

        List<Integer> sentAt = new ArrayList<>(); // log position when each frame went onto the wire
        h.wire.wireNanos = virtual ? 5_000 : 0;
        h.wire.onTransmit = frame -> sentAt.add(bus.log().size());
        h.start(0);
        if (virtual) {
            h.time.runUntilIdle();
        }

        assertEquals(2, h.wire.frames.size());
        assertArrayEquals(withFcs(f), h.wire.frames.get(0));
        assertEquals(TS_SUSPENDED, h.ts());
        List<Access> log = List.copyOf(bus.log());
        assertHandoffOrder(log, ds, false);
        // each frame's last descriptor carries the outcome on the wire: released only after the frame left
        assertTrue(releaseOf(log, ds.get(3)) >= sentAt.get(0), "LS of frame 1 released before it was sent: " + log);
        assertTrue(releaseOf(log, ds.get(4)) >= sentAt.get(1), "LS of frame 2 released before it was sent: " + log);
    }

    private static int releaseOf(List<Access> log, Descriptor d) {
        for (int i = 0; i < log.size(); i++) {
            Access a = log.get(i);
            if (a.write() && a.bus() == d.address()) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void receiveWritesThePayloadBeforeHandingEachDescriptorBack() {
        receive(false);
    }

    @Test
    void receiveInVirtualTimeWritesThePayloadBeforeHandingEachDescriptorBack() {
        receive(true);
    }

    private void receive(boolean virtual) {
        card(virtual);
        List<Descriptor> ds = new ArrayList<>();
        // d0: two 64-byte buffers; d1, d2: one 1536-byte buffer; d3: a 64-byte buffer; d4 host-owned
        h.desc(d(RX_RING, 0), RDES0_OWN, 64 | (64 << RDES1_RBS2_SHIFT), h.bus(RX_BUF), h.bus(RX_BUF + 0x100));
        h.desc(d(RX_RING, 1), RDES0_OWN, 1536, h.bus(RX_BUF + 0x800), 0);
        h.desc(d(RX_RING, 2), RDES0_OWN, 1536, h.bus(RX_BUF + 0x1000), 0);
        h.desc(d(RX_RING, 3), RDES0_OWN, 64, h.bus(RX_BUF + 0x1800), 0);
        ds.add(new Descriptor("first of two", h.bus(d(RX_RING, 0)), h.bus(RX_BUF), 64, h.bus(RX_BUF + 0x100), 64));
        ds.add(new Descriptor("last of two", h.bus(d(RX_RING, 1)), h.bus(RX_BUF + 0x800), 1536));
        ds.add(new Descriptor("single", h.bus(d(RX_RING, 2)), h.bus(RX_BUF + 0x1000), 1536));
        ds.add(new Descriptor("truncated", h.bus(d(RX_RING, 3)), h.bus(RX_BUF + 0x1800), 64));
        h.start(CSR6_PR);

        byte[] big = withFcs(frame(MAC, PEER, 0x0800, 300)); // 318 bytes: 128 in d0, 190 in d1
        byte[] small = withFcs(frame(MAC, PEER, 0x0800, 100));
        byte[] cut = withFcs(frame(MAC, PEER, 0x0800, 200)); // 64 bytes fit in d3, then d4 is host-owned: DE
        for (byte[] frame : List.of(big, small, cut)) {
            h.arrive(frame);
            if (virtual) {
                h.time.runUntilIdle();
            }
        }

        assertArrayEquals(Arrays.copyOfRange(big, 0, 64), h.get(RX_BUF, 64));
        assertArrayEquals(Arrays.copyOfRange(big, 128, big.length), h.get(RX_BUF + 0x800, big.length - 128));
        assertArrayEquals(small, h.get(RX_BUF + 0x1000, small.length));
        assertEquals(RDES0_DE, h.word(d(RX_RING, 3)) & RDES0_DE, "the cut frame is marked DE");
        assertEquals(RS_SUSPENDED, h.rs());
        assertHandoffOrder(List.copyOf(bus.log()), ds, true);
    }

    @Test
    void theCheckRejectsADescriptorHandedBackBeforeItsPayload() {
        long desc = 0x10000;
        long buffer = 0x20000;
        Descriptor d = new Descriptor("mutant", desc, buffer, 100);
        List<Access> fetch = List.of(
            new Access(desc, 4, false, Mode.ACQUIRE), new Access(desc + 4, 4, false, Mode.PLAIN),
            new Access(desc + 8, 4, false, Mode.PLAIN), new Access(desc + 12, 4, false, Mode.PLAIN));
        List<Access> good = new ArrayList<>(fetch);
        good.add(new Access(buffer, 100, true, Mode.PLAIN));
        good.add(new Access(desc, 4, true, Mode.RELEASE));
        assertHandoffOrder(good, List.of(d), true);

        List<Access> ownFirst = new ArrayList<>(fetch); // OWN released, then the payload written
        ownFirst.add(new Access(desc, 4, true, Mode.RELEASE));
        ownFirst.add(new Access(buffer, 100, true, Mode.PLAIN));
        assertThrows(AssertionError.class, () -> assertHandoffOrder(ownFirst, List.of(d), true));

        List<Access> plainStatus = new ArrayList<>(fetch); // status written without release
        plainStatus.add(new Access(buffer, 100, true, Mode.PLAIN));
        plainStatus.add(new Access(desc, 4, true, Mode.PLAIN));
        assertThrows(AssertionError.class, () -> assertHandoffOrder(plainStatus, List.of(d), true));

        List<Access> noAcquire = new ArrayList<>(good); // word 0 read plain
        noAcquire.set(0, new Access(desc, 4, false, Mode.PLAIN));
        assertThrows(AssertionError.class, () -> assertHandoffOrder(noAcquire, List.of(d), true));
    }
}
