package io.nicbridge.protocols.ip;

import java.lang.foreign.MemorySegment;

/** The application behind a {@link UdpPcb}: told of each datagram to its port. */
@FunctionalInterface
public interface UdpReceiver {
    /**
     * One datagram whose length and (when present) checksum have been checked, in place in the receive buffer:
     * {@code data[offset, offset + length)}, valid only during the call (copy it out to keep it).
     */
    void onDatagram(UdpPcb pcb, int source, int sourcePort, MemorySegment data, int offset, int length,
                    long nowNanos);
}
