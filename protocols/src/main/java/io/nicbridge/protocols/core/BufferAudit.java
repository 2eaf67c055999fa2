package io.nicbridge.protocols.core;

/**
 * A core that can account for its buffers: after its traffic has drained, everything it allocated must be back
 * where it started. The simulation tester checks it ({@code no-leak}) after every schedule that delivered everything.
 */
public interface BufferAudit {
    /** @return null when every buffer is back (queues empty, pools whole, no medium buffer held), else what is held */
    String leaks();
}
