package io.nicbridge.bridge.shim;

import static io.nicbridge.contract.Sba200Unet.AAL5_LENGTH_ABORT;
import static io.nicbridge.contract.Sba200Unet.HDR_PTI_SHIFT;
import static io.nicbridge.contract.Sba200Unet.HDR_VCI_MASK;
import static io.nicbridge.contract.Sba200Unet.HDR_VCI_SHIFT;
import static io.nicbridge.contract.Sba200Unet.HDR_VPI_MASK;
import static io.nicbridge.contract.Sba200Unet.HDR_VPI_SHIFT;
import static io.nicbridge.contract.Sba200Unet.INLINE_MAX;
import static io.nicbridge.contract.Sba200Unet.MAX_CHANNELS;
import static io.nicbridge.contract.Sba200Unet.PTI_AUU;
import static io.nicbridge.contract.Sba200Unet.PTI_NON_USER;
import static io.nicbridge.contract.Sba200Unet.RX_ERR_LENGTH;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_BAD_CHANNEL;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_BAD_DESC;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_DMA_ERROR;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_PENDING;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_SEG_BOUNDS;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_SENT;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_TOO_LONG;
import static io.nicbridge.contract.Sba200Unet.VCI_FIRST_USER;
import static io.nicbridge.contract.Sba200Unet.VCI_TABLE_ENTRIES;

import io.nicbridge.bridge.driver.unet.Endpoint;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.queue.QueueCode;
import io.nicbridge.contract.NicShim;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A direct-access U-Net endpoint (issue 18): its free, receive and send queues are the four rings of an AF_XDP socket,
 * with no card model between the process and the kernel. The communication segment is the socket's UMEM.
 *
 * <pre>
 *   U-Net                      AF_XDP ring (XskRing)         who produces / consumes
 *   free queue                 FILL                          this endpoint / kernel
 *   receive queue              RX                            kernel / this endpoint
 *   send queue                 TX                            this endpoint / kernel (woken by nicshim_kick(TX))
 *   send completions           COMPLETION                    kernel / this endpoint
 *
 *   UMEM (one CommSegment, page-aligned, pinned by the kernel at XDP_UMEM_REG), chunk = C bytes (2048 or 4096)
 *   +------------------------------------------------------+-----------------------------------+
 *   | segment(): the process's own - composes messages,    | transmit chunks (tx-ring of them), |
 *   | posts receive buffers (whole chunks, C-aligned)      | the endpoint's: header + copy      |
 *   +------------------------------------------------------+-----------------------------------+
 *   0                                                      segment().byteSize()
 *
 *   a received chunk:  [0, 256) XDP headroom | Ethernet header (14) | U-Net tag (8) | PDU ...
 * </pre>
 *
 * The wire format is U-Net over Ethernet's (nicshim.h): one PDU per frame, {@code DA SA ethertype | cell header (BE,
 * PTI = AUU) | PDU length (BE16) | 0 (16) | PDU}, no padding - byte for byte what the shim's SBA-200 card sends, so
 * the two interoperate. Receive is zero-copy: a message's one buffer is where the kernel put the frame, 22 bytes
 * into it; {@link #release} hands the chunk back to FILL. Send copies the message once, behind its header, into a
 * transmit chunk (a message composed in the segment has no room for a header in front of it), puts the chunk on TX
 * and kicks the kernel - after every send, or once per {@link #kickBatch} sends for a stream (the kick is a system
 * call; in copy mode the kernel takes TX entries only inside it). Messages of at most {@link #inlineMax()} bytes report {@link #isInline} (no buffer; read them
 * with {@link #copyTo}) as on the card, so a program written against {@link Endpoint} runs unchanged.
 *
 * <p>Channels are opened by whoever opened the socket ({@link #openChannel}): the endpoint's owner holds the
 * socket, and with it the privilege to put any frame on the interface (CAP_NET_RAW and the XDP program's
 * CAP_SYS_ADMIN or CAP_BPF) - direct access trades U-Net's per-channel protection for the socket's. Received frames
 * that are not U-Net over Ethernet for an open channel are dropped and counted ({@link #rxDropFilter},
 * {@link #rxDropBadFrame}, {@link #rxDropNoChannel}) and their chunks go straight back to FILL.
 *
 * <p>Completions are in order: each send takes one entry of a status FIFO, {@code PENDING} when its frame went to
 * the kernel (it becomes {@code SENT} when COMPLETION returns a chunk: copy mode completes in TX order) or the error
 * status at once ({@code BAD_CHANNEL}, {@code SEG_BOUNDS}, {@code TOO_LONG}, and {@code BAD_DESC} for length 0, which
 * AAL5 reserves for "abort" and the card's firmware refuses). Single-threaded, as every
 * {@link Endpoint}; nothing on the send or receive path allocates.
 */
public final class XskUnetEndpoint implements Endpoint, AutoCloseable {
    /** Ethernet header + U-Net tag in front of each PDU. */
    public static final int FRAME_OVERHEAD = NicShim.UNET_ETH_HEADER_SIZE + NicShim.UNET_TAG_SIZE;
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int PTI_LAST = PTI_AUU << HDR_PTI_SHIFT;
    private static final int PTI_NON_USER_BITS = PTI_NON_USER << HDR_PTI_SHIFT;
    private static final long AWAIT_SLICE_NANOS = NicShim.POLL_MAX_TIMEOUT_NS;
    /** Frames received between publications of RX's consumer and FILL's producer index ({@link #publishReceive}). */
    static final int RX_PUBLISH_BATCH = 32;

    private final NativeShim shim;
    private final CommSegment umem;
    private final MemorySegment memory;
    private final MemorySegment segment;
    private final XskRing fill;
    private final XskRing rx;
    private final XskRing tx;
    private final XskRing completion;
    private final XdpInfo xdpInfo;
    private final int chunk;
    private final long txBase;
    private final long txEnd;
    private final int maxPdu;
    private final int ethertype;
    /** Destination, source, EtherType: the first 14 bytes of every frame sent. */
    private final MemorySegment ethernetHeader = MemorySegment.ofArray(new byte[NicShim.UNET_ETH_HEADER_SIZE]);
    private final byte[] ownMac;

    /** Per channel: its transmit cell header (VPI, VCI), or -1 while closed. */
    private final int[] txHeader = new int[MAX_CHANNELS];
    /** Per channel: its receive VPI and VCI. */
    private final int[] rxVpi = new int[MAX_CHANNELS];
    private final int[] rxVci = new int[MAX_CHANNELS];
    /** Per VCI: the channel that receives on it, or -1. */
    private final byte[] channelOfVci = new byte[VCI_TABLE_ENTRIES];

    /**
     * Per chunk of the segment: the view {@link #inlineBytes} hands out for a short message received in it (made when
     * the chunk is first posted; {@code null} for a chunk never posted).
     */
    private final MemorySegment[] inlineViews;
    private int receiveBufferSize;
    /** Told when a wait in {@link #await} ends with a message: the only thread the socket wakes. */
    private volatile Runnable readiness;

    private final long[] txFree;
    private int txFreeCount;
    private int txProducer;
    private int completionConsumer;
    /** Chunks COMPLETION returned that no PENDING status has been matched with yet. */
    private int kernelCompleted;
    private final int[] statuses;
    private int statusHead;
    private int statusCount;
    private final long[] sendCompletions = new long[TX_STATUS_DMA_ERROR + 1];

    private int fillProducer;
    private int rxConsumer;
    /** RX's producer index as last read: entries below it are there without reading the kernel's index again. */
    private int rxProducerSeen;
    /** RX entries consumed (and their chunks put on FILL) that the kernel has not been shown yet. */
    private int unpublished;
    private int postedChunks;
    private long held = QueueCode.EMPTY;
    private int heldLength;
    private int heldChannel;
    private long heldPayload;
    private int heldError;
    private long received;
    private long rxDropFilter;
    private long rxDropBadFrame;
    private long rxDropNoChannel;
    private boolean closed;
    /** Sends per kick of the kernel's transmit ({@link #kickBatch(int)}); 1: every send kicks. */
    private int kickBatch = 1;
    /** Frames on TX the kernel has not been kicked for yet. */
    private int unkicked;
    private long kicks;

    private XskUnetEndpoint(NativeShim shim, CommSegment umem, long segmentBytes, ShimOptions options) {
        this.shim = shim;
        this.umem = umem;
        this.memory = umem.segment();
        this.segment = memory.asSlice(0, segmentBytes);
        List<XskRing> rings = shim.xskRings();
        this.fill = rings.get(0);
        this.rx = rings.get(1);
        this.tx = rings.get(2);
        this.completion = rings.get(3);
        this.xdpInfo = shim.xdpInfo();
        this.chunk = options.resolvedFrameSize();
        this.txBase = segmentBytes;
        this.txEnd = segmentBytes + (long) options.resolvedTxRingFrames() * chunk;
        ShimInterfaceInfo info = shim.info();
        this.maxPdu = Math.min(info.mtu() - NicShim.UNET_TAG_SIZE, chunk - FRAME_OVERHEAD);
        this.ethertype = options.unetEthertype() == 0 ? NicShim.UNET_ETHERTYPE_DEFAULT : options.unetEthertype();
        this.ownMac = info.mac();
        byte[] peer = options.unetPeerMac();
        boolean broadcast = Arrays.equals(peer, new byte[6]);
        for (int i = 0; i < 6; i++) {
            ethernetHeader.set(ValueLayout.JAVA_BYTE, i, broadcast ? (byte) 0xFF : peer[i]);
            ethernetHeader.set(ValueLayout.JAVA_BYTE, 6 + i, ownMac[i]);
        }
        ethernetHeader.set(SHORT_BE, 12, (short) ethertype);
        Arrays.fill(txHeader, -1);
        Arrays.fill(channelOfVci, (byte) -1);
        this.txFree = new long[options.resolvedTxRingFrames()];
        for (long c = txBase; c < txEnd; c += chunk) {
            txFree[txFreeCount++] = c;
        }
        this.statuses = new int[tx.size()];
        this.inlineViews = new MemorySegment[(int) (segmentBytes / chunk)];
    }

    /**
     * Opens an AF_XDP socket on {@code ifname} with no card ({@code NICSHIM_CARD_XSK_DIRECT}) and makes it this
     * endpoint. The UMEM is a comm segment of {@code segmentBytes} (rounded up to whole chunks) for the process
     * followed by the transmit chunks.
     *
     * @param options     AF_XDP options ({@link ShimOptions#afXdp()}): ring sizes, chunk, queue, modes, busy poll,
     *                    and U-Net over Ethernet's EtherType and peer MAC (all zero: broadcast)
     * @param segmentBytes the process's part of the segment: at least the RX ring's worth of chunks (every receive
     *                    buffer the FILL ring can hold)
     * @param namespace   where the interface lives ({@link ShimCard.NamespaceRunner#CURRENT}: the caller's own);
     *                    needed only while the socket opens
     * @throws IllegalArgumentException when the options are not AF_XDP or the segment is too small
     * @throws ShimException            when the library refuses (no interface, no privilege, XDP busy, ...)
     */
    public static XskUnetEndpoint open(String ifname, ShimOptions options, long segmentBytes,
                                       ShimCard.NamespaceRunner namespace) {
        if (!options.afXdp()) {
            throw new IllegalArgumentException("options: a direct-access U-Net endpoint needs the AF_XDP backend");
        }
        int chunk = options.resolvedFrameSize();
        long minimum = (long) options.resolvedRxRingFrames() * chunk;
        if (segmentBytes < minimum) {
            throw new IllegalArgumentException("segmentBytes " + segmentBytes + " is below the RX ring's "
                + options.resolvedRxRingFrames() + " chunks of " + chunk + " B (" + minimum + " B)");
        }
        long own = (segmentBytes + chunk - 1) / chunk * chunk;
        long umemBytes = own + (long) options.resolvedTxRingFrames() * chunk;
        NativeShim shim = namespace.run(() -> NativeShim.open(ifname, NicShim.CARD_XSK_DIRECT, options));
        CommSegment umem = null;
        try {
            umem = CommSegment.allocate("xsk-unet " + ifname, umemBytes);
            shim.setUmem(umem.segment().asSlice(0, umemBytes));
            namespace.run(() -> {
                shim.start();
                return null;
            });
            return new XskUnetEndpoint(shim, umem, own, options);
        } catch (RuntimeException | Error e) {
            shim.close();
            if (umem != null) {
                umem.close();
            }
            throw e;
        }
    }

    // ------------------------------------------------------------------ channels (the owner's, as the kernel's)

    /**
     * Opens {@code channel}: messages sent on it carry the cell header (vpi, txVci); frames whose header has (vpi,
     * receiveVci) are delivered on it.
     *
     * @throws IllegalArgumentException when the channel is outside 0..63 or already open, a VCI is not a user VCI
     *                                  (32..1023), the VPI is outside 0..255, or receiveVci already receives on another
     *                                  channel
     */
    public void openChannel(int channel, int vpi, int txVci, int receiveVci) {
        checkChannel(channel);
        if (txHeader[channel] >= 0) {
            throw new IllegalArgumentException("channel " + channel + " is already open");
        }
        if (vpi < 0 || vpi > 0xFF) {
            throw new IllegalArgumentException("vpi " + vpi + " is outside 0..255");
        }
        for (int vci : new int[] {txVci, receiveVci}) {
            if (vci < VCI_FIRST_USER || vci >= VCI_TABLE_ENTRIES) {
                throw new IllegalArgumentException("VCI " + vci + " is not a user VCI (" + VCI_FIRST_USER + ".."
                    + (VCI_TABLE_ENTRIES - 1) + ")");
            }
        }
        if (channelOfVci[receiveVci] >= 0) {
            throw new IllegalArgumentException("receiveVci " + receiveVci + " already receives on channel "
                + channelOfVci[receiveVci]);
        }
        txHeader[channel] = vpi << HDR_VPI_SHIFT | txVci << HDR_VCI_SHIFT;
        rxVpi[channel] = vpi;
        rxVci[channel] = receiveVci;
        channelOfVci[receiveVci] = (byte) channel;
    }

    /** Closes {@code channel}: sends on it complete with {@code TX_STATUS_BAD_CHANNEL}, its frames are dropped. */
    public void closeChannel(int channel) {
        checkChannel(channel);
        if (txHeader[channel] >= 0) {
            txHeader[channel] = -1;
            channelOfVci[rxVci[channel]] = -1;
        }
    }

    @Override
    public boolean isChannelOpen(int channel) {
        return channel >= 0 && channel < MAX_CHANNELS && txHeader[channel] >= 0;
    }

    private static void checkChannel(int channel) {
        if (channel < 0 || channel >= MAX_CHANNELS) {
            throw new IllegalArgumentException("channel " + channel + " is outside 0.." + (MAX_CHANNELS - 1));
        }
    }

    // ------------------------------------------------------------------ Endpoint: send

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public int inlineMax() {
        return INLINE_MAX;
    }

    /** The longest PDU a send takes: the interface MTU less the tag, and what fits a chunk behind the header. */
    public int maxMessage() {
        return maxPdu;
    }

    @Override
    public boolean send(int channel, int offset, int length) {
        checkSend(channel, length, 0xFFFF);
        if (statusCount == statuses.length) {
            return false;
        }
        if (offset < 0 || (long) offset + length > segment.byteSize()) {
            return complete(TX_STATUS_SEG_BOUNDS);
        }
        return transmit(channel, segment, offset, length);
    }

    /**
     * Sends the message where it lies, without copying it: the {@value #FRAME_OVERHEAD} bytes in front of it become
     * the frame's Ethernet header and U-Net tag, and the TX descriptor points into the segment (the UMEM) itself. The
     * kernel reads the frame from there - on a copy-mode socket (veth, any driver without AF_XDP zero-copy) it still
     * copies it once into an skb, but this process copies nothing. As for every U-Net send, the bytes belong to the
     * network interface until the send's completion: {@code [offset - 22, offset + length)} must not change (nor be
     * a posted receive buffer) before {@link #pollSendCompletion} has returned this send's status.
     *
     * @return false when TX or the status FIFO is full (back-pressure); otherwise true, with the send's status to
     *         come: {@code SEG_BOUNDS} when the header room and the message are not inside one UMEM chunk of the
     *         segment, {@code BAD_CHANNEL}, {@code BAD_DESC} (length 0) or {@code TOO_LONG} as for {@link #send}
     */
    public boolean sendInPlace(int channel, int offset, int length) {
        checkSend(channel, length, 0xFFFF);
        if (statusCount == statuses.length) {
            return false;
        }
        long frame = (long) offset - FRAME_OVERHEAD;
        if (frame < 0 || (long) offset + length > segment.byteSize()
            || frame / chunk != ((long) offset + Math.max(length, 1) - 1) / chunk) {
            return complete(TX_STATUS_SEG_BOUNDS);
        }
        int header = txHeader[channel];
        if (header < 0) {
            return complete(TX_STATUS_BAD_CHANNEL);
        }
        if (length == AAL5_LENGTH_ABORT) {
            return complete(TX_STATUS_BAD_DESC);
        }
        if (length > maxPdu) {
            return complete(TX_STATUS_TOO_LONG);
        }
        if (txProducer - tx.consumer() == tx.size()) {
            kickIfBatched();
            return false;
        }
        writeHeader(frame, header, length);
        return publish(frame, length);
    }

    @Override
    public boolean sendInline(int channel, MemorySegment src, long srcOffset, int length) {
        checkSend(channel, length, INLINE_MAX);
        if (srcOffset < 0 || srcOffset + length > src.byteSize()) {
            throw new IndexOutOfBoundsException("[" + srcOffset + ", +" + length + ") is not inside the source of "
                + src.byteSize() + " bytes");
        }
        if (statusCount == statuses.length) {
            return false;
        }
        return transmit(channel, src, srcOffset, length);
    }

    private void checkSend(int channel, int length, int max) {
        checkOpen();
        checkChannel(channel);
        if (length < 0 || length > max) {
            throw new IllegalArgumentException("length " + length + " is outside 0.." + max);
        }
    }

    /** An error completion, in order with the sends before it (the caller checked the FIFO has room). */
    private boolean complete(int status) {
        statuses[(statusHead + statusCount) % statuses.length] = status;
        statusCount++;
        return true;
    }

    private boolean transmit(int channel, MemorySegment src, long srcOffset, int length) {
        int header = txHeader[channel];
        if (header < 0) {
            return complete(TX_STATUS_BAD_CHANNEL);
        }
        if (length == AAL5_LENGTH_ABORT) {
            return complete(TX_STATUS_BAD_DESC); // AAL5's length 0 means "abort": the card's firmware refuses it too
        }
        if (length > maxPdu) {
            return complete(TX_STATUS_TOO_LONG);
        }
        if (txFreeCount == 0) {
            reapCompletionRing();
        }
        if (txFreeCount == 0 || txProducer - tx.consumer() == tx.size()) {
            kickIfBatched(); // what waits for a kick frees chunks once the kernel has sent it
            return false; // every transmit chunk is in the kernel: back-pressure until completions come back
        }
        long frame = txFree[--txFreeCount];
        writeHeader(frame, header, length);
        MemorySegment.copy(src, srcOffset, memory, frame + FRAME_OVERHEAD, length);
        return publish(frame, length);
    }

    /** The Ethernet header and U-Net tag of a {@code length}-byte PDU at UMEM offset {@code frame}. */
    private void writeHeader(long frame, int header, int length) {
        MemorySegment.copy(ethernetHeader, 0, memory, frame, NicShim.UNET_ETH_HEADER_SIZE);
        long tag = frame + NicShim.UNET_ETH_HEADER_SIZE;
        memory.set(INT_BE, tag + NicShim.UNET_TAG_HEADER_OFFSET, header | PTI_LAST);
        memory.set(SHORT_BE, tag + NicShim.UNET_TAG_LENGTH_OFFSET, (short) length);
        memory.set(SHORT_BE, tag + NicShim.UNET_TAG_LENGTH_OFFSET + 2, (short) 0);
    }

    /** Puts the frame at {@code frame} on TX, records its PENDING status and kicks (or counts it for the batch). */
    private boolean publish(long frame, int length) {
        // The frame's bytes first, then the descriptor, then the producer index with release (XskRing).
        tx.putDescriptor(txProducer, frame, FRAME_OVERHEAD + length);
        txProducer++;
        tx.publishProducer(txProducer);
        complete(TX_STATUS_PENDING);
        if (++unkicked >= kickBatch) {
            kick();
        }
        return true;
    }

    /**
     * Kicks the kernel's transmit once per {@code sends} sends instead of after every one. In copy mode (veth, any
     * driver without AF_XDP zero-copy) the kernel takes TX entries only inside the kick's {@code sendto}, one skb each,
     * so a kick costs a system call whether it carries one frame or the whole ring; batching spreads that over
     * {@code sends} frames. Frames never wait for the batch to fill while the owner waits for anything: back-pressure
     * on send, {@link #poll}, {@link #await}, {@link #pollSendCompletion} and {@link #flush} kick whatever is waiting.
     *
     * @param sends 1 (the default: every send kicks) up to the TX ring's size
     * @throws IllegalArgumentException outside that range
     */
    public void kickBatch(int sends) {
        checkOpen();
        if (sends < 1 || sends > tx.size()) {
            throw new IllegalArgumentException("sends per kick must be 1.." + tx.size() + " (the TX ring), was "
                + sends);
        }
        kickBatch = sends;
        kickIfBatched();
    }

    /** Kicks the kernel for every frame still waiting for its batch to fill. */
    public void flush() {
        checkOpen();
        kickIfBatched();
    }

    /** Kernel transmit kicks made so far (system calls: one per send with a kick batch of 1). */
    public long kicks() {
        return kicks;
    }

    private void kickIfBatched() {
        if (unkicked != 0) {
            kick();
        }
    }

    private void kick() {
        unkicked = 0;
        kicks++;
        shim.kick(NicShim.KICK_TX);
    }

    /** Takes what COMPLETION returned: transmit chunks back on the free stack, one match each for a PENDING send. */
    private void reapCompletionRing() {
        int producer = completion.producer();
        if (producer == completionConsumer) {
            return;
        }
        while (completionConsumer != producer) {
            long address = completion.address(completionConsumer);
            long base = address - Long.remainderUnsigned(address, chunk);
            // Only our transmit chunks go back on the stack: a corrupted entry cannot make a receive chunk (or
            // memory outside the UMEM) a transmit buffer.
            if (base >= txBase && base < txEnd && txFreeCount < txFree.length) {
                txFree[txFreeCount++] = base;
            }
            completionConsumer++;
            kernelCompleted++;
        }
        completion.publishConsumer(completionConsumer);
    }

    @Override
    public int pollSendCompletion() {
        checkOpen();
        if (statusCount == 0) {
            return QueueCode.EMPTY;
        }
        int status = statuses[statusHead];
        if (status == TX_STATUS_PENDING) {
            if (kernelCompleted == 0) {
                kickIfBatched();
                reapCompletionRing();
            }
            if (kernelCompleted == 0) {
                return QueueCode.EMPTY;
            }
            kernelCompleted--;
            status = TX_STATUS_SENT;
        }
        statusHead = (statusHead + 1) % statuses.length;
        statusCount--;
        sendCompletions[status]++;
        return status;
    }

    @Override
    public int reapSends() {
        int n = 0;
        while (pollSendCompletion() >= 0) {
            n++;
        }
        return n;
    }

    @Override
    public int sendsInFlight() {
        return statusCount;
    }

    @Override
    public long sendCompletions(int status) {
        if (status < 0 || status >= sendCompletions.length) {
            throw new IllegalArgumentException("status " + status + " is not a TX_STATUS_* code");
        }
        return sendCompletions[status];
    }

    // ------------------------------------------------------------------ Endpoint: receive

    /**
     * Puts {@code count} receive chunks, {@code size} bytes each back to back from {@code offset}, on FILL. On this
     * endpoint a receive buffer is one whole UMEM chunk (the kernel writes a frame at chunk + 256).
     *
     * @return how many were posted: fewer when FILL holds its RX ring's worth already (back-pressure)
     * @throws IllegalArgumentException when {@code size} is not the chunk size, {@code offset} is not chunk-aligned,
     *                                  {@code count} is negative, or the chunks do not lie inside the segment
     */
    @Override
    public int postReceiveBuffers(long offset, int count, int size) {
        checkOpen();
        if (size != chunk) {
            throw new IllegalArgumentException("size " + size + ": a receive buffer is one UMEM chunk of " + chunk
                + " bytes on a direct-access endpoint");
        }
        if (offset < 0 || offset % chunk != 0) {
            throw new IllegalArgumentException("offset " + offset + " is not a multiple of the chunk size " + chunk);
        }
        if (count < 0 || offset > segment.byteSize() || count > (segment.byteSize() - offset) / chunk) {
            throw new IllegalArgumentException("count " + count + " chunks from offset " + offset
                + " do not lie inside the segment of " + segment.byteSize() + " bytes");
        }
        int n = Math.min(count, fill.size() - postedChunks);
        for (int i = 0; i < n; i++) {
            long at = offset + (long) i * chunk;
            int c = (int) (at / chunk);
            if (inlineViews[c] == null) { // setup: a chunk posted again reuses its view
                inlineViews[c] = memory.asSlice(at + receiveOffset(), INLINE_MAX);
            }
            fill.putAddress(fillProducer++, at);
        }
        if (n > 0) {
            receiveBufferSize = chunk;
        }
        if (n > 0) {
            fill.publishProducer(fillProducer);
        }
        postedChunks += n;
        return n;
    }

    @Override
    public long poll() {
        checkOpen();
        kickIfBatched();
        if (held >= 0) {
            return held;
        }
        if (rxConsumer == rxProducerSeen) {
            rxProducerSeen = rx.producer(); // the kernel's index only when what was seen is used up
        }
        while (rxConsumer != rxProducerSeen) {
            if (accept(rx.address(rxConsumer), rx.length(rxConsumer))) {
                held = rxConsumer & 0xFFFF_FFFFL;
                received++;
                return held;
            }
            consumeAndRefill();
        }
        if (unpublished != 0) {
            publishReceive(); // RX ran dry: the kernel gets every chunk back before anyone waits
        }
        return QueueCode.EMPTY;
    }

    /** Whether the frame in RX entry rxConsumer is a message for an open channel; sets the held fields if so. */
    private boolean accept(long address, int length) {
        if (address < 0 || address + length > segment.byteSize() || length < NicShim.UNET_ETH_HEADER_SIZE) {
            rxDropBadFrame++;
            return false;
        }
        int type = memory.get(SHORT_BE, address + 12) & 0xFFFF;
        if (type != ethertype || !forUs(address)) {
            rxDropFilter++;
            return false;
        }
        if (length < FRAME_OVERHEAD) {
            rxDropBadFrame++;
            return false;
        }
        long tag = address + NicShim.UNET_ETH_HEADER_SIZE;
        int header = memory.get(INT_BE, tag + NicShim.UNET_TAG_HEADER_OFFSET);
        int pdu = memory.get(SHORT_BE, tag + NicShim.UNET_TAG_LENGTH_OFFSET) & 0xFFFF;
        // Ethernet may pad: the tag's length, not the frame's, says where the PDU ends.
        if (pdu > length - FRAME_OVERHEAD || (header & PTI_NON_USER_BITS) != 0) {
            rxDropBadFrame++;
            return false;
        }
        int vci = (header & HDR_VCI_MASK) >>> HDR_VCI_SHIFT;
        int vpi = (header & HDR_VPI_MASK) >>> HDR_VPI_SHIFT;
        int channel = vci < VCI_TABLE_ENTRIES ? channelOfVci[vci] : -1;
        if (channel < 0 || rxVpi[channel] != vpi) {
            rxDropNoChannel++;
            return false;
        }
        heldChannel = channel;
        heldLength = pdu;
        heldPayload = address + FRAME_OVERHEAD;
        heldError = pdu == AAL5_LENGTH_ABORT ? RX_ERR_LENGTH : 0; // "abort": an error entry, as the card makes it
        return true;
    }

    /** Group addresses, or our own: what an Ethernet NIC (and the shim's card) accepts. */
    private boolean forUs(long address) {
        byte first = memory.get(ValueLayout.JAVA_BYTE, address);
        if ((first & 1) != 0) {
            return true;
        }
        for (int i = 0; i < 6; i++) {
            if (memory.get(ValueLayout.JAVA_BYTE, address + i) != ownMac[i]) {
                return false;
            }
        }
        return true;
    }

    /** Consumes RX entry rxConsumer and hands its chunk back to FILL (there is always room: see postReceiveBuffers). */
    private void consumeAndRefill() {
        long address = rx.address(rxConsumer);
        rxConsumer++;
        if (address >= 0 && address < segment.byteSize()) {
            fill.putAddress(fillProducer++, address - address % chunk);
        } else {
            postedChunks--; // not a chunk we posted: it cannot go back, and FILL has one slot more
        }
        if (++unpublished >= RX_PUBLISH_BATCH) {
            publishReceive();
        }
    }

    /**
     * Publishes the RX entries consumed and the FILL entries produced since the last time. Batched: each publish is a
     * store to a cache line the kernel's receive path reads, so a stream publishes once per {@link #RX_PUBLISH_BATCH}
     * frames, and {@link #poll} publishes whatever is left as soon as RX runs dry. Late publication costs nothing:
     * the kernel sees RX and FILL together hold no more than the posted chunks, so RX can never overflow for it.
     */
    private void publishReceive() {
        unpublished = 0;
        rx.publishConsumer(rxConsumer);
        fill.publishProducer(fillProducer);
    }

    @Override
    public long await(long timeout, TimeUnit unit) throws InterruptedException {
        long d = poll();
        if (d >= 0) {
            return d;
        }
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return QueueCode.EMPTY;
            }
            shim.poll(Math.min(left, AWAIT_SLICE_NANOS)); // ppoll on the socket until RX is not empty
            d = poll();
            if (d >= 0) {
                Runnable r = readiness;
                if (r != null) {
                    r.run(); // the socket woke this thread: the only readiness a direct-access endpoint has
                }
                return d;
            }
        }
    }

    private void checkHeld(long descriptor) {
        checkOpen();
        if (descriptor != held || held < 0) {
            throw new IllegalArgumentException("descriptor " + descriptor + " is not the one held ("
                + (held < 0 ? "none" : held) + ")");
        }
    }

    @Override
    public int length(long descriptor) {
        checkHeld(descriptor);
        return heldLength;
    }

    @Override
    public int channel(long descriptor) {
        checkHeld(descriptor);
        return heldChannel;
    }

    @Override
    public boolean isInline(long descriptor) {
        checkHeld(descriptor);
        return heldError == 0 && heldLength <= INLINE_MAX;
    }

    @Override
    public boolean isError(long descriptor) {
        checkHeld(descriptor);
        return heldError != 0;
    }

    @Override
    public int errorCode(long descriptor) {
        checkHeld(descriptor);
        return heldError;
    }

    @Override
    public int bufferCount(long descriptor) {
        return isError(descriptor) || isInline(descriptor) ? 0 : 1;
    }

    @Override
    public int bufferOffset(long descriptor, int i) {
        checkBuffer(descriptor, i);
        return (int) heldPayload;
    }

    @Override
    public int bufferLength(long descriptor, int i) {
        checkBuffer(descriptor, i);
        return heldLength;
    }

    private void checkBuffer(long descriptor, int i) {
        int n = bufferCount(descriptor);
        if (i < 0 || i >= n) {
            throw new IndexOutOfBoundsException("buffer " + i + " of a message with " + n);
        }
    }

    @Override
    public int copyTo(long descriptor, MemorySegment dst, long dstOffset) {
        checkHeld(descriptor);
        if (dstOffset < 0 || dstOffset + heldLength > dst.byteSize()) {
            throw new IndexOutOfBoundsException("the destination of " + dst.byteSize() + " bytes cannot take "
                + heldLength + " at " + dstOffset);
        }
        MemorySegment.copy(memory, heldPayload, dst, dstOffset, heldLength);
        return heldLength;
    }

    @Override
    public int copyRange(long descriptor, int from, MemorySegment dst, long dstOffset, int length) {
        checkHeld(descriptor);
        if (from < 0 || length < 0) {
            throw new IllegalArgumentException("range [" + from + ", +" + length + ") is negative");
        }
        int n = Math.max(0, Math.min(length, heldLength - from));
        if (dstOffset < 0 || dstOffset + n > dst.byteSize()) {
            throw new IndexOutOfBoundsException("the destination of " + dst.byteSize() + " bytes cannot take " + n
                + " at " + dstOffset);
        }
        MemorySegment.copy(memory, heldPayload + from, dst, dstOffset, n);
        return n;
    }

    /**
     * The short message where the kernel put it, behind the headers in its chunk. The kernel writes every frame at
     * {@code NICSHIM_XDP_RX_OFFSET} into its chunk (the UMEM headroom is 0), so the chunk's view made at post fits;
     * a frame found anywhere else would get a view of its own made here rather than a wrong one.
     */
    @Override
    public MemorySegment inlineBytes(long descriptor) {
        if (!isInline(descriptor)) {
            throw new IllegalArgumentException("descriptor " + descriptor + ": the message is not inline");
        }
        MemorySegment view = inlineViews[(int) (heldPayload / chunk)];
        if (view == null || view.address() - memory.address() != heldPayload) {
            view = memory.asSlice(heldPayload, INLINE_MAX);
        }
        return view;
    }

    @Override
    public void release(long descriptor) {
        checkHeld(descriptor);
        held = QueueCode.EMPTY;
        consumeAndRefill();
    }

    @Override
    public long received() {
        return received;
    }

    // ------------------------------------------------------------------ what a framing needs (Endpoint)

    @Override
    public boolean isLive() {
        return !closed;
    }

    /**
     * {@inheritDoc} This endpoint has no thread of its own and no card to signal: the kernel wakes only a thread
     * waiting on the socket, so the listener is called from {@link #await}, on the waiting thread, when its wait ended
     * with a message. A runner that parks until told would never be told: it waits in {@code await} instead.
     */
    @Override
    public void readinessListener(Runnable listener) {
        checkOpen();
        readiness = listener;
    }

    /** 0: no firmware serves these queues; the kernel's socket does not restart and forget them. */
    @Override
    public long restarts() {
        return 0;
    }

    /** The RX ring's entries. */
    @Override
    public int receiveQueueLength() {
        return rx.size();
    }

    /** Sends that always find a transmit chunk, a TX entry and a status slot: the smallest of the three. */
    @Override
    public int sendQueueLength() {
        return Math.min(txFree.length, Math.min(tx.size(), statuses.length));
    }

    /** FILL's entries. */
    @Override
    public int freeQueueLength() {
        return fill.size();
    }

    /** FILL's entries not holding a posted chunk. */
    @Override
    public int freeQueueRoom() {
        return fill.size() - postedChunks;
    }

    @Override
    public int receiveBufferSize() {
        return receiveBufferSize;
    }

    /**
     * One UMEM chunk, whatever the message: the kernel writes a whole frame into a chunk. A message fits when its
     * frame fits both the interface's MTU and a chunk behind the XDP headroom.
     */
    @Override
    public int receiveBufferSizeFor(int maxMessage) {
        int most = Math.min(maxPdu, chunk - receiveOffset());
        if (maxMessage < 1 || maxMessage > most) {
            throw new IllegalArgumentException("maxMessage must be in [1, " + most + "] (the interface MTU less the "
                + "U-Net tag, and a " + chunk + "-byte chunk less the XDP headroom and the frame's headers), was "
                + maxMessage);
        }
        return chunk;
    }

    /** The XDP headroom, then the Ethernet header and the U-Net tag. */
    @Override
    public int receiveOffset() {
        return NicShim.XDP_RX_OFFSET + FRAME_OVERHEAD;
    }

    // ------------------------------------------------------------------ counters, state, close

    /** Frames with another EtherType or another station's unicast address (the interface's other traffic). */
    public long rxDropFilter() {
        return rxDropFilter;
    }

    /** Runts, a tag whose length exceeds the frame, non-user PTI, or an RX entry outside the segment. */
    public long rxDropBadFrame() {
        return rxDropBadFrame;
    }

    /** U-Net frames on a (VPI, VCI) no open channel receives on. */
    public long rxDropNoChannel() {
        return rxDropNoChannel;
    }

    /** The modes the socket got (native/generic, copy/zero-copy) and the kernel's XDP_STATISTICS at open. */
    public XdpInfo xdpInfo() {
        return xdpInfo;
    }

    /** The kernel's XDP_STATISTICS now (rx_dropped, rx_ring_full: frames that found FILL empty or RX full). */
    public XdpInfo kernelStatistics() {
        return shim.xdpInfo();
    }

    public String interfaceName() {
        return shim.interfaceName();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("direct-access U-Net endpoint on " + shim.interfaceName() + " is closed");
        }
    }

    /** Detaches the program and closes the socket (the kernel unpins the UMEM), then frees the segment. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            shim.close();
        } finally {
            umem.close();
        }
    }

    @Override
    public String toString() {
        return "XskUnetEndpoint[" + shim.interfaceName() + ", " + xdpInfo.describe() + ", chunk " + chunk + "]";
    }
}
