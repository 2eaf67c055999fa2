package io.nicbridge.sim.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.fault.FaultPlan;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Fault plans at a node's network interface: each kind lands on the packet the plan names, as documented. */
class InterfaceFaultsTest {
    /** Records deliveries (payload id, copyFollows) and the listener's drops. */
    static final class Recorder implements Endpoint, FabricListener {
        final List<String> got = new ArrayList<>();
        final List<String> dropped = new ArrayList<>();

        @Override
        public void wake(NodePort port, long cycle) {
        }

        @Override
        public void deliver(NodePort port, PacketRecord p, long cycle) {
            got.add(p.payloadId() + (p.copyFollows() ? "+" : ""));
        }

        @Override
        public void delivered(PacketRecord packet, long cycle) {
        }

        @Override
        public void dropped(PacketRecord packet, DropReason reason, long cycle) {
            dropped.add(packet.payloadId() + ":" + reason);
        }
    }

    /** Sends packets 1..7 from node 0 to node 5, 40 cycles apart, so they reach node 5's NI in order. */
    private static Recorder run(Network net) {
        Recorder r = new Recorder();
        net.attach(5, r);
        net.listener(r);
        for (int i = 1; i <= 7; i++) {
            assertTrue(net.port(0).inject(5, 4, Network.REQUEST, net.cycle(), i));
            net.run(40);
        }
        return r;
    }

    @Test
    void dropDuplicateReorderDelayAndCorruptLandOnTheNamedPackets() {
        Network net = new Network(Topologies.mesh(4, 4), FabricConfig.defaults(), 1);
        net.interfaceFaults(5, FaultPlan.parse("drop@1 duplicate@2 reorder@3 delay@4:200 corrupt@5"));
        Recorder r = run(net);
        // 1 dropped, 2 twice, 3 held until 4 arrived (4 itself delayed 200 cycles), 5 failed its check, 6, 7 in time
        assertEquals(List.of("2+", "2", "3", "6", "7"), r.got);
        assertFalse(net.idle(), "packet 4 is still held by its delay");
        assertEquals(1, net.interfaceFaults().delayed());
        assertTrue(net.drain(200));
        assertEquals(List.of("2+", "2", "3", "6", "7", "4"), r.got);
        assertEquals(List.of("1:NI_FAULT", "5:NI_CHECKSUM"), r.dropped);
        assertEquals(5, net.interfaceFaults().injected());
        assertEquals(1, net.interfaceFaults().count(FaultKind.REORDER));
        assertEquals(2, net.interfaceFaults().discarded());
        assertEquals(1, net.drops(DropReason.NI_FAULT));
        assertEquals(1, net.drops(DropReason.NI_CHECKSUM));
        assertEquals(0, net.packetsDropped(), "no flit was lost inside the network");
        assertNull(net.leakedResource(), "every held packet was handed over and freed");
    }

    @Test
    void aReorderedPacketThatNoPacketFollowsStaysHeldWithoutKeepingTheFabricBusy() {
        Network net = new Network(Topologies.mesh(4, 4), FabricConfig.defaults(), 1);
        net.interfaceFaults(5, FaultPlan.parse("reorder@7"));
        Recorder r = run(net);
        assertTrue(net.drain(100));
        assertEquals(List.of("1", "2", "3", "4", "5", "6"), r.got);
        assertEquals(1, net.interfaceFaults().reordered());
    }

    @Test
    void otherNodesAndAnEmptyPlanAreUntouched() {
        Network net = new Network(Topologies.mesh(4, 4), FabricConfig.defaults(), 1);
        net.interfaceFaults(6, FaultPlan.parse("drop@1"));
        net.interfaceFaults(5, FaultPlan.NONE);
        Recorder r = run(net);
        assertTrue(net.drain(100));
        assertEquals(List.of("1", "2", "3", "4", "5", "6", "7"), r.got);
        assertEquals(0, net.interfaceFaults().injected());
        assertNull(net.interfaceFaults().injector(5));
    }
}
