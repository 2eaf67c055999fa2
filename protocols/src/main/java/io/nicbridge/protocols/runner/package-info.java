/**
 * Runners drive protocol cores: {@link io.nicbridge.protocols.runner.NodeRunner} runs N nodes on one bridge
 * scheduler: on a virtual scheduler, deterministically (same seed, same trace); on an event loop, in real time.
 */
package io.nicbridge.protocols.runner;
