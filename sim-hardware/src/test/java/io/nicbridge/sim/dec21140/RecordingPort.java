package io.nicbridge.sim.dec21140;

import io.nicbridge.sim.ethernet.WirePort;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** A wire port that keeps copies of what the card transmitted and answers a fixed time on the wire. */
final class RecordingPort implements WirePort {
    final List<byte[]> frames = new ArrayList<>();
    long wireNanos;
    Consumer<byte[]> onTransmit = f -> { };

    @Override
    public long transmit(MemorySegment frame, long offset, int length) {
        byte[] copy = new byte[length];
        MemorySegment.copy(frame, ValueLayout.JAVA_BYTE, offset, copy, 0, length);
        frames.add(copy);
        onTransmit.accept(copy);
        return wireNanos;
    }

    @Override
    public String name() {
        return "recording";
    }
}
