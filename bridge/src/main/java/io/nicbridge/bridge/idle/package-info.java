/**
 * Idle strategies: what a thread that polls (an engine thread, a driver waiting for its card, a benchmark loop)
 * does after a pass that found no work. They live in bridge, below every module that polls, so the spin, yield
 * and park back-off is written once (as Aeron takes Agrona's). Every strategy gives the core away in the end:
 * the machines this runs on may have two cores shared by several polling threads.
 */
package io.nicbridge.bridge.idle;
