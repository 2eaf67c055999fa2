package io.nicbridge.sim.capture;

import io.nicbridge.sim.engine.TimeBase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a classic libpcap capture file that tcpdump, tshark and Wireshark read.
 *
 * <pre>
 * file header (24 bytes, little-endian; readers detect the byte order from the magic)
 *   0  u32 magic      0xA1B23C4D (ns timestamps, default) or 0xA1B2C3D4 (us timestamps)
 *   4  u16 version_major 2     6 u16 version_minor 4
 *   8  i32 thiszone 0         12 u32 sigfigs 0
 *  16  u32 snaplen (65535)    20 u32 linktype (1 Ethernet, 10 FDDI, 123 SunATM, 147 USER0; FCS flag below)
 * record header (16 bytes), then incl_len bytes of data
 *   0  u32 ts_sec   4 u32 ts_usec or ts_nsec   8 u32 incl_len   12 u32 orig_len
 * </pre>
 *
 * <p>Timestamps come from the {@link TimeBase}: in virtual time the simulated nanoseconds are the
 * time since the epoch (a run that starts at 0 is stamped from 1970-01-01T00:00:00Z), so a
 * deterministic simulation writes byte-identical files; in real time the clock is mapped onto the
 * wall clock read once when the file is opened.
 *
 * <p>Records are assembled in one direct buffer allocated at open and written with a
 * {@link FileChannel} when it fills, on {@link #flush()} and on {@link #close()}: recording a frame
 * allocates nothing. A writer may be bounded ({@link Builder#maxRecords}): it keeps the first records and only
 * counts the rest ({@link #recordsOverLimit()}), so a capture of a long run cannot fill the disk.
 * Thread-safe (one writer may serve several links). An I/O error never reaches the link that
 * records: the writer counts it, logs it once, stops writing and reports it from {@link #flush()} /
 * {@link #close()}.
 */
public final class PcapWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PcapWriter.class);

    public static final int MAGIC_MICROSECONDS = 0xA1B2C3D4;
    public static final int MAGIC_NANOSECONDS = 0xA1B23C4D;
    public static final int VERSION_MAJOR = 2;
    public static final int VERSION_MINOR = 4;
    public static final int FILE_HEADER_BYTES = 24;
    public static final int RECORD_HEADER_BYTES = 16;
    public static final int DEFAULT_SNAP_LENGTH = 65535;
    public static final int DEFAULT_BUFFER_BYTES = 256 * 1024;

    public static final int LINKTYPE_ETHERNET = 1;
    public static final int LINKTYPE_FDDI = 10;
    public static final int LINKTYPE_SUNATM = 123;
    /**
     * LINKTYPE_USER0 (DLT_USER0): reserved by tcpdump.org for private use; a capture of this type documents its own
     * record layout (the MPP fabric's: {@code bench}'s {@code FabricSimMedium}). tshark shows the records as data.
     */
    public static final int LINKTYPE_USER0 = 147;
    /** Linktype flag: bits 31:28 hold the length of the FCS the records keep, in 16-bit units. */
    public static final int LINKTYPE_FCS_LENGTH_PRESENT = 0x04000000;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final Path path;
    private final TimeBase clock;
    private final boolean nanos;
    private final int snapLength;
    private final int linkType;
    private final long maxRecords;
    private final long epochOffsetNanos;
    private final FileChannel channel;
    private final ByteBuffer buffer;
    private final MemorySegment bufferSegment;
    private long records;
    private long lostRecords;
    private long recordsOverLimit;
    private IOException failure;
    private boolean closed;

    private PcapWriter(Builder b) throws IOException {
        this.path = b.path;
        this.clock = b.clock;
        this.nanos = b.nanos;
        this.snapLength = b.snapLength;
        this.linkType = b.linkType;
        this.maxRecords = b.maxRecords;
        if (clock.isVirtual()) {
            this.epochOffsetNanos = 0;
        } else {
            Instant wall = Instant.now();
            this.epochOffsetNanos = wall.getEpochSecond() * NANOS_PER_SECOND + wall.getNano() - clock.nanoTime();
        }
        this.buffer = ByteBuffer.allocateDirect(Math.max(b.bufferBytes, FILE_HEADER_BYTES + RECORD_HEADER_BYTES + snapLength))
                .order(ByteOrder.LITTLE_ENDIAN);
        this.bufferSegment = MemorySegment.ofBuffer(buffer);
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
        buffer.putInt(nanos ? MAGIC_NANOSECONDS : MAGIC_MICROSECONDS);
        buffer.putShort((short) VERSION_MAJOR);
        buffer.putShort((short) VERSION_MINOR);
        buffer.putInt(0);
        buffer.putInt(0);
        buffer.putInt(snapLength);
        buffer.putInt(linkType);
        LOG.debug("pcap {}: linktype 0x{}, {} timestamps, {} time", path, Integer.toHexString(linkType),
                nanos ? "ns" : "us", clock.isVirtual() ? "virtual" : "real");
    }

    /** Starts a writer of {@code path} stamped by {@code clock}; defaults: Ethernet, ns, 65535. */
    public static Builder builder(Path path, TimeBase clock) {
        return new Builder(path, clock);
    }

    /**
     * @return {@code linkType} with the FCS-length flag saying records keep an FCS of
     *     {@code fcsBytes} bytes (e.g. Ethernet with a 4-byte FCS: 0x24000001)
     */
    public static int linkTypeWithFcs(int linkType, int fcsBytes) {
        if (linkType < 0 || linkType > 0xFFFF) {
            throw new IllegalArgumentException("linktype must be in [0, 65535], was " + linkType);
        }
        if (fcsBytes <= 0 || fcsBytes > 30 || (fcsBytes & 1) != 0) {
            throw new IllegalArgumentException("FCS length must be an even number of bytes in [2, 30], was " + fcsBytes);
        }
        return (fcsBytes / 2) << 28 | LINKTYPE_FCS_LENGTH_PRESENT | linkType;
    }

    /** @return the FCS bytes each record keeps according to {@code linkType}'s flag, 0 if none */
    public static int fcsBytes(int linkType) {
        return (linkType & LINKTYPE_FCS_LENGTH_PRESENT) != 0 ? (linkType >>> 28) * 2 : 0;
    }

    /** Records {@code length} bytes stamped now. */
    public void record(MemorySegment data, long offset, int length) {
        record(clock.nanoTime(), data, offset, length, length);
    }

    /**
     * Records a packet.
     *
     * @param timeNanos the time on the writer's clock ({@link TimeBase#nanoTime()}) it is stamped with
     * @param length bytes of it available at {@code offset}; at most the snap length are kept
     * @param originalLength its length on the link (>= length)
     */
    public synchronized void record(long timeNanos, MemorySegment data, long offset, int length, int originalLength) {
        if (length < 0 || originalLength < length) {
            throw new IllegalArgumentException(
                    "pcap record: need 0 <= length <= originalLength, was " + length + " and " + originalLength);
        }
        int incl = Math.min(length, snapLength);
        Objects.checkFromIndexSize(offset, incl, data.byteSize());
        if (closed || failure != null) {
            lostRecords++;
            return;
        }
        if (records >= maxRecords) {
            recordsOverLimit++;
            return;
        }
        if (buffer.remaining() < RECORD_HEADER_BYTES + incl && !drain()) {
            lostRecords++;
            return;
        }
        long t = timeNanos + epochOffsetNanos;
        long seconds = Math.floorDiv(t, NANOS_PER_SECOND);
        long fraction = Math.floorMod(t, NANOS_PER_SECOND);
        buffer.putInt((int) seconds);
        buffer.putInt((int) (nanos ? fraction : fraction / 1000));
        buffer.putInt(incl);
        buffer.putInt(originalLength);
        int at = buffer.position();
        MemorySegment.copy(data, offset, bufferSegment, at, incl);
        buffer.position(at + incl);
        records++;
    }

    /** Writes the buffer out; false (and the writer failed) on an I/O error. */
    private boolean drain() {
        buffer.flip();
        try {
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            buffer.clear();
            return true;
        } catch (IOException e) {
            failure = e;
            buffer.clear();
            LOG.error("pcap {}: write failed, capture stopped after {} records", path, records, e);
            return false;
        }
    }

    /**
     * Writes everything recorded so far to the file.
     *
     * @throws UncheckedIOException if a write failed (now or earlier)
     */
    public synchronized void flush() {
        if (!closed && failure == null) {
            drain();
        }
        throwIfFailed();
    }

    private void throwIfFailed() {
        if (failure != null) {
            throw new UncheckedIOException("pcap " + path + ": writing failed; " + lostRecords
                    + " records lost", failure);
        }
    }

    /** @return records written (or buffered) */
    public synchronized long records() {
        return records;
    }

    /** @return records not written because the writer already held {@link #maxRecords()} */
    public synchronized long recordsOverLimit() {
        return recordsOverLimit;
    }

    /** @return the most records this writer keeps ({@link Long#MAX_VALUE}: unbounded) */
    public long maxRecords() {
        return maxRecords;
    }

    /** @return records not written because the writer was closed or had failed */
    public synchronized long lostRecords() {
        return lostRecords;
    }

    public int linkType() {
        return linkType;
    }

    public int snapLength() {
        return snapLength;
    }

    public boolean nanosecondTimestamps() {
        return nanos;
    }

    public Path path() {
        return path;
    }

    /** Flushes and closes the file. Idempotent. @throws UncheckedIOException if writing failed */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (failure == null) {
            drain();
        }
        closed = true;
        try {
            channel.close();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            }
        }
        throwIfFailed();
    }

    /** Builds a {@link PcapWriter}. */
    public static final class Builder {
        private final Path path;
        private final TimeBase clock;
        private int linkType = LINKTYPE_ETHERNET;
        private boolean nanos = true;
        private int snapLength = DEFAULT_SNAP_LENGTH;
        private int bufferBytes = DEFAULT_BUFFER_BYTES;
        private long maxRecords = Long.MAX_VALUE;

        private Builder(Path path, TimeBase clock) {
            this.path = Objects.requireNonNull(path, "path");
            this.clock = Objects.requireNonNull(clock, "clock");
        }

        /** LINKTYPE value, possibly with the FCS flag ({@link #linkTypeWithFcs}). */
        public Builder linkType(int linkType) {
            this.linkType = linkType;
            return this;
        }

        /** true (default): 0xA1B23C4D with ns fractions; false: 0xA1B2C3D4 with us fractions. */
        public Builder nanosecondTimestamps(boolean nanoseconds) {
            this.nanos = nanoseconds;
            return this;
        }

        public Builder snapLength(int bytes) {
            if (bytes < 1 || bytes > 262144) {
                throw new IllegalArgumentException("snap length must be in [1, 262144], was " + bytes);
            }
            this.snapLength = bytes;
            return this;
        }

        /**
         * Keeps at most {@code records} records (default: no bound); later ones are counted in
         * {@link PcapWriter#recordsOverLimit()} and not written.
         */
        public Builder maxRecords(long records) {
            if (records < 1) {
                throw new IllegalArgumentException("the record limit must be >= 1, was " + records);
            }
            this.maxRecords = records;
            return this;
        }

        /** Size of the write buffer (at least one full record is always allowed for). */
        public Builder bufferBytes(int bytes) {
            if (bytes < 64) {
                throw new IllegalArgumentException("buffer must be >= 64 bytes, was " + bytes);
            }
            this.bufferBytes = bytes;
            return this;
        }

        /** Creates (or truncates) the file and writes its header. */
        public PcapWriter open() throws IOException {
            return new PcapWriter(this);
        }
    }
}
