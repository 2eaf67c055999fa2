package io.nicbridge.protocols.cards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.HostCpu;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.time.VirtualScheduler;
import io.nicbridge.protocols.dst.Schedule;
import io.nicbridge.protocols.dst.ScheduleGenerator;
import io.nicbridge.protocols.dst.SimMedium;
import io.nicbridge.protocols.dst.SimProtocols;
import io.nicbridge.protocols.dst.SimSettings;
import io.nicbridge.protocols.dst.SimulationRun;
import io.nicbridge.sim.engine.EngineMode;
import io.nicbridge.sim.fault.FaultInjector;
import io.nicbridge.sim.fault.FaultPlan;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The traditional core on a ring of exactly P emulated Medusa FDDI cards ({@link MedusaRing}: interrupt-driven
 * drivers, {@link io.nicbridge.bridge.driver.medusa.MedusaLink}: PIO copy at commit, receive in place in the card's
 * buffer RAM) in virtual time, running the simulation tester's C* workload (point-to-point, broadcast and crowd
 * events, every fragment checked): P = 2, 4, 8 on a clean ring, and on a ring that loses and corrupts frames.
 */
class MedusaTraditionalTest {
    private static final SimSettings SETTINGS = SimSettings.cstar();

    /** The ring as the harness's medium; its own fault plan (random loss and corruption), no schedule faults. */
    static SimMedium.Factory ring(FaultPlan faults) {
        return new SimMedium.Factory() {
            @Override
            public String name() {
                return "medusa-ring";
            }

            @Override
            public Set<ScheduleGenerator.Family> families() {
                return EnumSet.noneOf(ScheduleGenerator.Family.class);
            }

            @Override
            public SimMedium open(Schedule schedule, SimSettings settings) {
                requireExpressible(schedule);
                MedusaRing ring = new MedusaRing(schedule.nodes(), EngineMode.VIRTUAL, schedule.seed(), faults);
                HostCpu[] cpus = HostCpu.forNodes(schedule.nodes(), settings.costs(), ring.virtualTime());
                return new SimMedium() {
                    @Override
                    public VirtualScheduler scheduler() {
                        return ring.virtualTime();
                    }

                    @Override
                    public HostCpu[] cpus() {
                        return cpus;
                    }

                    @Override
                    public Link link(int node) {
                        return ring.links[node];
                    }

                    @Override
                    public long framesCarried() {
                        return ring.ring.frames();
                    }

                    @Override
                    public long framesFaulted() {
                        FaultInjector f = ring.ring.faultInjector();
                        return f == null ? 0 : f.injected();
                    }

                    @Override
                    public long lastFaultNanos() {
                        return Long.MIN_VALUE; // random faults: progress is counted from the last delivery
                    }

                    @Override
                    public String describe() {
                        return "medusa ring: " + framesCarried() + " frames, " + framesFaulted() + " faulted";
                    }

                    @Override
                    public void close() {
                        ring.close();
                    }
                };
            }
        };
    }

    static SimulationRun.Outcome run(long seed, int nodes, int events, FaultPlan faults) {
        return SimulationRun.run(new Schedule(seed, nodes, events, List.of()), SETTINGS,
                SimProtocols.byName("traditional"), ring(faults));
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 8})
    void everyEventCompletesOnACleanRingOfPStations(int nodes) {
        for (long seed = 1; seed <= 3; seed++) {
            SimulationRun.Outcome o = run(seed, nodes, 12, FaultPlan.NONE);
            assertTrue(o.passed(), () -> o.schedule() + ": " + o.violation() + " / " + o.medium());
            assertEquals(o.messages(), o.delivered());
            assertTrue(o.messages() >= 12 * (nodes - 1), "every node receives in every event but a root's");
        }
    }

    @Test
    void theSameSeedGivesTheSameTraceOnTheRing() {
        SimulationRun.Outcome a = run(7, 4, 10, FaultPlan.NONE);
        SimulationRun.Outcome b = run(7, 4, 10, FaultPlan.NONE);
        assertEquals(a.traceDigest(), b.traceDigest());
        assertEquals(a.endNanos(), b.endNanos());
    }

    /** The ring loses 3 % and corrupts 2 % of its frames: every fragment still arrives once, intact. */
    @ParameterizedTest
    @ValueSource(ints = {2, 4, 8})
    void aLossyRingIsRecoveredFromExactlyOnce(int nodes) {
        long faulted = 0;
        for (long seed = 1; seed <= 4; seed++) {
            FaultPlan lossy = FaultPlan.builder().seed(seed).drop(0.03).corrupt(0.02).build();
            SimulationRun.Outcome o = run(seed, nodes, 12, lossy);
            assertTrue(o.passed(), () -> o.schedule() + ": " + o.violation() + " / " + o.medium());
            assertEquals(o.messages(), o.delivered());
            faulted += o.framesFaulted();
        }
        assertTrue(faulted > 0, "the ring must actually have faulted frames");
    }
}
