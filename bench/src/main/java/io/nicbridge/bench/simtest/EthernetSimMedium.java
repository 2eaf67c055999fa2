package io.nicbridge.bench.simtest;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator.Family;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.ethernet.EthernetMode;
import io.nicbridge.sim.ethernet.EthernetSegment;
import io.nicbridge.sim.testbed.TulipTestbed;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The DST medium {@code ethernet}: the schedule's nodes as emulated 21140s with Tulip drivers on one 100 Mb/s
 * Ethernet segment ({@link TulipTestbed}, virtual time seeded by the schedule), one {@link TulipLink} each; the
 * schedule's frame faults are the segment's own ({@link CardFaultPlan}, one site: frame f is the segment's frame
 * f + 1). The card's rings and the segment's timing are the testbed's (the settings' MTU, buffer counts, latency and
 * bandwidth are the in-memory medium's). Capture: the segment's, LINKTYPE 1 (Ethernet without FCS), every frame as
 * the receivers get it.
 */
final class EthernetSimMedium implements CardSimMedium.Hardware {
    static final SimMedium.Factory FACTORY = CardSimMedium.factory("ethernet",
            "ethernet: emulated DEC 21140s (Tulip driver, TulipLink) on one 100 Mb/s segment",
            EnumSet.of(Family.DROP, Family.DUPLICATE, Family.REORDER, Family.CORRUPT, Family.DELAY, Family.PARTITION,
                    Family.SLOW, Family.RESET), "frame", (schedule, settings, pcap) -> new EthernetSimMedium(schedule,
                    settings, pcap, EthernetMode.IDEAL));

    /**
     * The DST medium {@code ethernet-hub}: the same cards on a half-duplex CSMA/CD hub ({@link EthernetMode#HUB},
     * the paper's shared Fast Ethernet hub): frames collide, back off, and are lost after 16 collisions (TDES0 EC),
     * on top of the schedule's faults. The backoff draws come from the schedule's seed.
     */
    static final SimMedium.Factory HUB_FACTORY = CardSimMedium.factory("ethernet-hub",
            "ethernet-hub: emulated DEC 21140s (Tulip driver, TulipLink) on one 100 Mb/s half-duplex CSMA/CD hub",
            EnumSet.of(Family.DROP, Family.DUPLICATE, Family.REORDER, Family.CORRUPT, Family.DELAY, Family.PARTITION,
                    Family.SLOW), "frame", (schedule, settings, pcap) -> new EthernetSimMedium(schedule, settings, pcap,
                    EthernetMode.HUB));

    /**
     * The Tulip driver's watchdog period when the schedule resets a card: five RTOs of the default settings. Each
     * tick reads CSR6, so a reset is found within one period whether or not the node has anything to send, and a
     * frame that merely waits behind others for a whole period only costs a transmit poll demand. (The hub medium
     * does not take resets yet: its contention and the watchdog's transmit timeout have not been run together.)
     */
    private static final long WATCHDOG_NANOS = 1_000_000;

    private final TulipTestbed bed;
    private final EthernetSegment wire;
    private final VirtualTimeBase time;
    private final Link[] links;
    private final HostCpu[] cpus;
    private final CardFaultPlan faults;
    private final PcapWriter capture;

    private EthernetSimMedium(Schedule schedule, SimSettings settings, Path pcap, EthernetMode mode) {
        faults = new CardFaultPlan(schedule);
        int n = schedule.nodes();
        TulipTestbed.Builder b = TulipTestbed.builder().nodes(n).mode(EngineMode.VIRTUAL).seed(schedule.seed())
                .faults(faults.plan()).medium(mode);
        if (CardFaultPlan.resetsCards(schedule)) {
            b.watchdog(WATCHDOG_NANOS);
        }
        bed = b.build();
        PcapWriter writer = null;
        try {
            bed.awaitFiltersLoaded(TimeUnit.SECONDS.toNanos(5));
            wire = bed.wire();
            time = bed.virtualTime();
            if (pcap != null) {
                writer = CaptureFiles.open(pcap, time, PcapWriter.LINKTYPE_ETHERNET);
                wire.capture(writer);
            }
            List<MacAddress> macs = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                macs.add(TulipTestbed.mac(i));
            }
            links = new Link[n];
            for (int i = 0; i < n; i++) {
                links[i] = new TulipLink(bed.driver(i), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE);
            }
            cpus = HostCpu.forNodes(n, settings.costs(), time);
        } catch (RuntimeException e) {
            bed.close();
            CaptureFiles.close(writer);
            throw e;
        }
        capture = writer;
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

    @Override
    public void resetCard(int node) {
        bed.resetCard(node);
    }

    /** The driver finds a reset at its next tick (within one period) and re-opens the chip at once. */
    @Override
    public long resetRecoveryNanos() {
        return 2 * WATCHDOG_NANOS;
    }

    @Override
    public long carried() {
        return wire.frames();
    }

    /**
     * The plan's faults, and on the hub every collision too: a collision is a fault of the medium's own (it delays
     * the frame, and the 16th loses it), so the harness's progress bound runs from the last one. This matters under
     * the capture effect, where a station that lost a few collisions backs off ever longer (up to 1023 slots, 5.2 ms)
     * while the others, their counts reset by each success, keep the hub; it collides again on each retry until it
     * gets through or gives up after 16.
     */
    @Override
    public long faultsInjected() {
        return wire.faultsInjected() + wire.collisions();
    }

    @Override
    public int mergedFaults() {
        return faults.merged();
    }

    @Override
    public String counters() {
        if (wire.mode() == EthernetMode.HUB) {
            return "ethernet-hub: " + wire.frames() + " frames on the segment, " + wire.deliveries() + " deliveries, "
                    + wire.collisions() + " collisions, " + wire.drops(EthernetSegment.DropReason.EXCESSIVE_COLLISIONS)
                    + " frames lost to excessive collisions, " + wire.deferrals() + " deferrals";
        }
        return "ethernet: " + wire.frames() + " frames on the segment, " + wire.deliveries() + " deliveries";
    }

    @Override
    public void close() {
        for (Link l : links) {
            l.close();
        }
        bed.close();
        CaptureFiles.close(capture);
    }
}
