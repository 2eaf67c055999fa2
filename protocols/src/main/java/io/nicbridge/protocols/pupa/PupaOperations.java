package io.nicbridge.protocols.pupa;

import static io.nicbridge.protocols.pupa.PupaWire.FRAME_HEADER;
import static io.nicbridge.protocols.pupa.PupaWire.MESSAGE_HEADER;
import static io.nicbridge.protocols.pupa.PupaWire.U32;
import static io.nicbridge.protocols.pupa.PupaWire.UNLIMITED;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.core.LoopbackLink;
import io.nicbridge.protocols.core.MessageChannel;
import io.nicbridge.protocols.core.MessageHandler;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Pupa's host operations: their names (each priced per call by a cost table, key {@code op.<name>.ps-per-call}),
 * which of the paper's Table 2 components each belongs to, and a benchmarking view that runs exactly the core's code
 * for one operation, or one whole path, per call (bench's {@code PupaBench}).
 *
 * <h2>The operations</h2>
 * <pre>
 *   operation           charged                                      code (PupaCore)             Table 2 component
 *   pupa.fifo-enqueue   per message sent                             sendRoom + enqueued          buffer and header
 *   pupa.header-build   per fragment sent                            buildHeader                  buffer and header
 *   pupa.pool-alloc     per send-pool buffer, per receive-pool body  takeSendBuffer               buffer and header
 *   pupa.pool-free      per pool buffer given back                   freeBody (secondary)         buffer and header
 *   pupa.header-out     per message packed into a frame              headerOut                    buffer and header
 *   pupa.frame-parse    per frame received                           parseFrame                   buffer and header
 *   pupa.header-in      per message accepted                         headerIn + received          buffer and header
 *   pupa.mbuf-hold      per message left in the card's buffer        holdMbuf                     buffer and header
 *   pupa.mbuf-release   per such message delivered                   releaseMbuf                  buffer and header
 *   pupa.fifo-dequeue   per message delivered                        head + front + body + dequeued  buffer and header
 *   pupa.reassemble     per fragment of a fragmented message         reassemble                   buffer and header
 *   pupa.multicast-entry per destination of a broadcast frame sent   multicastEntry + framed      buffer and header
 *   pupa.multicast-find per MULTICAST frame received                 multicastFind                buffer and header
 *   pupa.pack           per data frame sent                          packFrame + framed           protocol processing
 *   pupa.control        per ACK, NACK, credit or request frame sent  controlFrame                 protocol processing
 *   pupa.accept         per message received                         accept                       protocol processing
 *   pupa.ack-process    per acknowledgement that frees messages      acknowledged (advance > 0)   protocol processing
 *   pupa.nack-process   per NACK that sends the sender back          nacked                       protocol processing
 *   pupa.credit-process per frame received (with flow control on)    acknowledged (credit only)   protocol processing
 *   pupa.retransmit     per retransmission timeout                   timedOut                     protocol processing
 *   pupa.ack-timer      per ACK timer expiration                     ackTick                      protocol processing
 *   pupa.multicast-pack per broadcast frame of a multicast sent      multicastPack                protocol processing
 * </pre>
 * A multicast charges, per destination, what a send to it would (fifo-enqueue, header-build per fragment), its
 * pool-alloc once (the copies share the body); on the wire multicast-pack and multicast-entry take the place of pack
 * and header-out (one frame, one message header, an entry per destination: the entry is that destination's
 * header-out and its half of pack), and on receipt multicast-find finds this node's entry before accept and
 * header-in. The view prices multicast-find on a frame of nine entries with this node's last (Table 3's ten nodes).
 * Body bytes copied are {@code CostItem.COPY} (Table 2's data copy); the link's descriptor work, the runner's
 * dispatch and timers are the driver's (OS and driver overhead); the interrupt, the wire and the cards' DMA are
 * transmission and DMA.
 *
 * <h2>The view</h2>
 * Two cores (node 0 sends, node 1 receives) over a {@link LoopbackLink} pair, on a clock the view sets, with
 * uncharged CPUs (the zero table: the benchmark times the code, not the model). Each method calls the core's own
 * package-private code for one operation or path with the arguments of a 4-byte message (the paper's smallest);
 * operations that use something up per call (a FIFO entry, a pool buffer, an outstanding message) run in batches of
 * {@link #BATCH} calls, each batch prepared outside the timed part by a {@code prepare...} method that restores the
 * state with the core's own code. Use one view per benchmark (state drifts harmlessly otherwise: counters, the
 * sequence numbers). Not thread-safe.
 */
public final class PupaOperations {
    public static final String FIFO_ENQUEUE = "pupa.fifo-enqueue";
    public static final String HEADER_BUILD = "pupa.header-build";
    public static final String POOL_ALLOC = "pupa.pool-alloc";
    public static final String POOL_FREE = "pupa.pool-free";
    public static final String HEADER_OUT = "pupa.header-out";
    public static final String FRAME_PARSE = "pupa.frame-parse";
    public static final String HEADER_IN = "pupa.header-in";
    public static final String MBUF_HOLD = "pupa.mbuf-hold";
    public static final String MBUF_RELEASE = "pupa.mbuf-release";
    public static final String FIFO_DEQUEUE = "pupa.fifo-dequeue";
    public static final String REASSEMBLE = "pupa.reassemble";
    public static final String PACK = "pupa.pack";
    public static final String CONTROL = "pupa.control";
    public static final String ACCEPT = "pupa.accept";
    public static final String ACK_PROCESS = "pupa.ack-process";
    public static final String NACK_PROCESS = "pupa.nack-process";
    public static final String CREDIT_PROCESS = "pupa.credit-process";
    public static final String RETRANSMIT = "pupa.retransmit";
    public static final String ACK_TIMER = "pupa.ack-timer";
    public static final String MULTICAST_ENTRY = "pupa.multicast-entry";
    public static final String MULTICAST_FIND = "pupa.multicast-find";
    public static final String MULTICAST_PACK = "pupa.multicast-pack";

    /** The operations of Table 2's "buffer and header management". */
    public static final List<String> BUFFER_AND_HEADER = List.of(FIFO_ENQUEUE, HEADER_BUILD, POOL_ALLOC, POOL_FREE,
            HEADER_OUT, FRAME_PARSE, HEADER_IN, MBUF_HOLD, MBUF_RELEASE, FIFO_DEQUEUE, REASSEMBLE, MULTICAST_ENTRY,
            MULTICAST_FIND);
    /** The operations of Table 2's "protocol processing". */
    public static final List<String> PROTOCOL = List.of(PACK, CONTROL, ACCEPT, ACK_PROCESS, NACK_PROCESS,
            CREDIT_PROCESS, RETRANSMIT, ACK_TIMER, MULTICAST_PACK);
    /** Every operation the core charges. */
    public static final List<String> ALL = concat(BUFFER_AND_HEADER, PROTOCOL);

    /** Calls per batch of the batched operations and paths (the send FIFO keeps above its low-water mark). */
    public static final int BATCH = 40;
    /** The message sizes of the three receive paths: in the primary FIFO, a secondary buffer, the card's buffer. */
    public static final int SMALL = 16;
    public static final int SECONDARY = 100;
    public static final int CARD_BUFFER = 1000;

    private static final int FLAGS = PupaWire.F_FIRST | PupaWire.F_LAST;
    private static final int LENGTH = 4;
    private static final int DATA_FRAME = FRAME_HEADER + MESSAGE_HEADER + LENGTH;
    private static final int MULTICAST_ENTRIES = 9;
    private static final int MULTICAST_FRAME = FRAME_HEADER + PupaWire.MC_HEADER
            + PupaWire.MC_ENTRY * MULTICAST_ENTRIES + MESSAGE_HEADER + LENGTH;

    private final long[] now = {1};
    private final LoopbackLink[] links = LoopbackLink.pair(1500);
    private final PupaCore sender;
    private final PupaCore receiver;
    private final PupaConfig config;
    private final MemorySegment message;
    private final MemorySegment user;
    private final MemorySegment frame;
    private final MemorySegment dataFrame;
    private final MemorySegment multicastFrame;
    private final MemorySegment scratch;
    private final MemorySegment entries;
    private final int[] seqs = new int[4];
    private final int[] held = new int[BATCH];
    private final MessageHandler copyOut;
    private int chainFirst = BufferPool.END;
    private int chainLast = BufferPool.END;
    private int ackBase;
    private short nackNumber; // the NACKs nackProcess sends, numbered as a receiver numbers them
    private long delivered;

    /** Two fresh cores with Pupa's defaults (64 mbufs, so that a batch of holds fits). */
    public PupaOperations() {
        config = PupaConfig.defaults().withMbufs(64);
        sender = new PupaCore(links[0], () -> now[0], config, HostCpu.uncharged("pupa0"));
        receiver = new PupaCore(links[1], () -> now[0], config, HostCpu.uncharged("pupa1"));
        Arena arena = Arena.ofAuto();
        message = arena.allocate(4096, 8);
        user = arena.allocate(4096, 8);
        frame = arena.allocate(1500, 8);
        dataFrame = arena.allocate(1500, 8);
        multicastFrame = arena.allocate(1500, 8);
        scratch = arena.allocate(PrimaryFifo.BYTES, 64); // receive entries of held card buffers, a FIFO's layout
        entries = arena.allocate(PrimaryFifo.BYTES, 64); // receive entries of pool bodies and fragments
        copyOut = (peer, data, offset, length) -> {
            MemorySegment.copy(data, offset, user, 0, length);
            delivered++;
        };
        for (int k = 0; k < BATCH; k++) {
            scratch.set(U32, PrimaryFifo.entry(k) + PrimaryFifo.BODY, -1); // no card buffer held
        }
        // a message header in the send FIFO's next free entry (header-out reads it; nothing publishes it)
        PrimaryFifo sf = sender.sendFifo(1);
        PupaCore.buildHeader(sf.segment(), PrimaryFifo.entry(sf.high()), 0, LENGTH, 0, LENGTH, FLAGS, 0, 1, 0, 1, 7);
        refreshDataFrame();
        // a MULTICAST frame from node 0 whose last entry is node 1's (nodes 2..9 before it are other peers')
        long mcBody = sender.multicastPack(multicastFrame, MULTICAST_ENTRIES, sf.segment(),
                PrimaryFifo.entry(sf.high()));
        for (int i = 0; i < MULTICAST_ENTRIES; i++) {
            long at = FRAME_HEADER + PupaWire.MC_HEADER + (long) PupaWire.MC_ENTRY * i;
            byte node = (byte) (i == MULTICAST_ENTRIES - 1 ? 1 : i + 2);
            multicastFrame.set(ValueLayout.JAVA_BYTE, at + PupaWire.MC_NODE, node);
        }
        if (mcBody + LENGTH != MULTICAST_FRAME) {
            throw new IllegalStateException("multicast frame of " + (mcBody + LENGTH) + " bytes");
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        String[] all = new String[a.size() + b.size()];
        for (int i = 0; i < a.size(); i++) {
            all[i] = a.get(i);
        }
        for (int i = 0; i < b.size(); i++) {
            all[a.size() + i] = b.get(i);
        }
        return List.of(all);
    }

    /** A data frame from node 0 with one 4-byte message carrying the sequence number node 1 expects. */
    private void refreshDataFrame() {
        writeDataFrame(dataFrame, receiver.expected(0));
    }

    private void writeDataFrame(MemorySegment f, int seq) {
        PupaWire.frameHeader(f, PupaWire.DATA, 1, 0, UNLIMITED, MESSAGE_HEADER + LENGTH);
        PupaCore.buildHeader(f, FRAME_HEADER, seq, LENGTH, 0, LENGTH, FLAGS, 0, 1, 0, 1, 7);
        f.set(U32, FRAME_HEADER + MESSAGE_HEADER, seq);
    }

    // ------------------------------------------------------------------------------------- send side operations

    public void headerBuild() {
        PrimaryFifo sf = sender.sendFifo(1);
        PupaCore.buildHeader(sf.segment(), PrimaryFifo.entry(sf.high()), 0, LENGTH, 0, LENGTH, FLAGS, 0, 1, 0, 1, 7);
    }

    /** Sends and acknowledges everything queued to node 1, then writes the headers of the next batch. */
    public void prepareEnqueues() {
        settleSend();
        PrimaryFifo sf = sender.sendFifo(1);
        sender.sendSequences(1, seqs);
        for (int i = 0, pos = sf.high(); i < BATCH; i++, pos = PrimaryFifo.advance(pos, 1)) {
            PupaCore.buildHeader(sf.segment(), PrimaryFifo.entry(pos), seqs[3] + i, LENGTH, 0, LENGTH, FLAGS, 0, 1,
                    0, 1, 7);
        }
    }

    /** Up to {@link #BATCH} calls after {@link #prepareEnqueues()}. */
    public void fifoEnqueue() {
        if (!sender.sendRoom(1, 1)) {
            throw new IllegalStateException("the send FIFO is full: prepare the batch");
        }
        sender.enqueued(1, PrimaryFifo.advance(sender.sendFifo(1).high(), 1), 1, true);
    }

    /** Gives back the send-pool buffers the last batch took. */
    public void preparePoolAllocs() {
        if (chainFirst != BufferPool.END) {
            sender.sendPool().giveChain(chainFirst);
        }
        chainFirst = BufferPool.END;
        chainLast = BufferPool.END;
    }

    /** Up to {@link #BATCH} calls after {@link #preparePoolAllocs()}: each chains one more buffer. */
    public int poolAlloc() {
        int b = sender.takeSendBuffer(chainLast);
        if (chainFirst == BufferPool.END) {
            chainFirst = b;
        }
        chainLast = b;
        return b;
    }

    public void pack() {
        sender.sendSequences(1, seqs);
        sender.packFrame(1, frame, 1, DATA_FRAME);
        sender.framed(1, seqs[1], false);
    }

    /** The header alone (no inline body with it: body bytes are priced as {@code CostItem.COPY}). */
    public int headerOut() {
        PrimaryFifo sf = sender.sendFifo(1);
        sender.sendSequences(1, seqs);
        return sender.headerOut(1, sf.segment(), PrimaryFifo.entry(sf.high()), seqs[2], frame, FRAME_HEADER, 0);
    }

    /** A broadcast frame's header and message header, for nine destinations. @return where the body goes */
    public long multicastPack() {
        PrimaryFifo sf = sender.sendFifo(1);
        return sender.multicastPack(frame, MULTICAST_ENTRIES, sf.segment(), PrimaryFifo.entry(sf.high()));
    }

    /** Node 1's destination entry in a broadcast frame, and its half of the frame's pointer work. */
    public boolean multicastEntry() {
        boolean ask = sender.multicastEntry(1, frame, FRAME_HEADER + PupaWire.MC_HEADER);
        sender.sendSequences(1, seqs);
        sender.framed(1, seqs[1], ask);
        return ask;
    }

    public void control() {
        sender.controlFrame(1, frame, PupaWire.ACK);
    }

    public void retransmit() {
        sender.timedOut(1, now[0]);
    }

    public boolean ackTimer() {
        return sender.ackTick();
    }

    // ------------------------------------------------------------------------------------- acknowledgements

    /** Sends {@link #BATCH} 4-byte messages to node 1 (their frames discarded), for the batch to acknowledge. */
    public void prepareAcks() {
        settleSend();
        sender.sendSequences(1, seqs);
        ackBase = seqs[0];
        sendBatch(LENGTH, BATCH);
        links[1].drop();
    }

    /** Call {@code k} of a batch after {@link #prepareAcks()}: acknowledges the k-th message (only). */
    public void ackProcess(int k) {
        sender.acknowledged(1, ackBase + k + 1, UNLIMITED);
    }

    /** One message to node 1 outstanding (its frame discarded): what a NACK sends the sender back to. */
    public void prepareNack() {
        settleSend();
        sendBatch(LENGTH, 1); // one acknowledged first: the NACK below is then for a number never gone back to
        settleSend();
        sendBatch(LENGTH, 1);
        links[1].drop();
    }

    /** A NACK for the outstanding message (after {@link #prepareNack()}; each call goes back again). */
    public void nackProcess() {
        sender.sendSequences(1, seqs);
        sender.acknowledged(1, seqs[0], UNLIMITED); // a NACK frame's header is processed as onFrame does
        sender.nacked(1, seqs[0], ++nackNumber); // a new number each call: every NACK is acted on
    }

    /** A frame that acknowledges nothing new: only its credit is processed. */
    public void creditProcess() {
        sender.sendSequences(1, seqs);
        sender.acknowledged(1, seqs[0], UNLIMITED);
    }

    // ------------------------------------------------------------------------------------- receive side operations

    public boolean frameParse() {
        return receiver.parseFrame(dataFrame, DATA_FRAME, 0);
    }

    public int accept() {
        return receiver.accept(0, dataFrame, FRAME_HEADER, DATA_FRAME, false, 0);
    }

    /** @return the offset of node 1's entry, the ninth, in a MULTICAST frame */
    public long multicastFind() {
        return receiver.multicastFind(multicastFrame, MULTICAST_FRAME);
    }

    /** Delivers everything node 1 holds. */
    public void prepareHeaderIns() {
        receiver.deliver(copyOut, Integer.MAX_VALUE);
    }

    /** Up to {@link #BATCH} calls after {@link #prepareHeaderIns()}. */
    public void headerIn() {
        long e = receiver.headerIn(0, dataFrame, FRAME_HEADER, false, 0); // the header alone, as headerOut()
        receiver.received(0, e, FLAGS, false);
    }

    /** Releases the card buffers the last batch held. */
    public void prepareMbufHolds() {
        for (int i = 0; i < BATCH; i++) {
            int slot = scratch.get(U32, PrimaryFifo.entry(i) + PrimaryFifo.BODY);
            if (slot >= 0) {
                receiver.releaseMbuf(slot);
            }
            scratch.set(U32, PrimaryFifo.entry(i) + PrimaryFifo.BODY, -1);
        }
    }

    /** Call {@code k} of a batch after {@link #prepareMbufHolds()}: one message of a new frame left in its buffer. */
    public void mbufHold(int k) {
        receiver.endFrame();
        receiver.holdMbuf(scratch, PrimaryFifo.entry(k), k, FRAME_HEADER + MESSAGE_HEADER);
    }

    /** Holds {@link #BATCH} card buffers, one message each, for the batch to release. */
    public void prepareMbufReleases() {
        prepareMbufHolds();
        for (int k = 0; k < BATCH; k++) {
            mbufHold(k);
            held[k] = scratch.get(U32, PrimaryFifo.entry(k) + PrimaryFifo.BODY);
            scratch.set(U32, PrimaryFifo.entry(k) + PrimaryFifo.BODY, -1);
        }
        receiver.endFrame();
    }

    /** Call {@code k} of a batch after {@link #prepareMbufReleases()}. */
    public int mbufRelease(int k) {
        return receiver.releaseMbuf(held[k]);
    }

    /** Takes {@link #BATCH} receive-pool buffers into entries whose bodies are in them, for the batch to free. */
    public void preparePoolFrees() {
        BufferPool pool = receiver.receivePool();
        for (int k = 0; k < BATCH; k++) {
            long e = PrimaryFifo.entry(k);
            entries.set(PupaWire.U16, e + PupaWire.M_FLAGS, (short) (FLAGS | PupaCore.K_SECONDARY));
            entries.set(U32, e + PrimaryFifo.BODY, pool.take());
        }
    }

    /** Call {@code k} of a batch after {@link #preparePoolFrees()}. */
    public void poolFree(int k) {
        receiver.freeBody(entries, PrimaryFifo.entry(k));
    }

    /** Delivers what node 1 holds, then accepts {@link #BATCH} 4-byte messages into its FIFO from node 0. */
    public void prepareDequeues() {
        receiver.deliver(copyOut, Integer.MAX_VALUE);
        for (int k = 0; k < BATCH; k++) {
            headerIn();
        }
    }

    /** Up to {@link #BATCH} calls after {@link #prepareDequeues()}. */
    public int fifoDequeue() {
        PrimaryFifo f = receiver.receiveFifo(0);
        int pos = f.low();
        int k = PupaCore.head(f, pos);
        long e = PrimaryFifo.entry(pos);
        int length = receiver.front(f.segment(), e);
        receiver.body(f.segment(), e);
        receiver.dequeued(f, pos, k);
        return length;
    }

    /** One 4-byte fragment into the assembly buffer. */
    public int reassemble() {
        long e = PrimaryFifo.entry(BATCH);
        PupaCore.buildHeader(entries, e, 0, 2 * LENGTH, 0, LENGTH, PupaWire.F_FIRST, 0, 2, 0, 1, 7);
        return receiver.reassemble(entries, e);
    }

    // ------------------------------------------------------------------------------------- whole paths

    /** Node 1 takes and delivers every frame queued to it, and node 0 has every message acknowledged. */
    public void prepareSends() {
        links[1].poll(receiver, Integer.MAX_VALUE);
        receiver.deliver(copyOut, Integer.MAX_VALUE);
        settleSend();
    }

    /** Path: node 0 sends one {@code size}-byte message (fast path: its frame goes out in the call). */
    public int sendPath(int size, int k) {
        return sender.send(1, message, 0, size, k, true);
    }

    /** Settles both nodes, then node 0 sends {@link #BATCH} {@code size}-byte messages, queued at node 1. */
    public void prepareReceives(int size) {
        prepareSends();
        sendBatch(size, BATCH);
    }

    /** Path: node 1 takes one frame (one message) from its link and delivers it into a user buffer. */
    public int receivePath() {
        links[1].poll(receiver, 1);
        return receiver.deliver(copyOut, 1);
    }

    /** {@link #prepareAcks()}, then one ACK frame per message queued at node 0, the k-th acknowledging k + 1. */
    public void prepareAckPath() {
        prepareAcks();
        links[0].drop();
        for (int k = 0; k < BATCH; k++) {
            int ack = ackBase + k + 1;
            PupaWire.frameHeader(links[0].inject(FRAME_HEADER), PupaWire.ACK, 0, ack, UNLIMITED, 0);
        }
    }

    /** Path: node 0 takes one ACK frame from its link (parse, credit, acknowledgement, nothing to send). */
    public int ackPath() {
        return links[0].poll(sender, 1);
    }

    /** {@link #prepareNack()}, then {@link #BATCH} NACK frames for the outstanding message queued at node 0. */
    public void prepareNackPath() {
        prepareNack();
        links[0].drop();
        sender.sendSequences(1, seqs);
        int ack = seqs[0];
        for (int k = 0; k < BATCH; k++) {
            MemorySegment frame = links[0].inject(FRAME_HEADER);
            PupaWire.frameHeader(frame, PupaWire.NACK, 0, ack, UNLIMITED, 0);
            frame.set(PupaWire.U16, PupaWire.OFF_NACK, ++nackNumber); // each a new NACK, as a receiver numbers them
        }
    }

    /**
     * Path: node 0 takes one NACK frame and goes back: the message is sent again (each frame carries the next NACK
     * number, so none is taken for a copy of the one before).
     */
    public int nackPath() {
        return links[0].poll(sender, 1);
    }

    // ------------------------------------------------------------------------------------- helpers

    @Override
    public String toString() {
        return sender + "\n" + receiver + "\nqueued at node 0: " + links[0].queued() + ", at node 1: "
                + links[1].queued();
    }

    /** @return messages delivered into the user buffer so far (what the paths did) */
    public long delivered() {
        return delivered;
    }

    private void sendBatch(int size, int count) {
        for (int k = 0; k < count; k++) {
            if (sender.send(1, message, 0, size, k, true) != MessageChannel.OK) {
                throw new IllegalStateException("send " + k + " of " + count + " (" + size + " B) refused");
            }
        }
    }

    /** Sends everything queued to node 1 (frames discarded) and acknowledges all of it. */
    private void settleSend() {
        sender.sendSequences(1, seqs);
        while (seqs[1] != seqs[3]) {
            links[1].drop();
            sender.pump(1, true);
            sender.sendSequences(1, seqs);
        }
        links[1].drop();
        sender.acknowledged(1, seqs[3], UNLIMITED);
        sender.sendSequences(1, seqs);
        if (seqs[0] != seqs[3]) {
            throw new IllegalStateException("node 0 could not settle: sequences " + seqs[0] + ".." + seqs[3]);
        }
        refreshDataFrame();
    }
}
