package io.nicbridge.bridge.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.HashSet;
import org.junit.jupiter.api.Test;

/**
 * A bridged veth segment of three stations: a broadcast from one reaches the two others once each and intact, a
 * unicast reaches the station it names, and closing deletes the namespace with everything in it.
 */
class VethBridgeTest {
    private static final short ETHERTYPE = (short) 0x88B5;
    private static final long TIMEOUT_NANOS = 2_000_000_000L;

    @Test
    void aBroadcastReachesEveryOtherStationAndAUnicastItsStation() throws IOException {
        Availability availability = VethBridge.availability();
        Requirements.assume(Capability.NET, availability.available(), availability::reason);
        String namespace;
        try (VethBridge segment = VethBridge.create(3, 1600); Arena arena = Arena.ofConfined()) {
            namespace = segment.namespace().name();
            assertEquals(3, segment.stations());
            assertEquals(3, new HashSet<>(segment.macs()).size(), "every station its own MAC");
            RawPacketSocket[] s = new RawPacketSocket[3];
            try {
                for (int i = 0; i < 3; i++) {
                    s[i] = RawPacketSocket.open(segment.namespace(), segment.interfaceName(i));
                }
                MemorySegment frame = arena.allocate(1514);
                MemorySegment in = arena.allocate(2048);
                write(frame, MacAddress.BROADCAST, segment.mac(0), 1);
                assertEquals(1514, s[0].send(frame, 1514), "a full-size frame fits the 1600-byte MTU");
                for (int i = 1; i < 3; i++) {
                    assertEquals(1514, receiveOurs(s[i], in, TIMEOUT_NANOS), "station " + i + " got the broadcast");
                    assertEquals(-1L, in.asSlice(0, 1514).mismatch(frame.asSlice(0, 1514)), "intact");
                    assertEquals(-1, receiveOurs(s[i], in, 0), "once");
                }
                write(frame, segment.mac(2), segment.mac(1), 2);
                assertEquals(100, s[1].send(frame, 100));
                assertEquals(100, receiveOurs(s[2], in, TIMEOUT_NANOS));
                assertEquals(2, in.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 14));
            } finally {
                for (RawPacketSocket r : s) {
                    if (r != null) {
                        r.close();
                    }
                }
            }
        }
        assertFalse(NetworkNamespace.exists(namespace), "close deletes the namespace");
    }

    @Test
    void badArgumentsAreRefusedNamingThem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> VethBridge.create(1, 1500));
        assertTrue(e.getMessage().contains("stations must be in [2, 36], was 1"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> VethBridge.create(3, 20));
        assertTrue(e.getMessage().contains("veth MTU must be in 68..65535, got 20"), e.getMessage());
    }

    /**
     * The next frame of this test's EtherType, or -1 when none arrives in time. A frame of any other type is the
     * kernel's own (CI saw a 54-byte stray once on a fresh segment, in spite of IPv6 and STP being off): the test is
     * about how the bridge forwards our frames, so it is skipped and reported, not counted as ours.
     */
    private static int receiveOurs(RawPacketSocket socket, MemorySegment in, long timeoutNanos) throws IOException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            int n = socket.receive(in, Math.max(0, deadline - System.nanoTime()));
            if (n < 0 || n >= 14 && in.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12)
                    == ETHERTYPE) {
                return n;
            }
            System.out.printf("VethBridgeTest: skipped a %d-byte frame of EtherType 0x%04x on %s (not ours)%n", n,
                n >= 14 ? in.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12) & 0xFFFF : 0,
                socket.interfaceName());
        }
    }

    private static void write(MemorySegment f, MacAddress dst, MacAddress src, int sequence) {
        dst.writeTo(f, 0);
        src.writeTo(f, 6);
        f.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 12, ETHERTYPE);
        f.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 14, sequence);
        for (int i = 18; i < f.byteSize(); i++) {
            f.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + sequence));
        }
    }
}
