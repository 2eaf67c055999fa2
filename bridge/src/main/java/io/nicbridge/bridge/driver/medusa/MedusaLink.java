package io.nicbridge.bridge.driver.medusa;

import io.nicbridge.bridge.cost.CostItem;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.FramePortLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.PeerTable;
import io.nicbridge.contract.Medusa;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Objects;

/**
 * The {@link Link} framing of the HP Medusa FDDI card: FDDI MAC frames, FC + DA + SA in front of the payload.
 *
 * <pre>
 *   0    1        7        13                     13 + n
 *   +----+--------+--------+----------------------+
 *   | FC | DA     | SA     | payload (n bytes)    |     LEN = 13 + n (FDDI does not pad; the card stores LEN)
 *   +----+--------+--------+----------------------+
 *     the  peer's   this
 *     link's station or station
 *     FC   broadcast
 * </pre>
 * The card has no DMA: a frame reaches its buffer RAM only by the host's programmed I/O. So {@link #txBuffer} is a
 * host-memory staging buffer per on-board transmit buffer, and {@link #commit} is the PIO copy of FC, DA, SA and
 * the payload into the claimed on-board buffer (the checksum unit sums it on the way, unused here), then TX_FIFO.
 * The single-copy send of the careful protocol - the payload copied by PIO straight from the application's memory,
 * its checksum computed during that copy - is the capability {@link MedusaSingleCopy}
 * ({@code capability(MedusaSingleCopy.class)}); the card's receive checksum (RXCK) is the capability
 * {@link MedusaReceiveChecksum}. Receive is in place in buffer RAM (what the card's window shows);
 * frames with another FC (SMT, MAC frames, other protocols) are counted as filtered. {@link #BROADCAST} sends to
 * the FDDI broadcast address, and this station's own frames, which a ring may bring back, are dropped and counted.
 * Readiness comes from the driver's interrupt line (RX_READY, TX_DONE), so the driver must run in
 * {@link MedusaConfig.InterruptMode#INTERRUPT} for a runner that sleeps.
 *
 * <h2>Host cost (the Medusa bus)</h2>
 * Beyond {@link FramePortLink}'s descriptor, header and lookup charges, every byte that crosses the bus is moved by
 * the host CPU one programmed-I/O access at a time, charged as {@code PIO_WORD}s of 4 bytes:
 * <ul>
 *   <li>a commit copies what is still in host memory - the whole frame, or FC, DA, SA and the protocol header after
 *       a single copy - {@code ceil(bytes / 4)} words, plus 2 register words (PIO_CKSUM cleared before the copy and
 *       read after it, as the driver does on every copy); the LEN entry and the TX_FIFO push are the descriptor
 *       post;</li>
 *   <li>a single copy ({@link MedusaSingleCopy}) moves its payload the same way, {@code ceil(length / 4) + 2}
 *       words. Its checksum is the card's: the checksum unit sums the halfwords as they cross the bus, so the host
 *       pays only the register read, never a {@code CHECKSUM} pass - which is what the careful protocol gains;</li>
 *   <li>receive is in place in buffer RAM, so every byte of it the host looks at crosses the bus once: FC, DA and SA
 *       of a frame that is dropped, the whole frame of one handed up, {@code ceil(bytes / 4)} words (the core's own
 *       pass over the payload is charged by the core as memory work on top). The card's receive checksum
 *       ({@link MedusaReceiveChecksum}) is one more PIO word, the RXCK read, and no {@code CHECKSUM} pass over the
 *       bytes it covers; the host pays {@code CHECKSUM} only for what it sums itself.</li>
 * </ul>
 */
public final class MedusaLink extends FramePortLink {
    /** FC, DA, SA. */
    public static final int HEADER = MedusaDriver.MAC_HEADER;
    /** Register accesses of one PIO copy besides its data: PIO_CKSUM written (cleared) before, read after. */
    public static final int CHECKSUM_REGISTER_WORDS = 2;

    private final MedusaDriver driver;
    private final byte fc;
    private final long station;
    /** Per on-board transmit buffer: the host staging buffer the frame is built in (null for receive buffers). */
    private final MemorySegment[] staging;
    /** Per transmit handle: the payload offset a single-copy send already put on the card, or -1. */
    private final int[] onCardAt;
    private final int[] onCardLength;
    private final MedusaSingleCopy singleCopy = this::copyPayload;
    /** The card's RXCK, or null while the receive checksum is off or starts inside FC, DA, SA. */
    private final MedusaReceiveChecksum receiveChecksum;

    /**
     * @param driver   an open driver; it stays the caller's to close
     * @param stations peer i's 48-bit station address at index i; the driver's must be one of them
     * @param fc       the frame control byte this link sends and accepts (e.g. {@code Medusa.FC_LLC_ASYNC_DEFAULT})
     * @throws IllegalArgumentException for an FC that is not a byte, or a bad table / station not in it
     */
    public MedusaLink(MedusaDriver driver, long[] stations, int fc) {
        super(driver, new PeerTable(Objects.requireNonNull(stations, "stations")), driver.stationAddress(), HEADER,
                Medusa.BUF_COUNT, Medusa.BUF_COUNT, true);
        if ((fc & ~0xFF) != 0) {
            throw new IllegalArgumentException("fc must be a byte, was 0x" + Integer.toHexString(fc));
        }
        this.driver = driver;
        this.fc = (byte) fc;
        this.station = driver.stationAddress();
        this.staging = new MemorySegment[Medusa.BUF_COUNT];
        int frame = driver.maxFrameLength();
        MemorySegment all = MemorySegment.ofArray(new byte[driver.config().transmitBuffers() * frame]);
        for (int n = driver.config().receiveBuffers(), k = 0; n < Medusa.BUF_COUNT; n++, k++) {
            staging[n] = all.asSlice((long) k * frame, frame);
        }
        this.onCardAt = new int[Medusa.BUF_COUNT];
        this.onCardLength = new int[Medusa.BUF_COUNT];
        Arrays.fill(onCardAt, -1);
        int covered = driver.config().receiveChecksumStart() - HEADER;
        this.receiveChecksum = driver.config().receiveChecksum() && covered >= 0 ? new CardReceiveChecksum(covered)
                : null;
    }

    /** @return the frame control byte of this link's frames */
    public int frameControl() {
        return fc & 0xFF;
    }

    @Override
    public <C> C capability(Class<C> type) {
        checkOpen();
        if (type == MedusaSingleCopy.class) {
            return type.cast(singleCopy);
        }
        return type == MedusaReceiveChecksum.class && receiveChecksum != null ? type.cast(receiveChecksum) : null;
    }

    @Override
    protected MemorySegment frameBuffer(int txHandle) {
        MemorySegment s = staging[txHandle];
        if (s == null) {
            throw new IllegalStateException(name() + ": buffer " + txHandle + " is a receive buffer, not a transmit"
                    + " buffer");
        }
        return s;
    }

    @Override
    protected void writeHeader(MemorySegment frame, int peer, int payload) {
        frame.set(ValueLayout.JAVA_BYTE, Medusa.FRAME_FC_OFS, fc);
        putAddress(frame, Medusa.FRAME_DA_OFS, peer == BROADCAST ? MedusaDriver.BROADCAST : address(peer));
        putAddress(frame, Medusa.FRAME_SA_OFS, station);
    }

    @Override
    protected void checkCommit(int txHandle, int payload) {
        int at = onCardAt[txHandle];
        if (at >= 0 && payload != at + onCardLength[txHandle]) {
            throw new IllegalArgumentException(name() + ": the payload of transmit handle " + txHandle
                    + " is on the card at [" + at + ", " + (at + onCardLength[txHandle]) + "), so the commit length"
                    + " must be " + (at + onCardLength[txHandle]) + ", was " + payload);
        }
    }

    /** The PIO copy into the claimed on-board buffer: the whole frame, or only what the single copy left out. */
    @Override
    protected void transmit(int txHandle, int frameLength) {
        int at = onCardAt[txHandle];
        int hostPart = at >= 0 ? HEADER + at : frameLength;
        onCardAt[txHandle] = -1;
        driver.copyIntoClaimed(txHandle, 0, staging[txHandle], 0, hostPart);
        driver.commit(txHandle, frameLength);
    }

    @Override
    protected void chargeTransmit(HostCpu cpu, int txHandle, int payload) {
        int at = onCardAt[txHandle];
        chargePio(cpu, at >= 0 ? HEADER + at : HEADER + payload);
        super.chargeTransmit(cpu, txHandle, payload);
    }

    @Override
    protected void chargeRead(HostCpu cpu, int bytes) {
        cpu.charge(CostItem.PIO_WORD, pioWords(bytes));
    }

    /** One PIO copy with the checksum unit: its words, and the PIO_CKSUM clear and read. */
    private static void chargePio(HostCpu cpu, int bytes) {
        cpu.charge(CostItem.PIO_WORD, pioWords(bytes) + CHECKSUM_REGISTER_WORDS);
    }

    /** @return the 32-bit bus accesses that move {@code bytes} bytes */
    static int pioWords(int bytes) {
        return (bytes + 3) >>> 2;
    }

    @Override
    protected void forget(int txHandle) {
        onCardAt[txHandle] = -1;
    }

    private int copyPayload(int txHandle, int at, MemorySegment src, long srcOffset, int length) {
        checkClaimed(txHandle);
        if (onCardAt[txHandle] >= 0) {
            throw new IllegalStateException(name() + ": the payload of transmit handle " + txHandle
                    + " was copied to the card already");
        }
        if (at < 0 || length < 1 || at > mtu() - length) {
            throw new IllegalArgumentException(name() + ": payload [" + at + ", " + at + " + " + length
                    + ") must have length >= 1 and lie inside the " + mtu() + "-byte mtu");
        }
        Objects.requireNonNull(src, "src");
        int sum = driver.copyIntoClaimed(txHandle, HEADER + at, src, srcOffset, length);
        chargePio(cpu(), length);
        onCardAt[txHandle] = at;
        onCardLength[txHandle] = length;
        return sum;
    }

    /**
     * RXCK of a held frame. The card pairs bytes from RXCK_START; when that is an odd payload offset the pairs are
     * the payload's lanes shifted by one, and the byte swap of the folded sum gives the payload's (RFC 1071 2(B)).
     */
    private final class CardReceiveChecksum implements MedusaReceiveChecksum {
        private final int covered;

        CardReceiveChecksum(int covered) {
            this.covered = covered;
        }

        @Override
        public int coveredFrom() {
            return covered;
        }

        @Override
        public int payloadSum(int rxHandle) {
            rxLength(rxHandle); // refuses a handle the caller does not hold
            int sum = driver.rxChecksum(rxHandle);
            cpu().charge(CostItem.PIO_WORD, 1);
            return (covered & 1) == 0 ? sum : ((sum & 0xFF) << 8) | (sum >>> 8);
        }
    }

    @Override
    protected boolean accepts(MemorySegment frame, int length) {
        return frame.get(ValueLayout.JAVA_BYTE, Medusa.FRAME_FC_OFS) == fc;
    }

    @Override
    protected long source(MemorySegment frame) {
        long a = 0;
        for (int i = 0; i < 6; i++) {
            a = (a << 8) | (frame.get(ValueLayout.JAVA_BYTE, Medusa.FRAME_SA_OFS + i) & 0xFF);
        }
        return a;
    }

    @Override
    protected int payloadLength(MemorySegment frame, int length) {
        return length - HEADER;
    }

    private static void putAddress(MemorySegment frame, long offset, long address) {
        for (int i = 0; i < 6; i++) {
            frame.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (address >>> (40 - 8 * i)));
        }
    }
}
