package io.nicbridge.sim.ethernet;

/**
 * An Ethernet segment that stations attach to: a hub in which every frame reaches every other
 * station (the cards' own address filters decide what they keep).
 */
public interface EthernetWire extends AutoCloseable {
    /** Attaches a station. Setup-time only. */
    WirePort attach(String name, FrameSink sink);

    /** Flushes and closes any capture file. */
    @Override
    void close();
}
