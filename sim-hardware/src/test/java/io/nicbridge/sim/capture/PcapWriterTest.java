package io.nicbridge.sim.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.testing.ManualVirtualTime;
import io.nicbridge.sim.testing.RealTimeForTests;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcapWriterTest {
    @TempDir
    Path dir;

    static byte[] bytes(int n, int salt) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 7 + salt);
        }
        return b;
    }

    @Test
    void fileHeaderIsClassicPcapLittleEndian() throws IOException {
        ManualVirtualTime vt = new ManualVirtualTime();
        Path ns = dir.resolve("ns.pcap");
        Path us = dir.resolve("us.pcap");
        try (PcapWriter w = PcapWriter.builder(ns, vt).open()) {
            assertEquals(PcapWriter.LINKTYPE_ETHERNET, w.linkType());
        }
        try (PcapWriter w = PcapWriter.builder(us, vt).nanosecondTimestamps(false).linkType(PcapWriter.LINKTYPE_FDDI)
                .snapLength(1500).open()) {
            assertEquals(1500, w.snapLength());
        }
        assertArrayEquals(new byte[] {
                0x4D, 0x3C, (byte) 0xB2, (byte) 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                (byte) 0xFF, (byte) 0xFF, 0, 0, 1, 0, 0, 0}, Files.readAllBytes(ns));
        assertArrayEquals(new byte[] {
                (byte) 0xD4, (byte) 0xC3, (byte) 0xB2, (byte) 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                (byte) 0xDC, 0x05, 0, 0, 10, 0, 0, 0}, Files.readAllBytes(us));
        PcapReader r = PcapReader.read(us);
        assertEquals(false, r.nanosecondTimestamps());
        assertEquals(2, r.versionMajor());
        assertEquals(4, r.versionMinor());
        assertEquals(1500, r.snapLength());
        assertEquals(10, r.linkType());
        assertEquals(0, r.packets().size());
    }

    @Test
    void aBoundedWriterKeepsTheFirstRecordsAndCountsTheRest() throws IOException {
        ManualVirtualTime vt = new ManualVirtualTime();
        Path f = dir.resolve("bounded.pcap");
        try (PcapWriter w = PcapWriter.builder(f, vt).maxRecords(3).open()) {
            for (int i = 0; i < 5; i++) {
                byte[] p = bytes(60, i);
                w.record(i, MemorySegment.ofArray(p), 0, p.length, p.length);
            }
            assertEquals(3, w.records());
            assertEquals(2, w.recordsOverLimit());
            assertEquals(0, w.lostRecords(), "over the limit is not lost to an error");
            assertEquals(3, w.maxRecords());
        }
        PcapReader r = PcapReader.read(f);
        assertEquals(3, r.packets().size());
        assertArrayEquals(bytes(60, 2), r.packets().get(2).data(), "the first three, in order");
        assertThrows(IllegalArgumentException.class, () -> PcapWriter.builder(f, vt).maxRecords(0));
    }

    @Test
    void recordsReadBackWithVirtualTimestamps() throws IOException {
        ManualVirtualTime vt = new ManualVirtualTime();
        Path f = dir.resolve("v.pcap");
        byte[] p1 = bytes(60, 1);
        byte[] p2 = bytes(1514, 2);
        try (PcapWriter w = PcapWriter.builder(f, vt).open()) {
            vt.advanceTo(1_234_567_891_234L);
            w.record(MemorySegment.ofArray(p1), 0, p1.length);
            w.record(5_000_000_007L, MemorySegment.ofArray(p2), 0, p2.length, p2.length);
            assertEquals(2, w.records());
        }
        byte[] raw = Files.readAllBytes(f);
        ByteBuffer b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(1234, b.getInt(24));
        assertEquals(567_891_234, b.getInt(28));
        assertEquals(60, b.getInt(32));
        assertEquals(60, b.getInt(36));
        assertEquals(24 + 16 + 60 + 16 + 1514, raw.length);
        PcapReader r = PcapReader.read(f);
        assertEquals(2, r.packets().size());
        assertEquals(1_234_567_891_234L, r.packets().get(0).timestampNanos());
        assertArrayEquals(p1, r.packets().get(0).data());
        assertEquals(5_000_000_007L, r.packets().get(1).timestampNanos());
        assertArrayEquals(p2, r.packets().get(1).data());
        assertEquals(1514, r.packets().get(1).originalLength());
    }

    @Test
    void microsecondTimestampsTruncateTheNanoseconds() throws IOException {
        ManualVirtualTime vt = new ManualVirtualTime();
        Path f = dir.resolve("us.pcap");
        try (PcapWriter w = PcapWriter.builder(f, vt).nanosecondTimestamps(false).open()) {
            w.record(3_000_123_999L, MemorySegment.ofArray(bytes(60, 0)), 0, 60, 60);
        }
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(f)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(3, b.getInt(24));
        assertEquals(123, b.getInt(28));
        assertEquals(3_000_123_000L, PcapReader.read(f).packets().get(0).timestampNanos());
    }

    @Test
    void snapLengthTruncatesButKeepsTheOriginalLength() throws IOException {
        ManualVirtualTime vt = new ManualVirtualTime();
        Path f = dir.resolve("snap.pcap");
        byte[] p = bytes(1000, 3);
        try (PcapWriter w = PcapWriter.builder(f, vt).snapLength(96).open()) {
            w.record(0, MemorySegment.ofArray(p), 0, p.length, p.length);
        }
        PcapReader.Packet pk = PcapReader.read(f).packets().get(0);
        assertEquals(1000, pk.originalLength());
        assertArrayEquals(Arrays.copyOf(p, 96), pk.data());
    }

    @Test
    void aSmallBufferIsWrittenOutAsItFills() throws IOException {
        ManualVirtualTime vt = new ManualVirtualTime();
        Path f = dir.resolve("many.pcap");
        int n = 500;
        try (PcapWriter w = PcapWriter.builder(f, vt).snapLength(2000).bufferBytes(64).open()) {
            for (int i = 0; i < n; i++) {
                byte[] p = bytes(60 + i, i);
                w.record(i * 1000L, MemorySegment.ofArray(p), 0, p.length, p.length);
            }
            w.flush();
            assertEquals(n, PcapReader.read(f).packets().size(), "flush wrote everything");
        }
        PcapReader r = PcapReader.read(f);
        for (int i = 0; i < n; i++) {
            assertArrayEquals(bytes(60 + i, i), r.packets().get(i).data());
            assertEquals(i * 1000L, r.packets().get(i).timestampNanos());
        }
    }

    @Test
    void realTimeStampsAreWallClock() throws IOException {
        Path f = dir.resolve("rt.pcap");
        long before = Instant.now().toEpochMilli();
        try (RealTimeForTests rt = new RealTimeForTests(); PcapWriter w = PcapWriter.builder(f, rt).open()) {
            w.record(MemorySegment.ofArray(bytes(60, 0)), 0, 60);
        }
        long after = Instant.now().toEpochMilli();
        long ts = PcapReader.read(f).packets().get(0).timestampNanos() / 1_000_000;
        assertTrue(ts >= before - 5 && ts <= after + 5, before + " <= " + ts + " <= " + after);
    }

    @Test
    void recordsAfterCloseAreCountedAsLost() throws IOException {
        ManualVirtualTime vt = new ManualVirtualTime();
        PcapWriter w = PcapWriter.builder(dir.resolve("c.pcap"), vt).open();
        w.close();
        w.close();
        w.record(MemorySegment.ofArray(bytes(60, 0)), 0, 60);
        assertEquals(1, w.lostRecords());
        assertEquals(0, w.records());
    }

    @Test
    void fcsLinkTypeFlag() {
        assertEquals(0x24000001, PcapWriter.linkTypeWithFcs(PcapWriter.LINKTYPE_ETHERNET, 4));
        assertEquals(4, PcapWriter.fcsBytes(0x24000001));
        assertEquals(0, PcapWriter.fcsBytes(1));
        assertThrows(IllegalArgumentException.class, () -> PcapWriter.linkTypeWithFcs(1, 3));
        assertThrows(IllegalArgumentException.class, () -> PcapWriter.linkTypeWithFcs(70000, 4));
    }

    @Test
    void badRecordArgumentsAreRejected() throws IOException {
        ManualVirtualTime vt = new ManualVirtualTime();
        try (PcapWriter w = PcapWriter.builder(dir.resolve("bad.pcap"), vt).open()) {
            MemorySegment s = MemorySegment.ofArray(bytes(60, 0));
            assertThrows(IllegalArgumentException.class, () -> w.record(0, s, 0, 60, 59));
            assertThrows(IllegalArgumentException.class, () -> w.record(0, s, 0, -1, 0));
            assertThrows(IndexOutOfBoundsException.class, () -> w.record(0, s, 10, 60, 60));
            assertThrows(IllegalArgumentException.class, () -> PcapWriter.builder(dir.resolve("x"), vt).snapLength(0));
        }
    }

    @Test
    void readerRejectsNonPcapAndTruncatedFilesSayingWhere() throws IOException {
        Path junk = dir.resolve("junk");
        Files.write(junk, new byte[30]);
        IOException e = assertThrows(IOException.class, () -> PcapReader.read(junk));
        assertTrue(e.getMessage().contains("magic"), e.getMessage());
        Path tiny = dir.resolve("tiny");
        Files.write(tiny, new byte[10]);
        assertTrue(assertThrows(IOException.class, () -> PcapReader.read(tiny)).getMessage().contains("too short"));
        ManualVirtualTime vt = new ManualVirtualTime();
        Path f = dir.resolve("t.pcap");
        try (PcapWriter w = PcapWriter.builder(f, vt).open()) {
            w.record(0, MemorySegment.ofArray(bytes(60, 0)), 0, 60, 60);
        }
        byte[] all = Files.readAllBytes(f);
        Files.write(f, Arrays.copyOf(all, all.length - 1));
        e = assertThrows(IOException.class, () -> PcapReader.read(f));
        assertTrue(e.getMessage().contains("record 1 at offset 24"), e.getMessage());
    }

    @Test
    void readerHandlesBigEndianFiles() throws IOException {
        ByteBuffer b = ByteBuffer.allocate(24 + 16 + 4).order(ByteOrder.BIG_ENDIAN);
        b.putInt(PcapWriter.MAGIC_MICROSECONDS).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0)
                .putInt(65535).putInt(1);
        b.putInt(7).putInt(8).putInt(4).putInt(60).put(new byte[] {1, 2, 3, 4});
        Path f = dir.resolve("be.pcap");
        Files.write(f, b.array());
        PcapReader r = PcapReader.read(f);
        assertEquals(ByteOrder.BIG_ENDIAN, r.byteOrder());
        assertEquals(1, r.linkType());
        assertEquals(7_000_008_000L, r.packets().get(0).timestampNanos());
        assertEquals(60, r.packets().get(0).originalLength());
        assertArrayEquals(new byte[] {1, 2, 3, 4}, r.packets().get(0).data());
    }
}
