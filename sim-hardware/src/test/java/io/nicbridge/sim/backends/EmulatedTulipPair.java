package io.nicbridge.sim.backends;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.sim.dec21140.Dec21140Counters;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.function.IntFunction;
import java.util.zip.CRC32;

/** Two emulated 21140s on one simulated Ethernet segment ({@link TulipTestbed}). */
final class EmulatedTulipPair implements TulipPair {
    private final TulipTestbed bed;

    EmulatedTulipPair(EngineMode mode, IntFunction<TulipConfig> configs) {
        this.bed = TulipTestbed.builder().mode(mode).config(configs).build();
    }

    @Override
    public TulipDriver driver(int i) {
        return bed.driver(i);
    }

    @Override
    public Card card(int i) {
        return bed.card(i);
    }

    @Override
    public MacAddress mac(int i) {
        return TulipTestbed.mac(i);
    }

    @Override
    public void inject(int i, byte[] frame) {
        byte[] withFcs = new byte[Math.max(frame.length, 60) + 4];
        System.arraycopy(frame, 0, withFcs, 0, frame.length);
        CRC32 crc = new CRC32();
        crc.update(withFcs, 0, withFcs.length - 4);
        MemorySegment f = MemorySegment.ofArray(withFcs);
        f.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), withFcs.length - 4,
            (int) crc.getValue());
        bed.card(i).model().frameArrived(f, 0, withFcs.length);
    }

    @Override
    public long framesSeen(int i) {
        Dec21140Counters c = bed.card(i).counters();
        return c.rxFrames() + c.rxMissed() + c.rxFiltered() + c.rxOversize() + c.rxFifoOverflows();
    }

    @Override
    public long framesFiltered(int i) {
        return bed.card(i).counters().rxFiltered();
    }

    @Override
    public long busErrors(int i) {
        return bed.card(i).counters().busErrors();
    }

    @Override
    public void plug(int i, boolean plugged) {
        bed.wire().plug(bed.card(i).name(), plugged);
    }

    @Override
    public void close() {
        bed.close();
    }

    @Override
    public String toString() {
        return "emu " + bed.mode();
    }
}
