package io.nicbridge.bench.simtest;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator.Family;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.sim.atm.AtmSwitch;
import io.nicbridge.sim.atm.CellLink;
import io.nicbridge.sim.capture.PcapWriter;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.engine.VirtualTimeBase;
import io.nicbridge.sim.fault.FaultKind;
import io.nicbridge.sim.testbed.UnetLinkTestbed;
import java.nio.file.Path;
import java.util.EnumSet;

/**
 * The DST medium {@code atm}: the schedule's nodes as emulated Fore SBA-200s (U-Net firmware, one endpoint each, a
 * duplex channel per pair) on one ATM switch, one {@link io.nicbridge.bridge.driver.unet.UnetLink} each
 * ({@link UnetLinkTestbed}, virtual time seeded by the schedule). The schedule's frame faults are the switch's own
 * cell faults on the fibers from the cards to the switch: frame {@code f} names cell {@code f / n + 1} on node
 * {@code f % n}'s uplink ({@link CardFaultPlan}, n sites). A dropped, duplicated, reordered or corrupted cell costs
 * the receiver the whole AAL5 PDU (its CRC or length check fails), a delayed cell holds the cells behind it.
 * Capture: the cards', SunATM (LINKTYPE 123), every PDU a card sends (direction bit set) and every good PDU a card
 * receives, all cards into one file.
 */
final class AtmSimMedium implements CardSimMedium.Hardware {
    static final SimMedium.Factory FACTORY = CardSimMedium.factory("atm",
            "atm: emulated Fore SBA-200s (U-Net firmware, UnetLink, a channel per pair) on one ATM switch",
            EnumSet.of(Family.DROP, Family.DUPLICATE, Family.REORDER, Family.CORRUPT, Family.DELAY, Family.PARTITION,
                    Family.SLOW, Family.RESET), "cell", AtmSimMedium::new);

    /** The U-Net kernel driver's firmware check period when the schedule resets a card. */
    private static final long WATCHDOG_NANOS = 500_000;

    private final UnetLinkTestbed bed;
    private final AtmSwitch atmSwitch;
    private final int nodes;
    private final HostCpu[] cpus;
    private final CardFaultPlan faults;
    private final PcapWriter capture;

    private AtmSimMedium(Schedule schedule, SimSettings settings, Path pcap) {
        nodes = schedule.nodes();
        faults = new CardFaultPlan(schedule, nodes);
        UnetLinkTestbed.Builder b = UnetLinkTestbed.builder(EngineMode.VIRTUAL).nodes(nodes).seed(schedule.seed())
                .switchOptions(sw -> {
                    for (int p = 0; p < nodes; p++) {
                        sw.uplinkFaults(p, faults.plan(p));
                    }
                });
        if (CardFaultPlan.resetsCards(schedule)) {
            b.watchdog(WATCHDOG_NANOS); // periodic: the world never idles, the harness runs until its condition
        }
        bed = b.build();
        PcapWriter writer = null;
        try {
            atmSwitch = bed.network().atmSwitch();
            cpus = HostCpu.forNodes(nodes, settings.costs(), bed.virtualTimeBase());
            if (pcap != null) {
                writer = CaptureFiles.open(pcap, bed.virtualTimeBase(), PcapWriter.LINKTYPE_SUNATM);
                for (int i = 0; i < nodes; i++) {
                    bed.card(i).model().capture(writer);
                }
            }
        } catch (RuntimeException e) {
            bed.close();
            CaptureFiles.close(writer);
            throw e;
        }
        capture = writer;
    }

    @Override
    public void resetCard(int node) {
        bed.resetCard(node);
    }

    /** The kernel finds a restart within one period; the replay of its commands takes a few more. */
    @Override
    public long resetRecoveryNanos() {
        return 4 * WATCHDOG_NANOS;
    }

    @Override
    public VirtualTimeBase time() {
        return bed.virtualTimeBase();
    }

    @Override
    public HostCpu[] cpus() {
        return cpus;
    }

    @Override
    public Link link(int node) {
        return bed.link(node);
    }

    /** @return cells the cards put on their fibers to the switch (the unit the switch faults) */
    @Override
    public long carried() {
        long sum = 0;
        for (int p = 0; p < nodes; p++) {
            sum += atmSwitch.uplink(p).transmitted();
        }
        return sum;
    }

    @Override
    public long faultsInjected() {
        long sum = 0;
        for (int p = 0; p < nodes; p++) {
            CellLink up = atmSwitch.uplink(p);
            for (FaultKind k : FaultKind.values()) {
                if (k != FaultKind.NONE) {
                    sum += up.faultCount(k);
                }
            }
        }
        return sum;
    }

    @Override
    public int mergedFaults() {
        return faults.merged();
    }

    @Override
    public String counters() {
        return "atm: " + carried() + " cells to the switch, " + atmSwitch.switched() + " switched, "
                + atmSwitch.hecDrops() + " HEC drops";
    }

    @Override
    public void close() {
        bed.close();
        CaptureFiles.close(capture);
    }
}
