package io.nicbridge.protocols.core;

import java.lang.foreign.MemorySegment;

/** The application side of a message-passing core: offer messages to peers, take delivered ones. */
public interface MessageChannel {
    /** {@link #offer} accepted the message. */
    int OK = 0;
    /** {@link #offer} refused: the core's buffers for that peer are full; offer again after progress. */
    int BACK_PRESSURE = -1;

    /**
     * Copies {@code length} bytes of {@code src} from {@code offset} into the core, to be sent to {@code peer}.
     *
     * @return {@link #OK}, or {@link #BACK_PRESSURE} (nothing was taken)
     * @throws IllegalArgumentException for a peer outside the link's peers or the core's own number, or a length
     *                                  outside {@code [0, maxMessage()]}
     */
    int offer(int peer, MemorySegment src, long offset, int length);

    /** Hands up to {@code limit} delivered messages to {@code handler}. @return how many */
    int deliver(MessageHandler handler, int limit);

    /** @return the largest message {@link #offer} takes */
    int maxMessage();
}
