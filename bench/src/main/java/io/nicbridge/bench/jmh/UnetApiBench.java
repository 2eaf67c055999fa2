package io.nicbridge.bench.jmh;

import static io.nicbridge.contract.Sba200Unet.RX_INLINE;
import static io.nicbridge.contract.Sba200Unet.SQ_LEN;
import static io.nicbridge.contract.Sba200Unet.TX_STATUS_SENT;

import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.queue.UnetNiFreeQueue;
import io.nicbridge.bridge.queue.UnetNiReceiveQueue;
import io.nicbridge.bridge.queue.UnetNiSendQueue;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.testbed.UnetApiTestbed;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Per-message costs of the bridge's U-Net API ({@code io.nicbridge.bridge.driver.unet}).
 *
 * <p>API only - the card's side is played by the bridge's NI-side queue views ({@link UnetNiSendQueue},
 * {@link UnetNiReceiveQueue}, {@link UnetNiFreeQueue}) on the same endpoint page and receive queue, on the
 * benchmark thread, so the time is the API's plus those views' few loads and stores (the emulated card's engine is
 * virtual and never run after set-up, so it does not touch the queues):
 * <ul>
 *   <li>{@code sendDescriptorPush}: {@link UnetEndpoint#sendInline} of 32 bytes (claim, copy into the descriptor,
 *   commit with release, {@code sq_prod} doorbell through the card's register hook), the NI view completing it, and
 *   {@link UnetEndpoint#reapSends}; per descriptor, 32 per invocation (a full send queue);</li>
 *   <li>{@code inlineReceive}: the NI view publishes a 32-byte single-cell descriptor; the API polls it, copies
 *   the 32 bytes out and releases it;</li>
 *   <li>{@code bufferReceive}: the NI view pops a free buffer, writes 1024 bytes into it and publishes a one-buffer
 *   descriptor; the API polls, copies the 1024 bytes out, releases (re-posting the buffer).</li>
 * </ul>
 * End to end on the inline engine - the emulated SBA-200s and switch run on the benchmark thread:
 * {@code endToEndInline32} and {@code endToEndBuffer1024} send from endpoint A, through A's card (AAL5 framing,
 * CRC-32, cells, HEC), the switch, B's card (reassembly, CRC check, DMA), to B's poll / copy / release.
 * Nothing allocates per message (check with {@code -prof gc}).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class UnetApiBench {
    private static final int RX_AREA = 128 * 1024;
    private static final int RX_BUFFER = 1024;

    private UnetApiTestbed apiBed;
    private UnetEndpoint ep;
    private UnetNiSendQueue niSend;
    private UnetNiReceiveQueue niReceive;
    private UnetNiFreeQueue niFree;
    private UnetApiTestbed inlineBed;
    private UnetEndpoint a;
    private UnetEndpoint b;
    private final MemorySegment src = MemorySegment.ofArray(new byte[RX_BUFFER]);
    private final MemorySegment dst = MemorySegment.ofArray(new byte[RX_BUFFER]);

    @Setup(Level.Trial)
    public void setUp() {
        apiBed = UnetApiTestbed.builder(EngineMode.VIRTUAL).build();
        ep = apiBed.a();
        ep.postReceiveBuffers(RX_AREA, 64, RX_BUFFER);
        niSend = new UnetNiSendQueue(ep.page());
        niReceive = new UnetNiReceiveQueue(ep.receiveQueueSegment(), 0, ep.receiveQueueLength(), ep.page());
        niFree = new UnetNiFreeQueue(ep.page());
        for (int i = 0; i < RX_BUFFER; i++) {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        inlineBed = UnetApiTestbed.builder(EngineMode.INLINE).build();
        a = inlineBed.a();
        b = inlineBed.b();
        b.postReceiveBuffers(RX_AREA, 64, RX_BUFFER);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        apiBed.close();
        inlineBed.close();
    }

    @Benchmark
    @OperationsPerInvocation(SQ_LEN)
    public int sendDescriptorPush() {
        for (int i = 0; i < SQ_LEN; i++) {
            if (!ep.sendInline(UnetApiTestbed.CHANNEL, src, 0, 32)) {
                throw new IllegalStateException("send queue full");
            }
        }
        for (long d = niSend.poll(); d >= 0; d = niSend.poll()) {
            niSend.complete(d, TX_STATUS_SENT);
        }
        return ep.reapSends();
    }

    @Benchmark
    public int inlineReceive() {
        long n = niReceive.claim();
        niReceive.putInline(n, src, 0, 32);
        niReceive.publish(n, 32, UnetApiTestbed.CHANNEL, 0, RX_INLINE);
        long d = ep.poll();
        int len = ep.copyTo(d, dst, 0);
        ep.release(d);
        return len;
    }

    @Benchmark
    public int bufferReceive() {
        if (niFree.poll() < 0) {
            throw new IllegalStateException("no free buffer");
        }
        int off = niFree.offset();
        MemorySegment.copy(src, 0, ep.segment(), off, RX_BUFFER); // the card's DMA of the payload
        long n = niReceive.claim();
        niReceive.putBuffer(n, 0, off, RX_BUFFER);
        niReceive.publish(n, RX_BUFFER, UnetApiTestbed.CHANNEL, 1, 0);
        long d = ep.poll();
        int len = ep.copyTo(d, dst, 0);
        ep.release(d);
        return len;
    }

    @Benchmark
    public int endToEndInline32() {
        a.sendInline(UnetApiTestbed.CHANNEL, src, 0, 32);
        return take();
    }

    @Benchmark
    public int endToEndBuffer1024() {
        MemorySegment.copy(src, 0, a.segment(), 0, RX_BUFFER); // the application's one copy into the segment
        a.send(UnetApiTestbed.CHANNEL, 0, RX_BUFFER);
        return take();
    }

    private int take() {
        long d = b.poll();
        if (d < 0) {
            throw new IllegalStateException("inline delivery missed a message");
        }
        int len = b.copyTo(d, dst, 0);
        b.release(d);
        a.reapSends();
        return len;
    }
}
