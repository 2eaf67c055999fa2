package io.nicbridge.protocols.core;

import java.lang.foreign.MemorySegment;

/** Receives delivered messages from a {@link MessageChannel}; the bytes are valid only during the call. */
@FunctionalInterface
public interface MessageHandler {
    void onMessage(int peer, MemorySegment data, long offset, int length);
}
