package io.nicbridge.bench.medusa;

import io.nicbridge.bridge.driver.medusa.MedusaBufferState;
import io.nicbridge.bridge.driver.medusa.MedusaDriver;
import io.nicbridge.bridge.port.FramePort;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The careful-protocols paper's throughput test (section 6.1) in virtual time: "sending messages from node 1 to
 * the last node P - 1 while going through intermediate nodes 2 to P - 2 ... Throughput was calculated by dividing
 * the total amount of payload sent by each node by the execution time of the test. This was then normalized by
 * multiplying by the number of senders ... Thus, the numbers reported are the total throughput as seen by the
 * ring."
 *
 * <p>Here node 0 originates {@code messages} messages (single-copy PIO sends), nodes 1..P-2 pass each one on in
 * place, node P-1 consumes it ("no processing": the data is not touched). Flow control is the careful protocol's
 * static window (section 5.3): each receiver grants its upstream neighbour a window of R - 4 frames (R = receive
 * buffers; 4 kept for window updates, "blocking data transmissions if the window has a size of less than two
 * frames" in spirit) and sends a small window-update frame upstream whenever half a window of its buffers has gone
 * back into the FREE FIFO. Nothing is ever dropped, so no retransmission exists.
 */
final class RingThroughput {
    private final VirtualTimeBase time;
    private final List<MedusaDriver> nodes;
    private final RingMessages messages = new RingMessages();
    private final MemorySegment empty = MemorySegment.ofArray(new byte[0]);
    private final int window;
    private final int threshold;
    private final int[] credit;
    private final long[] dataFreed;
    private final long[] granted;
    private final long[] forwardsIssued;
    private final int[][] pending;
    private final int[] pendingHead;
    private final int[] pendingSize;
    private MemorySegment payload;
    private int words;
    private int total;
    private int sent;
    private int consumed;
    private long lastArrival;
    private RuntimeException failure;

    RingThroughput(VirtualTimeBase time, List<MedusaDriver> nodes) {
        if (nodes.size() < 2) {
            throw new IllegalArgumentException("the throughput test needs at least 2 nodes, got " + nodes.size());
        }
        this.time = time;
        this.nodes = nodes;
        int r = nodes.get(0).config().receiveBuffers();
        this.window = r - 4;
        if (window < 2) {
            throw new IllegalArgumentException("receive buffers " + r + " leave a window below 2 frames");
        }
        this.threshold = Math.max(1, window / 2);
        int p = nodes.size();
        credit = new int[p];
        dataFreed = new long[p];
        granted = new long[p];
        forwardsIssued = new long[p];
        pending = new int[p][128];
        pendingHead = new int[p];
        pendingSize = new int[p];
    }

    /** Result of one run. */
    record Result(int words, int messages, int senders, long elapsedNanos, long payloadBitsPerSender) {
        double megabitsPerSecond() {
            return (double) payloadBitsPerSender * senders * 1000.0 / elapsedNanos;
        }
    }

    Result run(int words, int messages) {
        this.words = words;
        this.total = messages;
        this.sent = 0;
        this.consumed = 0;
        this.failure = null;
        // Before the listeners: installing one runs it at once when the line is already high.
        payload = MemorySegment.ofArray(new byte[4 * words]);
        int p = nodes.size();
        for (int i = 0; i < p; i++) {
            credit[i] = window; // what node i may send to node i + 1
            dataFreed[i] = 0;
            granted[i] = 0;
            forwardsIssued[i] = 0;
            pendingHead[i] = 0;
            pendingSize[i] = 0;
            int index = i;
            nodes.get(i).onInterrupt((d, isr) -> onInterrupt(index, d));
        }
        long start = time.nanoTime();
        pump(0, nodes.get(0));
        time.runUntilIdle();
        for (MedusaDriver d : nodes) {
            d.onInterrupt(null);
        }
        if (failure != null) {
            throw failure;
        }
        if (consumed != total) {
            throw new IllegalStateException("the ring went idle after " + consumed + " of " + total
                + " messages; node 0 " + nodes.get(0).statistics() + "; last node "
                + nodes.get(p - 1).statistics());
        }
        return new Result(words, messages, p - 1, lastArrival - start, 32L * words * messages);
    }

    private void onInterrupt(int index, MedusaDriver d) {
        try {
            d.reclaim();
            for (int h = d.poll(); h != FramePort.NONE; h = d.poll()) {
                byte type = RingMessages.type(d, h);
                if (type == RingMessages.CREDIT) {
                    credit[index] += RingMessages.credit(d, h);
                    d.release(h);
                } else if (index == nodes.size() - 1) {
                    consumed++;
                    lastArrival = time.nanoTime();
                    d.release(h);
                    dataFreed[index]++;
                } else {
                    pending[index][(pendingHead[index] + pendingSize[index]++) & 127] = h;
                }
            }
            if (index == 0) {
                pump(0, d);
            } else if (index < nodes.size() - 1) {
                relay(index, d);
            }
            grant(index, d);
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            }
        }
    }

    /** Node 0: send while the window and the transmit pool allow. */
    private void pump(int index, MedusaDriver d) {
        while (sent < total && credit[index] > 0) {
            if (messages.send(d, nodes.get(1).stationAddress(), RingMessages.DATA, sent, 0, payload, words)
                == FramePort.NONE) {
                return; // back-pressure: the next TX_DONE interrupt resumes
            }
            sent++;
            credit[index]--;
        }
    }

    /** Intermediate node: pass held messages on in place while the downstream window allows. */
    private void relay(int index, MedusaDriver d) {
        long next = nodes.get(index + 1).stationAddress();
        while (pendingSize[index] > 0 && credit[index] > 0) {
            int h = pending[index][pendingHead[index]];
            pendingHead[index] = (pendingHead[index] + 1) & 127;
            pendingSize[index]--;
            d.forward(h, next);
            forwardsIssued[index]++;
            credit[index]--;
        }
        // Buffers whose forward completed are back in the FREE FIFO: they count as freed for the window.
        dataFreed[index] = forwardsIssued[index] - d.count(MedusaBufferState.CARD_TX_FORWARD);
    }

    /** Receiver: a window update to the upstream node once half a window of buffers is free again. */
    private void grant(int index, MedusaDriver d) {
        if (index == 0) {
            return;
        }
        long fresh = dataFreed[index] - granted[index];
        if (fresh >= threshold || (fresh > 0 && consumed == total)) {
            long up = nodes.get(index - 1).stationAddress();
            if (messages.send(d, up, RingMessages.CREDIT, 0, (int) fresh, empty, 0) != FramePort.NONE) {
                granted[index] += fresh;
            }
        }
    }
}
