package io.nicbridge.sim.diff;

import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.sim.dec21140.Dec21140Model;
import io.nicbridge.sim.dec21140.Dec21140Timing;
import io.nicbridge.sim.engine.RealTimeBase;
import io.nicbridge.sim.ethernet.WirePort;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32;

/**
 * The Java half of the 21140 differential test: runs a {@link Dec21140Scenario} on the emulated card
 * ({@link Dec21140Model}, real time, serviced inline on every kick) and returns its trace: CSR5 after every
 * operation, traced register reads, transmitted frames (length without FCS and CRC of the data; "BADFCS" if the
 * card's FCS were wrong), and at the end CSR6, CSR8, every non-zero word of the descriptor area and a CRC per 256
 * bytes of the receive buffers. native-headers/src/test/c/shim/diff/dec21140_diff_runner.c prints the same trace
 * for the shim's C card.
 */
final class Dec21140JavaRunner {
    private static final long BUS = 0x100000;
    private static final ValueLayout.OfInt LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Past one CSR11 tick at 10 Mb/s (204.8 us), the longest a count of 1 can take. */
    private static final long GP_TIMER_WAIT_NANOS = 250_000;
    private static final byte[] MAC = {2, 0, 0, 0, 0, 1};
    private static final byte[] PEER = {2, 0, 0, 0, 0, 2};
    private static final byte[] BCAST = {-1, -1, -1, -1, -1, -1};
    private static final byte[] MCAST = {1, 0, 0x5e, 0, 0, 1};
    private static final byte[] OTHER = {2, 0, 0, 0, 0, 0x77};

    private Dec21140JavaRunner() {
    }

    static boolean endOfStep(String traceLine) {
        return traceLine.matches("\\d+ CSR5 .*");
    }

    private static long val(String s) {
        return s.startsWith("@") ? BUS + Long.parseLong(s.substring(1)) : Long.parseLong(s);
    }

    private static byte[] address(String n) {
        return switch (n) {
            case "MAC" -> MAC;
            case "PEER" -> PEER;
            case "BCAST" -> BCAST;
            case "MCAST" -> MCAST;
            default -> OTHER;
        };
    }

    private static long crc(byte[] b, int off, int n) {
        CRC32 c = new CRC32();
        c.update(b, off, n);
        return c.getValue();
    }

    static String trace(List<String> lines) {
        StringBuilder out = new StringBuilder();
        List<byte[]> wire = new ArrayList<>();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment mem = arena.allocate(Dec21140Scenario.MEM, 4096);
            RealTimeBase time = new RealTimeBase();
            Dec21140Model card = new Dec21140Model("diff", MAC, time, Dec21140Timing.ZERO);
            card.connect(card::service, new WirePort() {
                @Override
                public long transmit(MemorySegment f, long off, int len) {
                    byte[] c = new byte[len];
                    MemorySegment.copy(f, ValueLayout.JAVA_BYTE, off, c, 0, len);
                    wire.add(c);
                    return 0;
                }

                @Override
                public String name() {
                    return "diff.wire";
                }
            });
            card.dma().registerAt("host", mem, BUS);
            Registers csr = card.registers();
            int k = 0;
            for (String line : lines) {
                String[] t = line.trim().split(" ");
                switch (t[0]) {
                    case "W" -> csr.write(Integer.parseInt(t[1]), (int) val(t[2]));
                    case "R" -> out.append("R ").append(t[1]).append(' ')
                        .append(Integer.toHexString(csr.read(Integer.parseInt(t[1])))).append('\n');
                    case "D" -> {
                        long o = Long.parseLong(t[1]);
                        mem.set(LE, o + 4, (int) val(t[3]));
                        mem.set(LE, o + 8, (int) val(t[4]));
                        mem.set(LE, o + 12, (int) val(t[5]));
                        mem.set(LE, o, (int) val(t[2]));
                    }
                    case "P" -> {
                        long o = Long.parseLong(t[1]);
                        int n = Integer.parseInt(t[2]);
                        int s = Integer.parseInt(t[3]);
                        for (int i = 0; i < n; i++) {
                            mem.set(ValueLayout.JAVA_BYTE, o + i, (byte) (i * 7 + s));
                        }
                    }
                    case "Z", "H" -> mem.asSlice(Long.parseLong(t[1]), 192)
                        .copyFrom(MemorySegment.ofArray(setupFrame(t[0].equals("Z"))));
                    case "T" -> {
                        csr.write(0x58, 1);
                        long until = System.nanoTime() + GP_TIMER_WAIT_NANOS;
                        while (System.nanoTime() < until) {
                            LockSupport.parkNanos(GP_TIMER_WAIT_NANOS / 4);
                        }
                        time.pollTimers();
                    }
                    case "F" -> {
                        byte[] f = frame(t);
                        card.frameArrived(MemorySegment.ofArray(f), 0, f.length);
                    }
                    case "END" -> {
                        out.append("CSR6 ").append(Integer.toHexString(csr.read(0x30))).append('\n');
                        out.append("CSR8 ").append(Integer.toHexString(csr.read(0x40))).append('\n');
                        for (int o = 0; o < 0x2000; o += 4) {
                            int w = mem.get(LE, o);
                            if (w != 0) {
                                out.append(String.format("M %x %x%n", o, w));
                            }
                        }
                        byte[] all = mem.toArray(ValueLayout.JAVA_BYTE);
                        for (int o = 0x8000; o < 0x10000; o += 0x100) {
                            out.append(String.format("C %x %x%n", o, crc(all, o, 0x100)));
                        }
                    }
                    default -> throw new IllegalArgumentException("unknown scenario operation: " + line);
                }
                for (byte[] f : wire) {
                    int n = f.length - 4;
                    boolean good = crc(f, 0, f.length) == 0x2144DF1CL;
                    out.append("TX ").append(n).append(good ? "" : " BADFCS").append(' ')
                        .append(Long.toHexString(crc(f, 0, n))).append('\n');
                }
                wire.clear();
                out.append(k++).append(" CSR5 ").append(Integer.toHexString(csr.read(0x28))).append('\n');
            }
            card.close();
        }
        return out.toString();
    }

    /** A perfect (16 addresses) or hash (512-bit table + our address) setup frame. */
    private static byte[] setupFrame(boolean perfect) {
        byte[] s = new byte[192];
        if (perfect) {
            for (int n = 0; n < 16; n++) {
                putSetupAddress(s, 12 * n, n == 0 ? MCAST : n == 15 ? MAC : BCAST);
            }
        } else {
            for (byte[] ad : new byte[][] {MCAST, BCAST}) {
                int i = (int) ~crc(ad, 0, 6) & 0x1ff;
                s[4 * (i >> 4) + ((i & 15) >> 3)] |= (byte) (1 << (i & 7));
            }
            putSetupAddress(s, 156, MAC);
        }
        return s;
    }

    private static void putSetupAddress(byte[] s, int p, byte[] a) {
        s[p] = a[0];
        s[p + 1] = a[1];
        s[p + 4] = a[2];
        s[p + 5] = a[3];
        s[p + 8] = a[4];
        s[p + 9] = a[5];
    }

    /** "F dst len seed type": the frame with its FCS. */
    private static byte[] frame(String[] t) {
        byte[] dst = address(t[1]);
        int len = Integer.parseInt(t[2]);
        int seed = Integer.parseInt(t[3]);
        int type = Integer.parseInt(t[4]);
        byte[] f = new byte[len + 4];
        System.arraycopy(dst, 0, f, 0, 6);
        System.arraycopy(dst == PEER ? MAC : PEER, 0, f, 6, 6);
        f[12] = (byte) (type >> 8);
        f[13] = (byte) type;
        for (int i = 14; i < len; i++) {
            f[i] = (byte) ((i - 14) * 7 + seed);
        }
        long v = crc(f, 0, len);
        for (int i = 0; i < 4; i++) {
            f[len + i] = (byte) (v >>> (8 * i));
        }
        return f;
    }
}
