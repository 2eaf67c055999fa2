package io.nicbridge.sim.ethernet;

/**
 * An Ethernet segment that stations attach to: a hub in which every frame reaches every other
 * station (the cards' own address filters decide what they keep).
 */
public interface EthernetWire extends AutoCloseable {
    /** Attaches a station. Setup-time only. */
    WirePort attach(String name, FrameSink sink);

    /**
     * Attaches a station that hears how its transmissions ended ({@link TransmitListener}): required on a
     * half-duplex hub, where {@link WirePort#transmit} returns {@link WirePort#PENDING}. Setup-time only.
     */
    WirePort attach(String name, FrameSink sink, TransmitListener listener);

    /** Flushes and closes any capture file. */
    @Override
    void close();
}
