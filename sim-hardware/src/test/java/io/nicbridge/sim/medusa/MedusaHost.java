package io.nicbridge.sim.medusa;

import static io.nicbridge.contract.Medusa.*;

import io.nicbridge.bridge.regs.Registers;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A minimal host side for tests: the init, TX and RX steps of docs/hardware-facts.md C.2 written out with raw
 * register access.
 */
final class MedusaHost {
    final MedusaCard card;
    final Registers regs;
    final MedusaBufferRam ram;

    MedusaHost(MedusaCard card) {
        this.card = card;
        this.regs = card.registers();
        this.ram = card.bufferRam();
    }

    static int reg(int r) {
        return REGS_OFS + r;
    }

    static int entry(int n) {
        return BUF_STATUS_OFS + n * BUF_STATUS_ENTRY_SIZE;
    }

    int read(int r) {
        return regs.read(reg(r));
    }

    void write(int r, int v) {
        regs.write(reg(r), v);
    }

    /** RESET, then the given buffers into FREE_FIFO, IMR all, CTRL = ctrl (FRAME_OFS3 kept unless told). */
    void init(int ctrl, int firstFree, int freeCount) {
        write(REG_CTRL, CTRL_RESET);
        for (int n = firstFree; n < firstFree + freeCount; n++) {
            write(REG_FREE_FIFO, n);
        }
        write(REG_IMR, INT_ALL);
        write(REG_CTRL, ctrl);
    }

    /** Writes FC, DA, SA and a payload pattern into buffer n at the frame offset, sets LEN; returns LEN. */
    int frame(int n, int fc, byte[] da, byte[] sa, int payloadBytes, int seed) {
        int ofs = (read(REG_CTRL) & CTRL_FRAME_OFS3) != 0 ? FRAME_OFS_DEFAULT : FRAME_OFS_ALT;
        int at = n * BUF_SIZE + ofs;
        ram.writeByte(at, fc);
        for (int i = 0; i < 6; i++) {
            ram.writeByte(at + 1 + i, da[i]);
            ram.writeByte(at + 7 + i, sa[i]);
        }
        for (int i = 0; i < payloadBytes; i++) {
            ram.writeByte(at + 13 + i, (byte) (seed + i * 7));
        }
        int len = 13 + payloadBytes;
        regs.write(entry(n) + BUF_STATUS_LEN_OFS, len);
        return len;
    }

    int len(int n) {
        return regs.read(entry(n) + BUF_STATUS_LEN_OFS);
    }

    int stat(int n) {
        return regs.read(entry(n) + BUF_STATUS_STAT_OFS);
    }

    int rxck(int n) {
        return regs.read(entry(n) + BUF_STATUS_RXCK_OFS);
    }

    /** Bytes of buffer n from the frame offset on, read raw (no checksum side effect). */
    byte[] frameBytes(int n, int length) {
        int ofs = (read(REG_CTRL) & CTRL_FRAME_OFS3) != 0 ? FRAME_OFS_DEFAULT : FRAME_OFS_ALT;
        byte[] out = new byte[length];
        MemorySegment.copy(ram.segment(), ValueLayout.JAVA_BYTE, (long) n * BUF_SIZE + ofs, out, 0, length);
        return out;
    }

    static byte[] mac(int last) {
        return new byte[] {0x02, 0, 0, 0, 0, (byte) last};
    }
}
