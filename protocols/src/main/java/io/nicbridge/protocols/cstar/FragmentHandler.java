package io.nicbridge.protocols.cstar;

import java.lang.foreign.MemorySegment;

/** Receives one fragment from {@link CStarNetwork#receive}; the bytes are valid only during the call. */
@FunctionalInterface
public interface FragmentHandler {
    /**
     * @param src    the node the fragment came from
     * @param event  the fragment's event
     * @param status {@link CStarNetwork#MORE}, {@link CStarNetwork#NODE_DONE} or {@link CStarNetwork#EVENT_DONE}
     */
    void onFragment(int src, int event, int status, MemorySegment data, long offset, int length);
}
