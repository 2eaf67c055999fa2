package io.nicbridge.protocols.core;

/** What a core promises its application; each has an invariant checker in the simulation tester. */
public enum Guarantee {
    /** Every message accepted by {@code offer} is delivered to the named peer's application exactly once. */
    EXACTLY_ONCE,
    /** Messages from one sender to one receiver are delivered in the order they were offered. */
    PER_PEER_ORDER,
    /** Once the network stops losing frames, every accepted message is delivered within a bounded time. */
    PROGRESS,
    /** The core never holds more than {@link ProtocolCore#bufferCapacity()} messages. */
    BOUNDED_MEMORY,
    /**
     * The core relies on the medium's reliability (the careful protocol) and, when the medium breaks that assumption
     * (loses, duplicates, reorders or corrupts a frame), reports it ({@code CStarNetwork.violations() > 0}) instead
     * of delivering wrong, missing or duplicated data silently: the simulation tester checks exactly-once, integrity,
     * completion and progress on it too, and accepts a failure of them only when the core had reported before it.
     * One break no core without timers can report is a trailing loss (a lost frame that nothing later from its
     * sender to that receiver exposes); the tester classifies a stall as one only on the cores' own
     * {@code cstar.FrameCounts} evidence and counts those schedules apart ({@code SimulationRun.Outcome#undetectable}).
     */
    REPORTS_BROKEN_ASSUMPTIONS
}
