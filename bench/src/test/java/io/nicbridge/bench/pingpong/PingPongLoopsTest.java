package io.nicbridge.bench.pingpong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.idle.BusySpinIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.LoopbackFramePort;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The client loop and the echo node on an in-memory wire that also carries other protocols' frames. */
class PingPongLoopsTest {
    private static final int MTU = 1514;
    private static final int BUFFERS = 16;
    private static final long MAC_A = 0x02_00_00_00_00_01L;
    private static final long MAC_B = 0x02_00_00_00_00_02L;
    private static final ValueLayout.OfShort TYPE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Sends a 60-byte broadcast ARP-typed frame, as a kernel's ARP would put on a real link. */
    private static void sendArp(FramePort port, long src) {
        int t;
        IdleStrategy idle = new BusySpinIdle();
        while ((t = port.claim()) == FramePort.NONE) {
            idle.idle();
        }
        MemorySegment b = port.txBuffer(t);
        MacAddress.write(MacAddress.BROADCAST.value(), b, 0);
        MacAddress.write(src, b, 6);
        b.set(TYPE, 12, (short) 0x0806);
        port.commit(t, 60);
    }

    @Test
    void theClientSkipsOtherProtocolsAndTheEchoIgnoresThem() throws Exception {
        try (CommSegment comm = CommSegment.allocate("pp", LoopbackFramePort.requiredBytes(BUFFERS, MTU));
             LoopbackFramePort.Pair pair = LoopbackFramePort.pair("pp", comm, BUFFERS, MTU)) {
            FramePort a = pair.a();
            FramePort b = pair.b();
            int rounds = 500;
            // Node B: an ARP frame towards A before every echo, so A meets one in front of each reply.
            AtomicLong echoed = new AtomicLong();
            Thread echo = Thread.ofPlatform().daemon().start(() -> {
                try {
                    for (int i = 0; i < rounds + 1; i++) { // + the probe
                        int h = b.await(5, TimeUnit.SECONDS);
                        if (h == FramePort.NONE) {
                            return;
                        }
                        MemorySegment in = b.rxBuffer(h);
                        int len = b.rxLength(h);
                        sendArp(b, MAC_B);
                        int t;
                        IdleStrategy idle = new BusySpinIdle();
                        while ((t = b.claim()) == FramePort.NONE) {
                            idle.idle();
                        }
                        MemorySegment out = b.txBuffer(t);
                        MemorySegment.copy(in, 0, out, 0, len);
                        MacAddress.write(MAC_A, out, 0);
                        MacAddress.write(MAC_B, out, 6);
                        b.commit(t, len);
                        b.release(h);
                        echoed.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(PingPongLoops.probe(a, MAC_A, MAC_B, TimeUnit.SECONDS.toNanos(5)), "the probe was answered");
            Histogram h = RttSummary.newHistogram();
            PingPongLoops.client(a, new FrameWait(TimeUnit.MICROSECONDS.toNanos(2), null), MAC_A, MAC_B, 64, 100,
                rounds - 100, h, new Progress("pp", rounds, new PrintStream(OutputStream.nullOutputStream())));
            echo.join(5_000);
            assertEquals(rounds - 100, h.getTotalCount());
            assertEquals(rounds + 1, echoed.get());

            // The echo node on A's side now: an ARP frame and a ping-pong frame for someone else are not echoed.
            sendArp(b, MAC_B);
            PingPongFrames.send(b, 0x02_00_00_00_00_09L, MAC_B, 7, 64);
            PingPongFrames.send(b, MAC_A, MAC_B, 8, 64);
            FrameEcho node = new FrameEcho(a, MAC_A, null, FrameWait.BLOCK);
            assertTrue(node.run(1), "the limit of one echo was reached");
            assertEquals(1, node.echoed());
            assertEquals(2, node.ignored());
            int back = b.await(5, TimeUnit.SECONDS);
            assertTrue(back != FramePort.NONE, "the echo came back");
            assertEquals(MAC_B, MacAddress.read(b.rxBuffer(back), 0));
            assertEquals(MAC_A, MacAddress.read(b.rxBuffer(back), 6));
            assertEquals(8, PingPongFrames.check(b, back, 64));
            b.release(back);
        }
    }
}
