package io.nicbridge.sim.testing;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/** Builds Ethernet frames (DA..FCS) for tests and checks their FCS. */
public final class TestFrames {
    /** CRC-32 over a frame including its FCS when the FCS is right (zlib form of the residue). */
    public static final long GOOD_RESIDUE = 0x2144DF1CL;

    private TestFrames() {}

    public static byte[] mac(int... octets) {
        byte[] m = new byte[6];
        for (int i = 0; i < 6; i++) {
            m[i] = (byte) octets[i];
        }
        return m;
    }

    /** A frame of {@code length} bytes including a correct FCS; payload bytes derived from {@code seq}. */
    public static byte[] frame(byte[] dst, byte[] src, int etherType, int seq, int length) {
        if (length < 18) {
            throw new IllegalArgumentException("length " + length);
        }
        byte[] f = new byte[length];
        System.arraycopy(dst, 0, f, 0, 6);
        System.arraycopy(src, 0, f, 6, 6);
        f[12] = (byte) (etherType >>> 8);
        f[13] = (byte) etherType;
        for (int i = 14; i < length - 4; i++) {
            f[i] = (byte) (seq * 31 + i);
        }
        if (length - 4 >= 18) {
            f[14] = (byte) (seq >>> 24);
            f[15] = (byte) (seq >>> 16);
            f[16] = (byte) (seq >>> 8);
            f[17] = (byte) seq;
        }
        int fcs = crc(f, 0, length - 4);
        f[length - 4] = (byte) fcs;
        f[length - 3] = (byte) (fcs >>> 8);
        f[length - 2] = (byte) (fcs >>> 16);
        f[length - 1] = (byte) (fcs >>> 24);
        return f;
    }

    public static int crc(byte[] b, int off, int len) {
        CRC32 c = new CRC32();
        c.update(b, off, len);
        return (int) c.getValue();
    }

    /** @return true when the last 4 bytes are the little-endian CRC-32 of the rest */
    public static boolean fcsOk(byte[] f) {
        int fcs = (f[f.length - 4] & 0xFF) | (f[f.length - 3] & 0xFF) << 8 | (f[f.length - 2] & 0xFF) << 16
                | (f[f.length - 1] & 0xFF) << 24;
        boolean direct = fcs == crc(f, 0, f.length - 4);
        CRC32 all = new CRC32();
        all.update(f, 0, f.length);
        boolean residue = all.getValue() == GOOD_RESIDUE;
        if (direct != residue) {
            throw new AssertionError("FCS check and residue check disagree");
        }
        return direct;
    }

    public static int seqOf(byte[] f) {
        return (f[14] & 0xFF) << 24 | (f[15] & 0xFF) << 16 | (f[16] & 0xFF) << 8 | (f[17] & 0xFF);
    }

    /** A sink that records each arrival's bytes and the time it arrived. */
    public static final class Recorder implements io.nicbridge.sim.ethernet.FrameSink {
        public final List<byte[]> frames = new ArrayList<>();
        public final List<Long> times = new ArrayList<>();
        private final io.nicbridge.sim.engine.SimClock clock;

        public Recorder(io.nicbridge.sim.engine.SimClock clock) {
            this.clock = clock;
        }

        @Override
        public synchronized void frameArrived(MemorySegment frame, long offset, int length) {
            frames.add(frame.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
            times.add(clock.nanoTime());
        }

        public synchronized int count() {
            return frames.size();
        }

        public synchronized List<Integer> seqs() {
            List<Integer> s = new ArrayList<>();
            for (byte[] f : frames) {
                s.add(seqOf(f));
            }
            return s;
        }
    }
}
