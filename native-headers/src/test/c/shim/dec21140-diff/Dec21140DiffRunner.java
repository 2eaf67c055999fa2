/*
 * Dec21140DiffRunner - the Java half of the 21140 differential test (run-diff.sh): runs a scenario from
 * gen_scenario.py on the Java emulated card (sim-hardware Dec21140Model, real time, inline service on every
 * kick) and prints a trace: CSR5 after every operation, traced register reads, transmitted frames (length
 * without FCS and CRC of the data; "BADFCS" if the card's FCS were wrong), and at the end CSR6, CSR8, every
 * non-zero word of the descriptor area and a CRC per 256 bytes of the receive buffers. dec21140_diff_runner.c
 * prints the same trace for the shim's C card; the two must be identical.
 */
import io.nicbridge.sim.dec21140.Dec21140Model;
import io.nicbridge.sim.dec21140.Dec21140Timing;
import io.nicbridge.sim.engine.RealTimeBase;
import io.nicbridge.sim.ethernet.WirePort;
import io.nicbridge.bridge.regs.Registers;
import java.lang.foreign.*;
import java.nio.ByteOrder;
import java.nio.file.*;
import java.util.*;
import java.util.zip.CRC32;

public class Dec21140DiffRunner {
    static final long BUS = 0x100000;
    static final int MEM = 0x40000;
    static final ValueLayout.OfInt LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final byte[] MAC = {2,0,0,0,0,1}, PEER = {2,0,0,0,0,2}, BCAST = {-1,-1,-1,-1,-1,-1},
        MCAST = {1,0,0x5e,0,0,1}, OTHER = {2,0,0,0,0,0x77};
    static final List<byte[]> wire = new ArrayList<>();
    static StringBuilder out = new StringBuilder();

    static long val(String s) { return s.startsWith("@") ? BUS + Long.parseLong(s.substring(1)) : Long.parseLong(s); }
    static byte[] addr(String n) { return switch (n) { case "MAC" -> MAC; case "PEER" -> PEER; case "BCAST" -> BCAST; case "MCAST" -> MCAST; default -> OTHER; }; }
    static long crc(byte[] b, int off, int n) { CRC32 c = new CRC32(); c.update(b, off, n); return c.getValue(); }

    public static void main(String[] a) throws Exception {
        List<String> lines = Files.readAllLines(Path.of(a[0]));
        Arena arena = Arena.ofShared();
        MemorySegment mem = arena.allocate(MEM, 4096);
        Dec21140Model card = new Dec21140Model("diff", MAC, new RealTimeBase(), Dec21140Timing.ZERO);
        card.connect(card::service, new WirePort() {
            public long transmit(MemorySegment f, long off, int len) {
                byte[] c = new byte[len]; MemorySegment.copy(f, ValueLayout.JAVA_BYTE, off, c, 0, len); wire.add(c); return 0; }
            public String name() { return "w"; }
        });
        card.dma().registerAt("host", mem, BUS);
        Registers csr = card.registers();
        int k = 0;
        for (String line : lines) {
            String[] t = line.trim().split(" ");
            switch (t[0]) {
                case "W" -> csr.write(Integer.parseInt(t[1]), (int) val(t[2]));
                case "R" -> out.append("R ").append(t[1]).append(' ').append(Integer.toHexString(csr.read(Integer.parseInt(t[1])))).append('\n');
                case "D" -> { long o = Long.parseLong(t[1]);
                    mem.set(LE, o + 4, (int) val(t[3])); mem.set(LE, o + 8, (int) val(t[4])); mem.set(LE, o + 12, (int) val(t[5])); mem.set(LE, o, (int) val(t[2])); }
                case "P" -> { long o = Long.parseLong(t[1]); int n = Integer.parseInt(t[2]); int s = Integer.parseInt(t[3]);
                    for (int i = 0; i < n; i++) mem.set(ValueLayout.JAVA_BYTE, o + i, (byte) (i * 7 + s)); }
                case "Z", "H" -> { long o = Long.parseLong(t[1]); byte[] s = new byte[192];
                    if (t[0].equals("Z")) { for (int n = 0; n < 16; n++) { byte[] ad = n == 0 ? MCAST : n == 15 ? MAC : BCAST; int e = 12 * n;
                        s[e] = ad[0]; s[e+1] = ad[1]; s[e+4] = ad[2]; s[e+5] = ad[3]; s[e+8] = ad[4]; s[e+9] = ad[5]; } }
                    else { for (byte[] ad : new byte[][]{MCAST, BCAST}) { int i = (int) ~crc(ad, 0, 6) & 0x1ff; s[4 * (i >> 4) + ((i & 15) >> 3)] |= (byte) (1 << (i & 7)); }
                        int p = 156; s[p] = MAC[0]; s[p+1] = MAC[1]; s[p+4] = MAC[2]; s[p+5] = MAC[3]; s[p+8] = MAC[4]; s[p+9] = MAC[5]; }
                    MemorySegment.copy(s, 0, mem, ValueLayout.JAVA_BYTE, o, 192); }
                case "F" -> { byte[] dst = addr(t[1]); int len = Integer.parseInt(t[2]); int seed = Integer.parseInt(t[3]); int type = Integer.parseInt(t[4]);
                    byte[] f = new byte[len + 4]; System.arraycopy(dst, 0, f, 0, 6); System.arraycopy(dst == PEER ? MAC : PEER, 0, f, 6, 6);
                    f[12] = (byte) (type >> 8); f[13] = (byte) type; for (int i = 14; i < len; i++) f[i] = (byte) ((i - 14) * 7 + seed);
                    long v = crc(f, 0, len); for (int i = 0; i < 4; i++) f[len + i] = (byte) (v >>> (8 * i));
                    card.frameArrived(MemorySegment.ofArray(f), 0, f.length); }
                case "END" -> {
                    out.append("CSR6 ").append(Integer.toHexString(csr.read(0x30))).append('\n');
                    out.append("CSR8 ").append(Integer.toHexString(csr.read(0x40))).append('\n');
                    for (int o = 0; o < 0x2000; o += 4) { int w = mem.get(LE, o); if (w != 0) out.append(String.format("M %x %x%n", o, w)); }
                    byte[] all = mem.toArray(ValueLayout.JAVA_BYTE);
                    for (int o = 0x8000; o < 0x10000; o += 0x100) out.append(String.format("C %x %x%n", o, crc(all, o, 0x100)));
                }
                default -> throw new IllegalArgumentException(line);
            }
            for (byte[] f : wire) {
                int n = f.length - 4;
                boolean good = crc(f, 0, f.length) == 0x2144DF1CL;
                out.append("TX ").append(n).append(good ? "" : " BADFCS").append(' ').append(Long.toHexString(crc(f, 0, n))).append('\n');
            }
            wire.clear();
            out.append(k++).append(" CSR5 ").append(Integer.toHexString(csr.read(0x28))).append('\n');
        }
        System.out.print(out);
        card.close();
    }
}
