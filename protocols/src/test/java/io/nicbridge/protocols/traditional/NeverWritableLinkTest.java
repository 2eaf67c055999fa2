package io.nicbridge.protocols.traditional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.link.LinkHandler;
import io.nicbridge.bridge.port.PortCounters;
import io.nicbridge.protocols.cstar.CStarNetwork;
import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;
import io.nicbridge.protocols.runner.NodeSlowness;
import io.nicbridge.protocols.sim.FrameFaults;
import io.nicbridge.protocols.sim.InMemoryMedium;
import io.nicbridge.sim.engine.VirtualTimeBase;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * A link that refuses claims while its one transmit buffer flies and never calls {@code onWritable} (as U-Net's
 * finds writability only by looking): the core's own timer retries it, so queued fragments still go.
 */
class NeverWritableLinkTest {
    /** Delegates everything but {@code onWritable}, which it swallows. */
    static final class Mute implements Link, LinkHandler {
        final Link inner;
        LinkHandler handler;

        Mute(Link inner) {
            this.inner = inner;
        }

        @Override public void onFrame(Link link, int rxHandle) { handler.onFrame(this, rxHandle); }
        @Override public void onWritable(Link link) { }
        @Override public String name() { return inner.name(); }
        @Override public int self() { return inner.self(); }
        @Override public int peers() { return inner.peers(); }
        @Override public int mtu() { return inner.mtu(); }
        @Override public boolean canBroadcast() { return inner.canBroadcast(); }
        @Override public int claim(int peer) { return inner.claim(peer); }
        @Override public MemorySegment txBuffer(int h) { return inner.txBuffer(h); }
        @Override public void commit(int h, int length) { inner.commit(h, length); }
        @Override public void abort(int h) { inner.abort(h); }
        @Override public int poll(LinkHandler h, int limit) { handler = h; return inner.poll(this, limit); }
        @Override public int rxPeer(int h) { return inner.rxPeer(h); }
        @Override public MemorySegment rxBuffer(int h) { return inner.rxBuffer(h); }
        @Override public int rxLength(int h) { return inner.rxLength(h); }
        @Override public void release(int h) { inner.release(h); }
        @Override public void readinessListener(Runnable l) { inner.readinessListener(l); }
        @Override public <C> C capability(Class<C> type) { return inner.capability(type); }
        @Override public PortCounters counters() { return inner.counters(); }
        @Override public void close() { inner.close(); }
    }

    @Test
    void queuedFragmentsGoOutOnTheCoresOwnTimer() {
        VirtualTimeBase time = new VirtualTimeBase(5);
        HostCpu[] cpus = HostCpu.forNodes(2, CostTable.zero(), time);
        InMemoryMedium medium = new InMemoryMedium(time, new InMemoryMedium.Config(2, 256, 1, 16, 2_000, 80),
                FrameFaults.NONE, cpus);
        Link[] links = {new Mute(medium.link(0)), new Mute(medium.link(1))};
        NodeRunner runner = new NodeRunner(time, links, cpus,
                (l, c, cpu) -> new TraditionalCore(l, c, cpu, Cluster.config()), NodeApplication.NONE,
                NodeSlowness.NONE);
        TraditionalCore sender = (TraditionalCore) runner.node(0).core();
        MemorySegment data = MemorySegment.ofArray(new byte[32]);
        for (int i = 0; i < 3; i++) {
            assertEquals(CStarNetwork.OK, sender.send(1, 0, data, 0, 32, i == 2 ? CStarNetwork.LAST_FRAG : 0));
        }
        runner.node(0).applicationActed();
        assertTrue(sender.counters().linkBackPressure() > 0, "one transmit buffer: the link refused a claim");
        time.runUntil(10_000_000);
        TraditionalCore receiver = (TraditionalCore) runner.node(1).core();
        int[] got = new int[1];
        int status;
        do {
            status = receiver.receive(0, 0, (s, e, st, d, o, l) -> got[0]++);
        } while (status != CStarNetwork.NOTHING && status != CStarNetwork.EVENT_DONE);
        assertEquals(CStarNetwork.EVENT_DONE, status, sender.toString());
        assertEquals(3, got[0]);
        assertTrue(sender.counters().timeouts() > 0, "the timer retried the link");
    }
}
