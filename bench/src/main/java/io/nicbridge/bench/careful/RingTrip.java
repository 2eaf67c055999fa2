package io.nicbridge.bench.careful;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.cstar.FragmentHandler;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.RunnerNode;
import io.nicbridge.protocols.runner.ThreadPerNodeRunner;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * The paper's latency test (TR 94-14 section 6.1, Table 1) as a C* program: the P nodes form a logical ring and one
 * message of {@code bytes} goes around it; round r is event r, node i receives it from i - 1 and sends it to
 * i + 1, node 0 starts every round when the previous one came back. The per-hop latency is the round's time
 * (node 0's CPU time from before the send to after the receipt) over P. Each node receives the message into its own
 * buffer (the receive copy is the link's to charge: the Medusa's PIO read) and sends it on from there. The same
 * program runs in virtual time on a {@link CStarRing} and in real time on a {@link ShimRing}, where the node threads
 * call it under its own lock.
 */
final class RingTrip implements NodeApplication, FragmentHandler {
    /** How often the real-time run looks whether the rounds are done. */
    private static final long POLL_NANOS = 1_000_000;
    private final int nodes;
    private final int bytes;
    private final int rounds;
    private final boolean processing;
    private final MemorySegment[] buffer;
    private final int[] expect;
    private final boolean[] pending;
    private final long[] started;
    private final long[] ended;
    /** Each node's CPU: its clock (the round's times) and what it is charged for processing. */
    private IntFunction<HostCpu> cpus;
    private int receiver;
    private String wrong;

    RingTrip(int nodes, int bytes, int rounds, boolean processing) {
        this.nodes = nodes;
        this.bytes = bytes;
        this.rounds = rounds;
        this.processing = processing;
        buffer = new MemorySegment[nodes];
        for (int i = 0; i < nodes; i++) {
            buffer[i] = MemorySegment.ofArray(new byte[Math.max(4, bytes)]);
        }
        expect = new int[nodes];
        pending = new boolean[nodes];
        started = new long[rounds];
        ended = new long[rounds];
    }

    /** Plays {@code rounds} rounds on {@code ring} (whose application is this), at most {@code limitNanos}. */
    boolean run(CStarRing ring, long limitNanos) {
        begin(ring::cpu);
        ring.kick(0, this);
        return ring.time().runUntil(() -> expect[0] == rounds || wrong != null, ring.time().nanoTime() + limitNanos)
                && wrong == null;
    }

    /**
     * Plays {@code rounds} rounds in real time on {@code ring}, whose application is this serialised on this object
     * ({@link ShimRing}): starts its node threads (node 0 sends the first round at once) and waits, at most
     * {@code limitNanos} of wall time.
     */
    boolean run(ShimRing ring, long limitNanos) {
        ThreadPerNodeRunner runner = ring.runner();
        synchronized (this) {
            begin(runner::cpu);
        }
        runner.start();
        long deadline = System.nanoTime() + limitNanos;
        for (;;) {
            synchronized (this) {
                if (expect[0] == rounds || wrong != null) {
                    return wrong == null;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    private void begin(IntFunction<HostCpu> nodeCpus) {
        cpus = nodeCpus;
        pending[0] = true;
        started[0] = cpus.apply(0).now();
        if (processing) {
            Processing.write(cpus.apply(0), buffer[0], bytes, 0);
        }
    }

    String wrong() {
        return wrong;
    }

    /**
     * @return the median round's time per hop, ns, over rounds {@code from ..}: in real time a round the scheduler
     *         delayed (a node thread descheduled on a shared machine) moves the mean, not the median
     */
    double medianPerHopNanos(int from) {
        long[] round = new long[rounds - from];
        for (int r = from; r < rounds; r++) {
            round[r - from] = ended[r] - started[r];
        }
        Arrays.sort(round);
        int n = round.length;
        double median = n % 2 == 1 ? round[n / 2] : (round[n / 2 - 1] + round[n / 2]) / 2.0;
        return median / nodes;
    }

    /** @return the mean time per hop, ns, over rounds {@code from ..} */
    double perHopNanos(int from) {
        long sum = 0;
        for (int r = from; r < rounds; r++) {
            sum += ended[r] - started[r];
        }
        return (double) sum / (rounds - from) / nodes;
    }

    @Override
    public void afterEvent(RunnerNode node) {
        int p = node.id();
        CStarNetwork core = (CStarNetwork) node.core();
        boolean moved = true;
        while (moved && wrong == null) {
            moved = false;
            if (pending[p]) {
                if (core.send((p + 1) % nodes, expect[p], buffer[p], 0, bytes, CStarNetwork.LAST_FRAG)
                        == CStarNetwork.BACK_PRESSURE) {
                    return;
                }
                pending[p] = false;
                if (p != 0) {
                    expect[p]++;
                }
            }
            if (expect[p] >= rounds) {
                return;
            }
            receiver = p;
            int status = core.receive((p + nodes - 1) % nodes, expect[p], this);
            if (status == CStarNetwork.NOTHING) {
                return;
            }
            if (status != CStarNetwork.EVENT_DONE) {
                wrong = "node " + p + " round " + expect[p] + ": status " + status + " for a one-fragment event";
                return;
            }
            moved = true;
            if (p == 0) {
                ended[expect[0]] = cpus.apply(0).now();
                if (++expect[0] < rounds) {
                    started[expect[0]] = cpus.apply(0).now();
                    if (processing) {
                        Processing.write(cpus.apply(0), buffer[0], bytes, expect[0]);
                    }
                    pending[0] = true;
                }
            } else {
                if (processing) {
                    Processing.write(cpus.apply(p), buffer[p], bytes, expect[p]);
                }
                pending[p] = true;
            }
        }
    }

    @Override
    public void onFragment(int src, int event, int status, MemorySegment data, long offset, int length) {
        int p = receiver;
        if (length != bytes) {
            wrong = "node " + p + " round " + event + ": " + length + " bytes, " + bytes + " sent";
            return;
        }
        MemorySegment.copy(data, offset, buffer[p], 0, length);
        if (processing && Processing.read(cpus.apply(p), buffer[p], 0, length) != Processing.expectedSum(length, event)) {
            wrong = "node " + p + " round " + event + ": the payload read is not what was written";
        }
    }
}
