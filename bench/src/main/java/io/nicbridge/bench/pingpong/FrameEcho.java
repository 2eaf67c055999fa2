package io.nicbridge.bench.pingpong;

import static io.nicbridge.contract.Dec21140.ETH_ADDR_LEN;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.bridge.port.FrameStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * The echo node of a two-host ping-pong: every good ping-pong frame (EtherType 0x88B5) addressed to this station is
 * sent back to its source address, byte for byte, with the two addresses swapped. Anything else the filter lets
 * through on a real network (broadcast ARP, other protocols, damaged frames) is counted and dropped, never echoed,
 * so the node adds nothing to a shared segment but replies.
 * <pre>
 *   in:  | dst = us | src = peer | 88B5 | seq | ... |      out: | dst = peer | src = us | 88B5 | seq | ... |
 * </pre>
 * Runs on the calling thread until {@code limit} frames were echoed or the thread is interrupted (Ctrl-C in the
 * CLI); it allocates nothing per frame.
 */
public final class FrameEcho {
    /** How often the loop looks at its stop conditions while no frame arrives. */
    static final long WAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final ValueLayout.OfShort TYPE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final FramePort port;
    private final long ownMac;
    private final Runnable txProgress;
    private final FrameWait wait;
    /** The echo thread's back-off while no TX buffer is free: spin 31, then park 10 us; made once, reused. */
    private final IdleStrategy claimIdle = new BackoffIdle(31, 0, 10_000L, 10_000L);
    private long echoed;
    private long ignored;
    private long backPressure;

    /**
     * @param txProgress run when no TX buffer is free (an inline card's progress hook), or null
     * @param wait       how to wait for the next frame
     */
    public FrameEcho(FramePort port, long ownMac, Runnable txProgress, FrameWait wait) {
        this.port = port;
        this.wait = wait;
        this.ownMac = ownMac;
        this.txProgress = txProgress;
    }

    /**
     * Echoes until {@code limit} frames went back (0: no limit) or the thread is interrupted.
     *
     * @return true when the limit was reached, false when interrupted
     * @throws IllegalStateException when no TX buffer frees up within {@link PingPongLoops#FRAME_TIMEOUT_NANOS}
     */
    public boolean run(long limit) {
        try {
            while (limit == 0 || echoed < limit) {
                int h = wait.next(port, WAIT_SLICE_NANOS);
                if (h == FramePort.NONE) {
                    if (Thread.currentThread().isInterrupted()) {
                        return false;
                    }
                    continue;
                }
                try {
                    echo(h);
                } finally {
                    port.release(h);
                }
            }
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }

    private void echo(int h) throws InterruptedException {
        MemorySegment in = port.rxBuffer(h);
        int length = port.rxLength(h);
        if (port.rxStatus(h) != FrameStatus.OK || length < PingPongFrames.MIN_SIZE
            || (in.get(TYPE, 2L * ETH_ADDR_LEN) & 0xFFFF) != PingPongFrames.ETHERTYPE
            || MacAddress.read(in, 0) != ownMac) {
            ignored++;
            return;
        }
        long peer = MacAddress.read(in, ETH_ADDR_LEN);
        int t = claim();
        MemorySegment out = port.txBuffer(t);
        MemorySegment.copy(in, 0, out, 0, length);
        MacAddress.write(peer, out, 0);
        MacAddress.write(ownMac, out, ETH_ADDR_LEN);
        port.commit(t, length);
        echoed++;
    }

    private int claim() throws InterruptedException {
        long deadline = 0;
        claimIdle.reset();
        for (;;) {
            int t = port.claim();
            if (t != FramePort.NONE) {
                return t;
            }
            backPressure++;
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + PingPongLoops.FRAME_TIMEOUT_NANOS;
            } else if (now - deadline > 0) {
                throw new IllegalStateException(port.name() + ": no TX buffer freed within "
                    + PingPongLoops.FRAME_TIMEOUT_NANOS / 1_000_000 + " ms (" + port.counters() + ")");
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            if (txProgress != null) {
                txProgress.run();
            }
            claimIdle.idle();
        }
    }

    /** @return frames sent back */
    public long echoed() {
        return echoed;
    }

    /** @return frames received and not echoed (not ping-pong frames for this station, or damaged) */
    public long ignored() {
        return ignored;
    }

    /** @return times no TX buffer was free for an echo */
    public long backPressure() {
        return backPressure;
    }
}
