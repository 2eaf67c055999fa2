package io.nicbridge.protocols.cstar;

import io.nicbridge.protocols.core.ProtocolCore;
import java.lang.foreign.MemorySegment;

/**
 * The network layer of a C* cluster (Mosberger, Turner and Peterson, "Exploiting Highly Reliable Networks with
 * Careful Protocols", TR 94-14, section 5.1): P nodes running one data-parallel program exchange <em>fragments</em>
 * tagged with totally ordered <em>events</em>, over one channel to all nodes. Both the traditional protocol
 * (section 5.2) and the careful protocol (section 5.3) implement exactly this interface as sans-I/O cores, so one
 * application runs on either by configuration.
 *
 * <h2>Service</h2>
 * <ul>
 *   <li>{@link #send} is asynchronous: it takes the fragment (the core copies it or sends it at once) unless a
 *       resource is short, when it answers {@link #BACK_PRESSURE} and takes nothing. The destination is one node or
 *       {@link #BROADCAST} (every other node).</li>
 *   <li>Every fragment sent to a node is delivered to it exactly once (the traditional protocol promises it over a
 *       lossy link; the careful protocol promises it over a reliable one and reports any frame that breaks that
 *       assumption, see {@link #violations()}), in no particular order within the event. Fragmentation and
 *       reassembly are the application's.</li>
 *   <li>Events are totally ordered: a sender's fragments for event e are all sent before any of its fragments for
 *       a later event, and event numbers never go back. Every node receives at least one fragment per event.</li>
 *   <li>Who sends to a node in an event: without {@link #BCAST_EVENT} only the sending node; with it (a crowd,
 *       all-to-all, event) every other node. {@link #LAST_FRAG} marks a sender's last fragment to that destination
 *       for the event; so a receiver knows when a source is done ({@link #NODE_DONE}) and when the whole event is
 *       ({@link #EVENT_DONE}).</li>
 *   <li>{@link #LARGE_EVENT} marks a fragment of a multi-fragment event: a resource-allocation hint (the traditional
 *       protocol uses it to decide on explicit acknowledgements and copy-out).</li>
 * </ul>
 *
 * <h2>Receive</h2>
 * {@link #receive} never blocks (the core has no thread): it hands one fragment of {@code event} from {@code src}
 * (or from any source with {@link #ANY}) to the handler, valid only during the call, and answers its status, or
 * {@link #NOTHING} when no such fragment has arrived yet; the application polls its runner and calls again. The
 * paper's blocking {@code receive(src, event)} is that loop.
 */
public interface CStarNetwork extends ProtocolCore {
    /** {@link #send}'s destination meaning every other node. */
    int BROADCAST = -2;
    /** {@link #receive}'s source meaning any node. */
    int ANY = -2;

    /** Flag: the last fragment from this node to the destination for this event. */
    int LAST_FRAG = 1;
    /** Flag: the destination receives fragments from every other node in this event (a crowd event). */
    int BCAST_EVENT = 1 << 1;
    /** Flag: the fragment belongs to a multi-fragment event (a hint for resource allocation). */
    int LARGE_EVENT = 1 << 2;

    /** {@link #send} took the fragment. */
    int OK = 0;
    /** {@link #send} took nothing: a window is closed or buffers are short; send again after progress. */
    int BACK_PRESSURE = -1;

    /** {@link #receive} found no fragment of that event from that source (yet). */
    int NOTHING = 0;
    /** Status: more fragments will come from the fragment's source for this event. */
    int MORE = 1;
    /** Status: this was the source's last fragment for this event; others may still come. */
    int NODE_DONE = 2;
    /** Status: this was the last fragment of the event for this node, whatever the source. */
    int EVENT_DONE = 3;

    /**
     * Sends {@code length} bytes of {@code frag} from {@code offset} to {@code dst} for {@code event}.
     *
     * @return {@link #OK} or {@link #BACK_PRESSURE}
     * @throws IllegalArgumentException for a destination outside the cluster or the node itself, a length outside
     *                                  {@code [0, maxFragment()]}, unknown flag bits, or an event lower than one
     *                                  this node has already sent for
     */
    int send(int dst, int event, MemorySegment frag, long offset, int length, int flags);

    /**
     * Hands one arrived fragment of {@code event} from {@code src} ({@link #ANY} for any source) to
     * {@code handler}.
     *
     * @return {@link #MORE}, {@link #NODE_DONE} or {@link #EVENT_DONE} for the fragment handed over, or
     *     {@link #NOTHING}
     */
    int receive(int src, int event, FragmentHandler handler);

    /** @return the largest fragment {@link #send} takes (the medium's frame less the protocol's header) */
    int maxFragment();

    /** @return the number of nodes in the cluster, this one included */
    int nodes();

    /** @return this node's number */
    int self();

    /**
     * @return frames that broke the protocol's assumptions and were reported rather than delivered wrongly (the
     *     careful protocol: a gap, a duplicate, a bad checksum; the traditional protocol recovers from those and
     *     reports only what it cannot recover from)
     */
    long violations();
}
