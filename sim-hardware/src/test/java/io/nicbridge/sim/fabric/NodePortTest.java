package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The network-interface port: back-pressure, bad input, receive control, logical networks, processor model. */
class NodePortTest {

    /** Records deliveries; sends nothing by itself. */
    static final class Recorder implements Endpoint {
        final List<long[]> got = new ArrayList<>(); // src, class, payloadId, cycle
        final List<Long> wakes = new ArrayList<>();

        @Override
        public void wake(NodePort port, long cycle) {
            wakes.add(cycle);
        }

        @Override
        public void deliver(NodePort port, PacketRecord p, long cycle) {
            got.add(new long[] {p.src(), p.packetClass(), p.payloadId(), cycle});
        }

        long count(int cls) {
            return got.stream().filter(g -> g[1] == cls).count();
        }
    }

    @Test
    void fullSendQueueIsBackPressureNotAnException() {
        Network net = new Network(Topologies.mesh(4, 4), FabricConfig.defaults().withInjectQueuePackets(2), 1);
        NodePort port = net.port(0);
        assertTrue(port.inject(5, 2, Network.REQUEST, 0, 1));
        assertTrue(port.inject(5, 2, Network.REQUEST, 0, 2));
        assertFalse(port.inject(5, 2, Network.REQUEST, 0, 3));
        assertEquals(0, port.queueFree(Network.REQUEST));
        assertTrue(port.inject(5, 2, Network.REPLY, 0, 4), "the reply queue is separate");
        assertTrue(net.drain(1000));
        assertEquals(3, net.packetsDelivered());
        assertEquals(2, port.queueFree(Network.REQUEST));
    }

    @Test
    void badInputIsRejectedWithAMessage() {
        Network net = new Network(Topologies.mesh(4, 4), FabricConfig.defaults(), 1);
        NodePort port = net.port(0);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> port.inject(16, 1, 0, 0, 0)).getMessage()
            .contains("destination 16"));
        assertThrows(IllegalArgumentException.class, () -> port.inject(-1, 1, 0, 0, 0));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> port.inject(1, 1, 2, 0, 0)).getMessage()
            .contains("class"));
        assertThrows(IllegalArgumentException.class, () -> port.inject(1, 0, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> net.port(16));
        Network vct = new Network(Topologies.mesh(4, 4), FabricConfig.defaults().withBufferDepth(4)
            .withSwitching(Switching.VIRTUAL_CUT_THROUGH), 1);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> vct.port(0).inject(1, 5, 0, 0, 0))
            .getMessage().contains("fit a VC buffer"));
        assertThrows(IllegalArgumentException.class,
            () -> new Network(Topologies.torus(4, 4), FabricConfig.defaults().withVcsPerClass(1), 1));
        assertThrows(IllegalArgumentException.class,
            () -> new Network(Topologies.adaptiveMesh(4, 4), FabricConfig.defaults(), 1));
        assertThrows(IllegalArgumentException.class, () -> FabricConfig.defaults().withLinkLatency(0));
    }

    @Test
    void aNodeThatDoesNotReceiveHoldsItsPacketsInTheNetworkUntilItDoes() {
        Network net = new Network(Topologies.mesh(4, 4), FabricConfig.defaults(), 1);
        Recorder sink = new Recorder();
        net.attach(5, sink);
        net.port(5).receiving(false);
        for (int s = 0; s < 16; s++) {
            assertTrue(net.port(s).inject(5, 3, Network.REQUEST, 0, s));
        }
        net.run(2000);
        assertEquals(0, sink.got.size());
        assertTrue(net.flitsInNetwork() > 0);
        assertEquals(net.flitsInjected(), net.flitsInNetwork());
        net.port(5).receiving(true);
        assertTrue(net.drain(2000));
        assertEquals(16, sink.got.size());
    }

    @Test
    void repliesFlowWhileTheRequestNetworkIsBackedUp() {
        Network net = new Network(Topologies.mesh(4, 4), FabricConfig.defaults().withInjectQueuePackets(64), 1);
        Recorder sink = new Recorder();
        net.attach(5, sink);
        net.port(5).receiving(Network.REQUEST, false);
        for (int round = 0; round < 8; round++) {
            for (int s = 0; s < 16; s++) {
                net.port(s).inject(5, 4, Network.REQUEST, 0, s);
            }
        }
        net.run(1000); // requests now fill every buffer on the way to node 5
        assertEquals(0, sink.count(Network.REQUEST));
        for (int s = 0; s < 16; s++) {
            assertTrue(net.port(s).inject(5, 4, Network.REPLY, net.cycle(), 1000 + s));
        }
        net.run(1000);
        assertEquals(16, sink.count(Network.REPLY), "reply VCs are a separate logical network");
        assertEquals(0, sink.count(Network.REQUEST));
        net.port(5).receiving(Network.REQUEST, true);
        assertTrue(net.drain(10_000));
        assertEquals(16 * 8, sink.count(Network.REQUEST));
    }

    @Test
    void dropModeDropsHeadsBlockedAtAReceiverThatDoesNotPoll() {
        FabricConfig cfg = FabricConfig.defaults().withDiscipline(Discipline.DROP_WHEN_BLOCKED)
            .withDropTimeoutCycles(10);
        Network net = new Network(Topologies.mesh(4, 4), cfg, 1);
        net.port(5).receiving(false);
        for (int s = 0; s < 16; s++) {
            assertTrue(net.port(s).inject(5, 3, Network.REQUEST, 0, s));
        }
        net.run(5000);
        // the one 4-flit packet (3 + checksum) that fits the ejection VC waits there; every other one was dropped
        assertEquals(15, net.packetsDropped());
        assertTrue(net.drops(DropReason.EJECT_BLOCKED) >= 1);
        assertEquals(4, net.flitsInNetwork());
        assertEquals(net.flitsInjected(), net.flitsDropped() + 4);
        net.port(5).receiving(true);
        assertTrue(net.drain(100));
        assertEquals(1, net.packetsDelivered());
    }

    @Test
    void sendChargesTheProcessorAndDelaysInjection() {
        FabricConfig cfg = FabricConfig.defaults().withProcessor(new ProcessorModel(46, 56, 22));
        Network net = new Network(Topologies.mesh(4, 4), cfg, 1);
        List<Long> injected = new ArrayList<>();
        net.listener((p, c) -> injected.add(p.injectedCycle()));
        NodePort port = net.port(0);
        for (int i = 0; i < 3; i++) {
            assertTrue(port.send(15, 1, Network.REQUEST, 0, i));
        }
        assertEquals(138, port.processorFreeAt());
        assertEquals(138 + 56, port.chargeProcessor(port.processor().receiveOverhead()));
        assertTrue(net.drain(1000));
        assertEquals(List.of(46L, 92L, 138L), injected);
    }

    @Test
    void wakeUpsComeAtTheEarliestRequestedCycle() {
        Network net = new Network(Topologies.mesh(2, 2), FabricConfig.defaults(), 1);
        Recorder r = new Recorder();
        net.attach(3, r);
        net.port(3).wakeAt(50);
        net.port(3).wakeAt(20);
        net.port(3).wakeAt(70);
        assertEquals(20, net.port(3).wakePending());
        net.run(100);
        assertEquals(List.of(20L), r.wakes);
        assertEquals(Network.NEVER, net.port(3).wakePending());
    }
}
