/**
 * Runners drive protocol cores: {@link io.nicbridge.protocols.runner.NodeRunner} runs N nodes on one bridge
 * scheduler (on a virtual scheduler, deterministically: same seed, same trace; on an event loop, in real time on
 * one thread), and {@link io.nicbridge.protocols.runner.ThreadPerNodeRunner} runs each node on its own real-time
 * event loop thread. Applications see a node as a {@link io.nicbridge.protocols.runner.RunnerNode}.
 */
package io.nicbridge.protocols.runner;
