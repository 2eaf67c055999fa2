package io.nicbridge.bridge.driver.tulip;

import io.nicbridge.bridge.link.FramePortLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.PeerTable;
import io.nicbridge.bridge.link.TransmitBurst;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Objects;

/**
 * The {@link Link} framing of the DEC 21140 (emulated or on the native shim): Ethernet II frames in the driver's
 * descriptor buffers, zero-copy both ways.
 *
 * <pre>
 *   0        6        12     14       16                        16 + n      (&gt;= 60: the chip pads short frames)
 *   +--------+--------+------+--------+-------------------------+--------
 *   | DA     | SA     | type | length | payload (n bytes)       | pad ...
 *   +--------+--------+------+--------+-------------------------+--------
 *     peer's   this     the    n, big-endian: Ethernet II has no length of its own and a frame under 60 bytes
 *     MAC or   station  link's arrives padded, so the payload's length travels in the header
 *     ff:..:ff          ethertype
 * </pre>
 * Peer i is the i-th MAC of the table given at construction; this station is the one whose MAC the driver read
 * from its serial ROM. {@link #txBuffer} is a slice of the claimed TX descriptor's buffer after the header, and
 * {@link #rxBuffer} a slice of the RX descriptor's buffer: the payload is written and read in place, and the only
 * bytes the link writes are the 16 header bytes at commit. Receive filters on the ethertype (other protocols on the
 * same wire are counted as filtered and released) and maps SA back to a peer. {@link #BROADCAST} sends to
 * ff:ff:ff:ff:ff:ff, which the driver's setup frame accepts. Readiness comes from the driver's interrupt line
 * (RI/RU, TI/TU), so the driver must run in {@link TulipConfig.InterruptMode#INTERRUPT} for a runner that sleeps.
 * On the native shim that means a THREADED shim card: an INLINE shim card works only on threads that call into it
 * or wait on its line, so a runner that parks would not see its frames until it polls again.
 *
 * <p>Host cost: {@link FramePortLink}'s, nothing more - the chip DMAs the frames, so the host's work per frame is
 * the descriptors, the 16 header bytes written at commit and the SA looked up on receive.
 */
public final class TulipLink extends FramePortLink {
    /** DA, SA, ethertype and the payload length. */
    public static final int HEADER = 16;
    /** An ethertype from IEEE's "local experimental" range, the default for this project's protocols. */
    public static final int LOCAL_EXPERIMENTAL_ETHERTYPE = 0x88B5;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int OFF_TYPE = 12;
    private static final int OFF_LENGTH = 14;

    private final long station;
    private final short etherType;
    private final TransmitBurst burst;

    /**
     * @param driver    an open driver; it stays the caller's to close
     * @param peers     peer i's MAC at index i; the driver's station address must be one of them
     * @param etherType the protocol's Ethernet II type, {@code 0x0600..0xFFFF}
     * @throws IllegalArgumentException for an ethertype that is a length field, a station not in the table, or a
     *                                  bad table (duplicates, group addresses)
     */
    public TulipLink(TulipDriver driver, List<MacAddress> peers, int etherType) {
        super(driver, table(peers), driver.stationAddress().value(), HEADER, driver.config().txRingSize(),
                driver.config().rxRingSize(), true);
        if (etherType < 0x0600 || etherType > 0xFFFF) {
            throw new IllegalArgumentException("etherType must be in [0x0600, 0xFFFF] (below is an 802.3 length),"
                    + " was 0x" + Integer.toHexString(etherType));
        }
        this.station = driver.stationAddress().value();
        this.etherType = (short) etherType;
        this.burst = new TransmitBurst() {
            @Override
            public void begin() {
                driver.beginTransmitBurst();
            }

            @Override
            public void end() {
                driver.endTransmitBurst();
            }
        };
    }

    private static PeerTable table(List<MacAddress> peers) {
        Objects.requireNonNull(peers, "peers");
        long[] a = new long[peers.size()];
        for (int i = 0; i < a.length; i++) {
            MacAddress m = Objects.requireNonNull(peers.get(i), "peers[" + i + "]");
            if (m.isMulticast()) {
                throw new IllegalArgumentException("peers[" + i + "] = " + m + " is a group address, not a station");
            }
            a[i] = m.value();
        }
        return new PeerTable(a);
    }

    /**
     * {@link TransmitBurst}: the driver's {@linkplain TulipDriver#beginTransmitBurst transmit burst} - one transmit
     * poll demand for every frame committed in it.
     */
    @Override
    public <C> C capability(Class<C> type) {
        C other = super.capability(type);
        return type == TransmitBurst.class ? type.cast(burst) : other;
    }

    /** @return the ethertype this link sends and accepts */
    public int etherType() {
        return etherType & 0xFFFF;
    }

    /**
     * The 21140's receive ring: the chip fills descriptors in ring order and stops (RU) at the first one the host has
     * not given back, so a frame held here stops reception once the chip has gone round the ring.
     */
    @Override
    public boolean receivesInOrder() {
        return true;
    }

    @Override
    protected void writeHeader(MemorySegment frame, int peer, int payload) {
        MacAddress.write(peer == BROADCAST ? MacAddress.BROADCAST.value() : address(peer), frame, 0);
        MacAddress.write(station, frame, 6);
        frame.set(U16, OFF_TYPE, etherType);
        frame.set(U16, OFF_LENGTH, (short) payload);
    }

    @Override
    protected boolean accepts(MemorySegment frame, int length) {
        return frame.get(U16, OFF_TYPE) == etherType;
    }

    @Override
    protected long source(MemorySegment frame) {
        return MacAddress.read(frame, 6);
    }

    @Override
    protected int payloadLength(MemorySegment frame, int length) {
        int n = Short.toUnsignedInt(frame.get(U16, OFF_LENGTH));
        return n <= length - HEADER ? n : -1;
    }
}
