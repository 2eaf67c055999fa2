package io.nicbridge.bench.simtest;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator.Family;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fabric.DropReason;
import io.nicbridge.sim.fabric.FabricConfig;
import io.nicbridge.sim.fabric.InterfaceFaults;
import io.nicbridge.sim.fabric.Network;
import io.nicbridge.sim.fabric.Topologies;
import io.nicbridge.sim.fabric.Topology;
import io.nicbridge.sim.fabric.link.FabricLinks;
import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.traffic.FabricSetup;
import io.nicbridge.sim.traffic.SimConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The DST medium {@code fabric}: the schedule's nodes as the first nodes of an MPP fabric ({@link Network}, flit
 * level, its cycles stepped on the world's virtual clock), one {@link FabricLinks} link each; by default a 4x4 mesh
 * with the fabric's default routers (buffered, wormhole), or {@code fabric:FILE} with the topology and routers of a
 * {@code configs/fabric} file (its seed is replaced by the schedule's). Frames of the settings' MTU, the settings'
 * transmit and receive buffers per node, the CM-5's 25 ns cycle.
 *
 * <p>Faults: the schedule's frame faults are plans at the nodes' network interfaces, on their receive side
 * ({@link Network#interfaceFaults}): frame f names the packet numbered {@code f / n + 1} of those that reach node
 * {@code f % n}'s NI ({@link CardFaultPlan}, n sites; delays rounded up to whole cycles). The NI drops, duplicates,
 * holds back past the next packet, or delays the packet; a corrupted packet fails the NI's check and is discarded
 * ({@link InterfaceFaults}). A drop-mode fabric also loses packets on its own under contention: those count as
 * faults too (they are, to the core). Every family is expressed.
 *
 * <p>Capture: LINKTYPE_USER0 (147), one record per frame an NI hands to its node, stamped with the virtual time it
 * reached the link, before the harness's partition cut (as the Ethernet segment records what its receivers get).
 * Each record is an 8-byte header, big-endian, then the frame's bytes as the sending core wrote them:
 * <pre>
 *   0        2             4       5         6              8
 *   | source | destination | class | version | frame length | frame bytes ... |
 *     u16      u16           u8      u8 (1)    u16
 * </pre>
 * class 0 is {@link Network#REQUEST}, 1 {@link Network#REPLY}. (The fabric has no link header of its own: source,
 * destination and class are the packet's fields, FabricLinks' length word is its framing.)
 */
final class FabricSimMedium implements CardSimMedium.Hardware {
    /** The default fabric: a 4x4 mesh. */
    static final SimMedium.Factory FACTORY = factory("fabric", "4x4 mesh", () -> Topologies.mesh(4, 4),
            FabricConfig.defaults());

    private static SimMedium.Factory factory(String name, String what, Supplier<Topology> topology,
                                             FabricConfig config) {
        return CardSimMedium.factory(name, "fabric: a " + what + " (" + config.switching().name()
                        .toLowerCase(Locale.ROOT) + ", " + config.discipline().name().toLowerCase(Locale.ROOT)
                        + "), the schedule's nodes on its first nodes, one FabricLinks link each, faults at the NIs",
                Family.frameAndTiming(), "packet",
                (schedule, settings, pcap) -> new FabricSimMedium(schedule, settings, pcap, topology.get(), config));
    }

    /**
     * @param spec {@code fabric:FILE}, FILE a {@code configs/fabric} config
     * @throws IllegalArgumentException naming the file when it cannot be read or its keys are wrong
     */
    static SimMedium.Factory fromConfig(String spec) {
        Path file = Path.of(spec.substring(spec.indexOf(':') + 1));
        SimConfig c;
        try {
            c = SimConfig.load(file);
        } catch (IOException | UncheckedIOException e) {
            throw new IllegalArgumentException("medium '" + spec + "': cannot read fabric config " + file + ": "
                    + e.getMessage(), e);
        }
        Topology probe = FabricSetup.topology(c);
        FabricConfig config = FabricSetup.fabricConfig(c);
        return factory(spec, probe.name() + " from " + file, () -> FabricSetup.topology(c), config);
    }

    private final VirtualTimeBase time;
    private final Network network;
    private final FabricLinks fabric;
    private final Link[] links;
    private final HostCpu[] cpus;
    private final CardFaultPlan faults;
    private final PcapWriter capture;

    private FabricSimMedium(Schedule schedule, SimSettings settings, Path pcap, Topology topology,
                            FabricConfig config) {
        int n = schedule.nodes();
        if (topology.nodes() < n) {
            throw new IllegalArgumentException("fabric " + topology.name() + " has " + topology.nodes()
                    + " nodes, the schedule needs " + n);
        }
        FabricLinks.Config linkConfig = new FabricLinks.Config(settings.mtu(), settings.txSlots(),
                settings.rxSlots(), FabricLinks.CM5_CYCLE_NANOS);
        faults = new CardFaultPlan(schedule, n, linkConfig.cycleNanos());
        time = new VirtualTimeBase(schedule.seed());
        network = new Network(topology, config, schedule.seed());
        for (int p = 0; p < n; p++) {
            network.interfaceFaults(p, faults.plan(p));
        }
        cpus = HostCpu.forNodes(n, settings.costs(), time);
        fabric = new FabricLinks(network, time, cpus, linkConfig);
        capture = pcap == null ? null : CaptureFiles.open(pcap, time, PcapWriter.LINKTYPE_USER0);
        links = new Link[n];
        for (int i = 0; i < n; i++) {
            links[i] = capture == null ? fabric.link(i) : new FabricCaptureLink(fabric.link(i), time, capture);
        }
    }

    @Override
    public VirtualTimeBase time() {
        return time;
    }

    @Override
    public HostCpu[] cpus() {
        return cpus;
    }

    @Override
    public Link link(int node) {
        return links[node];
    }

    /** @return packets that entered the fabric */
    @Override
    public long carried() {
        return network.packetsInjected();
    }

    /** @return packets the NIs' plans faulted, and packets a drop-mode fabric lost in the network */
    @Override
    public long faultsInjected() {
        InterfaceFaults f = network.interfaceFaults();
        return (f == null ? 0 : f.injected()) + fabric.drops(DropReason.HEAD_BLOCKED)
                + fabric.drops(DropReason.EJECT_BLOCKED);
    }

    @Override
    public int mergedFaults() {
        return faults.merged();
    }

    @Override
    public String counters() {
        StringBuilder s = new StringBuilder("fabric ").append(network.topology().name()).append(": ")
                .append(network.packetsInjected()).append(" packets in, ").append(fabric.framesDelivered())
                .append(" delivered, ").append(fabric.cyclesStepped()).append(" cycles; at the NIs:");
        InterfaceFaults f = network.interfaceFaults();
        for (FaultKind k : FaultKind.values()) {
            if (k != FaultKind.NONE) {
                s.append(' ').append(k.name().toLowerCase(Locale.ROOT)).append(' ').append(f == null ? 0 : f.count(k));
            }
        }
        return s.append("; in the network: ").append(network.packetsDropped()).append(" dropped").toString();
    }

    @Override
    public void close() {
        for (Link l : links) {
            l.close();
        }
        CaptureFiles.close(capture);
    }
}
