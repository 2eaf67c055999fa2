package io.nicbridge.bench.unet;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.time.Scheduler;
import io.nicbridge.bridge.time.Timer;
import io.nicbridge.protocols.core.ProtocolCore;
import io.nicbridge.protocols.runner.CoreBuilder;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.sim.sba200.Sba200Timing;
import java.util.function.BooleanSupplier;

/**
 * The two-node world of the U-Net experiments ({@link UamRuns}, {@link UdpRuns}, {@link TcpRuns}): the two links of a
 * {@link Timebase}'s medium (two emulated SBA-200s through the ATM switch in virtual time or on the real clock on one
 * thread, or two shim SBA-200s across a veth pair), each node's CPU priced by a host cost table,
 * and a {@link NodeRunner} driving one core per node - the same for raw U-Net, Active Messages and UDP, so that the
 * experiments differ only by their cores.
 */
final class UnetWorld implements AutoCloseable {
    private static final int RECEIVE_QUEUE = 128;

    final Timebase.Medium medium;
    final Scheduler time;
    final HostCpu[] cpus;
    final NodeRunner runner;

    /**
     * @param timebase    virtual time (host work charged by {@code costs}), or the real clock on this thread with the
     *                    emulated cards or U-Net over Ethernet
     * @param bufferBytes the size of each U-Net buffer (the link's MTU)
     * @param txBuffers   transmit buffers per node
     * @param rxBuffers   receive (free-queue) buffers per node
     */
    UnetWorld(Timebase timebase, Sba200Timing timing, CostTable costs, int bufferBytes, int txBuffers, int rxBuffers,
              CoreBuilder cores, NodeApplication app) {
        medium = timebase.open(timing, bufferBytes, txBuffers, rxBuffers, RECEIVE_QUEUE);
        try {
            time = medium.scheduler;
            cpus = HostCpu.forNodes(2, costs, time);
            runner = new NodeRunner(time, medium.links(), cpus, cores, app, NodeSlowness.NONE);
            medium.attach(runner);
        } catch (RuntimeException | Error e) {
            medium.close();
            throw e;
        }
    }

    ProtocolCore core(int node) {
        return runner.node(node).core();
    }

    /**
     * Runs {@code start} on the world's thread, then the world until {@code done} or the medium's limit (beyond it a
     * message counts as lost).
     *
     * @return whether {@code done} came true
     */
    boolean runUntil(Runnable start, BooleanSupplier done) {
        Timer t = time.newTimer("start", start);
        t.armAfter(0);
        return medium.runUntil(done, medium.limitNanos());
    }

    /**
     * {@link #runUntil}, failing when it did not finish.
     *
     * @throws IllegalStateException naming {@code what} and both cores when {@code done} never came true
     */
    void run(Runnable start, BooleanSupplier done, String what) {
        if (!runUntil(start, done)) {
            throw new IllegalStateException(what + " did not finish: " + core(0) + " / " + core(1));
        }
    }

    @Override
    public void close() {
        medium.close();
    }
}
