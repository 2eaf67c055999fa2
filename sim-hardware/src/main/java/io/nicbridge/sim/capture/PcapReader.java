package io.nicbridge.sim.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a classic libpcap file back (either byte order, us or ns timestamps): for tests and for
 * users who want to check a capture without tshark. Reads the whole file into memory.
 */
public final class PcapReader {
    /** One record: its timestamp in ns since the epoch, its length on the link and the bytes kept. */
    public record Packet(long timestampNanos, int originalLength, byte[] data) {}

    private final ByteOrder order;
    private final boolean nanos;
    private final int versionMajor;
    private final int versionMinor;
    private final int snapLength;
    private final int linkType;
    private final List<Packet> packets;

    private PcapReader(ByteOrder order, boolean nanos, int major, int minor, int snap, int linkType, List<Packet> packets) {
        this.order = order;
        this.nanos = nanos;
        this.versionMajor = major;
        this.versionMinor = minor;
        this.snapLength = snap;
        this.linkType = linkType;
        this.packets = List.copyOf(packets);
    }

    /**
     * Parses a pcap file.
     *
     * @throws IOException if it cannot be read, or if it is not a classic pcap file or is truncated
     *     (the message says where)
     */
    public static PcapReader read(Path file) throws IOException {
        return parse(file.toString(), Files.readAllBytes(file));
    }

    /**
     * Parses the bytes of a pcap file; {@code file} only names it in messages.
     *
     * @throws IOException if they are not a classic pcap file, are truncated, or a record keeps more bytes than its
     *     original length (the message says where)
     */
    public static PcapReader parse(String file, byte[] bytes) throws IOException {
        if (bytes.length < PcapWriter.FILE_HEADER_BYTES) {
            throw new IOException(file + ": " + bytes.length + " bytes is too short for a pcap header ("
                    + PcapWriter.FILE_HEADER_BYTES + ")");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int magic = b.getInt(0);
        ByteOrder order = ByteOrder.LITTLE_ENDIAN;
        if (magic != PcapWriter.MAGIC_MICROSECONDS && magic != PcapWriter.MAGIC_NANOSECONDS) {
            order = ByteOrder.BIG_ENDIAN;
            b.order(order);
            magic = b.getInt(0);
            if (magic != PcapWriter.MAGIC_MICROSECONDS && magic != PcapWriter.MAGIC_NANOSECONDS) {
                throw new IOException(file + ": not a classic pcap file (magic 0x"
                        + Integer.toHexString(b.order(ByteOrder.LITTLE_ENDIAN).getInt(0)) + ")");
            }
        }
        boolean nanos = magic == PcapWriter.MAGIC_NANOSECONDS;
        int major = Short.toUnsignedInt(b.getShort(4));
        int minor = Short.toUnsignedInt(b.getShort(6));
        int snap = b.getInt(16);
        int linkType = b.getInt(20);
        List<Packet> packets = new ArrayList<>();
        int at = PcapWriter.FILE_HEADER_BYTES;
        while (at < bytes.length) {
            if (bytes.length - at < PcapWriter.RECORD_HEADER_BYTES) {
                throw new IOException(file + ": record " + (packets.size() + 1) + " at offset " + at
                        + " has a truncated header");
            }
            long sec = Integer.toUnsignedLong(b.getInt(at));
            long frac = Integer.toUnsignedLong(b.getInt(at + 4));
            int incl = b.getInt(at + 8);
            int orig = b.getInt(at + 12);
            if (incl < 0 || incl > bytes.length - at - PcapWriter.RECORD_HEADER_BYTES) {
                throw new IOException(file + ": record " + (packets.size() + 1) + " at offset " + at + " claims "
                        + Integer.toUnsignedString(incl) + " bytes but " + (bytes.length - at - 16) + " remain");
            }
            // A record keeps at most what was on the link: an original length below the bytes kept (or past 2^31,
            // read unsigned) is a damaged header, not a packet to hand on.
            if (orig < incl) {
                throw new IOException(file + ": record " + (packets.size() + 1) + " at offset " + at
                        + " keeps " + incl + " bytes of a packet whose original length is "
                        + Integer.toUnsignedString(orig));
            }
            byte[] data = new byte[incl];
            System.arraycopy(bytes, at + PcapWriter.RECORD_HEADER_BYTES, data, 0, incl);
            packets.add(new Packet(sec * 1_000_000_000L + (nanos ? frac : frac * 1000), orig, data));
            at += PcapWriter.RECORD_HEADER_BYTES + incl;
        }
        return new PcapReader(order, nanos, major, minor, snap, linkType, packets);
    }

    public ByteOrder byteOrder() {
        return order;
    }

    public boolean nanosecondTimestamps() {
        return nanos;
    }

    public int versionMajor() {
        return versionMajor;
    }

    public int versionMinor() {
        return versionMinor;
    }

    public int snapLength() {
        return snapLength;
    }

    public int linkType() {
        return linkType;
    }

    public List<Packet> packets() {
        return packets;
    }
}
