package io.nicbridge.protocols.dst;

/** What a workload tells the world it runs in: a broken promise, or progress (for the progress check). */
interface Verdict {
    /** Records the run's first violation; later ones are ignored. */
    void fail(String invariant, String detail);

    /** @return true once a violation was recorded */
    boolean failed();

    /** Something was offered, sent or delivered now. */
    void progressed();
}
