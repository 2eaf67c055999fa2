package io.nicbridge.protocols.dst;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.sim.engine.VirtualTimeBase;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** TCP ({@link TcpNode}, {@link StreamWorkload}) through the DST harness on the in-memory medium. */
class TcpSimulationTest {
    private static final SimSettings SETTINGS = SimProtocols.settings("tcp");

    private static SimTest tester(CoreFactory cores) {
        return new SimTest("tcp", cores, SETTINGS, new ScheduleGenerator(SETTINGS), VirtualTimeBase::new);
    }

    @Test
    void tcpKeepsItsPromiseOverFiveHundredFaultSchedules() {
        SimTest.Summary s = tester(SimProtocols.byName("tcp")).campaign(1, 500, null);
        assertTrue(s.passed(), () -> "violation " + s.failure().violation() + " in " + s.failure().schedule()
                + "; shrunk: " + s.shrunk().schedule() + " -> " + s.shrunk().violation());
        assertEquals(500, s.schedules());
        assertTrue(s.faulted() > 2000, "the schedules must actually fault frames, faulted " + s.faulted());
    }

    /**
     * The schedules on which the simulation tester found the TCP's bugs, each fixed in {@code TcpConnection}:
     * <ul>
     *   <li>seed 4 (no fault at all): the ACK of the peer's FIN, refused by a full transmit queue as the connection
     *       entered TIME-WAIT, was never sent (TIME-WAIT ran no pending output), so the peer's FIN came again and,
     *       after TIME-WAIT, drew a RST (with the 2 ms TIME-WAIT the tester first ran; at today's 64 ms the peer's
     *       retransmitted FIN still finds TIME-WAIT, so {@code TcpConnectionTest} pins this one down directly);</li>
     *   <li>seed 162: after timeouts on both sides each side's SND.NXT lay behind what the other had received, so
     *       every pure ACK (sent at SND.NXT) failed the other's acceptability test: an endless exchange of ACKs that
     *       neither read;</li>
     *   <li>seed 312: a retransmission after a timeout was withheld by sender SWS avoidance, which left neither the
     *       retransmission nor the persist timer armed: the connection stalled;</li>
     *   <li>seeds 28863, 203189 and 301741 (the million-schedule run): a fast retransmission sent a whole MSS from
     *       SND.UNA even where less had ever been sent, so the peer got bytes beyond SND.MAX and every ACK of them was
     *       refused as acknowledging something never sent: a deadlock;</li>
     *   <li>seed 145546: after a zero-window probe whose answer was lost, nothing re-armed the persist timer: the
     *       sender stalled behind a window that had opened;</li>
     *   <li>seed 16504 (no fault): the workload's own bug - a reader whose budget ran out exactly at the end of the
     *       stream never read the end of it.</li>
     * </ul>
     */
    @ParameterizedTest
    @ValueSource(strings = {"4/3/2/", "162/3/14/slow@1:28062:8311400:1147584,partition@3465595:17662647:2",
        "312/4/22/partition@8600902:11913623:2", "28863/2/20/slow@1:992945:8519956:1419435",
        "203189/4/14/delay@56:2068567,delay@123:1591388,corrupt@11:5898652,corrupt@86:3277098,delay@105:1991619,"
            + "delay@118:684550,drop@38:0,drop@12:0",
        "301741/4/12/duplicate@0:1537364,drop@112:0,delay@140:1572495,partition@360408:11661117:2",
        "145546/3/22/slow@0:6630558:16353952:1371119,partition@9364382:12164891:2", "16504/4/20/"})
    void theSchedulesThatFoundBugsPass(String schedule) {
        SimulationRun.Outcome o = tester(SimProtocols.byName("tcp")).run(Schedule.parse(schedule));
        assertTrue(o.passed(), () -> String.valueOf(o.violation()));
        assertEquals(o.messages(), o.delivered(), "every byte read and every end closed orderly");
    }

    /**
     * The schedules that found bugs with {@code TcpConfig.ackAtPoll} on (the U-Net real-time stacks' setting), each
     * fixed in {@code TcpConnection}:
     * <ul>
     *   <li>seed 264425: a TIME-WAIT and a SYN-RECEIVED that an old duplicate SYN had opened each found the other's
     *       ACKs out of window and answered every one: 87,000 ACKs filled the link and starved the other connections
     *       (out-of-window pure ACKs and SYNs are now answered at most once per 500 ms);</li>
     *   <li>seed 25 (no fault): an ACK owed at the end of the step, refused by a full transmit queue, survived the
     *       FIN that moved the connection to TIME-WAIT, whose tick never turned it into an ACK to send: the node
     *       asked for its timer again and again at the same instant.</li>
     * </ul>
     */
    @ParameterizedTest
    @ValueSource(strings = {"25/4/11/", "264425/3/19/corrupt@98:8061350,drop@20:0,duplicate@146:1648083,"
        + "partition@2356800:9878985:5,delay@110:1154668,partition@8817765:18960151:4"})
    void theSchedulesThatFoundAckAtPollBugsPass(String schedule) {
        SimulationRun.Outcome o = tester(SimProtocols.byName("tcp-ack-at-poll")).run(Schedule.parse(schedule));
        assertTrue(o.passed(), () -> String.valueOf(o.violation()));
        assertEquals(o.messages(), o.delivered(), "every byte read and every end closed orderly");
    }

    @Test
    void theSameSeedReplaysTheSameTraceAndOtherSeedsDiffer() {
        SimTest t = tester(SimProtocols.byName("tcp"));
        ScheduleGenerator g = new ScheduleGenerator(SETTINGS);
        SimulationRun.Outcome a = t.run(g.generate(77));
        SimulationRun.Outcome b = t.run(Schedule.parse(g.generate(77).encode()));
        SimulationRun.Outcome c = t.run(g.generate(78));
        assertEquals(a.traceDigest(), b.traceDigest());
        assertEquals(a.endNanos(), b.endNanos());
        assertNotEquals(a.traceDigest(), c.traceDigest());
    }

    @Test
    void everyByteStillArrivesThroughEveryKindOfFault() {
        SimTest t = tester(SimProtocols.byName("tcp"));
        Schedule clean = new Schedule(5, 3, 12, List.of());
        Schedule lossy = clean.withFaults(List.of(new Fault.FrameFault(Fault.Kind.DROP, 3, 0),
                new Fault.FrameFault(Fault.Kind.CORRUPT, 8, 0x50030), new Fault.FrameFault(Fault.Kind.DUPLICATE, 12,
                        1000), new Fault.FrameFault(Fault.Kind.REORDER, 20, 30_000),
                new Fault.Partition(2_000_000, 9_000_000, 0b001), new Fault.SlowNode(1, 0, 5_000_000, 500_000)));
        SimulationRun.Outcome o1 = t.run(clean);
        SimulationRun.Outcome o2 = t.run(lossy);
        assertTrue(o1.passed(), () -> String.valueOf(o1.violation()));
        assertTrue(o2.passed(), () -> String.valueOf(o2.violation()));
        assertEquals(o1.messages(), o2.messages(), "the same streams");
        assertEquals(o2.messages(), o2.delivered());
        assertTrue(o2.framesFaulted() >= 4, "the frame faults acted: " + o2.framesFaulted());
        assertNotEquals(o1.traceDigest(), o2.traceDigest(), "the faults changed the run");
    }

    /**
     * A TCP that gives up after one retransmission (a 1 ms world with partitions of up to 15 ms) breaks its
     * connections: the oracle sees an end closed by time-out (and the RST it sends), and the shrinker cuts the
     * schedule down to a failing one that replays.
     */
    @Test
    void negativeControlATcpThatGivesUpTooSoonIsCaughtAndShrunk() {
        SimTest t = tester((link, clock, cpu, s) -> new TcpNode(link, clock,
                SimProtocols.tcp(s).withMaxRetransmissions(1)));
        SimTest.Summary s = t.campaign(1, 300, null);
        assertFalse(s.passed(), "a TCP that gives up after one retransmission must fail some schedule");
        assertEquals("orderly-close", s.failure().violation().invariant(), s.failure().violation().toString());
        assertFalse(s.shrunk().passed());
        assertEquals("orderly-close", s.shrunk().violation().invariant());
        assertTrue(s.shrunk().schedule().size() < s.failure().schedule().size(), "shrunk: " + s.shrunk().schedule());
        assertFalse(s.shrunk().schedule().faults().isEmpty(), "no fault, no time-out: " + s.shrunk().schedule());
        assertFalse(t.run(Schedule.parse(s.shrunk().schedule().encode())).passed(), "the shrunk schedule replays");
        assertTrue(t.replayCommand(s.shrunk().schedule()).startsWith("./nic simtest --protocol tcp --replay '"));
    }
}
