package io.nicbridge.protocols.dst;

import io.nicbridge.protocols.runner.NodeApplication;
import io.nicbridge.protocols.runner.NodeRunner;

/**
 * The application side of one simulated world: what the nodes offer or send, and the checks of what their cores
 * deliver. One per core API ({@link MessageWorkload}, {@link CStarWorkload}); the world around it (medium, runner,
 * faults, the progress and memory checks, the end of the run) is {@link SimulationRun}'s.
 */
interface Workload extends NodeApplication {
    /** Arms the workload's own timers on the runner's scheduler (called once, before the run). */
    void start(NodeRunner runner);

    /** Cancels the workload's timers (after the run). */
    void stop();

    /** @return the deliveries the run must see */
    int total();

    int delivered();

    /** @return messages or fragments handed to the cores so far */
    int offered();

    /** @return true while something is owed: offered and not delivered, or due to be offered by now */
    boolean outstanding(long now);

    /** @return broken assumptions the cores reported ({@code CStarNetwork.violations()}), 0 for message cores */
    long reportedByCores();
}
