package io.nicbridge.protocols.cards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.bridge.driver.medusa.MedusaLink;
import io.nicbridge.bridge.driver.medusa.MedusaSingleCopy;
import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.contract.Medusa;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.fault.FaultPlan;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link TulipLink} and {@link MedusaLink} on emulated cards in virtual time: framing, peer mapping, filtering,
 * broadcast, the single-copy capability, and every misuse of {@link Link}'s contract (which changes nothing).
 */
class FramePortLinkTest {
    private static final int ETH = TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE;

    /** Collects what a poll hands over and releases it (copying the payload out first). */
    static final class Collector implements LinkHandler {
        final List<Integer> peers = new ArrayList<>();
        final List<byte[]> payloads = new ArrayList<>();
        int writable;

        @Override
        public void onFrame(Link link, int h) {
            peers.add(link.rxPeer(h));
            payloads.add(link.rxBuffer(h).asSlice(0, link.rxLength(h)).toArray(ValueLayout.JAVA_BYTE));
            link.release(h);
        }

        @Override
        public void onWritable(Link link) {
            writable++;
        }
    }

    static TulipTestbed bed(int nodes) {
        TulipTestbed bed = TulipTestbed.builder().nodes(nodes).mode(EngineMode.VIRTUAL).seed(3).build();
        bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
        return bed;
    }

    static List<MacAddress> macs(int n) {
        List<MacAddress> m = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            m.add(TulipTestbed.mac(i));
        }
        return m;
    }

    static void send(Link link, int peer, byte... payload) {
        int h = link.claim(peer);
        assertNotEquals(Link.NONE, h);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, link.txBuffer(h), 0, payload.length);
        link.commit(h, payload.length);
    }

    @Test
    void tulipFramesCarryEthernetIiWithTheLengthAndMapSourcesBackToPeers() {
        try (TulipTestbed bed = bed(3)) {
            TulipLink[] links = new TulipLink[3];
            for (int i = 0; i < 3; i++) {
                links[i] = new TulipLink(bed.driver(i), macs(3), ETH);
                assertEquals(i, links[i].self());
                assertTrue(links[i].signalsReadiness());
            }
            assertEquals(1498, links[0].mtu(), "1514 less DA, SA, type and length");
            send(links[0], 2, (byte) 1, (byte) 2, (byte) 3); // padded to 60 bytes on the wire
            bed.virtualTime().runUntilIdle();
            send(links[1], Link.BROADCAST, (byte) 9);
            bed.virtualTime().runUntilIdle();
            Collector at2 = new Collector();
            assertEquals(2, links[2].poll(at2, 10));
            assertEquals(List.of(0, 1), at2.peers);
            assertEquals(3, at2.payloads.get(0).length, "the header's length, not the padded frame's");
            assertEquals(9, at2.payloads.get(1)[0]);
            Collector at0 = new Collector();
            assertEquals(1, links[0].poll(at0, 10), "the broadcast reached node 0 too");
            assertEquals(List.of(1), at0.peers);
            assertEquals(0, links[1].poll(new Collector(), 10), "not to its sender");
        }
    }

    @Test
    void tulipCountsAndReleasesOtherProtocolsUnknownStationsAndBadLengths() {
        try (TulipTestbed bed = bed(3)) {
            TulipLink link1 = new TulipLink(bed.driver(1), macs(2), ETH); // node 2 is not in its table
            TulipDriver raw = bed.driver(2);
            rawFrame(raw, TulipTestbed.mac(1), TulipTestbed.mac(0), 0x0800, 4);  // IPv4: another protocol
            rawFrame(raw, TulipTestbed.mac(1), TulipTestbed.mac(2), ETH, 4);     // a station not in the table
            rawFrame(raw, TulipTestbed.mac(1), TulipTestbed.mac(0), ETH, 2000);  // length beyond the frame
            rawFrame(raw, TulipTestbed.mac(1), TulipTestbed.mac(1), ETH, 4);     // claims to come from node 1 itself
            rawFrame(raw, TulipTestbed.mac(1), TulipTestbed.mac(0), ETH, 4);     // a good one, "from node 0"
            bed.virtualTime().runUntilIdle();
            Collector c = new Collector();
            assertEquals(1, link1.poll(c, 10));
            assertEquals(List.of(0), c.peers);
            assertEquals(1, link1.framesFiltered());
            assertEquals(1, link1.framesFromUnknownPeers());
            assertEquals(1, link1.framesDamaged());
            assertEquals(1, link1.ownFrames());
            for (int i = 0; i < bed.driver(1).config().rxRingSize() * 2; i++) { // all were given back to the card
                rawFrame(raw, TulipTestbed.mac(1), TulipTestbed.mac(0), 0x0800, 4);
                bed.virtualTime().runUntilIdle();
                link1.poll(c, 10);
            }
            assertEquals(0, bed.driver(1).counters().rxDrops());
        }
    }

    private static void rawFrame(TulipDriver d, MacAddress to, MacAddress from, int type, int length) {
        int h = d.claim();
        MemorySegment f = d.txBuffer(h);
        to.writeTo(f, 0);
        from.writeTo(f, 6);
        f.set(ValueLayout.JAVA_SHORT_UNALIGNED, 12, Short.reverseBytes((short) type));
        f.set(ValueLayout.JAVA_SHORT_UNALIGNED, 14, Short.reverseBytes((short) length));
        d.commit(h, 60);
    }

    @Test
    void aRefusedClaimIsFollowedByReadinessAndOneOnWritable() {
        try (TulipTestbed bed = TulipTestbed.builder().mode(EngineMode.VIRTUAL).seed(4)
                .config(TulipConfig.builder().txRingSize(4).build()).build()) {
            bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            TulipLink a = new TulipLink(bed.driver(0), macs(2), ETH);
            int[] ready = {0};
            a.readinessListener(() -> ready[0]++);
            int sent = 0;
            int h;
            while ((h = a.claim(1)) != Link.NONE) { // the world does not run: the ring fills
                a.txBuffer(h).set(ValueLayout.JAVA_BYTE, 0, (byte) sent++);
                a.commit(h, 1);
            }
            assertTrue(sent >= 1 && sent <= 4, "sent " + sent);
            Collector c = new Collector();
            a.poll(c, 10);
            assertEquals(0, c.writable, "nothing came free yet");
            bed.virtualTime().runUntilIdle();
            assertTrue(ready[0] > 0, "the chip's TI/TU reached the link's readiness listener");
            a.poll(c, 10);
            assertEquals(1, c.writable, "told once that it is writable again");
            a.poll(c, 10);
            assertEquals(1, c.writable, "and only once");
            assertNotEquals(Link.NONE, a.claim(1));
        }
    }

    @Test
    void misuseIsRefusedAndChangesNothing() {
        try (TulipTestbed bed = bed(2)) {
            TulipLink a = new TulipLink(bed.driver(0), macs(2), ETH);
            TulipLink b = new TulipLink(bed.driver(1), macs(2), ETH);
            assertThrows(IllegalArgumentException.class, () -> a.claim(0), "sending to itself");
            assertThrows(IllegalArgumentException.class, () -> a.claim(2), "a peer beyond the table");
            assertThrows(IllegalArgumentException.class, () -> a.claim(-5));
            int h = a.claim(1);
            assertThrows(IllegalArgumentException.class, () -> a.commit(h, 0));
            assertThrows(IllegalArgumentException.class, () -> a.commit(h, a.mtu() + 1));
            a.txBuffer(h).set(ValueLayout.JAVA_BYTE, 0, (byte) 42);
            a.commit(h, 1); // still claimed after the refused commits
            assertThrows(IllegalStateException.class, () -> a.commit(h, 1), "committed already");
            assertThrows(IllegalStateException.class, () -> a.txBuffer(h));
            assertThrows(IllegalStateException.class, () -> a.abort(h));
            assertThrows(IllegalStateException.class, () -> a.abort(1_000));
            int h2 = a.claim(1);
            a.abort(h2);
            assertThrows(IllegalStateException.class, () -> a.commit(h2, 1), "aborted");
            bed.virtualTime().runUntilIdle();
            assertEquals(1, bed.driver(0).counters().txFrames(), "only the one good commit went out");

            int[] held = {-1};
            assertEquals(1, b.poll(new LinkHandler() {
                @Override
                public void onFrame(Link link, int rx) {
                    held[0] = rx; // hold it past the poll
                }

                @Override
                public void onWritable(Link link) {
                }
            }, 10));
            assertEquals(42, b.rxBuffer(held[0]).get(ValueLayout.JAVA_BYTE, 0));
            assertThrows(IllegalStateException.class, () -> b.release(held[0] + 1), "never handed over");
            assertThrows(IllegalStateException.class, () -> b.rxLength(-1));
            b.release(held[0]);
            assertThrows(IllegalStateException.class, () -> b.release(held[0]), "a double release");
            assertThrows(IllegalStateException.class, () -> b.rxPeer(held[0]));
            assertThrows(IllegalArgumentException.class, () -> b.poll(new Collector(), -1));

            assertThrows(IllegalArgumentException.class, () -> new TulipLink(bed.driver(0), macs(2), 0x05DC),
                    "an 802.3 length is no ethertype");
            assertThrows(IllegalArgumentException.class, () -> new TulipLink(bed.driver(0),
                    List.of(TulipTestbed.mac(1), TulipTestbed.mac(2)), ETH), "this station is not in the table");
            assertThrows(IllegalArgumentException.class, () -> new TulipLink(bed.driver(0),
                    List.of(TulipTestbed.mac(0), TulipTestbed.mac(0)), ETH), "duplicate addresses");
            assertThrows(IllegalArgumentException.class, () -> new TulipLink(bed.driver(0),
                    List.of(TulipTestbed.mac(0), MacAddress.parse("01:00:5e:00:00:01")), ETH), "a group address");

            int held2 = a.claim(1);
            a.close();
            a.close(); // idempotent
            assertThrows(IllegalStateException.class, () -> a.claim(1));
            assertThrows(IllegalStateException.class, () -> a.commit(held2, 1), "handles die with the link");
            assertThrows(IllegalStateException.class, () -> a.poll(new Collector(), 1));
            assertThrows(IllegalStateException.class, () -> a.self());
            assertThrows(IllegalStateException.class, () -> a.readinessListener(() -> { }));
            assertEquals(1498, a.mtu());
            assertNotNull(a.name());
            assertNotNull(a.counters());
            int again = bed.driver(0).claim(); // the closed link gave its claimed buffer back to the port
            assertNotEquals(-1, again);
            bed.driver(0).abort(again);
        }
    }

    @Test
    void medusaLinkCopiesByPioAtCommitAndOffersTheSingleCopySendWithItsChecksum() {
        try (MedusaRing ring = new MedusaRing(3, EngineMode.VIRTUAL, 9, FaultPlan.NONE)) {
            MedusaLink a = ring.links[0];
            MedusaLink c = ring.links[2];
            assertEquals(MedusaDriver.MAX_FRAME - 13, a.mtu());
            assertNull(a.capability(String.class));
            MedusaSingleCopy single = a.capability(MedusaSingleCopy.class);
            assertNotNull(single);
            assertNull(ring.links[1].capability(Runnable.class));

            send(a, 2, (byte) 5, (byte) 6, (byte) 7);
            // Single copy: an 8-byte protocol header in host memory, 100 bytes of application data by PIO.
            byte[] app = new byte[100];
            for (int i = 0; i < app.length; i++) {
                app[i] = (byte) (i * 3 + 1);
            }
            int h = a.claim(2);
            int sum = single.copyPayload(h, 8, MemorySegment.ofArray(app), 0, app.length);
            assertEquals(onesComplementSum(app), sum, "the card summed the bytes during the one copy");
            assertThrows(IllegalStateException.class, () -> single.copyPayload(h, 8, MemorySegment.ofArray(app), 0, 1),
                    "one copy per claim");
            assertThrows(IllegalArgumentException.class, () -> a.commit(h, 50), "the length is fixed by the copy");
            a.txBuffer(h).set(ValueLayout.JAVA_INT_UNALIGNED, 0, 0x11223344);
            a.txBuffer(h).set(ValueLayout.JAVA_INT_UNALIGNED, 4, sum);
            a.commit(h, 108);
            assertThrows(IllegalStateException.class, () -> single.copyPayload(h, 0, MemorySegment.ofArray(app), 0, 1));
            int h3 = a.claim(2);
            assertThrows(IllegalArgumentException.class, () -> single.copyPayload(h3, a.mtu(), MemorySegment.ofArray(app),
                    0, 1), "beyond the mtu");
            a.abort(h3);

            ring.virtualTime().runUntil(() -> false, ring.virtualTime().nanoTime() + 5_000_000);
            Collector got = new Collector();
            assertEquals(2, c.poll(got, 10));
            assertEquals(List.of(0, 0), got.peers);
            assertEquals(3, got.payloads.get(0).length);
            byte[] second = got.payloads.get(1);
            assertEquals(108, second.length);
            MemorySegment s = MemorySegment.ofArray(second);
            assertEquals(0x11223344, s.get(ValueLayout.JAVA_INT_UNALIGNED, 0));
            assertEquals(sum, s.get(ValueLayout.JAVA_INT_UNALIGNED, 4));
            for (int i = 0; i < app.length; i++) {
                assertEquals(app[i], second[8 + i]);
            }
            assertEquals(0, ring.links[1].poll(new Collector(), 10), "addressed to station 2 only");
        }
    }

    /** RFC 1071's folded 16-bit ones'-complement sum of big-endian halfwords. */
    private static int onesComplementSum(byte[] b) {
        long s = 0;
        for (int i = 0; i < b.length; i += 2) {
            int hi = b[i] & 0xFF;
            int lo = i + 1 < b.length ? b[i + 1] & 0xFF : 0;
            s += hi << 8 | lo;
        }
        while ((s >>> 16) != 0) {
            s = (s & 0xFFFF) + (s >>> 16);
        }
        return (int) s;
    }
}
