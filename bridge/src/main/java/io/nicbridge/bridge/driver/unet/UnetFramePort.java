package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import io.nicbridge.bridge.port.PortCounters;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The card-independent {@link FramePort} over one U-Net endpoint and one channel: each frame is one AAL5 message.
 *
 * <pre>
 *  endpoint segment, from areaOffset (64-byte strides of maxFrameLength bytes)
 *  +---------------------+------------------------------+---------------------------+
 *  | txBuffers x TX buf  | rxBuffers x receive buffer    | rxHandles x RX staging    |
 *  |  (claim/commit)     |  (posted to the free queue)   |  (inline / multi-buffer)  |
 *  +---------------------+------------------------------+---------------------------+
 * </pre>
 *
 * <p><b>Send.</b> {@link #claim()} hands out a TX buffer whose previous send the card has completed and reserves a
 * send descriptor, so {@link #commit} never fails; frames of at most 40 bytes go inline in the descriptor (one cell,
 * no DMA, the buffer free at once). The send side is {@link UnetSendBuffers}, shared with {@link UnetLink}.
 *
 * <p><b>Receive.</b> A frame the card put into ONE free buffer is handed out in place (zero copy): the buffer is
 * kept out of the free queue until {@link #release}. A single-cell frame (inline in the descriptor) or a frame
 * spread over several buffers is copied into the handle's staging buffer. Either way the receive-queue entry goes
 * back to the card at {@link #poll()} time, so the application may hold up to {@code rxHandles} frames. Card receive
 * errors map to {@link FrameStatus}: CRC to {@code CRC_ERROR}, length to {@code LENGTH_ERROR}, no/too many buffers
 * to {@code OVERRUN}, DMA to {@code DMA_ERROR}; a frame longer than {@code maxFrameLength} is {@code TRUNCATED}.
 *
 * <p>{@link #close()} closes the channel through the kernel, so the card drops later frames (unknown VCI).
 */
public final class UnetFramePort implements FramePort {
    private static final int FREE = 0;
    private static final int HELD = 1;

    private final String name;
    private final UnetKernelDriver kernel;
    private final UnetEndpoint ep;
    private final int channel;
    private final int maxFrame;
    private final int stride;
    private final int rxBase;
    private final int rxBuffers;
    private final UnetSendBuffers tx;
    private final MemorySegment[] rxBufferSlices;
    private final MemorySegment[] rxStaging;
    private final int[] rxState;
    private final int[] rxFree;
    private int rxFreeCount;
    private final int[] rxLength;
    private final int[] rxStatus;
    /** For a zero-copy handle: the receive buffer index it holds; -1 for a staging handle. */
    private final int[] rxHeldBuffer;
    private final PortCounters counters = new PortCounters();
    private boolean closed;

    /**
     * @param areaOffset 64-byte aligned offset in the endpoint's segment where the port lays out its buffers
     * @param maxFrame   largest frame (and every buffer's size), at most 65535
     */
    public UnetFramePort(String name, UnetKernelDriver kernel, UnetEndpoint endpoint, int channel, long areaOffset,
                         int maxFrame, int txBuffers, int rxBuffers, int rxHandles) {
        this.name = Objects.requireNonNull(name, "name");
        this.kernel = Objects.requireNonNull(kernel, "kernel");
        this.ep = Objects.requireNonNull(endpoint, "endpoint");
        if (!endpoint.isChannelOpen(channel)) {
            throw new IllegalArgumentException(name + ": channel " + channel + " is not open on endpoint " + endpoint.id());
        }
        if (maxFrame <= 0 || maxFrame > MAX_PDU || txBuffers <= 0 || rxBuffers <= 0 || rxBuffers > FQ_LEN
                || rxHandles <= 0) {
            throw new IllegalArgumentException(name + ": need 0 < maxFrame <= " + MAX_PDU
                    + ", txBuffers > 0, 0 < rxBuffers <= " + FQ_LEN + ", rxHandles > 0 (were " + maxFrame + ", "
                    + txBuffers + ", " + rxBuffers + ", " + rxHandles + ")");
        }
        this.channel = channel;
        this.maxFrame = maxFrame;
        this.stride = (maxFrame + FQ_BUF_ALIGN - 1) & -FQ_BUF_ALIGN;
        long need = (long) stride * (txBuffers + rxBuffers + rxHandles);
        MemorySegment seg = endpoint.segment();
        if (areaOffset < 0 || (areaOffset & (FQ_BUF_ALIGN - 1)) != 0 || areaOffset + need > seg.byteSize()) {
            throw new IllegalArgumentException(name + ": " + need + " bytes of buffers at offset " + areaOffset
                    + " do not fit the " + seg.byteSize() + "-byte segment (64-byte aligned)");
        }
        this.rxBase = (int) areaOffset + stride * txBuffers;
        this.rxBuffers = rxBuffers;
        int stagingBase = rxBase + stride * rxBuffers;
        this.tx = new UnetSendBuffers(name, endpoint, counters, (int) areaOffset, stride, txBuffers, maxFrame);
        this.rxBufferSlices = new MemorySegment[rxBuffers];
        for (int i = 0; i < rxBuffers; i++) {
            rxBufferSlices[i] = seg.asSlice(rxBase + (long) stride * i, maxFrame);
        }
        this.rxStaging = new MemorySegment[rxHandles];
        this.rxState = new int[rxHandles];
        this.rxFree = new int[rxHandles];
        this.rxLength = new int[rxHandles];
        this.rxStatus = new int[rxHandles];
        this.rxHeldBuffer = new int[rxHandles];
        for (int i = 0; i < rxHandles; i++) {
            rxStaging[i] = seg.asSlice(stagingBase + (long) stride * i, maxFrame);
            rxFree[rxFreeCount++] = rxHandles - 1 - i;
        }
        int posted = endpoint.postReceiveBuffers(rxBase, rxBuffers, maxFrame);
        if (posted != rxBuffers) {
            throw new IllegalStateException(name + ": the free queue took only " + posted + " of " + rxBuffers + " buffers");
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int maxFrameLength() {
        return maxFrame;
    }

    public UnetEndpoint endpoint() {
        return ep;
    }

    // ------------------------------------------------------------------ send

    @Override
    public int claim() {
        checkOpen();
        int h = tx.claim();
        if (h == NONE) {
            counters.recordTxBackPressure();
        }
        return h;
    }

    @Override
    public MemorySegment txBuffer(int handle) {
        return tx.buffer(handle);
    }

    @Override
    public void commit(int handle, int length) {
        tx.check(handle);
        if (length < 1 || length > maxFrame) {
            throw new IllegalArgumentException(name + ": frame length must be 1.." + maxFrame + ", was " + length);
        }
        tx.commit(handle, channel, length);
        counters.recordTx(length);
    }

    @Override
    public void abort(int handle) {
        tx.abort(handle);
    }

    // ------------------------------------------------------------------ receive

    @Override
    public int poll() {
        checkOpen();
        tx.countRestarts();
        if (rxFreeCount == 0) {
            return NONE; // the application holds every handle: it is the back-pressure
        }
        long d = ep.poll();
        return d < 0 ? NONE : take(d);
    }

    @Override
    public int await(long timeout, TimeUnit unit) throws InterruptedException {
        checkOpen();
        tx.countRestarts();
        if (rxFreeCount == 0) {
            return NONE;
        }
        long d = ep.await(timeout, unit);
        tx.countRestarts();
        return d < 0 ? NONE : take(d);
    }

    private int take(long d) {
        int h = rxFree[--rxFreeCount];
        rxState[h] = HELD;
        int length = ep.length(d);
        int status = FrameStatus.OK;
        if (ep.isError(d)) {
            status = switch (ep.errorCode(d)) {
                case RX_ERR_CRC -> FrameStatus.CRC_ERROR;
                case RX_ERR_LENGTH -> FrameStatus.LENGTH_ERROR;
                case RX_ERR_DMA -> FrameStatus.DMA_ERROR;
                default -> FrameStatus.OVERRUN;
            };
        }
        int buffer = -1;
        if (status == FrameStatus.OK && !ep.isInline(d) && ep.bufferCount(d) == 1 && length <= maxFrame) {
            long off = Integer.toUnsignedLong(ep.bufferOffset(d, 0)) - rxBase;
            if (off >= 0 && off % stride == 0 && off / stride < rxBuffers) {
                buffer = (int) (off / stride);
            }
        }
        if (buffer >= 0) {
            rxHeldBuffer[h] = buffer; // zero copy: the frame stays in its receive buffer until release()
            ep.releaseKeepBuffers(d);
        } else {
            rxHeldBuffer[h] = -1;
            if (length > maxFrame) {
                status |= FrameStatus.TRUNCATED;
            }
            length = ep.copyRange(d, 0, rxStaging[h], 0, Math.min(length, maxFrame));
            ep.release(d);
        }
        rxLength[h] = length;
        rxStatus[h] = status;
        if (status == FrameStatus.OK) {
            counters.recordRx(length);
        } else {
            counters.recordRxError();
        }
        return h;
    }

    @Override
    public MemorySegment rxBuffer(int handle) {
        checkRx(handle);
        int b = rxHeldBuffer[handle];
        return b >= 0 ? rxBufferSlices[b] : rxStaging[handle];
    }

    @Override
    public int rxLength(int handle) {
        return rxLength[checkRx(handle)];
    }

    @Override
    public int rxStatus(int handle) {
        return rxStatus[checkRx(handle)];
    }

    @Override
    public void release(int handle) {
        checkRx(handle);
        int b = rxHeldBuffer[handle];
        if (b >= 0) {
            ep.postReceiveBuffers(rxBase + (long) stride * b, 1, maxFrame);
        }
        rxState[handle] = FREE;
        rxFree[rxFreeCount++] = handle;
    }

    private int checkRx(int handle) {
        if (handle < 0 || handle >= rxState.length || rxState[handle] != HELD) {
            throw new IllegalStateException(name + ": RX handle " + handle + " is not held");
        }
        return handle;
    }

    @Override
    public PortCounters counters() {
        return counters;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(name + ": port is closed");
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (ep.isLive() && ep.isChannelOpen(channel)) {
                kernel.closeChannel(ep, channel);
            }
        }
    }
}
