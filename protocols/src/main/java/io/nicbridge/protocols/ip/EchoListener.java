package io.nicbridge.protocols.ip;

import java.lang.foreign.MemorySegment;

/** Told of each ICMP echo reply that arrives (the answer to {@link Ipv4Stack#ping}). */
@FunctionalInterface
public interface EchoListener {
    /** @param data the echo's data in place in the receive buffer, {@code [offset, offset + length)}, call-scoped */
    void onEchoReply(int source, int identifier, int sequence, MemorySegment data, int offset, int length,
                     long nowNanos);
}
