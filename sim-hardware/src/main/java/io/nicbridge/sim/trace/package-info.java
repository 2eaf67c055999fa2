/**
 * Block-structured traces (the idempotent-messaging paper, section 3): the library
 * ({@link io.nicbridge.sim.trace.TraceMachine}: Load, Store, Wait, Fork, Join, Sync, Sync with a
 * continuation) runs a parallel program in one thread and records a {@link io.nicbridge.sim.trace.BlockTrace};
 * {@link io.nicbridge.sim.trace.TraceEngine} replays it on a fabric's NI ports (requests on the request
 * network, replies on the reply network) and reports the completion time;
 * {@link io.nicbridge.sim.trace.MicroBenchmarks} holds the paper's add, reverse, quicksort and nbody.
 */
package io.nicbridge.sim.trace;
