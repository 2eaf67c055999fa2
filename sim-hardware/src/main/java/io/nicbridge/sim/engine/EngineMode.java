package io.nicbridge.sim.engine;

/** The three ways of driving an emulated card (ARCHITECTURE.md, "How the emulator runs"). */
public enum EngineMode {
    /** The card's work runs on the thread that rings its doorbell or polls it. */
    INLINE,
    /** A device engine thread per card, with a selectable idle strategy. */
    THREADED,
    /** A deterministic discrete-event scheduler runs everything in one thread in simulated time. */
    VIRTUAL
}
