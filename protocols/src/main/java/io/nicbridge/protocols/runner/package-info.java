/**
 * Runners drive protocol cores: {@link io.nicbridge.protocols.runner.VirtualRunner} runs N nodes on one
 * deterministic virtual scheduler (same seed, same trace).
 */
package io.nicbridge.protocols.runner;
